"""Issue 18, point 3, in Chromium at 1280 × 800 and 390 × 844, with and without the script: a card
that `quizapp new` writes is a draft, absent from the bank, practice and print, and listed on
/author/ with a preview. (The Anki export is checked in tests/web/author/test_drafts.py.)"""

from __future__ import annotations

import re
import threading

import pytest
from playwright.sync_api import expect
from werkzeug.serving import make_server

from quizapp import create_app
from quizapp.cli import main

from tests.paths import QUESTIONS

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(scope="module")
def draft_server(tmp_path_factory):
    """A server over the shipped model card and a new card, as `quizapp new "Draft card"` writes it."""
    folder = tmp_path_factory.mktemp("draft-bank")
    (folder / "kv-pool-users.md").write_text((QUESTIONS / "kv-pool-users.md").read_text(encoding="utf-8"),
                                             encoding="utf-8")
    main(["new", "Draft card", "--questions", str(folder)])
    app = create_app({"TESTING": True, "DATABASE": str(folder / "db.sqlite"), "QUESTIONS_DIR": str(folder)})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(timeout=5)


@pytest.fixture(params=[(size, js) for size in VIEWPORTS for js in (True, False)],
                ids=lambda p: f"{p[0]}-{'js' if p[1] else 'no-js'}")
def page(request, browser, draft_server):
    size, js = request.param
    context = browser.new_context(viewport=VIEWPORTS[size], java_script_enabled=js, base_url=draft_server)
    yield context.new_page()
    context.close()


def test_a_new_card_is_a_draft_the_author_page_lists_and_no_reader_page_shows(page):
    page.goto("/")
    expect(page.locator(".bank-card h2")).to_have_text(["How many users fit in the KV pool"])
    expect(page.locator("main")).not_to_contain_text("Draft card")
    page.goto("/practice")
    expect(page).to_have_url(re.compile(r"/cards/kv-pool-users"))
    page.locator("#practice-skip").click()
    expect(page.locator("#caught-up")).to_contain_text("one you skipped")
    page.goto("/print?role=Inference%20Engineering")
    expect(page.locator("main")).to_contain_text("How many users fit in the KV pool")
    expect(page.locator("main")).not_to_contain_text("Draft card")
    assert page.goto("/cards/draft-card").status == 404
    page.goto("/author/")
    drafts = page.locator("table.drafts")
    expect(drafts).to_contain_text("Draft card")
    drafts.get_by_role("link", name="every stage").click()
    expect(page.locator("#question-text")).to_contain_text("TODO: the question.")
