"""The attempts table: after every kind of write it says what the card's events say."""

from datetime import datetime, timedelta, timezone

import pytest

from quizapp.progress import attempts, events, learners, transfer
from quizapp.progress.clock import iso
from quizapp.progress.db.connection import connect, write
from quizapp.progress.events import Event
from quizapp.progress.db.migrations import migrations

from .conftest import LEARNER, OTHER

CARD = "kv-pool-users"
START = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


def at(seconds: float) -> datetime:
    return START + timedelta(seconds=seconds)


def said_by_events(db, learner: str, card: str) -> dict:
    """The current attempt as a replay of the card's events in time order (what the table must hold)."""
    rows = db.execute("SELECT kind, stage, value, detail, at FROM events WHERE learner_id = ? AND card_id = ? "
                      "ORDER BY at", [learner, card]).fetchall()
    ends = [row[4] for row in rows if row[0] in ("grade", "reset")]
    current = [row for row in rows if row[4] > (ends[-1] if ends else "") and row[0] not in ("grade", "reset")]
    revealed, followups, answer = [], {}, ("", None)
    for kind, stage, value, detail, _ in current:
        if kind == "reveal" and stage not in revealed:
            revealed.append(stage)
        elif kind == "followup":
            followups[stage] = value
        elif kind == "answer":
            answer = (value, detail)
    opens = [row[4] for row in current if row[0] == "open"]
    return {"revealed": tuple(revealed), "followups": followups, "answer": answer[0],
            "opened_at": opens[0] if opens else None, "began_at": current[0][4] if current else None,
            "after": ends[-1] if ends else ""}


def as_kept(db, learner: str, card: str) -> dict:
    attempt = events.current_attempt(db, learner, card)
    return {"revealed": attempt.revealed, "followups": attempt.marks, "answer": attempt.answer or "",
            "opened_at": attempt.opened_at, "began_at": attempt.began_at, "after": attempt.ended_at}


def record(db, event_id: str, kind: str, stage=None, value=None, when: float = 0, learner=LEARNER, **fields):
    return events.record(db, learner, Event(event_id, CARD, kind, stage, value, **fields), at=at(when))


def test_reveals_answers_and_followups_are_kept_as_the_events_say(db):
    record(db, "evt-open-0001", "open", when=1)
    record(db, "evt-answ-0001", "answer", value="3 users", detail={"verdict": "close"}, when=2)
    record(db, "evt-rev-00001", "reveal", "short", when=3)
    record(db, "evt-rev-00002", "reveal", "full", when=4)
    record(db, "evt-rev-00003", "reveal", "short", when=5)
    record(db, "evt-fol-00001", "followup", "followup-1", "missed", when=6)
    record(db, "evt-fol-00002", "followup", "followup-1", "knew", when=7)
    attempt = events.current_attempt(db, LEARNER, CARD)
    assert attempt.revealed == ("short", "full")
    assert attempt.answer == "3 users" and attempt.feedback == {"verdict": "close"}
    assert attempt.marks == {"followup-1": "knew"}
    assert attempt.opened_at == iso(at(1)) and attempt.began_at == iso(at(1)) and attempt.started
    assert as_kept(db, LEARNER, CARD) == said_by_events(db, LEARNER, CARD)


def test_a_grade_or_a_reset_starts_a_new_attempt(db):
    record(db, "evt-open-0001", "open", when=1)
    record(db, "evt-rev-00001", "reveal", "short", when=2)
    record(db, "evt-grade-001", "grade", value="good", when=3)
    assert events.current_attempt(db, LEARNER, CARD) == events.Attempt(ended_at=iso(at(3)), changed_at=iso(at(3)))
    assert db.execute("SELECT duration_ms FROM review_log").fetchone()[0] == 2000  # from the open to the grade
    record(db, "evt-rev-00002", "reveal", "full", when=4)
    assert events.current_attempt(db, LEARNER, CARD).revealed == ("full",)
    record(db, "evt-reset-001", "reset", when=5)
    assert not events.current_attempt(db, LEARNER, CARD).started
    assert as_kept(db, LEARNER, CARD) == said_by_events(db, LEARNER, CARD)


