"""A learner's progress as the file "Export my progress" downloads: the learner's row, then each
event and review on a line of its own, so the file is as big as the quota counts (``quota``)."""

from __future__ import annotations

import json

from sqlite_utils import Database

from .. import events, quota, scheduling
from ..db.statements import dicts
from ..learners import get_learner

EXPORT_FORMAT = "quizapp-progress"
EXPORT_VERSION = 1
TABLES = ("events", "review_log")


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
