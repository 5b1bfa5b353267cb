"""FSRS scheduling: Again comes back before Easy, due first then new, another variant on review."""

import json
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

from quizapp.progress import events, scheduling
from quizapp.progress.events import Event

from .conftest import LEARNER

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)


def card(card_id, variants=0):
    return SimpleNamespace(id=card_id, variants=[object()] * variants)


def grade(db, card_id, rating, when, variant=None, n=[0]):
    n[0] += 1
    event = Event(f"evt-grade-{n[0]:04}", card_id, "grade", value=rating, detail={"variant": variant})
    events.record(db, LEARNER, event, at=when)


def test_again_is_due_before_easy(db):
    grade(db, "hard-card", "again", NOW)
    grade(db, "easy-card", "easy", NOW)
    states = scheduling.states(db, LEARNER)
    assert states["hard-card"]["due"] < states["easy-card"]["due"]
    assert datetime.fromisoformat(states["hard-card"]["due"]) - NOW < timedelta(hours=1)
    assert datetime.fromisoformat(states["easy-card"]["due"]) - NOW >= timedelta(days=1)


def test_pick_next_takes_due_cards_first_then_new(db):
    grade(db, "a", "again", NOW)
    grade(db, "b", "easy", NOW)
    cards = [card("new"), card("b"), card("a")]
    picked, variant, why = scheduling.pick_next(db, LEARNER, cards, NOW + timedelta(hours=1))
    assert (picked.id, why) == ("a", "due")
    grade(db, "a", "easy", NOW + timedelta(hours=1))
    picked, _, why = scheduling.pick_next(db, LEARNER, cards, NOW + timedelta(hours=2))
    assert (picked.id, why) == ("new", "new")


def test_a_reviewed_card_comes_back_with_another_variant(db):
    grade(db, "a", "again", NOW, variant=None)
    picked, variant, _ = scheduling.pick_next(db, LEARNER, [card("a", variants=3)], NOW + timedelta(hours=1))
    assert variant == 0
    grade(db, "a", "again", NOW + timedelta(hours=1), variant=0)
    _, variant, _ = scheduling.pick_next(db, LEARNER, [card("a", variants=3)], NOW + timedelta(hours=2))
    assert variant == 1


def test_next_variant_cycles_through_the_own_scenario():
    assert [scheduling.next_variant(v, 2) for v in (None, 0, 1)] == [0, 1, None]
    assert scheduling.next_variant(None, 0) is None


def test_rebuild_replays_the_review_log(db):
    grade(db, "a", "good", NOW)
    grade(db, "a", "good", NOW + timedelta(days=3))
    before = scheduling.states(db, LEARNER)["a"]
    scheduling.rebuild(db, LEARNER, "a")
    after = scheduling.states(db, LEARNER)["a"]
    def fsrs(row):  # py-fsrs numbers each Card object anew; the schedule is what must match
        return {k: v for k, v in json.loads(row["fsrs"]).items() if k != "card_id"}
    assert (after["due"], after["reps"], fsrs(after)) == (before["due"], before["reps"], fsrs(before))