def test_a_retry_and_a_refused_conflict_leave_the_attempt_as_it_was(db):
    record(db, "evt-rev-00001", "reveal", "short", when=1)
    before = as_kept(db, LEARNER, CARD)
    assert record(db, "evt-rev-00001", "reveal", "short", when=2) is False
    with pytest.raises(events.EventConflict):
        record(db, "evt-rev-00001", "reveal", "full", when=3)
    assert as_kept(db, LEARNER, CARD) == before == said_by_events(db, LEARNER, CARD)


def test_an_event_older_than_the_cards_newest_is_placed_by_its_time(db):
    record(db, "evt-rev-00002", "reveal", "full", when=10)
    record(db, "evt-rev-00001", "reveal", "short", when=5)  # a first look kept in the session, say
    assert events.current_attempt(db, LEARNER, CARD).revealed == ("short", "full")
    record(db, "evt-grade-001", "grade", value="good", when=7)  # between them: only "full" is after it
    assert events.current_attempt(db, LEARNER, CARD).revealed == ("full",)
    assert as_kept(db, LEARNER, CARD) == said_by_events(db, LEARNER, CARD)


def test_events_that_changed_nothing_still_count_when_an_older_one_arrives(db):
    record(db, "evt-fol-00001", "followup", "followup-1", "knew", when=1)
    record(db, "evt-fol-00003", "followup", "followup-1", "knew", when=3)  # the same mark again
    record(db, "evt-fol-00002", "followup", "followup-1", "missed", when=2)
    assert events.current_attempt(db, LEARNER, CARD).marks == {"followup-1": "knew"}  # the mark at 3 s
    record(db, "evt-rev-00001", "reveal", "short", when=4)
    record(db, "evt-rev-00006", "reveal", "short", when=6)  # revealed again: nothing changes
    record(db, "evt-grade-005", "grade", value="good", when=5)
    assert events.current_attempt(db, LEARNER, CARD).revealed == ("short",)  # the reveal at 6 s
    assert as_kept(db, LEARNER, CARD) == said_by_events(db, LEARNER, CARD)


def test_an_import_merges_into_the_attempt_by_time(db, tmp_path):
    other_machine = connect(tmp_path / "other.sqlite")
    record(other_machine, "evt-open-0001", "open", when=1, learner=OTHER)
    record(other_machine, "evt-rev-00001", "reveal", "short", when=2, learner=OTHER)
    record(other_machine, "evt-grade-001", "grade", value="hard", when=20, learner=OTHER)
    record(other_machine, "evt-rev-00009", "reveal", "full", when=40, learner=OTHER)
    exported = transfer.export(other_machine, OTHER)
    other_machine.conn.close()

    record(db, "evt-open-0002", "open", when=10)
    record(db, "evt-rev-00002", "reveal", "followup-1", when=30)
    transfer.import_progress(db, LEARNER, exported)
    # The imported grade (20 s) ends the local open (10 s); the reveals after it (30 s, 40 s) remain.
    assert events.current_attempt(db, LEARNER, CARD).revealed == ("followup-1", "full")
    assert as_kept(db, LEARNER, CARD) == said_by_events(db, LEARNER, CARD)


def test_an_import_into_a_new_profile_is_kept_event_by_event(db, tmp_path):
    for n in range(1, 6):
        record(db, f"evt-rev-{n:05d}", "reveal", ("short", "full")[n % 2], when=n, learner=OTHER)
    record(db, "evt-answ-0001", "answer", value="37", when=9, learner=OTHER)
    exported = transfer.export(db, OTHER)
    transfer.import_progress(db, LEARNER, exported)
    assert as_kept(db, LEARNER, CARD) == as_kept(db, OTHER, CARD) == said_by_events(db, LEARNER, CARD)
    assert as_kept(db, LEARNER, CARD)["revealed"] == ("full", "short")


def test_forgetting_a_learner_forgets_their_attempts(db):
    record(db, "evt-rev-00001", "reveal", "short", when=1)
    record(db, "evt-rev-00001", "reveal", "short", when=1, learner=OTHER)
    learners.forget(db, LEARNER)
    assert [row[0] for row in db.execute("SELECT learner_id FROM attempts")] == [OTHER]
    assert events.current_attempt(db, LEARNER, CARD) == events.Attempt()


