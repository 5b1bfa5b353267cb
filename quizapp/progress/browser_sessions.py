"""The interviews a browser made, kept server-side: the browser's signed (not encrypted) session
cookie holds only a random session id (``new_id``), and these rows map it to the interviewer
links it knows, newest first: at most ``KEPT`` of them (and each interview in at most ``KEPT``
browsers), each dropped once it is older than the lifetime the caller gives (the session cookie's own).

Neither half opens an interview alone. A row is found by the SHA-256 digest of the session id,
and holds the interviewer's token sealed with a pad only the session id gives (HMAC-SHA-512 of
the interview's id, keyed by the session id): a copy of the database holds no link, and the
cookie holds no token, only what ``/interview`` shows the browser that has it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta

from .clock import iso, now_utc
from .db.connection import write
from .db.statements import upsert

KEPT = 30  # interview links one browser lists; the oldest is dropped past this
TABLE = "browser_interviews"
ID_LENGTH = 43  # secrets.token_urlsafe(32)


def new_id() -> str:
    """A browser's session id: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def is_id(value) -> bool:
    """Whether a cookie's value has the shape ``new_id`` gives (anything else is replaced)."""
    return isinstance(value, str) and len(value) == ID_LENGTH and value.isascii() and \
        all(c.isalnum() or c in "-_" for c in value)


def remember(db, session_id: str, interview_id: str, token: str, lifetime: timedelta,
             moment: datetime | None = None) -> None:
    """List the interview (its interviewer token) for this browser, newest; drop this browser's
    links past ``KEPT`` and every browser's links older than ``lifetime``."""
    moment = moment or now_utc()
    key = _digest(session_id)
    with write(db):
        upsert(db, TABLE, {"session_digest": key, "interview_id": interview_id,
                           "sealed": _seal(session_id, interview_id, token), "remembered_at": iso(moment)},
               key=("session_digest", "interview_id"))
        db.execute(f"DELETE FROM {TABLE} WHERE session_digest = ? AND interview_id NOT IN "
                   f"(SELECT interview_id FROM {TABLE} WHERE session_digest = ? "
                   f"ORDER BY remembered_at DESC, interview_id LIMIT ?)", [key, key, KEPT])
        # And each interview in at most KEPT browsers: a visitor who opens one console with a new
        # cookie each time replaces its rows instead of adding one per request.
        db.execute(f"DELETE FROM {TABLE} WHERE interview_id = ? AND session_digest NOT IN "
                   f"(SELECT session_digest FROM {TABLE} WHERE interview_id = ? "
                   f"ORDER BY remembered_at DESC, session_digest LIMIT ?)", [interview_id, interview_id, KEPT])
        db.execute(f"DELETE FROM {TABLE} WHERE remembered_at < ?", [iso(moment - lifetime)])


def links(db, session_id: str, lifetime: timedelta, moment: datetime | None = None) -> list[str]:
    """The interviewer tokens this browser remembered within ``lifetime``, newest first."""
    cutoff = iso((moment or now_utc()) - lifetime)
    rows = db.execute(f"SELECT interview_id, sealed FROM {TABLE} WHERE session_digest = ? AND remembered_at >= ? "
                      f"ORDER BY remembered_at DESC, interview_id LIMIT ?",
                      [_digest(session_id), cutoff, KEPT]).fetchall()
    tokens = (_unseal(session_id, interview_id, sealed) for interview_id, sealed in rows)
    return [token for token in tokens if token]


def _digest(session_id: str) -> str:
    return hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()


def _pad(session_id: str, interview_id: str) -> bytes:
    return hmac.new(session_id.encode("utf-8", "surrogatepass"), interview_id.encode("utf-8", "surrogatepass"),
                    hashlib.sha512).digest()


def _seal(session_id: str, interview_id: str, token: str) -> str:
    raw = token.encode("ascii")
    pad = _pad(session_id, interview_id)
    if len(raw) > len(pad):
        raise ValueError("an interviewer token is at most 64 characters")
    return bytes(a ^ b for a, b in zip(raw, pad)).hex()


def _unseal(session_id: str, interview_id: str, sealed: str) -> str | None:
    try:
        raw = bytes.fromhex(sealed)
        return bytes(a ^ b for a, b in zip(raw, _pad(session_id, interview_id))).decode("ascii")
    except (TypeError, ValueError):
        return None
