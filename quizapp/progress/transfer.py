"""A learner's progress as a file: export it, and import (merge) it on another machine.

An import reads the file as a stream (``export_file``) and checks all of it, then reads it again
and writes it in one transaction (all or nothing) through the modules that own each table:
``events.insert_rows``, ``scheduling.log_reviews`` and ``learners``. A profile holds at most
what one export carries (``quota``), so every export imports again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Collection, Mapping
from datetime import datetime, timezone
from io import BytesIO

from sqlite_utils import Database

from ..fields import depth, encodable, unencodable_path
from . import events, quota, scheduling
from .clock import iso, parse_iso
from .db.connection import OPERATIONAL_ERRORS, is_busy, write
from .db.statements import dicts
from .db.stored_json import dump_object
from .export_file import ExportFile, NotAnExport
from .learners import display_name, ensure_learner, get_learner, name_if_unnamed

EXPORT_FORMAT = "quizapp-progress"
EXPORT_VERSION = 1
TABLES = ("events", "review_log")
HEADER_KEYS = {"format", "version", "learner"}
# An import holds no more rows than a profile may: an export always fits.
MAX_IMPORT_ROWS = quota.MAX_PROFILE_ROWS
# Rows parsed and written at once: memory holds one batch of the file's rows, never all of them.
BATCH_ROWS = 1000
# An event's detail and scenario, as the API stores them (events.py), nest a level or two.
MAX_OBJECT_DEPTH = 8
MAX_OBJECT_CHARS = max(events.MAX_DETAIL_CHARS, events.MAX_SCENARIO_CHARS)


def export(db: Database, learner_id: str) -> dict:
    """The learner's row, events and review log, as ``import_progress`` reads them back."""
    learner = get_learner(db, learner_id) or {"id": learner_id, "display_name": None, "created_at": None}
    data = {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "learner": learner}
    # In the order stored: the events by rowid (SQLite's, and a column of that name on PostgreSQL:
    # ``postgres_schema``), the reviews by their id.
    for table, columns, order in (("events", events.EXPORTED, "rowid"), ("review_log", scheduling.EXPORTED, "id")):
        data[table] = dicts(db, f"SELECT {', '.join(columns)} FROM {table} WHERE learner_id = ? ORDER BY {order}",
                            [learner_id])
    return data


class ImportRefused(ValueError):
    """Nothing was imported: the file is not an export this app can merge, or it could not be
    written whole; the message says why."""


def import_progress(db: Database, learner_id: str, data, known_cards: Collection[str] | None = None,
                    renamed: Mapping[str, str] | None = None) -> dict:
    """Merge an export into this learner, all or nothing: events and reviews already here are skipped.

    ``data`` is the export file (a binary file, read as a stream one row at a time whatever its
    JSON layout, so a large file never sits in memory: ``export_file``), its bytes or text, or a
    parsed export. Every row is checked first (its types, text UTF-8 can hold, its detail's
    depth, its times), before anything is written: a bad file imports nothing. With ``known_cards`` (the
    bank's ids), rows of other cards are left out and counted as ``"skipped"``; with ``renamed``
    (the bank's old ids, each to the card that replaces it), the rows of an old id land on its
    successor, before that is decided. The rows are then
    written in one transaction, in batches of ``BATCH_ROWS`` with a pause between them for
    other requests of this process, and each card's schedule is rebuilt once from its merged
    review log, so two machines' reviews of a card end in the state their reviews, in time
    order, lead to. A profile that would be full, or a database that stays busy, rolls the whole
    import back.

    Returns how many events and reviews were new, how many rows the file held (``"read"``) and,
    with ``known_cards``, how many were skipped. Raises ImportRefused.
    """
    source = _source(data)
    renamed = renamed or {}
    name, read, skipped = _checked_file(source, known_cards, renamed)
    counts = {"events": 0, "reviews": 0, "read": read}
    if known_cards is not None:
        counts["skipped"] = skipped
    writers = {"events": ("events", events.insert_rows), "review_log": ("reviews", scheduling.log_reviews)}
    reviewed: set[str] = set()
    now = datetime.now(timezone.utc)
    try:
        with write(db):
            ensure_learner(db, learner_id)
            if name:
                name_if_unnamed(db, learner_id, name)
            for table, batch in _batches(source, now, known_cards, renamed):
                key, writer = writers[table]
                counts[key] += writer(db, learner_id, batch)
                if key == "reviews":
                    reviewed.update(row["card_id"] for row in batch)
                time.sleep(0)  # other requests of this process run between batches (a gevent worker)
            # The schedules of the cards whose reviews are in, each once, from its merged log.
            for card_id in sorted(reviewed):
                scheduling.rebuild(db, learner_id, card_id)
    except quota.ProfileFull as full:
        raise ImportRefused(f"{full.message} (this file would have taken it past that, so none of it was "
                            "written)") from None
    except OPERATIONAL_ERRORS as error:
        if not is_busy(error):  # only the write lock staying taken past the busy timeout is the file's to retry
            raise
        raise ImportRefused(f"the database stayed busy ({error}), so none of the file was written; "
                            "import it again") from None
    return counts


