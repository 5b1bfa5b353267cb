"""A learner's current attempt at each card, one row per (learner, card) kept beside the events.

The events are the record; the ``attempts`` table holds what they say about the attempt in
progress (the events since the card's last grade or reset): the stages revealed, the first
look, the last answer, the follow-up marks. ``events.insert_rows`` applies each event it
stores here in the same transaction, so reading an attempt is one primary-key lookup, however
many events it holds: a client that sent ten thousand reveals costs what one reveal does.

An event older than the row's newest fact (an import, a first look kept in the session), and
a grade or reset, are not applied on top: the card's row is rebuilt from its events instead
(``rebuild``), as the migration that made the table did for every card.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Iterable

from sqlite_utils import Database

from .clock import parse_iso
from .db.stored_json import load_object

# The events that end an attempt; the next event starts a new one.
ENDS = ("grade", "reset")
# The table's columns after its key, as ``_load`` and ``_store`` read and write them.
COLUMNS = ("ended_at", "changed_at", "began_at", "opened_at", "revealed", "answer", "answer_detail", "answer_at",
           "followups")


@dataclass(frozen=True)
class Attempt:
    """A reader's current attempt at a card: what they did since its last grade or reset."""

    revealed: tuple[str, ...] = ()      # stages, in the order they were first revealed
    answer: str | None = ""             # the answer typed last
    feedback: dict | None = None        # that answer's grade, as its event's detail
    followups: dict[str, str] = field(default_factory=dict)  # follow-up stage -> "knew" or "missed"
    opened_at: datetime | None = None   # when the card was first shown in this attempt
    began_at: datetime | None = None    # its first event: an open, or one sent through the API
    after: str = ""                     # the time of the grade or reset that ended the one before

    @property
    def started(self) -> bool:
        """Any event yet in this attempt."""
        return self.began_at is not None

    def elapsed_ms(self, moment: datetime) -> int | None:
        """Milliseconds from opening the card to ``moment``; None when it was not opened in this attempt."""
        return _ms_between(self.opened_at, moment)

    def duration_ms(self, moment: datetime) -> int | None:
        """Milliseconds from the attempt's first event to ``moment`` (a grade's review time)."""
        return _ms_between(self.began_at, moment)


def _ms_between(start: datetime | None, end: datetime) -> int | None:
    return None if start is None else max(0, int((end - start).total_seconds() * 1000))


def current_attempt(db: Database, learner_id: str, card_id: str) -> Attempt:
    """The learner's current attempt at the card: one row, whatever the events it took."""
    state = _load(db, learner_id, card_id)
    if state is None:
        return Attempt()
    answered = state["answer_at"] is not None
    return Attempt(
        revealed=tuple(state["revealed"]),
        answer=state["answer"] if answered else "",
        feedback=load_object(state["answer_detail"]) if answered else None,
        followups={stage: value for stage, (value, _) in state["followups"].items()},
        opened_at=_time(state["opened_at"]),
        began_at=_time(state["began_at"]),
        after=state["ended_at"],
    )


def _time(text: str | None) -> datetime | None:
    return parse_iso(text) if text else None


def apply(db: Database, learner_id: str, rows: Iterable[dict]) -> None:
    """Bring the attempts up to date with events just stored (rows as the events table holds
    them). Call inside the write transaction that stored them."""
    by_card: dict[str, list[dict]] = {}
    for row in rows:
        by_card.setdefault(row["card_id"], []).append(row)
    for card_id, card_rows in by_card.items():
        stored = state = _load(db, learner_id, card_id)
        for row in card_rows:
            # A grade or reset may come before events already stored, which then start the next
            # attempt; an event older than the row's newest fact may come before it. Either way
            # where it falls is for the events to say.
            if row["kind"] in ENDS or (state is not None and row["at"] < state["changed_at"]):
                rebuild(db, learner_id, card_id)
                break
            state = _advanced(state, row)
        else:
            if state != stored:  # a stage revealed again changes nothing: no write
                _store(db, learner_id, card_id, state)


