#!/usr/bin/env python3
"""Benchmark POST /api/progress/events: N clients (each its own learner, its own cookie) x M events.

Prints events/s, latency percentiles and errors, and, for the stack's ceiling on this machine,
the same N x M load on GET /api/models (no database, no learner), with the ratio of the two.

    .venv/bin/python bench/events_load.py --start                 # starts `quizapp serve` on a temp db
    .venv/bin/python bench/events_load.py --url http://127.0.0.1:5000 --clients 50 --events 100

Standard library only. Not a test: it asserts nothing, it measures (see bench/README.md).
With --url, the events are stored in that server's database (each run makes N new learners).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import random
import secrets
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlsplit

CARD = "kv-pool-users"
STAGES = ("short", "full", "followup-1", "followup-2", "followup-3", "followup-4", "wrong", "taught")
TIMEOUT_S = 30.0
CONNECTION_ERRORS = (OSError, http.client.HTTPException)


class Client:
    """One learner: its own session cookie and (with keep-alive) its own connection."""

    def __init__(self, host: str, port: int, keepalive: bool):
        self.host, self.port, self.keepalive = host, port, keepalive
        self.cookie: str | None = None
        self.conn: http.client.HTTPConnection | None = None
        self.reconnects = 0

    def _connection(self) -> http.client.HTTPConnection:
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT_S)
        return self.conn

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
        headers = {"Accept": "application/json"}
        if not self.keepalive:
            headers["Connection"] = "close"
        if self.cookie:
            headers["Cookie"] = f"session={self.cookie}"
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        # A kept-alive connection the server has closed fails on reuse: try once more on a
        # new one. Safe for events too: a retried event_id is stored once.
        for attempt in (1, 2):
            conn = self._connection()
            try:
                conn.request(method, path, body=payload, headers=headers)
                response = conn.getresponse()
                data = response.read()
            except CONNECTION_ERRORS:
                self.close()
                if attempt == 2 or not self.keepalive:
                    raise
                self.reconnects += 1
                continue
            for header in response.headers.get_all("Set-Cookie") or ():
                jar = SimpleCookie()
                jar.load(header)
                if "session" in jar:
                    self.cookie = jar["session"].value or None
            if not self.keepalive or response.will_close:
                self.close()
            return response.status, data
        raise AssertionError("unreachable")


@dataclass
class Result:
    latencies: list[float] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)  # exceptions and 5xx
    wrong: list[str] = field(default_factory=list)  # a new event not 201, a retry not 200
    reconnects: int = 0
    sent: int = 0


def random_event(rng: random.Random, prefix: str) -> dict:
    event = {"event_id": f"{prefix}-{secrets.token_hex(6)}", "card_id": CARD}
    if rng.random() < 0.65:
        event.update(kind="reveal", stage=rng.choice(STAGES))
    else:
        event.update(kind="answer", stage="short", value=f"{rng.randint(1, 4096)} sequences")
    return event


def run_client(index: int, client: Client, mode: str, count: int, retry_share: float, start: threading.Barrier,
               deadline_box: list, result: Result, lock: threading.Lock) -> None:
    rng = random.Random(index)
    latencies, statuses, errors, wrong, acked = [], Counter(), [], [], []
    run = secrets.token_hex(3)
    try:
        start.wait()
    except threading.BrokenBarrierError:
        return
    for seq in range(count):
        if time.monotonic() > deadline_box[0]:
            errors.append("time budget exhausted")
            break
        retry = False
        if mode == "baseline":
            method, path, body = "GET", "/api/models", None
        else:
            retry = bool(acked) and rng.random() < retry_share
            body = rng.choice(acked) if retry else random_event(rng, f"b{run}.{index:03d}.{seq:05d}")
            method, path = "POST", "/api/progress/events"
        began = time.perf_counter()
        try:
            status, data = client.request(method, path, body)
        except CONNECTION_ERRORS as error:
            errors.append(repr(error))
            continue
        latencies.append(time.perf_counter() - began)
        statuses[status] += 1
        if status >= 500 or b"database is locked" in data:
            errors.append(f"{status} {data[:200]!r}")
        if mode == "events":
            if status in (200, 201) and not retry:
                acked.append(body)
            if status != (200 if retry else 201):
                wrong.append(f"{'retry' if retry else 'new'} {body['event_id']}: {status}")
    client.close()
    with lock:
        result.latencies += latencies
        result.statuses.update(statuses)
        result.errors += errors
        result.wrong += wrong
        result.reconnects += client.reconnects
        result.sent += len(latencies) + len(errors)


def run_load(host: str, port: int, mode: str, clients: int, count: int, retry_share: float, keepalive: bool,
             budget_s: float) -> dict:
    pool = [Client(host, port, keepalive) for _ in range(clients)]
    for client in pool:  # the first visit makes the learner and sets the cookie; not timed
        status, data = client.request("GET", "/api/progress")
        if status != 200:
            raise SystemExit(f"GET /api/progress answered {status}: {data[:300]!r}")
    result, lock = Result(), threading.Lock()
    start = threading.Barrier(clients + 1, timeout=60)
    deadline = [float("inf")]
    threads = [threading.Thread(target=run_client, daemon=True,
                                args=(i, c, mode, count, retry_share, start, deadline, result, lock))
               for i, c in enumerate(pool)]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    deadline[0] = time.monotonic() + budget_s
    for thread in threads:
        thread.join(timeout=budget_s + 2 * TIMEOUT_S)
    elapsed = time.perf_counter() - began
    done = len(result.latencies)
    return {
        "mode": mode, "clients": clients, "per_client": count, "keepalive": keepalive,
        "requests": result.sent, "completed": done, "seconds": round(elapsed, 3),
        "per_second": round(done / elapsed, 1) if elapsed else 0.0,
        "p50_ms": percentile_ms(result.latencies, 50), "p95_ms": percentile_ms(result.latencies, 95),
        "p99_ms": percentile_ms(result.latencies, 99), "max_ms": percentile_ms(result.latencies, 100),
        "statuses": dict(sorted(result.statuses.items())), "errors": len(result.errors),
        "error_examples": result.errors[:5], "wrong_answers": len(result.wrong),
        "wrong_examples": result.wrong[:5], "reconnects": result.reconnects,
    }


def percentile_ms(values: list[float], pct: float) -> float | None:
    """Nearest-rank percentile, in milliseconds."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * pct // 100))  # ceil(n * pct / 100)
    return round(ordered[int(rank) - 1] * 1000, 1)


