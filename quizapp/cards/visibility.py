"""What a reader may see of a card: the one function every page, fragment and JSON goes through.

The question is always visible. A stage's text is rendered only once it is revealed, so
an unrevealed stage is in no response at all (not hidden, absent).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..calc import VALUES
from .caches import VIEWS, view_key
from .template.render import render_piece
from .stage_order import available_stages, needed_name, needs, opens_next, shown_stages

if TYPE_CHECKING:
    from .card import Card
    from .scenario import Scenario


@dataclass(frozen=True)  # kept (caches.VIEWS) and shared by every reader in its state
class StageView:
    name: str
    label: str  # the reveal button's words
    revealed: bool
    available: bool = False  # its reveal button may be shown (cards/stage_order.py)
    waits_for: str | None = None  # what it opens after, while it may not: "the full answer"
    opens: str | None = None  # what showing it opens: "the full answer" (stage_order.opens_next)
    html: str | None = None  # only when revealed
    level: str | None = None  # follow-ups
    level_label: str | None = None
    question_html: str | None = None  # a follow-up's question, once the full answer is out
    items: tuple[tuple[str, str], ...] = ()  # wrong answers: (answer, why)


@dataclass
class CardView:
    card: Card
    scenario: Scenario
    question_html: str
    stages: tuple[StageView, ...]
    derivations: tuple[dict, ...]  # for values that revealed stages use
    key: tuple = ()  # what decides the rest (caches.view_key): for a cache of what is drawn from it

    def stage(self, name: str) -> StageView | None:
        return next((s for s in self.stages if s.name == name), None)

    @property
    def next_stage(self) -> str | None:
        """The stage a reader opens next, in the card's order: the first that may open and is not shown."""
        return next((s.name for s in self.stages if s.available and not s.revealed), None)

    @property
    def answered(self) -> bool:
        """Whether the full answer is shown: the card can be graded."""
        full = self.stage("full")
        return full is not None and full.revealed


def card_view(card: Card, scenario: Scenario, revealed: set[str], in_order: bool = True,
              asked: set[str] | None = None) -> CardView:
    """The card as this reader may see it, with ``revealed`` stages rendered and nothing else.

    A reader practising alone opens the stages in order: a stage revealed out of order stays
    closed until the stage it needs is shown (stage_order), and follow-up questions open with the
    full answer. In an interview (``in_order=False``) the interviewer decides: exactly the stages
    they revealed are shown, and, for the candidate's screen (``asked``), a follow-up's question
    only once they asked it (or revealed its expected answer).
    """
    question_html = render_piece(card, "question", scenario).html
    # Until a stage is revealed or asked, no stage shows the scenario's text: the stages are one
    # drawing for every scenario of the card (and so is all that is drawn from them).
    drawn_for = (scenario.key, scenario.variant, scenario.own) if revealed or asked else None
    key = view_key(card.version, drawn_for, revealed, in_order, asked)
    stages, derivations = VIEWS.get_or_make(key, lambda: _draw(card, scenario, revealed, in_order, asked))
    return CardView(card, scenario, question_html, stages, derivations, key)


def _draw(card: Card, scenario: Scenario, revealed: set[str], in_order: bool,
          asked: set[str] | None) -> tuple[tuple[StageView, ...], tuple[dict, ...]]:
    """The stages' views and the derivations of a card view."""
    if in_order:
        revealed = shown_stages(card, revealed)
        available = set(available_stages(card, revealed))
    else:
        available = {s.name for s in card.stages if s.name not in revealed and needs(s.name) in revealed}
    used_names: set[str] = set()
    others: list[tuple[str, str, str]] = []
    stages = []
    follow_ups = {f"followup-{f.number}": f for f in card.follow_ups}
    for stage in card.stages:
        shown, may_open = stage.name in revealed, stage.name in available
        fields = {}
        if not (shown or may_open):
            fields["waits_for"] = needed_name(stage.name)
        follow_up = follow_ups.get(stage.name)
        if follow_up:
            fields["level"], fields["level_label"] = follow_up.level, follow_up.label
            opens = shown or (may_open if asked is None else stage.name in asked)
            if opens:  # with the full answer; on a candidate's screen, once asked
                fields["question_html"] = render_piece(card, follow_up.question, scenario).html
        if shown:
            rendered = [render_piece(card, key, scenario) for key in stage.pieces]
            for piece in rendered:
                used_names |= piece.names
                others.extend(piece.others)
            if stage.name == "wrong":
                fields["items"] = tuple((rendered[i].html, rendered[i + 1].html) for i in range(0, len(rendered), 2))
            else:
                fields["html"] = "".join(piece.html for piece in rendered)
        stages.append(StageView(stage.name, stage.label, shown, may_open, opens=opens_next(card, stage.name),
                                **fields))
    return tuple(stages), tuple(_derivations(scenario, used_names, others))


def _derivations(scenario: Scenario, names: set[str], others: list[tuple[str, str, str]]) -> list[dict]:
    values = scenario.result.values
    rows = [{"name": name, "label": name, "text": values[name].text or str(values[name].value),
             "derivation": values[name].derivation}
            for name in VALUES if name in names and name in values]
    seen = set()
    for label, name, derivation in others:
        if (label, name) not in seen:
            seen.add((label, name))
            rows.append({"name": name, "label": f"{name} ({label})", "text": "", "derivation": derivation})
    return rows
