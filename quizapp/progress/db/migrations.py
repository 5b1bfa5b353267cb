"""The schema, as sqlite-utils migrations. A migration, once shipped, is never edited:
the next change is a new function at the end."""

from __future__ import annotations

from sqlite_utils import Database, Migrations

from .. import attempts
from ..quota import row_bytes

migrations = Migrations("quizapp")


@migrations()
def m001_learners_and_events(db: Database):
    db["learners"].create({"id": str, "display_name": str, "created_at": str}, pk="id")
    db["events"].create({
        "event_id": str,
        "learner_id": str,
        "card_id": str,
        "kind": str,  # open, reveal, answer, grade, followup, reset
        "stage": str,
        "value": str,
        "detail": str,  # JSON: a graded answer's verdict, the time to the first reveal …
        "scenario": str,  # JSON of the calculator inputs the reader saw
        "at": str,  # UTC, ISO 8601
    }, pk=("learner_id", "event_id"), foreign_keys=[("learner_id", "learners", "id")])
    db["events"].create_index(["learner_id", "card_id", "at"])


@migrations()
def m002_scheduling(db: Database):
    # One row per learner and card: py-fsrs 6's Card, as JSON, and the variant last shown.
    db["card_states"].create({
        "learner_id": str,
        "card_id": str,
        "fsrs": str,
        "due": str,
        "reps": int,
        "lapses": int,
        "last_variant": int,
        "last_review": str,
    }, pk=("learner_id", "card_id"), foreign_keys=[("learner_id", "learners", "id")])
    db["card_states"].create_index(["learner_id", "due"])
    # Every review, kept from the start so FSRS parameters can be optimised later.
    db["review_log"].create({
        "id": int,
        "learner_id": str,
        "card_id": str,
        "rating": int,
        "reviewed_at": str,
        "duration_ms": int,
        "event_id": str,
    }, pk="id", foreign_keys=[("learner_id", "learners", "id")])
    db["review_log"].create_index(["learner_id", "event_id"], unique=True)
    db["review_log"].create_index(["learner_id", "reviewed_at"])


@migrations()
def m003_interviews(db: Database):
    # A live interview. Only the SHA-256 digests of its two tokens are stored (the tokens are
    # the credentials). version counts every change; candidate_version only those the candidate sees.
    db["interviews"].create({
        "id": str,
        "interviewer_digest": str,
        "candidate_digest": str,
        "candidate": str,
        "role": str,
        "created_at": str,
        "started_at": str,  # when the first card went on the candidate's screen
        "ended_at": str,
        "recommendation": str,
        "reason": str,
        "scratch": str,  # the candidate's scratch box, as last sent
        "scratch_at": str,
        "version": int,
        "candidate_version": int,
    }, pk="id", not_null={"interviewer_digest", "candidate_digest", "created_at", "version", "candidate_version"},
        defaults={"version": 0, "candidate_version": 0})
    db["interviews"].create_index(["interviewer_digest"], unique=True)
    db["interviews"].create_index(["candidate_digest"], unique=True)
    # Its cards in order, each with the scenario the interviewer chose: a variant and changed inputs (JSON).
    db["interview_cards"].create({"interview_id": str, "position": int, "card_id": str, "variant": int,
                                  "overrides": str}, pk=("interview_id", "position"),
                                 foreign_keys=[("interview_id", "interviews", "id")])
    db["interview_cards"].create_index(["interview_id", "card_id"], unique=True)
    # Each stretch of time a card was on the candidate's screen: its timer.
    db["interview_visits"].create({"id": int, "interview_id": str, "card_id": str, "started_at": str,
                                   "ended_at": str}, pk="id", foreign_keys=[("interview_id", "interviews", "id")])
    db["interview_visits"].create_index(["interview_id", "started_at"])
    for table, key in (("interview_reveals", "stage"), ("interview_signals", "signal")):
        db[table].create({"interview_id": str, "card_id": str, key: str, "at": str},
                         pk=("interview_id", "card_id", key), foreign_keys=[("interview_id", "interviews", "id")])
    db["interview_scores"].create({"interview_id": str, "card_id": str, "stage": str, "score": int, "at": str},
                                  pk=("interview_id", "card_id", "stage"),
                                  foreign_keys=[("interview_id", "interviews", "id")])
    db["interview_notes"].create({"id": int, "interview_id": str, "card_id": str, "text": str, "at": str},
                                 pk="id", foreign_keys=[("interview_id", "interviews", "id")])
    db["interview_notes"].create_index(["interview_id", "at"])


@migrations()
def m004_events_by_kind(db: Database):
    # The current attempt is read kind by kind (its reveals, its last answer, its start); with
    # the kind in the index each read touches only its own rows, whatever the history holds.
    db["events"].create_index(["learner_id", "card_id", "kind", "at"])


@migrations()
def m005_review_log_by_card(db: Database):
    # Rebuilding a card's schedule reads its reviews: without this, every rebuild scanned the
    # learner's whole log (an import of 150,000 reviews held the write lock for 15 minutes).
    db["review_log"].create_index(["learner_id", "card_id", "reviewed_at"])


