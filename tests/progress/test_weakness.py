"""The reader's weakest topics: the share of Again and Hard grades in the last reviews, lapses on a tie."""

from datetime import datetime, timedelta, timezone

from quizapp.progress import events, weakness
from quizapp.progress.events import Event

from .conftest import LEARNER

START = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)
TOPIC_OF = {"a1": "kv-cache", "a2": "kv-cache", "b1": "roofline", "c1": "parallelism", "gone": None}


def grades(db, *pairs):
    """Grade (card, rating) pairs a day apart, in order; returns the moment after the last."""
    for n, (card, rating) in enumerate(pairs):
        events.record(db, LEARNER, Event(f"evt-w-{n:04}", card, "grade", value=rating), at=START + timedelta(days=n))


def test_topics_rank_by_their_share_of_again_and_hard_then_by_lapses(db):
    # a1 learned, then lapsed (Again in review): kv-cache 1 missed of 3 with 1 lapse; roofline 1 of 3, no lapse.
    grades(db, ("a1", "good"), ("a1", "good"), ("a1", "again"), ("b1", "good"), ("b1", "good"), ("b1", "hard"),
           ("c1", "easy"))
    ranked = weakness.ranked_topics(db, LEARNER, TOPIC_OF)
    assert [(e["topic"], e["missed"], e["reviews"]) for e in ranked] == [
        ("kv-cache", 1, 3), ("roofline", 1, 3), ("parallelism", 0, 1)]
    assert ranked[0]["lapses"] == 1 and ranked[1]["lapses"] == 0
    # Parallelism has no Again or Hard: never among the weakest.
    assert weakness.weakest_topics(db, LEARNER, TOPIC_OF) == ["kv-cache", "roofline"]


def test_only_the_last_reviews_count_and_a_card_the_bank_lost_is_left_out(db):
    old_misses = [("b1", "again")] * 5
    recent = [("a1", "good")] * weakness.RECENT_REVIEWS
    grades(db, *old_misses, *recent, ("gone", "again"))
    ranked = weakness.ranked_topics(db, LEARNER, {k: v for k, v in TOPIC_OF.items() if v})
    # The 'gone' review is one of the last RECENT_REVIEWS but its card is not in the bank: the rest are a1's.
    assert [(e["topic"], e["reviews"], e["missed"]) for e in ranked] == [("kv-cache", weakness.RECENT_REVIEWS - 1, 0)]
    assert weakness.weakest_topics(db, LEARNER, TOPIC_OF) == []


def test_at_most_the_first_few_are_the_weakest(db):
    topic_of = {f"card-{i}": topic for i, topic in enumerate(["kv-cache", "roofline", "parallelism", "cost", "incidents"])}
    grades(db, *[(card, "again") for card in topic_of])
    assert len(weakness.weakest_topics(db, LEARNER, topic_of)) == weakness.WEAKEST
