"""Database connections kept across requests, none shared by two requests at once (a thread's or a greenlet's)."""

import sqlite3
import threading

import psycopg

from quizapp import create_app
from quizapp.web import storage


def test_a_thread_opens_one_connection_for_all_its_requests(client, monkeypatch):
    opened = []
    real_connect = storage.connect
    monkeypatch.setattr(storage, "connect", lambda *a, **k: opened.append(a) or real_connect(*a, **k))
    monkeypatch.setattr(storage, "_idle", [])  # as a new process starts
    for _ in range(5):
        assert client.get("/cards/kv-pool-users").status_code == 200
    client.post("/api/progress/events", json={"event_id": "e1", "card_id": "kv-pool-users", "kind": "open"})
    assert len(opened) == 1


def test_each_thread_has_its_own(app):
    connections = []
    together = threading.Barrier(3)

    def look():
        with app.app_context():
            connections.append(storage.get_db().conn)
            together.wait(timeout=10)  # all three requests at once

    threads = [threading.Thread(target=look) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(c) for c in connections}) == 3


def test_another_database_in_the_same_thread_gets_its_own_connection(new_database, questions_dir):
    first = create_app({"TESTING": True, "DATABASE": new_database("a"), "QUESTIONS_DIR": str(questions_dir)})
    second = create_app({"TESTING": True, "DATABASE": new_database("b"), "QUESTIONS_DIR": str(questions_dir)})
    with first.app_context():
        a = storage.get_db()
        a.execute("CREATE TABLE mark (x INTEGER)")
    with second.app_context():
        b = storage.get_db()
        assert "mark" not in b.table_names()
    # the first app's connection was closed when the thread moved to the second database
    try:
        a.execute("SELECT 1")
        closed = False
    except (sqlite3.ProgrammingError, psycopg.OperationalError):
        closed = True
    assert closed


def test_a_request_that_ends_inside_a_transaction_leaves_none_behind(app):
    with app.app_context():
        db = storage.get_db()
        db.conn.execute("BEGIN")
        db.conn.execute("CREATE TABLE half_done (x INTEGER)")
    with app.app_context():
        db = storage.get_db()
        assert not db.conn.in_transaction
        assert "half_done" not in db.table_names()


class _Day:
    def __init__(self, iso):
        self.iso = iso

    def today(self):
        return self

    def isoformat(self):
        return self.iso


def test_the_cookie_is_sent_on_the_first_visit_then_once_a_day(client, monkeypatch):
    monkeypatch.setattr(storage, "date", _Day("2026-12-01"))
    first = client.get("/cards/kv-pool-users")
    assert "session=" in first.headers.get("Set-Cookie", "")
    assert "Expires=" in first.headers["Set-Cookie"]  # lasts PERMANENT_SESSION_LIFETIME
    again = client.get("/cards/kv-pool-users")
    assert "Set-Cookie" not in again.headers
    monkeypatch.setattr(storage, "date", _Day("2026-12-02"))
    next_day = client.get("/cards/kv-pool-users")
    assert "session=" in next_day.headers.get("Set-Cookie", "")
    with client.session_transaction() as session:
        assert session["day"] == "2026-12-02"
