"""Events: stored exactly once, validated with the field named, attempts and history."""

import pytest

from quizapp.progress import events, scheduling
from quizapp.progress.events import Event, EventError, parse_event
from tests.conftest import count_rows, table_rows

from .conftest import LEARNER, OTHER


def test_same_event_id_is_stored_once(db):
    event = Event("evt-0000001", "kv-pool-users", "reveal", "short")
    assert events.record(db, LEARNER, event) is True
    assert events.record(db, LEARNER, event) is False
    assert count_rows(db, "events") == 1


def test_event_ids_are_per_learner(db):
    event = Event("evt-0000001", "kv-pool-users", "reveal", "short")
    assert events.record(db, LEARNER, event) and events.record(db, OTHER, event)
    assert count_rows(db, "events") == 2


def test_a_retried_grade_schedules_once(db):
    grade = Event("evt-grade-01", "kv-pool-users", "grade", value="good")
    events.record(db, LEARNER, grade)
    events.record(db, LEARNER, grade)
    assert count_rows(db, "review_log") == 1
    assert scheduling.states(db, LEARNER)["kv-pool-users"]["reps"] == 1


def test_attempt_resets_after_grade(db):
    events.record(db, LEARNER, Event("evt-open-001", "c", "open"))
    events.record(db, LEARNER, Event("evt-rev-0001", "c", "reveal", "short"))
    assert [e["stage"] for e in events.attempt_events(db, LEARNER, "c") if e["kind"] == "reveal"] == ["short"]
    events.record(db, LEARNER, Event("evt-grade-01", "c", "grade", value="easy"))
    assert events.attempt_events(db, LEARNER, "c") == []
    log = table_rows(db, "review_log")[0]
    assert log["duration_ms"] is not None and log["duration_ms"] >= 0


@pytest.mark.parametrize("data, field", [
    ("nope", None),
    ({"card_id": "c", "kind": "reveal", "stage": "short"}, "event_id"),
    ({"event_id": "short", "card_id": "c", "kind": "reveal", "stage": "short"}, "event_id"),
    ({"event_id": "evt-0000001", "kind": "reveal"}, "card_id"),
    ({"event_id": "evt-0000001", "card_id": "c", "kind": "peek"}, "kind"),
    ({"event_id": "evt-0000001", "card_id": "c", "kind": "reveal"}, "stage"),
    ({"event_id": "evt-0000001", "card_id": "c", "kind": "grade", "value": "great"}, "value"),
    ({"event_id": "evt-0000001", "card_id": "c", "kind": "followup", "stage": "followup-1", "value": "?"}, "value"),
    ({"event_id": "evt-0000001", "card_id": "c", "kind": "answer", "value": "x" * 5001}, "value"),
    ({"event_id": "evt-0000001", "card_id": "c", "kind": "answer", "scenario": [1]}, "scenario"),
])
def test_bad_events_name_the_field(data, field):
    with pytest.raises(EventError) as error:
        parse_event(data)
    assert error.value.field == field


def test_reusing_an_event_id_for_another_event_is_a_conflict(db):
    events.record(db, LEARNER, Event("evt-0000001", "c", "reveal", "short"))
    with pytest.raises(events.EventConflict) as error:
        events.record(db, LEARNER, Event("evt-0000001", "c", "grade", value="good"))
    assert error.value.field == "event_id" and error.value.status == 409
    assert count_rows(db, "review_log") == 0


def test_detail_values_must_be_plain(db):
    with pytest.raises(EventError) as error:
        parse_event({"event_id": "evt-0000001", "card_id": "c", "kind": "answer", "detail": {"verdict": ["x"]}})
    assert error.value.field == "detail"


def test_stored_rows_with_broken_json_read_as_empty(db):
    events.record(db, LEARNER, Event("evt-0000001", "c", "answer", value="37"))
    db.execute("UPDATE events SET detail = 'not json', scenario = '[1]'")
    db.conn.commit()
    [event] = events.attempt_events(db, LEARNER, "c")
    assert event["detail"] == {} and event["scenario"] == {}
