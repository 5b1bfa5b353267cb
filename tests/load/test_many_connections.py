"""A server that holds many connections (issue 21): idle or half-sent clients cost a connection,
not a thread, and no visitor's event streams starve another interview's."""

from __future__ import annotations

import http.client
import json
import re
import selectors
import socket
import threading
import time

import pytest

from .conftest import HOST

pytestmark = pytest.mark.load


def timed_get(port: int, path: str) -> tuple[int, float]:
    started = time.perf_counter()
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    try:
        conn.request("GET", path, headers={"Connection": "close"})
        response = conn.getresponse()
        response.read()
        return response.status, time.perf_counter() - started
    finally:
        conn.close()


def warm_up(port: int) -> None:
    """Until every worker has read the bank: ten answers in a row within a second each (bounded)."""
    deadline, fast = time.monotonic() + 120, 0
    while fast < 10 and time.monotonic() < deadline:
        fast = fast + 1 if all(timed_get(port, path)[1] < 1 for path in ("/", "/cards/kv-pool-users")) else 0


def half_sent(port: int, count: int) -> list[socket.socket]:
    """Connections that send a request line and a header, and never finish the headers."""
    held = []
    for _ in range(count):
        sock = socket.create_connection((HOST, port), timeout=5)
        sock.sendall(f"GET / HTTP/1.1\r\nHost: {HOST}\r\n".encode())
        held.append(sock)
    return held


