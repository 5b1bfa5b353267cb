"""Learners: a random id in a signed cookie, an optional name, forget, export and import."""

from __future__ import annotations

import json
import re
import secrets
from datetime import datetime, timezone

from sqlite_utils import Database

from .clock import iso, parse_iso
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
    created = iso(moment or datetime.now(timezone.utc))
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
    the same card end in the state their reviews, in time order, lead to. Every row is
    checked before anything is written: a bad file imports nothing.
    """
    from . import scheduling

    events, reviews, name = _checked_export(data)
    counts = {"events": 0, "reviews": 0}
    with write(db):
        ensure_learner(db, learner_id)
        if name:
            db.execute("UPDATE learners SET display_name = COALESCE(display_name, ?) WHERE id = ?", [name, learner_id])
        for row in events:
            cursor = db.execute(
                "INSERT OR IGNORE INTO events (event_id, learner_id, card_id, kind, stage, value, detail, scenario, "
                "at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [row["event_id"], learner_id, row["card_id"], row["kind"], row["stage"], row["value"], row["detail"],
                 row["scenario"], row["at"]])
            counts["events"] += cursor.rowcount
        for row in reviews:
            cursor = db.execute(
                "INSERT OR IGNORE INTO review_log (learner_id, card_id, rating, reviewed_at, duration_ms, event_id) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [learner_id, row["card_id"], row["rating"], row["reviewed_at"], row["duration_ms"], row["event_id"]])
            counts["reviews"] += cursor.rowcount
        for card_id in {row["card_id"] for row in reviews}:
            scheduling.rebuild(db, learner_id, card_id)
    return counts


def _checked_export(data) -> tuple[list[dict], list[dict], str | None]:
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise ImportError_(f"not a quizapp progress export (expected \"format\": \"{EXPORT_FORMAT}\")")
    if data.get("version") != EXPORT_VERSION:
        raise ImportError_(f"export version {data.get('version')!r} is not one this app reads ({EXPORT_VERSION})")
    learner = data.get("learner")
    if not isinstance(learner, dict):
        raise ImportError_("the export has no learner")
    name = learner.get("display_name")
    name = " ".join(name.split())[:80] if isinstance(name, str) else None
    for table in TABLES:
        if not isinstance(data.get(table), list):
            raise ImportError_(f"the export's {table!r} must be a list")
    now = datetime.now(timezone.utc)
    events = [_checked_event(row, f"events[{i}]", now) for i, row in enumerate(data["events"])]
    reviews = [_checked_review(row, f"review_log[{i}]", now) for i, row in enumerate(data["review_log"])]
    return events, reviews, name


def _text(row: dict, key: str, where: str, required: bool = True, limit: int = 100) -> str | None:
    value = row.get(key)
    if value in (None, "") and not required:
        return None
    if not isinstance(value, str) or not value or len(value) > limit:
        raise ImportError_(f"{where} has no {key}" if value in (None, "") else
                           f"{where}.{key} must be text of at most {limit} characters")
    return value


def _checked_event(row, where: str, now: datetime) -> dict:
    from .events import EVENT_ID, KINDS, MAX_TEXT

    if not isinstance(row, dict):
        raise ImportError_(f"{where} is not an object")
    missing = [k for k in ("event_id", "card_id", "kind", "at") if row.get(k) in (None, "")]
    if missing:
        raise ImportError_(f"{where} has no {', '.join(missing)}")
    event_id = _text(row, "event_id", where)
    if not EVENT_ID.fullmatch(event_id):
        raise ImportError_(f"{where}.event_id {event_id!r} is not an event id")
    kind = _text(row, "kind", where)
    if kind not in KINDS:
        raise ImportError_(f"{where}.kind {kind!r} is not one of {', '.join(KINDS)}")
    return {
        "event_id": event_id, "card_id": _text(row, "card_id", where), "kind": kind,
        "stage": _text(row, "stage", where, required=False, limit=40),
        "value": _text(row, "value", where, required=False, limit=MAX_TEXT),
        "detail": _json_object(row.get("detail"), f"{where}.detail"),
        "scenario": _json_object(row.get("scenario"), f"{where}.scenario"),
        "at": _time(row["at"], f"{where}.at", now),
    }


def _checked_review(row, where: str, now: datetime) -> dict:
    if not isinstance(row, dict):
        raise ImportError_(f"{where} is not an object")
    missing = [k for k in ("event_id", "card_id", "rating", "reviewed_at") if row.get(k) in (None, "")]
    if missing:
        raise ImportError_(f"{where} has no {', '.join(missing)}")
    rating = row["rating"]
    if isinstance(rating, bool) or rating not in (1, 2, 3, 4):
        raise ImportError_(f"{where}.rating must be 1 (Again) to 4 (Easy), got {rating!r}")
    duration = row.get("duration_ms")
    if duration is not None and (isinstance(duration, bool) or not isinstance(duration, int) or duration < 0):
        raise ImportError_(f"{where}.duration_ms must be a whole number of milliseconds")
    return {"event_id": _text(row, "event_id", where), "card_id": _text(row, "card_id", where), "rating": rating,
            "reviewed_at": _time(row["reviewed_at"], f"{where}.reviewed_at", now), "duration_ms": duration}


def _json_object(value, where: str) -> str | None:
    """detail and scenario travel as JSON text of an object (or null)."""
    if value in (None, ""):
        return None
    try:
        parsed = json.loads(value) if isinstance(value, str) else value
    except ValueError:
        raise ImportError_(f"{where} is not JSON") from None
    if not isinstance(parsed, dict):
        raise ImportError_(f"{where} must be a JSON object")
    return json.dumps(parsed, sort_keys=True)


def _time(text, where: str, now: datetime) -> str:
    """Stored as UTC ISO text, the form every query sorts by; a time in the future is refused."""
    try:
        moment = parse_iso(text)
    except (TypeError, ValueError):
        raise ImportError_(f"{where} is not an ISO 8601 time with a timezone: {text!r}") from None
    if moment > now:
        raise ImportError_(f"{where} {text!r} is in the future")
    return iso(moment)


def dumps(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)
