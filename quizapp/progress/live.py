"""What happens in a live interview, as it happens: a card put on the candidate's screen, a stage
revealed, a follow-up asked, a score, a signal heard, a note, the recommendation, the candidate's
scratch box and typed answer, a change of a card's scenario mid-question, and the end.

Every change bumps the session's ``version``; a change the candidate sees (a card shown, a stage
revealed, a follow-up asked, a scenario changed, the end) also bumps ``candidate_version``, so
the candidate's stream never wakes for the interviewer's private work. Which cards, stages and
scenarios exist is the caller's to check (it holds the bank); this module checks sizes, the
session's own cards and the scale, and raises InterviewError naming the field.
"""

from __future__ import annotations

from datetime import datetime

from sqlite_utils import Database

from ..cards.rubric import SCORES
from .clock import iso, now_utc
from .db import changes
from .db.connection import lock, write
from .db.statements import upsert
from .db.stored_json import dump_object
from .interviews import MAX_NOTE, MAX_NOTES, MAX_SCRATCH, NOTE_RULE, RECOMMENDATIONS, SCORE_RULE, InterviewError, text

MAX_TYPED = 200  # one box of the candidate's answer: a number and its unit
MAX_STEPS = 20


def _changed(db: Database, interview_id: str, for_candidate: bool = False) -> None:
    extra = ", candidate_version = candidate_version + 1" if for_candidate else ""
    db.execute(f"UPDATE interviews SET version = version + 1{extra} WHERE id = ?", [interview_id])
    if for_candidate:
        changes.notify(db, interview_id)  # the candidate's streams, on every server, wake when this commits


def watch(db: Database, interview_id: str) -> changes.Watch:
    """What a candidate's stream waits on between reads of the session: ``.wait()`` returns soon
    after a change the candidate sees, written through any server (``db/changes``)."""
    return changes.Watch(db, interview_id)


def _open_session(db: Database, interview_id: str, card_id: str | None = None, live: bool = False) -> None:
    """Inside a write: the session exists, holds the card, and (when ``live``) has not ended.
    The session's row is this writer's until it commits (every change reads, then bumps ``version``)."""
    lock(db, "interviews", interview_id)
    row = db.execute("SELECT ended_at FROM interviews WHERE id = ?", [interview_id]).fetchone()
    if row is None:
        raise InterviewError("there is no such session", None, 404)
    if live and row[0]:
        raise InterviewError("the interview has ended", None, 409)
    if card_id is not None and not db.execute("SELECT 1 FROM interview_cards WHERE interview_id = ? AND card_id = ?",
                                              [interview_id, card_id]).fetchone():
        raise InterviewError(f"this session has no card {card_id!r}", "card")


def show(db: Database, interview_id: str, card_id: str, moment: datetime | None = None) -> None:
    """Put a card on the candidate's screen: the card shown before comes off, and its timer stops."""
    with write(db):
        _open_session(db, interview_id, card_id, live=True)
        _show(db, interview_id, card_id, iso(moment or now_utc()))


def _show(db: Database, interview_id: str, card_id: str, at: str) -> None:
    current = db.execute("SELECT card_id FROM interview_visits WHERE interview_id = ? AND ended_at IS NULL",
                         [interview_id]).fetchone()
    if current and current[0] == card_id:
        return
    db.execute("UPDATE interview_visits SET ended_at = ? WHERE interview_id = ? AND ended_at IS NULL",
               [at, interview_id])
    db.execute("INSERT INTO interview_visits (interview_id, card_id, started_at) VALUES (?, ?, ?)",
               [interview_id, card_id, at])
    db.execute("UPDATE interviews SET started_at = COALESCE(started_at, ?) WHERE id = ?", [at, interview_id])
    _changed(db, interview_id, for_candidate=True)


def reveal(db: Database, interview_id: str, card_id: str, stage: str, moment: datetime | None = None) -> None:
    """Show a stage on the candidate's screen (and its card, if another one is there). Once is enough:
    revealing it again keeps the first time."""
    _on_screen(db, "interview_reveals", interview_id, card_id, stage, moment)


