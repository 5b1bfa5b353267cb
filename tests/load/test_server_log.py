"""What a real `quizapp serve` writes (access and error log, one output): never a link token.

Issue 21: the access log held every /interview/i/<token> path and /author/?token=, the error log
gunicorn's warning for a malformed request line, which quotes the line, path and all."""

from __future__ import annotations

import socket

import pytest

from .conftest import HOST

pytestmark = pytest.mark.load

SECRETS = ("PATHSECRET1", "QUERYSECRET2", "LINESECRET3")
REQUESTS = (
    "GET /interview/i/PATHSECRET1/state HTTP/1.1",
    "GET /api/models?token=QUERYSECRET2 HTTP/1.1",
    # A byte no request target may hold (RFC 9112): gunicorn refuses the line and logs the
    # line it read (workers/base.py handle_error: "Invalid request from ip=...").
    "GET /interview/c/LINESECRET3\x7f HTTP/1.1",
)


def send_raw(port: int, request_line: str) -> bytes:
    with socket.create_connection((HOST, port), timeout=10) as sock:
        sock.sendall(f"{request_line}\r\nHost: {HOST}:{port}\r\nConnection: close\r\n\r\n".encode("latin-1"))
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
        return answer


def test_no_token_of_a_request_reaches_the_server_s_output(start_server):
    server = start_server(workers=1)
    answers = [send_raw(server.port, line) for line in REQUESTS]
    assert [answer.split(b" ", 2)[1] for answer in answers] == [b"404", b"200", b"400"]
    server.stop()
    output = server.log_text()
    for secret in SECRETS:
        assert secret not in output, secret
    assert "GET /interview/i/***/state HTTP/1.1" in output and "GET /api/models?token=*** HTTP/1.1" in output
    assert "Invalid request from ip=127.0.0.1" in output and "/interview/c/***" in output


def get_with_host(port: int, host_header: str) -> int:
    with socket.create_connection(("::1", port), timeout=10) as sock:
        sock.sendall(f"GET / HTTP/1.1\r\nHost: {host_header}\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
        return int(answer.split(b" ", 2)[1])


def test_a_server_on_ipv6_loopback_starts_and_answers_its_own_address(start_server):
    # gunicorn read "::1:PORT" as a host "" and a port "::1:PORT"; the link printed had no brackets.
    server = start_server(workers=1, host="::1")
    assert get_with_host(server.port, f"[::1]:{server.port}") == 200
    assert get_with_host(server.port, f"localhost:{server.port}") == 200
    assert get_with_host(server.port, f"evil.example:{server.port}") == 400
    assert f"serving on http://[::1]:{server.port}/" in server.log_text()
