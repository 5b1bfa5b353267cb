"""What a browser is told and refused: security headers, CSRF tokens, cross-site requests, and the same behind a proxy."""

import re
from io import BytesIO

import pytest

from quizapp import ROOT, create_app

from .conftest import BrowserClient

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "frame-ancestors 'none'; base-uri 'none'; form-action 'self'")


class TestHeaders:
    @pytest.fixture(params=["/", "/cards/kv-pool-users", "/me", "/cards/nope", "/static/app.js",
                            "/api/models", "/api/nope"])
    def response(self, request, client):
        return client.get(request.param)

    def test_a_content_security_policy_allows_no_inline_script_or_style(self, response):
        assert response.headers["Content-Security-Policy"] == CSP

    def test_the_app_cannot_be_framed(self, response):
        assert response.headers["X-Frame-Options"] == "DENY"
        assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]

    def test_content_types_are_not_sniffed(self, response):
        assert response.headers["X-Content-Type-Options"] == "nosniff"

    def test_no_address_leaves_for_another_site(self, response):
        assert response.headers["Referrer-Policy"] == "same-origin"

    @pytest.mark.parametrize("method, path, status", [("OPTIONS", "/", 200), ("DELETE", "/", 405),
                                                      ("GET", "/cards/" + "x" * 300, 404)])
    def test_a_response_werkzeug_made_has_them_too(self, client, method, path, status):
        response = client.open(path, method=method)
        assert response.status_code == status
        assert response.headers["Content-Security-Policy"] == CSP
        assert response.headers["Referrer-Policy"] == "same-origin"

    def test_a_view_s_own_header_is_kept_and_sent_once(self, app):
        @app.get("/own-policy")
        def own_policy():
            return "x", {"Referrer-Policy": "no-referrer", "x-frame-options": "SAMEORIGIN"}

        response = app.test_client().get("/own-policy")
        assert response.headers.getlist("Referrer-Policy") == ["no-referrer"]
        assert response.headers.getlist("X-Frame-Options") == ["SAMEORIGIN"]
        assert response.headers["Content-Security-Policy"] == CSP

    def test_an_api_post_has_them_too(self, client):
        response = client.post("/api/calc", json={"model": "Qwen/Qwen3-8B", "pool_tokens": 24096})
        assert response.status_code == 200
        assert response.headers["Content-Security-Policy"] == CSP
        assert response.headers["X-Frame-Options"] == "DENY"


@pytest.mark.parametrize("template", ["base.html", "practice/card.html", "cards/_parts.html", "learner/me.html", "practice/bank.html",
                                      "learner/progress.html", "author/index.html", "learner/practice_done.html", "error.html"])
def test_templates_hold_no_inline_script_style_or_event_handler(template):
    """The policy would block them: script and style come from static/ only."""
    text = (ROOT / "templates" / template).read_text(encoding="utf-8")
    assert not re.search(r"<script(?![^>]*\bsrc=)", text), "inline <script>"
    assert "<style" not in text and not re.search(r"\sstyle=", text), "inline style"
    assert not re.search(r"\son[a-z]+\s*=", text), "event handler attribute"
    assert "javascript:" not in text


# Every form that changes state, as (route, URL, a form that succeeds with the token).
FORMS = [
    ("/cards/<card_id>/reveal/<stage>", "/cards/kv-pool-users/reveal/short", {"answer": "37 users"}),
    ("/cards/<card_id>/followup/<int:number>", "/cards/kv-pool-users/followup/1", {"value": "knew"}),
    ("/cards/<card_id>/grade", "/cards/kv-pool-users/grade", {"rating": "good"}),
    ("/cards/<card_id>/reset", "/cards/kv-pool-users/reset", {}),
    ("/me/name", "/me/name", {"display_name": "Mallory"}),
    ("/me/switch", "/me/switch", {"learner_id": "0" * 32}),
    ("/me/new", "/me/new", {}),
    ("/me/forget", "/me/forget", {"confirm": "forget"}),
    ("/me/import", "/me/import", {"file": "an export"}),
    ("/practice/skip", "/practice/skip", {"card_id": "kv-pool-users"}),
    ("/practice/end", "/practice/end", {}),
]


def form_data(client, form: dict) -> dict:
    if form.get("file") == "an export":
        return {"file": (BytesIO(client.get("/me/export").data), "p.json")}
    return dict(form)


