"""A card in the making: ``draft: true`` is a warning, and ``TODO`` left in a card that is not a
draft is an error, so a stub from ``quizapp new`` never reaches readers with its placeholders.

Only what readers would see is read for ``TODO``: the title and the sections' text, not the
front matter's comments nor HTML comments (``<!-- ... -->``), where an author keeps notes.
"""

from __future__ import annotations

import re

from ..diagnostics import Diagnostic
from ..load.source import CardSource

TODO = re.compile(r"\bTODO\b")
HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)


def draft_diagnostics(source: CardSource, draft: bool) -> list[Diagnostic]:
    """The draft's warning, or an error for each line of a finished card that still says TODO."""
    if draft:
        return [Diagnostic(source.path, source.line_of("draft"), "warning",
                           "draft: the card is kept out of the bank, practice, print and the Anki export",
                           "replace each TODO, then remove draft: true to publish it")]
    return [Diagnostic(source.path, line, "error", "leftover TODO text in a card that is not a draft",
                       "finish the text, or mark the card draft: true")
            for line in _todo_lines(source)]


def _todo_lines(source: CardSource) -> list[int]:
    lines = []
    title = source.front_matter.get("title")
    if isinstance(title, str) and TODO.search(title):
        lines.append(source.line_of("title"))
    for block in _blocks(source.sections):
        if TODO.search(block.heading):
            lines.append(block.heading_line)
        text = HTML_COMMENT.sub(lambda comment: "\n" * comment.group().count("\n"), block.text)
        lines += [block.line + offset for offset, line in enumerate(text.split("\n")) if TODO.search(line)]
    return sorted(set(lines))


def _blocks(blocks):
    for block in blocks:
        yield block
        yield from _blocks(block.items)
