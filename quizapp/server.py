"""Run the app under gunicorn, a production WSGI server with several worker processes.

The workers are gevent's (``gunicorn -k gevent``): each connection is a greenlet, so an idle or
slow client costs a connection and not a thread, and an event stream costs next to nothing. With
gthread's 2 x 4 threads, sixteen half-sent requests took the whole site (issue 21); measured on
this machine with ``bench/slow_clients.py``: with 1,000 half-sent connections held open, gevent
answered / and a card page within a second, gthread did not answer at all (bench/results.md).

gevent must patch the standard library (threads, locks, sleep, sockets) before anything else
is imported: a lock or a ``threading.local`` made before would be a real thread's, shared by every
greenlet of a worker (one SQLite connection for all, two writers in one "turn"). So a server that
is to run gevent workers starts again at once in a fresh interpreter that patches first
(``_run_patched``), and gunicorn forks its workers from that one.
"""

from __future__ import annotations

import os
import resource
import socket
import sys

from flask import Flask

WORKER_CLASSES = ("gevent", "gthread")
# Connections one gevent worker holds at once (gunicorn's default); each is a greenlet and a file.
WORKER_CONNECTIONS = 1000
# Set in the environment of the interpreter started again with gevent patched first.
PATCHED_MARK = "_QUIZAPP_GEVENT_PATCHED"
PRELUDE = "from gevent import monkey; monkey.patch_all(); import quizapp.server; quizapp.server.rerun()"


class PortInUse(OSError):
    """HOST:PORT is taken: another server (or another quizapp) listens there."""


def is_patched() -> bool:
    """Whether this interpreter was started with gevent's patches first (``_run_patched``)."""
    if os.environ.get(PATCHED_MARK) != "1":
        return False
    from gevent import monkey

    return monkey.is_module_patched("threading")


def _run_patched(app: Flask) -> None:
    """Start this command again in a fresh interpreter that patches with gevent before any import;
    never returns. The command is the one this process runs: a script, or ``python -m module``."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    module = spec.name.removesuffix(".__main__") if spec is not None and spec.name else ""
    env = {**os.environ, PATCHED_MARK: "1"}
    if app.config.get("AUTHOR_TOKEN"):  # the token serve printed, made again otherwise
        env["QUIZAPP_AUTHOR_TOKEN"] = str(app.config["AUTHOR_TOKEN"])
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, "-c", PRELUDE, module, *sys.argv], env)


def rerun() -> None:
    """In the interpreter ``_run_patched`` starts, gevent patched: the command it was given."""
    import runpy

    module = sys.argv[1]
    sys.argv = sys.argv[2:]
    if module:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    else:
        runpy.run_path(sys.argv[0], run_name="__main__")


def raise_open_files_limit() -> None:
    """Each connection is a file: the soft limit (often 1,024) goes up to the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError):
            pass


def run_gunicorn(app: Flask, host: str, port: int, workers: int, threads: int, worker_class: str = "gevent",
                 connections: int = WORKER_CONNECTIONS) -> None:
    """Serve ``app`` until stopped. Each worker listens on its own socket (SO_REUSEPORT), so the
    kernel spreads connections over the workers: on one shared socket it handed most keep-alive
    connections to one worker now and then, and a core idled (bench/README.md).

    ``worker_class`` "gevent" (each worker holds ``connections`` connections as greenlets; this
    process starts again patched first unless it was) or "gthread" (``threads`` threads each)."""
    from gunicorn.app.base import BaseApplication

    MaskingLogger = _masking_logger()
    host = host.strip("[]")
    refuse_taken_port(host, port)
    if worker_class == "gevent" and not is_patched():
        _run_patched(app)
    raise_open_files_limit()

    class QuizappServer(BaseApplication):
        def load_config(self):
            self.cfg.set("bind", address(host, port))
            self.cfg.set("workers", workers)
            self.cfg.set("threads", threads)
            self.cfg.set("worker_class", worker_class)
            self.cfg.set("worker_connections", connections)
            self.cfg.set("accesslog", "-")
            self.cfg.set("logger_class", MaskingLogger)
            self.cfg.set("graceful_timeout", 5)
            self.cfg.set("reuse_port", True)
            # gunicorn's control socket sits at one shared path: a second server would take it over.
            self.cfg.set("control_socket_disable", True)
            self.cfg.set("post_worker_init", lambda worker: settle(app))

        def load(self):
            return take_turns(app) if worker_class == "gevent" else app

    QuizappServer().run()


def settle(app: Flask) -> None:
    """In a new worker, before its first request: load the bank, then set every object made so
    far aside from the garbage collector (``gc.freeze``). The bank and the code are most of a
    worker's objects and live as long as it does, yet each full collection walked them all: a
    card page took 1.34 ms in-process with them watched and 1.05 ms with them set aside (under
    wrk, 1,230 card pages a second against 1,206, medians of four runs each)."""
    import gc

    from .web.storage import loaded_bank

    if app.config.get("QUESTIONS_DIR"):  # quizapp's app (bench/hello.py's has no bank)
        with app.app_context():
            loaded_bank()
    gc.collect()
    gc.freeze()


# How long a request waits for the next turn of the event loop before it is served (see take_turns).
TURN_S = 0.00001


def take_turns(app):
    """``app`` with each request first letting the worker's other connections have a turn.

    A greenlet yields only when a socket would block. A client that sends its next request as
    soon as an answer arrives (a keep-alive loop on a fast link, or requests pipelined on one
    connection) finds it already read, and is served again and again while every other
    connection of the worker waits: on loopback under wrk -c10, the p99 of a card page was 2.5 s
    beside a p50 of 4 ms. A positive sleep puts this request behind the next turn of the loop,
    in which every ready connection is served once (gevent.sleep(0) would not poll sockets)."""
    import gevent

    def wsgi(environ, start_response):
        gevent.sleep(TURN_S)
        return app(environ, start_response)

    return wsgi


def _masking_logger():
    from gunicorn.glogging import Logger, SafeAtoms

    from .web.security import MASK_TOKENS, mask_tokens

    class MaskedAtoms(SafeAtoms):
        """Each atom the access log's format asks for, masked as it is asked for: a format may
        print the query alone ("q=%(q)s"), where the line's mask cannot tell "token=" is a
        query's first name. Only those asked for: masking all of them (every request and
        response header) took a sixth of a small request's time in a worker."""

        def __getitem__(self, key):
            value = super().__getitem__(key)
            return mask_tokens(value) if isinstance(value, str) else value

    class MaskingLogger(Logger):
        """gunicorn's logger with every link token masked: an interviewer's or candidate's path
        (/interview/i/<token>) and ?token= of the author link were written out in clear."""

        atoms_wrapper_class = MaskedAtoms

        def setup(self, cfg):
            super().setup(cfg)
            # Every line of both logs, at any level, with its arguments and traceback.
            for log in (self.error_log, self.access_log):
                log.addFilter(MASK_TOKENS)

    return MaskingLogger


def address(host: str, port: int) -> str:
    """HOST:PORT as gunicorn's bind and a URL write it: an IPv6 address in brackets ([::1]:5000),
    or its colons would be read as the port's."""
    host = host.strip("[]")
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


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