@pytest.fixture
def learner_with_history(client, reader):
    """A learner who has opened, answered and graded a card, and named themselves."""
    reader.answer("37 users")
    reader.grade("good")
    client.post("/me/name", data={"display_name": "Ada"})
    return client


def stored(client) -> tuple:
    """Who the cookie names, and everything stored about them."""
    with client.session_transaction() as session:
        learner = session.get("learner_id")
    return learner, client.get("/me/export").get_json()


def test_every_form_route_that_changes_state_is_listed_here(app):
    """A new POST route outside /api/ needs a form with {{ csrf_token() }} and an entry in FORMS."""
    routes = {rule.rule for rule in app.url_map.iter_rules()
              if "POST" in rule.methods and not rule.rule.startswith(("/api/", "/interview/", "/calc"))}
    # (the interview's routes need a session: tests/web/test_interview_api.py holds each of them;
    # the calculator's read a config or a log and change nothing: tests/web/test_calc_*.py)
    assert routes == {route for route, _url, _form in FORMS}


@pytest.mark.parametrize("route, url, form", FORMS, ids=[url for _, url, _ in FORMS])
class TestFormsNeedTheToken:
    def test_without_the_token_it_is_refused_and_nothing_changes(self, learner_with_history, route, url, form):
        client = learner_with_history
        before = stored(client)
        response = client.post(url, data=form_data(client, form), csrf=False)
        assert response.status_code == 400
        assert "CSRF token is missing" in response.text
        assert stored(client) == before

    def test_a_wrong_token_is_refused(self, learner_with_history, route, url, form):
        client = learner_with_history
        before = stored(client)
        response = client.post(url, data={**form_data(client, form), "csrf_token": "forged"}, csrf=False)
        assert response.status_code == 400
        assert stored(client) == before

    def test_another_learners_token_is_refused(self, learner_with_history, app, route, url, form):
        other = app.test_client()
        response = learner_with_history.post(url, data={**form_data(learner_with_history, form),
                                                        "csrf_token": other.csrf_token()}, csrf=False)
        assert response.status_code == 400

    def test_with_the_token_it_is_done(self, learner_with_history, route, url, form):
        client = learner_with_history
        response = client.post(url, data=form_data(client, form))
        assert response.status_code == 303, response.text[:300]


def test_every_page_form_carries_the_token(client, reader):
    """Each <form method="post"> on the pages holds the hidden field, right after its opening tag."""
    reader.open()
    reader.reveal("short")
    reader.reveal("full")
    pages = [reader.open().text, client.get("/me").text]
    forms = [form for page in pages for form in re.findall(r'<form[^>]*method="post"[^>]*>\s*<input[^>]*>', page)]
    assert len(forms) == len(re.findall(r'<form[^>]*method="post"', "".join(pages))) >= 8
    assert all('name="csrf_token"' in form for form in forms)


def test_a_revealed_fragment_carries_the_token_in_its_forms(client, reader):
    reader.open()
    data = client.post("/cards/kv-pool-users/reveal/short", headers={"Accept": "application/json"}).get_json()
    stage = data["stages"]["full"]
    assert 'name="csrf_token"' in stage and client.csrf_token() in stage


class TestCrossSiteForget:
    """M1: a page on another port of the same host auto-submitted /me/forget and deleted a learner's data."""

    def test_without_a_token_it_deletes_nothing(self, learner_with_history):
        client = learner_with_history
        before = stored(client)
        response = client.post("/me/forget", data={"confirm": "forget"}, csrf=False,
                               headers={"Origin": "http://localhost:8666", "Sec-Fetch-Site": "same-site"})
        assert response.status_code in (400, 403)
        assert stored(client) == before
        assert before[1]["review_log"] and before[1]["learner"]["display_name"] == "Ada"

    @pytest.mark.parametrize("origin", ["http://localhost:8666", "https://localhost",
                                        "http://evil.example", "null"])
    def test_from_another_origin_it_is_refused_even_with_a_token(self, learner_with_history, origin):
        client = learner_with_history
        before = stored(client)
        response = client.post("/me/forget", data={"confirm": "forget"}, headers={"Origin": origin})
        assert response.status_code == 403
        assert "another site" in response.text
        assert stored(client) == before

    @pytest.mark.parametrize("site", ["cross-site", "same-site"])
    def test_a_browser_saying_it_comes_from_another_site_is_refused(self, learner_with_history, site):
        client = learner_with_history
        before = stored(client)
        response = client.post("/me/forget", data={"confirm": "forget"}, headers={"Sec-Fetch-Site": site})
        assert response.status_code == 403
        assert stored(client) == before

    def test_from_this_origin_it_is_done(self, learner_with_history):
        client = learner_with_history
        response = client.post("/me/forget", data={"confirm": "forget"},
                               headers={"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"})
        assert response.status_code == 303
        assert stored(client)[1]["review_log"] == []


