"""Issue 18, point 2, in Chromium at 1280 × 800 and 390 × 844, with and without the script: a bank
that knows the reader. Counts and "Start practice" at the top, each card new, due (with when) or
learned, interview-only cards badged (the live server listens on a loopback address, so they are
listed), and new cards in the authors' order: KV bytes for one token first, not the titles' order."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from quizapp.cards.bank import load_bank
from tests.paths import QUESTIONS

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(params=[(size, js) for size in VIEWPORTS for js in (True, False)],
                ids=lambda p: f"{p[0]}-{'js' if p[1] else 'no-js'}")
def page(request, new_context):
    size, js = request.param
    return new_context(viewport=VIEWPORTS[size], java_script_enabled=js).new_page()


def test_the_bank_counts_what_stands_where_and_starts_practice(page):
    page.goto("/")
    counts = page.locator("#bank-counts")
    expect(counts).to_have_text(re.compile(r"^\d+ new$"))
    expect(page.locator("#start-practice")).to_be_in_viewport()
    titles = page.locator(".bank-card h2 a").all_inner_texts()
    # The shipped cards' levels (questions/): the beginner card with order 1 first, then the bank's
    # own learning order (level, then order, then title), not the titles' order.
    order = [card for card in load_bank(QUESTIONS).sorted_cards()]
    assert titles[0] == "KV bytes for one token" and titles == [card.title for card in order][:len(titles)]
    assert titles != sorted(titles, key=str.lower)
    live = page.locator(".bank-card", has=page.locator(".badge"))
    assert live.count() >= 1 and all("interview only" in t for t in live.locator(".badge").all_inner_texts())

    page.locator("#start-practice").click()
    expect(page).to_have_url(re.compile(r"/cards/kv-bytes-per-token"))
    page.locator("#stage-short form.reveal button").click()
    page.locator("#stage-full form.reveal button").click()
    page.locator("form.grade button[value=again]").click()
    expect(page).to_have_url(re.compile(rf"/cards/{order[1].id}"))  # the session goes on, in the bank's order
    page.goto("/")
    card = page.locator("#card-kv-bytes-per-token .standing")
    expect(card).to_have_class(re.compile(r"standing-learning"))
    expect(card).to_contain_text(re.compile(r"Due (in 1 minute|now)"))
    expect(counts).to_contain_text("1 in learning steps")
