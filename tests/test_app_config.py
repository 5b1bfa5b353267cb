"""Settings in layers: the defaults, instance/config.py, QUIZAPP_* variables, then a test's or serve's overrides."""

import multiprocessing

import pytest
from flask import Flask

from quizapp import create_app
from quizapp.settings import instance_secret as _instance_secret
from quizapp import server
from quizapp.cli import main


@pytest.fixture
def instance(tmp_path, monkeypatch):
    """An instance folder of the test's own: where Flask looks for config.py and the app keeps secret_key."""
    folder = tmp_path / "instance"
    monkeypatch.setattr(Flask, "auto_find_instance_path", lambda self: str(folder))
    for name in ("QUIZAPP_AUTHOR_TOOLS", "QUIZAPP_SECRET_KEY"):
        monkeypatch.delenv(name, raising=False)
    return folder


def write_config(instance, text: str) -> None:
    instance.mkdir(exist_ok=True)
    (instance / "config.py").write_text(text, encoding="utf-8")


def test_the_instance_config_is_read_and_overrides_go_on_top(instance, tmp_path):
    write_config(instance, "AUTHOR_TOOLS = False\nDATABASE = 'from-instance.sqlite'\n")
    app = create_app({"DATABASE": str(tmp_path / "db.sqlite")})
    assert app.config["AUTHOR_TOOLS"] is False
    assert app.config["DATABASE"] == str(tmp_path / "db.sqlite")


def test_serve_with_db_still_reads_the_instance_config(instance, tmp_path, monkeypatch):
    write_config(instance, "AUTHOR_TOOLS = False\n")
    served = []
    monkeypatch.setattr(server, "run_gunicorn", lambda app, *args: served.append(app))
    main(["serve", "--db", str(tmp_path / "served.sqlite")])
    [app] = served
    assert app.config["DATABASE"] == str((tmp_path / "served.sqlite").resolve())
    assert app.config["AUTHOR_TOOLS"] is False


def test_environment_variables_go_over_the_instance_config(instance, tmp_path, monkeypatch):
    write_config(instance, "AUTHOR_TOOLS = True\n")
    monkeypatch.setenv("QUIZAPP_AUTHOR_TOOLS", "0")
    monkeypatch.setenv("QUIZAPP_SECRET_KEY", "a-secret-from-the-environment")
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "db.sqlite")})
    assert app.secret_key == "a-secret-from-the-environment"
    assert not (instance / "secret_key").exists()
    assert app.test_client().get("/author/").status_code == 404


def test_an_all_digit_secret_key_stays_text(instance, tmp_path, monkeypatch):
    monkeypatch.setenv("QUIZAPP_SECRET_KEY", "12345678901234567890")
    app = create_app({"DATABASE": str(tmp_path / "db.sqlite")})
    assert app.secret_key == "12345678901234567890"


def test_without_a_secret_one_is_made_once_in_the_instance_folder(instance, tmp_path):
    first = create_app({"DATABASE": str(tmp_path / "db.sqlite")}).secret_key
    assert create_app({"DATABASE": str(tmp_path / "db.sqlite")}).secret_key == first
    assert (instance / "secret_key").read_text(encoding="utf-8").strip() == first


def test_the_largest_body_follows_the_import_limit(instance, tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "db.sqlite"), "MAX_IMPORT_BYTES": 1000})
    assert app.config["MAX_CONTENT_LENGTH"] == 1000 + 1024 * 1024
    assert create_app({"DATABASE": str(tmp_path / "db.sqlite")}).config["MAX_CONTENT_LENGTH"] == 21 * 1024 * 1024


def test_an_empty_secret_key_file_is_replaced_and_requests_still_work(instance, tmp_path):
    # What two processes starting at once used to leave behind: the file made, its secret not yet written.
    instance.mkdir()
    (instance / "secret_key").write_text("", encoding="utf-8")
    app = create_app({"DATABASE": str(tmp_path / "db.sqlite")})
    assert len(app.secret_key) >= 32
    assert (instance / "secret_key").read_text(encoding="utf-8").strip() == app.secret_key
    assert app.test_client().get("/").status_code == 200
    assert create_app({"DATABASE": str(tmp_path / "db.sqlite")}).secret_key == app.secret_key


def _secret_when_released(instance: str, barrier, results) -> None:
    barrier.wait()
    results.put(_instance_secret(instance))


def test_processes_starting_at_once_share_one_secret(instance):
    context = multiprocessing.get_context("fork")
    for attempt in range(3):
        folder = instance / str(attempt)
        folder.mkdir(parents=True)
        barrier, results = context.Barrier(6), context.Queue()
        workers = [context.Process(target=_secret_when_released, args=(str(folder), barrier, results))
                   for _ in range(6)]
        for worker in workers:
            worker.start()
        secrets = {results.get(timeout=20) for _ in workers}
        for worker in workers:
            worker.join(timeout=20)
        assert len(secrets) == 1 and len(secrets.pop()) >= 32


