#!/usr/bin/env python3
"""Two commits under bench/run's measurements, taken in turns step by step; writes bench/compare.md.

    git worktree add /tmp/before f66cea3 && (cd /tmp/before && python3 -m venv .venv && .venv/bin/pip install -e .)
    .venv/bin/python bench/compare.py /tmp/before --rounds 8     # about 30 minutes on 2 cores

Why in turns: on this shared VM the CPU's speed drifts from second to second (a fixed loop took
1.06 to 1.72 times its best time, second by second, over 40 s), by more than most changes move a
ratio: the same commit's first-time visitor measured 0.22, 0.23 and 0.30 in three runs of
bench/run. Here both commits' benchmarks run at once under ``--lockstep``: each says the step it
is about to take and waits, so every step (a round's hello world, each measurement) runs on one
commit and straight after on the other, never both at once, and which goes first flips each
round. Both sides are measured by the same file, this checkout's bench/run.py: the older commit
only supplies the servers, questions and hello world, by running it under its own venv's Python.

A measurement's verdict compares its median ratio to the hello world over the rounds, and counts
the rounds in which the later commit's ratio is the higher one.
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
READY = "READY"  # bench/run.py --lockstep's line before each step


def venv_python(checkout: Path) -> Path:
    """The checkout's own venv, with its quizapp installed from that checkout; exits 2 otherwise."""
    python = checkout / ".venv" / "bin" / "python"
    found = subprocess.run([str(python), "-c", "import quizapp; print(quizapp.__file__)"],
                           capture_output=True, text=True, timeout=60, cwd=checkout) if python.exists() else None
    if found is None or found.returncode != 0 or not Path(found.stdout.strip()).is_relative_to(checkout.resolve()):
        sys.exit(f"bench/compare.py: error: {checkout} needs a .venv with its own quizapp "
                 f"(cd {checkout} && python3 -m venv .venv && .venv/bin/pip install -e .)")
    return python


class Side:
    """One commit's bench/run.py under --lockstep: it says each step it is about to take, and takes
    it when told."""

    def __init__(self, name: str, python: Path, rounds: int, seconds: float, workdir: Path):
        self.name, self.figures, self.log = name, workdir / f"{name}.json", workdir / f"{name}.log"
        command = [str(python), str(RUN), "--lockstep", "--rounds", str(rounds), "--seconds", str(seconds),
                   "--cards", "100", "--output", str(workdir / f"{name}.md"), "--json", str(self.figures)]
        self.proc = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.step: str | None = None

    def wait(self) -> str | None:
        """Until it is ready for its next step (returned) or has finished (None); its lines go to its log."""
        with open(self.log, "a") as log:
            for line in self.proc.stdout:
                if line.startswith(READY + " "):
                    self.step = line[len(READY) + 1:].strip()
                    return self.step
                log.write(line)
        self.step = None
        if self.proc.wait(timeout=60) != 0:
            tail = self.log.read_text(errors="replace").splitlines()[-15:]
            sys.exit(f"bench/compare.py: error: {self.name} failed ({self.proc.returncode}):\n" + "\n".join(tail))
        return None

    def go(self) -> None:
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()  # bench/run.py stops its servers on SIGTERM
            self.proc.wait(timeout=30)


def run_in_turns(pythons: dict[str, Path], rounds: int, seconds: float, workdir: Path) -> dict[str, dict]:
    """Both commits' benchmarks, one step at a time: each measurement (and each round's hello world)
    on one, then straight away on the other, the first of the two flipped every round."""
    sides: list[Side] = []
    try:
        for name, python in pythons.items():  # one sets up (servers, seeded readers) while the other waits
            sides.append(Side(name, python, rounds, seconds, workdir))
            sides[-1].wait()
        flips = 0
        while any(side.step for side in sides):
            if sides[0].step and sides[0].step.endswith(" hello") and not sides[0].step.startswith("round 1 "):
                flips += 1
            for side in (sides if flips % 2 == 0 else sides[::-1]):
                if side.step:
                    step = side.step
                    side.go()
                    side.wait()
                    if step.endswith(" hello"):
                        print(f"{step} … ({side.name})", flush=True)
        return {side.name: json.loads(side.figures.read_text()) for side in sides}
    finally:
        for side in sides:
            side.stop()


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
    lines = ["| measurement | before: median ratio | after: median ratio | change | rounds where after's ratio "
             "is higher | before req/s (median) | after req/s (median) | ratio each round, before | "
             "ratio each round, after |",
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
        f"{seconds_taken:.0f} s: {args.rounds} rounds of `bench/run.py --lockstep` on each side (`wrk -t1 -c10 "
        f"-d{args.seconds:g}s` per measurement, hello world first), each step on one side and straight after on "
        "the other, which goes first flipped every round. "
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
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=4.0, help="length of each wrk run (at most 10)")
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "compare.md")
    args = parser.parse_args(argv)
    if args.rounds < 1 or not 0 < args.seconds <= 10:
        parser.error("--rounds must be at least 1 and --seconds in (0, 10]")
    sides = {"before": venv_python(args.before), "after": venv_python(ROOT)}
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="quizapp-compare-") as workdir:
        runs = {name: [run] for name, run in run_in_turns(sides, args.rounds, args.seconds, Path(workdir)).items()}
    write_report(args.output, runs, args, time.monotonic() - began)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("bench/compare.py: stopped", file=sys.stderr)
        sys.exit(130)
