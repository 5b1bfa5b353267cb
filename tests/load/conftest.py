"""Fixtures for the load and durability tests: a real `quizapp serve` (gunicorn, gevent
workers, SQLite in WAL mode) in its own process group, and HTTP clients that each keep
their own session cookie, so each client is its own learner.

Everything talks to 127.0.0.1 only. Every server started here is stopped at teardown
(SIGTERM to its process group, then SIGKILL), and every loop is bounded in count and time.
"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from http.cookies import SimpleCookie
from pathlib import Path

import pytest

HOST = "127.0.0.1"
# The checkout under test: its servers run its code, whatever the venv's quizapp points at.
ROOT = Path(__file__).resolve().parents[2]
READY_TIMEOUT_S = 20.0
STOP_TIMEOUT_S = 10.0
REQUEST_TIMEOUT_S = 30.0  # above the app's 15 s SQLite busy timeout
SESSION_COOKIE = "session"

CARD = "kv-pool-users"
STAGES = ("short", "full", "followup-1", "followup-2", "followup-3", "followup-4", "wrong", "taught")
GRADES = ("again", "hard", "good", "easy")

# Lines that must never appear in a server's output.
BAD_LOG_MARKERS = ("database is locked", "Traceback", "WORKER TIMEOUT")


def pytest_configure(config):
    config.addinivalue_line("markers", "load: starts real gunicorn servers and puts them under load "
                                       "(deselect with -m 'not load')")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


class QuizappServer:
    """`python -m quizapp.cli serve` as a subprocess that leads its own process group."""

    def __init__(self, db: Path, log: Path, runtime_dir: Path, secret: str, workers: int = 2, threads: int = 4,
                 env: dict | None = None, options: tuple = (), host: str = HOST):
        # A SQLite file, or a postgresql:// URL (which a Path would mangle).
        self.db = db if isinstance(db, str) and "://" in db else Path(db)
        self.log, self.workers, self.threads = Path(log), workers, threads
        self.extra_env, self.options = dict(env or {}), tuple(options)
        self.runtime_dir, self.secret = Path(runtime_dir), secret
        self.host = host
        self.port = 0
        self.proc: subprocess.Popen | None = None

    def start(self) -> "QuizappServer":
        last_error = ""
        for _attempt in range(3):  # another process may grab the free port first
            self.port = free_port()
            env = dict(os.environ)
            env.update({
                "PYTHONUNBUFFERED": "1",
                # Same key across restarts, so a learner's cookie still names them afterwards;
                # and the app never writes instance/secret_key.
                "QUIZAPP_SECRET_KEY": self.secret,
                # gunicorn >= 25 opens a control socket in $XDG_RUNTIME_DIR (else ~/.gunicorn):
                # keep it private to this test.
                "XDG_RUNTIME_DIR": str(self.runtime_dir),
            })
            env.update(self.extra_env)
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
            env.pop("GUNICORN_CMD_ARGS", None)
            cmd = [sys.executable, "-m", "quizapp.cli", "serve", "--host", self.host, "--port", str(self.port),
                   "--db", str(self.db), "--workers", str(self.workers), "--threads", str(self.threads), *self.options]
            with open(self.log, "ab") as out:
                out.write(f"\n=== {' '.join(cmd)}\n".encode())
                out.flush()
                self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                             env=env, cwd=str(self.runtime_dir), start_new_session=True)
            if self._wait_ready():
                return self
            last_error = self.log_text()[-3000:]
            self.kill()
            if "Address already in use" not in last_error:
                break
        raise AssertionError(f"quizapp serve did not answer GET /api/models within {READY_TIMEOUT_S:.0f} s; "
                             f"its output:\n{last_error}")

    def _wait_ready(self) -> bool:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                conn = http.client.HTTPConnection(self.host, self.port, timeout=2)
                conn.request("GET", "/api/models", headers={"Connection": "close"})
                status = conn.getresponse().status
                conn.close()
                if status == 200:
                    return True
            except OSError:
                pass
            time.sleep(0.1)
        return False

    @property
    def pgid(self) -> int:
        return self.proc.pid  # start_new_session: the child leads its own group

    def group_alive(self) -> bool:
        try:
            os.killpg(self.pgid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    def _signal_group(self, sig) -> None:
        try:
            os.killpg(self.pgid, sig)
        except ProcessLookupError:
            pass

    def kill(self) -> None:
        """SIGKILL the whole group (master and workers) at once, and wait until it is gone."""
        if self.proc is None:
            return
        self._signal_group(signal.SIGKILL)
        self._reap(STOP_TIMEOUT_S)

    def stop(self) -> None:
        """Graceful stop: SIGTERM to the group, SIGKILL whatever is left after STOP_TIMEOUT_S."""
        if self.proc is None:
            return
        if self.proc.poll() is None or self.group_alive():
            self._signal_group(signal.SIGTERM)
            if not self._reap(STOP_TIMEOUT_S):
                self._signal_group(signal.SIGKILL)
                self._reap(STOP_TIMEOUT_S)

    def _reap(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return False
        # Workers are reparented once the master dies; wait for them too.
        while self.group_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        return not self.group_alive()

    def log_text(self) -> str:
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return ""


@pytest.fixture
def start_server(tmp_path):
    """Start servers with `start_server(db=..., log=...)`; all of them are stopped at teardown."""
    started: list[QuizappServer] = []
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    secret = secrets.token_hex(32)

    def start(db: Path | str | None = None, log: Path | None = None, **options) -> QuizappServer:
        server = QuizappServer(db or tmp_path / "quizapp.sqlite", log or tmp_path / f"server-{len(started)}.log",
                               runtime, secret, **options)
        started.append(server)
        return server.start()

    yield start
    for server in started:
        server.stop()


@dataclass
class Reply:
    status: int
    text: str
    seconds: float

    @property
    def data(self):
        try:
            return json.loads(self.text)
        except ValueError:
            return None


class Learner:
    """One HTTP client with its own session cookie (so its own learner).

    Each request uses a new connection (Connection: close): a dropped keep-alive connection
    could otherwise make it ambiguous whether a POST reached the server.
    """

    def __init__(self, port: int):
        self.port = port
        self.cookie: str | None = None
        self.learner_id: str | None = None

    def request(self, method: str, path: str, body=None) -> Reply:
        headers = {"Connection": "close", "Accept": "application/json"}
        if self.cookie:
            headers["Cookie"] = f"{SESSION_COOKIE}={self.cookie}"
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        started = time.perf_counter()
        conn = http.client.HTTPConnection(HOST, self.port, timeout=REQUEST_TIMEOUT_S)
        try:
            conn.request(method, path, body=payload, headers=headers)
            response = conn.getresponse()
            text = response.read().decode("utf-8", errors="replace")
            for header in response.headers.get_all("Set-Cookie") or ():
                jar = SimpleCookie()
                jar.load(header)
                if SESSION_COOKIE in jar:
                    self.cookie = jar[SESSION_COOKIE].value or None
        finally:
            conn.close()
        return Reply(response.status, text, time.perf_counter() - started)

    def join(self) -> str:
        """The first visit: GET /api/progress sets the cookie and names the learner."""
        reply = self.request("GET", "/api/progress")
        assert reply.status == 200, f"GET /api/progress answered {reply.status}: {reply.text[:300]}"
        assert self.cookie, "GET /api/progress set no session cookie"
        self.learner_id = reply.data["learner"]["id"]
        return self.learner_id

    def post_event(self, event: dict) -> Reply:
        return self.request("POST", "/api/progress/events", event)


def open_db(path: Path, readonly: bool = True) -> sqlite3.Connection:
    """A plain sqlite3 connection. Read-write (without writing) lets SQLite recover a WAL on open."""
    if readonly:
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=15)
    return sqlite3.connect(str(path), timeout=15)


def assert_clean_log(text: str, name: str = "server log") -> None:
    for marker in BAD_LOG_MARKERS:
        if marker in text:
            at = text.index(marker)
            raise AssertionError(f"{name} contains {marker!r}:\n{text[max(0, at - 1500):at + 1500]}")
    # The access log: never a 5xx.
    fives = [line for line in text.splitlines() if '" 5' in line and "HTTP/1." in line]
    assert not fives, f"{name} has 5xx responses:\n" + "\n".join(fives[:10])
