"""Schema migrations: each applied once, and an old database keeps its data when upgraded."""

from quizapp.progress.db.connection import connect
from quizapp.progress.db.migrations import migrations

from ..conftest import LEARNER


def test_fresh_database_has_every_migration_once(tmp_path):
    path = tmp_path / "fresh.sqlite"
    connect(path).conn.close()
    db = connect(path)  # a second open applies nothing again
    names = [row[0] for row in db.execute("SELECT name FROM _sqlite_migrations WHERE migration_set = 'quizapp'")]
    assert names == ["m001_learners_and_events", "m002_scheduling", "m003_interviews", "m004_events_by_kind",
                     "m005_review_log_by_card", "m006_profile_usage", "m007_attempts",
                     "m008_events_without_time_index", "m009_interview_asks_changes_answers",
                     "m010_browser_interviews"]
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_upgrading_a_first_schema_database_keeps_its_data(tmp_path):
    path = tmp_path / "old.sqlite"
    old = connect(path, migrate=False)
    migrations.apply(old, stop_before="m002_scheduling")
    assert not old["card_states"].exists()
    old["learners"].insert({"id": LEARNER, "display_name": "Ada", "created_at": "2026-01-01T00:00:00+00:00"})
    old["events"].insert({"event_id": "evt-old-1", "learner_id": LEARNER, "card_id": "kv-pool-users",
                          "kind": "reveal", "stage": "short", "at": "2026-01-01T00:00:01+00:00"})
    old.conn.commit()
    old.conn.close()

    upgraded = connect(path)
    assert upgraded["card_states"].exists() and upgraded["review_log"].exists()
    assert upgraded["learners"].get(LEARNER)["display_name"] == "Ada"
    assert upgraded["events"].get((LEARNER, "evt-old-1"))["stage"] == "short"
    applied = [r[0] for r in upgraded.execute("SELECT name FROM _sqlite_migrations ORDER BY id")]
    assert applied == ["m001_learners_and_events", "m002_scheduling", "m003_interviews", "m004_events_by_kind",
                     "m005_review_log_by_card", "m006_profile_usage", "m007_attempts",
                     "m008_events_without_time_index", "m009_interview_asks_changes_answers",
                     "m010_browser_interviews"]
