"""What a request asks of the database does not grow with what the learner has stored.

Counted, not timed: the statements each request runs (``set_trace_callback``) and the SQLite
virtual-machine steps they take (``set_progress_handler``), which grow with every row a query
reads.
"""

from datetime import datetime, timedelta, timezone

import pytest

from quizapp.progress import events
from quizapp.progress.db.connection import connect
from quizapp.web.storage import get_db

CARD = "kv-pool-users"
ORIGIN = {"Origin": "http://localhost"}
STEPS_PER_TICK = 1
# The counting is SQLite's (a trace callback and VM steps); the statements are the same on PostgreSQL.
pytestmark = pytest.mark.sqlite_only("counts statements and VM steps with SQLite's callbacks")


class Watch:
    """The statements and VM steps of the requests made since ``reset``."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.statements, self.ticks = [], 0

    def tick(self) -> int:
        self.ticks += 1
        return 0  # go on

    @property
    def steps(self) -> int:
        return self.ticks * STEPS_PER_TICK


@pytest.fixture
def watch(app) -> Watch:
    seen = Watch()

    @app.before_request
    def watch_the_connection():
        conn = get_db().conn
        conn.set_trace_callback(seen.statements.append)
        conn.set_progress_handler(seen.tick, STEPS_PER_TICK)

    return seen


def learner_of(client) -> str:
    with client.session_transaction() as session:
        return session["learner_id"]


def store(app, learner: str, rows: list[tuple[str, str | None, str | None]], span: timedelta) -> None:
    """Events (kind, stage, value) for the learner, evenly over ``span`` up to a minute ago. Store
    them before the learner's own: an event older than its card's newest rebuilds the card's attempt."""
    db = connect(app.config["DATABASE"])
    start = datetime.now(timezone.utc) - span - timedelta(minutes=1)
    for n, (kind, stage, value) in enumerate(rows):
        card = CARD if kind != "grade" or n % 3 else "kv-bytes-per-token"
        events.record(db, learner, events.Event(f"seed-{learner[:6]}-{n:06d}", card, kind, stage, value),
                      at=start + span * (n / len(rows)))
    db.conn.close()


def post_event(client, watch: Watch, event_id: str) -> list[str]:
    watch.reset()
    response = client.post("/api/progress/events", headers=ORIGIN, json={
        "event_id": event_id, "card_id": CARD, "kind": "reveal", "stage": "short"})
    assert response.status_code == 201, response.get_json()
    return list(watch.statements)


def test_an_event_post_runs_a_few_statements_however_much_is_stored(app, watch):
    new, returning = app.test_client(), app.test_client()
    first = post_event(new, watch, "evt-first-0001")
    returning.get("/")
    store(app, learner_of(returning), [("open", None, None), ("reveal", "short", None), ("grade", None, "good")]
          * 700 + [("reveal", "short", None)] * 1000, timedelta(days=30))
    later = post_event(returning, watch, "evt-later-0001")
    # The returning learner had revealed "short" in this attempt: one statement fewer (no attempt to write).
    assert len(first) <= 7 and len(later) <= len(first), later
    assert sum(s.startswith("COMMIT") for s in later) == 1  # one transaction


def page_cost(client, watch: Watch) -> tuple[int, int]:
    watch.reset()
    assert client.get(f"/cards/{CARD}").status_code == 200
    return len(watch.statements), watch.steps


def test_the_card_page_costs_the_same_after_ten_thousand_reveals_in_its_attempt(app, watch):
    once, many = app.test_client(), app.test_client()
    for reader in (once, many):
        reader.get(f"/cards/{CARD}")
    store(app, learner_of(many), [("reveal", "short", None)] * 10_000, timedelta(minutes=30))
    for reader in (once, many):
        post_event(reader, watch, f"evt-{id(reader)}-1")
    page_cost(once, watch), page_cost(many, watch)  # each reader's first look is stored
    (statements_once, steps_once), (statements_many, steps_many) = page_cost(once, watch), page_cost(many, watch)
    assert statements_many == statements_once
    assert steps_many <= steps_once * 1.1, (steps_once, steps_many)


def test_the_card_page_costs_the_same_after_two_thousand_graded_attempts(app, watch):
    new, returning = app.test_client(), app.test_client()
    returning.get("/")
    store(app, learner_of(returning), [("open", None, None), ("reveal", "short", None), ("answer", None, "3"),
                                       ("reveal", "full", None), ("grade", None, "good")] * 2000,
          timedelta(days=400))
    for reader in (new, returning):
        # The same attempt for both: the card started over (the returning reader's history ends
        # with the full answer of an attempt not graded), then the short answer.
        assert reader.post("/api/progress/events", headers=ORIGIN, json={
            "event_id": f"evt-{id(reader)}-0", "card_id": CARD, "kind": "reset"}).status_code == 201
        post_event(reader, watch, f"evt-{id(reader)}-1")
    page_cost(new, watch), page_cost(returning, watch)
    (statements_new, steps_new), (statements_returning, steps_returning) = page_cost(new, watch), \
        page_cost(returning, watch)
    assert statements_returning == statements_new
    assert steps_returning <= steps_new * 1.1, (steps_new, steps_returning)
