"""A learner's progress as a file: export it, and import (merge) it on another machine.

An import writes through the modules that own each table: ``events.insert_rows``,
``scheduling.log_reviews`` and ``learners``. A profile holds at most what one export
carries (``quota``), so every export imports again.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Mapping
from datetime import datetime, timezone

from sqlite_utils import Database

from . import events, quota, scheduling
from .clock import iso, parse_iso
from .db.connection import write
from .db.writer_turn import is_busy
from .db.stored_json import dump_object
from .learners import display_name, ensure_learner, get_learner, name_if_unnamed

EXPORT_FORMAT = "quizapp-progress"
EXPORT_VERSION = 1
TABLES = ("events", "review_log")
# An import holds no more rows than a profile may: an export always fits.
MAX_IMPORT_ROWS = quota.MAX_PROFILE_ROWS
# Rows written per transaction: other learners' writes wait for one batch, never a whole import.
BATCH_ROWS = 1000


def export(db: Database, learner_id: str) -> dict:
    """The learner's row, events and review log, as ``import_progress`` reads them back."""
    learner = get_learner(db, learner_id) or {"id": learner_id, "display_name": None, "created_at": None}
    data = {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "learner": learner}
    for table in TABLES:
        rows = list(db[table].rows_where("learner_id = ?", [learner_id], order_by="rowid"))
        for row in rows:
            row.pop("learner_id", None)
            row.pop("id", None)
        data[table] = rows
    return data


class ImportRefused(ValueError):
    """The file is not an export this app can merge; the message says what is wrong with it."""


class ImportInterrupted(Exception):
    """A batch could not be written (the profile is full, or the database stayed busy). The
    ``done`` rows before it are stored; importing the file again skips them and carries on."""

    def __init__(self, done: int, total: int, reason: str):
        super().__init__(reason)
        self.done, self.total, self.reason = done, total, reason


def import_progress(db: Database, learner_id: str, data, known_cards: Collection[str] | None = None,
                    renamed: Mapping[str, str] | None = None) -> dict:
    """Merge an export into this learner: events and reviews already here are skipped.

    Every row is checked before anything is written: a bad file imports nothing. With
    ``known_cards`` (the bank's ids), rows of other cards are left out and counted as
    ``"skipped"``. With ``renamed`` (the bank's old ids, each to the card that replaces it), the
    rows of an old id land on its successor. The rows are written in batches of ``BATCH_ROWS``, each in its own short
    transaction, and then each card's schedule is rebuilt once from its merged review log, so
    two machines' reviews of a card end in the state their reviews, in time order, lead to.

    Returns how many events and reviews were new (and, with ``known_cards``, how many rows were
    skipped). Raises ImportRefused, or ImportInterrupted when the profile fills up part way.
    """
    event_rows, review_rows, name = _checked_export(data)
    if renamed:
        event_rows = [{**row, "card_id": renamed.get(row["card_id"], row["card_id"])} for row in event_rows]
        review_rows = [{**row, "card_id": renamed.get(row["card_id"], row["card_id"])} for row in review_rows]
    counts = {"events": 0, "reviews": 0}
    if known_cards is not None:
        kept_events = [row for row in event_rows if row["card_id"] in known_cards]
        kept_reviews = [row for row in review_rows if row["card_id"] in known_cards]
        counts["skipped"] = len(event_rows) + len(review_rows) - len(kept_events) - len(kept_reviews)
        event_rows, review_rows = kept_events, kept_reviews
    with write(db):
        ensure_learner(db, learner_id)
        if name:
            name_if_unnamed(db, learner_id, name)
    writers = (("events", event_rows, events.insert_rows), ("reviews", review_rows, scheduling.log_reviews))
    read, reviewed = 0, set()
    try:
        for key, rows, writer in writers:
            for start in range(0, len(rows), BATCH_ROWS):
                batch = rows[start:start + BATCH_ROWS]
                with write(db):
                    counts[key] += writer(db, learner_id, batch)
                read += len(batch)
                if key == "reviews":
                    reviewed.update(row["card_id"] for row in batch)
    except quota.ProfileFull as full:
        raise ImportInterrupted(read, len(event_rows) + len(review_rows), full.message) from None
    except sqlite3.OperationalError as error:
        if not is_busy(error):  # only the write lock staying taken past the busy timeout is the file's to retry
            raise
        raise ImportInterrupted(read, len(event_rows) + len(review_rows),
                                f"the database stayed busy ({error}); import the file again to finish") from None
    finally:
        # The schedules of the cards whose reviews are in, each once, from its merged log.
        for card_id in sorted(reviewed):
            with write(db):
                scheduling.rebuild(db, learner_id, card_id)
    return counts


