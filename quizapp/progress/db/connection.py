"""Open the database: a SQLite file (the embedded default) or a PostgreSQL URL, migrations
applied, short write transactions. The one place that tells the two apart: every storage module
calls ``connect``, ``write``, ``lock``, ``close`` and ``is_busy`` here and runs the same SQL on
either (``statements``; PostgreSQL's side: ``postgres`` and ``postgres_schema``).
(How JSON columns are stored: ``stored_json``.)"""

from __future__ import annotations

import re
import sqlite3
from contextlib import contextmanager
from pathlib import Path

from sqlite_utils import Database

from . import postgres
from .migrations import migrations
from .writer_turn import is_busy as sqlite_busy
from .writer_turn import writer_turn

BUSY_TIMEOUT_MS = 15_000
# What a write that gave up waiting raises, on either database (``is_busy`` tells it from the rest).
OPERATIONAL_ERRORS = (sqlite3.OperationalError, postgres.OperationalError)


def is_postgres(location) -> bool:
    """Whether a DATABASE setting names a PostgreSQL database (postgresql://…) rather than a SQLite file."""
    return postgres.is_url(str(location))


def shown_database(location) -> str:
    """The database as a log line may name it: a URL without its password."""
    text = str(location)
    return re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", text) if is_postgres(text) else text


def connect(location: str | Path, migrate: bool = True):
    """A connection for one request or one command: to a SQLite file, or to PostgreSQL when
    ``location`` is a ``postgresql://`` URL."""
    if is_postgres(location):
        db = postgres.connect(str(location))
        if migrate:
            from .postgres_schema import apply
            apply(db)
        return db
    return _connect_sqlite(location, migrate)


def _connect_sqlite(path: str | Path, migrate: bool) -> Database:
    """WAL lets readers run beside the one writer."""
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
    db = Database(conn)
    db.database_path = str(path)  # whose turn to write is kept per database file (``writer_turn``)
    db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        db.execute("PRAGMA journal_mode = WAL")
    # NORMAL in WAL mode: a committed transaction survives a killed process (only an OS crash
    # can lose the last ones), and commits do not wait for an fsync each.
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("PRAGMA foreign_keys = ON")
    if migrate:
        migrations.apply(db)
    return db


@contextmanager
def write(db):
    """A short write transaction.

    On SQLite it takes the write lock up front: BEGIN IMMEDIATE waits (up to the busy timeout)
    for the lock instead of failing with "database is locked" when a read transaction later
    tries to write. Writers of every process and thread take turns first (``writer_turn``), so
    BEGIN IMMEDIATE rarely waits. On PostgreSQL writers run side by side (``postgres.write``).
    """
    if isinstance(db, postgres.PostgresDatabase):
        with postgres.write(db):
            yield db
        return
    with writer_turn(getattr(db, "database_path", ""), BUSY_TIMEOUT_MS / 1000):
        db.conn.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.conn.rollback()
            raise
        else:
            db.conn.execute("COMMIT")


def lock(db, table: str, key: str) -> None:
    """Inside a write, before reading what it will change: the row ``table.id = key`` is this
    writer's until it commits. SQLite has one writer at a time already; PostgreSQL locks the row."""
    if isinstance(db, postgres.PostgresDatabase):
        postgres.lock(db, table, key)


def is_busy(error: BaseException) -> bool:
    """Whether the error is a write that waited past the timeout for another writer (SQLite's
    "database is locked", PostgreSQL's lock timeout), not some other error such as a missing table."""
    if isinstance(error, sqlite3.OperationalError):
        return sqlite_busy(error)
    return postgres.is_busy(error)


def close(db) -> None:
    db.conn.close()


def rollback(db) -> None:
    """Leave the connection outside any transaction (a request that failed mid-write)."""
    if isinstance(db, postgres.PostgresDatabase):
        postgres.rollback(db)
    elif db.conn.in_transaction:
        db.conn.rollback()
