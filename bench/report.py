"""What bench/run.py prints and writes: every figure, the machine, and each target met or missed."""

from __future__ import annotations

import os
import platform
import re
import sqlite3
import statistics
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from harness import Figure

ROOT = Path(__file__).resolve().parent.parent
# A run during which other work took this share of the machine's CPUs is flagged in the report.
DISTURBED = 0.10
IDLED = 0.25  # a run whose CPUs idled more had a worker short of connections (see write_results)
PACKAGES = ("flask", "werkzeug", "jinja2", "gunicorn", "sqlite-utils", "markdown", "nh3", "PyYAML", "fsrs", "click")


@dataclass
class Outcome:
    """One measurement in one round: its figures against that round's hello world, or why there are none."""

    key: str
    label: str
    round: int
    figure: Figure | None = None
    hello: Figure | None = None
    skipped: str | None = None
    facts: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    baseline: str | None = None  # the key of the fresh learner's figure it is compared with

    @property
    def ratio(self) -> float | None:
        if self.figure is None or not self.hello or not self.hello.per_second:
            return None
        return self.figure.per_second / self.hello.per_second

    def error_text(self) -> str:
        if self.figure is None or not self.figure.error_count:
            return ""
        kinds = ", ".join(f"{k} {v:,}" for k, v in self.figure.errors.items())
        return f"{self.figure.error_count:,} errors ({kinds}; status = answers not 2xx/3xx)"


def print_line(outcome: Outcome) -> None:
    head = f"round {outcome.round}  {outcome.label:<50}"
    if outcome.skipped:
        print(f"{head} {outcome.skipped}", flush=True)
        return
    if not outcome.figure.requests:
        print(f"{head} no request finished within the run; {outcome.error_text()}", flush=True)
        return
    f = outcome.figure
    others = f"other work took {f.others_cpu:.0%} of the CPUs" if f.others_cpu >= DISTURBED else ""
    idle = f"the CPUs idled {f.idle_cpu:.0%} of the run" if f.idle_cpu >= IDLED else ""
    extra = "; ".join(filter(None, [outcome.error_text(), others, idle, *outcome.notes]))
    print(f"{head} {f.per_second:>7,.0f} req/s  p50 {f.p50_ms:6.1f} ms  p99 {f.p99_ms:6.1f} ms  "
          f"{outcome.ratio:4.2f}x hello" + (f"  | {extra}" if extra else ""), flush=True)


# --- the machine and the software -------------------------------------------------------------

def _first_line(command: list[str], cwd: Path = ROOT) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=10, cwd=cwd)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return ((done.stdout or done.stderr).strip().splitlines() or ["unknown"])[0]


def _proc_field(path: str, name: str) -> str:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(name):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def _memory() -> str:
    total = _proc_field("/proc/meminfo", "MemTotal")
    return f"{int(total.split()[0]) / 1024 ** 2:.1f} GiB" if total.endswith("kB") else total


def _os_name() -> str:
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    return platform.system()


def _commit(checkout: Path) -> str:
    dirty = _first_line(["git", "status", "--porcelain", "--untracked-files=no"], checkout)
    commit = _first_line(["git", "rev-parse", "--short", "HEAD"], checkout)
    return commit + (" with uncommitted changes" if dirty not in ("", "unknown") else "")


def machine_and_software(checkout: Path = ROOT) -> dict:
    """``checkout``: where the measured servers' code is (bench/compare.py runs an older one)."""
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": len(os.sched_getaffinity(0)),
        "cpu": _proc_field("/proc/cpuinfo", "model name"),
        "memory": _memory(),
        "load_start": os.getloadavg(),
        "os": f"{_os_name()}, kernel {platform.release()}",
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "packages": versions,
        "wrk": _first_line(["wrk", "-v"]).split(" Copyright")[0],
        "quizapp": _commit(checkout) + ("" if checkout == ROOT else f", measured by bench/ of {_commit(ROOT)}"),
    }


# --- summaries --------------------------------------------------------------------------------

@dataclass
class Summary:
    key: str
    label: str
    outcomes: list[Outcome]

    @property
    def measured(self) -> list[Outcome]:
        """The rounds with figures (at least one request answered)."""
        return [o for o in self.outcomes if o.figure is not None and o.figure.requests]

    @property
    def skipped(self) -> str | None:
        if self.measured:
            return None
        return self.outcomes[0].skipped or "no request finished within the run" if self.outcomes else "not run"

    def median(self, value) -> float | None:
        values = [value(o) for o in self.measured]
        values = [v for v in values if v is not None]
        return statistics.median(values) if values else None