def rebuild(db: Database, learner_id: str, card_id: str) -> None:
    """Derive the card's row from its events alone (oldest first, from its last grade or reset)."""
    ended = db.execute("SELECT MAX(at) FROM events WHERE learner_id = ? AND card_id = ? AND kind IN ('grade', "
                       "'reset')", [learner_id, card_id]).fetchone()[0]
    rows = db.execute("SELECT card_id, kind, stage, value, detail, at FROM events WHERE learner_id = ? AND "
                      "card_id = ? AND at > ? AND kind NOT IN ('grade', 'reset') ORDER BY at",
                      [learner_id, card_id, ended or ""]).fetchall()
    state = _new_state(ended) if ended else None
    for row in rows:
        state = _advanced(state, dict(zip(("card_id", "kind", "stage", "value", "detail", "at"), row)))
    if state is None:
        db.execute("DELETE FROM attempts WHERE learner_id = ? AND card_id = ?", [learner_id, card_id])
    else:
        _store(db, learner_id, card_id, state)


def rebuild_all(db: Database) -> None:
    """Every (learner, card) row from the events: what the migration that made the table does."""
    for learner_id, card_id in db.execute("SELECT DISTINCT learner_id, card_id FROM events").fetchall():
        rebuild(db, learner_id, card_id)


def _new_state(ended_at: str) -> dict:
    """An attempt with no event yet, after the grade or reset at ``ended_at``."""
    return {"ended_at": ended_at, "changed_at": ended_at, "began_at": None, "opened_at": None, "revealed": [],
            "answer": None, "answer_detail": None, "answer_at": None, "followups": {}}


def _advanced(state: dict | None, row: dict) -> dict:
    """The attempt after one more event (not a grade or reset), no older than its newest fact.

    The row holds first times (the attempt's first event, its first open, each stage's first
    reveal), which a later event never changes, and last ones (the answer, each follow-up's
    mark, with their times), which every such event changes. So an event as new as the newest
    fact lands where a replay of all the events would put it, and ``changed_at`` is the time
    of the last event that changed anything.
    """
    at, kind, stage = row["at"], row["kind"], row["stage"]
    state = state or _new_state("")
    if at <= state["ended_at"]:
        return state  # part of an attempt already ended
    new = {**state, "revealed": list(state["revealed"]), "followups": dict(state["followups"])}
    new["began_at"] = new["began_at"] or at
    if kind == "open":
        new["opened_at"] = new["opened_at"] or at
    elif kind == "reveal" and stage and stage not in new["revealed"]:
        new["revealed"].append(stage)
    elif kind == "answer":
        new.update(answer=row["value"], answer_detail=row["detail"], answer_at=at)
    elif kind == "followup" and stage:
        new["followups"][stage] = [row["value"], at]
    if new != state:
        new["changed_at"] = at
    return new


def _load(db: Database, learner_id: str, card_id: str) -> dict | None:
    row = db.execute(f"SELECT {', '.join(COLUMNS)} FROM attempts WHERE learner_id = ? AND card_id = ?",
                     [learner_id, card_id]).fetchone()
    if row is None:
        return None
    state = dict(zip(COLUMNS, row))
    state["revealed"] = json.loads(state["revealed"])
    state["followups"] = json.loads(state["followups"])
    return state


def _store(db: Database, learner_id: str, card_id: str, state: dict) -> None:
    values = {**state, "revealed": json.dumps(state["revealed"]), "followups": json.dumps(state["followups"])}
    db.execute(f"INSERT OR REPLACE INTO attempts (learner_id, card_id, {', '.join(COLUMNS)}) "
               f"VALUES (?, ?, {', '.join('?' for _ in COLUMNS)})",
               [learner_id, card_id, *(values[column] for column in COLUMNS)])
