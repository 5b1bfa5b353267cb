"""A worker's memory after ten large imports stays within 50 MB of where it started (issue 21:
one worker grew from 66 MB to 240 MB over 11 imports of ~99,000 rows and stayed there).

Against a real `quizapp serve` of one worker, under each server model it offers, with imports
sent as a browser's form sends them, several at once. Before the import read its file as a
stream, the gthread worker went from 83 MB to 126-145 MB here and stayed there; since, to 97 MB."""

from __future__ import annotations

import http.client
import re
import secrets
import sqlite3
import threading
from pathlib import Path

import pytest

from quizapp.progress import transfer

from .conftest import HOST, assert_clean_log

pytestmark = pytest.mark.load

ROWS = 99_000
IMPORTS = 10
AT_ONCE = 4
GROWTH_LIMIT_MB = 50


def worker_rss_mb(master_pid: int) -> float:
    (worker,) = Path(f"/proc/{master_pid}/task/{master_pid}/children").read_text().split()
    status = Path(f"/proc/{worker}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024


class Reader:
    """A browser: its own session cookie, the CSRF token its pages carry, its flash messages."""

    def __init__(self, port: int):
        self.port, self.cookie = port, None

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None) -> str:
        conn = http.client.HTTPConnection(HOST, self.port, timeout=300)
        try:
            conn.request(method, path, body=body, headers={"Accept": "text/html", **(headers or {}),
                                                          **({"Cookie": self.cookie} if self.cookie else {})})
            response = conn.getresponse()
            text = response.read().decode("utf-8", errors="replace")
            cookie = response.headers.get("Set-Cookie")
            if cookie:
                self.cookie = cookie.split(";", 1)[0]
            assert response.status in (200, 303), f"{method} {path} answered {response.status}: {text[:500]}"
            return text
        finally:
            conn.close()

    def import_file(self, content: bytes) -> str:
        """The /me form's upload, as multipart/form-data; the flash message it leads to."""
        page = self.request("GET", "/me")
        token = re.search(r'<meta name="csrf-token" content="([^"]+)">', page).group(1)
        boundary = "quizapp" + secrets.token_hex(8)
        body = (f'--{boundary}\r\nContent-Disposition: form-data; name="csrf_token"\r\n\r\n{token}\r\n'
                f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="progress.json"\r\n'
                f"Content-Type: application/json\r\n\r\n").encode() + content + f"\r\n--{boundary}--\r\n".encode()
        self.request("POST", "/me/import", body, {"Content-Type": f"multipart/form-data; boundary={boundary}"})
        flashed = re.search(r"(Imported [^<]*|Nothing imported[^<]*)", self.request("GET", "/me"))
        return flashed.group(1) if flashed else "no message"


def export_file(k: int) -> bytes:
    rows = [{"event_id": f"evt-mem-{k}-{n:06d}", "card_id": "kv-pool-users", "kind": "answer", "stage": "short",
             "value": "about 1,800 users", "detail": None, "scenario": None, "at": "2026-01-01T00:00:00+00:00"}
            for n in range(ROWS)]
    return transfer.dumps({"format": "quizapp-progress", "version": 1, "learner": {}, "events": rows,
                           "review_log": []}).encode()


def import_into_a_new_profile(port: int, k: int, said: list[str]) -> None:
    reader, content = Reader(port), export_file(k)
    for _attempt in range(3):  # "the database stayed busy ... import it again", as a reader would
        message = reader.import_file(content)
        if "stayed busy" not in message:
            break
    said.append(message)


@pytest.mark.parametrize("worker_class", ["gevent", "gthread"])
def test_ten_large_imports_leave_a_worker_within_50_mb_of_where_it_started(start_server, tmp_path, worker_class):
    server = start_server(workers=1, env={"QUIZAPP_WORKER_CLASS": worker_class})
    warm = Reader(server.port)
    for _ in range(20):  # the bank loaded, pages drawn and cached: the worker as it runs
        for path in ("/", "/cards/kv-pool-users", "/me"):
            warm.request("GET", path)
    start = worker_rss_mb(server.proc.pid)

    said: list[str] = []
    for first in range(0, IMPORTS, AT_ONCE):
        imports = [threading.Thread(target=import_into_a_new_profile, args=(server.port, k, said))
                   for k in range(first, min(IMPORTS, first + AT_ONCE))]
        for thread in imports:
            thread.start()
        for thread in imports:
            thread.join(timeout=600)
    end = worker_rss_mb(server.proc.pid)

    expected = f"Imported {ROWS:,} new events and 0 new reviews: {ROWS:,} of {ROWS:,} rows read"
    assert said == [expected + "; what was already here was skipped."] * IMPORTS, said
    with sqlite3.connect(f"file:{tmp_path / 'quizapp.sqlite'}?mode=ro", uri=True) as db:
        assert db.execute("SELECT count(*) FROM events WHERE event_id LIKE 'evt-mem-%'").fetchone()[0] == ROWS * IMPORTS
    assert end - start < GROWTH_LIMIT_MB, f"{worker_class}: {start:.0f} MB at the start, {end:.0f} MB after " \
                                          f"{IMPORTS} imports of {ROWS:,} rows, {AT_ONCE} at once"
    assert_clean_log(server.log_text())
