"""What a browser is told and refused: security headers, CSRF tokens, cross-site requests, secure cookies."""

import pytest

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

    def test_an_api_post_has_them_too(self, client):
        response = client.post("/api/calc", json={"model": "Qwen/Qwen3-8B", "pool_tokens": 24096})
        assert response.status_code == 200
        assert response.headers["Content-Security-Policy"] == CSP
        assert response.headers["X-Frame-Options"] == "DENY"


@pytest.mark.parametrize("template", ["base.html", "card.html", "cards/_parts.html", "me.html", "bank.html",
                                      "progress.html", "author.html", "practice_done.html", "error.html"])
def test_templates_hold_no_inline_script_style_or_event_handler(template):
    """The policy would block them: script and style come from static/ only."""
    import re

    from quizapp import ROOT
    text = (ROOT / "templates" / template).read_text(encoding="utf-8")
    assert not re.search(r"<script(?![^>]*\bsrc=)", text), "inline <script>"
    assert "<style" not in text and not re.search(r"\sstyle=", text), "inline style"
    assert not re.search(r"\son[a-z]+\s*=", text), "event handler attribute"
    assert "javascript:" not in text
