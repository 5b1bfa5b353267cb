"""Live interviews in SQLite: the candidate, the cards and their scenarios, what was shown to the
candidate and when, scores, the wrong-answer signals heard, notes, the recommendation, and the
candidate's scratch box.

Two tokens open a session, the interviewer's and the candidate's; they are its only
credentials. The interviewer's is random; the candidate's is derived from it (an HMAC), so
whoever holds the interviewer's link can always give the candidate theirs, and the candidate's
says nothing about the interviewer's. Only their SHA-256 digests are stored: a session is
found by the digest of the token given, and the stored digest is compared again in constant time. Every change bumps
``version``; a change the candidate sees (a card shown, a stage revealed, the end) also bumps
``candidate_version``, so the candidate's stream never wakes for the interviewer's private work.

Which cards and stages exist is the caller's to check (it holds the bank); this module checks
sizes, the session's own cards and the scale, and raises InterviewError naming the field.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass, field
from datetime import datetime

from sqlite_utils import Database

from ..calc import FieldError
from ..cards.rubric import SCORES
from .clock import iso, now_utc, parse_iso
from .db.connection import write
from .db.stored_json import dump_object, load_object

MAX_NAME = 200  # a candidate's name, a role
MAX_NOTE = 10_000  # a note, a reason
MAX_SCRATCH = 20_000
MAX_CARDS = 50
MAX_NOTES = 500  # per session
RECOMMENDATIONS = {"strong_no": "Strong no", "no": "No", "yes": "Yes", "strong_yes": "Strong yes",
                   "no_decision": "No decision"}
SCORE_RULE = f"score must be one of {', '.join(map(str, SCORES))}, or null to clear it"
NOTE_RULE = "note must be a note's id"


class InterviewError(FieldError):
    """Input the session cannot take: 400 with the field named; 409 when the session has ended."""

    def __init__(self, message: str, field: str | None, status: int = 400):
        super().__init__(message, field)
        self.status = status


@dataclass(frozen=True)
class PlannedCard:
    """A card for a new session, with the scenario the interviewer chose (checked by the caller)."""

    card_id: str
    variant: int | None = None
    overrides: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Created:
    id: str
    interviewer_token: str
    candidate_token: str


@dataclass
class SessionCard:
    card_id: str
    position: int
    variant: int | None
    overrides: dict
    reveals: dict[str, str] = field(default_factory=dict)  # stage -> when it went on the candidate's screen
    scores: dict[str, int] = field(default_factory=dict)  # stage -> 1..4
    signals: dict[str, str] = field(default_factory=dict)  # wrong-N -> when it was ticked
    visits: list[tuple[str, str | None]] = field(default_factory=list)  # (shown, taken off) on the screen

    def time_ms(self, moment: datetime) -> int:
        """How long the card was on the candidate's screen, up to ``moment`` for a visit still open."""
        total = 0
        for started, ended in self.visits:
            end = parse_iso(ended) if ended else moment
            total += max(0, int((end - parse_iso(started)).total_seconds() * 1000))
        return total


@dataclass
class Interview:
    id: str
    candidate: str
    role: str
    created_at: str
    started_at: str | None
    ended_at: str | None
    recommendation: str | None
    reason: str
    scratch: str
    scratch_at: str | None
    version: int
    candidate_version: int
    cards: list[SessionCard]
    notes: list[dict]  # {"id", "card_id", "text", "at"}, oldest first
    current: str | None  # the card on the candidate's screen

    def card(self, card_id: str) -> SessionCard | None:
        return next((c for c in self.cards if c.card_id == card_id), None)

    def elapsed_ms(self, moment: datetime) -> int:
        """The session's clock: from the first card shown to the end (or ``moment``)."""
        if not self.started_at:
            return 0
        end = parse_iso(self.ended_at) if self.ended_at else moment
        return max(0, int((end - parse_iso(self.started_at)).total_seconds() * 1000))


def new_token() -> str:
    """256 random bits, URL-safe: a credential that cannot be guessed."""
    return secrets.token_urlsafe(32)


def candidate_token(interviewer_token: str) -> str:
    """The candidate's token of a session: 256 bits that only the interviewer's token yields."""
    mac = hmac.new(interviewer_token.encode(), b"quizapp interview: the candidate's token", hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()).decode().rstrip("=")


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def text(value, name: str, limit: int, required: bool = False) -> str:
    """A text field as stored: a string of at most ``limit`` characters (and not blank when required)."""
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise InterviewError(f"{name} must be text", name)
    if len(value) > limit:
        raise InterviewError(f"{name} is longer than {limit:,} characters", name)
    if required and not value.strip():
        raise InterviewError(f"give the {name}", name)
    return value


def create(db: Database, candidate: str, role: str, cards: list[PlannedCard],
           moment: datetime | None = None) -> Created:
    """Store a new session; the tokens are returned once and never stored."""
    candidate = " ".join(text(candidate, "candidate", MAX_NAME, required=True).split())
    role = " ".join(text(role, "role", MAX_NAME).split())
    if not cards:
        raise InterviewError("pick at least one card", "cards")
    if len(cards) > MAX_CARDS:
        raise InterviewError(f"a session holds at most {MAX_CARDS} cards", "cards")
    ids = [card.card_id for card in cards]
    if len(set(ids)) != len(ids):
        raise InterviewError("each card may be in a session once", "cards")
    interviewer = new_token()
    created = Created(secrets.token_hex(8), interviewer, candidate_token(interviewer))
    with write(db):
        db["interviews"].insert({
            "id": created.id, "interviewer_digest": digest(created.interviewer_token),
            "candidate_digest": digest(created.candidate_token), "candidate": candidate, "role": role,
            "created_at": iso(moment or now_utc()), "reason": "", "scratch": "", "version": 0,
            "candidate_version": 0})
        db["interview_cards"].insert_all(
            {"interview_id": created.id, "position": position, "card_id": card.card_id, "variant": card.variant,
             "overrides": dump_object(card.overrides)} for position, card in enumerate(cards))
    return created


