"""With JavaScript, a page says what the same page says without it: the scripts show the words
and links the server sends, so a text put in place equals the text a reload draws.

(tests/web/test_static_scripts.py holds the scripts to that; these tests watch it happen.)
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from .test_card_page import CARD, open_card, reveal
from .test_calc_pages import open_live
from .test_interview import start_interview


def inner_text(page: Page, selector: str) -> str:
    return " ".join(page.locator(selector).inner_text().split())


def test_the_scenario_notice_in_place_is_the_pages(page: Page) -> None:
    """A refused scenario: the notice the script puts in place is the one the page draws for its URL."""
    open_card(page)
    page.fill("#in-max_model_len", "100000")
    expect(page.locator("#scenario-error")).to_be_visible()
    in_place = inner_text(page, "#scenario-error")
    assert "(max model len within model)" in in_place  # the check, which the script's own copy left out
    page.goto(CARD + "?max_model_len=100000")
    assert inner_text(page, "#scenario-error") == in_place


def test_a_follow_up_mark_in_place_is_the_pages(page: Page) -> None:
    open_card(page)
    reveal(page, "short")
    reveal(page, "full")
    reveal(page, "followup-1")
    page.locator("#stage-followup-1").get_by_role("button", name="I did not").click()
    mark = page.locator("#stage-followup-1 form.followup-mark p.muted")
    expect(mark).to_have_text("You marked this: did not know it.")
    page.reload()
    expect(mark).to_have_text("You marked this: did not know it.")


def test_another_variant_goes_where_the_server_says(page: Page) -> None:
    open_card(page)
    page.click("#next-variant")
    expect(page.locator("#calc-form input[name=variant]")).to_have_value("0")
    in_place = page.get_attribute("#next-variant", "href")
    page.reload()
    assert page.get_attribute("#next-variant", "href") == in_place == CARD + "?variant=1"


def test_the_consoles_texts_in_place_are_the_pages(page: Page) -> None:
    start_interview(page)
    page.wait_for_function("() => document.querySelector('[data-status]').textContent.trim() !== ''")
    expect(page.locator("[data-status]")).to_have_text("Not started")
    page.click("button[data-reveal=short]")
    page.click("[data-score=short] button[value='3']")
    page.fill("#note-text", "Knew the null block.")
    page.keyboard.press("Enter")
    expect(page.locator("[data-notes] .note-text")).to_have_text("Knew the null block.")
    expect(page.locator("[data-status]")).to_have_text("Live")
    expect(page.locator("[data-shown-at=short]")).to_contain_text("On the candidate's screen since")
    fixed = ["[data-status]", "[data-shown-at=short]", "[data-score-count]", "[data-notes] li", "[data-scratch-at]"]
    in_place = [inner_text(page, selector) for selector in fixed]
    assert re.fullmatch(r"\d+:\d\d", page.locator("[data-timer=session]").inner_text())
    page.reload()
    assert [inner_text(page, selector) for selector in fixed] == in_place
    # Deleting the note the script drew (a copy of the page's own note markup) works in place.
    page.locator("[data-notes] li button", has_text="Delete").click()
    expect(page.locator("[data-notes] li")).to_have_count(0)
    expect(page.locator("[data-no-notes]")).to_be_visible()


def test_a_calculator_refusal_in_place_is_the_pages(context) -> None:
    page = context.new_page()
    open_live(page, "/calc", "calc-form")
    page.fill("#in-max_model_len", "40960")
    refusal = page.locator("#ref-in-max_model_len")
    expect(refusal).to_contain_text("vLLM refuses:")
    in_place = refusal.inner_html()
    page.reload()
    assert refusal.inner_html() == in_place
