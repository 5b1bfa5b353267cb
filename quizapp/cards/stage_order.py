"""The order in which a card's stages open, as in a live interview: one rule for every caller.

- ``short`` opens first: a typed answer is checked with it, before any answer is seen.
- ``full`` needs ``short``.
- Each follow-up (its question and its expected answer), the wrong answers and where it is
  taught need ``full``: an interviewer asks a follow-up once the candidate has answered, and
  the wrong answers and the lesson would give the answer away before it.

The page shows a reveal button only for a stage in ``available_stages``; the reveal route
refuses any other with ``OutOfOrder`` (409); ``shown_stages`` keeps a stage recorded out of
order (through the events API, an import, or an older version of the app) out of every page
until the stage it needs is shown too.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

from ..calc import FieldError

if TYPE_CHECKING:
    from .card import Card

# The stage each kind of stage needs first; a kind is the name before any '-' (followup-2: followup).
NEEDS = {"short": None, "full": "short", "followup": "full", "wrong": "full", "taught": "full"}
# How a refusal names the stage that is needed, and the stage refused.
NAMES = {"short": "the short answer", "full": "the full answer"}
OPENS = {"full": "the full answer opens", "followup": "follow-up questions and their expected answers open",
         "wrong": "the wrong answers open", "taught": "where it is taught opens"}


class OutOfOrder(FieldError):
    """A reveal of a stage whose prerequisite is not shown yet: a 409 that names what to open first."""

    status = 409

    def __init__(self, message: str, field: str | None = "stage"):
        super().__init__(message, field)


def needs(stage: str) -> str | None:
    """The stage that must be shown before ``stage`` can open; None for the first one."""
    # A kind this table does not know yet waits for the full answer, the safe choice.
    return NEEDS.get(stage.split("-")[0], "full")


def shown_stages(card: Card, revealed: Iterable[str]) -> set[str]:
    """The revealed stages a page may show: each one whose prerequisite is shown too."""
    revealed = set(revealed)
    shown: set[str] = set()
    for stage in card.stages:  # a stage's prerequisite comes before it in the card
        if stage.name in revealed and _may_open(stage.name, shown):
            shown.add(stage.name)
    return shown


def _may_open(stage: str, shown: set[str]) -> bool:
    return needs(stage) is None or needs(stage) in shown


def available_stages(card: Card, revealed: Iterable[str]) -> list[str]:
    """The stages the reader may reveal now, in the card's order: not shown yet, and the
    stage each needs is shown."""
    shown = shown_stages(card, revealed)
    return [s.name for s in card.stages if s.name not in shown and _may_open(s.name, shown)]


def check_reveal(card: Card, stage: str, revealed: Iterable[str]) -> None:
    """Raise ``OutOfOrder`` unless ``stage`` may be revealed now (revealing a shown stage again is fine)."""
    shown = shown_stages(card, revealed)
    if stage in shown or _may_open(stage, shown):
        return
    kind = stage.split("-")[0]
    needed = NAMES.get(needs(stage), needs(stage))
    raise OutOfOrder(f"Reveal {needed} first: {OPENS.get(kind, stage + ' opens')} once {needed} is shown, "
                     "as in an interview.")


# How a page names each kind of stage when it says what a stage opens.
OPENED_NAMES = {"full": "the full answer", "followup": "the follow-ups' expected answers",
                "wrong": "the wrong answers", "taught": "where it is taught"}


def opens_next(card: Card, stage: str) -> str | None:
    """What showing ``stage`` opens, in words: "the full answer"; "the follow-ups' expected answers,
    the wrong answers and where it is taught"; None when it opens nothing."""
    return _opens_next(tuple(card.stage_names), stage)


@lru_cache(maxsize=1024)  # by the card's stages: a card page asks it of each of its dozen stages
def _opens_next(stage_names: tuple[str, ...], stage: str) -> str | None:
    kinds = list(dict.fromkeys(name.split("-")[0] for name in stage_names if needs(name) == stage))
    names = [OPENED_NAMES.get(kind, kind) for kind in kinds]
    if not names:
        return None
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def needed_name(stage: str) -> str | None:
    """What the page says a closed stage waits for: 'the full answer'; None for the first stage."""
    first = needs(stage)
    return NAMES.get(first, first) if first else None