def served_app(monkeypatch, *options):
    """The app `quizapp serve OPTIONS` would run, without starting gunicorn."""
    served = []
    monkeypatch.setattr(server, "run_gunicorn", lambda app, *args: served.append(app))
    main(["serve", *options])
    return served[0]


def session_cookie(app) -> str:
    return app.test_client().get("/").headers["Set-Cookie"]


def test_cookies_are_not_secure_by_default(instance, tmp_path, monkeypatch):
    app = served_app(monkeypatch, "--db", str(tmp_path / "db.sqlite"))
    assert "Secure" not in session_cookie(app)


def test_serve_with_secure_cookies_marks_them_secure(instance, tmp_path, monkeypatch):
    app = served_app(monkeypatch, "--db", str(tmp_path / "db.sqlite"), "--secure-cookies")
    assert "; Secure" in session_cookie(app)


def test_secure_cookies_from_the_environment(instance, tmp_path, monkeypatch):
    monkeypatch.setenv("QUIZAPP_SESSION_COOKIE_SECURE", "1")
    assert "; Secure" in session_cookie(create_app({"DATABASE": str(tmp_path / "db.sqlite")}))


FORWARDED = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "quiz.example", "X-Forwarded-For": "203.0.113.7"}


def seen_by_the_app(app) -> dict:
    """The URL and client address a view sees for a request that came through a proxy."""
    seen = {}

    @app.get("/probe")
    def probe():
        from flask import request
        seen.update(url=request.url, remote=request.remote_addr, secure=request.is_secure)
        return ""

    app.test_client().get("/probe", headers=FORWARDED)
    return seen


def test_serve_behind_a_proxy_honours_its_forwarded_headers(instance, tmp_path, monkeypatch):
    app = served_app(monkeypatch, "--db", str(tmp_path / "db.sqlite"), "--behind-proxy")
    assert seen_by_the_app(app) == {"url": "https://quiz.example/probe", "remote": "203.0.113.7", "secure": True}


def test_without_behind_proxy_forwarded_headers_are_ignored(instance, tmp_path, monkeypatch):
    # Anyone can send them: trusted only when a proxy in front is known to set them.
    app = served_app(monkeypatch, "--db", str(tmp_path / "db.sqlite"))
    assert seen_by_the_app(app) == {"url": "http://localhost/probe", "remote": "127.0.0.1", "secure": False}


def test_behind_proxy_from_the_environment(instance, tmp_path, monkeypatch):
    monkeypatch.setenv("QUIZAPP_BEHIND_PROXY", "1")
    app = create_app({"DATABASE": str(tmp_path / "db.sqlite")})
    assert seen_by_the_app(app)["url"] == "https://quiz.example/probe"


def test_the_database_comes_from_quizapp_database_or_serve_db(instance, database, monkeypatch, capsys):
    """A SQLite file is made absolute; a postgresql:// URL is kept as given. On PostgreSQL a server
    that signs cookies with a key of its own says so: its readers would start over on another server."""
    monkeypatch.setenv("QUIZAPP_DATABASE", database)
    assert create_app({"TESTING": True}).config["DATABASE"] == database
    monkeypatch.delenv("QUIZAPP_DATABASE")
    app = served_app(monkeypatch, "--db", database)
    shared = database.startswith("postgresql://")
    assert (app.config["DATABASE"] == database) if shared else app.config["DATABASE"].endswith(".sqlite")
    assert ("QUIZAPP_SECRET_KEY" in capsys.readouterr().err) is shared
    monkeypatch.setenv("QUIZAPP_SECRET_KEY", "k" * 64)
    served_app(monkeypatch, "--db", database)
    assert "warning" not in capsys.readouterr().err


def test_the_app_asks_once_whether_a_plain_function_is_a_coroutine(tmp_path):
    """QuizappFlask keeps ensure_sync's answer per plain function; an async view still runs
    through Flask's async_to_sync, and a plain one is returned as it is."""
    import asyncio

    from quizapp import create_app

    app = create_app({"DATABASE": str(tmp_path / "q.sqlite"), "TESTING": True})

    def plain():
        return "plain"

    async def later():
        await asyncio.sleep(0)
        return "later"

    assert app.ensure_sync(plain) is plain and app.ensure_sync(plain) is plain
    try:
        wrapped = app.ensure_sync(later)
    except RuntimeError:  # Flask's async extra (asgiref) not installed: it says so, each time
        return
    assert wrapped is not later and app.ensure_sync(later) is wrapped and wrapped() == "later"