def find(db: Database, token: str) -> tuple[str, str] | None:
    """(session id, "interviewer" or "candidate") for a token, or None: one query whatever the token."""
    wanted = digest(token)
    row = db.execute("SELECT id, interviewer_digest, candidate_digest FROM interviews "
                     "WHERE interviewer_digest = ? OR candidate_digest = ?", [wanted, wanted]).fetchone()
    if row is None:
        return None
    if hmac.compare_digest(row[1], wanted):
        return row[0], "interviewer"
    if hmac.compare_digest(row[2], wanted):
        return row[0], "candidate"
    return None


def load(db: Database, interview_id: str) -> Interview | None:
    row = db.execute("SELECT id, candidate, role, created_at, started_at, ended_at, recommendation, reason, "
                     "scratch, scratch_at, version, candidate_version FROM interviews WHERE id = ?",
                     [interview_id]).fetchone()
    if row is None:
        return None
    cards = [SessionCard(r[0], r[1], r[2], load_object(r[3])) for r in db.execute(
        "SELECT card_id, position, variant, overrides FROM interview_cards WHERE interview_id = ? ORDER BY position",
        [interview_id])]
    by_id = {card.card_id: card for card in cards}
    current = None
    for card_id, stage, at in _rows(db, "SELECT card_id, stage, at FROM interview_reveals", interview_id):
        by_id[card_id].reveals[stage] = at
    for card_id, stage, score in _rows(db, "SELECT card_id, stage, score FROM interview_scores", interview_id):
        by_id[card_id].scores[stage] = score
    for card_id, signal, at in _rows(db, "SELECT card_id, signal, at FROM interview_signals", interview_id):
        by_id[card_id].signals[signal] = at
    for card_id, started, ended in _rows(db, "SELECT card_id, started_at, ended_at FROM interview_visits",
                                         interview_id, order="started_at, id"):
        by_id[card_id].visits.append((started, ended))
        current = card_id if ended is None else current
    notes = [{"id": r[0], "card_id": r[1], "text": r[2], "at": r[3]} for r in _rows(
        db, "SELECT id, card_id, text, at FROM interview_notes", interview_id, order="at, id")]
    return Interview(*row[:7], row[7] or "", row[8] or "", *row[9:], cards=cards, notes=notes, current=current)


def _rows(db: Database, select: str, interview_id: str, order: str = "at") -> list[tuple]:
    return db.execute(f"{select} WHERE interview_id = ? ORDER BY {order}", [interview_id]).fetchall()


def candidate_version(db: Database, interview_id: str) -> int | None:
    """The counter of changes the candidate sees: what the candidate's stream watches."""
    row = db.execute("SELECT candidate_version FROM interviews WHERE id = ?", [interview_id]).fetchone()
    return row[0] if row else None


def _changed(db: Database, interview_id: str, for_candidate: bool = False) -> None:
    extra = ", candidate_version = candidate_version + 1" if for_candidate else ""
    db.execute(f"UPDATE interviews SET version = version + 1{extra} WHERE id = ?", [interview_id])


def _open_session(db: Database, interview_id: str, card_id: str | None = None, live: bool = False) -> None:
    """Inside a write: the session exists, holds the card, and (when ``live``) has not ended."""
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
    at = iso(moment or now_utc())
    with write(db):
        _open_session(db, interview_id, card_id, live=True)
        _show(db, interview_id, card_id, at)
        added = db.execute("INSERT OR IGNORE INTO interview_reveals (interview_id, card_id, stage, at) "
                           "VALUES (?, ?, ?, ?)", [interview_id, card_id, stage, at]).rowcount
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
            db.execute("INSERT OR REPLACE INTO interview_scores (interview_id, card_id, stage, score, at) "
                       "VALUES (?, ?, ?, ?, ?)", [interview_id, card_id, stage, value, iso(moment or now_utc())])
        _changed(db, interview_id)


def signal(db: Database, interview_id: str, card_id: str, name: str, heard: bool,
           moment: datetime | None = None) -> None:
    """Tick (or untick) a wrong answer the candidate gave: a signal for the report."""
    with write(db):
        _open_session(db, interview_id, card_id)
        if heard:
            db.execute("INSERT OR IGNORE INTO interview_signals (interview_id, card_id, signal, at) "
                       "VALUES (?, ?, ?, ?)", [interview_id, card_id, name, iso(moment or now_utc())])
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
        note_id = db.execute("INSERT INTO interview_notes (interview_id, card_id, text, at) VALUES (?, ?, ?, ?)",
                             [interview_id, card_id, note, at]).lastrowid
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
    if recommendation is not None and recommendation not in RECOMMENDATIONS:
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


def listing(db: Database, tokens: list[str]) -> list[dict]:
    """The sessions these interviewer tokens open, newest first, with each token (for its link)."""
    sessions = []
    for token in tokens:
        found = find(db, token)
        if found is None or found[1] != "interviewer":
            continue
        row = db.execute("SELECT id, candidate, role, created_at, ended_at, recommendation FROM interviews "
                         "WHERE id = ?", [found[0]]).fetchone()
        count = db.execute("SELECT COUNT(*) FROM interview_cards WHERE interview_id = ?", [found[0]]).fetchone()[0]
        sessions.append({"id": row[0], "candidate": row[1], "role": row[2], "created_at": row[3],
                         "ended_at": row[4], "recommendation": row[5], "cards": count, "token": token})
    return sorted(sessions, key=lambda s: s["created_at"], reverse=True)
