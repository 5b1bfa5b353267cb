"""The interview API: tokens, the candidate's 403, CSRF and other sites, bad input, and the console's
state; the same actions as plain forms for a page without JavaScript."""

import re

import pytest

from quizapp.progress.db.connection import connect

ACTIONS = {"/show": {"card": "kv-pool-users"}, "/reveal": {"card": "kv-pool-users", "stage": "short"},
           "/score": {"card": "kv-pool-users", "stage": "short", "score": 3},
           "/signal": {"card": "kv-pool-users", "signal": "wrong-1", "heard": True},
           "/note": {"text": "x"}, "/note/delete": {"note": 1},
           "/recommendation": {"recommendation": "yes", "reason": ""}, "/end": {}}
READS = ("", "/state", "/report", "/report.md")


@pytest.fixture
def session(interviewer):
    return interviewer.create(["kv-pool-users", "kv-bytes-per-token"])


def test_creating_a_session_returns_its_id_and_two_links(session, app):
    assert set(session) == {"id", "interviewer_url", "candidate_url"}
    interviewer_token = session["interviewer_url"].rsplit("/", 1)[1]
    candidate_token = session["candidate_url"].rsplit("/", 1)[1]
    assert len(interviewer_token) >= 43 and len(candidate_token) >= 43 and interviewer_token != candidate_token
    with app.app_context():
        db = connect(app.config["DATABASE"])
        stored = " ".join(str(value) for row in db.execute("SELECT * FROM interviews").fetchall() for value in row)
    assert interviewer_token not in stored and candidate_token not in stored  # digests only


def test_the_candidates_token_gets_403_on_every_interviewer_endpoint(client, interviewer, session):
    as_interviewer = session["candidate_url"].replace("/interview/c/", "/interview/i/")
    for path in READS:
        assert client.get(as_interviewer + path).status_code == 403, path
    for path, body in ACTIONS.items():
        assert interviewer.post(as_interviewer + path, body).status_code == 403, path
    assert client.get(session["candidate_url"] + "/state").get_json()["status"] == "waiting"  # nothing changed


def without_token(body: bytes) -> bytes:
    return re.sub(rb'name="csrf-token" content="[^"]*"', b"", body)


def test_a_wrong_or_missing_token_is_the_same_404_as_an_unknown_address(client, interviewer, session):
    unknown = client.get("/no/such/page")
    token = session["interviewer_url"].rsplit("/", 1)[1]
    near_miss = token[:-1] + ("A" if token[-1] != "A" else "B")
    for url in (f"/interview/i/{near_miss}", f"/interview/i/{near_miss}/state", f"/interview/i/{near_miss}/report.md",
                "/interview/i/", "/interview/i//state", f"/interview/c/{near_miss}", f"/interview/c/{near_miss}/events",
                session["interviewer_url"].replace("/interview/i/", "/interview/c/")):
        response = client.get(url, follow_redirects=True)  # /i//state: Werkzeug merges the slashes first
        # (the page's CSRF token is signed with the time, so it may differ between two requests)
        assert (response.status_code, without_token(response.data)) == (404, without_token(unknown.data)), url
    assert interviewer.post(f"/interview/i/{near_miss}/reveal", ACTIONS["/reveal"]).status_code == 404


def test_a_post_without_the_csrf_token_is_refused(client, session):
    response = client.post(session["interviewer_url"] + "/reveal", json=ACTIONS["/reveal"], csrf=False)
    assert response.status_code == 400 and "CSRF" in response.get_json()["error"]
    # The JSON API needs no token (web/security.py), but a body another site's form could send is refused.
    assert client.post("/api/interviews", data={"candidate": "x", "cards": "kv-pool-users"}).status_code == 400


