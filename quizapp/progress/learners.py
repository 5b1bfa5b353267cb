"""Learners: a random id in a signed cookie, an optional name, forget, export and import."""

from __future__ import annotations

import json
import re
import secrets
from datetime import datetime, timezone

from sqlite_utils import Database

from .db import write

LEARNER_ID = re.compile(r"^[0-9a-f]{32,64}$")
EXPORT_FORMAT = "quizapp-progress"
EXPORT_VERSION = 1
TABLES = ("events", "review_log")


def new_learner_id() -> str:
    """128 random bits, as hex: unguessable, so the id alone is the key to a profile."""
    return secrets.token_hex(16)


def ensure_learner(db: Database, learner_id: str, moment: datetime | None = None) -> None:
    """Create the learner's row if it is not there. Call inside a write transaction."""
    created = (moment or datetime.now(timezone.utc)).isoformat(timespec="microseconds")
    db.execute("INSERT OR IGNORE INTO learners (id, display_name, created_at) VALUES (?, NULL, ?)",
               [learner_id, created])


def get_learner(db: Database, learner_id: str) -> dict | None:
    row = db.execute("SELECT id, display_name, created_at FROM learners WHERE id = ?", [learner_id]).fetchone()
    return {"id": row[0], "display_name": row[1], "created_at": row[2]} if row else None


def create_learner(db: Database, learner_id: str) -> None:
    with write(db):
        ensure_learner(db, learner_id)


def set_display_name(db: Database, learner_id: str, name: str) -> None:
    name = " ".join(name.split())[:80] or None
    with write(db):
        ensure_learner(db, learner_id)
        db.execute("UPDATE learners SET display_name = ? WHERE id = ?", [name, learner_id])


def forget(db: Database, learner_id: str) -> None:
    """Delete every row of this learner."""
    with write(db):
        for table in ("review_log", "card_states", "events"):
            db.execute(f"DELETE FROM {table} WHERE learner_id = ?", [learner_id])
        db.execute("DELETE FROM learners WHERE id = ?", [learner_id])


def export(db: Database, learner_id: str) -> dict:
    learner = get_learner(db, learner_id) or {"id": learner_id, "display_name": None, "created_at": None}
    data = {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "learner": learner}
    for table in TABLES:
        rows = list(db[table].rows_where("learner_id = ?", [learner_id], order_by="rowid"))
        for row in rows:
            row.pop("learner_id", None)
            row.pop("id", None)
        data[table] = rows
    return data


class ImportError_(ValueError):
    pass


def import_progress(db: Database, learner_id: str, data) -> dict:
    """Merge an export into this learner: events and reviews already here are skipped.

    Scheduling state is rebuilt from the merged review log, so two machines' reviews of
    the same card end in the state their reviews, in time order, lead to.
    """
    from . import scheduling

    _check_export(data)
    counts = {"events": 0, "reviews": 0}
    with write(db):
        ensure_learner(db, learner_id)
        if data["learner"].get("display_name"):
            db.execute("UPDATE learners SET display_name = COALESCE(display_name, ?) WHERE id = ?",
                       [data["learner"]["display_name"], learner_id])
        for row in data["events"]:
            cursor = db.execute(
                "INSERT OR IGNORE INTO events (event_id, learner_id, card_id, kind, stage, value, detail, scenario, "
                "at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [row["event_id"], learner_id, row["card_id"], row["kind"], row.get("stage"), row.get("value"),
                 row.get("detail"), row.get("scenario"), row["at"]])
            counts["events"] += cursor.rowcount
        touched = set()
        for row in data["review_log"]:
            cursor = db.execute(
                "INSERT OR IGNORE INTO review_log (learner_id, card_id, rating, reviewed_at, duration_ms, event_id) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [learner_id, row["card_id"], row["rating"], row["reviewed_at"], row.get("duration_ms"),
                 row["event_id"]])
            counts["reviews"] += cursor.rowcount
            touched.add(row["card_id"])
        for card_id in touched:
            scheduling.rebuild(db, learner_id, card_id)
    return counts


def _check_export(data) -> None:
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise ImportError_(f"not a quizapp progress export (expected \"format\": \"{EXPORT_FORMAT}\")")
    if data.get("version") != EXPORT_VERSION:
        raise ImportError_(f"export version {data.get('version')!r} is not one this app reads ({EXPORT_VERSION})")
    if not isinstance(data.get("learner"), dict):
        raise ImportError_("the export has no learner")
    for table, required in (("events", ("event_id", "card_id", "kind", "at")),
                            ("review_log", ("event_id", "card_id", "rating", "reviewed_at"))):
        rows = data.get(table)
        if not isinstance(rows, list):
            raise ImportError_(f"the export's {table!r} must be a list")
        for index, row in enumerate(rows):
            missing = [k for k in required if not isinstance(row, dict) or row.get(k) in (None, "")]
            if missing:
                raise ImportError_(f"{table}[{index}] has no {', '.join(missing)}")
            _check_time(row["at" if table == "events" else "reviewed_at"], f"{table}[{index}]")


def _check_time(text, where: str) -> None:
    try:
        moment = datetime.fromisoformat(str(text))
    except ValueError:
        raise ImportError_(f"{where} has a time that is not ISO 8601: {text!r}") from None
    if moment.tzinfo is None:
        raise ImportError_(f"{where} has a time without a timezone: {text!r}")


def dumps(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)
