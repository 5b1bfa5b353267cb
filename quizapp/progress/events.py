"""What a learner did: events with client-made ids, stored exactly once.

An event is a reveal, a typed answer, a self-grade … A grade also reviews the card with
FSRS, in the same transaction, so a retried grade never schedules a card twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Iterable

from sqlite_utils import Database

from ..calc import FieldError
from . import attempts, quota, scheduling
from .attempts import Attempt, current_attempt  # noqa: F401 (the web layer reads attempts from here)
from .clock import iso, now_utc
from .db.connection import write
from .db.statements import insert_new
from .learners import ensure_learner
from .db.stored_json import dump_object, load_object

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
        duration = current_attempt(db, learner_id, event.card_id).duration_ms(moment) if event.kind == "grade" \
            else None
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

    Rows and their cards' attempts (``attempts.apply``): a grade stored here schedules nothing
    (``record`` does that). Counted against the profile's quota (raises ``quota.ProfileFull``
    past it). Call inside a write transaction.
    """
    stored = insert_new(db, "events", [{"learner_id": learner_id, **{key: row[key] for key in EXPORTED}}
                                       for row in rows], "event_id")
    added = [{key: row[key] for key in EXPORTED} for row in stored]
    size = sum(quota.row_bytes(row) for row in added)
    quota.count_stored(db, learner_id, len(added), size)
    attempts.apply(db, learner_id, added)
    return len(added)


# An event as the export writes it (and the quota counts it).
EXPORTED = ("event_id", "card_id", "kind", "stage", "value", "detail", "scenario", "at")


def attempt_start(db: Database, learner_id: str, card_id: str) -> str:
    """The time the current attempt began: after the last grade or reset of the card ("" when none)."""
    return current_attempt(db, learner_id, card_id).ended_at


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