def summarize(outcomes: list[Outcome]) -> dict[str, Summary]:
    summaries: dict[str, Summary] = {}
    for outcome in outcomes:
        summaries.setdefault(outcome.key, Summary(outcome.key, outcome.label, [])).outcomes.append(outcome)
    return summaries


def versus_baseline(summaries: dict[str, Summary], key: str) -> list[float]:
    """A history figure over its fresh learner's, round by round (req/s over req/s)."""
    summary = summaries.get(key)
    if summary is None or not summary.measured or summary.measured[0].baseline not in summaries:
        return []
    fresh = {o.round: o.figure.per_second for o in summaries[summary.measured[0].baseline].measured}
    return [o.figure.per_second / fresh[o.round] for o in summary.measured if fresh.get(o.round)]


def history_keys(summaries: dict[str, Summary]) -> list[str]:
    return [k for k, s in summaries.items() if any(o.baseline for o in s.outcomes)]


def estimate(banks: dict, value) -> float | None:
    """A straight line through the shipped bank and the sample bank, at the big bank's size."""
    small, sample, big = banks["shipped"], banks["sample"], banks["big"]
    a, b = value(small), value(sample)
    if a is None or b is None or sample["cards"] == small["cards"]:
        return None
    return a + (b - a) / (sample["cards"] - small["cards"]) * (big["cards"] - small["cards"])


def max_rss(bank: dict, key: str = "rss_mb") -> float | None:
    return max(bank.get(key) or [], default=None)


# --- targets ----------------------------------------------------------------------------------

def at_least(value: float | None, target: float) -> str:
    """The status of a ratio to the hello world that must reach ``target``."""
    if value is None:
        return "not measured"
    if value >= target:
        return "**met**"
    return f"**missed** by {target - value:.2f}x: it needs {target / value:.1f}x its req/s" if value else "**missed**"


def below(value: float | None, target: float, unit: str, how: str = "") -> str:
    """The status of a figure that must stay under ``target``."""
    if value is None:
        return "not measured"
    if value < target:
        return "**met**" + how
    return f"**missed**{how}: {value:,.1f} {unit} is {value / target:.1f}x the {target:g} {unit} limit"


def targets(summaries: dict[str, Summary], banks: dict) -> list[tuple[str, str, str]]:
    """(target, figure, status) for each of issue 12's targets, from the medians over the rounds."""
    return (_ratio_targets(summaries) + [_event_target(summaries["event"])] + _history_targets(summaries)
            + _bank_targets(banks))


def others_busiest(summaries: dict[str, Summary], banks: dict) -> float:
    """The largest share of the CPUs that other work took, over the measurements' medians and the banks."""
    shares = [s.median(lambda o: o.figure.others_cpu) for s in summaries.values()]
    shares += [bank.get("others_cpu", 0.0) for bank in banks.values()]
    return max((share for share in shares if share is not None), default=0.0)


def _ratio_targets(summaries: dict[str, Summary]) -> list[tuple[str, str, str]]:
    rows = []
    for key, target in (("card", 0.5), ("card_first", 0.5), ("scenario", 0.3)):
        ratio = summaries[key].median(lambda o: o.ratio)
        rows.append((f"{summaries[key].label} ≥ {target}x hello world", _ratio_text(ratio), at_least(ratio, target)))
    return rows


def _event_target(event: Summary) -> tuple[str, str, str]:
    ratio = event.median(lambda o: o.ratio)
    lost = sum(o.facts.get("lost", 0) for o in event.measured)
    status = at_least(ratio, 0.3)
    if event.measured and lost:
        status = f"**missed**: {lost:,} acknowledged events lost" + ("" if status == "**met**" else f"; {status}")
    runs = len(event.measured)
    return ("progress event POST ≥ 0.3x hello world, nothing lost",
            f"{_ratio_text(ratio)}; {lost:,} lost in {runs} run{'s' if runs != 1 else ''}", status)


def _history_targets(summaries: dict[str, Summary]) -> list[tuple[str, str, str]]:
    rows = []
    for key in history_keys(summaries):
        ratios = versus_baseline(summaries, key)
        change = abs(statistics.median(ratios) - 1) * 100 if ratios else None
        baseline = summaries[summaries[key].outcomes[0].baseline].label
        rows.append((f"{summaries[key].label}: within 10 % of {baseline}",
                     f"{statistics.median(ratios):.2f}x its req/s" if ratios else summaries[key].skipped,
                     below(change, 10, "%")))
    return rows


