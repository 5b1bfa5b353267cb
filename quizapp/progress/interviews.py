"""Live interviews in SQLite: a session, its candidate, its cards and their scenarios, and what
happened in it (``live.py`` writes that as it happens): what was shown to the candidate and when,
the follow-ups asked, scores, the wrong-answer signals heard, notes, the recommendation, the
candidate's scratch box and typed answers, and each change of a card's scenario.

Two tokens open a session, the interviewer's and the candidate's; they are its only
credentials. The interviewer's is random; the candidate's is derived from it (an HMAC), so
whoever holds the interviewer's link can always give the candidate theirs, and the candidate's
says nothing about the interviewer's. Only their SHA-256 digests are stored: a session is
found by the digest of the token given, and the stored digest is compared again in constant time.
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
from .db.statements import insert, insert_all
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
    asked: dict[str, str] = field(default_factory=dict)  # follow-up stage -> when its question went on it
    scores: dict[str, int] = field(default_factory=dict)  # stage -> 1..4
    signals: dict[str, str] = field(default_factory=dict)  # wrong-N -> when it was ticked
    visits: list[tuple[str, str | None]] = field(default_factory=list)  # (shown, taken off) on the screen
    changes: list[dict] = field(default_factory=list)  # {"at", "sent"}: the scenario changes, oldest first
    typed: dict | None = None  # the candidate's typed answer: {"answer", "steps": {field: text}, "at"}

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
        insert(db, "interviews", {
            "id": created.id, "interviewer_digest": digest(created.interviewer_token),
            "candidate_digest": digest(created.candidate_token), "candidate": candidate, "role": role,
            "created_at": iso(moment or now_utc()), "reason": "", "scratch": "", "version": 0,
            "candidate_version": 0})
        insert_all(db, "interview_cards", (
            {"interview_id": created.id, "position": position, "card_id": card.card_id, "variant": card.variant,
             "overrides": dump_object(card.overrides)} for position, card in enumerate(cards)))
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
    for card_id, stage, at in _rows(db, "SELECT card_id, stage, at FROM interview_asks", interview_id):
        by_id[card_id].asked[stage] = at
    for card_id, sent, at in _rows(db, "SELECT card_id, sent, at FROM interview_changes", interview_id,
                                   order="at, id"):
        by_id[card_id].changes.append({"at": at, "sent": load_object(sent)})
    for card_id, typed, at in _rows(db, "SELECT card_id, typed, at FROM interview_answers", interview_id):
        by_id[card_id].typed = {**load_object(typed), "at": at}
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
