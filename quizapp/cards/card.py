"""A card as the app holds it once loaded: its checked front matter, its pieces, its stages.

``load.card_file.load_card`` builds one from a file; this module only describes what it holds.
A card is plain data: its pieces' compiled templates and its renders are kept by the renderer
(``template.compile``, ``template.render``), in the card layer's caches (``caches.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .diagnostics import Diagnostic

if TYPE_CHECKING:
    from .space import ScenarioSpace


@dataclass(frozen=True)
class Piece:
    """One Markdown template of a card: a section body, a follow-up question, a rebuttal …"""

    key: str
    line: int
    source: str
    inline: bool  # rendered without a wrapping paragraph (headings of items)
    names: frozenset[str]  # card names it uses


@dataclass(frozen=True)
class Stage:
    name: str  # as in POST /cards/<id>/reveal/<stage>
    label: str  # what the reveal button says it shows
    pieces: tuple[str, ...]


@dataclass(frozen=True)
class FollowUp:
    number: int
    level: str
    label: str
    question: str  # piece key
    answer: str  # piece key


@dataclass(frozen=True)
class Variant:
    name: str
    inputs: dict
    line: int


@dataclass
class Card:
    id: str
    path: str
    mtime: float
    version: str  # a digest of the file's text (caches.card_version): what its renders are kept by
    title: str
    roles: list[str]
    tags: list[str]
    scenario: dict
    variants: list[Variant]
    taught_in: list[dict]
    answer: dict | None
    pieces: dict[str, Piece]
    stages: list[Stage]
    follow_ups: list[FollowUp]
    wrong_answers: list[tuple[str, str]]  # (wrong answer piece, why piece)
    key_lines: dict[str, int]
    space: ScenarioSpace | None = None  # what a reader may change (front_matter.check_space)
    interview_only: bool = False  # shown only to interviewers, and to readers with the author tools
    rubric: dict[str, list[str]] | None = None  # level name -> the points a candidate at that level makes
    level: str = "beginner"  # where practice brings it as a new card (load.front_matter.LEVELS)
    order: int | None = None  # within its level, lower first
    draft: bool = False  # kept out of the bank, practice, print and export; the author pages list it
    topic: str | None = None  # a topics.TOPICS id (None only on a draft)
    replaces: tuple[str, ...] = ()  # old card ids merged into this one (load.filing.check_replaces)
    warnings: list[Diagnostic] = field(default_factory=list)

    @property
    def levels(self) -> list[str]:
        return sorted({f.level for f in self.follow_ups})

    @property
    def stage_names(self) -> list[str]:
        return [s.name for s in self.stages]

    def stage(self, name: str) -> Stage | None:
        return next((s for s in self.stages if s.name == name), None)

    def line_of(self, dotted_key: str) -> int:
        return key_line(self.key_lines, dotted_key)

    def search_text(self) -> str:
        return search_text(self.title, self.roles, self.tags, self.pieces["question"].source)


def search_text(title: str, roles: list[str], tags: list[str], question: str) -> str:
    """What the bank's search looks in: never an answer's text, which the reader has not revealed."""
    return " ".join([title, *roles, *tags, question]).lower()


def key_line(key_lines: dict[str, int], dotted_key: str) -> int:
    """The front-matter line of a key such as 'scenario.model', or of its nearest parent."""
    while dotted_key:
        if dotted_key in key_lines:
            return key_lines[dotted_key]
        dotted_key = dotted_key.rpartition(".")[0]
    return 1
