"""Author tools and interview-only cards: open on a loopback address; on any other address only
with the author token, which a ?token= once remembers in the session."""

import re
import shutil

import pytest
from flask import Flask

from quizapp import create_app, server
from quizapp.cli import main

TOKEN = "author-token-for-the-tests-0123456789"
SECRET = "kv-pool-users-live"  # the interview-only card
ROLE = "Live Interview Panel"  # a role only it has


@pytest.fixture
def questions_dir(tmp_path, questions_dir):
    """The web tests' bank, plus an interview-only copy of kv-pool-users with a rubric."""
    folder = tmp_path / "questions"
    shutil.copytree(questions_dir, folder)
    text = (questions_dir / "kv-pool-users.md").read_text(encoding="utf-8")
    text = text.replace("id: kv-pool-users", f"id: {SECRET}\ninterview_only: true\nrubric:\n  solid: [divides the "
                        "pool by the tokens one user holds]\n  beyond: checks the count in the startup log")
    text = text.replace("title: How many users fit in the KV pool", "title: Users in the pool, live")
    text = text.replace("roles: [Inference Engineering,", f"roles: [{ROLE}, Inference Engineering,")
    (folder / "live.md").write_text(text, encoding="utf-8")
    return folder


def make_app(tmp_path, questions_dir, **config):
    return create_app({"TESTING": True, "DATABASE": str(tmp_path / "db.sqlite"), "QUESTIONS_DIR": str(questions_dir),
                       **config})


@pytest.fixture
def public(tmp_path, questions_dir):
    """A server bound to every address, as one that candidates reach."""
    return make_app(tmp_path, questions_dir, SERVER_HOST="0.0.0.0", AUTHOR_TOKEN=TOKEN)


def sees_the_card(client) -> dict[str, bool]:
    practice = client.get(f"/practice?role={ROLE.replace(' ', '+')}")
    return {
        "/": "Users in the pool, live" in client.get("/").text,
        "/practice": practice.status_code == 303 and f"/cards/{SECRET}" in practice.location,
        "/api/cards/<id>/values": client.get(f"/api/cards/{SECRET}/values").status_code == 200,
        "/author/": "Users in the pool, live" in client.get("/author/").text,
        "/author/cards/<id>": client.get(f"/author/cards/{SECRET}").status_code == 200,
        "/cards/<id>": client.get(f"/cards/{SECRET}").status_code == 200,
    }


def test_an_interview_only_card_is_absent_without_the_token_on_a_public_address(public):
    assert not any(sees_the_card(public.test_client()).values())


def test_and_present_with_it(public):
    client = public.test_client()
    opened = client.get(f"/?token={TOKEN}")
    assert opened.status_code == 303 and opened.location == "/"  # the token leaves the address bar
    assert all(sees_the_card(client).values())


def test_the_token_works_on_the_values_api_too(public):
    client = public.test_client()
    assert client.get(f"/api/cards/{SECRET}/values?token={TOKEN}").status_code == 200
    assert client.get("/author/").status_code == 200


def test_a_wrong_token_opens_nothing(public):
    client = public.test_client()
    client.get("/?token=" + TOKEN[:-1] + "x")
    assert not any(sees_the_card(client).values())
    response = client.get("/author/")
    assert response.status_code == 403 and "author token" in response.text


def test_a_new_token_closes_the_old_sessions(tmp_path, questions_dir, public):
    client = public.test_client()
    client.get(f"/?token={TOKEN}")
    restarted = make_app(tmp_path, questions_dir, SERVER_HOST="0.0.0.0", AUTHOR_TOKEN="another-token-0123456789")
    with restarted.test_client() as other:
        other.set_cookie("session", client.get_cookie("session").value)
        assert other.get("/author/").status_code == 403


def test_on_a_loopback_address_everything_is_open_without_a_token(tmp_path, questions_dir):
    for host in ("127.0.0.1", "localhost", "::1"):
        assert all(sees_the_card(make_app(tmp_path, questions_dir, SERVER_HOST=host).test_client()).values()), host


def test_author_tools_may_ask_for_the_token_on_loopback_too(tmp_path, questions_dir):
    app = make_app(tmp_path, questions_dir, AUTHOR_TOOLS="token", AUTHOR_TOKEN=TOKEN)
    assert app.test_client().get("/author/").status_code == 403


def test_turned_off_they_are_off_for_everyone(tmp_path, questions_dir):
    client = make_app(tmp_path, questions_dir, SERVER_HOST="0.0.0.0", AUTHOR_TOKEN=TOKEN, AUTHOR_TOOLS=False
                      ).test_client()
    client.get(f"/?token={TOKEN}")
    assert client.get("/author/").status_code == 404 and not any(sees_the_card(client).values())


def create(client, cards) -> object:
    token = re.search(r'name="csrf_token" value="([^"]+)"', client.get("/interview/new").text).group(1)
    return client.post("/api/interviews", json={"candidate": "Ada", "cards": cards}, headers={"X-CSRFToken": token})


def test_only_an_author_may_put_an_interview_only_card_in_a_session(public):
    stranger = public.test_client()
    assert "Users in the pool, live" not in stranger.get("/interview/new").text
    refused = create(stranger, [SECRET])
    assert refused.status_code == 400 and refused.get_json()["field"] == "cards.0"
    author = public.test_client()
    author.get(f"/?token={TOKEN}")
    assert "Users in the pool, live" in author.get("/interview/new").text
    created = create(author, [SECRET])
    assert created.status_code == 201
    # The console link is the credential: it shows the card on any browser, with the card's rubric.
    console = public.test_client().get(created.get_json()["interviewer_url"])
    assert console.status_code == 200 and "divides the pool by the tokens one user holds" in console.text


