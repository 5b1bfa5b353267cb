#!/usr/bin/env python3
"""Event POSTs per second on a shared database, with one and with two `quizapp serve` processes.

    bench/run --db postgresql://user@host/quizapp            # what bench/results.md reports
    .venv/bin/python bench/servers.py --db URL --clients 40 --events 100 --output /tmp/r.md

Each server is `quizapp serve` with its defaults (2 gunicorn workers x 4 threads) on the same
database; the clients (each its own learner, with keep-alive) are split evenly across the
servers and post POST /api/progress/events (10 % retries of acknowledged ids) all at once. For
comparison the same load runs on one server over a SQLite file. Writes its table into
bench/results.md between the two ``<!-- servers -->`` marks (replacing the last one), and
prints it. Not a test: it measures and asserts nothing. Every event is in the database it
names afterwards (each run makes new learners).
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
import threading
import time
from pathlib import Path

from events_load import Server, run_load

ROOT = Path(__file__).resolve().parent.parent
MARK = "<!-- servers -->"


def measure(db: str, servers: int, clients: int, events: int, workdir: Path) -> dict:
    """Start ``servers`` servers on ``db``, post the events through all of them at once."""
    started = []
    try:
        for n in range(servers):
            folder = Path(tempfile.mkdtemp(prefix=f"server-{servers}-{n}-", dir=workdir))
            started.append(Server(db, folder, 2, 4))
        runs: list[dict] = [{} for _ in started]
        share = max(1, clients // servers)

        def load(i: int) -> None:
            runs[i] = run_load("127.0.0.1", started[i].port, "events", share, events, 0.1, True, 120.0)

        threads = [threading.Thread(target=load, args=(i,)) for i in range(servers)]
        began = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - began
        return {"servers": servers, "clients": share * servers, "events": sum(r["completed"] for r in runs),
                "per_second": round(sum(r["per_second"] for r in runs)),
                "p50_ms": max(r["p50_ms"] or 0 for r in runs), "p99_ms": max(r["p99_ms"] or 0 for r in runs),
                "errors": sum(r["errors"] + r["wrong_answers"] for r in runs), "seconds": round(elapsed, 1),
                "examples": [e for r in runs for e in r["error_examples"] + r["wrong_examples"]][:3]}
    finally:
        for server in started:
            server.stop()


def table(rows: list[tuple[str, dict]]) -> list[str]:
    lines = ["| database | servers | clients | events | events/s | p50 ms | p99 ms | errors |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, r in rows:
        lines.append(f"| {name} | {r['servers']} | {r['clients']} | {r['events']:,} | {r['per_second']:,} | "
                     f"{r['p50_ms']:.1f} | {r['p99_ms']:.1f} | {r['errors']} |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True, help="a postgresql:// URL the servers share")
    parser.add_argument("--clients", type=int, default=40)
    parser.add_argument("--events", type=int, default=100, help="posts per client")
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "results.md")
    args = parser.parse_args()
    if not args.db.startswith(("postgresql://", "postgres://")):
        parser.error("--db must be a postgresql:// URL: a SQLite file belongs to one server")
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="quizapp-servers-") as tmp:
        work = Path(tmp)
        rows = [("SQLite file", measure(str(work / "bench.sqlite"), 1, args.clients, args.events, work))]
        for servers in (1, 2):
            rows.append(("PostgreSQL", measure(args.db, servers, args.clients, args.events, work)))
    load_after = os.getloadavg()[0]
    lines = [MARK, "## Event POSTs on a shared database (bench/run --db)", "",
             f"`bench/run --db postgresql://…` on this machine ({os.cpu_count()} CPUs; the servers, the "
             "PostgreSQL server and the clients share them), each server `quizapp serve` with 2 workers x 4 "
             f"threads, {args.clients} clients split across the servers, {args.events} posts each, 10 % of them "
             "retries; the machine's load average (1 min) was "
             f"{load_before:.1f} before and {load_after:.1f} after (other work shared the CPUs when it is above 2):",
             "", *table(rows), "",
             *[f"Errors on {name} with {r['servers']} server(s), e.g.: {'; '.join(r['examples'])}" for name, r in rows
               if r["examples"]],
             "Every server and the database share one machine here, so a second server adds no CPU: on "
             "separate machines each server brings its own.", MARK]
    text = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
    block = "\n".join(lines)
    if MARK in text:
        text = re.sub(rf"{MARK}.*?{MARK}", lambda _m: block, text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    args.output.write_text(text, encoding="utf-8")
    print("\n".join(lines[1:-1]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
