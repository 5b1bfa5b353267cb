"""quizapp: interview and training quizzes on LLM inference engineering."""

from __future__ import annotations

import os
from pathlib import Path

from flask import Flask

# templates/, static/ and questions/ live at the top of the repository, beside the package.
ROOT = Path(__file__).resolve().parent.parent


def create_app(overrides: dict | None = None) -> Flask:
    """The app factory: configuration, blueprints, error pages.

    Settings, each layer over the ones before: the defaults below, ``instance/config.py``,
    ``QUIZAPP_*`` environment variables (``QUIZAPP_AUTHOR_TOOLS=0``; values read as JSON where
    they parse), then ``overrides``: a test's settings, or ``quizapp serve --db/--questions``.
    """
    app = Flask(
        __name__,
        instance_relative_config=True,
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
    )
    app.config.from_mapping(
        DATABASE=os.path.join(app.instance_path, "quizapp.sqlite"),
        QUESTIONS_DIR=str(ROOT / "questions"),
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        PERMANENT_SESSION_LIFETIME=60 * 60 * 24 * 400,
        # A progress import may be up to 20 MB; nothing else comes near it.
        MAX_IMPORT_BYTES=20 * 1024 * 1024,
        # Author tools show every stage of every card, and interview-only cards: open on a
        # loopback address, behind AUTHOR_TOKEN elsewhere ("token": everywhere), off with False.
        AUTHOR_TOOLS=True,
        AUTHOR_TOKEN=None,  # quizapp serve makes one when the server needs it
        # The address the server listens on (quizapp serve --host sets it).
        SERVER_HOST="127.0.0.1",
        # A candidate's event stream closes after this long and the browser reconnects; each
        # process keeps at most INTERVIEW_STREAMS open, so streams never take all its threads.
        INTERVIEW_STREAM_SECONDS=25,
        INTERVIEW_STREAMS=2,
        # Until every form carries a CSRF token (the CSRF branch), only views that call
        # CSRFProtect.protect() check it: the interview pages and their API.
        WTF_CSRF_CHECK_DEFAULT=False,
    )
    app.config.from_pyfile("config.py", silent=True)
    app.config.from_prefixed_env("QUIZAPP")
    app.config.update(overrides or {})
    if app.config["MAX_CONTENT_LENGTH"] is None:
        # Room for the import file and the form around it; a larger body is refused with 413.
        app.config["MAX_CONTENT_LENGTH"] = app.config["MAX_IMPORT_BYTES"] + 1024 * 1024
    os.makedirs(app.instance_path, exist_ok=True)
    secret = app.config.get("SECRET_KEY")
    if not secret:
        app.config["SECRET_KEY"] = _instance_secret(app.instance_path)
    elif isinstance(secret, (int, float)):
        # QUIZAPP_SECRET_KEY is read as JSON: an all-digit key arrives as a number. Keys are text.
        app.config["SECRET_KEY"] = str(secret)

    # Imported here, not at the top: the calculator and the CLI import quizapp without the web layer.
    from .web import register

    register(app)
    return app


def _instance_secret(instance_path: str) -> str:
    """A random secret kept in instance/secret_key, made once, so cookies survive restarts."""
    path = Path(instance_path) / "secret_key"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text(encoding="utf-8").strip()
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(os.urandom(32).hex())
    return path.read_text(encoding="utf-8").strip()
