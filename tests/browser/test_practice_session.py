"""A practice session in the browser: three cards, the position shown on each, skip and end."""

import re

from playwright.sync_api import Page, expect


def test_three_cards_show_their_position_and_skip_and_end_work(page: Page) -> None:
    page.goto("/practice")
    expect(page).to_have_url(re.compile(r"/cards/[a-z0-9-]+"))
    expect(page.locator("#practice-position")).to_contain_text("card 1 of this session")
    expect(page.locator("#practice-counts")).to_contain_text(re.compile(r"\d+ of \d+ due, \d+ new"))
    first = page.url

    page.get_by_role("button", name="Skip this card").click()
    expect(page.locator("#practice-position")).to_contain_text("card 2 of this session")
    assert page.url != first

    page.get_by_role("button", name="Show short answer").click()
    page.get_by_role("button", name="Show full answer").click()
    page.locator("form.grade").get_by_role("button", name="Good").click()
    expect(page.locator("#practice-position")).to_contain_text("card 3 of this session")
    expect(page.locator("#practice-position")).to_contain_text("1 graded")

    page.get_by_role("button", name="End the session").click()
    expect(page.locator("h1")).to_have_text("Practice session ended")
    expect(page.locator("#session-graded")).to_contain_text("You graded 1 card: 1 good, and skipped 1.")

    # Due times are in the reader's own time, rewritten by static/localtime.js.
    page.goto("/progress")
    due = page.locator("time[data-relative]").first
    expect(due).to_have_text(re.compile(r"^(in \d+ minutes?|today .+|tomorrow .+|.+\d)$"))
    expect(due).not_to_contain_text("UTC")