# --- a server of our own (--start) ----------------------------------------------------------

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    def __init__(self, db: Path, workdir: Path, workers: int, threads: int):
        self.port = free_port()
        self.log = workdir / "server.log"
        env = dict(os.environ, PYTHONUNBUFFERED="1", QUIZAPP_SECRET_KEY=secrets.token_hex(32),
                   XDG_RUNTIME_DIR=str(workdir))  # gunicorn's control socket goes there, not in ~/.gunicorn
        cmd = [sys.executable, "-m", "quizapp.cli", "serve", "--host", "127.0.0.1", "--port", str(self.port),
               "--db", str(db), "--workers", str(workers), "--threads", str(threads)]
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         env=env, cwd=str(workdir), start_new_session=True)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                conn.request("GET", "/api/models", headers={"Connection": "close"})
                if conn.getresponse().status == 200:
                    conn.close()
                    return
                conn.close()
            except OSError:
                pass
            time.sleep(0.1)
        self.stop()
        raise SystemExit(f"quizapp serve did not start; its output:\n{self.log.read_text(errors='replace')[-3000:]}")

    def stop(self) -> None:
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                return
            try:
                self.proc.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                continue
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                try:
                    os.killpg(self.proc.pid, 0)
                except ProcessLookupError:
                    return
                time.sleep(0.05)


