"""Read a startup log's text into facts, line by line.

``parse_log`` splits the text into lines, strips vLLM's prefixes and terminal colours,
recognises each line through ``patterns.PATTERNS``, and returns every fact with its line,
plus the lines it did and did not recognise. A log may hold several starts (restarts); the
facts are the last start's, and the pool lines of the earlier starts are listed as not read.

Lines are read in their true order: people paste excerpts gathered from two processes (the
API server's lines, then the engine's) or grep a compose log, so the pool lines may come before
the ``non-default args`` line that started their run. Where lines carry vLLM's timestamp
("INFO 12-01 10:00:03"), the lines are sorted by it (a stable sort; a line without one keeps
its place after the line before it, as a traceback's lines follow their error). Where every
line that has vLLM's timestamp also has a full date and time in front (``docker logs -t``,
``docker compose logs -t``, ``journalctl -o short-iso``), that one decides instead: it has the
year and fractions of a second, and lines that vLLM printed without its own. Line numbers stay
the pasted text's.

Hostile input: the text is bounded (``MAX_LOG_CHARS``, ``MAX_LOG_LINES``) and each line is
read up to ``MAX_LINE_CHARS``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ..errors import CalcError
from .patterns import PATTERNS, known, recognise
from .patterns import RESULTS as RESULT_FACTS

MAX_LOG_CHARS = 2_000_000
MAX_LOG_LINES = 20_000
MAX_LINE_CHARS = 20_000
MAX_LISTED_CHARS = 300  # of an unrecognised line, as listed

ANSI = re.compile(r"\x1b\[[0-9;?]{0,20}[A-Za-z]")
# "(EngineCore_DP0 pid=12) INFO 10-01 12:00:20 [core.py:77] " or V0's "INFO 04-02 21:42:59 worker.py:241] "
# vLLM's "LEVEL MM-DD HH:MM:SS[.ffffff]", wherever a grep or compose prefix puts it in the line.
STAMP = re.compile(r"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s{1,4}(\d\d)-(\d\d)\s(\d\d):(\d\d):(\d\d)"
                   r"(?:[.,](\d{1,6}))?(?!\d)")
STAMP_SEARCHED = 300  # characters of a line searched for its timestamp
# "2026-11-30T10:00:01.123456789Z ", "2026-11-30T11:00:01+01:00 ": a date and time that a log
# collector puts in front (after a compose service's "vllm-1  | " at most).
FULL_STAMP = re.compile(r"(?:^|\|\s)(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?"
                        r"(Z|[+-]\d\d:?\d\d)?(?=\s)")
FULL_STAMP_SEARCHED = 120
STARTS_RUN = frozenset(p.name for p in PATTERNS if p.starts_run)
RESULTS = frozenset(RESULT_FACTS)
MAX_DROPPED = 20  # pool lines of earlier starts, as listed
POOL_FACTS = ("pool_tokens", "v0_pool_tokens", "num_gpu_blocks", "max_concurrency")
PREFIX = re.compile(r"(?:\([^()]{0,80}\)\s{0,4})?(?:[A-Z]{4,8}\s{1,4}\d\d-\d\d\s\d\d:\d\d:\d\d(?:\.\d{1,6})?\s{1,4})?"
                    r"(?:\[?[\w./-]{1,80}:\d{1,6}\]\s?)?")


@dataclass
class ParsedLog:
    """Every fact of the last run with its line, and which lines were read."""

    facts: dict[str, list[tuple[object, int]]] = field(default_factory=dict)
    recognised: list[tuple[int, str]] = field(default_factory=list)  # (line, pattern name or "known")
    unrecognised: list[tuple[int, str]] = field(default_factory=list)  # (line, its text)
    lines_total: int = 0  # lines that are not blank
    runs: int = 1  # vLLM starts in the text
    first_line: int = 1  # where the run that was read starts
    reordered: bool = False  # the lines were read in their timestamps' order, not the text's
    dropped: list[tuple[int, str, object]] = field(default_factory=list)  # (line, fact, value): earlier starts'
    dropped_total: int = 0

    def all(self, name: str) -> list[tuple[object, int]]:
        return self.facts.get(name, [])

    def first(self, name: str) -> tuple[object, int | None]:
        seen = self.facts.get(name)
        return seen[0] if seen else (None, None)


def split_lines(text: str) -> list[str]:
    """The text's lines (any line break, as str.splitlines), refusing a text too large to be a startup log."""
    if not isinstance(text, str):
        raise CalcError("the log must be text", "log")
    if len(text) > MAX_LOG_CHARS:
        raise CalcError(f"the log has {len(text):,} characters; paste at most {MAX_LOG_CHARS:,} (the start of a "
                        "vLLM log is a few hundred lines)", "log")
    lines = text.splitlines()
    if len(lines) > MAX_LOG_LINES:
        raise CalcError(f"the log has {len(lines):,} lines; paste at most {MAX_LOG_LINES:,} (the start of a vLLM "
                        "log is a few hundred lines)", "log")
    return lines


