#!/usr/bin/env python3
"""Two commits under bench/run's measurements, taken in turns; writes bench/compare.md.

    git worktree add /tmp/before f66cea3 && (cd /tmp/before && python3 -m venv .venv && .venv/bin/pip install -e .)
    .venv/bin/python bench/compare.py /tmp/before --pairs 8      # about 25 minutes on 2 cores

Why in turns: on a shared VM the machine's speed drifts by more than most changes move a ratio
(the same commit's first-time visitor measured 0.22, 0.23 and 0.30 in three runs of bench/run).
Here each pair runs one round of this checkout's bench/run.py on each commit, one straight after
the other, and the order flips from pair to pair, so drift lands on both sides alike. Both sides
are measured by the same file (this checkout's bench/run.py): the older commit only supplies the
servers, questions and hello world, by running it with its own venv's Python.

A measurement's verdict compares its median ratio to the hello world over the pairs, and counts
the pairs in which the later commit's ratio is the higher one.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "bench" / "run.py"
RUN_LIMIT_S = 600  # one round of bench/run.py takes about 100 s


def venv_python(checkout: Path) -> Path:
    """The checkout's own venv, with its quizapp installed from that checkout; exits 2 otherwise."""
    python = checkout / ".venv" / "bin" / "python"
    found = subprocess.run([str(python), "-c", "import quizapp; print(quizapp.__file__)"],
                           capture_output=True, text=True, timeout=60, cwd=checkout) if python.exists() else None
    if found is None or found.returncode != 0 or not Path(found.stdout.strip()).is_relative_to(checkout.resolve()):
        sys.exit(f"bench/compare.py: error: {checkout} needs a .venv with its own quizapp "
                 f"(cd {checkout} && python3 -m venv .venv && .venv/bin/pip install -e .)")
    return python


def one_round(python: Path, seconds: float, workdir: Path, tag: str) -> dict:
    figures = workdir / f"{tag}.json"
    command = [str(python), str(RUN), "--rounds", "1", "--seconds", str(seconds), "--cards", "100",
               "--output", str(workdir / f"{tag}.md"), "--json", str(figures)]
    with open(workdir / f"{tag}.log", "w") as log:
        done = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, timeout=RUN_LIMIT_S, cwd=ROOT)
    if done.returncode != 0:
        tail = (workdir / f"{tag}.log").read_text(errors="replace").splitlines()[-15:]
        sys.exit(f"bench/compare.py: error: {tag} failed ({done.returncode}):\n" + "\n".join(tail))
    return json.loads(figures.read_text())


def run_pairs(sides: dict[str, Path], pairs: int, seconds: float, workdir: Path) -> dict[str, list[dict]]:
    runs = {name: [] for name in sides}
    for pair in range(pairs):
        order = list(sides) if pair % 2 == 0 else list(reversed(sides))
        for name in order:
            began = time.monotonic()
            runs[name].append(one_round(sides[name], seconds, workdir, f"pair{pair + 1}-{name}"))
            print(f"pair {pair + 1}/{pairs}: {name} in {time.monotonic() - began:.0f} s", flush=True)
    return runs


def by_key(runs: list[dict]) -> dict[str, list[dict]]:
    rows: dict[str, list[dict]] = {}
    for run in runs:
        for row in run["outcomes"]:
            rows.setdefault(row["key"], []).append(row)
    return rows


DISTURBED, IDLED = 0.10, 0.25  # as report.py flags a run: other work's share of the CPUs, and idle CPUs


def fmt(values: list[float | None], pattern: str) -> str:
    return ", ".join("–" if v is None else format(v, pattern) for v in values)


def marked(rows: list[dict]) -> str:
    """Each round's ratio; * when other work took its CPUs or they idled, as report.py warns."""
    return ", ".join("–" if r["ratio"] is None else f"{r['ratio']:.2f}" + (
        "*" if (r["others_cpu"] or 0) >= DISTURBED or (r["idle_cpu"] or 0) >= IDLED else "") for r in rows)


