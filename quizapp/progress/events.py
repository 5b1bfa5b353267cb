"""What a learner did: events with client-made ids, stored exactly once.

An event is a reveal, a typed answer, a self-grade … A grade also reviews the card with
FSRS, in the same transaction, so a retried grade never schedules a card twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Iterable

from sqlite_utils import Database

from ..calc import FieldError
from . import quota, scheduling
from .clock import iso, now_utc, parse_iso
from .db import dump_object, load_object, write
from .learners import ensure_learner

KINDS = ("open", "reveal", "answer", "grade", "followup", "reset")
EVENT_ID = re.compile(r"^[A-Za-z0-9_.:-]{8,100}$")
FOLLOWUP_VALUES = ("knew", "missed")
MAX_TEXT = 5000
# An event's scenario is a few calculator inputs, its detail a verdict or a time: as JSON text,
# each at most this long (an event once carried a 15 MB scenario).
MAX_SCENARIO_CHARS = 4000
MAX_DETAIL_CHARS = 16000


class EventError(FieldError):
    """An event the store refuses, naming the field at fault."""


class EventConflict(EventError):
    """The event_id is already stored for another event: a retry must repeat the same event."""

    status = 409


@dataclass(frozen=True)
class Event:
    event_id: str
    card_id: str
    kind: str
    stage: str | None = None
    value: str | None = None
    detail: dict | None = None
    scenario: dict | None = None
    at: str | None = None  # set by the server unless imported


def parse_event(data) -> Event:
    """Validate an event as the API receives it; errors name the field."""
    if not isinstance(data, dict):
        raise EventError("an event must be a JSON object", None)
    event_id = data.get("event_id")
    if not isinstance(event_id, str) or not EVENT_ID.fullmatch(event_id):
        raise EventError("event_id must be 8 to 100 letters, digits, '-', '_', '.' or ':' (a UUID is ideal)",
                         "event_id")
    card_id = data.get("card_id")
    if not isinstance(card_id, str) or not card_id.strip() or len(card_id) > 100:
        raise EventError("card_id must name a card", "card_id")
    kind = data.get("kind")
    if kind not in KINDS:
        raise EventError(f"kind must be one of {', '.join(KINDS)}", "kind")
    stage = data.get("stage")
    if stage is not None and (not isinstance(stage, str) or len(stage) > 40):
        raise EventError("stage must be a stage name such as short or followup-1", "stage")
    value = data.get("value")
    if value is not None:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise EventError("value must be text or a number", "value")
        value = str(value)
        if len(value) > MAX_TEXT:
            raise EventError(f"value is longer than {MAX_TEXT} characters", "value")
    if kind == "reveal" and not stage:
        raise EventError("a reveal names its stage", "stage")
    if kind == "grade" and scheduling.rating(value) is None:
        raise EventError(f"a grade's value is one of {', '.join(scheduling.RATINGS)}", "value")
    if kind == "followup" and (not stage or value not in FOLLOWUP_VALUES):
        raise EventError("a follow-up event names its stage and a value of knew or missed", "value")
    scenario = data.get("scenario")
    if scenario is not None and not isinstance(scenario, dict):
        raise EventError("scenario must be an object of calculator inputs", "scenario")
    _check_size(scenario, "scenario", MAX_SCENARIO_CHARS)
    detail = data.get("detail")
    if detail is not None and not isinstance(detail, dict):
        raise EventError("detail must be an object", "detail")
    if detail and not all(isinstance(v, (str, int, float, bool, type(None))) for v in detail.values()):
        raise EventError("detail's values must be text, numbers, true/false or null", "detail")
    _check_size(detail, "detail", MAX_DETAIL_CHARS)
    return Event(event_id, card_id.strip(), kind, stage, value, detail, scenario)


def _check_size(value: dict | None, name: str, limit: int) -> None:
    size = len(dump_object(value) or "")
    if size > limit:
        raise EventError(f"{name} is {size:,} characters as JSON; at most {limit:,}", name)


def record(db: Database, learner_id: str, event: Event, at: datetime | None = None) -> bool:
    """Store the event once. Returns True when it is new, False when it was already stored."""
    with write(db):
        # Timed under the write lock: concurrent grades of a card are then reviewed in the
        # order of their times, so the state equals a replay of the review log.
        moment = at or now_utc()
        ensure_learner(db, learner_id, moment)
        # Measured before the grade is stored: the grade closes the attempt it measures.
        duration = _attempt_duration_ms(db, learner_id, event.card_id, moment) if event.kind == "grade" else None
        row = {"event_id": event.event_id, "card_id": event.card_id, "kind": event.kind, "stage": event.stage,
               "value": event.value, "detail": dump_object(event.detail), "scenario": dump_object(event.scenario),
               "at": event.at or iso(moment)}
        created = insert_rows(db, learner_id, [row]) == 1
        if not created:
            _check_same_event(db, learner_id, event)
        if created and event.kind == "grade":
            variant = (event.detail or {}).get("variant")
            scheduling.review(db, learner_id, event.card_id, scheduling.rating(event.value), moment, duration,
                              event.event_id, variant if isinstance(variant, int) else None)
    return created


def _check_same_event(db: Database, learner_id: str, event: Event) -> None:
    """A retry repeats its event exactly: every field the client sent, detail and scenario too."""
    stored = db.execute("SELECT card_id, kind, stage, value, detail, scenario FROM events "
                        "WHERE learner_id = ? AND event_id = ?", [learner_id, event.event_id]).fetchone()
    sent = (event.card_id, event.kind, event.stage, event.value, dump_object(event.detail),
            dump_object(event.scenario))
    if stored and tuple(stored) != sent:
        raise EventConflict(f"event_id {event.event_id!r} is already stored for a different event "
                            f"({stored[1]} on {stored[0]}); give each event its own id", "event_id")


def is_stored(db: Database, learner_id: str, event_id: str) -> bool:
    """Whether the learner has an event with this id: a form submitted again."""
    return db.execute("SELECT 1 FROM events WHERE learner_id = ? AND event_id = ?",
                      [learner_id, event_id]).fetchone() is not None


def insert_rows(db: Database, learner_id: str, rows: Iterable[dict]) -> int:
    """Store rows as the events table holds them (detail and scenario as JSON text), skipping any
    whose event_id this learner has stored already. Returns how many were added.

    Rows only: a grade stored here schedules nothing (``record`` does that). Counted against the
    profile's quota (raises ``quota.ProfileFull`` past it). Call inside a write transaction.
    """
    added = size = 0
    for row in rows:
        cursor = db.execute(
            "INSERT OR IGNORE INTO events (event_id, learner_id, card_id, kind, stage, value, detail, scenario, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [row["event_id"], learner_id, row["card_id"], row["kind"], row["stage"], row["value"], row["detail"],
             row["scenario"], row["at"]])
        if cursor.rowcount:
            added += 1
            size += quota.row_bytes({key: row[key] for key in EXPORTED})
    quota.count_stored(db, learner_id, added, size)
    return added


# An event as the export writes it (and the quota counts it).
EXPORTED = ("event_id", "card_id", "kind", "stage", "value", "detail", "scenario", "at")


def attempt_start(db: Database, learner_id: str, card_id: str) -> str:
    """The time the current attempt began: after the last grade or reset of the card."""
    row = db.execute(
        "SELECT MAX(at) FROM events WHERE learner_id = ? AND card_id = ? AND kind IN ('grade', 'reset')",
        [learner_id, card_id]).fetchone()
    return row[0] or ""


def attempt_events(db: Database, learner_id: str, card_id: str) -> list[dict]:
    """The events of the current attempt, oldest first."""
    since = attempt_start(db, learner_id, card_id)
    rows = db.execute(
        "SELECT event_id, kind, stage, value, detail, scenario, at FROM events "
        "WHERE learner_id = ? AND card_id = ? AND at > ? AND kind NOT IN ('grade', 'reset') ORDER BY at",
        [learner_id, card_id, since]).fetchall()
    keys = ("event_id", "kind", "stage", "value", "detail", "scenario", "at")
    events = [dict(zip(keys, row)) for row in rows]
    for event in events:
        event["detail"] = load_object(event["detail"])
        event["scenario"] = load_object(event["scenario"])
    return events


@dataclass(frozen=True)
class Attempt:
    """A reader's current attempt at a card: what they did since its last grade or reset."""

    revealed: tuple[str, ...] = ()      # stages, in the order they were first revealed
    answer: str | None = ""             # the answer typed last
    feedback: dict | None = None        # that answer's grade, as its event's detail
    followups: dict[str, str] = field(default_factory=dict)  # follow-up stage -> "knew" or "missed"
    opened_at: datetime | None = None   # when the card was first shown in this attempt
    started: bool = False               # any event yet: an open, or one sent through the API

    def elapsed_ms(self, moment: datetime) -> int | None:
        """Milliseconds from opening the card to ``moment``; None when it was not opened in this attempt."""
        if self.opened_at is None:
            return None
        return max(0, int((moment - self.opened_at).total_seconds() * 1000))


