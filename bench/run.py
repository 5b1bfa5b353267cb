#!/usr/bin/env python3
"""quizapp against Flask's hello world under the same server, on this machine; writes bench/results.md.

Run it through bench/run, which installs wrk and the project's venv when they are missing.
Not a test: it measures and reports each target as met or missed; it asserts nothing.

    bench/run                      # 3 rounds of 4 s per measurement, about 4 minutes
    bench/run --seconds 1 --rounds 1 --cards 1000 --output /tmp/results.md   # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import signal
import sqlite3
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit

from harness import CpuWatch, Figure, Load, Server, free_port, request, run_bounded, run_wrk
from readers import (Reader, Skip, first_visit, graded_attempts, offered_stages, one_long_attempt, reveal_all,
                     seed_learner, seeded_reader)
from report import Outcome, machine_and_software, print_line, write_results

import quizapp  # noqa: E402  (only to find the checkout it runs from)

ROOT = Path(__file__).resolve().parent.parent
# The checkout whose servers are measured: ROOT, unless another checkout's venv runs this file
# (bench/compare.py does, to time an older commit with the same measurements). Its questions,
# hello world and working directory go with its code.
CHECKOUT = Path(quizapp.__file__).resolve().parent.parent
QUESTIONS = CHECKOUT / "questions"
CARD = "kv-pool-users"  # a shipped card; the big bank is made of its copies
CARD_PAGE = f"/cards/{CARD}"
STAGE = "short"
WORKERS, THREADS = 2, 4  # `quizapp serve`'s defaults, and the hello world's settings
HISTORY_EVENTS = 10_000
SAMPLE_CARDS = 100  # a small bank timed too, to estimate the big one when it does not finish
BANK_LIMIT_S = 20.0  # for each of start and check on the big bank: 4x and 2x their targets
NOT_BUILT = "n/a (not built yet)"
# A few lines as vLLM prints them at startup, for the log reader once it exists.
SAMPLE_LOG = """INFO 05-01 12:00:00 [__init__.py:239] Automatically detected platform cuda.
INFO 05-01 12:00:05 [gpu_model_runner.py:1329] Model loading took 15.2683 GiB and 4.512 seconds
INFO 05-01 12:00:09 [kv_cache_utils.py:634] GPU KV cache size: 24,096 tokens
INFO 05-01 12:00:09 [kv_cache_utils.py:637] Maximum concurrency for 8,192 tokens per request: 2.94x
"""


# --- the servers under test -------------------------------------------------------------------

@dataclass
class Stack:
    """quizapp and the hello world, running, and the readers the measurements share."""

    app: Server
    hello: Server
    db_path: Path
    workdir: Path
    run_id: str
    readers: dict[str, Reader] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)  # a reader that could not be made: why
    notes: list[str] = field(default_factory=list)  # what a measurement's preparation found, for its line

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.app.port}"

    def reader(self, name: str) -> Reader:
        if name not in self.readers:
            raise Skip(self.missing.get(name, f"no reader {name!r}"))
        return self.readers[name]

    def headers(self, reader: str | None, kind: str) -> dict[str, str]:
        return (self.reader(reader) if reader else Reader()).headers(kind, self.origin, CARD_PAGE)

    def new_reader(self) -> Reader:
        return first_visit(self.app.port, self.origin, CARD_PAGE)

    def wrk(self, server: Server, load: Load, seconds: float, tag: str) -> Figure:
        return run_wrk(server.port, load, seconds, self.workdir, tag, [self.app.proc.pid, self.hello.proc.pid])

    def count(self, sql: str, params=()) -> int:
        with sqlite3.connect(self.db_path, timeout=15) as conn:
            return conn.execute(sql, params).fetchone()[0]


def server_env(workdir: Path, secret: str) -> dict:
    # XDG_RUNTIME_DIR: gunicorn's control socket (when enabled) goes there, not in ~/.gunicorn.
    return dict(os.environ, PYTHONUNBUFFERED="1", QUIZAPP_SECRET_KEY=secret, XDG_RUNTIME_DIR=str(workdir))


def quizapp_command() -> str:
    return str(Path(sys.executable).parent / "quizapp")


def start_app(name: str, questions: Path, db_path: Path, workdir: Path, secret: str) -> Server:
    port = free_port()
    command = [quizapp_command(), "serve", "--host", "127.0.0.1", "--port", str(port), "--db", str(db_path),
               "--questions", str(questions), "--workers", str(WORKERS), "--threads", str(THREADS)]
    return Server(name, command, port, workdir, server_env(workdir, secret), CHECKOUT)


def start_hello(workdir: Path, secret: str) -> Server:
    port = free_port()
    command = [sys.executable, str(CHECKOUT / "bench" / "hello.py"), "--port", str(port),
               "--workers", str(WORKERS), "--threads", str(THREADS)]
    return Server("hello", command, port, workdir, server_env(workdir, secret), CHECKOUT)


def warm_workers(server: Server, path: str, limit_s: float) -> None:
    """Concurrent first requests on new connections, so that every worker has served (and loaded the bank)."""
    def one():
        try:
            request(server.port, "GET", path, timeout=limit_s)
        except OSError:
            pass
    threads = [threading.Thread(target=one, daemon=True) for _ in range(4 * WORKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=limit_s)


def make_readers(stack: Stack, secret: str) -> str:
    """The readers shared by the rounds; returns what was seeded, for the report."""
    port, origin = stack.app.port, stack.origin
    stack.readers["returning"] = stack.new_reader()
    stages = offered_stages(port, origin, stack.readers["returning"], CARD)
    revealed = stack.new_reader()
    reveal_all(port, origin, revealed, CARD, stages)
    stack.readers["revealed"] = revealed
    card_ids = sorted(m.group(1) for p in QUESTIONS.glob("*.md")
                      if (m := re.search(r"^id:\s*(\S+)", p.read_text(encoding="utf-8"), re.MULTILINE)))
    began = time.monotonic()
    seeds = {"history": (graded_attempts(card_ids, HISTORY_EVENTS), timedelta(days=400)),
             "long_attempt": (one_long_attempt(CARD, stages, HISTORY_EVENTS), timedelta(hours=1))}
    for name, (events, span) in seeds.items():
        try:
            learner = seed_learner(stack.db_path, events, span)
            # Its first visit opens an attempt, as the returning reader's did, and checks the cookie.
            stack.readers[name] = seeded_reader(port, origin, secret, learner, CARD)
        except (Skip, OSError, sqlite3.Error, ImportError) as error:
            stack.missing[name] = str(error) if isinstance(error, Skip) else f"failed: {error!r}"
    return (f"two learners of {HISTORY_EVENTS:,} events each, seeded in {time.monotonic() - began:.1f} s: "
            f"{HISTORY_EVENTS // 5:,} graded attempts over {len(card_ids)} cards in the past 400 days; and one "
            f"attempt at {CARD} never graded, its {len(stages)} stages revealed over and over in the past hour")


# --- the measurements -------------------------------------------------------------------------

@dataclass
class Measurement:
    key: str
    label: str
    prepare: Callable[[Stack, int], Load]  # (stack, round) -> the load; raises Skip
    placeholder: bool = False  # a route still to be built: a 404 means "not built yet"
    check: Callable[[Stack, Figure, dict], dict] | None = None  # facts and a note after the run
    baseline: str | None = None  # the key it is compared with, round by round (learner history)


def page(path: str, reader: str | None) -> Callable[[Stack, int], Load]:
    """A GET of a page as ``reader`` (None: a first-time visitor, no cookie)."""
    return lambda stack, rnd: Load("GET", path, stack.headers(reader, "page"))


# Each round's pools count up from their own start, ROUND_POOLS apart: a round of 4 s answers a few
# thousand. The card's L4 holds a pool of at most ~54,000 tokens of its model; beyond, the page is
# a 400 (the scenario cannot start), so the starts cycle through seven ranges below 51,384. An
# eighth round's pools were asked seven rounds before: long gone from the caches (a few thousand
# new scenarios a round, against caches of a thousand or two).
FIRST_POOL, ROUND_POOLS, POOL_RANGES = 16_384, 5_000, 7


def card_new_scenario(stack: Stack, rnd: int) -> Load:
    # A pool size no request has asked for before: each round counts up from its own range.
    return Load("GET", f"{CARD_PAGE}?pool_tokens={{n}}", stack.headers("returning", "page"),
                first_n=FIRST_POOL + (rnd - 1) % POOL_RANGES * ROUND_POOLS)


def values_api(stack: Stack, rnd: int) -> Load:
    return Load("GET", f"/api/cards/{CARD}/values", stack.headers(None, "json"))


def reveal(stack: Stack, rnd: int) -> Load:
    """The page's script revealing a stage (it asks for JSON); a reader of its own each round, whose
    current attempt grows by one event per request."""
    reader = stack.new_reader()
    return Load("POST", f"{CARD_PAGE}/reveal/{STAGE}", reader.headers("form-post", stack.origin, CARD_PAGE),
                body=f"event_id=bench-reveal-{stack.run_id}-{rnd}-{{n}}")


def event_post(stack: Stack, rnd: int) -> Load:
    reader = stack.new_reader()
    body = json.dumps({"event_id": f"{event_prefix(stack, rnd)}{{n}}", "card_id": CARD, "kind": "reveal",
                       "stage": STAGE})
    return Load("POST", "/api/progress/events", reader.headers("json-post", stack.origin, CARD_PAGE), body=body,
                count_statuses=True)


def event_prefix(stack: Stack, rnd: int) -> str:
    return f"bench-event-{stack.run_id}-{rnd}-"


def read_log(stack: Stack, rnd: int) -> Load:
    # Issue 11's API; the body's shape is a guess until it exists.
    return Load("POST", "/api/read-log", stack.headers("returning", "json-post"), body=json.dumps({"log": SAMPLE_LOG}))


def interviewer_reveal(stack: Stack, rnd: int) -> Load:
    """The interviewer reveals a stage of a live session (issue 9's API); also times it reaching the candidate."""
    headers = stack.headers("returning", "json-post")
    made = request(stack.app.port, "POST", "/api/interviews", headers,
                   json.dumps({"candidate": "Bench Candidate", "role": "Inference Engineering", "cards": [CARD]}))
    if made.status == 404:
        raise Skip(NOT_BUILT)
    if not 200 <= made.status < 300:
        raise Skip(f"failed: POST /api/interviews answered {made.status}: {made.text()[:200]}")
    session = json.loads(made.body)
    console, screen = (urlsplit(session[k]).path.rstrip("/") for k in ("interviewer_url", "candidate_url"))
    load = Load("POST", f"{console}/reveal", headers, body=json.dumps({"card": CARD, "stage": STAGE}))
    stack.notes.append(reveal_reaches_candidate(stack, load, f"{screen}/state"))
    return load


def reveal_reaches_candidate(stack: Stack, reveal_load: Load, state_path: str, limit_s: float = 2.0) -> str:
    """Time from the interviewer's reveal to the candidate's state changing (polled every 10 ms)."""
    headers = stack.headers(None, "json")
    before = request(stack.app.port, "GET", state_path, headers).body
    began = time.monotonic()
    sent = request(stack.app.port, reveal_load.method, reveal_load.path, reveal_load.headers, reveal_load.body)
    if not 200 <= sent.status < 300:
        return f"the reveal answered {sent.status}"
    while time.monotonic() - began < limit_s:
        if request(stack.app.port, "GET", state_path, headers).body != before:
            return f"reached the candidate's state in {(time.monotonic() - began) * 1000:.0f} ms"
        time.sleep(0.01)
    return f"not on the candidate's state after {limit_s:g} s"


def learners_written(stack: Stack, figure: Figure, before: dict) -> dict:
    written = stack.count("SELECT COUNT(*) FROM learners") - before["learners"]
    return {"learners_written": written, "note": f"{written:,} learner rows written for {figure.requests:,} requests"}


def events_kept(stack: Stack, figure: Figure, before: dict) -> dict:
    """Every event answered 2xx must be in the database (each has a new id, so each is stored once)."""
    time.sleep(0.5)  # requests in flight when wrk stopped finish on the server
    stored = stack.count("SELECT COUNT(*) FROM events WHERE event_id LIKE ?", [before["prefix"] + "%"]) \
        - before["events"]
    lost = max(0, figure.answered_2xx - stored)
    return {"lost": lost, "note": f"{figure.answered_2xx:,} answered 2xx ({figure.answered_201:,} as 201), "
                                  f"{stored:,} stored, {lost:,} lost"}


# Each history figure runs right after its fresh learner's, so that both see the machine in the same state.
MEASUREMENTS = [
    Measurement("bank", "bank /", page("/", "returning")),
    Measurement("card", "card page, returning reader", page(CARD_PAGE, "returning")),
    Measurement("history", f"card page, learner with {HISTORY_EVENTS:,} past events", page(CARD_PAGE, "history"),
                baseline="card"),
    Measurement("card_revealed", "card page, every stage revealed", page(CARD_PAGE, "revealed")),
    Measurement("long_attempt", f"card page, every stage revealed in {HISTORY_EVENTS:,} events",
                page(CARD_PAGE, "long_attempt"), baseline="card_revealed"),
    Measurement("card_first", "card page, first-time visitor", page(CARD_PAGE, None), check=learners_written),
    Measurement("scenario", "card, scenario never seen before", card_new_scenario),
    Measurement("values", "values API", values_api),
    Measurement("reveal", "reveal (POST)", reveal),
    Measurement("event", "progress event (POST)", event_post, check=events_kept),
    Measurement("calc", "/calc", page("/calc", "returning"), placeholder=True),
    Measurement("read_log", "POST /api/read-log", read_log, placeholder=True),
    Measurement("interview", "interviewer reveal to candidate", interviewer_reveal, placeholder=True),
]


def measure(stack: Stack, m: Measurement, rnd: int, seconds: float, hello: Figure) -> Outcome:
    """Prepare, probe once (a 404 on a placeholder means not built yet), then wrk; a failure is a skipped line."""
    stack.notes.clear()
    outcome = Outcome(m.key, m.label, rnd, hello=hello, baseline=m.baseline)
    try:
        load = m.prepare(stack, rnd)
        probe_path, probe_body = load.with_n(load.first_n - 1)
        probe = request(stack.app.port, load.method, probe_path, load.headers, probe_body)
        if probe.status == 404 and m.placeholder:
            raise Skip(NOT_BUILT)
        if not 200 <= probe.status < 300:
            raise Skip(f"failed: {load.method} {probe_path} answered {probe.status}: {probe.text()[:200]}")
        before = {"learners": stack.count("SELECT COUNT(*) FROM learners"), "prefix": event_prefix(stack, rnd)}
        before["events"] = stack.count("SELECT COUNT(*) FROM events WHERE event_id LIKE ?",
                                       [before["prefix"] + "%"])
        outcome.figure = stack.wrk(stack.app, load, seconds, f"round{rnd}-{m.key}")
    except Skip as skip:
        outcome.skipped = str(skip)
        return outcome
    except (OSError, RuntimeError, sqlite3.Error) as error:
        outcome.skipped = f"failed: {error}"
        return outcome
    outcome.facts = m.check(stack, outcome.figure, before) if m.check else {}
    outcome.notes = [outcome.facts.pop("note")] if "note" in outcome.facts else []
    outcome.notes += stack.notes
    return outcome


LOCKSTEP = False  # --lockstep: set by main()
READY = "READY"  # what a --lockstep line starts with


def wait_turn(step: str) -> None:
    """Under --lockstep (bench/compare.py), say which step is next and wait for a line on stdin:
    two benchmarks of two commits then take each step in turns and never load the machine at once."""
    if LOCKSTEP:
        print(f"{READY} {step}", flush=True)
        if not sys.stdin.readline():
            sys.exit("bench/run.py: stdin closed under --lockstep")


def run_rounds(stack: Stack, rounds: int, seconds: float) -> list[Outcome]:
    outcomes = []
    for rnd in range(1, rounds + 1):
        wait_turn(f"round {rnd} hello")
        hello = stack.wrk(stack.hello, Load("GET", "/", stack.headers(None, "page")), seconds, f"round{rnd}-hello")
        outcomes.append(Outcome("hello", "hello world (Flask, same server)", rnd, figure=hello, hello=hello))
        print_line(outcomes[-1])
        for m in MEASUREMENTS:
            wait_turn(f"round {rnd} {m.key}")
            outcomes.append(measure(stack, m, rnd, seconds, hello))
            print_line(outcomes[-1])
    return outcomes


# --- bank size --------------------------------------------------------------------------------

def write_bank(folder: Path, count: int) -> Path:
    """``count`` copies of the shipped card, each with its own id."""
    folder.mkdir()
    text = (QUESTIONS / f"{CARD}.md").read_text(encoding="utf-8")
    for i in range(count):
        card_id = f"bench-card-{i:05d}"
        (folder / f"{card_id}.md").write_text(text.replace(f"\nid: {CARD}\n", f"\nid: {card_id}\n", 1),
                                              encoding="utf-8")
    return folder


def bank_figures(count: int, workdir: Path, secret: str, limit_s: float) -> dict:
    """Start to first response, RSS per worker, and `quizapp check` time, each bounded by ``limit_s``."""
    folder = write_bank(workdir / f"bank-{count}", count)
    server = start_app(f"bank-{count}", folder, workdir / f"bank-{count}.sqlite", workdir, secret)
    try:
        watch = CpuWatch([server.proc.pid])
        start_s = server.wait_ready("/", limit_s)
        others_start = watch.others_share()
        if start_s is not None:
            warm_workers(server, "/", limit_s)
            rss_bank = server.worker_rss_mb()
            browse_cards(server, count, limit_s)
        rss = server.worker_rss_mb()
    finally:
        server.stop(grace_s=2)
    check_s, others_check = check_seconds(folder, workdir, secret, limit_s)
    return {"cards": count, "start_s": start_s, "rss_mb": rss, "rss_bank_mb": rss_bank if start_s is not None else None,
            "loaded": start_s is not None, "check_s": check_s,
            "limit_s": limit_s, "others_cpu": max(others_start, others_check)}


BROWSED_CARDS = 50  # card pages a bank's workers serve before their memory is read


def browse_cards(server, count: int, limit_s: float) -> None:
    """Open BROWSED_CARDS card pages spread over the bank, on new connections (so both workers
    serve some): memory read after `/` alone would miss what serving cards keeps."""
    deadline = time.monotonic() + limit_s
    step = max(1, count // BROWSED_CARDS)
    for i in range(0, min(count, BROWSED_CARDS * step), step):
        if time.monotonic() > deadline:
            return
        try:
            request(server.port, "GET", f"/cards/bench-card-{i:05d}", timeout=limit_s)
        except OSError:
            pass


def check_seconds(folder: Path, workdir: Path, secret: str, limit_s: float) -> tuple[float | None, float]:
    """How long `quizapp check` takes on the folder (None: not within ``limit_s``), and others' CPU share."""
    watch = CpuWatch([])
    seconds, code = run_bounded([quizapp_command(), "check", str(folder)], limit_s, CHECKOUT,
                                server_env(workdir, secret), workdir / f"check-{folder.name}.log")
    return (seconds if code is not None else None), watch.others_share()


# --- main -------------------------------------------------------------------------------------

def write_figures(path: Path, info: dict, outcomes: list[Outcome]) -> None:
    rows = [{"key": o.key, "label": o.label, "round": o.round, "skipped": o.skipped,
             "per_second": o.figure.per_second if o.figure else None, "ratio": o.ratio,
             "errors": o.figure.error_count if o.figure else None,
             "others_cpu": o.figure.others_cpu if o.figure else None,
             "idle_cpu": o.figure.idle_cpu if o.figure else None} for o in outcomes]
    path.write_text(json.dumps({"quizapp": info["quizapp"], "date": info["date"], "outcomes": rows}, indent=1))


def stop_on_signals() -> None:
    """SIGTERM and SIGHUP end the run as Ctrl-C does: through the cleanup in main()."""
    def handler(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGHUP, handler)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="length of each wrk run (at most 10)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cards", type=int, default=10_000, help="size of the generated bank")
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "results.md")
    parser.add_argument("--json", type=Path, help="also write each round's figures here (for bench/compare.py)")
    parser.add_argument("--lockstep", action="store_true",
                        help="wait for a line on stdin before each step (bench/compare.py takes turns)")
    args = parser.parse_args(argv)
    global LOCKSTEP
    LOCKSTEP = args.lockstep
    if not 0 < args.seconds <= 10 or args.rounds < 1 or args.cards < 1:
        parser.error("--seconds must be in (0, 10], --rounds and --cards at least 1")
    stop_on_signals()
    began = time.monotonic()
    info = machine_and_software(CHECKOUT)
    secret = secrets.token_hex(32)
    with ExitStack() as cleanup:
        workdir = Path(cleanup.enter_context(tempfile.TemporaryDirectory(prefix="quizapp-bench-")))
        db_path = workdir / "bench.sqlite"
        app = start_app("app", QUESTIONS, db_path, workdir, secret)
        cleanup.callback(app.stop)
        hello = start_hello(workdir, secret)
        cleanup.callback(hello.stop)
        shipped = {"cards": len(list(QUESTIONS.glob("*.md"))), "start_s": app.wait_ready("/", 30), "limit_s": 30}
        if shipped["start_s"] is None or hello.wait_ready("/", 30) is None:
            print(f"bench/run: a server did not start; see its log:\n{(workdir / 'app.log').read_text()[-2000:]}")
            return 1
        warm_workers(app, "/", 30)
        shipped["rss_mb"] = app.worker_rss_mb()  # as for the generated banks: after `/` only
        warm_workers(app, CARD_PAGE, 30)  # each worker serves each page once before it is timed
        warm_workers(hello, "/", 30)
        stack = Stack(app, hello, db_path, workdir, secrets.token_hex(4))
        seeded = make_readers(stack, secret)
        print(f"quizapp on :{app.port}, hello world on :{hello.port}; {seeded}", flush=True)
        outcomes = run_rounds(stack, args.rounds, args.seconds)
        shipped["rss_after_mb"] = app.worker_rss_mb()
        problems = {s.name: s.log_problems() for s in (app, hello)}
        wait_turn("banks")
        app.stop()
        hello.stop()
        shipped["check_s"], shipped["others_cpu"] = check_seconds(QUESTIONS, workdir, secret, 30)
        print(f"bank of {SAMPLE_CARDS} cards ...", flush=True)
        sample = bank_figures(SAMPLE_CARDS, workdir, secret, 30)
        if args.cards == SAMPLE_CARDS:  # the same bank (and folder): time it once
            big = sample
        else:
            print(f"bank of {args.cards:,} cards (each step at most {BANK_LIMIT_S:g} s) ...", flush=True)
            big = bank_figures(args.cards, workdir, secret, BANK_LIMIT_S)
    info["seconds"] = time.monotonic() - began
    write_results(args.output, info, args, outcomes, {"shipped": shipped, "sample": sample, "big": big}, seeded,
                  problems)
    if args.json:
        write_figures(args.json, info, outcomes)
    print(f"wrote {args.output} ({info['seconds']:.0f} s in all)")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("bench/run: stopped; its servers were stopped too", file=sys.stderr)
        sys.exit(130)