@migrations()
def m006_profile_usage(db: Database):
    # What each profile holds, as its export writes it (progress/quota.py): counted on every
    # write, so a limit costs one UPDATE, not a scan of the learner's history.
    db["learners"].add_column("stored_rows", int, not_null_default=0)
    db["learners"].add_column("stored_bytes", int, not_null_default=0)
    count_usage(db)


def count_usage(db) -> None:
    """m006's count of what each profile holds, from its stored rows (both databases run it)."""
    for (learner_id,) in db.execute("SELECT id FROM learners").fetchall():
        rows = size = 0
        for table, exported in (("events", EVENT_COLUMNS), ("review_log", REVIEW_COLUMNS)):
            for row in db.execute(f"SELECT {', '.join(exported)} FROM {table} WHERE learner_id = ?", [learner_id]):
                rows += 1
                size += row_bytes(dict(zip(exported, row)))
        db.execute("UPDATE learners SET stored_rows = ?, stored_bytes = ? WHERE id = ?", [rows, size, learner_id])


@migrations()
def m007_attempts(db: Database):
    # Each learner's current attempt at each card (progress/attempts.py), kept with every event:
    # a card page reads one row instead of aggregating the attempt's events. Filled from the
    # events stored so far by attempts.rebuild, the one derivation (a later change to the
    # table's columns comes with a migration of its own).
    db.execute("""
        CREATE TABLE attempts (
            learner_id TEXT NOT NULL REFERENCES learners(id),
            card_id TEXT NOT NULL,
            ended_at TEXT NOT NULL,  -- the grade or reset that ended the attempt before ('' when none)
            changed_at TEXT NOT NULL,  -- the last event that changed the row: an older one is not applied on top
            began_at TEXT,  -- the attempt's first event
            opened_at TEXT,  -- its first open
            revealed TEXT NOT NULL,  -- JSON: the stages, in the order first revealed
            answer TEXT,  -- the last answer's value, detail and time
            answer_detail TEXT,
            answer_at TEXT,
            followups TEXT NOT NULL,  -- JSON: follow-up stage -> [its last mark, that mark's time]
            PRIMARY KEY (learner_id, card_id)
        ) WITHOUT ROWID""")
    attempts.rebuild_all(db)


@migrations()
def m008_events_without_time_index(db: Database):
    # Each index costs every event stored. (learner, card, at) served the reads of the current
    # attempt that progress/attempts.py now answers; (learner, card, kind, at) serves the rest
    # (a rebuilt attempt, a card's last grade), and a card's history sorts its own rows.
    db.execute("DROP INDEX idx_events_learner_id_card_id_at")


@migrations()
def m009_interview_asks_changes_answers(db: Database):
    # A follow-up's question goes on the candidate's screen when the interviewer asks it (its
    # expected answer is a reveal of its own); each scenario change of a card mid-interview, with
    # the inputs the interviewer sent and the scenario it made (variant and changed inputs, JSON);
    # the candidate's typed answer to each card (the number and each step, JSON), as last sent.
    db["interview_asks"].create({"interview_id": str, "card_id": str, "stage": str, "at": str},
                                pk=("interview_id", "card_id", "stage"),
                                foreign_keys=[("interview_id", "interviews", "id")])
    db["interview_changes"].create({"id": int, "interview_id": str, "card_id": str, "sent": str, "variant": int,
                                    "overrides": str, "at": str}, pk="id",
                                   foreign_keys=[("interview_id", "interviews", "id")])
    db["interview_changes"].create_index(["interview_id", "at"])
    db["interview_answers"].create({"interview_id": str, "card_id": str, "typed": str, "at": str},
                                   pk=("interview_id", "card_id"), foreign_keys=[("interview_id", "interviews", "id")])


@migrations()
def m010_browser_interviews(db: Database):
    # The interviewer links each browser made (progress/browser_sessions.py), kept here rather
    # than in its signed, readable session cookie: the cookie holds a random session id, a row
    # its SHA-256 digest and the interviewer's token sealed with a pad only that id gives.
    db.execute("""
        CREATE TABLE browser_interviews (
            session_digest TEXT NOT NULL,
            interview_id TEXT NOT NULL REFERENCES interviews(id),
            sealed TEXT NOT NULL,
            remembered_at TEXT NOT NULL,  -- UTC, ISO 8601: the newest are listed, the expired dropped
            PRIMARY KEY (session_digest, interview_id)
        )""")
    db.execute("CREATE INDEX idx_browser_interviews_remembered_at ON browser_interviews (remembered_at)")
    db.execute("CREATE INDEX idx_browser_interviews_interview_id ON browser_interviews (interview_id, remembered_at)")


# The columns an export writes for each row, as they stood when m004 counted them.
EVENT_COLUMNS = ("event_id", "card_id", "kind", "stage", "value", "detail", "scenario", "at")
REVIEW_COLUMNS = ("card_id", "rating", "reviewed_at", "duration_ms", "event_id")