class TestImportBody:
    def test_a_text_plain_body_is_refused_even_with_the_token(self, learner_with_history):
        client = learner_with_history
        exported = client.get("/me/export").data
        client.post("/me/forget", data={"confirm": "forget"})
        response = client.post("/me/import", data=exported, content_type="text/plain",
                               headers={"X-CSRFToken": client.csrf_token()})
        assert response.status_code == 415
        assert stored(client)[1]["review_log"] == []

    def test_a_text_plain_body_without_the_token_is_refused(self, learner_with_history):
        client = learner_with_history
        response = client.post("/me/import", data=b'{"format": "x"}', content_type="text/plain", csrf=False)
        assert response.status_code in (400, 415)

    def test_a_json_body_with_the_token_header_is_imported(self, learner_with_history):
        client = learner_with_history
        exported = client.get("/me/export").data
        client.post("/me/forget", data={"confirm": "forget"})
        response = client.post("/me/import", data=exported, content_type="application/json",
                               headers={"X-CSRFToken": client.csrf_token()}, follow_redirects=True)
        assert "Imported" in response.text
        assert len(stored(client)[1]["review_log"]) == 1


EVENT = {"event_id": "evt-cross-0001", "card_id": "kv-pool-users", "kind": "reveal", "stage": "short"}


class TestJsonApi:
    """JSON endpoints need no form token, and refuse what another site's page can send."""

    @pytest.mark.parametrize("headers", [
        {"Origin": "http://localhost:8666"}, {"Origin": "null"}, {"Origin": "https://localhost"},
        {"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"},
    ], ids=["other-port", "null", "other-scheme", "cross-site", "same-site"])
    @pytest.mark.parametrize("path, body", [("/api/progress/events", EVENT),
                                            ("/api/calc", {"model": "Qwen/Qwen3-8B", "pool_tokens": 24096})])
    def test_a_request_from_another_site_is_refused(self, client, path, body, headers):
        response = client.post(path, json=body, headers=headers)
        assert response.status_code == 403
        assert response.get_json()["error"]
        assert client.get("/api/progress").get_json()["cards_seen"] == 0

    @pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded",
                                              "multipart/form-data; boundary=x"])
    def test_a_body_a_form_can_send_is_refused(self, client, content_type):
        import json
        response = client.post("/api/progress/events", data=json.dumps(EVENT), content_type=content_type)
        assert response.status_code == 400
        assert "application/json" in response.get_json()["error"]
        assert client.get("/api/progress").get_json()["cards_seen"] == 0

    @pytest.mark.parametrize("headers", [{}, {"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"},
                                         {"Sec-Fetch-Site": "none"}],
                             ids=["a-script", "this-page", "typed-by-the-user"])
    def test_this_origin_and_scripts_need_no_token(self, client, headers):
        response = client.post("/api/progress/events", json=EVENT, headers=headers)
        assert response.status_code == 201

    def test_the_origin_is_compared_with_the_host_asked_for(self, client):
        client.application.config["TRUSTED_HOSTS"] = ["quiz.example"]  # a server of that name
        response = client.post("/api/progress/events", json=EVENT, base_url="http://quiz.example:8080",
                               headers={"Origin": "http://quiz.example:8080"})
        assert response.status_code == 201


