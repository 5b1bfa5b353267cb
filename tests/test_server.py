"""quizapp serve: one socket per worker (SO_REUSEPORT), and a port already served is refused."""

import socket

import pytest
from flask import Flask

from quizapp.cli import main
from quizapp.server import PortInUse, refuse_taken_port


@pytest.fixture
def listening():
    """A socket listening on 127.0.0.1 as a gunicorn worker's does: SO_REUSEPORT set."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    yield sock.getsockname()[1]
    sock.close()


def test_a_free_port_is_served(listening):
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    refuse_taken_port("127.0.0.1", port)  # no error


def test_a_port_another_server_listens_on_is_refused_though_it_shares_ports(listening):
    with pytest.raises(PortInUse, match=f"cannot serve on 127.0.0.1:{listening}: .*another server"):
        refuse_taken_port("127.0.0.1", listening)


def test_serve_says_so_in_one_line_and_exits_2(listening, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(Flask, "auto_find_instance_path", lambda self: str(tmp_path / "instance"))
    with pytest.raises(SystemExit) as stopped:
        main(["serve", "--port", str(listening), "--db", str(tmp_path / "served.sqlite")])
    assert stopped.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"quizapp: error: cannot serve on 127.0.0.1:{listening}: ")


def test_an_unknown_host_is_refused(tmp_path):
    with pytest.raises(PortInUse, match="cannot serve on no-such-host.invalid:5000"):
        refuse_taken_port("no-such-host.invalid", 5000)


def test_a_new_worker_loads_the_bank_then_sets_its_objects_aside_from_the_collector(tmp_path):
    import gc

    from quizapp import create_app
    from quizapp.server import settle
    from tests.web.conftest import QUESTIONS_DIR

    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "q.sqlite"), "QUESTIONS_DIR": str(QUESTIONS_DIR)})
    assert "quizapp.bank" not in app.extensions
    try:
        settle(app)
        assert gc.get_freeze_count() > 0
        assert app.extensions["quizapp.bank"].cards
    finally:
        gc.unfreeze()