def _bank_targets(banks: dict) -> list[tuple[str, str, str]]:
    big = banks["big"]
    cards, limit = f"{big['cards']:,} cards", big["limit_s"]
    rows = []
    for key, name, goal in (("start_s", "start to first response", 5), ("check_s", "`quizapp check`", 10)):
        if big[key] is not None:
            rows.append((f"{cards}: {name} < {goal} s", f"{big[key]:.1f} s", below(big[key], goal, "s")))
            continue
        guess = estimate(banks, lambda bank: bank[key])
        rows.append((f"{cards}: {name} < {goal} s",
                     f"not within {limit:g} s" + (f"; estimate {guess:,.0f} s" if guess else ""),
                     f"**missed**: over {limit / goal:.0f}x the limit"))
    if big["loaded"]:
        rows.append((f"{cards}: < 300 MB resident per worker", _rss_text(big["rss_mb"]),
                     below(max_rss(big), 300, "MB")))
    else:
        guess = estimate(banks, max_rss)
        rows.append((f"{cards}: < 300 MB resident per worker",
                     f"bank not loaded within {limit:g} s ({_rss_text(big['rss_mb'])} then)"
                     + (f"; estimate {guess:,.0f} MB" if guess else ""), below(guess, 300, "MB", " (estimated)")))
    return rows


def _ratio_text(ratio: float | None) -> str:
    return f"{ratio:.2f}x" if ratio is not None else "not measured"


def _rss_text(sizes: list[float]) -> str:
    return " and ".join(f"{s:,.0f} MB" for s in sizes) or "no workers"


# --- bench/results.md -------------------------------------------------------------------------

def _cell(value: float | None, form: str) -> str:
    return format(value, form) if value is not None else "–"


def _seconds(value: float | None, limit: float) -> str:
    return f"{value:.1f} s" if value is not None else f"> {limit:g} s (stopped)"