class TestBehindAProxy:
    """TLS ends at a proxy that forwards to http://127.0.0.1:5000 with X-Forwarded-Proto and -Host."""

    PROXIED = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "quiz.example"}
    BROWSER = {"Origin": "https://quiz.example", "Referer": "https://quiz.example/me",
               "Sec-Fetch-Site": "same-origin"}

    def proxied_client(self, tmp_path, questions_dir, **settings):
        app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "db.sqlite"),
                          "QUESTIONS_DIR": str(questions_dir), **settings})
        app.test_client_class = BrowserClient
        client = app.test_client()
        client.environ_base.update({"HTTP_" + k.upper().replace("-", "_"): v for k, v in self.PROXIED.items()})
        client.environ_base["HTTP_HOST"] = "127.0.0.1:5000"
        return client

    def test_a_form_posted_through_the_proxy_is_done(self, tmp_path, questions_dir):
        client = self.proxied_client(tmp_path, questions_dir, BEHIND_PROXY=1)
        response = client.post("/me/name", data={"display_name": "Ada"}, headers=self.BROWSER)
        assert response.status_code == 303
        assert client.get("/me/export").get_json()["learner"]["display_name"] == "Ada"

    def test_an_https_post_needs_a_referer_from_this_site(self, tmp_path, questions_dir):
        client = self.proxied_client(tmp_path, questions_dir, BEHIND_PROXY=1)
        headers = {**self.BROWSER, "Referer": "https://evil.example/"}
        assert client.post("/me/name", data={"display_name": "Mallory"}, headers=headers).status_code == 400

    def test_without_behind_proxy_the_post_looks_cross_site_and_says_what_to_do(self, tmp_path, questions_dir):
        client = self.proxied_client(tmp_path, questions_dir)
        response = client.post("/me/name", data={"display_name": "Ada"}, headers=self.BROWSER)
        assert response.status_code == 403
        assert "--behind-proxy" in response.text


# Issue 21: the Host header was never checked, so a DNS-rebinding page could read and post to a loopback server.
def test_a_foreign_host_is_a_400_on_a_loopback_server(client, interviewer):
    csrf = interviewer.csrf()
    body = {"candidate": "Ada", "role": "x", "cards": ["kv-pool-users"]}
    foreign = {"Host": "evil.example:5000", "Origin": "http://evil.example:5000", "X-CSRFToken": csrf}
    assert client.post("/api/interviews", json=body, headers=foreign).status_code == 400
    assert client.get("/author/", headers={"Host": "evil.example:5000"}).status_code == 400
    for host in ("localhost:5000", "127.0.0.1:5000", "localhost"):
        assert client.get("/", headers={"Host": host}).status_code == 200, host


def test_trusted_hosts_default_to_the_bound_address(tmp_path, questions_dir):
    from quizapp.web.security import own_hosts

    assert own_hosts("127.0.0.1") == ["127.0.0.1", "localhost"]
    assert own_hosts("10.1.2.3") == ["10.1.2.3"] and own_hosts("0.0.0.0") is None
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "db.sqlite"), "QUESTIONS_DIR": str(questions_dir),
                      "SERVER_HOST": "10.1.2.3"})
    assert app.test_client().get("/", headers={"Host": "10.1.2.3:5000"}).status_code == 200
    assert app.test_client().get("/", headers={"Host": "evil.example"}).status_code == 400


def test_behind_a_proxy_the_forwarded_host_decides_and_a_direct_request_names_the_bound_address(tmp_path,
                                                                                                 questions_dir):
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "db.sqlite"), "QUESTIONS_DIR": str(questions_dir),
                      "BEHIND_PROXY": 1})
    client = app.test_client()
    through = {"X-Forwarded-Host": "quiz.example.com", "X-Forwarded-Proto": "https", "Host": "127.0.0.1:5000"}
    assert client.get("/", headers=through).status_code == 200
    assert client.get("/", headers={"Host": "evil.example:5000"}).status_code == 400
    assert client.get("/", headers={"Host": "127.0.0.1:5000"}).status_code == 200



def bound_to(tmp_path, questions_dir, host, **settings):
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "db.sqlite"), "QUESTIONS_DIR": str(questions_dir),
                      "SERVER_HOST": host, **settings})
    return app.test_client()