@pytest.fixture
def serve(tmp_path, monkeypatch) -> list:
    """``quizapp serve`` without a server: the apps it would serve, with an instance folder of the test's own."""
    served = []
    monkeypatch.setattr(server, "run_gunicorn", lambda app, *args: served.append(app))
    monkeypatch.setattr(Flask, "auto_find_instance_path", lambda self: str(tmp_path / "instance"))
    return served


def test_serve_on_a_public_address_prints_a_link_with_the_token(tmp_path, monkeypatch, capsys, serve):
    served = serve
    monkeypatch.delenv("QUIZAPP_AUTHOR_TOKEN", raising=False)
    main(["serve", "--host", "0.0.0.0", "--db", str(tmp_path / "served.sqlite")])
    [app] = served
    token = app.config["AUTHOR_TOKEN"]
    assert len(token) >= 43 and f"/author/?token={token}" in capsys.readouterr().out
    assert app.config["SERVER_HOST"] == "0.0.0.0"


def test_serve_takes_the_token_from_the_environment_and_prints_none_on_loopback(tmp_path, monkeypatch, capsys,
                                                                                serve):
    served = serve
    monkeypatch.setenv("QUIZAPP_AUTHOR_TOKEN", "my-own-author-token")
    main(["serve", "--host", "10.1.2.3", "--db", str(tmp_path / "served.sqlite")])
    assert served[0].config["AUTHOR_TOKEN"] == "my-own-author-token"
    assert "token=my-own-author-token" in capsys.readouterr().out
    main(["serve", "--db", str(tmp_path / "served.sqlite")])
    assert "?token=" not in capsys.readouterr().out


# Issue 21: a proxy normally forwards to 127.0.0.1; the bound address alone had opened every answer.
FORWARDED = {"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "quiz.example.com"}


def sees_through_the_proxy(client, headers=FORWARDED) -> dict[str, int]:
    return {path: client.get(path, headers=headers).status_code for path in ("/author/", f"/cards/{SECRET}")}


def test_behind_a_proxy_on_loopback_the_author_tools_need_the_token(tmp_path, questions_dir):
    app = make_app(tmp_path, questions_dir, BEHIND_PROXY=1, AUTHOR_TOKEN=TOKEN,
                   TRUSTED_HOSTS=["quiz.example.com"])
    client = app.test_client()
    assert sees_through_the_proxy(client) == {"/author/": 403, f"/cards/{SECRET}": 404}
    client.get(f"/?token={TOKEN}", headers=FORWARDED)
    assert sees_through_the_proxy(client) == {"/author/": 200, f"/cards/{SECRET}": 200}


@pytest.mark.parametrize("headers", [{"X-Forwarded-For": "203.0.113.9"}, {"X-Forwarded-For": "127.0.0.1, 198.51.100.4"},
                                     {"Forwarded": 'for="[2001:db8::1]:4711";proto=https'},
                                     {"X-Real-IP": "192.0.2.60"}])
def test_a_forwarded_client_elsewhere_needs_the_token_even_without_the_proxy_setting(tmp_path, questions_dir,
                                                                                       headers):
    client = make_app(tmp_path, questions_dir, AUTHOR_TOKEN=TOKEN).test_client()
    assert sees_through_the_proxy(client, headers) == {"/author/": 403, f"/cards/{SECRET}": 404}
    local = {"X-Forwarded-For": "127.0.0.1", "Forwarded": "for=127.0.0.1"}
    assert sees_through_the_proxy(client, local) == {"/author/": 200, f"/cards/{SECRET}": 200}


def test_author_tools_set_explicitly_still_win(tmp_path, questions_dir):
    client = make_app(tmp_path, questions_dir, BEHIND_PROXY=1, AUTHOR_TOOLS=True,
                      TRUSTED_HOSTS=["quiz.example.com"]).test_client()
    assert sees_through_the_proxy(client) == {"/author/": 200, f"/cards/{SECRET}": 200}


def test_serve_behind_a_proxy_prints_the_token_link(tmp_path, monkeypatch, capsys, serve):
    monkeypatch.delenv("QUIZAPP_AUTHOR_TOKEN", raising=False)
    main(["serve", "--behind-proxy", "--secure-cookies", "--db", str(tmp_path / "served.sqlite")])
    token = serve[0].config["AUTHOR_TOKEN"]
    assert len(token) >= 43 and f"/author/?token={token}" in capsys.readouterr().out


@pytest.fixture
def broken_secret(tmp_path, questions_dir):
    """An interview-only card whose file does not load: a copy of the secret card with a bad heading."""
    text = (questions_dir / "live.md").read_text(encoding="utf-8").replace(f"id: {SECRET}", "id: kv-secret-broken2")
    text = text.replace("## Short answer", "## The answer is MLA stores 576 values per token", 1)
    assert "The answer is MLA" in text
    (questions_dir / "kv-secret-broken2.md").write_text(text, encoding="utf-8")
    return "kv-secret-broken2"


@pytest.mark.parametrize("mode", ["token", "auto-public"])
def test_a_broken_card_s_diagnostics_reach_only_an_author(tmp_path, questions_dir, broken_secret, mode):
    config = {"AUTHOR_TOOLS": "token"} if mode == "token" else {"SERVER_HOST": "0.0.0.0"}
    app = make_app(tmp_path, questions_dir, AUTHOR_TOKEN=TOKEN, **config)
    stranger = app.test_client()
    page = stranger.get(f"/cards/{broken_secret}")
    assert page.status_code == 404 and "576 values" not in page.text and "error:" not in page.text
    author = app.test_client()
    author.get(f"/?token={TOKEN}")
    page = author.get(f"/cards/{broken_secret}")
    assert page.status_code == 404 and "576 values" in page.text
