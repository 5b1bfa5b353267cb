#!/usr/bin/env python3
"""Half-sent connections against `quizapp serve`, per worker class: how long / and a card page take.

    .venv/bin/python bench/slow_clients.py [--connections 1000] [--worker-class gevent gthread]

Each server (2 workers, a temporary database, the shipped questions) is warmed up, then
CONNECTIONS sockets each send "GET / HTTP/1.1" and one header and never finish; with them held
open, / and /cards/kv-pool-users are each asked five times on new connections (10 s limit).
Prints one line per server: the median and the slowest answer, and how many timed out.
Not a test: it measures and reports.
"""

from __future__ import annotations

import argparse
import http.client
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def get(port: int, path: str, timeout: float = 10) -> float | None:
    started = time.perf_counter()
    try:
        conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
        conn.request("GET", path, headers={"Connection": "close"})
        response = conn.getresponse()
        response.read()
        conn.close()
        return time.perf_counter() - started if response.status == 200 else None
    except OSError:
        return None


def measure(worker_class: str, connections: int) -> str:
    port, folder = free_port(), tempfile.mkdtemp(prefix="quizapp-slow-")
    cmd = [sys.executable, "-m", "quizapp.cli", "serve", "--port", str(port), "--db", f"{folder}/q.sqlite",
           "--worker-class", worker_class]
    with open(f"{folder}/server.log", "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=folder, start_new_session=True)
    held = []
    try:
        deadline = time.monotonic() + 120
        fast = 0
        while fast < 10 and time.monotonic() < deadline:  # every worker has read the bank
            times = [get(port, path, 30) for path in ("/", "/cards/kv-pool-users")]
            fast = fast + 1 if all(t is not None and t < 1 for t in times) else 0
        for _ in range(connections):
            sock = socket.create_connection((HOST, port), timeout=5)
            sock.sendall(f"GET / HTTP/1.1\r\nHost: {HOST}\r\n".encode())
            held.append(sock)
        time.sleep(1)
        times = [get(port, path) for _ in range(5) for path in ("/", "/cards/kv-pool-users")]
        answered = [t for t in times if t is not None]
        line = (f"{worker_class}: {connections:,} half-sent connections held; / and a card page: "
                f"{len(answered)} of {len(times)} answered")
        if answered:
            line += f", median {statistics.median(answered):.2f} s, slowest {max(answered):.2f} s"
        return line + (f", {len(times) - len(answered)} timed out after 10 s" if len(answered) < len(times) else "")
    finally:
        for sock in held:
            sock.close()
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--worker-class", nargs="+", default=["gevent", "gthread"])
    args = parser.parse_args()
    os.chdir(ROOT)
    for worker_class in args.worker_class:
        print(measure(worker_class, args.connections), flush=True)


if __name__ == "__main__":
    main()