# werkzeug 3.1's host_is_trusted compares the part of a trusted name before its first ':', so
# TRUSTED_HOSTS cannot hold an IPv6 literal: a server on ::1 refused Host: [::1]:5000.
class TestAServerOnAnIPv6Address:
    REFUSED = ("evil.example:5000", "[::2]:5000", "[::1]:0", "[::1]:65536", "[::1]:", "[::1]:5000x", "::1",
               "[::1", "[::1]]", "[::1%eth0]", "[127.0.0.1]", "[::1]:5000, evil.example", "[ ::1]")

    @pytest.mark.parametrize("host", ["[::1]:5000", "[::1]", "[0:0:0:0:0:0:0:1]:5000", "[0::1]:65535",
                                      "localhost:5000", "127.0.0.1:5000"])
    def test_on_loopback_its_address_in_any_spelling_and_localhost_are_answered(self, tmp_path, questions_dir,
                                                                                  host):
        assert bound_to(tmp_path, questions_dir, "::1").get("/", headers={"Host": host}).status_code == 200

    @pytest.mark.parametrize("host", REFUSED)
    def test_another_host_or_a_malformed_one_is_the_400_an_ipv4_server_gives(self, tmp_path, questions_dir,
                                                                            host):
        response = bound_to(tmp_path, questions_dir, "::1").get("/", headers={"Host": host})
        assert response.status_code == 400
        assert response.mimetype == "text/plain"
        assert response.text == "Bad request: this Host header names another server.\n"

    def test_a_post_with_a_foreign_host_is_refused_and_creates_nothing(self, tmp_path, questions_dir):
        client = bound_to(tmp_path, questions_dir, "::1")
        foreign = {"Host": "evil.example:5000", "Origin": "http://evil.example:5000"}
        body = {"candidate": "Ada", "role": "x", "cards": ["kv-pool-users"]}
        assert client.post("/api/interviews", json=body, headers=foreign).status_code == 400
        assert client.get("/author/", headers={"Host": "evil.example:5000"}).status_code == 400

    def test_on_another_address_only_that_address_is_answered(self, tmp_path, questions_dir):
        client = bound_to(tmp_path, questions_dir, "2001:db8::5")
        for host in ("[2001:db8::5]:5000", "[2001:DB8:0:0:0:0:0:5]"):
            assert client.get("/", headers={"Host": host}).status_code == 200, host
        for host in ("evil.example", "localhost:5000", "[::1]:5000", "[2001:db8::6]"):
            assert client.get("/", headers={"Host": host}).status_code == 400, host

    def test_any_name_is_answered_on_the_wildcard_address(self, tmp_path, questions_dir):
        client = bound_to(tmp_path, questions_dir, "::")
        assert client.get("/", headers={"Host": "quiz.example:5000"}).status_code == 200

    def test_an_operator_s_trusted_hosts_decide(self, tmp_path, questions_dir):
        client = bound_to(tmp_path, questions_dir, "::1", TRUSTED_HOSTS=["quiz.example"])
        assert client.get("/", headers={"Host": "quiz.example"}).status_code == 200
        assert client.get("/", headers={"Host": "[::1]:5000"}).status_code == 400

    def test_behind_a_proxy_a_direct_request_may_name_the_bound_address(self, tmp_path, questions_dir):
        client = bound_to(tmp_path, questions_dir, "::1", BEHIND_PROXY=1)
        through = {"X-Forwarded-Host": "quiz.example.com", "X-Forwarded-Proto": "https", "Host": "[::1]:5000"}
        assert client.get("/", headers=through).status_code == 200
        assert client.get("/", headers={"Host": "[::1]:5000"}).status_code == 200
        assert client.get("/", headers={"Host": "evil.example:5000"}).status_code == 400
        assert bound_to(tmp_path, questions_dir, "2001:db8::5", BEHIND_PROXY=1).get(
            "/", headers={"Host": "evil.example:5000"}).status_code == 400


def test_tokens_are_masked_in_what_the_logs_write():
    from quizapp.web.security import mask_tokens

    line = ('GET /interview/i/AbC-12_x/state?x=1 HTTP/1.1 /interview/c/ZZZ9 /author/?token=s3cr3t-T&y=2 '
            '/me?token=abc')
    masked = mask_tokens(line)
    assert "AbC-12_x" not in masked and "ZZZ9" not in masked and "s3cr3t-T" not in masked and "abc" not in masked
    assert "/interview/i/***/state?x=1" in masked and "/author/?token=***&y=2" in masked


