"""Read a startup log's text into facts, line by line.

``parse_log`` splits the text into lines, strips vLLM's prefixes and terminal colours,
recognises each line through ``patterns.PATTERNS``, and returns every fact with its line,
plus the lines it did and did not recognise. A log may hold several starts (restarts); the
facts are the last start's.

Hostile input: the text is bounded (``MAX_LOG_CHARS``, ``MAX_LOG_LINES``) and each line is
read up to ``MAX_LINE_CHARS``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import CalcError
from .patterns import PATTERNS, RESULTS, known, recognise

MAX_LOG_CHARS = 2_000_000
MAX_LOG_LINES = 20_000
MAX_LINE_CHARS = 20_000
MAX_LISTED_CHARS = 300  # of an unrecognised line, as listed

ANSI = re.compile(r"\x1b\[[0-9;?]{0,20}[A-Za-z]")
# "(EngineCore_DP0 pid=12) INFO 10-01 12:00:20 [core.py:77] " or V0's "INFO 04-02 21:42:59 worker.py:241] "
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


def parse_log(text: str) -> ParsedLog:
    """Read every line; keep the facts of the last vLLM run in the text (a log may hold restarts)."""
    lines = split_lines(text)
    parsed = ParsedLog()
    runs: list[list[tuple[int, dict]]] = [[]]
    results_seen = False
    for number, line in enumerate(lines, start=1):
        message = message_of(line)
        if not message:
            continue
        parsed.lines_total += 1
        names, facts = recognise(message)
        if names:
            if results_seen and any(p.starts_run for p in PATTERNS if p.name in names):
                runs.append([])
                results_seen = False
            results_seen = results_seen or any(key in facts for key in RESULTS)
            runs[-1].append((number, facts))
            parsed.recognised.append((number, names[0]))
        elif known(message):
            parsed.recognised.append((number, "known"))
        else:
            parsed.unrecognised.append((number, line.strip()[:MAX_LISTED_CHARS]))
    parsed.runs = len(runs)
    if runs[-1]:
        parsed.first_line = runs[-1][0][0]
    for number, facts in runs[-1]:
        for key, value in facts.items():
            parsed.facts.setdefault(key, []).append((value, number))
    return parsed
