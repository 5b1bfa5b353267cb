"""quizapp: interview and training quizzes on LLM inference engineering."""

from __future__ import annotations

import fcntl
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

from flask import Flask

from .progress.quota import MAX_EXPORT_BYTES

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
        # How often the bank looks for changed card files (one look stats every file).
        BANK_REFRESH_SECONDS=1.0,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        # True (serve --secure-cookies) when readers come over HTTPS: the cookie never travels in clear.
        SESSION_COOKIE_SECURE=False,
        # How many reverse proxies in front set X-Forwarded-* (serve --behind-proxy: 1). Trusted
        # only when set: anyone can send those headers to a server reached directly.
        BEHIND_PROXY=0,
        PERMANENT_SESSION_LIFETIME=60 * 60 * 24 * 400,
        # The cookie is sent again when the session changes, and once a day (web/storage.py):
        # signing it on every response cost more than some pages' own work.
        SESSION_REFRESH_EACH_REQUEST=False,
        # A progress import may be as large as the largest export (20 MiB, progress/quota.py), so
        # every export imports again; nothing else comes near it.
        MAX_IMPORT_BYTES=MAX_EXPORT_BYTES,
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


# A secret shorter than this is not one the app made (it writes 64 hex digits): a write cut short.
MIN_SECRET_CHARS = 32


def _instance_secret(instance_path: str) -> str:
    """A random secret kept in instance/secret_key, made once, so cookies survive restarts.

    Safe when several processes start at once: the file appears only with its whole secret
    (written to a temporary file in the same folder, then renamed into place), so no process
    ever reads it empty; the writing happens under a lock, so all of them end up with the same
    secret. An empty or cut-short file (left by a crash, or by an older version that wrote in
    place) is replaced the same way by the first process that finds it.
    """
    folder = Path(instance_path)
    path = folder / "secret_key"
    secret = _read_secret(path)
    if secret:
        return secret
    with _locked(folder / "secret_key.lock"):
        # Another process may have written it while this one waited for the lock.
        secret = _read_secret(path)
        if not secret:
            secret = os.urandom(32).hex()
            _write_atomically(path, secret)
    return secret


def _read_secret(path: Path) -> str | None:
    try:
        secret = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    return secret if len(secret) >= MIN_SECRET_CHARS else None


def _write_atomically(path: Path, text: str) -> None:
    """Write to a temporary file in the same folder, flush it to disk, then rename it over ``path``."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
            handle.flush()
            # Without this a power cut after the rename can leave an empty file behind it.
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


@contextmanager
def _locked(path: Path):
    """An exclusive lock on ``path`` across processes, held for the with block."""
    with open(path, "a", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