def test_gunicorn_s_access_log_masks_tokens():
    from types import SimpleNamespace

    from gunicorn.config import Config

    from quizapp.server import _masking_logger

    logger = _masking_logger()(Config())
    request = SimpleNamespace(uri="/author/?token=s3cr3t", path="/interview/i/AbCdEf/state", query="token=s3cr3t",
                              method="GET", version=(1, 1), headers=[], peer_addr="127.0.0.1")
    response = SimpleNamespace(status="200 OK", headers=[], sent=10, response_length=10)
    atoms = logger.atoms(response, request, {"RAW_URI": "/author/?token=s3cr3t", "REMOTE_ADDR": "127.0.0.1",
                                             "REQUEST_METHOD": "GET", "SERVER_PROTOCOL": "HTTP/1.1",
                                             "QUERY_STRING": "token=s3cr3t", "PATH_INFO": "/interview/i/AbCdEf/state"},
                         __import__("datetime").timedelta(seconds=0.01))
    # As the access log reads them: through its wrapper, each atom its format names.
    asked = logger.atoms_wrapper_class(atoms)
    for key in ("r", "U", "q", "{raw_uri}e", "{query_string}e", "{path_info}e"):
        assert "s3cr3t" not in str(asked[key]) and "AbCdEf" not in str(asked[key]), key
    assert asked["U"] == "/interview/i/***/state" and asked["q"] == "token=***"


@pytest.fixture
def gunicorn_logger(tmp_path):
    """gunicorn's logger as `serve` configures it, its error and access logs in files, debug on."""
    from gunicorn.config import Config

    from quizapp.server import _masking_logger

    config = Config()
    config.set("errorlog", str(tmp_path / "error.log"))
    config.set("accesslog", str(tmp_path / "access.log"))
    config.set("loglevel", "debug")
    logger = _masking_logger()(config)
    yield logger
    for log in (logger.error_log, logger.access_log):
        for handler in list(log.handlers):
            handler.close()
            log.removeHandler(handler)


def test_gunicorn_s_error_log_masks_tokens_in_arguments_and_tracebacks(gunicorn_logger, tmp_path):
    # As gunicorn's worker writes them (workers/base.py handle_error): the URI is an argument.
    try:
        raise OSError("cannot open /author/?token=s3cr3t")
    except OSError:
        gunicorn_logger.exception("Error handling request %s", "/interview/i/SECRETTOKEN/state")
    gunicorn_logger.warning("Invalid request from ip=%s: %s", "127.0.0.1", "GET /interview/c/CANDIDATE1 HTTP/1.1 x")
    gunicorn_logger.info("request %s", "/author/?token=s3cr3t")
    gunicorn_logger.debug("GET %s", "/interview/c/CANDIDATE2")
    gunicorn_logger.log("critical", "closing /interview/i/SECRET2")
    gunicorn_logger.access_log.info("%(r)s", {"r": "GET /interview/i/ACCESSTOKEN HTTP/1.1"})
    for handler in gunicorn_logger.error_log.handlers + gunicorn_logger.access_log.handlers:
        handler.flush()
    errors, access = (tmp_path / "error.log").read_text(), (tmp_path / "access.log").read_text()
    for secret in ("s3cr3t", "SECRETTOKEN", "CANDIDATE1", "CANDIDATE2", "SECRET2"):
        assert secret not in errors, secret
    assert "Traceback (most recent call last)" in errors and "OSError: cannot open /author/?token=***" in errors
    assert "Error handling request /interview/i/***/state" in errors
    assert "ip=127.0.0.1: GET /interview/c/*** HTTP/1.1 x" in errors and "GET /interview/c/***" in errors
    assert "ACCESSTOKEN" not in access and "GET /interview/i/*** HTTP/1.1" in access


def test_the_app_s_log_of_an_unhandled_error_masks_the_token_in_its_traceback(tmp_path, questions_dir, caplog):
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "db.sqlite"), "QUESTIONS_DIR": str(questions_dir)})

    def broken(token):
        raise RuntimeError(f"no interview at /interview/i/{token}/state")

    app.add_url_rule("/interview/i/<token>/broken", view_func=broken)
    assert app.test_client().get("/interview/i/SECRETTOKEN/broken").status_code == 500
    assert "SECRETTOKEN" not in caplog.text
    assert "unhandled error on GET /interview/i/***/broken" in caplog.text
    assert "RuntimeError: no interview at /interview/i/***/state" in caplog.text
