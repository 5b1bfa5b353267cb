"""PostgreSQL behind the same storage functions, through psycopg 3: the connection, its
statements and its write transactions. What differs from SQLite lives here and in
``postgres_schema`` (the tables); ``connection`` picks one or the other by the database's name,
and no module outside ``progress/db`` knows which is in use.

The storage modules write SQL both databases run (``statements``), with SQLite's ``?``
placeholders: ``execute`` turns them into psycopg's ``%s``. A connection is in autocommit, so a
read outside ``write`` is its own statement and holds no snapshot open; ``write`` is one
transaction. There is no writer turn here (``writer_turn`` queues SQLite's single writer):
PostgreSQL runs writers side by side, and the writers that read a row before changing it lock
that row first (``lock``), so two app servers never interleave one learner's or one
interview's read-then-write.
"""

from __future__ import annotations

import functools
from contextlib import contextmanager

import psycopg
from psycopg import errors

OperationalError = psycopg.OperationalError
SCHEMES = ("postgresql://", "postgres://")
# As SQLite's busy timeout: a write that waits this long for a row lock gives up.
LOCK_TIMEOUT_MS = 15_000


def is_url(location) -> bool:
    return isinstance(location, str) and location.startswith(SCHEMES)


class _Connection(psycopg.Connection):
    """psycopg's connection, with sqlite3's ``in_transaction`` (code that holds a connection of
    either kind may ask it, and ``rollback()``/``close()``, the same way)."""

    @property
    def in_transaction(self) -> bool:
        return self.info.transaction_status != psycopg.pq.TransactionStatus.IDLE


class PostgresDatabase:
    """One connection, with the small part of sqlite-utils' ``Database`` the storage modules use:
    ``execute(sql, params)`` returning a cursor (``fetchone``, ``fetchall``, ``rowcount``,
    ``description``) and ``conn``."""

    dialect = "postgresql"

    def __init__(self, url: str):
        self.url = url
        self.conn = _Connection.connect(url, autocommit=True)
        self.conn.execute(f"SET lock_timeout = {LOCK_TIMEOUT_MS}")
        self.conn.execute("SET TIME ZONE 'UTC'")

    def execute(self, sql: str, params=None):
        return self.conn.execute(placeholders(sql), [_storable(p) for p in params] if params is not None else [])

    @property
    def in_transaction(self) -> bool:
        return self.conn.in_transaction

    def table_names(self) -> list[str]:
        return [row[0] for row in self.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")]


def _storable(value):
    """PostgreSQL's text holds no NUL character (SQLite's does): one sent in a scratch box or a
    note is stored as U+FFFD, the character that stands for one that cannot be shown."""
    return value.replace("\x00", "\ufffd") if isinstance(value, str) and "\x00" in value else value


@functools.lru_cache(maxsize=512)
def placeholders(sql: str) -> str:
    """SQLite's ``?`` as psycopg's ``%s``, and a literal ``%`` doubled; quoted text is left as it is."""
    out, quoted = [], False
    for char in sql:
        if char == "'":
            quoted = not quoted
        if char == "%":
            out.append("%%")
        elif char == "?" and not quoted:
            out.append("%s")
        else:
            out.append(char)
    return "".join(out)


def connect(url: str) -> PostgresDatabase:
    return PostgresDatabase(url)


@contextmanager
def write(db: PostgresDatabase):
    """One transaction. A failure inside rolls it back; PostgreSQL's own locks order the writers."""
    with db.conn.transaction():
        yield db


def lock(db: PostgresDatabase, table: str, key: str) -> None:
    """Inside a write: hold the row ``table.id = key`` until the transaction ends, so a writer
    that reads it (a learner's attempt and schedule, an interview's state) and then writes sees
    every write committed before and none that runs beside it."""
    db.execute(f"SELECT 1 FROM {table} WHERE id = ? FOR UPDATE", [key])


def is_busy(error: BaseException) -> bool:
    """A row lock that stayed taken past ``LOCK_TIMEOUT_MS`` (SQLite's "database is locked")."""
    return isinstance(error, errors.LockNotAvailable)


def close(db: PostgresDatabase) -> None:
    db.conn.close()


def rollback(db: PostgresDatabase) -> None:
    if db.in_transaction:
        db.conn.rollback()