def test_rebuilding_from_the_events_gives_the_row_kept_event_by_event(db):
    for n in range(200):
        kind, stage = (("reveal", "short"), ("reveal", "full"), ("open", None), ("grade", None))[n % 7 % 4]
        record(db, f"evt-mix-{n:05d}", kind, stage, "good" if kind == "grade" else None, when=n)
    kept = db.execute("SELECT * FROM attempts").fetchall()
    with write(db):
        attempts.rebuild(db, LEARNER, CARD)
    assert db.execute("SELECT * FROM attempts").fetchall() == kept


def test_the_migration_fills_the_table_from_the_events_stored_before_it(tmp_path):
    path = tmp_path / "before.sqlite"
    old = connect(path, migrate=False)
    migrations.apply(old, stop_before="m007_attempts")
    old["learners"].insert({"id": LEARNER, "created_at": iso(START)})
    rows = [("e-open-001", "open", None, None, 1), ("e-rev-0001", "reveal", "short", None, 2),
            ("e-grade-01", "grade", None, "good", 3), ("e-rev-0002", "reveal", "full", None, 4),
            ("e-answ-001", "answer", None, "42", 5), ("e-rev-0003", "reveal", "short", None, 6),
            ("e-rev-0004", "reveal", "full", None, 7)]
    for event_id, kind, stage, value, seconds in rows:
        old["events"].insert({"event_id": event_id, "learner_id": LEARNER, "card_id": CARD, "kind": kind,
                              "stage": stage, "value": value, "at": iso(at(seconds))})
    old["events"].insert({"event_id": "e-other-01", "learner_id": LEARNER, "card_id": "other-card",
                          "kind": "open", "at": iso(at(8))})
    old.conn.commit()
    old.conn.close()

    db = connect(path)
    attempt = events.current_attempt(db, LEARNER, CARD)
    assert attempt.revealed == ("full", "short") and attempt.answer == "42" and attempt.ended_at == iso(at(3))
    assert attempt.began_at == iso(at(4)) and attempt.opened_at is None
    assert events.current_attempt(db, LEARNER, "other-card").opened_at == iso(at(8))
    assert as_kept(db, LEARNER, CARD) == said_by_events(db, LEARNER, CARD)


@pytest.mark.sqlite_only("counts statements with SQLite's trace callback and triggers")
def test_an_events_statements_do_not_grow_with_history(db):
    """Storing an event runs as many statements for a new learner as for one with 2,000 graded
    attempts and a current attempt of 1,000 reveals, and a handful at that; a stage revealed
    again leaves the attempt's row unwritten. (Which statements they are is the code's business:
    they are counted, and the attempts table's writes counted by triggers, not spelled out.)"""
    def statements(event_id: str, stage: str, when: float) -> int:
        run = []
        db.conn.set_trace_callback(run.append)
        record(db, event_id, "reveal", stage, when=when)
        db.conn.set_trace_callback(None)
        return len(run)

    first = statements("evt-first-001", "short", 0)
    for n in range(2000):
        for step, (kind, stage) in enumerate((("open", None), ("reveal", "short"), ("grade", None))):
            record(db, f"evt-h-{n:05d}-{step}", kind, stage, "good" if kind == "grade" else None,
                   when=1 + n * 3 + step)
    for n in range(1000):
        record(db, f"evt-long-{n:05d}", "reveal", ("short", "full")[n % 2], when=10_000 + n)
    new_stage = statements("evt-later-001", "followup-1", 20_000)
    assert first == new_stage <= 10, (first, new_stage)

    # Counted from here (a trigger's work is traced as statements too, so not above).
    db.execute("CREATE TEMP TABLE attempt_writes (n INTEGER)")
    for action in ("INSERT", "UPDATE", "DELETE"):
        db.execute(f"CREATE TEMP TRIGGER count_{action.lower()} AFTER {action} ON main.attempts "
                   "BEGIN INSERT INTO attempt_writes VALUES (1); END")
    writes = lambda: db.execute("SELECT COUNT(*) FROM attempt_writes").fetchone()[0]  # noqa: E731
    again = statements("evt-later-002", "short", 20_001)
    assert writes() == 0 and again <= new_stage  # revealed again: the row is read, not written
    record(db, "evt-later-003", "reveal", "taught", when=20_002)
    assert writes() >= 1  # (and a new stage is written: the triggers count)
    assert as_kept(db, LEARNER, CARD) == said_by_events(db, LEARNER, CARD)
