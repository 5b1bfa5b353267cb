"""Whose turn it is to write: one writer at a time across the server's processes and threads,
each woken within milliseconds of the one before committing.

SQLite's own wait (the busy handler) sleeps 1, 2, 5, 10, 15, 20, 25 … ms between tries, so a
writer that finds the lock taken sleeps on long after it is free: with two gunicorn workers
posting events, each commit holding the lock about 0.1 ms, the CPUs idled 30 % of the time.
Writers queue here instead: the threads of a process on a lock, the processes on an ``flock``
of a file beside the database, tried every 0.5 ms at most (one waiting thread per process:
2,000 tries a second is cheap beside an idle core). Both give up after the timeout with
SQLite's own error, "database is locked", as SQLite would.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
import time
from contextlib import contextmanager

# Reentrant: a writer may open a transaction on another database file.
_threads = threading.RLock()
# The lock file of each database, opened by this process: flock is held by an open file, and
# a file opened before gunicorn forks would be one shared by every worker.
_files: dict[tuple[int, str], int] = {}
_held: dict[str, int] = {}  # how deep this process's writer is in each database's turn
LONGEST_NAP_S = 0.0005


def lock_path(database: str) -> str | None:
    """The lock file beside a database file; None for an in-memory database (one process)."""
    return None if database in ("", ":memory:") or database.startswith("file::memory:") else database + ".writer"


def is_busy(error: sqlite3.OperationalError) -> bool:
    """Whether the error is the write lock staying taken (SQLite's, or ``writer_turn``'s giving
    up), not some other operational error such as a missing table."""
    return getattr(error, "sqlite_errorcode", None) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _busy(why: str) -> sqlite3.OperationalError:
    """SQLite's own error for a lock that stayed taken, with its code, as SQLite raises it."""
    error = sqlite3.OperationalError(f"database is locked ({why})")
    error.sqlite_errorcode, error.sqlite_errorname = sqlite3.SQLITE_BUSY, "SQLITE_BUSY"
    return error


@contextmanager
def writer_turn(database: str, timeout_s: float):
    """Hold the turn to write ``database`` (a path, as connect() got it) for the block."""
    deadline = time.monotonic() + timeout_s
    if not _threads.acquire(timeout=timeout_s):
        raise _busy("another thread of this process kept writing")
    try:
        path = lock_path(database)
        if path is None or _held.get(path):
            yield
            return
        fd = _lock_file(path)
        _take(fd, deadline)
        _held[path] = 1
        try:
            yield
        finally:
            _held.pop(path, None)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        _threads.release()


def _lock_file(path: str) -> int:
    key = (os.getpid(), path)
    if key not in _files:
        _files[key] = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    return _files[key]


def _take(fd: int, deadline: float) -> None:
    nap = 0.0001
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise _busy("another process kept writing") from None
            time.sleep(nap)
            nap = min(nap * 2, LONGEST_NAP_S)
