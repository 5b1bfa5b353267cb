"""Waiting for a change another server made: an interview's candidate stream wakes when the
session changes, on whichever app server the change was written.

On PostgreSQL each change sends a NOTIFY on one channel with the session's id as its payload
(``notify``, inside the writer's transaction, so it is delivered when the change commits and
never for one rolled back). Each server process keeps one connection that LISTENs
(``_Listener``, started by the first stream that waits) and wakes the streams waiting on that
session. The state itself is always read from the database after a wake-up, so a missed
notification (the listener reconnecting) costs at most ``LONGEST_WAIT_S``, and a reconnect to any
server reads the same state.

On SQLite there is one database file and no other server: a stream looks again every
``SQLITE_POLL_S``, as it always has.
"""

from __future__ import annotations

import os
import threading
import time

from . import postgres

CHANNEL = "quizapp_interviews"
SQLITE_POLL_S = 0.5
# A stream re-reads its session at least this often on PostgreSQL, notification or not.
LONGEST_WAIT_S = 5.0
RECONNECT_S = 1.0


def notify(db, key: str) -> None:
    """Inside a write: those watching ``key`` wake once it commits (PostgreSQL; nothing to do on SQLite)."""
    if isinstance(db, postgres.PostgresDatabase):
        db.execute("SELECT pg_notify(?, ?)", [CHANNEL, key])


class Watch:
    """What a stream waits on: ``wait()`` returns once ``key`` may have changed since the last
    wait (or since the watch was made), or after a while; the caller then reads the state."""

    def __init__(self, db, key: str):
        self.key = key
        self.listener = _listener(db.url) if isinstance(db, postgres.PostgresDatabase) else None
        self.seen = self.listener.count(key) if self.listener else 0

    def wait(self) -> None:
        if self.listener is None:
            time.sleep(SQLITE_POLL_S)
            return
        self.seen = self.listener.wait(self.key, self.seen, LONGEST_WAIT_S)


class _Listener:
    """One LISTEN connection per process and database, on a daemon thread."""

    def __init__(self, url: str):
        self.url = url
        self.changed = threading.Condition()
        self.counts: dict[str, int] = {}
        self.epoch = 0  # bumped on every (re)connect: whatever happened meanwhile was not heard
        threading.Thread(target=self._run, name="quizapp-listen", daemon=True).start()

    def count(self, key: str) -> int:
        with self.changed:
            return self.counts.get(key, 0) + self.epoch

    def wait(self, key: str, seen: int, seconds: float) -> int:
        with self.changed:
            self.changed.wait_for(lambda: self.counts.get(key, 0) + self.epoch != seen, timeout=seconds)
            return self.counts.get(key, 0) + self.epoch

    def _run(self) -> None:
        import psycopg

        while True:
            try:
                with psycopg.connect(self.url, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self._wake_all()
                    for note in conn.notifies():
                        with self.changed:
                            if len(self.counts) > 100_000:  # sessions long over; a count is only compared
                                self.counts.clear()
                                self.epoch += 1
                            self.counts[note.payload] = self.counts.get(note.payload, 0) + 1
                            self.changed.notify_all()
            except psycopg.Error:
                self._wake_all()
                time.sleep(RECONNECT_S)

    def _wake_all(self) -> None:
        with self.changed:
            self.epoch += 1
            self.changed.notify_all()


_listeners: dict[tuple[int, str], _Listener] = {}
_made = threading.Lock()


def _listener(url: str) -> _Listener:
    # Per process: gunicorn forks workers from the app made here, and a thread does not survive a fork.
    key = (os.getpid(), url)
    with _made:
        if key not in _listeners:
            _listeners[key] = _Listener(url)
        return _listeners[key]
