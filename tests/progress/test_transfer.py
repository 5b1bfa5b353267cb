"""Export and import: merged without duplicates on another machine; a bad file imports nothing."""

import re

import pytest

from quizapp.progress import events, learners, scheduling, transfer
from quizapp.progress.db.connection import connect
from quizapp.progress.events import Event
from tests.conftest import count_rows, table_rows

from .conftest import LEARNER, OTHER, some_progress


def test_export_import_on_another_machine_merges_without_duplicates(db, tmp_path):
    learners.set_display_name(db, LEARNER, "Ada")
    some_progress(db, LEARNER)
    exported = transfer.export(db, LEARNER)

    other_machine = connect(tmp_path / "other.sqlite")
    events.record(other_machine, OTHER, Event("evt-local-01", "kv-pool-users", "reveal", "full"))
    first = transfer.import_progress(other_machine, OTHER, exported)
    again = transfer.import_progress(other_machine, OTHER, exported)
    assert first == {"events": 2, "reviews": 1, "read": 3} and again == {"events": 0, "reviews": 0, "read": 3}
    assert count_rows(other_machine, "events") == 3 and count_rows(other_machine, "review_log") == 1
    state = scheduling.states(other_machine, OTHER)["kv-pool-users"]
    assert state["reps"] == 1
    assert learners.get_learner(other_machine, OTHER)["display_name"] == "Ada"


@pytest.mark.parametrize("data, words", [
    ([], "not a quizapp progress export"),
    ({"format": "quizapp-progress", "version": 99}, "version 99"),
    ({"format": "quizapp-progress", "version": 1, "learner": {}, "events": [{"event_id": "e"}],
      "review_log": []}, "events[0] has no card_id, kind, at"),
    ({"format": "quizapp-progress", "version": 1, "learner": {}, "events": [],
      "review_log": [{"event_id": "e", "card_id": "c", "rating": 3, "reviewed_at": "yesterday"}]},
     "review_log[0].reviewed_at is not an ISO 8601 time"),
    ({"format": "quizapp-progress", "version": 1, "learner": {}, "events": [],
      "review_log": [{"event_id": "e", "card_id": "c", "rating": 9, "reviewed_at": "2026-01-01T00:00:00Z"}]},
     "rating must be 1 (Again) to 4 (Easy)"),
    ({"format": "quizapp-progress", "version": 1, "learner": {}, "review_log": [],
      "events": [{"event_id": "evt-0000001", "card_id": "c", "kind": "reset", "at": "2099-01-01T00:00:00+00:00"}]},
     "is in the future"),
    ({"format": "quizapp-progress", "version": 1, "learner": {}, "review_log": [],
      "events": [{"event_id": "evt-0000001", "card_id": ["c"], "kind": "reveal", "at": "2026-01-01T00:00:00Z"}]},
     "events[0].card_id must be text"),
    ({"format": "quizapp-progress", "version": 1, "learner": {}, "review_log": [],
      "events": [{"event_id": "evt-0000001", "card_id": "c", "kind": "answer", "detail": "not json",
                  "at": "2026-01-01T00:00:00Z"}]}, "events[0].detail is not JSON"),
])
def test_bad_import_is_refused_and_nothing_is_lost(db, data, words):
    some_progress(db, LEARNER)
    with pytest.raises(transfer.ImportRefused, match=re.escape(words)):
        transfer.import_progress(db, LEARNER, data)
    assert count_rows(db, "events") == 2


def test_import_normalises_times_to_utc(db):
    data = {"format": "quizapp-progress", "version": 1, "learner": {}, "review_log": [
        {"event_id": "evt-g-0001", "card_id": "c", "rating": 3, "reviewed_at": "2026-01-01T05:00:00+05:00"}],
        "events": [{"event_id": "evt-g-0001", "card_id": "c", "kind": "grade", "value": "good",
                    "at": "2026-01-01T05:00:00+05:00"}]}
    transfer.import_progress(db, LEARNER, data)
    assert table_rows(db, "events")[0]["at"] == "2026-01-01T00:00:00.000000+00:00"
    assert scheduling.states(db, LEARNER)["c"]["reps"] == 1
