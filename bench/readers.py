"""The readers bench/run.py plays: every header it sends is made here, and learners with long histories.

If the app comes to require a CSRF token or same-origin headers on its posts, this is the one
place to change: ``Reader.headers`` already sends what a browser's same-origin form or fetch()
sends, and the token of a page that carries one.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Iterator

from harness import cookie_from, request

SESSION_COOKIE = "session"
# A hidden input or a meta tag, e.g. Flask-WTF's <input name="csrf_token" value="...">.
CSRF_PATTERN = re.compile(r"""name=["']csrf[-_]token["'][^>]*?(?:value|content)=["']([^"']+)""")


class Skip(Exception):
    """A measurement that cannot run; its message is what the report says instead of figures."""


class Reader:
    """A reader as a browser is: its session cookie, and its CSRF token once the app's pages carry one."""

    def __init__(self, cookie: str | None = None, csrf_token: str | None = None):
        self.cookie, self.csrf_token = cookie, csrf_token

    def headers(self, kind: str, origin: str, referer: str = "/") -> dict[str, str]:
        """The headers of one request. kind: page, json, form-post, or json-post (the page's script)."""
        headers = {"Accept": "text/html,application/xhtml+xml" if kind == "page" else "application/json"}
        if self.cookie:
            headers["Cookie"] = f"{SESSION_COOKIE}={self.cookie}"
        if kind.endswith("-post"):
            headers.update({"Origin": origin, "Referer": origin + referer, "Sec-Fetch-Site": "same-origin",
                            "Content-Type": ("application/json" if kind == "json-post"
                                             else "application/x-www-form-urlencoded")})
            if self.csrf_token:
                headers["X-CSRFToken"] = self.csrf_token
        return headers


def first_visit(port: int, origin: str, path: str) -> Reader:
    """A new reader's first visit to ``path``: the cookie it is given and any CSRF token on the page."""
    response = request(port, "GET", path, Reader().headers("page", origin))
    if response.status != 200:
        raise Skip(f"failed: a first visit to {path} answered {response.status}")
    token = CSRF_PATTERN.search(response.text())
    return Reader(cookie_from(response, SESSION_COOKIE), token.group(1) if token else None)


def offered_stages(port: int, origin: str, reader: Reader, card_id: str) -> list[str]:
    """The stages the card page offers to reveal, in page order."""
    html = request(port, "GET", f"/cards/{card_id}", reader.headers("page", origin)).text()
    return list(dict.fromkeys(re.findall(rf"/cards/{re.escape(card_id)}/reveal/([A-Za-z0-9_-]+)", html)))


def reveal_all(port: int, origin: str, reader: Reader, card_id: str, stages: list[str]) -> None:
    """Reveal every stage once, as the page's forms do (no script: 303 back to the card)."""
    for stage in stages:
        response = request(port, "POST", f"/cards/{card_id}/reveal/{stage}",
                           reader.headers("form-post", origin, f"/cards/{card_id}"), "")
        if response.status not in (200, 303):
            raise Skip(f"failed: revealing {stage} answered {response.status}")


# --- learners written straight into the database ---------------------------------------------

Event = tuple[str, str, str | None, str | None]  # card id, kind, stage, value


def graded_attempts(card_ids: list[str], count: int) -> Iterator[Event]:
    """Past attempts (open, reveal, answer, reveal, grade) in turn over the cards; the last ends in a grade."""
    attempt = [("open", None, None), ("reveal", "short", None), ("answer", "short", "3 users"),
               ("reveal", "full", None), ("grade", None, None)]
    ratings = ("good", "hard", "good", "easy", "again")
    for i in range(count):
        number = i // len(attempt)
        kind, stage, value = attempt[i % len(attempt)]
        yield card_ids[number % len(card_ids)], kind, stage, ratings[number % len(ratings)] if kind == "grade" \
            else value


def one_long_attempt(card_id: str, stages: list[str], count: int) -> Iterator[Event]:
    """One attempt never graded: an open, then reveals of the stages over and over (as a chatty client posts)."""
    yield card_id, "open", None, None
    for i in range(count - 1):
        yield card_id, "reveal", stages[i % len(stages)], None


def seed_learner(db_path: Path, events: Iterator[Event], span: timedelta) -> str:
    """A new learner whose events are stored through quizapp.progress, evenly over the ``span`` up to now."""
    from quizapp.progress import events as progress_events
    from quizapp.progress import learners
    from quizapp.progress.db.connection import connect

    learner = learners.new_learner_id()
    rows = list(events)
    start = datetime.now(timezone.utc) - span
    db = connect(db_path)
    try:
        for i, (card_id, kind, stage, value) in enumerate(rows):
            event = progress_events.Event(f"bench-seed-{learner[:8]}-{i:06d}", card_id, kind, stage, value)
            progress_events.record(db, learner, event, at=start + span * (i / len(rows)))
    finally:
        db.conn.close()
    return learner


def _serializer(secret: str):
    from flask import Flask
    from flask.sessions import SecureCookieSessionInterface

    app = Flask("bench")
    app.secret_key = secret
    return SecureCookieSessionInterface().get_signing_serializer(app)


def seeded_reader(port: int, origin: str, secret: str, learner: str, card_id: str) -> Reader:
    """The reader behind a seeded learner: the session cookie the app would sign for it (Flask's own
    serializer and the server's key), checked by one visit to the card that the server keeps it."""
    reader = Reader(_serializer(secret).dumps({"learner_id": learner, "_permanent": True}))
    response = request(port, "GET", f"/cards/{card_id}", reader.headers("page", origin))
    given = cookie_from(response, SESSION_COOKIE)
    if response.status != 200 or (given and _serializer(secret).loads(given).get("learner_id") != learner):
        raise Skip(f"failed: the server did not keep the seeded learner's cookie ({response.status})")
    return reader