def print_run(run: dict) -> None:
    print(f"{run['mode']:>8}: {run['completed']} of {run['requests']} requests in {run['seconds']:.2f} s = "
          f"{run['per_second']:.0f}/s | p50 {run['p50_ms']} ms, p95 {run['p95_ms']} ms, p99 {run['p99_ms']} ms, "
          f"max {run['max_ms']} ms | errors {run['errors']}, wrong answers {run['wrong_answers']}, "
          f"statuses {run['statuses']}, reconnects {run['reconnects']}")
    for example in run["error_examples"] + run["wrong_examples"]:
        print(f"          e.g. {example}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--url", help="a running server, e.g. http://127.0.0.1:5000")
    target.add_argument("--start", action="store_true", help="start `quizapp serve` on a temporary database")
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients, each its own learner")
    parser.add_argument("--events", type=int, default=100, help="requests per client")
    parser.add_argument("--mode", choices=("both", "events", "baseline"), default="both")
    parser.add_argument("--retries", type=float, default=0.1, help="share of posts that retry an acknowledged id")
    parser.add_argument("--no-keepalive", dest="keepalive", action="store_false",
                        help="a new connection per request")
    parser.add_argument("--workers", type=int, default=2, help="with --start: gunicorn workers")
    parser.add_argument("--threads", type=int, default=4, help="with --start: threads per worker")
    parser.add_argument("--budget", type=float, default=120.0, help="seconds a run may take at most")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    args = parser.parse_args(argv)
    if args.clients < 1 or args.events < 1 or not 0 <= args.retries < 1:
        parser.error("--clients and --events must be at least 1 and --retries in [0, 1)")

    server = workdir = None
    if args.start:
        workdir = tempfile.TemporaryDirectory(prefix="quizapp-bench-")
        server = Server(Path(workdir.name) / "bench.sqlite", Path(workdir.name), args.workers, args.threads)
        host, port = "127.0.0.1", server.port
    else:
        parts = urlsplit(args.url)
        if parts.scheme != "http" or not parts.hostname:
            parser.error("--url must be http://HOST:PORT")
        host, port = parts.hostname, parts.port or 80
    report = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "sqlite": sqlite3.sqlite_version,
                    "platform": platform.platform()},
        "server": ({"workers": args.workers, "threads": args.threads, "started": True} if server
                   else {"url": args.url, "started": False}),
        "runs": [],
    }
    try:
        modes = ("baseline", "events") if args.mode == "both" else (args.mode,)
        for mode in modes:
            report["runs"].append(run_load(host, port, mode, args.clients, args.events, args.retries,
                                           args.keepalive, args.budget))
            if not args.json:
                print_run(report["runs"][-1])
    finally:
        if server:
            server.stop()
            log = server.log.read_text(errors="replace")
            report["server_log_problems"] = [m for m in ("database is locked", "Traceback", "WORKER TIMEOUT")
                                             if m in log]
            workdir.cleanup()
    by_mode = {run["mode"]: run for run in report["runs"]}
    if "events" in by_mode and "baseline" in by_mode and by_mode["baseline"]["per_second"]:
        report["events_over_ceiling"] = round(by_mode["events"]["per_second"] / by_mode["baseline"]["per_second"], 3)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        if "events_over_ceiling" in report:
            print(f"   ratio: events/s / ceiling (GET /api/models) = {report['events_over_ceiling']:.2f}")
        if report.get("server_log_problems"):
            print(f"  server log contains: {', '.join(report['server_log_problems'])}")
        machine = report["machine"]
        print(f" machine: {machine['cpus']} CPUs, Python {machine['python']}, SQLite {machine['sqlite']}; "
              f"{args.clients} clients x {args.events} requests, keep-alive {'on' if args.keepalive else 'off'}")
    failed = any(run["errors"] for run in report["runs"]) or report.get("server_log_problems")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
