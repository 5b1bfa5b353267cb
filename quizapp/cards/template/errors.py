"""Jinja syntax errors in an author's words: the line and column of the mistake, and a plain hint.

Jinja reports where its parser gave up ("unexpected end of template, expected 'name'."),
often lines after an unclosed ``{{``. The delimiters and block tags of a piece are scanned
here, so the message points at the ``{{`` or ``{% if %}`` that is never closed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from jinja2 import TemplateSyntaxError

OPENERS = {"{{": "}}", "{%": "%}", "{#": "#}"}
OPENER = re.compile(r"\{\{|\{%|\{#")
# Jinja's tags that open a block, each closed by end<tag>.
BLOCK_TAGS = ("if", "for", "macro", "call", "filter", "with", "block", "raw", "autoescape", "trans")
TAG = re.compile(r"\{%-?\s*(\w+)")


@dataclass(frozen=True)
class SyntaxMistake:
    line: int  # 1-based line within the piece
    column: int | None  # 1-based
    message: str
    hint: str | None


def explain(error: TemplateSyntaxError, text: str, first_line: int) -> SyntaxMistake:
    """The mistake behind a syntax error of a piece whose first line is file line ``first_line``."""
    unclosed = unclosed_delimiter(text)
    if unclosed:
        line, column, opener = unclosed
        closer = OPENERS[opener]
        return SyntaxMistake(line, column, f"`{opener}` on line {first_line + line - 1} is never closed with "
                                           f"`{closer}`", f"close it with {closer}")
    message = error.message or ""
    block = _unclosed_block(text) if "The innermost block that needs to be closed" in message else None
    if block and message.startswith("Unexpected end of template"):
        line, column, tag = block
        return SyntaxMistake(line, column, f"`{{% {tag} %}}` on line {first_line + line - 1} is never closed",
                             f"end it with {{% end{tag} %}}")
    stray = re.match(r"Encountered unknown tag '(\w+)'", message)
    if stray and block:
        line, _, tag = block
        return _located(error, text, f"`{{% {stray[1]} %}}` does not close the `{{% {tag} %}}` of line "
                                     f"{first_line + line - 1}", f"end that block with {{% end{tag} %}} first")
    if stray:
        return _located(error, text, f"`{{% {stray[1]} %}}` has no block to close, or is not a tag",
                        "remove it, or open its block before it")
    return _located(error, text, message, _plain_hint(message))


def unclosed_delimiter(text: str) -> tuple[int, int, str] | None:
    """(line, column, opener) of the first ``{{``, ``{%`` or ``{#`` whose closer does not come
    before the next opener (or the end of the piece)."""
    openings = [(m.start(), m.group()) for m in OPENER.finditer(text)]
    for index, (start, opener) in enumerate(openings):
        following = openings[index + 1][0] if index + 1 < len(openings) else len(text)
        closer = text.find(OPENERS[opener], start + 2)
        if closer == -1 or closer > following:
            return (*_line_column(text, start), opener)
    return None


def _unclosed_block(text: str) -> tuple[int, int, str] | None:
    """(line, column, tag) of the innermost block tag still open at the end of the piece."""
    stack: list[tuple[int, str]] = []
    for match in TAG.finditer(text):
        tag = match[1]
        if tag in BLOCK_TAGS:
            stack.append((match.start(), tag))
        elif tag.startswith("end") and stack and stack[-1][1] == tag[3:]:
            stack.pop()
    if not stack:
        return None
    start, tag = stack[-1]
    return (*_line_column(text, start), tag)


def _line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def _located(error: TemplateSyntaxError, text: str, message: str, hint: str | None) -> SyntaxMistake:
    """The mistake at Jinja's line, at the first expression on it."""
    line = error.lineno or 1
    lines = text.splitlines() or [""]
    opener = OPENER.search(lines[min(line, len(lines)) - 1])
    return SyntaxMistake(line, opener.start() + 1 if opener else None, message, hint)


# Jinja's words, and what they mean to someone writing a card.
PLAIN_HINTS = (
    (r"^unexpected 'end of print statement'", "the expression ends too early: something is missing before }}"),
    (r"^expected token 'end of print statement', got '(.+)'",
     "two things side by side in one {{ }}: join them with an operator or a filter (|), or move the text "
     "outside the braces"),
    (r"^expected token 'name', got", "a filter or a name is missing, e.g. after | write a filter: | commas"),
    (r"^unexpected char '[\"']'", "a quote that is never closed: end the text with the quote it starts with"),
    (r"^unexpected '\)'", "a ) with no ( before it"),
    (r"^unexpected '\}'", "a } with no { before it"),
    (r"^expected name or number", "a dot must be followed by a value's name, e.g. calc(...).pool_tokens"),
)


def _plain_hint(message: str) -> str | None:
    return next((hint for pattern, hint in PLAIN_HINTS if re.search(pattern, message)), None)
