"""``quizapp serve``: the app under gunicorn (or Flask's reloading server with ``--dev``)."""

from __future__ import annotations

from pathlib import Path

import click

from .errors import fail


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True, type=int)
@click.option("--db", "db_path", default=None,
              help="SQLite file, or a postgresql:// URL shared by several servers (default: instance/quizapp.sqlite)")
@click.option("--questions", "questions_dir", default=None, help="folder of question cards (default: questions/)")
@click.option("--workers", default=2, show_default=True, type=int, help="worker processes")
@click.option("--threads", default=4, show_default=True, type=int, help="threads per worker (gthread workers)")
@click.option("--worker-class", default="gevent", show_default=True, type=click.Choice(["gevent", "gthread"]),
              envvar="QUIZAPP_WORKER_CLASS",
              help="gevent: each connection a greenlet, so slow clients and event streams hold no thread; "
                   "gthread: a thread per request being read or served")
@click.option("--dev", is_flag=True, help="Flask's reloading development server instead of gunicorn")
@click.option("--secure-cookies", is_flag=True, help="mark cookies Secure: readers reach the app over HTTPS")
@click.option("--behind-proxy", is_flag=True,
              help="trust the X-Forwarded-For/-Proto/-Host/-Port headers of one reverse proxy in front")
def serve(host, port, db_path, questions_dir, workers, threads, worker_class, dev, secure_cookies, behind_proxy):
    """Serve the app (gunicorn, several workers) on HOST:PORT."""
    from .. import create_app
    from ..progress.db.connection import is_postgres, shown_database
    from ..server import address, is_patched

    # A gevent server starts again patched first (server.py): that run says nothing twice.
    again = worker_class == "gevent" and not dev and is_patched()
    overrides = {"SERVER_HOST": host, "WORKER_CLASS": "dev" if dev else worker_class}
    if db_path:
        overrides["DATABASE"] = db_path if is_postgres(db_path) else str(Path(db_path).resolve())
    if questions_dir:
        overrides["QUESTIONS_DIR"] = str(Path(questions_dir).resolve())
    # Only when given: without the flag, instance/config.py or QUIZAPP_* may still turn them on.
    if secure_cookies:
        overrides["SESSION_COOKIE_SECURE"] = True
    if behind_proxy:
        overrides["BEHIND_PROXY"] = True
    # On top of instance/config.py and QUIZAPP_* settings, which still apply.
    app = create_app(overrides)
    link = _author_link(app, host, port, dev)
    if not again:
        click.echo(f"quizapp serving on http://{address(host, port)}/ (database {shown_database(app.config['DATABASE'])})")
        if is_postgres(app.config["DATABASE"]) and _own_secret(app):
            click.echo("warning: this server signs cookies with its own instance/secret_key; give every server of "
                       "the database the same QUIZAPP_SECRET_KEY, or a reader moved to another server starts over",
                       err=True)
        if link:
            click.echo(f"Author tools and interview-only cards need the author token; open once: {link}")
            if behind_proxy:
                click.echo("(through the proxy: the same path on the address readers use)")
    if dev:
        app.run(host=host, port=port, debug=True)
        return
    from ..server import PortInUse, run_gunicorn

    try:
        run_gunicorn(app, host, port, workers, threads, worker_class)
    except PortInUse as taken:
        fail(str(taken))


def _own_secret(app) -> bool:
    """Whether the cookie key is the one this machine made (instance/secret_key), not one given."""
    path = Path(app.instance_path) / "secret_key"
    try:
        return path.read_text(encoding="utf-8").strip() == app.config["SECRET_KEY"]
    except OSError:
        return False


def _author_link(app, host: str, port: int, dev: bool) -> str | None:
    """The author pages' link with the token, when this server asks for one (as a notebook server
    prints its link). The token is made here unless QUIZAPP_AUTHOR_TOKEN gives it."""
    import os
    import secrets
    import socket

    from ..web.access import needs_token

    if not needs_token(app):
        return None
    if not app.config.get("AUTHOR_TOKEN"):
        app.config["AUTHOR_TOKEN"] = secrets.token_urlsafe(32)
        if dev:
            # The development server's reloader runs this command again: it keeps the same token.
            os.environ["QUIZAPP_AUTHOR_TOKEN"] = app.config["AUTHOR_TOKEN"]
    shown = socket.gethostname() if host in ("0.0.0.0", "::", "") else host
    from ..server import address

    return f"http://{address(shown, port)}/author/?token={app.config['AUTHOR_TOKEN']}"
