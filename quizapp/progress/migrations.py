"""The schema, as sqlite-utils migrations. A migration, once shipped, is never edited:
the next change is a new function at the end."""

from __future__ import annotations

from sqlite_utils import Database, Migrations

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