def _on_screen(db: Database, table: str, interview_id: str, card_id: str, stage: str, moment) -> None:
    """Put a stage (``interview_reveals``) or a follow-up's question (``interview_asks``) on the
    candidate's screen, with its card, the first time only."""
    at = iso(moment or now_utc())
    with write(db):
        _open_session(db, interview_id, card_id, live=True)
        _show(db, interview_id, card_id, at)
        added = db.execute(f"INSERT INTO {table} (interview_id, card_id, stage, at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                           [interview_id, card_id, stage, at]).rowcount
        if added:
            _changed(db, interview_id, for_candidate=True)


def score(db: Database, interview_id: str, card_id: str, stage: str, value, moment: datetime | None = None) -> None:
    """Score a stage 1 to 4 (see cards.rubric.SCALE); None clears the score."""
    if value is not None and (isinstance(value, bool) or value not in SCORES):
        raise InterviewError(SCORE_RULE, "score")
    with write(db):
        _open_session(db, interview_id, card_id)
        if value is None:
            db.execute("DELETE FROM interview_scores WHERE interview_id = ? AND card_id = ? AND stage = ?",
                       [interview_id, card_id, stage])
        else:
            db.execute("INSERT INTO interview_scores (interview_id, card_id, stage, score, at) VALUES (?, ?, ?, ?, ?) "
                       "ON CONFLICT (interview_id, card_id, stage) DO UPDATE SET score = excluded.score, at = excluded.at",
                       [interview_id, card_id, stage, value, iso(moment or now_utc())])
        _changed(db, interview_id)


def signal(db: Database, interview_id: str, card_id: str, name: str, heard: bool,
           moment: datetime | None = None) -> None:
    """Tick (or untick) a wrong answer the candidate gave: a signal for the report."""
    with write(db):
        _open_session(db, interview_id, card_id)
        if heard:
            db.execute("INSERT INTO interview_signals (interview_id, card_id, signal, at) "
                       "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING", [interview_id, card_id, name, iso(moment or now_utc())])
        else:
            db.execute("DELETE FROM interview_signals WHERE interview_id = ? AND card_id = ? AND signal = ?",
                       [interview_id, card_id, name])
        _changed(db, interview_id)


def add_note(db: Database, interview_id: str, note: str, card_id: str | None = None,
             moment: datetime | None = None) -> dict:
    """A note with the time it was written, about a card or the whole session."""
    note = text(note, "text", MAX_NOTE, required=True).strip()
    at = iso(moment or now_utc())
    with write(db):
        _open_session(db, interview_id, card_id)
        count = db.execute("SELECT COUNT(*) FROM interview_notes WHERE interview_id = ?", [interview_id]).fetchone()
        if count[0] >= MAX_NOTES:
            raise InterviewError(f"a session holds at most {MAX_NOTES} notes", "text")
        note_id = db.execute("INSERT INTO interview_notes (interview_id, card_id, text, at) VALUES (?, ?, ?, ?) "
                             "RETURNING id", [interview_id, card_id, note, at]).fetchone()[0]
        _changed(db, interview_id)
    return {"id": note_id, "card_id": card_id, "text": note, "at": at}


def delete_note(db: Database, interview_id: str, note_id) -> None:
    if isinstance(note_id, bool) or not isinstance(note_id, int):
        raise InterviewError(NOTE_RULE, "note")
    with write(db):
        _open_session(db, interview_id)
        if not db.execute("DELETE FROM interview_notes WHERE interview_id = ? AND id = ?",
                          [interview_id, note_id]).rowcount:
            raise InterviewError(f"this session has no note {note_id}", "note")
        _changed(db, interview_id)


def recommend(db: Database, interview_id: str, recommendation: str | None, reason: str) -> None:
    """The overall recommendation (a key of RECOMMENDATIONS, or None: not given yet) and its reason."""
    if recommendation is not None and (not isinstance(recommendation, str) or recommendation not in RECOMMENDATIONS):
        raise InterviewError(f"recommendation must be one of {', '.join(RECOMMENDATIONS)}", "recommendation")
    reason = text(reason, "reason", MAX_NOTE)
    with write(db):
        _open_session(db, interview_id)
        db.execute("UPDATE interviews SET recommendation = ?, reason = ? WHERE id = ?",
                   [recommendation, reason, interview_id])
        _changed(db, interview_id)


def set_scratch(db: Database, interview_id: str, scratch: str, moment: datetime | None = None) -> None:
    """The candidate's scratch box, as typed so far."""
    scratch = text(scratch, "text", MAX_SCRATCH)
    with write(db):
        _open_session(db, interview_id, live=True)
        db.execute("UPDATE interviews SET scratch = ?, scratch_at = ? WHERE id = ?",
                   [scratch, iso(moment or now_utc()), interview_id])
        _changed(db, interview_id)


def end(db: Database, interview_id: str, moment: datetime | None = None) -> None:
    """End the session: the candidate's screen says so and the clocks stop. Scores, notes and the
    recommendation can still be written afterwards; nothing more reaches the candidate."""
    at = iso(moment or now_utc())
    with write(db):
        _open_session(db, interview_id)
        db.execute("UPDATE interview_visits SET ended_at = ? WHERE interview_id = ? AND ended_at IS NULL",
                   [at, interview_id])
        if db.execute("UPDATE interviews SET ended_at = ? WHERE id = ? AND ended_at IS NULL",
                      [at, interview_id]).rowcount:
            _changed(db, interview_id, for_candidate=True)


def ask(db: Database, interview_id: str, card_id: str, stage: str, moment: datetime | None = None) -> None:
    """Put a follow-up's question on the candidate's screen (and its card); its expected answer
    stays on the console until it is revealed. Once is enough: asking again keeps the first time."""
    _on_screen(db, "interview_asks", interview_id, card_id, stage, moment)


def change_scenario(db: Database, interview_id: str, card_id: str, sent: dict, variant: int | None,
                    overrides: dict, moment: datetime | None = None) -> None:
    """A card's scenario changed mid-interview: ``sent`` is what the interviewer asked for, and
    ``variant`` and ``overrides`` the scenario it made (checked by the caller). Both screens show
    it from the next state on, and the report lists the change."""
    at = iso(moment or now_utc())
    with write(db):
        _open_session(db, interview_id, card_id, live=True)
        db.execute("UPDATE interview_cards SET variant = ?, overrides = ? WHERE interview_id = ? AND card_id = ?",
                   [variant, dump_object(overrides), interview_id, card_id])
        db.execute("INSERT INTO interview_changes (interview_id, card_id, sent, variant, overrides, at) "
                   "VALUES (?, ?, ?, ?, ?, ?)",
                   [interview_id, card_id, dump_object(sent), variant, dump_object(overrides), at])
        _changed(db, interview_id, for_candidate=True)


def set_answer(db: Database, interview_id: str, card_id: str, answer, steps, moment: datetime | None = None) -> None:
    """The candidate's typed answer to the card on their screen: the number and each step (by field),
    as typed so far. The console checks them; the candidate's screen does not change."""
    answer = text(answer, "answer", MAX_TYPED)
    if steps is None:
        steps = {}
    if not isinstance(steps, dict) or len(steps) > MAX_STEPS:
        raise InterviewError(f"steps must map at most {MAX_STEPS} step fields to what was typed", "steps")
    typed = {"answer": answer.strip(), "steps": {}}
    for field, value in steps.items():
        if not isinstance(field, str) or not field.startswith("step-") or len(field) > 100:
            raise InterviewError("each step is named by its field, step-<value>", "steps")
        typed["steps"][field] = text(value, f"steps.{field}", MAX_TYPED).strip()
    with write(db):
        _open_session(db, interview_id, card_id, live=True)
        upsert(db, "interview_answers", {"interview_id": interview_id, "card_id": card_id, "typed": dump_object(typed),
                                         "at": iso(moment or now_utc())}, ("interview_id", "card_id"))
        _changed(db, interview_id)