@pytest.mark.parametrize("headers", [{"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "cross-site"},
                                     {"Origin": "null"}, {"Sec-Fetch-Site": "same-site"}])
def test_a_request_from_another_site_is_refused_even_with_a_token(interviewer, session, headers):
    response = interviewer.post(session["interviewer_url"] + "/reveal", ACTIONS["/reveal"], **headers)
    assert response.status_code == 403
    assert interviewer.post("/api/interviews", {"candidate": "x", "cards": ["kv-pool-users"]},
                            **headers).status_code == 403


def test_a_same_origin_request_is_taken(interviewer, session):
    response = interviewer.post(session["interviewer_url"] + "/reveal", ACTIONS["/reveal"],
                                Origin="http://localhost", **{"Sec-Fetch-Site": "same-origin"})
    assert response.status_code == 200


def test_creating_a_session_takes_json_only(client, interviewer):
    response = client.post("/api/interviews", data={"candidate": "x", "cards": "kv-pool-users",
                                                    "csrf_token": interviewer.csrf()})
    assert response.status_code == 400  # web/security.py: every /api/ body is JSON


@pytest.mark.parametrize("body, field", [
    ({"cards": ["kv-pool-users"]}, "candidate"),
    ({"candidate": "x" * 201, "cards": ["kv-pool-users"]}, "candidate"),
    ({"candidate": "Ada", "role": "r" * 201, "cards": ["kv-pool-users"]}, "role"),
    ({"candidate": "Ada", "cards": ["kv-pool-users"] * 51}, "cards"),
    ({"candidate": "Ada", "cards": ["kv-pool-users", "kv-pool-users"]}, "cards"),
    ({"candidate": "Ada", "cards": []}, "cards"),
    ({"candidate": "Ada", "cards": "kv-pool-users"}, "cards"),
    ({"candidate": "Ada", "cards": ["kv-pool-user"]}, "cards.0"),
    ({"candidate": "Ada", "cards": [{"id": "kv-pool-users", "scenario": {"model": "deepseek-ai/DeepSeek-V3"}}]},
     "cards.0.scenario.model"),
    ({"candidate": "Ada", "cards": [{"id": "kv-pool-users", "scenario": {"block_size": 32}}]},
     "cards.0.scenario.block_size"),
    ({"candidate": "Ada", "cards": [{"id": "kv-pool-users", "scenario": {"variant": 9}}]},
     "cards.0.scenario.variant"),
    # str.isdigit() takes "²" and int() then raised: these were 500s. "٢" was read as 2.
    ({"candidate": "Ada", "cards": [{"id": "kv-pool-users", "scenario": {"variant": "²"}}]},
     "cards.0.scenario.variant"),
    ({"candidate": "Ada", "cards": [{"id": "kv-pool-users", "scenario": {"variant": "١"}}]},
     "cards.0.scenario.variant"),
    ({"candidate": "Ada", "cards": [{"id": "kv-pool-users", "scenario": {"variant": True}}]},
     "cards.0.scenario.variant"),
    ({"candidate": "Ada", "cards": [{"id": "kv-pool-users", "scenario": "fp8"}]}, "cards.0.scenario"),
    ({"candidate": "Ada", "role": "No such role"}, "cards"),
    ([1, 2], None),
])
def test_bad_sessions_are_400_with_the_field(interviewer, body, field):
    response = interviewer.post("/api/interviews", body)
    assert response.status_code == 400
    assert response.get_json()["field"] == field and response.get_json()["error"]


def test_without_cards_the_roles_cards_are_picked(interviewer, client):
    response = interviewer.post("/api/interviews", {"candidate": "Ada", "role": "LLM Product Engineering"})
    console = client.get(response.get_json()["interviewer_url"] + "/state").get_json()
    assert [c["id"] for c in console["cards"]] == ["kv-pool-users"]


def test_a_variant_may_be_named(interviewer, client):
    created = interviewer.create([{"id": "kv-pool-users", "scenario": {"variant": "Qwen3-8B with an FP8 KV cache"}}])
    assert "variant: Qwen3-8B with an FP8 KV cache" in client.get(created["interviewer_url"]).text


@pytest.mark.parametrize("path, body, field", [
    ("/reveal", {"card": "kv-pool-users", "stage": "answer"}, "stage"),
    ("/reveal", {"card": "nope", "stage": "short"}, "card"),
    ("/score", {"card": "kv-pool-users", "stage": "short", "score": 5}, "score"),
    ("/score", {"card": "kv-pool-users", "stage": "short", "score": True}, "score"),
    ("/score", {"card": "kv-pool-users", "stage": "wrong", "score": 2}, "stage"),
    ("/signal", {"card": "kv-pool-users", "signal": "wrong-9", "heard": True}, "signal"),
    ("/signal", {"card": "kv-pool-users", "signal": "wrong-1", "heard": "yes"}, "heard"),
    ("/note", {"text": "  "}, "text"),
    ("/note", {"text": "n" * 10_001}, "text"),
    ("/note", {"text": "x", "card": "nope"}, "card"),
    ("/score", {"card": "kv-pool-users", "stage": "short", "score": "²"}, "score"),  # was a 500
    ("/score", {"card": "kv-pool-users", "stage": "short", "score": "٣"}, "score"),  # was read as 3
    ("/score", {"card": "kv-pool-users", "stage": "short", "score": "3.0"}, "score"),
    ("/note/delete", {"note": 99}, "note"),
    ("/note/delete", {"note": "²"}, "note"),  # was a 500
    ("/note/delete", {"note": 2**70}, "note"),  # was SQLite's overflow: a 400 naming no field
    ("/note/delete", {"note": None}, "note"),
    ("/recommendation", {"recommendation": "maybe"}, "recommendation"),
    ("/recommendation", {"recommendation": "yes", "reason": "r" * 10_001}, "reason"),
])
def test_bad_actions_are_400_with_the_field(interviewer, session, path, body, field):
    response = interviewer.post(session["interviewer_url"] + path, body)
    assert response.status_code == 400, response.data
    assert response.get_json()["field"] == field


def test_the_scratch_box_is_bounded(interviewer, session):
    url = session["candidate_url"] + "/scratch"
    assert interviewer.post(url, {"text": "s" * 20_000}).status_code == 200
    response = interviewer.post(url, {"text": "s" * 20_001})
    assert response.status_code == 400 and response.get_json()["field"] == "text"


def test_the_console_state_follows_every_action(client, interviewer, session):
    url = session["interviewer_url"]
    interviewer.post(url + "/reveal", {"card": "kv-pool-users", "stage": "short"})
    interviewer.post(url + "/score", {"card": "kv-pool-users", "stage": "followup-2", "score": 4})
    interviewer.post(url + "/signal", {"card": "kv-pool-users", "signal": "wrong-3", "heard": True})
    interviewer.post(url + "/note", {"text": "fast", "card": "kv-pool-users"})
    interviewer.post(url + "/recommendation", {"recommendation": "strong_yes", "reason": "clear"})
    interviewer.post(session["candidate_url"] + "/scratch", {"text": "24096 / 640"})
    state = client.get(url + "/state").get_json()
    [card, other] = state["cards"]
    assert state["status"] == "live" and state["current"] == "kv-pool-users" and state["started_at"]
    assert list(card["reveals"]) == ["short"] and card["scores"] == {"followup-2": 4}
    assert card["signals"] == ["wrong-3"] and other["reveals"] == {}
    assert [(n["card"], n["text"]) for n in state["notes"]] == [("kv-pool-users", "fast")]
    assert (state["recommendation"], state["reason"], state["scratch"]) == ("strong_yes", "clear", "24096 / 640")
    cleared = interviewer.post(url + "/score", {"card": "kv-pool-users", "stage": "followup-2", "score": None})
    assert cleared.get_json()["cards"][0]["scores"] == {}
    note = state["notes"][0]["id"]
    assert interviewer.post(url + "/note/delete", {"note": note}).get_json()["notes"] == []


def test_showing_another_card_moves_the_clock_to_it(client, interviewer, session):
    url = session["interviewer_url"]
    interviewer.post(url + "/show", {"card": "kv-pool-users"})
    state = interviewer.post(url + "/show", {"card": "kv-bytes-per-token"}).get_json()
    assert state["current"] == "kv-bytes-per-token"
    assert client.get(session["candidate_url"] + "/state").get_json()["number"] == 2


def test_the_browser_that_made_sessions_lists_them(client, interviewer, session, app):
    page = client.get("/interview").text
    assert "Ada" in page and session["interviewer_url"].replace("http://localhost", "") in page
    assert "no-sessions" in app.test_client().get("/interview").text


def test_the_console_shows_the_candidates_link(client, session):
    page = client.get(session["interviewer_url"]).text
    assert session["candidate_url"] in page


def test_interview_pages_are_private(client, session):
    for url in (session["interviewer_url"], session["candidate_url"], session["candidate_url"] + "/state"):
        response = client.get(url)
        assert response.headers["Cache-Control"] == "no-store"
        assert response.headers["Referrer-Policy"] == "same-origin"


# ---------------------------------------------------------------- without JavaScript


def form_token(page: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def test_a_session_made_with_the_form_opens_its_console(client):
    token = form_token(client.get("/interview/new").text)
    response = client.post("/interview/new", data={
        "csrf_token": token, "candidate": "Grace", "role": "Inference Engineering", "card": "kv-pool-users",
        "variant.kv-pool-users": "1", "input.kv-pool-users.tensor_parallel_size": "2"})
    assert response.status_code == 303 and "/interview/i/" in response.location
    page = client.get(response.location).text
    assert "Grace" in page and "Qwen3-8B with an FP8 KV cache" in page and "tensor_parallel_size = 2" in page


def test_the_form_says_what_is_wrong(client):
    token = form_token(client.get("/interview/new").text)
    response = client.post("/interview/new", data={"csrf_token": token, "candidate": "Grace", "card": "kv-pool-users",
                                                   "input.kv-pool-users.model": "deepseek-ai/DeepSeek-V3"})
    assert response.status_code == 400
    assert "not written for deepseek-ai/DeepSeek-V3" in response.text and 'value="Grace"' in response.text


def test_the_form_without_a_ticked_card_takes_every_card_listed(client):
    token = form_token(client.get("/interview/new?tag=capacity").text)
    response = client.post("/interview/new", data={"csrf_token": token, "candidate": "Grace",
                                                   "listed": ["kv-pool-users"]})
    state = client.get(response.location + "/state").get_json()
    assert [c["id"] for c in state["cards"]] == ["kv-pool-users"]


def test_the_consoles_forms_work_without_javascript(client, session):
    url = session["interviewer_url"]
    token = form_token(client.get(url).text)
    response = client.post(url + "/reveal", data={"csrf_token": token, "card": "kv-pool-users", "stage": "short",
                                                  "view": "kv-pool-users"})
    assert response.status_code == 303 and response.location.endswith("?card=kv-pool-users")
    client.post(url + "/signal", data={"csrf_token": token, "card": "kv-pool-users", "signal": ["wrong-1", "wrong-3"]})
    client.post(url + "/score", data={"csrf_token": token, "card": "kv-pool-users", "stage": "short", "score": "2"})
    state = client.get(url + "/state").get_json()["cards"][0]
    assert state["signals"] == ["wrong-1", "wrong-3"] and state["scores"] == {"short": 2}
    ended = client.post(url + "/end", data={"csrf_token": token})
    assert ended.status_code == 303 and ended.location.endswith("/report")


def test_every_interview_form_route_refuses_a_post_without_its_token(app, client, session):
    """The guard in test_security.py leaves /interview/ to this test: each POST route needs the token."""
    token = session["interviewer_url"].rsplit("/", 1)[1]
    candidate = session["candidate_url"].rsplit("/", 1)[1]
    routes = [rule.rule for rule in app.url_map.iter_rules()
              if "POST" in rule.methods and rule.rule.startswith("/interview/")]
    assert len(routes) >= 10
    for route in routes:
        url = route.replace("<token>", candidate if route.startswith("/interview/c/") else token)
        response = client.post(url, data={"card": "kv-pool-users"}, csrf=False)
        assert response.status_code == 400 and "CSRF" in response.text, route
