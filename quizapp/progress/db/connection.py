"""Open the SQLite database: WAL, a busy timeout, migrations applied, short write transactions.
(How JSON columns are stored: ``stored_json``.)"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from pathlib import Path

from sqlite_utils import Database

from .migrations import migrations
from .writer_turn import writer_turn

BUSY_TIMEOUT_MS = 15_000


def connect(path: str | Path, migrate: bool = True) -> Database:
    """A connection for one request or one command. WAL lets readers run beside the one writer."""
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
def write(db: Database):
    """A short write transaction that takes the write lock up front.

    BEGIN IMMEDIATE waits (up to the busy timeout) for the lock instead of failing with
    "database is locked" when a read transaction later tries to write. Writers of every
    process and thread take turns first (``writer_turn``), so BEGIN IMMEDIATE rarely waits.
    """
    with writer_turn(getattr(db, "database_path", ""), BUSY_TIMEOUT_MS / 1000):
        db.conn.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.conn.rollback()
            raise
        else:
            db.conn.execute("COMMIT")
