"""A learner's standing: cards seen, due and mastered, reviews per day, accuracy, streak."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from datetime import date, datetime, timedelta, timezone

from sqlite_utils import Database

from . import scheduling
from .clock import iso, parse_iso
from .db.stored_json import load_object
from .learners import get_learner

# Good and Easy count as knowing the card; Again and Hard as not (yet).
KNEW = {scheduling.RATINGS["good"], scheduling.RATINGS["easy"]}


def summary(db: Database, learner_id: str, cards: dict, now: datetime | None = None) -> dict:
    """Everything the dashboard and GET /api/progress show. ``cards`` maps card ids to cards."""
    now = now or datetime.now(timezone.utc)
    states = scheduling.states(db, learner_id)
    seen = {row[0] for row in db.execute("SELECT DISTINCT card_id FROM events WHERE learner_id = ? AND kind != "
                                         "'open'", [learner_id])}
    reviews = db.execute("SELECT card_id, rating, reviewed_at, duration_ms FROM review_log WHERE learner_id = ? "
                         "ORDER BY reviewed_at", [learner_id]).fetchall()
    now_iso = iso(now)
    per_card = {}
    for card_id in sorted(seen | set(states)):
        state = states.get(card_id)
        card_reviews = [r for r in reviews if r[0] == card_id]
        per_card[card_id] = {
            "title": cards[card_id].title if card_id in cards else card_id,
            "in_bank": card_id in cards,
            "state": _state_name(state),
            "due": state["due"] if state else None,
            "is_due": bool(state and state["due"] <= now_iso),
            "mastered": bool(state and scheduling.is_mastered(state)),
            "reps": state["reps"] if state else 0,
            "lapses": state["lapses"] if state else 0,
            "last_review": state["last_review"] if state else None,
            "last_rating": scheduling.rating_name(card_reviews[-1][1]) if card_reviews else None,
        }
    return {
        "learner": get_learner(db, learner_id) or {"id": learner_id, "display_name": None},
        "cards_seen": len(seen),
        "due": sum(1 for c in per_card.values() if c["is_due"]),
        "mastered": sum(1 for c in per_card.values() if c["mastered"]),
        "new": sum(1 for card_id in cards if card_id not in states),
        "reviews": len(reviews),
        "streak": streak([r[2] for r in reviews], now),
        "reviews_per_day": reviews_per_day([r[2] for r in reviews], now),
        "accuracy_by_role": accuracy(reviews, cards, "roles"),
        "accuracy_by_tag": accuracy(reviews, cards, "tags"),
        "answers": answer_verdicts(db, learner_id),
        "cards": per_card,
    }


def _state_name(state: dict | None) -> str:
    if not state:
        return "new"
    return scheduling.Card.from_dict(json.loads(state["fsrs"])).state.name.lower()


def _day(text: str) -> date:
    return parse_iso(text).date()


def reviews_per_day(times: list[str], now: datetime, days: int = 30) -> list[tuple[str, int]]:
    counts = Counter(_day(t) for t in times)
    today = now.astimezone(timezone.utc).date()
    return [((today - timedelta(days=n)).isoformat(), counts.get(today - timedelta(days=n), 0))
            for n in range(days - 1, -1, -1)]


def streak(times: list[str], now: datetime) -> int:
    """Days in a row with a review, ending today (or yesterday: today is not over yet)."""
    days = {_day(t) for t in times}
    day = now.astimezone(timezone.utc).date()
    if day not in days:
        day -= timedelta(days=1)
    count = 0
    while day in days:
        count += 1
        day -= timedelta(days=1)
    return count


def accuracy(reviews, cards: dict, attribute: str) -> list[dict]:
    """Share of reviews graded Good or Easy, per role or per tag of the reviewed card."""
    knew: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for card_id, rating, _, _ in reviews:
        card = cards.get(card_id)
        for name in getattr(card, attribute, []) if card else []:
            knew[name][0] += rating in KNEW
            knew[name][1] += 1
    return [{"name": name, "knew": k, "reviews": n, "accuracy": k / n} for name, (k, n) in sorted(knew.items())]


def answer_verdicts(db: Database, learner_id: str) -> dict:
    counts = Counter()
    for (detail,) in db.execute("SELECT detail FROM events WHERE learner_id = ? AND kind = 'answer'",
                                [learner_id]):
        verdict = load_object(detail).get("verdict")
        if isinstance(verdict, str):
            counts[verdict] += 1
    return dict(counts)
