"""The app's settings: one table, each with its default and what it is for.

Settings come in layers, each over the one before: these defaults, ``instance/config.py``,
``QUIZAPP_*`` environment variables, then ``quizapp serve``'s options (``create_app``).
README's "Settings" list is held to this table by ``tests/test_readme.py``.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections import namedtuple
from contextlib import contextmanager
from pathlib import Path

from .progress.quota import MAX_EXPORT_BYTES

# templates/, static/ and questions/ live at the top of the repository, beside the package.
ROOT = Path(__file__).resolve().parent.parent

Setting = namedtuple("Setting", ("name", "default", "help"))

SETTINGS = (
    Setting("DATABASE", "quizapp.sqlite",
            "where progress and interviews are kept: a SQLite file (default instance/quizapp.sqlite), or a "
            "postgresql:// URL that several servers share (QUIZAPP_DATABASE; serve --db)"),
    Setting("QUESTIONS_DIR", str(ROOT / "questions"), "the folder of question cards (serve --questions)"),
    Setting("BANK_REFRESH_SECONDS", 1.0,
            "how often the bank looks for changed card files (one look stats every file)"),
    Setting("SECRET_KEY", None,
            "the session cookie's signing key (default: made once in instance/secret_key)"),
    Setting("SESSION_COOKIE_SAMESITE", "Lax", "Flask's: the session cookie is not sent on cross-site posts"),
    Setting("SESSION_COOKIE_HTTPONLY", True, "Flask's: scripts cannot read the session cookie"),
    Setting("SESSION_COOKIE_SECURE", False,
            "True (serve --secure-cookies) when readers come over HTTPS: the cookie never travels in clear"),
    Setting("BEHIND_PROXY", 0,
            "how many reverse proxies in front set X-Forwarded-* (serve --behind-proxy: 1); trusted "
            "only when set, since anyone can send those headers to a server reached directly"),
    Setting("PERMANENT_SESSION_LIFETIME", 60 * 60 * 24 * 400,
            "Flask's: how long a session cookie lives, in seconds (and each interview link it lists on "
            "/interview, from when it was made)"),
    Setting("SESSION_REFRESH_EACH_REQUEST", False,
            "Flask's: the cookie is sent again when the session changes and once a day (web/storage.py), "
            "since signing it on every response cost more than some pages' own work"),
    Setting("MAX_IMPORT_BYTES", MAX_EXPORT_BYTES,
            "the largest progress import: as large as the largest export (20 MiB, progress/quota.py), "
            "so every export imports again"),
    Setting("MAX_CONTENT_LENGTH", None,
            "Flask's: the largest request body (default: the import limit and 1 MiB of form around it)"),
    Setting("AUTHOR_TOOLS", "auto",
            'the author tools (every stage of every card) and interview-only cards: "auto" opens them to a '
            "reader at this machine (a loopback address, not --behind-proxy, no forwarded client elsewhere) "
            "and asks everyone else for AUTHOR_TOKEN; set explicitly it wins: True opens them on any loopback "
            'address, "token" asks for the token everywhere, False turns them off'),
    Setting("AUTHOR_TOKEN", None, "the author token (default: quizapp serve makes one when the server needs it)"),
    Setting("SERVER_HOST", "127.0.0.1", "the address the server listens on (serve --host)"),
    Setting("TRUSTED_HOSTS", None,
            "Flask's: the names a request's Host may give, any other a 400 (default: the bound address, and "
            "localhost on a loopback one; any name on 0.0.0.0; behind a proxy the host it forwards)"),
    Setting("INTERVIEW_STREAM_SECONDS", 25,
            "how long a candidate's event stream stays open before the browser reconnects"),
    Setting("INTERVIEW_STREAMS", 500,
            "how many event streams each process keeps open in all (a gevent worker's stream is a greenlet; "
            "under gthread workers at most 2, so streams never take all its threads)"),
    Setting("INTERVIEW_STREAMS_PER_LINK", 4,
            "how many event streams each process keeps open for one candidate link: one visitor's streams "
            "cannot starve another interview's; past either cap a stream sends the state once and the page polls"),
    Setting("WORKER_CLASS", "gevent", "the server's workers (serve --worker-class): gevent, gthread or dev"),
)


def defaults(instance_path: str) -> dict:
    """Every setting's default, files of the instance folder made whole."""
    values = {setting.name: setting.default for setting in SETTINGS}
    values["DATABASE"] = os.path.join(instance_path, values["DATABASE"])
    return values


# A secret shorter than this is not one the app made (it writes 64 hex digits): a write cut short.
MIN_SECRET_CHARS = 32


def instance_secret(instance_path: str) -> str:
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
