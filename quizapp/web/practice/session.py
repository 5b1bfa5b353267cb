"""One practice session, kept in the reader's session cookie: where they are, what they skipped
and graded. It ends when the reader ends it (or the cookie goes); the grades themselves are
stored as events, so nothing here is needed to schedule a card.
"""

from __future__ import annotations

from flask import session

KEY = "practice"
LAST = "practice_last"
# A cookie holds about 4 KB: a session longer than this keeps only its most recent ids.
MAX_IDS = 40


def current() -> dict:
    """The running session: {"shown", "skipped", "graded", "current", "counts"}, empty fields when new."""
    return session.get(KEY) or {"shown": 0, "skipped": [], "graded": [], "current": None, "counts": None}


def _save(state: dict) -> None:
    state["skipped"] = state["skipped"][-MAX_IDS:]
    state["graded"] = state["graded"][-MAX_IDS:]
    session[KEY] = state


def showing(card_id: str, counts: dict, filters: dict, drawing: str | None = None) -> None:
    """The practice page picked ``card_id``; ``counts`` is where the bank stood before it,
    ``filters`` the role, tag and topics the session practises, ``drawing`` what the page says of
    the topics it draws from (None: every topic)."""
    state = current()
    if state["current"] != card_id:
        state["shown"] += 1
    state.update(current=card_id, counts=counts, filters=filters, drawing=drawing)
    _save(state)


def position(card_id: str) -> dict | None:
    """What the card page says about the session, or None when this card is not the one practised."""
    state = session.get(KEY)
    if not state or state.get("current") != card_id:
        return None
    return {"shown": state["shown"], "counts": state["counts"], "graded": len(state["graded"]),
            "filters": state.get("filters") or {}, "drawing": state.get("drawing")}


def filters() -> dict:
    """The role, tag and topic filters of the running session ({} when none runs)."""
    return (session.get(KEY) or {}).get("filters") or {}


def skip(card_id: str) -> None:
    state = current()
    if card_id not in state["skipped"]:
        state["skipped"].append(card_id)
    state["current"] = None
    _save(state)


def graded(card_id: str, rating: str) -> None:
    """Note a grade given during a session (a grade outside one is not noted)."""
    state = session.get(KEY)
    if not state:
        return
    state["graded"].append([card_id, rating])
    state["current"] = None
    _save(state)


def end() -> dict:
    """End the session; what it did stays readable by ``last`` for the summary page."""
    state = current()
    session.pop(KEY, None)
    session[LAST] = {"graded": state["graded"], "skipped": len(state["skipped"]), "shown": state["shown"]}
    return session[LAST]


def last() -> dict | None:
    return session.get(LAST)
