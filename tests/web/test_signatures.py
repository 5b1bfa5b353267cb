"""The session cookie's signature is checked once per cookie, and the CSRF token signed once per
session (web/signatures.py): what a request carries is still checked, and a changed cookie is
still refused."""

import re

from itsdangerous import URLSafeTimedSerializer

from quizapp.web import signatures


def learner(client) -> str:
    return client.get("/api/progress").get_json()["learner"]["id"]


def csrf_of(page: str) -> str:
    return re.search(r'<meta name="csrf-token" content="([^"]+)">', page).group(1)


def count_calls(monkeypatch, name: str) -> list:
    calls = []
    original = getattr(URLSafeTimedSerializer, name)

    def counted(self, *args, **kwargs):
        calls.append(args)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(URLSafeTimedSerializer, name, counted)
    return calls


def test_a_cookie_is_checked_once_and_still_names_its_reader(client, monkeypatch):
    signatures.verified_cookies.clear()
    me = learner(client)
    loads = count_calls(monkeypatch, "loads")
    assert [learner(client) for _ in range(5)] == [me] * 5
    assert len(loads) == 1


def test_a_changed_cookie_is_refused_after_the_real_one_was_kept(app, client):
    me = learner(client)
    learner(client)
    cookie = client.get_cookie("session").value
    # The payload's first character changed: the signature no longer matches.
    forged = ("x" if cookie[1] != "x" else "y").join([cookie[:1], cookie[2:]])
    other = app.test_client()
    other.set_cookie("session", forged)
    assert learner(other) != me


def test_a_kept_cookie_is_checked_again_after_an_hour(client, monkeypatch):
    signatures.verified_cookies.clear()
    learner(client)
    loads = count_calls(monkeypatch, "loads")
    now = signatures.time.monotonic()
    monkeypatch.setattr(signatures.time, "monotonic", lambda: now + signatures.CHECK_AGAIN_S + 1)
    learner(client)
    assert len(loads) == 1


def test_each_request_gets_its_own_copy_of_what_the_session_holds(app, client):
    learner(client)
    cookie = client.get_cookie("session").value
    with app.test_request_context("/", headers={"Cookie": f"session={cookie}"}):
        first = app.session_interface.open_session(app, __import__("flask").request)
        second = app.session_interface.open_session(app, __import__("flask").request)
    assert first == second and first is not second
    first["learner_id"] = "changed"
    assert second["learner_id"] != "changed"


def test_the_csrf_token_is_signed_once_per_session_and_still_lets_a_form_post(app, client, monkeypatch):
    signatures.signed_tokens.clear()
    first = csrf_of(client.get("/cards/kv-pool-users").text)
    dumps = count_calls(monkeypatch, "dumps")
    assert csrf_of(client.get("/cards/kv-pool-users").text) == first
    assert csrf_of(client.get("/").text) == first
    assert not [args for args in dumps if isinstance(args[0], str)]  # the token (a str) was not signed again
    page = client.post("/cards/kv-pool-users/reveal/short", data={"csrf_token": first, "event_id": "evt-sig-1"},
                       follow_redirects=True)
    assert page.status_code == 200
    # Another session has its own token, refused on this one.
    other = app.test_client()
    assert csrf_of(other.get("/cards/kv-pool-users").text) != first
    refused = other.post("/cards/kv-pool-users/reveal/short", data={"csrf_token": first, "event_id": "evt-sig-2"})
    assert refused.status_code == 400


def test_a_view_changing_a_kept_session_s_nested_values_changes_no_other_request_s(app):
    serializer = app.session_interface.get_signing_serializer(app)
    cookie = serializer.dumps({"opened": {"card": "kv-pool-users", "seen": ["short"]}, "ids": [["a", "b"]]})
    with app.test_request_context("/", headers={"Cookie": f"session={cookie}"}):
        request = __import__("flask").request
        first = app.session_interface.open_session(app, request)  # checked, then kept
        first["opened"]["seen"].append("full")
        first["ids"][0].append("c")
        second = app.session_interface.open_session(app, request)  # from the kept copy
        second["opened"]["card"] = "another"
        third = app.session_interface.open_session(app, request)
    assert dict(third) == {"opened": {"card": "kv-pool-users", "seen": ["short"]}, "ids": [["a", "b"]]}


def reveal(client, token: str, event_id: str):
    return client.post("/cards/kv-pool-users/reveal/short", data={"csrf_token": token, "event_id": event_id})


def test_a_posted_token_s_signature_is_checked_once_and_the_token_must_still_be_the_session_s(app, client,
                                                                                               monkeypatch):
    signatures.checked_tokens.clear()
    token = csrf_of(client.get("/cards/kv-pool-users").text)
    assert reveal(client, token, "evt-kept-1").status_code == 303  # checked in full, then kept
    loads = count_calls(monkeypatch, "loads")
    assert reveal(client, token, "evt-kept-2").status_code == 303
    assert reveal(client, token, "evt-kept-3").status_code == 303
    assert not [args for args in loads if args and args[0] == token]  # its signature was not checked again
    # A session holding another token refuses this one, kept or not; so does a forged one.
    other = app.test_client()
    other.get("/cards/kv-pool-users")
    assert reveal(other, token, "evt-kept-4").status_code == 400
    forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    assert reveal(client, forged, "evt-kept-5").status_code == 400
    assert reveal(client, "", "evt-kept-6").status_code == 400


def test_with_a_time_limit_every_posted_token_is_checked_in_full(app, client, monkeypatch):
    app.config["WTF_CSRF_TIME_LIMIT"] = 3600
    signatures.checked_tokens.clear()
    token = csrf_of(client.get("/cards/kv-pool-users").text)
    assert reveal(client, token, "evt-limit-1").status_code == 303
    loads = count_calls(monkeypatch, "loads")
    assert reveal(client, token, "evt-limit-2").status_code == 303
    assert [args for args in loads if args and args[0] == token] and len(signatures.checked_tokens) == 0


def test_a_request_that_shows_no_token_neither_signs_nor_keeps_one(app, client, monkeypatch):
    token = csrf_of(client.get("/cards/kv-pool-users").text)
    signatures.signed_tokens.clear()
    dumps = count_calls(monkeypatch, "dumps")
    assert client.get("/api/progress").status_code == 200
    assert client.post("/api/read-log", json={"log": "INFO 05-01 12:00:09 [x.py:1] GPU KV cache size: 24,096 "
                                                     "tokens"}).status_code == 200
    assert not [args for args in dumps if isinstance(args[0], str)] and len(signatures.signed_tokens) == 0
    # The next page signs the session's token once, the same token, and keeps it.
    assert csrf_of(client.get("/cards/kv-pool-users").text) == token
    assert len(signatures.signed_tokens) == 1