def test_a_thousand_half_sent_connections_leave_the_site_answering(start_server, tmp_path):
    # On gthread's 2 x 4 threads sixteen of them took the site down for as long as they stayed open.
    server = start_server()
    warm_up(server.port)
    held = half_sent(server.port, 1000)
    try:
        time.sleep(1)
        answers = [(path, *timed_get(server.port, path)) for _ in range(3) for path in ("/", "/cards/kv-pool-users")]
        assert all(status == 200 for _, status, _ in answers), answers
        # Within 1 s on a quiet machine; on a shared one a slow answer now and then is the machine's.
        seconds = sorted(s for _, _, s in answers)
        assert seconds[len(seconds) // 2] < 1 and seconds[-1] < 10, answers
    finally:
        for sock in held:
            sock.close()


class Browser:
    """A reader with a session cookie and the CSRF token the interview pages give."""

    def __init__(self, port: int):
        self.port, self.cookie, self.csrf = port, None, None
        warm_up(port)

    def request(self, method, path, body=None):
        headers = {"Connection": "close", "Accept": "application/json"}
        if self.cookie:
            headers["Cookie"] = f"session={self.cookie}"
        if body is not None:
            headers.update({"Content-Type": "application/json", "X-CSRFToken": self.csrf or ""})
        conn = http.client.HTTPConnection(HOST, self.port, timeout=30)
        try:
            conn.request(method, path, body=json.dumps(body).encode() if body is not None else None, headers=headers)
            response = conn.getresponse()
            text = response.read().decode()
            for header in response.headers.get_all("Set-Cookie") or ():
                match = re.match(r"session=([^;]*)", header)
                if match:
                    self.cookie = match.group(1)
            return response.status, text
        finally:
            conn.close()

    def new_interview(self) -> dict:
        if self.csrf is None:
            _, page = self.request("GET", "/interview/new")
            self.csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        status, text = self.request("POST", "/api/interviews", {"candidate": "Ada", "cards": ["kv-pool-users"]})
        assert status == 201, text
        made = json.loads(text)
        status, text = self.request("POST", made["interviewer_url"] + "/show", {"card": "kv-pool-users"})
        assert status == 200, text
        return made


class Streams:
    """Candidate event streams read side by side in one thread (HTTP/1.0: no chunks, closed at the end)."""

    def __init__(self, port: int):
        self.port, self.selector, self.streams = port, selectors.DefaultSelector(), {}

    def open(self, candidate_url: str, label) -> None:
        sock = socket.create_connection((HOST, self.port), timeout=5)
        sock.sendall(f"GET {candidate_url}/events HTTP/1.0\r\nHost: {HOST}\r\n\r\n".encode())
        sock.setblocking(False)
        self.streams[sock] = {"label": label, "data": b"", "closed": None, "states": []}
        self.selector.register(sock, selectors.EVENT_READ)

    def pump(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for key, _ in self.selector.select(timeout=0.05):
                stream = self.streams[key.fileobj]
                chunk = key.fileobj.recv(65536)
                if not chunk:
                    stream["closed"] = time.monotonic()
                    self.selector.unregister(key.fileobj)
                    continue
                stream["data"] += chunk
                states = [json.loads(line[6:]) for line in stream["data"].split(b"\n") if line.startswith(b"data: ")]
                while len(stream["states"]) < len(states):
                    stream["states"].append((time.monotonic(), states[len(stream["states"])]))

    def held(self, label=None) -> list[dict]:
        return [s for s in self.streams.values() if s["closed"] is None and (label is None or s["label"] == label)]

    def close(self) -> None:
        for sock in self.streams:
            sock.close()


def revealed_at(stream: dict) -> float | None:
    return next((at for at, state in stream["states"] if "short" in state.get("revealed", [])), None)


def test_200_streams_across_10_interviews_each_reveal_arrives_within_a_second(start_server, tmp_path):
    server = start_server(env={"QUIZAPP_INTERVIEW_STREAMS_PER_LINK": "20"})
    browser = Browser(server.port)
    interviews = [browser.new_interview() for _ in range(10)]
    streams = Streams(server.port)
    try:
        for n, made in enumerate(interviews):
            for _ in range(20):
                streams.open(made["candidate_url"], n)
        streams.pump(2)
        assert len(streams.held()) == 200, f"{200 - len(streams.held())} of 200 streams closed at once"
        sent, answers = {}, []

        def reveal_each():
            for n, made in enumerate(interviews):
                sent[n] = time.monotonic()
                answers.append(browser.request("POST", made["interviewer_url"] + "/reveal",
                                               {"card": "kv-pool-users", "stage": "short"}))
                sent[n] = (sent[n], time.monotonic())  # the reveal is stored by the time its answer comes

        poster = threading.Thread(target=reveal_each)
        poster.start()
        while poster.is_alive():
            streams.pump(0.2)
        streams.pump(2)
        assert all(status == 200 for status, _ in answers), answers
        # Counted from the interviewer's answer: the moment the reveal is stored.
        sent = {n: answered for n, (_, answered) in sent.items()}
        delays = sorted((revealed_at(s) or 99) - sent[s["label"]] for s in streams.streams.values())
        print(f"\n200 streams: the reveal reached {sum(d < 1 for d in delays)} within 1 s, the slowest after "
              f"{delays[-1]:.2f} s")
        # Within 1 s on a quiet machine (the stream looks every 0.5 s); a busy shared one adds its own delays.
        assert delays[len(delays) // 2] < 1 and delays[-1] < 2, delays[-10:]
        newcomer = browser.new_interview()
        streams.open(newcomer["candidate_url"], "new")
        streams.pump(2)
        assert len(streams.held("new")) == 1, "a new interview's stream did not stay open"
    finally:
        streams.close()


def test_forty_streams_on_one_link_leave_another_interview_its_stream(start_server, tmp_path):
    # Issue 21: 40 streams on one candidate link filled the process's 2 slots; another interview's
    # candidate stream closed at once and fell back to polling every second.
    server = start_server()
    browser = Browser(server.port)
    greedy, other = browser.new_interview(), browser.new_interview()
    streams = Streams(server.port)
    try:
        for _ in range(40):
            streams.open(greedy["candidate_url"], "greedy")
        streams.pump(5)
        for _ in range(2):
            streams.open(other["candidate_url"], "other")
        streams.pump(5)
        assert len(streams.held("other")) == 2, "another interview's stream closed at once"
        assert len(streams.held("greedy")) <= 2 * 4  # INTERVIEW_STREAMS_PER_LINK per process, 2 processes
    finally:
        streams.close()


def pipelined(port: int, path: str, count: int) -> socket.socket:
    """One connection that sends ``count`` requests at once (HTTP/1.1 pipelining) and reads every
    answer as fast as it comes, so the server never waits on it."""
    sock = socket.create_connection((HOST, port), timeout=30)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode() * count)

    def drain():
        try:
            while sock.recv(1 << 20):
                pass
        except OSError:
            pass

    threading.Thread(target=drain, daemon=True).start()
    return sock


def test_one_connection_s_pipelined_requests_do_not_hold_the_worker(start_server, tmp_path):
    # A greenlet yields only when its socket would block: pipelined requests are already read,
    # so without a turn for the others one connection was served 1,000 times in a row (seconds
    # of card pages) while a reader on another connection of the same worker waited.
    server = start_server(workers=1)
    warm_up(server.port)
    greedy = pipelined(server.port, "/cards/kv-pool-users", 1000)
    try:
        time.sleep(0.05)  # the worker is into the pipelined batch
        waits = []
        for _ in range(5):
            status, seconds = timed_get(server.port, "/cards/kv-pool-users")
            assert status == 200
            waits.append(seconds)
        print(f"\na card page beside 1,000 pipelined on another connection: "
              f"{', '.join(f'{s * 1000:.0f}' for s in waits)} ms")
        # Each of ours waits about one turn (the greedy connection's one request), not its 1,000.
        assert max(waits) < 1, waits
    finally:
        greedy.close()
