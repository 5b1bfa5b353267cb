"""The bank's index: what the bank page lists a card by, read from its file without compiling it.

A card's entry is its front matter's listing keys and its question's Markdown: what the bank
page, its search and its filters need. Reading one costs a YAML parse and a split into
sections; compiling and render-checking the card (``load.card_file.load_card``) costs a hundred
times more, and waits until the card is opened or validated (``bank.py``).

An entry depends only on the file's text, and on the card's id only where the id is written,
so an entry is kept by the text with its id line set aside (``caches.content_key``): copies of
a card are read once.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from .caches import ENTRIES, content_key
from .card import Variant, search_text
from .diagnostics import CardError, Diagnostic
from .load.front_matter import LEVELS, check_draft, check_interview_only, check_listing, check_ordering, check_scenario, \
    check_space, check_variants
from .load.filing import check_replaces, check_topic
from .load.sections import build_sections
from .load.source import read_card, split_card
from .load.startable import startable_space
from .space import ScenarioSpace


@dataclass(frozen=True)
class CardEntry:
    """A card as the bank lists it. ``problems``: the file has errors the index already sees (the
    card's full load reports all of them); such an entry is never listed."""

    id: str
    path: str  # as diagnostics show it
    file: Path
    mtime: float
    title: str
    roles: list[str]
    tags: list[str]
    levels: list[str]
    variants: list[Variant]
    scenario: dict
    space: ScenarioSpace | None  # what an interviewer may change (front_matter.check_space)
    interview_only: bool
    question: str  # the question's Markdown source, for the search
    level: str = "beginner"  # where practice brings it as a new card (front_matter.LEVELS)
    order: int | None = None  # within its level
    draft: bool = False  # only the author pages list it
    topic: str | None = None  # a topics.TOPICS id (None only on a draft)
    replaces: tuple[str, ...] = ()  # old card ids merged into this one (load.filing.check_replaces)
    id_line: int = 1
    problems: bool = False
    content: str = field(default="", repr=False)  # content_key of the text it was read from

    def search_text(self) -> str:
        return search_text(self.title, self.roles, self.tags, self.question)


def read_entry(file: Path, shown: str) -> CardEntry:
    """The card's entry; a CardError when the file cannot be read as a card at all."""
    text = read_card(file, shown)
    mtime = file.stat().st_mtime
    key, card_id = content_key(text)
    kept = ENTRIES.get(key)
    if kept is None:
        kept = ENTRIES.put(key, _entry_from_text(text, file, shown, mtime, key))
    return dataclasses.replace(kept, id=card_id if card_id is not None else kept.id, path=shown, file=file,
                               mtime=mtime)


def _entry_from_text(text: str, file: Path, shown: str, mtime: float, key: str) -> CardEntry:
    source = split_card(shown, text)
    listing = check_listing(source)
    scenario = check_scenario(source)
    variants = check_variants(source)
    space = startable_space(source, scenario, check_space(source, scenario, variants), variants)
    try:
        interview_only = check_interview_only(source)
    except CardError:
        interview_only = True  # reported by the full load; kept out of readers' lists meanwhile
    sections = build_sections(source)
    question = sections.pieces.get("question")
    draft = check_draft(source)
    return CardEntry(**listing, **check_ordering(source), draft=draft, topic=check_topic(source, draft),
                     replaces=check_replaces(source),
                     path=shown, file=file,
                     mtime=mtime, levels=sorted({f.level for f in sections.follow_ups}), variants=variants,
                     scenario=scenario or {}, space=space, interview_only=interview_only,
                     question=question.source if question else "", id_line=source.line_of("id"),
                     problems=bool(source.problems), content=key)


def unreadable(shown: str, error: Exception) -> list[Diagnostic]:
    """The diagnostics of a file the index could not read."""
    if isinstance(error, CardError):
        return list(error.diagnostics)
    if isinstance(error, OSError):
        return [Diagnostic(shown, 1, "error", f"cannot read: {error.strerror}")]
    return [Diagnostic(shown, 1, "error", f"could not be loaded: {type(error).__name__}: {error}")]


LEVEL_RANKS = {level: rank for rank, level in enumerate(LEVELS)}


def learning_order(entry: CardEntry) -> tuple:
    """The sort key of ``Bank.sorted_cards``: level (beginner first), the author's order, then title."""
    return (LEVEL_RANKS.get(entry.level, 0), entry.order is None, entry.order or 0, entry.title.lower())
