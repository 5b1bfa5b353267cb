"""When each card comes back: py-fsrs 6 over the learner's reviews.

card_states holds each card's FSRS state; it can always be rebuilt by replaying the
review log in time order (which is how an import merges two machines' reviews).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Iterable

from fsrs import Card, Rating, Scheduler, State
from sqlite_utils import Database

from . import quota
from .clock import iso, parse_iso
from .db.statements import dicts, insert, insert_new, upsert
from .db.stored_json import load_object

# The self-grades, in the order the grade form shows them: the one table that the form, the
# checks of a grade and of an import, and the dashboard's names all read.
RATINGS = {"again": Rating.Again, "hard": Rating.Hard, "good": Rating.Good, "easy": Rating.Easy}
# A card counts as mastered once FSRS spaces it three weeks or more (Anki's "mature").
MASTERED_INTERVAL = timedelta(days=21)
# Variants are numbered from 0; the card's own scenario is stored as -1.
OWN_SCENARIO = -1

# No interval fuzzing: the same reviews always give the same schedule, so a card's state can
# be rebuilt from its review log (on import) and tests can state due dates.
scheduler = Scheduler(enable_fuzzing=False)


def rating(value) -> Rating | None:
    """The FSRS rating a grade names, by name ("good") or by number (3, "3"); None for anything else."""
    if isinstance(value, str) and value.lower() in RATINGS:
        return RATINGS[value.lower()]
    if isinstance(value, (int, str)) and str(value) in {str(int(r)) for r in RATINGS.values()}:
        return Rating(int(value))
    return None


def rating_name(value: int) -> str:
    """The name of a stored rating: 3 -> "good"."""
    return {int(rating): name for name, rating in RATINGS.items()}[value]


def _state(db: Database, learner_id: str, card_id: str) -> dict | None:
    rows = dicts(db, "SELECT * FROM card_states WHERE learner_id = ? AND card_id = ?", [learner_id, card_id])
    return rows[0] if rows else None


def _advance(card: Card, reps: int, lapses: int, grade: Rating, moment: datetime) -> tuple[Card, int, int]:
    """One review: the new FSRS card, reviews so far, lapses (Again on a card in review)."""
    lapse = card.state == State.Review and grade == Rating.Again
    card, _ = scheduler.review_card(card, grade, review_datetime=moment)
    return card, reps + 1, lapses + lapse


def _state_row(learner_id: str, card_id: str, card: Card, reps: int, lapses: int, variant, moment) -> dict:
    return {
        "learner_id": learner_id, "card_id": card_id, "fsrs": json.dumps(card.to_dict()), "due": iso(card.due),
        "reps": reps, "lapses": lapses, "last_variant": OWN_SCENARIO if variant is None else variant,
        "last_review": iso(moment),
    }


def review(db: Database, learner_id: str, card_id: str, grade: Rating, moment: datetime,
           duration_ms: int | None, event_id: str, variant: int | None) -> dict:
    """Apply one review: the new FSRS state and a review-log row. Call inside a write transaction."""
    row = _state(db, learner_id, card_id)
    card = Card.from_dict(json.loads(row["fsrs"])) if row else Card()
    card, reps, lapses = _advance(card, row["reps"] if row else 0, row["lapses"] if row else 0, grade, moment)
    state = _state_row(learner_id, card_id, card, reps, lapses, variant, moment)
    upsert(db, "card_states", state, ("learner_id", "card_id"))
    log_reviews(db, learner_id, [{"card_id": card_id, "rating": int(grade), "reviewed_at": iso(moment),
                                  "duration_ms": duration_ms, "event_id": event_id}])
    return state


def log_reviews(db: Database, learner_id: str, reviews: Iterable[dict]) -> int:
    """Add rows to the review log (card_id, rating, reviewed_at, duration_ms, event_id), skipping
    any whose event_id this learner has logged already. Returns how many were added.

    The log only, not the card states: after adding reviews other than through ``review``, call
    ``rebuild`` for each of their cards. Counted against the profile's quota (raises
    ``quota.ProfileFull`` past it). Call inside a write transaction.
    """
    added = insert_new(db, "review_log", [{"learner_id": learner_id, **{key: row[key] for key in EXPORTED}}
                                          for row in reviews], "event_id")
    quota.count_stored(db, learner_id, len(added), sum(quota.row_bytes({key: row[key] for key in EXPORTED})
                                                       for row in added))
    return len(added)


# A review as the export writes it (and the quota counts it).
EXPORTED = ("card_id", "rating", "reviewed_at", "duration_ms", "event_id")


def rebuild(db: Database, learner_id: str, card_id: str) -> None:
    """Recompute a card's state from its review log, oldest review first."""
    rows = db.execute("SELECT rating, reviewed_at FROM review_log WHERE learner_id = ? AND card_id = ? "
                      "ORDER BY reviewed_at", [learner_id, card_id]).fetchall()
    last_grade = db.execute("SELECT detail FROM events WHERE learner_id = ? AND card_id = ? AND kind = 'grade' "
                            "ORDER BY at DESC LIMIT 1", [learner_id, card_id]).fetchone()
    variant = load_object(last_grade[0] if last_grade else None).get("variant")
    db.execute("DELETE FROM card_states WHERE learner_id = ? AND card_id = ?", [learner_id, card_id])
    card, reps, lapses, moment = Card(), 0, 0, None
    for grade, reviewed_at in rows:
        moment = parse_iso(reviewed_at)
        card, reps, lapses = _advance(card, reps, lapses, Rating(grade), moment)
    if reps:
        insert(db, "card_states", _state_row(learner_id, card_id, card, reps, lapses,
                                             variant if isinstance(variant, int) else None, moment))


