"""POST /api/progress/events under load and across a crash, against the real server.

Each test starts `quizapp serve` (gunicorn, its default 2 gevent workers, SQLite in WAL
mode) on a fresh database and talks to it over HTTP on 127.0.0.1:

1. 50 learners post 100 events each at once, with retries (some from two threads at once):
   every event is stored exactly once, first posts get 201, retries 200, never a 5xx and
   never "database is locked".
2. The server is SIGKILLed mid-load: every event it acknowledged is in the database
   afterwards, a grade is never half-stored, and the restarted server answers retries 200.
3. The same grade posted 5 times at once is reviewed once; distinct concurrent grades of one
   card are all applied (no lost update of the card's state).
4. Concurrent grades of one card are applied in time order (the state equals a replay of the log).

Budget: about 20-30 s on a 2-core machine. Every loop is bounded in count and in time.
"""

from __future__ import annotations

import http.client
import json
import random
import secrets
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass, field

import pytest

from .conftest import CARD, GRADES, REQUEST_TIMEOUT_S, STAGES, Learner, assert_clean_log, open_db

pytestmark = pytest.mark.load

CONNECTION_ERRORS = (OSError, http.client.HTTPException)


def new_event_id(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(6)}"  # letters, digits and '-': within [A-Za-z0-9_.:-]{8,100}


def random_event(rng: random.Random, prefix: str, grades: bool = False) -> dict:
    """A reveal of some stage, a typed answer, an open or a follow-up (and, if asked, a grade)."""
    event = {"event_id": new_event_id(prefix), "card_id": CARD}
    roll = rng.random()
    if grades and roll < 0.10:
        event.update(kind="grade", value=rng.choice(GRADES))
    elif roll < 0.60:
        event.update(kind="reveal", stage=rng.choice(STAGES))
    elif roll < 0.88:
        event.update(kind="answer", stage="short", value=f"{rng.randint(1, 4096)} sequences fit in the pool")
    elif roll < 0.94:
        event.update(kind="open")
    else:
        event.update(kind="followup", stage=f"followup-{rng.randint(1, 4)}", value=rng.choice(("knew", "missed")))
    return event


@dataclass
class Posted:
    step: str  # new, dup (a new id posted by two threads at once) or retry
    event_id: str
    status: int | None
    text: str
    seconds: float
    error: str | None = None


def post(learner: Learner, event: dict, step: str, barrier: threading.Barrier | None = None) -> Posted:
    try:
        if barrier is not None:
            barrier.wait()
        reply = learner.post_event(event)
    except (CONNECTION_ERRORS + (threading.BrokenBarrierError,)) as error:
        return Posted(step, event["event_id"], None, "", 0.0, repr(error))
    return Posted(step, event["event_id"], reply.status, reply.text, reply.seconds)


def post_concurrently(learner: Learner, events: list[dict], step: str) -> list[Posted]:
    """Post the events from as many threads, released together."""
    barrier = threading.Barrier(len(events), timeout=REQUEST_TIMEOUT_S)
    with ThreadPoolExecutor(max_workers=len(events)) as pool:
        futures = [pool.submit(post, learner, event, step, barrier) for event in events]
        return [future.result(timeout=2 * REQUEST_TIMEOUT_S) for future in futures]


# --- 1. many learners at once -------------------------------------------------------------

N_CLIENTS = 50
N_STEPS = 100  # per client: new events, concurrent duplicates and retries
N_DUPS = 4  # new ids posted by two threads at the same moment
N_RETRIES = 8  # an id already acknowledged, posted again
LOAD_BUDGET_S = 45.0


def client_plan(rng: random.Random) -> list[str]:
    rest = ["new"] * (N_STEPS - N_DUPS - N_RETRIES - 1) + ["dup"] * N_DUPS + ["retry"] * N_RETRIES
    rng.shuffle(rest)
    return ["new", *rest]  # a retry always has something to retry


def run_client(index: int, learner: Learner, start: threading.Barrier, deadline: float) -> list[Posted]:
    rng = random.Random(index)
    records: list[Posted] = []
    acknowledged: list[dict] = []
    start.wait()
    for seq, step in enumerate(client_plan(rng)):
        if time.monotonic() > deadline:
            records.append(Posted(step, "-", None, "", 0.0, f"client {index} ran out of time at step {seq}"))
            break
        if step == "retry":
            records.append(post(learner, rng.choice(acknowledged), "retry"))
            continue
        event = random_event(rng, f"c{index:02d}.{seq:03d}")
        if step == "dup":
            got = post_concurrently(learner, [event, event], "dup")
            records += got
            ok = any(p.status == 201 for p in got)
        else:
            record = post(learner, event, "new")
            records.append(record)
            ok = record.status == 201
        if ok:
            acknowledged.append(event)
    return records


