"""What a request works on: the database connection, the question bank, and the learner behind it."""

from __future__ import annotations

import uuid
from datetime import date
from pathlib import Path

from flask import Flask, abort, current_app, g, request, session
from werkzeug.routing import RequestRedirect
from werkzeug.exceptions import NotFound

from ..cards import Bank, Card, Diagnostic
from ..progress import learners
from ..progress.db.connection import close, connect, rollback
from .access import author_access


# Connections are kept open across requests: opening one (and setting its pragmas) cost more
# than most pages' queries. A request takes an idle one of this process (or opens one) and gives
# it back when done, so no two requests share one: with gthread workers that is one per thread,
# and under gevent, where a request is a greenlet and threading.local is per greenlet (a new
# connection per request, half the throughput), as many as requests run at once, up to MAX_IDLE
# kept. For the app's database only: a process that serves another (tests make many apps)
# closes the old ones.
MAX_IDLE = 32
_idle: list = []
_idle_path: list[str] = [""]


def get_db():
    if "db" not in g:
        g.db = _take_connection(str(current_app.config["DATABASE"]))
    return g.db


def _take_connection(path: str):
    if _idle_path[0] != path:
        while _idle:
            close(_idle.pop())
        _idle_path[0] = path
    try:
        return _idle.pop()
    except IndexError:
        return connect(path, migrate=False)


def _give_back(db, path: str) -> None:
    if path == _idle_path[0] and len(_idle) < MAX_IDLE:
        _idle.append(db)
    else:
        close(db)


def loaded_bank() -> Bank:
    """Every card, interview-only ones too: the app's bank, loaded once per process and reloaded
    when a card file changes. Interviewers' consoles use it; readers' pages use ``get_bank``."""
    bank = current_app.extensions.get("quizapp.bank")
    if bank is None:
        bank = current_app.extensions["quizapp.bank"] = Bank(Path(current_app.config["QUESTIONS_DIR"]),
                                                              refresh_seconds=current_app.config["BANK_REFRESH_SECONDS"])
    return bank.refresh()


def get_bank() -> Bank:
    """The bank as this reader may see it: interview-only cards only when the author tools are open to them."""
    bank = loaded_bank()
    return bank if author_access() else bank.public()


def get_card(card_id: str) -> Card:
    """The card with this id, or a 404 that names it. To a reader the author tools are open to,
    the 404 of a card whose file does not load is a BrokenCard that says what is wrong with it. The
    old id of a card merged into another (its ``replaces``) is a 308 to the same URL under the
    successor's id: a link, a bookmark, a form posted from an old page and the values API all reach it."""
    bank = get_bank()
    card = bank.get(card_id)
    if card is None and card_id in bank.aliases:
        raise RequestRedirect(_with_card_id(card_id, bank.aliases[card_id]))
    if card is None:
        # Its diagnostics quote the card, an interview-only one too: for authors only (issue 21).
        broken = bank.broken().get(card_id) if author_access() else None
        if broken:
            raise BrokenCard(card_id, broken)
        abort(404, description=f"There is no card {card_id!r} in the question bank.")
    return card


def _with_card_id(old: str, new: str) -> str:
    """This request's URL with the path segment ``old`` (the card id) replaced by ``new``, its query kept."""
    parts = request.path.split("/")
    path = "/".join(new if part == old else part for part in parts)
    query = request.query_string.decode("latin-1")
    return path + (f"?{query}" if query else "")


class BrokenCard(NotFound):
    """The card's file (``<card_id>.md``) has errors, so the bank does not serve it."""

    def __init__(self, card_id: str, diagnostics: list[Diagnostic]):
        errors = [d for d in diagnostics if d.severity == "error"] or diagnostics
        super().__init__(f"This card has an error: {Path(errors[0].path).name}:{errors[0].line}: "
                         f"{errors[0].message}")
        self.card_id = card_id
        self.diagnostics = diagnostics


def close_db(_error=None):
    """The request is done with the thread's connection: it stays open for the thread's next
    request, outside any transaction (an error mid-write has rolled back already; this is the
    belt to that brace)."""
    db = g.pop("db", None)
    if db is None:
        return
    rollback(db)
    _give_back(db, str(current_app.config["DATABASE"]))


def learner_id() -> str:
    """The learner's id from the signed session cookie; a new id on the first visit.

    The id only: the learner's row is written with their first event, name or import
    (``ensure_learner`` in each writer), so a visitor who does nothing, such as a crawler,
    costs no row.
    """
    current = session.get("learner_id")
    if not current or not learners.LEARNER_ID.fullmatch(current):
        current = learners.new_learner_id()
        session["learner_id"] = current
        session.permanent = True
    _keep_alive()
    return current


def _keep_alive() -> None:
    """Send the cookie again on a reader's first request of each day, so it lasts
    PERMANENT_SESSION_LIFETIME from their last visit, not their first (and other responses
    do not carry it)."""
    today = date.today().isoformat()
    if session.get("day") != today:
        session["day"] = today


def new_event_id() -> str:
    """A fresh id for a form: a retried submit carries the same id and is stored once."""
    return uuid.uuid4().hex


# Stateless endpoints (the calculator API, the log reader's, static files) make no profile: scripts call them.
STATELESS = frozenset(("static", "api.calc", "api.read_log_api", "api.models", "api.gpus", "api.card_values"))


def ensure_learner() -> None:
    if request.endpoint and request.endpoint not in STATELESS:
        learner_id()


def init_app(app: Flask) -> None:
    app.teardown_appcontext(close_db)
    app.before_request(ensure_learner)
    app.jinja_env.globals["new_event_id"] = new_event_id
    # Apply migrations once at start (gunicorn forks workers from the app made here).
    close(connect(app.config["DATABASE"]))