class _Parsed:
    """A parsed export (as ``export`` returns it), read as ``ExportFile`` reads a file."""

    def __init__(self, data):
        self.data, self.problem = data, None

    def items(self):
        if not isinstance(self.data, dict):
            return
        yield from ((key, value) for key, value in self.data.items() if key not in TABLES)
        for table in TABLES:
            rows = self.data.get(table)
            if not isinstance(rows, list):
                self.problem = self.problem or ImportRefused(f"the export's {table!r} must be a list")
                continue
            yield from ((table, row) for row in rows)

    def count(self) -> int:
        tables = [self.data.get(table) for table in TABLES] if isinstance(self.data, dict) else []
        return sum(len(rows) for rows in tables if isinstance(rows, list))


class _Streamed:
    """An export file read as a stream (``export_file``), its errors an ImportRefused."""

    problem = None

    def __init__(self, binary):
        self.file = ExportFile(binary, TABLES)

    def items(self):
        try:
            yield from self.file.items()
        except NotAnExport as error:
            raise ImportRefused(str(error)) from None

    def count(self) -> None:
        return None  # known once every row is read


def _source(data):
    """What ``import_progress`` reads: a binary file, the file's bytes or text, or a parsed export."""
    if isinstance(data, str):
        if not encodable(data):
            raise ImportRefused("the file is not UTF-8 text")
        data = data.encode("utf-8")
    if isinstance(data, (bytes, bytearray)):
        data = BytesIO(data)
    return _Streamed(data) if hasattr(data, "read") else _Parsed(data)


def _checked_file(source, known_cards, renamed: Mapping[str, str]) -> tuple[str | None, int, int]:
    """The learner's name, how many rows the file holds and how many are of unknown cards, after
    checking every row in one pass; raises ImportRefused for the first thing wrong.

    The header is checked as soon as it has been read (before the rows, in an export), so a
    file that is no export says so rather than naming its first odd row."""
    header, name, header_checked, problem = {}, None, False, None
    read = skipped = 0
    indexes = dict.fromkeys(TABLES, 0)
    now = datetime.now(timezone.utc)
    for key, value in source.items():
        if key not in TABLES:
            header[key] = value
            continue
        if not header_checked and HEADER_KEYS <= header.keys():
            name, header_checked = _checked_header(header, source.count()), True
        index, indexes[key] = indexes[key], indexes[key] + 1
        if index % BATCH_ROWS == 0:
            time.sleep(0)  # as between the batches written: other requests of a gevent worker run
        if problem or sum(indexes.values()) > MAX_IMPORT_ROWS:
            continue  # the file is still read to its end: a broken file says so first, and how many rows
        try:
            checked = CHECKS[key](value, f"{key}[{index}]", now)
        except ImportRefused as error:
            problem = error
            continue
        read += 1
        skipped += known_cards is not None and renamed.get(checked["card_id"], checked["card_id"]) not in known_cards
    if not header_checked:
        name = _checked_header(header, source.count())
    rows = sum(indexes.values())
    if rows > MAX_IMPORT_ROWS:
        raise ImportRefused(f"the file holds {rows:,} events and reviews; a profile holds at most "
                            f"{MAX_IMPORT_ROWS:,}")
    if problem or source.problem:
        raise problem or source.problem
    return name, read, skipped


def _checked_header(header: dict, rows: int | None) -> str | None:
    """The learner's name from a header that is this app's export; with the number of rows
    when it is known before they are read, a file of too many is refused at once."""
    if header.get("format") != EXPORT_FORMAT:
        raise ImportRefused(f"not a quizapp progress export (expected \"format\": \"{EXPORT_FORMAT}\")")
    if header.get("version") != EXPORT_VERSION:
        raise ImportRefused(f"export version {header.get('version')!r} is not one this app reads "
                            f"({EXPORT_VERSION})")
    learner = header.get("learner")
    if not isinstance(learner, dict):
        raise ImportRefused("the export has no learner")
    if rows is not None and rows > MAX_IMPORT_ROWS:
        raise ImportRefused(f"the file holds {rows:,} events and reviews; a profile holds at most "
                            f"{MAX_IMPORT_ROWS:,}")
    name = learner.get("display_name")
    return display_name(name) if isinstance(name, str) and encodable(name) else None


def _batches(source, now: datetime, known_cards, renamed: Mapping[str, str]):
    """(table, checked rows of known cards, an old id's under its successor's), BATCH_ROWS at a
    time, in the file's order."""
    batches, indexes = {table: [] for table in TABLES}, dict.fromkeys(TABLES, 0)
    for key, row in source.items():
        if key not in TABLES:
            continue
        checked = CHECKS[key](row, f"{key}[{indexes[key]}]", now)
        indexes[key] += 1
        checked["card_id"] = renamed.get(checked["card_id"], checked["card_id"])
        if known_cards is None or checked["card_id"] in known_cards:
            batches[key].append(checked)
        if len(batches[key]) >= BATCH_ROWS:
            yield key, batches[key]
            batches[key] = []
    for table in TABLES:
        if batches[table]:
            yield table, batches[table]


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


# Each table's rows, checked and put in the form its writer stores.
CHECKS = {"events": _checked_event, "review_log": _checked_review}


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
