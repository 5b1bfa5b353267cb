"""Issue 20: a practice session filtered by one topic, in Chromium at 1280 × 800 and 390 × 844.

The reader picks a topic on the bank (its tile, or the filter form without the script), starts
practice, and every card the session brings is of that topic, with the page saying which topic it
draws from. Screenshots of each step are kept in test-results/topics/ for a person to look at."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.paths import ROOT

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
SHOTS = ROOT / "test-results" / "topics"
TOPIC, TITLE = "kv-cache", "KV cache sizing"
CARDS = 3  # graded in the session


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def no_sideways_scroll(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "the page scrolls sideways"


@pytest.mark.parametrize("size", VIEWPORTS)
def test_a_practice_session_filtered_by_one_topic(new_context, size):
    page = new_context(viewport=VIEWPORTS[size]).new_page()
    page.goto("/")
    tile = page.locator(f"#topic-{TOPIC}")
    expect(tile).to_contain_text(re.compile(rf"{TITLE}\s*\d+ cards\s*\d+ new"))
    no_sideways_scroll(page)
    shot(page, f"{size}-1-bank")
    tile.get_by_role("link", name=TITLE).click()
    expect(page).to_have_url(re.compile(rf"/\?topic={TOPIC}$"))
    expect(page.locator(f"#topic-{TOPIC} a")).to_have_attribute("aria-current", "page")
    listed = page.locator(".bank-card .card-topic").all_inner_texts()
    assert listed and set(listed) == {TITLE}
    page.locator("#start-practice").click()
    seen = []
    for number in range(1, CARDS + 1):
        expect(page).to_have_url(re.compile(r"/cards/[a-z0-9-]+"))
        expect(page.locator("#practice-position")).to_contain_text(f"card {number} of this session")
        expect(page.locator("#practice-drawing")).to_have_text(f"Topic: {TITLE}")
        expect(page.locator("#card-topic")).to_have_text(f"Topic: {TITLE}")
        seen.append(page.url.split("/cards/")[1].split("?")[0])
        if number == 1:
            shot(page, f"{size}-2-card")
        page.locator("#stage-short form.reveal button").click()
        page.locator("#stage-full form.reveal button").click()
        no_sideways_scroll(page)
        page.locator("form.grade button[value=good]").click()
    assert len(set(seen)) == CARDS
    page.goto(f"/?topic={TOPIC}")
    expect(tile).to_contain_text(f"{CARDS} in learning steps")
    shot(page, f"{size}-3-bank-after")


def test_the_topic_filter_works_without_the_script(new_context):
    page = new_context(viewport=VIEWPORTS["phone"], java_script_enabled=False).new_page()
    page.goto("/")
    page.locator("#topic").select_option(TOPIC)
    page.get_by_role("button", name="Filter").click()
    expect(page).to_have_url(re.compile(rf"topic={TOPIC}"))
    assert set(page.locator(".bank-card .card-topic").all_inner_texts()) == {TITLE}
    page.locator("#start-practice").click()
    expect(page.locator("#practice-drawing")).to_have_text(f"Topic: {TITLE}")
    response = page.goto("/?topic=kv-cach")
    assert response.status == 400
    expect(page.locator("main")).to_contain_text("did you mean 'kv-cache'?")
