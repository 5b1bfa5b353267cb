"""Merge an export into a learner, all or nothing.

The file is read as a stream (``stream``) and every row checked (``rows``), then read again and
written in one transaction through the modules that own each table: ``events.insert_rows``,
``scheduling.log_reviews`` and ``learners``. A profile holds at most what one export carries
(``quota``), so every export imports again.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Mapping
from datetime import datetime, timezone
from io import BytesIO

from sqlite_utils import Database

from ...fields import encodable
from .. import events, quota, scheduling
from ..db.connection import OPERATIONAL_ERRORS, is_busy, write
from ..learners import display_name, ensure_learner, name_if_unnamed
from .export import EXPORT_FORMAT, EXPORT_VERSION, TABLES
from .rows import CHECKS, ImportRefused
from .stream import ExportFile, NotAnExport

HEADER_KEYS = {"format", "version", "learner"}
# An import holds no more rows than a profile may: an export always fits.
MAX_IMPORT_ROWS = quota.MAX_PROFILE_ROWS
# Rows parsed and written at once: memory holds one batch of the file's rows, never all of them.
BATCH_ROWS = 1000


def import_progress(db: Database, learner_id: str, data, known_cards: Collection[str] | None = None,
                    renamed: Mapping[str, str] | None = None) -> dict:
    """Merge an export into this learner, all or nothing: events and reviews already here are skipped.

    ``data`` is the export file (a binary file, read as a stream one row at a time whatever its
    JSON layout, so a large file never sits in memory: ``stream``), its bytes or text, or a
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
    """An export file read as a stream (``stream``), its errors an ImportRefused."""

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
    _refuse_too_many(sum(indexes.values()))
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
    if rows is not None:
        _refuse_too_many(rows)
    name = learner.get("display_name")
    return display_name(name) if isinstance(name, str) and encodable(name) else None


def _refuse_too_many(rows: int) -> None:
    if rows > MAX_IMPORT_ROWS:
        raise ImportRefused(f"the file holds {rows:,} events and reviews; a profile holds at most "
                            f"{MAX_IMPORT_ROWS:,}")


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