def test_concurrent_learners_store_every_event_exactly_once(start_server, tmp_path):
    db = tmp_path / "quizapp.sqlite"
    server = start_server(db=db)
    learners = [Learner(server.port) for _ in range(N_CLIENTS)]
    with ThreadPoolExecutor(max_workers=16) as pool:
        ids = list(pool.map(Learner.join, learners))
    assert len(set(ids)) == N_CLIENTS, "each client should be its own learner"

    start = threading.Barrier(N_CLIENTS, timeout=30)
    began = time.monotonic()
    with ThreadPoolExecutor(max_workers=N_CLIENTS) as pool:
        futures = [pool.submit(run_client, i, learner, start, began + LOAD_BUDGET_S)
                   for i, learner in enumerate(learners)]
        per_client = [future.result(timeout=LOAD_BUDGET_S + 2 * REQUEST_TIMEOUT_S) for future in futures]
    elapsed = time.monotonic() - began
    server.stop()  # a graceful stop: the log is complete and the database closed

    records = [r for client in per_client for r in client]
    latencies = sorted(r.seconds for r in records if r.status) or [0.0]
    print(f"\n{len(records)} requests from {N_CLIENTS} learners in {elapsed:.1f} s = {len(records) / elapsed:.0f}/s, "
          f"p50 {latencies[len(latencies) // 2] * 1000:.0f} ms, max {latencies[-1] * 1000:.0f} ms")

    errors = [r for r in records if r.error]
    assert not errors, f"{len(errors)} requests failed, e.g. {errors[:5]}"
    statuses = Counter(r.status for r in records)
    assert set(statuses) <= {200, 201}, f"statuses {dict(statuses)}; e.g. " + repr(
        [r for r in records if r.status not in (200, 201)][:5])
    locked = [r for r in records if "database is locked" in r.text]
    assert not locked, f"'database is locked' in {len(locked)} responses, e.g. {locked[:3]}"

    expected: set[tuple[str, str]] = set()
    wrong: list[str] = []
    for learner_id, client in zip(ids, per_client):
        by_id: dict[str, list[Posted]] = {}
        for record in client:
            by_id.setdefault(record.event_id, []).append(record)
            body = json_of(record.text)
            if body != {"event_id": record.event_id, "stored": record.status == 201}:
                wrong.append(f"{record.step} {record.event_id}: {record.status} {record.text!r}")
        for event_id, posts in by_id.items():
            expected.add((learner_id, event_id))
            firsts = sorted(p.status for p in posts if p.step in ("new", "dup"))
            retries = [p.status for p in posts if p.step == "retry"]
            want = [200, 201] if posts[0].step == "dup" else [201]
            if firsts != want or any(s != 200 for s in retries):
                wrong.append(f"{event_id}: first posts {firsts} (want {want}), retries {retries} (want all 200)")
    assert not wrong, f"{len(wrong)} wrong answers, e.g.:\n" + "\n".join(wrong[:10])
    assert sum(statuses.values()) - len(expected) == statuses[200], "exactly one 201 per distinct event id"

    with closing(open_db(db)) as conn:
        rows = conn.execute("SELECT learner_id, event_id FROM events").fetchall()
        learner_rows = {row[0] for row in conn.execute("SELECT id FROM learners")}
    assert len(rows) == len(set(rows)) == len(expected), (len(rows), len(expected))
    assert set(rows) == expected, (f"missing {sorted(expected - set(rows))[:5]}, "
                                   f"unexpected {sorted(set(rows) - expected)[:5]}")
    assert learner_rows == set(ids), "a request lost its cookie and made a new learner"
    assert_clean_log(server.log_text())


