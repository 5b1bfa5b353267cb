"""The interviewer links a browser made, kept server-side under its session id: newest first, at
most 30, expired after the lifetime given; the database holds neither the id nor a token."""

from datetime import datetime, timedelta, timezone

from quizapp.progress import browser_sessions, interviews
from quizapp.progress.interviews import PlannedCard

START = datetime(2026, 3, 2, 14, 0, tzinfo=timezone.utc)
YEAR = timedelta(days=365)


def made(db, count):
    return [interviews.create(db, f"Candidate {n}", "", [PlannedCard("kv-pool-users")], START) for n in range(count)]


def remember_all(db, session_id, sessions, start=START):
    for n, created in enumerate(sessions):
        browser_sessions.remember(db, session_id, created.id, created.interviewer_token, YEAR,
                                  start + timedelta(seconds=n))


def test_a_browser_gets_back_its_links_newest_first_and_another_browser_none(db):
    first, second = made(db, 2)
    mine, theirs = browser_sessions.new_id(), browser_sessions.new_id()
    remember_all(db, mine, [first, second])
    at = START + timedelta(minutes=1)
    assert browser_sessions.links(db, mine, YEAR, at) == [second.interviewer_token, first.interviewer_token]
    assert browser_sessions.links(db, theirs, YEAR, at) == []
    # Remembering one again puts it first, once.
    browser_sessions.remember(db, mine, first.id, first.interviewer_token, YEAR, at)
    assert browser_sessions.links(db, mine, YEAR, at) == [first.interviewer_token, second.interviewer_token]


def test_the_database_holds_neither_the_session_id_nor_a_token(db):
    sessions = made(db, 3)
    session_id = browser_sessions.new_id()
    remember_all(db, session_id, sessions)
    stored = " ".join(str(value) for row in db.execute("SELECT * FROM browser_interviews").fetchall() for value in row)
    assert session_id not in stored
    for created in sessions:
        assert created.interviewer_token not in stored and created.interviewer_token.encode().hex() not in stored


def test_a_browser_keeps_its_30_newest_links(db):
    sessions = made(db, browser_sessions.KEPT + 3)
    session_id = browser_sessions.new_id()
    remember_all(db, session_id, sessions)
    newest = [created.interviewer_token for created in reversed(sessions)][:30]
    assert browser_sessions.links(db, session_id, YEAR, START + timedelta(hours=1)) == newest
    rows = db.execute("SELECT COUNT(*) FROM browser_interviews").fetchone()[0]
    assert rows == 30  # the three oldest are gone, not just hidden


def test_a_link_expires_after_the_lifetime_given(db):
    old, new = made(db, 2)
    session_id = browser_sessions.new_id()
    browser_sessions.remember(db, session_id, old.id, old.interviewer_token, YEAR, START)
    later = START + YEAR + timedelta(days=1)
    assert browser_sessions.links(db, session_id, YEAR, later) == []
    browser_sessions.remember(db, session_id, new.id, new.interviewer_token, YEAR, later)
    assert browser_sessions.links(db, session_id, YEAR, later) == [new.interviewer_token]
    assert db.execute("SELECT COUNT(*) FROM browser_interviews").fetchone()[0] == 1  # the expired row dropped


def test_a_session_id_has_the_shape_new_id_gives():
    assert browser_sessions.is_id(browser_sessions.new_id())
    for value in (None, 1, "", "x" * 43 + "y", "é" * 43, "a b" + "c" * 40, ["x"]):
        assert not browser_sessions.is_id(value)


def test_an_interview_is_kept_for_its_30_newest_browsers(db):
    # A visitor who opens one console with a new cookie each time replaces rows, never adds one per request.
    (created,) = made(db, 1)
    browsers = [browser_sessions.new_id() for _ in range(browser_sessions.KEPT + 5)]
    for n, session_id in enumerate(browsers):
        browser_sessions.remember(db, session_id, created.id, created.interviewer_token, YEAR,
                                  START + timedelta(seconds=n))
    assert db.execute("SELECT COUNT(*) FROM browser_interviews").fetchone()[0] == 30
    later = START + timedelta(hours=1)
    assert browser_sessions.links(db, browsers[0], YEAR, later) == []
    assert browser_sessions.links(db, browsers[-1], YEAR, later) == [created.interviewer_token]
