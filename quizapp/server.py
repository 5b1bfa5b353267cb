"""Run the app under gunicorn, a production WSGI server with several worker processes."""

from __future__ import annotations

import socket

from flask import Flask


class PortInUse(OSError):
    """HOST:PORT is taken: another server (or another quizapp) listens there."""


def run_gunicorn(app: Flask, host: str, port: int, workers: int, threads: int) -> None:
    """Serve ``app`` until stopped. Each worker listens on its own socket (SO_REUSEPORT), so the
    kernel spreads connections over the workers: on one shared socket it handed most keep-alive
    connections to one worker now and then, and a core idled (bench/README.md)."""
    from gunicorn.app.base import BaseApplication

    refuse_taken_port(host, port)

    class QuizappServer(BaseApplication):
        def load_config(self):
            self.cfg.set("bind", f"{host}:{port}")
            self.cfg.set("workers", workers)
            self.cfg.set("threads", threads)
            self.cfg.set("worker_class", "gthread")
            self.cfg.set("accesslog", "-")
            self.cfg.set("graceful_timeout", 5)
            self.cfg.set("reuse_port", True)
            # gunicorn's control socket sits at one shared path: a second server would take it over.
            self.cfg.set("control_socket_disable", True)

        def load(self):
            return app

    QuizappServer().run()


def refuse_taken_port(host: str, port: int) -> None:
    """Raise PortInUse when something listens on HOST:PORT. With SO_REUSEPORT a second server
    would bind beside the first and share its connections without a word: a plain bind, which
    that option does not let through, finds out first."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise PortInUse(f"cannot serve on {host}:{port}: {error.strerror}") from None
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn binds: TIME_WAIT is no owner
        try:
            probe.bind(address)
        except OSError as error:
            raise PortInUse(f"cannot serve on {host}:{port}: {error.strerror} (is another server running there?)") \
                from None