def json_of(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return None


# --- 2. SIGKILL mid-load ------------------------------------------------------------------

N_CRASH_CLIENTS = 20
LOAD_BEFORE_KILL_S = 1.5
MIN_ACKED_BEFORE_KILL = 200
MAX_EVENTS_PER_CRASH_CLIENT = 5000
CRASH_BUDGET_S = 20.0


@dataclass
class Churn:
    learner: Learner
    acknowledged: dict[str, dict] = field(default_factory=dict)  # event_id -> event, answered 201 or 200
    in_flight: dict | None = None  # the event whose POST got no answer (the server died under it)
    failed_at: float | None = None
    error: str | None = None
    wrong: list[str] = field(default_factory=list)


def churn(index: int, state: Churn, stop: threading.Event, deadline: float) -> None:
    rng = random.Random(1000 + index)
    for seq in range(MAX_EVENTS_PER_CRASH_CLIENT):
        if stop.is_set() or time.monotonic() > deadline:
            return
        retry = bool(state.acknowledged) and rng.random() < 0.05
        if retry:
            event = state.acknowledged[rng.choice(list(state.acknowledged))]
        else:
            event = random_event(rng, f"k{index:02d}.{seq:04d}", grades=True)
        try:
            reply = state.learner.post_event(event)
        except CONNECTION_ERRORS as error:
            state.failed_at, state.error = time.monotonic(), repr(error)
            if not retry:
                state.in_flight = event
            return
        want = 200 if retry else 201
        if reply.status != want:
            state.wrong.append(f"{'retry' if retry else 'new'} {event['event_id']}: {reply.status} {reply.text[:200]}")
        if reply.status in (200, 201):
            state.acknowledged[event["event_id"]] = event


def test_acknowledged_events_survive_sigkill(start_server, tmp_path):
    db = tmp_path / "quizapp.sqlite"
    server = start_server(db=db, log=tmp_path / "killed.log")
    states = [Churn(Learner(server.port)) for _ in range(N_CRASH_CLIENTS)]
    for state in states:
        state.learner.join()

    stop = threading.Event()
    began = time.monotonic()
    threads = [threading.Thread(target=churn, args=(i, s, stop, began + CRASH_BUDGET_S), daemon=True)
               for i, s in enumerate(states)]
    for thread in threads:
        thread.start()
    # Let the load run, with enough acknowledged events to make the check worth something.
    while time.monotonic() - began < 10 and (
            time.monotonic() - began < LOAD_BEFORE_KILL_S
            or sum(len(s.acknowledged) for s in states) < MIN_ACKED_BEFORE_KILL):
        time.sleep(0.05)
    killed_at = time.monotonic()
    server.kill()  # SIGKILL to the master and every worker at once
    stop.set()
    for thread in threads:
        thread.join(timeout=REQUEST_TIMEOUT_S + 5)
    assert not any(t.is_alive() for t in threads), "a client thread did not finish"
    assert not server.group_alive(), "the killed server's process group is still alive"

    early = [s.error for s in states if s.failed_at is not None and s.failed_at < killed_at]
    assert not early, f"requests failed before the kill: {early[:5]}"
    wrong = [w for s in states for w in s.wrong]
    assert not wrong, f"{len(wrong)} wrong answers before the kill, e.g. {wrong[:5]}"
    acked_total = sum(len(s.acknowledged) for s in states)
    assert acked_total >= MIN_ACKED_BEFORE_KILL, f"only {acked_total} events acknowledged before the kill"
    assert_clean_log(server.log_text(), "log of the killed server")
    print(f"\n{acked_total} events acknowledged before SIGKILL, "
          f"{sum(s.in_flight is not None for s in states)} in flight; wal present: {db.with_name(db.name + '-wal').exists()}")

    # Opening the database recovers the WAL: everything acknowledged must be there, once.
    with closing(open_db(db, readonly=False)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        for state in states:
            stored = Counter(row[0] for row in conn.execute(
                "SELECT event_id FROM events WHERE learner_id = ?", [state.learner.learner_id]))
            missing = [e for e in state.acknowledged if stored[e] != 1]
            assert not missing, f"{len(missing)} acknowledged events lost by learner {state.learner.learner_id}: " \
                                f"{missing[:5]}"
        assert_grades_consistent(conn)

    # The restarted server: same database, same cookies.
    server = start_server(db=db, log=tmp_path / "restarted.log")
    for state in states:
        before = state.learner.learner_id
        state.learner.port = server.port
        assert state.learner.join() == before, "the cookie should still name the same learner"
    retried = 0
    for state in states:
        for event_id in list(state.acknowledged)[-5:]:
            reply = state.learner.post_event(state.acknowledged[event_id])
            assert (reply.status, json_of(reply.text)) == (200, {"event_id": event_id, "stored": False}), \
                f"retry of acknowledged {event_id}: {reply.status} {reply.text}"
            retried += 1
        if state.in_flight:  # the client never heard back: it retries, and either answer is right
            reply = state.learner.post_event(state.in_flight)
            assert reply.status in (200, 201), f"retry of in-flight event: {reply.status} {reply.text}"
            state.acknowledged[state.in_flight["event_id"]] = state.in_flight
    fresh = {"event_id": new_event_id("after-restart"), "card_id": CARD, "kind": "reveal", "stage": "full"}
    reply = states[0].learner.post_event(fresh)
    assert reply.status == 201, reply.text
    summary = states[0].learner.request("GET", "/api/progress")
    assert summary.status == 200 and summary.data["cards_seen"] == 1, summary.text[:300]
    server.stop()

    with closing(open_db(db)) as conn:
        for state in states:
            stored = Counter(row[0] for row in conn.execute(
                "SELECT event_id FROM events WHERE learner_id = ?", [state.learner.learner_id]))
            assert all(stored[e] == 1 for e in state.acknowledged)
            extra = set(stored) - set(state.acknowledged) - {fresh["event_id"]}
            assert not extra, f"events stored that no client sent: {sorted(extra)[:5]}"
        assert_grades_consistent(conn)
    assert_clean_log(server.log_text(), "log of the restarted server")
    assert retried > 0


def assert_grades_consistent(conn) -> None:
    """A grade is its event, one review_log row and the card's state, all or nothing."""
    orphans = conn.execute(
        "SELECT e.learner_id, e.event_id FROM events e LEFT JOIN review_log r "
        "ON r.learner_id = e.learner_id AND r.event_id = e.event_id WHERE e.kind = 'grade' AND r.id IS NULL"
    ).fetchall()
    assert not orphans, f"grade events without their review: {orphans[:5]}"
    strays = conn.execute(
        "SELECT r.learner_id, r.event_id FROM review_log r LEFT JOIN events e "
        "ON e.learner_id = r.learner_id AND e.event_id = r.event_id WHERE e.event_id IS NULL").fetchall()
    assert not strays, f"reviews without their grade event: {strays[:5]}"
    twice = conn.execute("SELECT learner_id, event_id, COUNT(*) FROM review_log GROUP BY 1, 2 HAVING COUNT(*) > 1"
                         ).fetchall()
    assert not twice, f"grades reviewed more than once: {twice[:5]}"
    reps = conn.execute(
        "SELECT s.learner_id, s.card_id, s.reps, (SELECT COUNT(*) FROM review_log r WHERE r.learner_id = s.learner_id "
        "AND r.card_id = s.card_id) FROM card_states s").fetchall()
    off = [row for row in reps if row[2] != row[3]]
    assert not off, f"card_states.reps differs from the number of reviews: {off[:5]}"


# --- 3. a grade retried at once -----------------------------------------------------------

GRADE_ROUNDS = 10
GRADE_COPIES = 5


def test_concurrent_grade_retries_review_once(start_server, tmp_path):
    db = tmp_path / "quizapp.sqlite"
    server = start_server(db=db)
    learner = Learner(server.port)
    learner.join()

    grade_ids = []
    for round_ in range(GRADE_ROUNDS):
        event = {"event_id": new_event_id(f"grade-{round_:02d}"), "card_id": CARD, "kind": "grade",
                 "value": GRADES[round_ % len(GRADES)]}
        got = post_concurrently(learner, [event] * GRADE_COPIES, "dup")
        assert not [p for p in got if p.error], got
        assert sorted(p.status for p in got) == [200] * (GRADE_COPIES - 1) + [201], got
        grade_ids.append(event["event_id"])
    # Distinct grades of one card at once: each is applied, none lost.
    distinct = [{"event_id": new_event_id(f"grade-distinct-{i}"), "card_id": CARD, "kind": "grade", "value": "good"}
                for i in range(GRADE_COPIES)]
    got = post_concurrently(learner, distinct, "new")
    assert [p.status for p in got] == [201] * GRADE_COPIES, got
    grade_ids += [e["event_id"] for e in distinct]
    summary = learner.request("GET", "/api/progress")
    assert summary.status == 200 and summary.data["reviews"] == len(grade_ids), summary.text[:300]
    server.stop()

    with closing(open_db(db)) as conn:
        reviews = Counter(row[0] for row in conn.execute(
            "SELECT event_id FROM review_log WHERE learner_id = ?", [learner.learner_id]))
        assert reviews == Counter(grade_ids), "each grade event is exactly one review"
        reps = conn.execute("SELECT reps FROM card_states WHERE learner_id = ? AND card_id = ?",
                            [learner.learner_id, CARD]).fetchone()
        assert reps == (len(grade_ids),)
        assert_grades_consistent(conn)
    assert_clean_log(server.log_text())


def test_concurrent_grades_are_applied_in_time_order(start_server, tmp_path):
    db = tmp_path / "quizapp.sqlite"
    server = start_server(db=db)
    learners = []
    for round_ in range(5):
        learner = Learner(server.port)
        learner.join()
        learners.append(learner)
        grades = [{"event_id": new_event_id(f"order-{round_}-{i}"), "card_id": CARD, "kind": "grade", "value": value}
                  for i, value in enumerate(("again", "easy", "good", "hard", "easy", "again"))]
        got = post_concurrently(learner, grades, "new")
        assert [p.status for p in got] == [201] * len(grades), got
    server.stop()

    with closing(open_db(db)) as conn:
        for learner in learners:
            applied = [row[0] for row in conn.execute(  # review_log ids grow in the order grades were applied
                "SELECT reviewed_at FROM review_log WHERE learner_id = ? ORDER BY id", [learner.learner_id])]
            last = conn.execute("SELECT last_review FROM card_states WHERE learner_id = ?",
                                [learner.learner_id]).fetchone()[0]
            assert applied == sorted(applied), "grades applied out of time order"
            assert last == max(applied), "card_states.last_review is not the latest review"
