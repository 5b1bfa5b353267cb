"""An export's rows checked one by one, each put in the form its table's writer stores, or an
ImportRefused that names the row and the field ("events[3].value is not text")."""

from __future__ import annotations

import json
from datetime import datetime

from ...fields import depth, encodable, unencodable_path
from .. import events, scheduling
from ..clock import iso, parse_iso
from ..db.stored_json import dump_object

# An event's detail and scenario, as the API stores them (events.py), nest a level or two.
MAX_OBJECT_DEPTH = 8
MAX_OBJECT_CHARS = max(events.MAX_DETAIL_CHARS, events.MAX_SCENARIO_CHARS)


class ImportRefused(ValueError):
    """Nothing was imported: the file is not an export this app can merge, or it could not be
    written whole; the message says why."""


def _parse(text: str, where: str):
    try:
        return json.loads(text)
    except RecursionError:
        raise ImportRefused(f"{where} is nested far deeper than an export's") from None
    except json.JSONDecodeError:
        raise ImportRefused(f"{where} is not JSON") from None
    except ValueError:  # Python's own limit: an integer of over 4,300 digits
        raise ImportRefused(f"{where} holds a number of thousands of digits; an export's are short") from None


def _text(row: dict, key: str, where: str, required: bool = True, limit: int = 100) -> str | None:
    value = row.get(key)
    if value in (None, "") and not required:
        return None
    if not isinstance(value, str) or not value or len(value) > limit:
        raise ImportRefused(f"{where} has no {key}" if value in (None, "") else
                            f"{where}.{key} must be text of at most {limit} characters")
    if not encodable(value):
        raise ImportRefused(f"{where}.{key} is not text: it holds a lone surrogate (an escape such as \\ud800 "
                            "that stands for no character)")
    return value


def _require(row, where: str, keys: tuple[str, ...]) -> None:
    """A row is an object holding each of ``keys``."""
    if not isinstance(row, dict):
        raise ImportRefused(f"{where} is not an object")
    missing = [k for k in keys if row.get(k) in (None, "")]
    if missing:
        raise ImportRefused(f"{where} has no {', '.join(missing)}")


def checked_event(row, where: str, now: datetime) -> dict:
    _require(row, where, ("event_id", "card_id", "kind", "at"))
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


def checked_review(row, where: str, now: datetime) -> dict:
    _require(row, where, ("event_id", "card_id", "rating", "reviewed_at"))
    rating = row["rating"]
    if isinstance(rating, bool) or rating not in scheduling.RATINGS.values():
        raise ImportRefused(f"{where}.rating must be {_rating_range()}, got {rating!r}")
    duration = row.get("duration_ms")
    if duration is not None and (isinstance(duration, bool) or not isinstance(duration, int) or duration < 0):
        raise ImportRefused(f"{where}.duration_ms must be a whole number of milliseconds")
    return {"event_id": _text(row, "event_id", where), "card_id": _text(row, "card_id", where), "rating": rating,
            "reviewed_at": _time(row["reviewed_at"], f"{where}.reviewed_at", now), "duration_ms": duration}


# Each table's rows, checked and put in the form its writer stores.
CHECKS = {"events": checked_event, "review_log": checked_review}


def _rating_range() -> str:
    """The numbers a review log stores, from the ratings table: 1 (Again) to 4 (Easy)."""
    lowest, highest = min(scheduling.RATINGS.values()), max(scheduling.RATINGS.values())
    return f"{int(lowest)} ({lowest.name}) to {int(highest)} ({highest.name})"


def _json_object(value, where: str) -> str | None:
    """detail and scenario travel as JSON text of an object (or null)."""
    if value in (None, ""):
        return None
    if isinstance(value, str) and len(value) > MAX_OBJECT_CHARS:
        raise ImportRefused(f"{where} is {len(value):,} characters; an export's is at most {MAX_OBJECT_CHARS:,}")
    parsed = _parse(value, where) if isinstance(value, str) else value
    if not isinstance(parsed, dict):
        raise ImportRefused(f"{where} must be a JSON object")
    if depth(parsed, MAX_OBJECT_DEPTH) > MAX_OBJECT_DEPTH:
        raise ImportRefused(f"{where} nests more than {MAX_OBJECT_DEPTH} levels deep; an export's does not")
    bad = unencodable_path(parsed, where)
    if bad:
        raise ImportRefused(f"{bad} is not text: it holds a lone surrogate (an escape such as \\ud800 "
                            "that stands for no character)")
    text = dump_object(parsed)
    if len(text) > MAX_OBJECT_CHARS:
        raise ImportRefused(f"{where} is {len(text):,} characters as JSON; an export's is at most "
                            f"{MAX_OBJECT_CHARS:,}")
    return text


def _time(text, where: str, now: datetime) -> str:
    """Stored as UTC ISO text, the form every query sorts by; a time in the future is refused."""
    try:
        moment = parse_iso(text)
    except (TypeError, ValueError):
        raise ImportRefused(f"{where} is not an ISO 8601 time with a timezone: {text!r}") from None
    if moment > now:
        raise ImportRefused(f"{where} {text!r} is in the future")
    return iso(moment)
