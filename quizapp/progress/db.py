"""Open the SQLite database: WAL, a busy timeout, migrations applied, short write transactions.
(How JSON columns are stored: ``stored_json``.)"""

from __future__ import annotations

import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path

from sqlite_utils import Database

from .migrations import migrations

BUSY_TIMEOUT_MS = 15_000
# One writer at a time among this process's threads. A thread that finds SQLite's write lock
# taken sleeps in the busy handler (1, 2, 5, 10 ms ... between tries) long after the lock is
# free again; waiting here instead wakes the next writer the moment the one before commits.
# Reentrant: a writer may open a transaction on another database file.
_writers = threading.RLock()


def connect(path: str | Path, migrate: bool = True) -> Database:
    """A connection for one request or one command. WAL lets readers run beside the one writer."""
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
    db = Database(conn)
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
    "database is locked" when a read transaction later tries to write. Threads of one process
    queue for it in turn (``_writers``); other processes through the busy timeout.
    """
    if not _writers.acquire(timeout=BUSY_TIMEOUT_MS / 1000):
        raise sqlite3.OperationalError("database is locked (another thread of this process kept writing)")
    try:
        db.conn.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.conn.rollback()
            raise
        else:
            db.conn.execute("COMMIT")
    finally:
        _writers.release()