def table(runs: dict[str, list[dict]]) -> tuple[list[str], int]:
    """The markdown rows, and how many measurements' median ratio fell."""
    before, after = (by_key(runs[name]) for name in ("before", "after"))
    lines = ["| measurement | before: median ratio | after: median ratio | change | pairs where after's ratio "
             "is higher | before req/s (median) | after req/s (median) | ratios per pair, before | "
             "ratios per pair, after |",
             "|---|---:|---:|---:|---:|---:|---:|---|---|"]
    fell = 0
    for key, rows in after.items():
        old = [r["ratio"] for r in before.get(key, [])]
        new = [r["ratio"] for r in rows]
        if key == "hello" or any(v is None for v in old + new) or len(old) != len(new):
            speed = [r["per_second"] for r in before.get(key, [])], [r["per_second"] for r in rows]
            why = "; ".join(sorted({r["skipped"] for r in before.get(key, []) + rows if r["skipped"]}))
            lines.append(f"| {rows[0]['label']} | – | – | – | – | {_median(speed[0])} | {_median(speed[1])} | "
                         f"{why or fmt(speed[0], ',.0f')} | {fmt(speed[1], ',.0f')} |")
            continue
        higher = sum(n > o for o, n in zip(old, new))
        change = statistics.median(new) / statistics.median(old) - 1
        fell += change < 0
        lines.append(f"| {rows[0]['label']} | {statistics.median(old):.3f} | {statistics.median(new):.3f} | "
                     f"{'**' if change < 0 else ''}{change:+.1%}{'**' if change < 0 else ''} | "
                     f"{higher} of {len(new)} | {_median([r['per_second'] for r in before[key]])} | "
                     f"{_median([r['per_second'] for r in rows])} | {marked(before[key])} | {marked(rows)} |")
    return lines, fell


def _median(values: list[float | None]) -> str:
    known = [v for v in values if v is not None]
    return f"{statistics.median(known):,.0f}" if known else "–"


def write_report(path: Path, runs: dict[str, list[dict]], args, seconds_taken: float) -> int:
    lines, fell = table(runs)
    measured = len(lines) - 3  # header, rule, hello world
    text = "\n".join([
        "# Before and after, in turns",
        "",
        f"Written by `bench/compare.py` on {datetime.now(timezone.utc):%Y-%m-%d %H:%M UTC} in "
        f"{seconds_taken:.0f} s: {args.pairs} pairs, each one round of `bench/run.py` (`wrk -t1 -c10 "
        f"-d{args.seconds:g}s` per measurement, hello world first) on each side, the order flipped every pair. "
        "A ratio is a measurement's requests/s over the hello world's of the same round, same server model.",
        "",
        f"- before: `{args.before}`, quizapp at {runs['before'][0]['quizapp']}",
        f"- after: `{ROOT}`, quizapp at {runs['after'][0]['quizapp']}",
        f"- median ratio fell for {fell} of {measured} measurements",
        f"- `*`: in that run other work took at least {DISTURBED:.0%} of the CPUs, or they idled {IDLED:.0%} "
        "(bench/run's warnings), so its ratio is suspect",
        "",
        *lines,
        "",
    ])
    path.write_text(text, encoding="utf-8")
    print(text)
    return fell


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, help="checkout of the earlier commit, with its own .venv")
    parser.add_argument("--pairs", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=4.0, help="length of each wrk run (at most 10)")
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "compare.md")
    args = parser.parse_args(argv)
    if args.pairs < 1 or not 0 < args.seconds <= 10:
        parser.error("--pairs must be at least 1 and --seconds in (0, 10]")
    sides = {"before": venv_python(args.before), "after": venv_python(ROOT)}
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="quizapp-compare-") as workdir:
        runs = run_pairs(sides, args.pairs, args.seconds, Path(workdir))
    write_report(args.output, runs, args, time.monotonic() - began)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("bench/compare.py: stopped", file=sys.stderr)
        sys.exit(130)