def write_results(path: Path, info: dict, args, outcomes: list[Outcome], banks: dict, history_note: str,
                  problems: dict[str, list[str]]) -> None:
    summaries = summarize(outcomes)
    load_end = os.getloadavg()
    lines = [
        "# Benchmark results",
        "",
        f"Written by `bench/run` on {info['date']} in {info['seconds']:.0f} s: {args.rounds} "
        f"round{'s' if args.rounds > 1 else ''}, "
        f"`wrk -t1 -c10 -d{args.seconds:g}s --latency` per measurement, hello world first in each round. "
        "Figures are medians over the rounds; the ratio is to the hello world of the same round. "
        "\"Other work's CPU\" is the share of the machine's CPUs that went to processes other than the "
        "benchmark's (and to other VMs, as steal) during each run: above 10 %, that run's figures are low. "
        "\"CPUs idle\" is the share the machine left unused during each run: with wrk keeping 10 connections "
        "busy, above 25 % means the server left a core unused (each gunicorn worker is one Python process, one "
        "core at most, and the kernel hands wrk's keep-alive connections to the workers unevenly now and "
        "then), which happens to the hello world too: that run's ratio is off. "
        "See bench/README.md for what each line measures.",
        "",
        "## Machine and software",
        "",
        f"- {info['nproc']} CPUs (nproc), {info['cpu']}; memory {info['memory']}",
        f"- load average (1, 5, 15 min) at start {_loads(info['load_start'])}, at end {_loads(load_end)}: "
        "wrk, both servers and anything else on the machine share these CPUs",
        f"- {info['os']}; Python {info['python']}, SQLite {info['sqlite']}, {info['wrk']}",
        "- " + ", ".join(f"{k} {v}" for k, v in info["packages"].items()),
        f"- quizapp at commit {info['quizapp']}; servers: gunicorn "
        f"{os.environ.get('QUIZAPP_WORKER_CLASS', 'gevent')} workers (QUIZAPP_WORKER_CLASS; gevent is quizapp serve's default), 2 workers, "
        "access log on (`quizapp serve` and bench/hello.py through the same `run_gunicorn`)",
        "",
        "## Throughput against Flask's hello world",
        "",
        "| measurement | req/s | p50 ms | p99 ms | x hello world | per round | other work's CPU | CPUs idle | notes |",
        "|---|---:|---:|---:|---:|---|---|---|---|",
    ]
    for summary in summaries.values():
        lines.append(_summary_row(summary))
    lines += ["", f"Learner history: {history_note}."]
    for key in history_keys(summaries):
        ratios = versus_baseline(summaries, key)
        if ratios:
            baseline = summaries[summaries[key].outcomes[0].baseline].label
            lines.append(f"`{summaries[key].label}` against `{baseline}`, req/s over req/s in the same "
                         f"round: {', '.join(f'{r:.2f}' for r in ratios)} (median {statistics.median(ratios):.2f}).")
    lines += _bank_section(banks)
    if any(problems.values()):
        lines += ["", "Server logs contain: " + "; ".join(f"{k}: {', '.join(v)}" for k, v in problems.items() if v)]
    lines += ["", "## Targets (issue 12)", ""]
    busiest = others_busiest(summaries, banks)
    if busiest >= DISTURBED:
        lines += [f"Other work took up to {busiest:.0%} of the CPUs during these runs (see the tables above): "
                  "the statuses below rest on disturbed figures; run again on a quiet machine.", ""]
    lines += ["| target | figure | status |", "|---|---|---|"]
    lines += [f"| {t} | {f} | {s} |" for t, f, s in targets(summaries, banks)]
    # bench/run --db's section (bench/servers.py) is its own run's, and a section between two
    # <!-- by hand --> marks is written by hand (a comparison of two runs): kept as they stand.
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    for mark in ("<!-- by hand -->", "<!-- servers -->"):
        kept = re.search(f"{mark}.*?{mark}", old, re.S)
        if kept:
            lines += ["", kept.group(0)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _loads(values) -> str:
    return " / ".join(f"{v:.2f}" for v in values)


def _summary_row(summary: Summary) -> str:
    if summary.skipped:
        return f"| {summary.label} | {summary.skipped} | | | | | | | |"
    per_round = ", ".join(f"{o.ratio:.2f}" if o.figure else "–" for o in summary.outcomes)
    if summary.key == "hello":
        per_round = ", ".join(f"{o.figure.per_second:,.0f}" for o in summary.outcomes) + " req/s"
    notes = "; ".join(dict.fromkeys(n for o in summary.outcomes for n in [o.error_text(), *o.notes] if n))
    others = ", ".join(f"{o.figure.others_cpu:.0%}" if o.figure else "–" for o in summary.outcomes)
    idle = ", ".join(f"{o.figure.idle_cpu:.0%}" if o.figure else "–" for o in summary.outcomes)
    return (f"| {summary.label} | {_cell(summary.median(lambda o: o.figure.per_second), ',.0f')} "
            f"| {_cell(summary.median(lambda o: o.figure.p50_ms), '.1f')} "
            f"| {_cell(summary.median(lambda o: o.figure.p99_ms), '.1f')} "
            f"| {_cell(summary.median(lambda o: o.ratio), '.2f')} | {per_round} | {others} | {idle} | {notes} |")


def _bank_section(banks: dict) -> list[str]:
    rows = ["", "## Bank size", "",
            "Copies of the shipped card with distinct ids. Start: from starting `quizapp serve` to the first "
            "answer of `/`. Resident memory: VmRSS of each gunicorn worker after concurrent first requests of `/`, "
            "then 50 card pages spread over the bank (in brackets: after `/` alone).", "",
            "| bank | start to first response | `quizapp check` | RSS per worker | other work's CPU |",
            "|---|---:|---:|---|---:|"]
    for name in ("shipped", "sample", "big"):
        bank = banks[name]
        limit = bank.get("limit_s", 30)
        rss = _rss_text(bank.get("rss_mb") or [])
        if bank.get("rss_bank_mb"):
            rss += f" ({_rss_text(bank['rss_bank_mb'])})"
        if name == "big" and not bank["loaded"]:
            rss += " (bank still loading when stopped)"
        rows.append(f"| {bank['cards']:,} cards | {_seconds(bank['start_s'], limit)} "
                    f"| {_seconds(bank['check_s'], limit)} | {rss} | {bank.get('others_cpu', 0):.0%} |")
    big = banks["big"]
    guesses = [estimate(banks, lambda b: b["start_s"]), estimate(banks, lambda b: b["check_s"]),
               estimate(banks, max_rss)]
    if None not in guesses and not (big["loaded"] and big["check_s"] is not None):
        rows += ["", f"Straight-line estimate for {big['cards']:,} cards from the two smaller banks: start "
                     f"{guesses[0]:,.0f} s, check {guesses[1]:,.0f} s, {guesses[2]:,.0f} MB per worker."]
    if banks["shipped"].get("rss_after_mb"):
        rows.append(f"Shipped bank's workers after all rounds: {_rss_text(banks['shipped']['rss_after_mb'])}.")
    return rows
