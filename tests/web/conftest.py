"""The web tests' app, on a question bank of their own; a reader who goes through a card, and an interviewer.

The bank in data/questions holds copies of the seed cards: the tests assert on their wording,
so the shipped cards in questions/ can change without breaking them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from quizapp import create_app

QUESTIONS_DIR = Path(__file__).parent / "data" / "questions"


@pytest.fixture
def questions_dir() -> Path:
    """The folder the app's QUESTIONS_DIR points at: the web tests' own bank."""
    return QUESTIONS_DIR


CSRF_META = re.compile(r'<meta name="csrf-token" content="([^"]+)">')


class BrowserClient(FlaskClient):
    """A test client that posts forms as a browser posts them from the app's pages: with the CSRF token.

    The token is read from a page's ``<meta name="csrf-token">`` (the value every form's hidden
    field holds), and read again whenever the session's token changes. Posts to ``/api/`` are
    JSON and carry none. ``post(..., csrf=False)`` posts without it, as another site would.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._token: tuple[str, str] | None = None  # (the session's raw token, the page's signed token)

    def post(self, *args, csrf: bool = True, **kwargs) -> TestResponse:
        url = str(args[0] if args else kwargs.get("path", "/"))
        data = kwargs.get("data")
        if csrf and not url.startswith("/api/") and "json" in kwargs:
            kwargs["headers"] = {"X-CSRFToken": self.csrf_token(), **(kwargs.get("headers") or {})}
        elif csrf and not url.startswith("/api/") and (data is None or isinstance(data, dict)):
            kwargs["data"] = {"csrf_token": self.csrf_token(), **(data or {})}
        return super().post(*args, **kwargs)

    def csrf_token(self) -> str:
        raw = self._session_token()
        if self._token is None or raw is None or raw != self._token[0]:
            match = CSRF_META.search(self.get("/me").text)
            assert match, "the page has no <meta name=\"csrf-token\">"
            self._token = (self._session_token(), match.group(1))
        return self._token[1]

    def _session_token(self) -> str | None:
        with self.session_transaction() as session:
            return session.get("csrf_token")


@pytest.fixture
def app(database, questions_dir):
    app = create_app({"TESTING": True, "DATABASE": database,
                      "QUESTIONS_DIR": str(questions_dir)})
    app.test_client_class = BrowserClient
    return app


@pytest.fixture
def client(app):
    return app.test_client()


class Reader:
    """A reader going through a card without JavaScript: each step is the request a plain form sends.

    Steps are on kv-pool-users unless they name another ``card``; ``query`` is the scenario in
    the URL ("?kv_cache_dtype=fp8"). Each returns the response; ``.text`` is the page.
    """

    def __init__(self, client: FlaskClient, card: str = "kv-pool-users"):
        self.client = client
        self.card = card

    def url(self, card: str | None = None) -> str:
        return f"/cards/{card or self.card}"

    def open(self, query: str = "", card: str | None = None) -> TestResponse:
        return self.client.get(self.url(card) + query)

    def reveal(self, stage: str, query: str = "", card: str | None = None, **form) -> TestResponse:
        """Post the stage's reveal form, then follow the redirect to the page."""
        return self.client.post(f"{self.url(card)}/reveal/{stage}{query}", data=form, follow_redirects=True)

    def answer(self, typed: str, query: str = "", card: str | None = None) -> TestResponse:
        """Open the card, type an answer and reveal the short answer: the page with its feedback."""
        self.open(query, card)
        return self.reveal("short", query, card, answer=typed)

    def grade(self, rating: str, card: str | None = None, **form) -> TestResponse:
        """Post the grade form (again, hard, good or easy); the response is the redirect to /practice."""
        return self.client.post(f"{self.url(card)}/grade", data={"rating": rating, **form})

    def stored_answers(self) -> list[dict]:
        """The reader's answer events as /me/export gives them, each detail parsed."""
        rows = [row for row in self.client.get("/me/export").get_json()["events"] if row["kind"] == "answer"]
        return [{**row, "detail": json.loads(row["detail"]) if row["detail"] else None} for row in rows]

    @staticmethod
    def feedback(page: str) -> dict | None:
        """The typed answer's verdict on a page: {"verdict", "headline", "message"}, or None."""
        match = re.search(r'<div class="feedback verdict-(\w+)".*?(?:<strong>(.*?)</strong>.*?)?'
                          r'<p class="verdict-message">(.*?)</p>', page, re.S)
        return dict(zip(("verdict", "headline", "message"), match.groups())) if match else None


@pytest.fixture
def reader(client) -> Reader:
    return Reader(client)


class Interviewer:
    """An interviewer's browser: JSON requests to the interview API with the CSRF token a page gives."""

    def __init__(self, client: FlaskClient):
        self.client = client

    def csrf(self) -> str:
        page = self.client.get("/interview/new").text
        return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)

    def post(self, url: str, body=None, **headers) -> TestResponse:
        return self.client.post(url, json=body, headers={"X-CSRFToken": self.csrf(), **headers})

    def create(self, cards=("kv-pool-users",), candidate="Ada", role="Inference Engineering") -> dict:
        """A new session over the API: {"id", "interviewer_url", "candidate_url"}."""
        response = self.post("/api/interviews", {"candidate": candidate, "role": role, "cards": list(cards)})
        assert response.status_code == 201, response.get_json()
        return response.get_json()


@pytest.fixture
def interviewer(client) -> Interviewer:
    return Interviewer(client)


@pytest.fixture
def broken_bank(tmp_path, questions_dir):
    """A questions folder with the seed card and a copy of it with an unknown value on a known line."""
    folder = tmp_path / "questions"
    folder.mkdir()
    seed = (questions_dir / "kv-pool-users.md").read_text(encoding="utf-8")
    (folder / "kv-pool-users.md").write_text(seed, encoding="utf-8")
    broken = seed.replace("id: kv-pool-users", "id: broken").replace("{{ users_fit | commas }} users with",
                                                                       "{{ users_fits | commas }} users with")
    (folder / "broken.md").write_text(broken, encoding="utf-8")
    line = next(i for i, text in enumerate(broken.splitlines(), 1) if "users_fits" in text)
    return folder, line