def _checked_export(data) -> tuple[list[dict], list[dict], str | None]:
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise ImportRefused(f"not a quizapp progress export (expected \"format\": \"{EXPORT_FORMAT}\")")
    if data.get("version") != EXPORT_VERSION:
        raise ImportRefused(f"export version {data.get('version')!r} is not one this app reads ({EXPORT_VERSION})")
    learner = data.get("learner")
    if not isinstance(learner, dict):
        raise ImportRefused("the export has no learner")
    name = learner.get("display_name")
    name = display_name(name) if isinstance(name, str) else None
    for table in TABLES:
        if not isinstance(data.get(table), list):
            raise ImportRefused(f"the export's {table!r} must be a list")
    rows = len(data["events"]) + len(data["review_log"])
    if rows > MAX_IMPORT_ROWS:
        raise ImportRefused(f"the file holds {rows:,} events and reviews; a profile holds at most "
                            f"{MAX_IMPORT_ROWS:,}")
    now = datetime.now(timezone.utc)
    event_rows = [_checked_event(row, f"events[{i}]", now) for i, row in enumerate(data["events"])]
    review_rows = [_checked_review(row, f"review_log[{i}]", now) for i, row in enumerate(data["review_log"])]
    return event_rows, review_rows, name


def _text(row: dict, key: str, where: str, required: bool = True, limit: int = 100) -> str | None:
    value = row.get(key)
    if value in (None, "") and not required:
        return None
    if not isinstance(value, str) or not value or len(value) > limit:
        raise ImportRefused(f"{where} has no {key}" if value in (None, "") else
                            f"{where}.{key} must be text of at most {limit} characters")
    return value


def _checked_event(row, where: str, now: datetime) -> dict:
    if not isinstance(row, dict):
        raise ImportRefused(f"{where} is not an object")
    missing = [k for k in ("event_id", "card_id", "kind", "at") if row.get(k) in (None, "")]
    if missing:
        raise ImportRefused(f"{where} has no {', '.join(missing)}")
    event_id = _text(row, "event_id", where)
    if not events.EVENT_ID.fullmatch(event_id):
        raise ImportRefused(f"{where}.event_id {event_id!r} is not an event id")
    kind = _text(row, "kind", where)
    if kind not in events.KINDS:
        raise ImportRefused(f"{where}.kind {kind!r} is not one of {', '.join(events.KINDS)}")
    return {
        "event_id": event_id, "card_id": _text(row, "card_id", where), "kind": kind,
        "stage": _text(row, "stage", where, required=False, limit=40),
        "value": _text(row, "value", where, required=False, limit=events.MAX_TEXT),
        "detail": _json_object(row.get("detail"), f"{where}.detail"),
        "scenario": _json_object(row.get("scenario"), f"{where}.scenario"),
        "at": _time(row["at"], f"{where}.at", now),
    }


def _checked_review(row, where: str, now: datetime) -> dict:
    if not isinstance(row, dict):
        raise ImportRefused(f"{where} is not an object")
    missing = [k for k in ("event_id", "card_id", "rating", "reviewed_at") if row.get(k) in (None, "")]
    if missing:
        raise ImportRefused(f"{where} has no {', '.join(missing)}")
    rating = row["rating"]
    if isinstance(rating, bool) or rating not in scheduling.RATINGS.values():
        raise ImportRefused(f"{where}.rating must be {_rating_range()}, got {rating!r}")
    duration = row.get("duration_ms")
    if duration is not None and (isinstance(duration, bool) or not isinstance(duration, int) or duration < 0):
        raise ImportRefused(f"{where}.duration_ms must be a whole number of milliseconds")
    return {"event_id": _text(row, "event_id", where), "card_id": _text(row, "card_id", where), "rating": rating,
            "reviewed_at": _time(row["reviewed_at"], f"{where}.reviewed_at", now), "duration_ms": duration}


def _rating_range() -> str:
    """The numbers a review log stores, from the ratings table: 1 (Again) to 4 (Easy)."""
    lowest, highest = min(scheduling.RATINGS.values()), max(scheduling.RATINGS.values())
    return f"{int(lowest)} ({lowest.name}) to {int(highest)} ({highest.name})"


def _json_object(value, where: str) -> str | None:
    """detail and scenario travel as JSON text of an object (or null)."""
    if value in (None, ""):
        return None
    try:
        parsed = json.loads(value) if isinstance(value, str) else value
    except ValueError:
        raise ImportRefused(f"{where} is not JSON") from None
    if not isinstance(parsed, dict):
        raise ImportRefused(f"{where} must be a JSON object")
    return dump_object(parsed)


def _time(text, where: str, now: datetime) -> str:
    """Stored as UTC ISO text, the form every query sorts by; a time in the future is refused."""
    try:
        moment = parse_iso(text)
    except (TypeError, ValueError):
        raise ImportRefused(f"{where} is not an ISO 8601 time with a timezone: {text!r}") from None
    if moment > now:
        raise ImportRefused(f"{where} {text!r} is in the future")
    return iso(moment)


def dumps(data: dict) -> str:
    """An export as the text of the downloaded file: its header, then each event and review on a
    line of its own, as ``quota.row_line`` writes it, so the file is as big as the quota counts."""
    header = {key: value for key, value in data.items() if key not in TABLES}
    lines = [json.dumps(header, ensure_ascii=False)[:-1] + ","]
    for table in TABLES:
        rows = data.get(table, [])
        lines.append(f'"{table}": [')
        lines += [quota.row_line(row) + ("," if i < len(rows) - 1 else "") for i, row in enumerate(rows)]
        lines.append("]," if table != TABLES[-1] else "]")
    lines.append("}")
    return "\n".join(lines) + "\n"
