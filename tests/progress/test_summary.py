"""The dashboard's figures: seen, due, mastered, reviews per day, accuracy, streak."""

from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

from quizapp.progress import events
from quizapp.progress.events import Event
from quizapp.progress.summary import reviews_per_day, streak, summary

from .conftest import LEARNER

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
CARDS = {
    "a": SimpleNamespace(id="a", title="Card A", roles=["Inference Engineering"], tags=["kv-cache"], variants=[]),
    "b": SimpleNamespace(id="b", title="Card B", roles=["Inference Engineering", "Customer AI Deployment"],
                         tags=["memory"], variants=[]),
    "c": SimpleNamespace(id="c", title="Card C", roles=["Customer AI Deployment"], tags=["memory"], variants=[]),
}


def grade(db, card_id, rating, when, n=[0]):
    n[0] += 1
    events.record(db, LEARNER, Event(f"evt-s-{n[0]:05}", card_id, "grade", value=rating), at=when)


def test_counts_and_accuracy(db):
    grade(db, "a", "good", NOW - timedelta(days=2))
    grade(db, "b", "again", NOW - timedelta(days=1))
    grade(db, "b", "good", NOW)
    data = summary(db, LEARNER, CARDS, now=NOW + timedelta(minutes=1))
    assert (data["cards_seen"], data["reviews"], data["new"]) == (2, 3, 1)
    by_tag = {row["name"]: (row["knew"], row["reviews"]) for row in data["accuracy_by_tag"]}
    assert by_tag == {"kv-cache": (1, 1), "memory": (1, 2)}
    by_role = {row["name"]: row["accuracy"] for row in data["accuracy_by_role"]}
    assert by_role == {"Inference Engineering": 2 / 3, "Customer AI Deployment": 0.5}
    assert data["cards"]["b"]["last_rating"] == "good" and data["cards"]["b"]["reps"] == 2
    assert data["streak"] == 3


def test_due_and_mastered(db):
    grade(db, "a", "again", NOW)
    for day in range(0, 200, 20):
        grade(db, "b", "easy", NOW - timedelta(days=200 - day))
    data = summary(db, LEARNER, CARDS, now=NOW + timedelta(hours=1))
    assert data["cards"]["a"]["is_due"] and not data["cards"]["a"]["mastered"]
    assert data["cards"]["b"]["mastered"]
    assert data["due"] >= 1 and data["mastered"] == 1


def test_reviews_per_day_fills_empty_days():
    times = [(NOW - timedelta(days=1)).isoformat(), NOW.isoformat(), NOW.isoformat()]
    days = reviews_per_day(times, NOW, days=3)
    assert days == [("2026-11-28", 0), ("2026-11-29", 1), ("2026-11-30", 2)]


def test_streak_counts_back_from_yesterday_when_today_is_empty():
    times = [(NOW - timedelta(days=d)).isoformat() for d in (1, 2, 3, 5)]
    assert streak(times, NOW) == 3
    assert streak([], NOW) == 0
