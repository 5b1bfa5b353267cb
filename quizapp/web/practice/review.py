"""Grading a card, as review tools do it: four grades with the key of each and the interval FSRS
would give, the card's standing in words, and where the reader goes once it is graded.

Every interval and time is worded here, on the server; the page's script only presses the
buttons the keys name.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from ...progress import scheduling

# The grade buttons' keys, as review tools have them: 1 Again … 4 Easy.
KEYS = {name: str(number) for number, name in enumerate(scheduling.RATINGS, start=1)}


def interval_text(delta: timedelta) -> str:
    """An interval as a grade button shows it: "1 min", "10 min", "5 h", "8 days", "3.5 months", "1.2 years"."""
    minutes = delta.total_seconds() / 60
    if minutes < 59.5:
        return f"{max(1, round(minutes))} min"
    hours = minutes / 60
    if hours < 23.5:
        return f"{round(hours)} h"
    days = hours / 24
    if days < 59.5:
        return f"{round(days)} day{'s' if round(days) != 1 else ''}"
    if days < 365:
        return f"{days / 30.4:.1f} months"
    return f"{days / 365:.1f} years"


def grade_buttons(db, learner_id: str, card_id: str, now: datetime | None = None) -> list[dict]:
    """The grade form's buttons, in order: rating, label, key, and the interval it would give."""
    intervals = scheduling.intervals(db, learner_id, card_id, now or datetime.now(timezone.utc))
    return [{"rating": name, "label": name.title(), "key": KEYS[name], "interval": interval_text(intervals[name])}
            for name in scheduling.RATINGS]


def comes_back(due_iso: str | None, now: datetime | None = None) -> str:
    """When a graded card comes back, in words: "in 10 minutes", "in 5 hours", "on 2026-03-02 (in 8 days)"."""
    if not due_iso:
        return "later"
    due = datetime.fromisoformat(due_iso)
    minutes = (due - (now or datetime.now(timezone.utc))).total_seconds() / 60
    if minutes < 60:
        return f"in {max(1, round(minutes))} minute{'s' if round(minutes) > 1 else ''}"
    if minutes < 60 * 36:
        return f"in {round(minutes / 60)} hours"
    return f"on {due:%Y-%m-%d} (in {round(minutes / 1440)} days)"


# What the bank says of a card, by its standing (scheduling.standing), before the time it is due;
# and how its counts name each standing.
STANDING_LABELS = {"due": "Due now", "learning": "Due", "new": "New", "learned": "Learned · next review"}
COUNT_LABELS = {"due": "due now", "learning": "in learning steps", "new": "new", "learned": "learned"}


def standings(db, learner_id: str, cards, now: datetime | None = None) -> dict[str, dict]:
    """Each card's standing for the bank, by card id: {"kind", "label", "due"} (due: the ISO time
    it is due, shown after the label; None for a new card and one due now)."""
    now = now or datetime.now(timezone.utc)
    known = scheduling.states(db, learner_id)
    shown = {}
    for card in cards:
        row = known.get(card.id)
        kind = scheduling.standing(row, now)
        shown[card.id] = {"kind": kind, "label": STANDING_LABELS[kind],
                          "due": row["due"] if kind in ("learning", "learned") else None}
    return shown


def counts_text(kinds: dict[str, int]) -> list[tuple[str, str]]:
    """The bank's counts as (standing, "3 due now"), the standings it has cards in, in STANDINGS order."""
    return [(kind, f"{kinds[kind]:,} {COUNT_LABELS[kind]}") for kind in scheduling.STANDINGS if kinds.get(kind)]
