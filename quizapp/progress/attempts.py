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
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Iterable

from sqlite_utils import Database

from .clock import parse_iso
from .db.statements import upsert
from .db.stored_json import load_object

# The events that end an attempt; the next event starts a new one.
ENDS = ("grade", "reset")


@dataclass(frozen=True)
class Attempt:
    """A reader's current attempt at a card (what they did since its last grade or reset), as
    its row in the attempts table holds it: one field per column after the key, times as the
    events store them (ISO text).

    The first times (``began_at``, ``opened_at``, the order of ``revealed``) never change once
    set; the last facts (the answer, each follow-up's mark) change with every such event, and
    carry their time so that a repeat of the same fact still moves ``changed_at``.
    """

    ended_at: str = ""                   # when the attempt before ended (its grade or reset); "" if none
    changed_at: str = ""                 # the time of the last event that changed anything here
    began_at: str | None = None          # its first event: an open, or one sent through the API
    opened_at: str | None = None         # when the card was first shown in this attempt
    revealed: tuple[str, ...] = ()       # stages, in the order they were first revealed
    answer: str | None = None            # the answer typed last
    answer_detail: str | None = None     # that answer's grade: its event's detail, as stored JSON
    answer_at: str | None = None
    followups: dict[str, tuple[str, str]] = field(default_factory=dict)  # stage -> ("knew" | "missed", at)

    @property
    def started(self) -> bool:
        """Any event yet in this attempt."""
        return self.began_at is not None

    @property
    def feedback(self) -> dict | None:
        """The last answer's grade, as its event's detail; None before an answer."""
        return load_object(self.answer_detail) if self.answer_at is not None else None

    @property
    def marks(self) -> dict[str, str]:
        """Each follow-up's last mark: stage -> "knew" or "missed"."""
        return {stage: mark for stage, (mark, _) in self.followups.items()}

    def elapsed_ms(self, moment: datetime) -> int | None:
        """Milliseconds from opening the card to ``moment``; None when it was not opened in this attempt."""
        return _ms_between(self.opened_at, moment)

    def duration_ms(self, moment: datetime) -> int | None:
        """Milliseconds from the attempt's first event to ``moment`` (a grade's review time)."""
        return _ms_between(self.began_at, moment)

    def advanced(self, event: dict) -> Attempt:
        """The attempt after one more event (a row as the events table holds it; not a grade or
        reset), no older than its newest fact.

        An event as new as the newest fact lands where a replay of all the events would put it,
        and ``changed_at`` becomes the time of the last event that changed anything.
        """
        at, kind, stage = event["at"], event["kind"], event["stage"]
        if at <= self.ended_at:
            return self  # part of an attempt already ended
        began_at, opened_at, revealed, followups = self.began_at or at, self.opened_at, self.revealed, self.followups
        answer = (self.answer, self.answer_detail, self.answer_at)
        if kind == "open":
            opened_at = opened_at or at
        elif kind == "reveal" and stage and stage not in revealed:
            revealed = (*revealed, stage)
        elif kind == "answer":
            answer = (event["value"], event["detail"], at)
        elif kind == "followup" and stage and followups.get(stage) != (event["value"], at):
            followups = {**followups, stage: (event["value"], at)}
        if (began_at, opened_at, revealed, answer, followups) == (
                self.began_at, self.opened_at, self.revealed, (self.answer, self.answer_detail, self.answer_at),
                self.followups):
            return self
        return Attempt(self.ended_at, at, began_at, opened_at, revealed, *answer, followups)


# The table's columns after its key, in the order of Attempt's fields.
COLUMNS = tuple(f.name for f in fields(Attempt))


def _ms_between(start: str | None, end: datetime) -> int | None:
    return None if start is None else max(0, int((end - parse_iso(start)).total_seconds() * 1000))


def current_attempt(db: Database, learner_id: str, card_id: str) -> Attempt:
    """The learner's current attempt at the card: one row, whatever the events it took."""
    return _load(db, learner_id, card_id) or Attempt()


def apply(db: Database, learner_id: str, rows: Iterable[dict]) -> None:
    """Bring the attempts up to date with events just stored (rows as the events table holds
    them). Call inside the write transaction that stored them."""
    by_card: dict[str, list[dict]] = {}
    for row in rows:
        by_card.setdefault(row["card_id"], []).append(row)
    for card_id, card_rows in by_card.items():
        stored = attempt = _load(db, learner_id, card_id)
        for row in card_rows:
            # A grade or reset may come before events already stored, which then start the next
            # attempt; an event older than the row's newest fact may come before it. Either way
            # where it falls is for the events to say.
            if row["kind"] in ENDS or (attempt is not None and row["at"] < attempt.changed_at):
                rebuild(db, learner_id, card_id)
                break
            attempt = (attempt or Attempt()).advanced(row)
        else:
            if attempt != stored:  # a stage revealed again changes nothing: no write
                _store(db, learner_id, card_id, attempt)


def rebuild(db: Database, learner_id: str, card_id: str) -> None:
    """Derive the card's row from its events alone (oldest first, from its last grade or reset)."""
    ended = db.execute("SELECT MAX(at) FROM events WHERE learner_id = ? AND card_id = ? AND kind IN ('grade', "
                       "'reset')", [learner_id, card_id]).fetchone()[0]
    rows = db.execute("SELECT card_id, kind, stage, value, detail, at FROM events WHERE learner_id = ? AND "
                      "card_id = ? AND at > ? AND kind NOT IN ('grade', 'reset') ORDER BY at",
                      [learner_id, card_id, ended or ""]).fetchall()
    attempt = Attempt(ended_at=ended, changed_at=ended) if ended else None
    for row in rows:
        attempt = (attempt or Attempt()).advanced(dict(zip(("card_id", "kind", "stage", "value", "detail", "at"), row)))
    if attempt is None:
        db.execute("DELETE FROM attempts WHERE learner_id = ? AND card_id = ?", [learner_id, card_id])
    else:
        _store(db, learner_id, card_id, attempt)


def rebuild_all(db: Database) -> None:
    """Every (learner, card) row from the events: what the migration that made the table does."""
    for learner_id, card_id in db.execute("SELECT DISTINCT learner_id, card_id FROM events").fetchall():
        rebuild(db, learner_id, card_id)


def _load(db: Database, learner_id: str, card_id: str) -> Attempt | None:
    row = db.execute(f"SELECT {', '.join(COLUMNS)} FROM attempts WHERE learner_id = ? AND card_id = ?",
                     [learner_id, card_id]).fetchone()
    if row is None:
        return None
    stored = dict(zip(COLUMNS, row))
    return Attempt(**{**stored, "revealed": tuple(json.loads(stored["revealed"])),
                      "followups": {stage: tuple(mark) for stage, mark in json.loads(stored["followups"]).items()}})


def _store(db: Database, learner_id: str, card_id: str, attempt: Attempt) -> None:
    values = {**{name: getattr(attempt, name) for name in COLUMNS}, "revealed": json.dumps(list(attempt.revealed)),
              "followups": json.dumps({stage: list(mark) for stage, mark in attempt.followups.items()})}
    upsert(db, "attempts", {"learner_id": learner_id, "card_id": card_id, **values}, ("learner_id", "card_id"))