def intervals(db: Database, learner_id: str, card_id: str, moment: datetime) -> dict[str, timedelta]:
    """How long FSRS would wait before the card comes back after each grade given at ``moment``:
    a dry run of each grade on a copy of the card's state (nothing is stored)."""
    row = db.execute("SELECT fsrs FROM card_states WHERE learner_id = ? AND card_id = ?",
                     [learner_id, card_id]).fetchone()
    state = json.loads(row[0]) if row else Card(card_id=0, due=moment).to_dict()
    return {name: scheduler.review_card(Card.from_dict(state), grade, review_datetime=moment)[0].due - moment
            for name, grade in RATINGS.items()}


# Where a card stands for a reader, in the order the bank counts them.
STANDINGS = ("due", "learning", "new", "learned")


def standing(row: dict | None, now: datetime) -> str:
    """Where a card stands for the reader (one of STANDINGS): "new" (never graded), "due" (due
    now), "learning" (in FSRS's short steps after a first grade or a lapse, due again soon) or
    "learned" (in review, due later)."""
    if row is None:
        return "new"
    if row["due"] <= iso(now):
        return "due"
    return "learned" if json.loads(row["fsrs"]).get("state") == State.Review.value else "learning"


def states(db: Database, learner_id: str) -> dict[str, dict]:
    return {row["card_id"]: row for row in dicts(db, "SELECT * FROM card_states WHERE learner_id = ?", [learner_id])}


def is_mastered(row: dict) -> bool:
    card = Card.from_dict(json.loads(row["fsrs"]))
    if card.state != State.Review or card.last_review is None:
        return False
    return card.due - card.last_review >= MASTERED_INTERVAL


def next_variant(last_variant: int | None, variant_count: int) -> int | None:
    """The scenario a returning card comes back with: the one after the last shown, cycling."""
    if variant_count == 0:
        return None
    last = OWN_SCENARIO if last_variant is None else last_variant
    following = last + 1
    return None if following >= variant_count else following


def pick_next(db: Database, learner_id: str, cards: list, now: datetime,
              skip: Iterable[str] = ()) -> tuple[object, int | None, str] | None:
    """The card to practise now: the most overdue due card, else a new one. (card, variant, why).

    Cards whose ids are in ``skip`` (skipped in this session) are not picked.
    """
    skipped = set(skip)
    cards = [c for c in cards if c.id not in skipped]
    known = states(db, learner_id)
    due = sorted(((known[c.id]["due"], c) for c in cards if c.id in known and known[c.id]["due"] <= iso(now)),
                 key=lambda pair: pair[0])
    if due:
        card = due[0][1]
        return card, next_variant(known[card.id]["last_variant"], len(card.variants)), "due"
    for card in cards:
        if card.id not in known:
            return card, None, "new"
    return None


def next_due(db: Database, learner_id: str, card_ids: list[str]) -> str | None:
    known = states(db, learner_id)
    dues = sorted(known[c]["due"] for c in card_ids if c in known)
    return dues[0] if dues else None


def pick_ahead(db: Database, learner_id: str, cards: list, skip: Iterable[str] = ()) -> tuple[object, int | None, str] | None:
    """Practise ahead: the card that comes due soonest (none is due now), or None when no card has a state."""
    skipped = set(skip)
    known = states(db, learner_id)
    waiting = sorted((known[c.id]["due"], c.id, c) for c in cards if c.id in known and c.id not in skipped)
    if not waiting:
        return None
    card = waiting[0][2]
    return card, next_variant(known[card.id]["last_variant"], len(card.variants)), "ahead"


def counts(db: Database, learner_id: str, cards: list, now: datetime) -> dict:
    """Where a practice session stands over ``cards``: {"due": n, "new": n, "total": n}."""
    known = states(db, learner_id)
    now_iso = iso(now)
    return {"due": sum(1 for c in cards if c.id in known and known[c.id]["due"] <= now_iso),
            "new": sum(1 for c in cards if c.id not in known), "total": len(cards)}
