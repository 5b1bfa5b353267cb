"""Flask's hello world under the server quizapp ships: the ceiling of the stack on this machine.

    .venv/bin/python bench/hello.py --port 5001 --workers 2 --threads 4

bench/run drives it beside `quizapp serve` with the same settings (gunicorn gevent, same
workers, threads and access log, through quizapp.server.run_gunicorn), so the ratio of
the two is the share of the stack's ceiling that a quizapp page keeps.
"""

from __future__ import annotations

import argparse
import os

from flask import Flask

from quizapp.server import run_gunicorn

app = Flask(__name__)


@app.get("/")
def hello():
    return "Hello, World!"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    # As `quizapp serve --worker-class` reads it, so both servers of a bench run use one model.
    parser.add_argument("--worker-class", default=os.environ.get("QUIZAPP_WORKER_CLASS", "gevent"),
                        choices=["gevent", "gthread"])
    args = parser.parse_args()
    run_gunicorn(app, args.host, args.port, args.workers, args.threads, args.worker_class)


if __name__ == "__main__":
    main()