def message_of(line: str) -> str:
    """The line without terminal colours and without vLLM's "(Process pid=N) INFO date [file:line]" prefix."""
    line = ANSI.sub("", line[:MAX_LINE_CHARS]).strip()
    return line[PREFIX.match(line).end():].strip()


def timestamp(line: str) -> tuple[int, ...] | None:
    """(month, day, hour, minute, second, microsecond) of vLLM's timestamp in the line, or None."""
    found = STAMP.search(line, 0, STAMP_SEARCHED)
    if not found:
        return None
    month, day, hour, minute, second, fraction = found.groups()
    return int(month), int(day), int(hour), int(minute), int(second), int(fraction.ljust(6, "0")) if fraction else 0


def full_timestamp(line: str) -> tuple[int, ...] | None:
    """(year, month, day, hour, minute, second, nanosecond) in UTC of a date and time a log
    collector put in front of the line, or None (also for a date that does not exist)."""
    found = FULL_STAMP.search(line, 0, FULL_STAMP_SEARCHED)
    if not found:
        return None
    *whole, fraction, zone = found.groups()
    try:
        moment = datetime(*map(int, whole))
    except ValueError:
        return None
    if zone and zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        moment -= sign * timedelta(hours=int(zone[1:3]), minutes=int(zone[-2:]))
    return (*moment.timetuple()[:6], int((fraction or "0").ljust(9, "0")))


def order_keys(stamps: list, full_stamps: list) -> list:
    """The stamps the lines are ordered by: the collector's full ones when every line that has
    vLLM's timestamp has one too (a paste of two sources, one without them, falls back to vLLM's)."""
    if any(full_stamps) and all(full or not stamp for stamp, full in zip(stamps, full_stamps)):
        return full_stamps
    return stamps


def time_order(stamps: list[tuple[int, ...] | None]) -> list[int]:
    """The indices of the lines in their true order: a stable sort by timestamp, where a line without
    one follows the line before it. A log over New Year (December and January) puts January last
    (vLLM's stamps have no year; a full stamp starts with its year and never wraps)."""
    months = {s[0] for s in stamps if s and len(s) == 6}
    wraps = 12 in months and 1 in months
    keys, last = [], (-1,)
    for stamp in stamps:
        if stamp:
            last = (stamp[0] + 12, *stamp[1:]) if wraps and stamp[0] <= 6 else stamp
        keys.append(last)
    return sorted(range(len(stamps)), key=keys.__getitem__)


def parse_log(text: str) -> ParsedLog:
    """Read every line in its true order; keep the facts of the last vLLM run in the text (a log may
    hold restarts), and list the pool lines of the runs before it."""
    lines = split_lines(text)
    parsed = ParsedLog()
    read: list[tuple[int, list[str], dict]] = []  # (line, pattern names, facts), as in the text
    stamps, full_stamps = [], []
    for number, line in enumerate(lines, start=1):
        head = line[:MAX_LINE_CHARS]
        clean = (ANSI.sub("", head) if "\x1b" in head else head).strip()  # most lines have no colours
        message = clean[PREFIX.match(clean).end():].strip()
        if not message:
            continue
        parsed.lines_total += 1
        stamps.append(timestamp(clean))
        full_stamps.append(full_timestamp(clean))
        names, facts = recognise(message)
        read.append((number, names, facts))
        if names:
            parsed.recognised.append((number, names[0]))
        elif known(message):
            parsed.recognised.append((number, "known"))
        else:
            parsed.unrecognised.append((number, line.strip()[:MAX_LISTED_CHARS]))
    order = time_order(order_keys(stamps, full_stamps))
    parsed.reordered = order != sorted(order)
    runs: list[list[tuple[int, dict]]] = [[]]
    results_seen = False
    for index in order:
        number, names, facts = read[index]
        if not names:
            continue
        if results_seen and not STARTS_RUN.isdisjoint(names):
            runs.append([])
            results_seen = False
        results_seen = results_seen or not RESULTS.isdisjoint(facts)
        runs[-1].append((number, facts))
    parsed.runs = len(runs)
    if runs[-1]:
        parsed.first_line = runs[-1][0][0]
    for run in runs[:-1]:
        for number, facts in run:
            for key in POOL_FACTS:
                if key in facts:
                    parsed.dropped_total += 1
                    if len(parsed.dropped) < MAX_DROPPED:
                        parsed.dropped.append((number, key, facts[key]))
    for number, facts in runs[-1]:
        for key, value in facts.items():
            parsed.facts.setdefault(key, []).append((value, number))
    return parsed
