"""A card's sections: the ``SECTIONS`` table, one entry and one builder function per section.

Each builder turns its section's text into pieces (Markdown templates, compiled later) and
the stages that reveal them. A new section is a new entry and a new builder; AUTHORING.md's
test reads the same table, so the document cannot forget it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ...calc import did_you_mean
from ..card import FollowUp, Piece, Stage
from .front_matter import check_taught_in
from .source import Block, CardSource

LEVELS = ("L1", "L2", "L3")
FOLLOW_UP_HEADING = re.compile(r"^(L\d)\s+([A-Za-z][\w -]*?)\s*:\s*(.+)$")


@dataclass
class Draft:
    """What the builders make of a card's sections, in the order the card shows them."""

    source: CardSource
    pieces: dict[str, Piece] = field(default_factory=dict)
    stages: list[Stage] = field(default_factory=list)
    follow_ups: list[FollowUp] = field(default_factory=list)
    wrong_answers: list[tuple[str, str]] = field(default_factory=list)  # (wrong answer piece, why piece)
    taught_in: list[dict] = field(default_factory=list)

    def add_piece(self, key: str, text: str, line: int, inline: bool = False) -> str:
        self.pieces[key] = Piece(key, line, text, inline, frozenset())
        return key


@dataclass(frozen=True)
class Section:
    """One section of the format. A builder gets None for a section the card does not have (a
    missing required one is reported by find_sections, so its builder only skips it)."""

    heading: str  # as the author writes it after '## '
    stage: str | None  # the stage that reveals it ('{number}' for one per item); None: always shown
    label: str  # what the reveal button says
    required: bool
    build: Callable[[Draft, Section, Block | None], None]  # adds the section's pieces and stages


def build_question(draft: Draft, section: Section, block: Block | None) -> None:
    """The question is always shown, so it is a piece with no stage. (None: missing, and reported.)"""
    if block is not None:
        draft.add_piece("question", block.text, block.line)


def build_answer(draft: Draft, section: Section, block: Block | None) -> None:
    """A section that is one stage: the reveal shows its text. (None: missing, and reported.)"""
    if block is None:
        return
    draft.add_piece(section.stage, block.text, block.line)
    draft.stages.append(Stage(section.stage, section.label, (section.stage,)))


def build_follow_ups(draft: Draft, section: Section, block: Block | None) -> None:
    """One stage per '### L2 Label: question' item; the stage reveals the expected answer."""
    items = _items(draft, section, block, "'### L2 Label: question' items, then each expected answer")
    report = draft.source.report
    number = 0
    for place, item in enumerate(items, start=1):
        match = FOLLOW_UP_HEADING.match(item.heading)
        if not match:
            report(item.heading_line, f"follow-up heading '### {item.heading}' must read "
                                      "'### L2 Working: the question'")
            continue
        level, label, question = match.groups()
        if level not in LEVELS:
            report(item.heading_line, f"follow-up level {level} must be one of {', '.join(LEVELS)}")
            continue
        if not item.text.strip():
            report(item.heading_line, f"follow-up {place} has no expected answer")
            continue
        number += 1
        stage = section.stage.format(number=number)
        q = draft.add_piece(f"{stage}.question", question, item.heading_line, inline=True)
        a = draft.add_piece(stage, item.text, item.line)
        draft.follow_ups.append(FollowUp(number, level, label.strip(), q, a))
    draft.stages += [Stage(section.stage.format(number=f.number), section.label, (f.answer,))
                     for f in draft.follow_ups]


def build_wrong_answers(draft: Draft, section: Section, block: Block | None) -> None:
    """One stage for all the '### the wrong answer' items, each with why it is wrong."""
    items = _items(draft, section, block, "'### the wrong answer' items, each with why it is wrong")
    number = 0
    for place, item in enumerate(items, start=1):
        if not item.text.strip():
            draft.source.report(item.heading_line, f"wrong answer {place} does not say why it is wrong")
            continue
        number += 1
        wrong = item.heading.strip().strip('"“”')
        draft.wrong_answers.append((draft.add_piece(f"wrong-{number}.answer", wrong, item.heading_line, inline=True),
                                    draft.add_piece(f"wrong-{number}.why", item.text, item.line)))
    if draft.wrong_answers:
        draft.stages.append(Stage(section.stage, section.label,
                                  tuple(key for pair in draft.wrong_answers for key in pair)))


def _items(draft: Draft, section: Section, block: Block | None, layout: str) -> list[Block]:
    """The '### ' items of a section made of items (none when the card has no such section).

    Text with no item heading is an error that tells the author the layout to use.
    """
    if block is None:
        return []
    if block.text.strip() and not block.items:
        draft.source.report(block.line, f"{section.heading} holds {layout}")
    return block.items


def build_taught_in(draft: Draft, section: Section, block: Block | None) -> None:
    """The section's text and the front matter's taught_in links share one stage."""
    draft.taught_in = check_taught_in(draft.source)
    if block is None and not draft.taught_in:
        return
    if block is not None:
        draft.add_piece(section.stage, block.text, block.line)
    draft.stages.append(Stage(section.stage, section.label, (section.stage,) if block is not None else ()))


SECTIONS = (
    Section("Question", None, "", True, build_question),
    Section("Short answer", "short", "Show short answer", True, build_answer),
    Section("Full answer", "full", "Show full answer", True, build_answer),
    Section("Follow-ups", "followup-{number}", "Show expected answer", False, build_follow_ups),
    Section("Wrong answers", "wrong", "Show the wrong answers that interviewers hear", False, build_wrong_answers),
    Section("Taught in", "taught", "Show where it is taught", False, build_taught_in),
)
HEADINGS = tuple(section.heading for section in SECTIONS)


def build_sections(source: CardSource) -> Draft:
    """The pieces and stages of every section, in the table's order. Each problem is reported on
    the source, and the sections and items that are well formed are built."""
    blocks = find_sections(source)
    draft = Draft(source)
    for section in SECTIONS:
        section.build(draft, section, blocks.get(section.heading))
    return draft


def find_sections(source: CardSource) -> dict[str, Block]:
    """Each section of the file by its heading as the table spells it. An unknown section, the
    second of two, and a missing or empty required one are reported (and left out)."""
    found: dict[str, Block] = {}
    for block in source.sections:
        name = next((h for h in HEADINGS if h.lower() == block.heading.lower()), None)
        if name is None:
            source.report(block.heading_line, f"unknown section '## {block.heading}'",
                          did_you_mean(block.heading, HEADINGS) or f"sections are {', '.join(HEADINGS)}")
        elif name in found:
            source.report(block.heading_line, f"section '## {name}' appears twice")
        else:
            found[name] = block
    for section in SECTIONS:
        if not section.required:
            continue
        if section.heading not in found:
            source.report(source.end_line, f"missing section '## {section.heading}'")
        elif not found[section.heading].text.strip():
            source.report(found[section.heading].heading_line, f"section '## {section.heading}' is empty")
            del found[section.heading]
    return found
