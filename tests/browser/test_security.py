"""In Chromium against the live server: the pages break no rule of their own Content-Security-Policy,
and a page on another port of the same host cannot make a learner's browser forget them (issue 12, M1)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import Page, expect


@pytest.fixture
def csp_violations(page: Page) -> list[str]:
    """What Chromium refused under the policy, as it reports it in the console."""
    found: list[str] = []
    page.on("console", lambda message: found.append(message.text)
            if "Content Security Policy" in message.text else None)
    return found


def test_the_pages_break_no_rule_of_their_policy(page: Page, csp_violations: list[str]) -> None:
    page.goto("/")
    page.goto("/cards/kv-pool-users")
    page.wait_for_function("() => document.querySelector('form.reveal').dataset.bound === '1'")
    page.evaluate("window.__marker = 1")
    page.fill("#answer", "37 users")
    page.get_by_role("button", name="Show short answer").click()
    expect(page.locator("#content-short .feedback")).to_contain_text("Right: 37 users.")
    page.get_by_role("button", name="Show full answer").click()
    expect(page.locator("#content-full")).to_contain_text("144 KiB")
    page.get_by_role("button", name="Show expected answer").first.click()
    page.locator("#stage-followup-1").get_by_role("button", name="I knew it").click()
    expect(page.locator("#stage-followup-1")).to_contain_text("You marked this: knew it.")
    # Revealed in place by the script, which sent each form's token along: no page load.
    assert page.evaluate("window.__marker") == 1
    page.locator("form.grade").get_by_role("button", name="Good").click()
    expect(page.locator(".notice.flash")).to_contain_text("Graded “Good”")
    for path in ("/progress", "/me", "/author/", "/author/cards/kv-pool-users"):
        assert page.goto(path).ok, path
    assert csp_violations == []


ATTACK = """<!doctype html>
<form id="attack" method="post" action="{target}/me/forget">
  <input type="hidden" name="confirm" value="forget">
</form>
<script>document.getElementById("attack").submit();</script>
"""


@pytest.fixture
def other_site(live_server: str) -> Iterator[str]:
    """Another server on another port of 127.0.0.1 whose page auto-submits /me/forget to the app."""
    page = ATTACK.format(target=live_server).encode()

    class Attacker(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Attacker)
    thread = threading.Thread(target=server.serve_forever, name="other-site", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_a_page_on_another_port_cannot_make_the_browser_forget_the_learner(
        page: Page, live_server: str, other_site: str) -> None:
    page.goto("/me")
    page.fill("#display_name", "Ada")
    page.get_by_role("button", name="Save").click()
    expect(page.locator(".notice.flash")).to_contain_text("Name saved.")
    learner = page.locator("#learner-id").inner_text()

    page.goto(other_site)
    page.wait_for_url(lambda url: url.startswith(live_server))  # the form went, and was answered
    expect(page.locator("main")).to_contain_text("another site")

    page.goto("/me")
    expect(page.locator("#learner-id")).to_have_text(learner)
    expect(page.locator("#display_name")).to_have_value("Ada")
