"""YAML errors in an author's words: the line of the real mistake, and what to do about it.

PyYAML reports where it gave up, which is often a line after the mistake: an unclosed ``[``
is noticed on the next key. Each rule below reads PyYAML's error and finds the line the
author has to change, with a hint that shows the fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

KEY_LINE = re.compile(r"^(?P<indent>\s*(?:-\s+)?)(?P<key>[^\s:#][^:#]*?)\s*:\s+(?P<value>.*?)\s*$")
CLOSERS = {"sequence": ("[", "]"), "mapping": ("{", "}")}


@dataclass(frozen=True)
class YamlMistake:
    line: int  # 0-based line of the front matter's text
    column: int | None  # 1-based
    message: str
    hint: str | None


def explain(error: yaml.YAMLError, lines: list[str], first_line: int) -> YamlMistake:
    """Where the author's mistake is in ``lines`` (the front matter, whose first line is file line
    ``first_line``), and how to fix it."""
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    context = getattr(error, "context", None) or ""
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    start = getattr(error, "context_mark", None)
    line, column = (mark.line, mark.column + 1) if mark else (0, None)
    text = lines[line] if line < len(lines) else ""
    flow = re.match(r"while parsing a flow (sequence|mapping)", context)
    if flow and start is not None:
        opener, closer = CLOSERS[flow[1]]
        opened = first_line + start.line
        return YamlMistake(start.line, start.column + 1, f"the '{opener}' on line {opened} is never closed",
                           f"close the bracket opened on line {opened} with '{closer}'")
    if context.startswith("while scanning a quoted scalar") and start is not None:
        return YamlMistake(start.line, start.column + 1, f"the quote on line {first_line + start.line} is never closed",
                           "end the value with the same quote it starts with")
    if problem == "mapping values are not allowed here":
        return _colon_in_value(line, column, text)
    if "'\\t'" in problem:
        return YamlMistake(line, column, "a tab in the indentation", "indent with spaces: YAML does not allow tabs")
    cannot_start = re.match(r"found character '(.)' that cannot start any token", problem)
    if cannot_start:
        return YamlMistake(line, column, f"a value cannot start with {cannot_start[1]!r}",
                           "quote the value: " + (_quoted(text) or 'key: "..."'))
    if problem.startswith("expected <block end>") or problem.startswith("expected <block mapping start>"):
        return YamlMistake(line, column, "this line is indented differently from the lines around it",
                           "line a key up with the other keys of its block (two spaces per level)")
    return YamlMistake(line, column, problem, None)


def _colon_in_value(line: int, column: int | None, text: str) -> YamlMistake:
    """'mapping values are not allowed here': a value with ': ' in it, or a key indented too far."""
    match = KEY_LINE.match(text)
    if match and (": " in match["value"] or match["value"].endswith(":")):
        return YamlMistake(line, column, "a colon inside a value (mapping values are not allowed here)",
                           f"quote a value that holds a colon: {_quoted(text)}")
    return YamlMistake(line, column, "a key where a value was expected (mapping values are not allowed here)",
                       "line this key up with the keys above it, or quote the value if the colon belongs to it")


def _quoted(text: str) -> str | None:
    """The line with its value in double quotes: 'title: A: B' → 'title: "A: B"'."""
    match = KEY_LINE.match(text)
    if not match:
        return None
    value = match["value"].replace("\\", "\\\\").replace('"', '\\"')
    return f'{match["indent"].strip()}{" " if match["indent"].strip() else ""}{match["key"]}: "{value}"'

