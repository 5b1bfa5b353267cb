"""Learners: a random id in a signed cookie, an optional name, forget. (Export and import: ``transfer``.)"""

from __future__ import annotations

import re
import secrets
from datetime import datetime, timezone

from sqlite_utils import Database

from .clock import iso
from .db.connection import lock, write

LEARNER_ID = re.compile(r"^[0-9a-f]{32,64}$")


def new_learner_id() -> str:
    """128 random bits, as hex: unguessable, so the id alone is the key to a profile."""
    return secrets.token_hex(16)


def ensure_learner(db: Database, learner_id: str, moment: datetime | None = None) -> None:
    """Create the learner's row if it is not there, and hold it for the rest of the transaction:
    every write of a learner's progress begins here, so two servers' writes for one learner
    (an attempt read and rewritten, a schedule) run one after the other. Call inside a write
    transaction."""
    created = iso(moment or datetime.now(timezone.utc))
    db.execute("INSERT INTO learners (id, display_name, created_at) VALUES (?, NULL, ?) ON CONFLICT DO NOTHING",
               [learner_id, created])
    lock(db, "learners", learner_id)


def get_learner(db: Database, learner_id: str) -> dict | None:
    row = db.execute("SELECT id, display_name, created_at FROM learners WHERE id = ?", [learner_id]).fetchone()
    return {"id": row[0], "display_name": row[1], "created_at": row[2]} if row else None


def create_learner(db: Database, learner_id: str) -> None:
    with write(db):
        ensure_learner(db, learner_id)


def display_name(text: str) -> str | None:
    """A name as it is stored: spaces collapsed, at most 80 characters; None when nothing is left."""
    return " ".join(text.split())[:80] or None


def set_display_name(db: Database, learner_id: str, name: str) -> None:
    with write(db):
        ensure_learner(db, learner_id)
        db.execute("UPDATE learners SET display_name = ? WHERE id = ?", [display_name(name), learner_id])


def name_if_unnamed(db: Database, learner_id: str, name: str) -> None:
    """Give the learner this name unless they have one already. Call inside a write transaction."""
    db.execute("UPDATE learners SET display_name = COALESCE(display_name, ?) WHERE id = ?", [name, learner_id])


def forget(db: Database, learner_id: str) -> None:
    """Delete every row of this learner."""
    with write(db):
        for table in ("review_log", "card_states", "attempts", "events"):
            db.execute(f"DELETE FROM {table} WHERE learner_id = ?", [learner_id])
        db.execute("DELETE FROM learners WHERE id = ?", [learner_id])
