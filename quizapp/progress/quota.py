"""How much one profile may hold: no more than one export file carries, so every export imports again.

An export writes each event and each review as one line of compact JSON (``transfer.export.dumps``).
Each profile's rows, and their bytes in that form, are counted as they are stored
(``learners.stored_rows`` and ``stored_bytes``, kept by the two writers: ``events.insert_rows``
and ``scheduling.log_reviews``). A write that would pass either limit is refused, and the
transaction it is in rolls back: one profile cannot fill the disk, and its export never
exceeds what an import accepts.
"""

from __future__ import annotations

import json

from sqlite_utils import Database

# The largest export, and so the least an import must accept (the app's MAX_IMPORT_BYTES).
MAX_EXPORT_BYTES = 20 * 1024 * 1024
# The export's lines around the rows: its format, version and the learner's row (a name of
# at most 80 characters), with room to spare.
HEADER_BYTES = 64 * 1024
MAX_PROFILE_BYTES = MAX_EXPORT_BYTES - HEADER_BYTES
# Events and reviews together. An import replays each card's reviews in one transaction, so
# this also bounds how long that holds the write lock (about a second at the limit).
MAX_PROFILE_ROWS = 100_000


class ProfileFull(ValueError):
    """The profile holds as much as one export file can carry. A 413 naming no field."""

    status = 413
    field = None

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def to_json(self) -> dict:
        return {"error": self.message, "field": self.field}


def row_line(row: dict) -> str:
    """One event or review as the export writes it: compact JSON on its own line."""
    return json.dumps(row, ensure_ascii=False, separators=(",", ":"))


def row_bytes(row: dict) -> int:
    """The bytes a row takes in an export: its line, the comma and the newline."""
    return len(row_line(row).encode("utf-8")) + 2


def usage(db: Database, learner_id: str) -> tuple[int, int]:
    """(rows, bytes) the learner holds now."""
    row = db.execute("SELECT stored_rows, stored_bytes FROM learners WHERE id = ?", [learner_id]).fetchone()
    return (row[0], row[1]) if row else (0, 0)


def count_stored(db: Database, learner_id: str, rows: int, size: int) -> None:
    """Count rows just stored for the learner. Raises ProfileFull when the profile now holds more
    than a limit: the caller's write transaction then rolls back, rows and count together.
    Call inside a write transaction, after the learner's row exists."""
    if not rows:
        return
    # fetchall, not fetchone: the statement must finish before the transaction commits.
    updated = db.execute("UPDATE learners SET stored_rows = stored_rows + ?, stored_bytes = stored_bytes + ? "
                         "WHERE id = ? RETURNING stored_rows, stored_bytes", [rows, size, learner_id]).fetchall()
    held_rows, held_bytes = updated[0] if updated else (0, 0)
    if held_rows > MAX_PROFILE_ROWS or held_bytes > MAX_PROFILE_BYTES:
        raise ProfileFull(f"this profile is full: it holds {MAX_PROFILE_ROWS:,} events and reviews or "
                          f"{MAX_PROFILE_BYTES // 2**20} MB of them, the most one export file carries; export it, "
                          "then start a new profile")
