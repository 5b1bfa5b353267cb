"""The browser that made interviews lists them on /interview, while its session cookie, which is
signed but readable by whoever holds it, carries a session id and no interviewer token (issue 21):
the links are kept server-side, so they survive requests and a move to another server on one
database."""

import re

from quizapp import create_app
from quizapp.web.interview.links import KEY, OLD_KEY

from tests.web.conftest import BrowserClient, Interviewer


def cookie_payload(app, client) -> dict:
    """What the session cookie holds, decoded as anyone holding it can (the key only checks it)."""
    cookie = client.get_cookie(app.config.get("SESSION_COOKIE_NAME", "session"))
    assert cookie is not None
    return app.session_interface.get_signing_serializer(app).loads(cookie.value)


def token_of(created: dict) -> str:
    return created["interviewer_url"].rsplit("/", 1)[1]


def listed(client) -> str:
    return client.get("/interview").text


def test_the_cookie_holds_a_session_id_and_no_interviewer_token(app, client, interviewer):
    made = [interviewer.create(candidate="Ada"), interviewer.create(candidate="Grace")]
    page = client.post("/interview/new", data={"candidate": "Edsger", "card": "kv-pool-users"})
    assert page.status_code == 303
    made_by_form = page.headers["Location"].rsplit("/", 1)[1]
    tokens = [token_of(created) for created in made] + [made_by_form]
    payload = cookie_payload(app, client)
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", payload[KEY])
    assert OLD_KEY not in payload
    for token in tokens:
        assert token not in str(payload)
    # The links still show, newest first, on this request and the next.
    for _ in range(2):
        page = listed(client)
        assert page.index("Edsger") < page.index("Grace") < page.index("Ada")
        for token in tokens:
            assert f"/interview/i/{token}" in page


def test_another_browser_lists_none_of_them(app, interviewer):
    interviewer.create(candidate="Ada")
    assert "no-sessions" in listed(app.test_client())


def test_the_links_follow_the_browser_to_another_server_on_one_database(app, client, interviewer, database,
                                                                        questions_dir):
    created = interviewer.create(candidate="Ada")
    other = create_app({"TESTING": True, "DATABASE": database, "QUESTIONS_DIR": str(questions_dir),
                        "SECRET_KEY": app.config["SECRET_KEY"]})
    other.test_client_class = BrowserClient
    moved = other.test_client()
    name = app.config.get("SESSION_COOKIE_NAME", "session")
    moved.set_cookie(name, client.get_cookie(name).value)
    assert f"/interview/i/{token_of(created)}" in listed(moved)
    # And what the browser makes there is listed back on the first server.
    second = Interviewer(moved).create(candidate="Grace")
    client.set_cookie(name, moved.get_cookie(name).value)
    page = listed(client)
    assert f"/interview/i/{token_of(second)}" in page and f"/interview/i/{token_of(created)}" in page


def test_a_cookie_that_still_lists_tokens_gives_them_up_and_keeps_the_links(app, client, interviewer):
    created = interviewer.create(candidate="Ada")
    token = token_of(created)
    with client.session_transaction() as session:  # a cookie from before the session id
        session.pop(KEY)
        session[OLD_KEY] = [token, "not-a-token", 7]
    assert f"/interview/i/{token}" in listed(client)
    assert token not in str(cookie_payload(app, client))
    assert f"/interview/i/{token}" in listed(client)
