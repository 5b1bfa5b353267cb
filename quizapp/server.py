"""Run the app under gunicorn, a production WSGI server with several worker processes."""

from __future__ import annotations

from flask import Flask


def run_gunicorn(app: Flask, host: str, port: int, workers: int, threads: int) -> None:
    from gunicorn.app.base import BaseApplication

    class QuizappServer(BaseApplication):
        def load_config(self):
            self.cfg.set("bind", f"{host}:{port}")
            self.cfg.set("workers", workers)
            self.cfg.set("threads", threads)
            self.cfg.set("worker_class", "gthread")
            self.cfg.set("accesslog", "-")
            self.cfg.set("graceful_timeout", 5)
            # gunicorn's control socket sits at one shared path: a second server would take it over.
            self.cfg.set("control_socket_disable", True)

        def load(self):
            return app

    QuizappServer().run()
