"""A profile holds at most what one export carries: every export imports again (issue 12, low)."""

import json

import pytest

from quizapp.progress import events, learners, quota, transfer
from quizapp.progress.db.connection import connect, write
from quizapp.progress.db.stored_json import dump_object
from quizapp.progress.events import Event
from quizapp.progress.db.migrations import migrations
from tests.conftest import count_rows

from .conftest import LEARNER, OTHER, some_progress


def big_row(number: int) -> dict:
    """An event as large as the event API lets one be: a long value, a long detail."""
    return {"event_id": f"evt-big-{number:06d}", "card_id": "kv-pool-users", "kind": "answer", "stage": None,
            "value": "9" * events.MAX_TEXT, "detail": dump_object({"working": "é" * 2500}), "scenario": None,
            "at": "2026-01-01T00:00:00.000000+00:00"}


def fill(db, learner: str) -> int:
    """Store big events until the profile is full; returns how many it holds."""
    with write(db):
        learners.ensure_learner(db, learner)
    number = 0
    while True:
        try:
            with write(db):
                events.insert_rows(db, learner, [big_row(number + i) for i in range(50)])
            number += 50
        except quota.ProfileFull:
            break
    for extra in range(50):  # one at a time up to the last that fits
        try:
            with write(db):
                events.insert_rows(db, learner, [big_row(number)])
            number += 1
        except quota.ProfileFull:
            return number
    return number


def test_a_full_profile_exports_a_file_the_import_accepts(db, tmp_path):
    # An export once reached 41 MB against the import's 20 MB.
    held = fill(db, LEARNER)
    assert held > 100
    text = transfer.dumps(transfer.export(db, LEARNER))
    assert len(text.encode("utf-8")) <= quota.MAX_EXPORT_BYTES
    other = connect(tmp_path / "other.sqlite")
    counts = transfer.import_progress(other, OTHER, json.loads(text))
    assert counts["events"] == held


def test_the_export_is_as_large_as_the_quota_counts(db):
    learners.set_display_name(db, LEARNER, "Ada")
    some_progress(db, LEARNER)
    events.record(db, LEARNER, Event("evt-ans-0001", "kv-pool-users", "answer", value="37 ünïcode",
                                     detail={"verdict": "right"}, scenario={"model": "Qwen/Qwen3-8B"}))
    rows, size = quota.usage(db, LEARNER)
    text = transfer.dumps(transfer.export(db, LEARNER))
    assert rows == 4
    assert size <= len(text.encode("utf-8")) <= size + quota.HEADER_BYTES


def test_a_write_past_the_quota_is_refused_and_rolled_back(db, monkeypatch):
    monkeypatch.setattr(quota, "MAX_PROFILE_ROWS", 3)
    some_progress(db, LEARNER)  # a reveal, a grade and its review: 3 rows
    before = quota.usage(db, LEARNER)
    with pytest.raises(quota.ProfileFull) as full:
        events.record(db, LEARNER, Event("evt-rev-0002", "kv-pool-users", "reveal", "full"))
    assert full.value.status == 413 and "export it" in full.value.message
    assert count_rows(db, "events") == 2 and quota.usage(db, LEARNER) == before and before[0] == 3


def test_forget_frees_the_profile(db):
    some_progress(db, LEARNER)
    learners.forget(db, LEARNER)
    assert quota.usage(db, LEARNER) == (0, 0)


def test_the_migration_counts_what_an_old_database_holds(tmp_path):
    path = tmp_path / "old.sqlite"
    old = connect(path, migrate=False)
    migrations.apply(old, stop_before="m006_profile_usage")
    old["learners"].insert({"id": LEARNER, "display_name": None, "created_at": "2026-01-01T00:00:00+00:00"})
    row = {"event_id": "evt-old-0001", "card_id": "kv-pool-users", "kind": "reveal", "stage": "short",
           "value": None, "detail": None, "scenario": None, "at": "2026-01-01T00:00:01+00:00"}
    old["events"].insert({**row, "learner_id": LEARNER})
    old.conn.commit()
    old.conn.close()
    assert quota.usage(connect(path), LEARNER) == (1, quota.row_bytes(row))
