"""The interviewer links this browser made, for ``/interview``: the signed session cookie holds
only a random session id; the links it knows are kept server-side (``progress.browser_sessions``),
so the cookie, which anyone holding it can read, carries no interviewer token. They live as long
as the cookie does (``PERMANENT_SESSION_LIFETIME``) from when each was made."""

from __future__ import annotations

from flask import current_app, session

from ...progress import browser_sessions, interviews
from ..storage import get_db

KEY = "browser"  # the session cookie's key for this browser's session id
OLD_KEY = "interviews"  # where cookies before the session id listed the interviewer tokens themselves


def remember(interview_id: str, token: str) -> None:
    """List the session in this browser's /interview, newest."""
    browser_sessions.remember(get_db(), _session_id(create=True), interview_id, token,
                              current_app.permanent_session_lifetime)


def remembered() -> list[str]:
    """The interviewer tokens this browser made, newest first."""
    session_id = _session_id(create=False)
    if session_id is None:
        return []
    return browser_sessions.links(get_db(), session_id, current_app.permanent_session_lifetime)


def move_old_links() -> None:
    """A cookie from before the session id: its tokens move server-side (still listed, oldest
    kept oldest) and leave the cookie."""
    if OLD_KEY not in session:
        return
    old = session.pop(OLD_KEY)
    if not isinstance(old, list):
        return
    for token in reversed(old[:browser_sessions.KEPT]):
        found = interviews.find(get_db(), token) if isinstance(token, str) and token.isascii() else None
        if found is not None and found[1] == "interviewer":
            remember(found[0], token)


def _session_id(create: bool) -> str | None:
    current = session.get(KEY)
    if browser_sessions.is_id(current):
        return current
    if not create:
        return None
    session[KEY] = browser_sessions.new_id()
    session.permanent = True
    return session[KEY]
