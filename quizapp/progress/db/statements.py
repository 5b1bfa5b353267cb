"""Statements every storage module writes the same way on both databases: a row inserted, a row
inserted or replaced on its key, and rows read as dicts.

The SQL here (and in the storage modules) is what SQLite and PostgreSQL both run:
``INSERT ... ON CONFLICT`` (SQLite 3.24+), ``RETURNING`` (SQLite 3.35+) and ``?`` placeholders,
which the PostgreSQL connection turns into its own (``postgres``). Table and column names come
from the code, never from a request.
"""

from __future__ import annotations

from typing import Iterable, Sequence


def insert(db, table: str, row: dict, ignore_existing: bool = False) -> int:
    """Insert one row; with ``ignore_existing`` a row whose key is taken is skipped. Returns
    how many rows were added (0 or 1)."""
    columns = list(row)
    conflict = " ON CONFLICT DO NOTHING" if ignore_existing else ""
    return db.execute(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})"
                      f"{conflict}", [row[c] for c in columns]).rowcount


def insert_all(db, table: str, rows: Iterable[dict]) -> None:
    for row in rows:
        insert(db, table, row)


def upsert(db, table: str, row: dict, key: Sequence[str]) -> None:
    """Insert the row, or replace the other columns of the row already under ``key``."""
    columns = list(row)
    updates = ", ".join(f"{c} = excluded.{c}" for c in columns if c not in key)
    db.execute(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)}) "
               f"ON CONFLICT ({', '.join(key)}) DO UPDATE SET {updates}", [row[c] for c in columns])


def dicts(db, sql: str, params: Sequence = ()) -> list[dict]:
    """The rows of a query, each a dict by column name."""
    cursor = db.execute(sql, list(params))
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


# Rows per INSERT of ``insert_new``: a round trip each on PostgreSQL (a statement per row cost an
# import of 1,000 reviews a second there), well under SQLite's 32,766 parameters.
ROWS_PER_INSERT = 200


def insert_new(db, table: str, rows: list[dict], key: str) -> list[dict]:
    """Insert rows, skipping any whose key (a unique index) is stored already or came earlier
    in ``rows``. Returns the rows added, in their order. The rows share their columns, and
    ``key`` is one of them, unique among the table's rows that could conflict (the caller's)."""
    added: list[dict] = []
    if not rows:
        return added
    columns = list(rows[0])
    for start in range(0, len(rows), ROWS_PER_INSERT):
        chunk = rows[start:start + ROWS_PER_INSERT]
        row_marks = "(" + ", ".join("?" for _ in columns) + ")"
        stored = {r[0] for r in db.execute(
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES {', '.join(row_marks for _ in chunk)} "
            f"ON CONFLICT DO NOTHING RETURNING {key}", [row[c] for row in chunk for c in columns]).fetchall()}
        for row in chunk:  # the first row of each key stored is the one added
            if row[key] in stored:
                stored.discard(row[key])
                added.append(row)
    return added