def current_attempt(db: Database, learner_id: str, card_id: str) -> Attempt:
    """The learner's current attempt at the card, read from its events.

    Each part is one aggregate query, so the cost does not grow with the attempt's events (a
    reader who revealed a stage ten thousand times costs what one who revealed it once does).
    """
    since = attempt_start(db, learner_id, card_id)
    where = "learner_id = ? AND card_id = ? AND at > ? AND kind = ?"

    def rows(select: str, kind: str, tail: str = "") -> list:
        return db.execute(f"SELECT {select} FROM events WHERE {where} {tail}",
                          [learner_id, card_id, since, kind]).fetchall()

    revealed = rows("stage, MIN(at) AS first", "reveal", "GROUP BY stage ORDER BY first")
    answer = rows("value, detail", "answer", "ORDER BY at DESC LIMIT 1")
    # SQLite gives the bare columns of the row that holds MAX(at): each follow-up's last mark.
    followups = rows("stage, value, MAX(at)", "followup", "GROUP BY stage")
    opened = rows("MIN(at)", "open")[0][0]
    started = db.execute("SELECT 1 FROM events WHERE learner_id = ? AND card_id = ? AND at > ? AND "
                         "kind NOT IN ('grade', 'reset') LIMIT 1", [learner_id, card_id, since]).fetchone()
    return Attempt(
        revealed=tuple(stage for stage, _ in revealed),
        answer=answer[0][0] if answer else "",
        feedback=load_object(answer[0][1]) if answer else None,
        followups={stage: value for stage, value, _ in followups},
        opened_at=parse_iso(opened) if opened else None,
        started=started is not None,
    )


def _attempt_duration_ms(db: Database, learner_id: str, card_id: str, moment: datetime) -> int | None:
    since = attempt_start(db, learner_id, card_id)
    row = db.execute("SELECT MIN(at) FROM events WHERE learner_id = ? AND card_id = ? AND at > ? AND "
                     "kind != 'grade'", [learner_id, card_id, since]).fetchone()
    if not row or not row[0]:
        return None
    started = parse_iso(row[0])
    return max(0, int((moment - started).total_seconds() * 1000))


def history(db: Database, learner_id: str, card_id: str | None = None, limit: int = 200) -> list[dict]:
    """Events, newest first, for the dashboard and the card page."""
    where, params = "learner_id = ?", [learner_id]
    if card_id:
        where += " AND card_id = ?"
        params.append(card_id)
    rows = db.execute(f"SELECT card_id, kind, stage, value, detail, at FROM events WHERE {where} "
                      "ORDER BY at DESC LIMIT ?", [*params, limit]).fetchall()
    return [{"card_id": r[0], "kind": r[1], "stage": r[2], "value": r[3], "detail": load_object(r[4]), "at": r[5]}
            for r in rows]
