"""Writers of several processes take turns on a file lock, and the next one is woken promptly."""

import multiprocessing
import sqlite3
import time

import pytest

from quizapp.progress.db import writer_turn as turn_module
from quizapp.progress.db.connection import connect, write
from quizapp.progress.db.writer_turn import is_busy, lock_path, writer_turn


def _hold_turn(path: str, held, release, seconds_held) -> None:
    """In another process: take the turn, say so, keep it until told (or ``seconds_held``)."""
    db = connect(path, migrate=False)
    with write(db):
        db.execute("INSERT INTO learners (id, created_at) VALUES ('other', 'then')")
        held.set()
        release.wait(seconds_held)


@pytest.fixture
def other_process(tmp_path):
    path = str(tmp_path / "turns.sqlite")
    connect(path).conn.close()
    context = multiprocessing.get_context("fork")
    held, release = context.Event(), context.Event()

    def start(seconds_held=5.0):
        process = context.Process(target=_hold_turn, args=(path, held, release, seconds_held))
        process.start()
        assert held.wait(10)
        return process

    yield path, start, release
    release.set()


def test_a_writer_of_another_process_waits_for_the_turn_and_goes_at_once_after_it(other_process):
    path, start, release = other_process
    process = start(seconds_held=0.45)
    db = connect(path, migrate=False)
    began = time.monotonic()
    with write(db):
        waited = time.monotonic() - began
        db.execute("INSERT INTO learners (id, created_at) VALUES ('me', 'now')")
    process.join(5)
    # held 0.45 s by the other process: woken within a few ms of its commit. SQLite's busy
    # handler (tries at 328, 428, 528 ms …) would have woken it 78 ms late.
    assert 0.4 < waited < 0.45 + 0.04
    assert [r[0] for r in db.execute("SELECT id FROM learners ORDER BY rowid")] == ["other", "me"]


def test_a_turn_kept_past_the_timeout_is_refused_with_sqlites_words(other_process):
    path, start, release = other_process
    start()
    with pytest.raises(sqlite3.OperationalError, match="database is locked") as refused:
        with writer_turn(path, 0.05):
            pass
    release.set()
    assert is_busy(refused.value) and refused.value.sqlite_errorcode == sqlite3.SQLITE_BUSY


def test_only_a_lock_that_stayed_taken_is_busy(tmp_path):
    db = connect(tmp_path / "db.sqlite")
    with pytest.raises(sqlite3.OperationalError) as missing:
        db.execute("SELECT * FROM no_such_table")
    assert not is_busy(missing.value)
    other = sqlite3.connect(tmp_path / "db.sqlite", timeout=0)
    db.conn.execute("BEGIN IMMEDIATE")
    with pytest.raises(sqlite3.OperationalError) as locked:
        other.execute("BEGIN IMMEDIATE")
    db.conn.rollback()
    assert is_busy(locked.value)  # SQLite's own


def test_each_process_opens_its_own_lock_file_description(tmp_path):
    """A lock file opened before a fork would be shared by parent and child, and flock would let
    both in: files are kept by process id."""
    path = str(tmp_path / "forked.sqlite")
    with writer_turn(path, 1):
        pass
    assert any(key[0] == __import__("os").getpid() and key[1] == lock_path(path) for key in turn_module._files)


def test_an_in_memory_database_needs_no_lock_file():
    assert lock_path(":memory:") is None and lock_path("") is None
    with writer_turn(":memory:", 1):
        pass


def test_a_writer_inside_a_writer_of_another_database_does_not_wait_for_itself(tmp_path):
    first, second = connect(tmp_path / "a.sqlite"), connect(tmp_path / "b.sqlite")
    with write(first):
        with write(second):
            second.execute("INSERT INTO learners (id, created_at) VALUES ('b', 'now')")
        first.execute("INSERT INTO learners (id, created_at) VALUES ('a', 'now')")
    assert first.execute("SELECT COUNT(*) FROM learners").fetchone()[0] == 1
