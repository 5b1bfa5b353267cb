"""Write transactions: one writer at a time among a process's threads, refused after the busy timeout."""

import sqlite3
import threading

import pytest

from quizapp.progress.db import connection as progress_db
from quizapp.progress.db.connection import connect, write


def test_a_writer_waits_for_the_one_before_and_stores_after_it(tmp_path):
    path = tmp_path / "w.sqlite"
    first, second = connect(path), connect(path, migrate=False)
    inside, done = threading.Event(), []

    def slow_writer():
        with write(first):
            first.execute("INSERT INTO learners (id, created_at) VALUES ('a', 'then')")
            inside.set()
            threading.Event().wait(0.2)
            done.append("first")

    thread = threading.Thread(target=slow_writer)
    thread.start()
    inside.wait()
    with write(second):
        second.execute("INSERT INTO learners (id, created_at) VALUES ('b', 'now')")
        done.append("second")
    thread.join()
    assert done == ["first", "second"]
    assert [row[0] for row in second.execute("SELECT id FROM learners ORDER BY rowid")] == ["a", "b"]


def test_a_writer_kept_waiting_past_the_busy_timeout_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(progress_db, "BUSY_TIMEOUT_MS", 50)
    path = tmp_path / "w.sqlite"
    first, second = connect(path), connect(path, migrate=False)
    inside, leave = threading.Event(), threading.Event()

    def holder():
        with write(first):
            inside.set()
            leave.wait(5)

    thread = threading.Thread(target=holder)
    thread.start()
    inside.wait()
    try:
        with pytest.raises(sqlite3.OperationalError, match="database is locked"):
            with write(second):
                pass
    finally:
        leave.set()
        thread.join()
    with write(second):  # free again
        second.execute("INSERT INTO learners (id, created_at) VALUES ('c', 'later')")
