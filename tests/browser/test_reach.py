"""Issue 18, point 4, in Chromium at 1280 × 800 and 390 × 844: every stage has its heading and says
what it opens; the calculator panel shows all it holds without an inner scroll; on a phone the
inputs a reader changes stay within the screen of the stage they change (the scenario bar), with
and without the script; the dashboard's charts fit 390 px with labels a person can read."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
VIEWPORTS = {"desktop": DESKTOP, "phone": PHONE}
MIN_LABEL_PX = 11  # a chart label a person reads; the issue saw ~7 px at 1280 and ~5 px at 390
LLAMA_8B = "meta-llama/Llama-3.1-8B-Instruct"


def ready(page: Page, path: str) -> Page:
    page.goto(path)
    page.wait_for_function("() => [...document.querySelectorAll('form.reveal')].every(f => f.dataset.bound)")
    return page


def within_screen(page: Page, selector: str) -> bool:
    top, bottom, height = page.evaluate(f"""() => {{
      const box = document.querySelector({selector!r}).getBoundingClientRect();
      return [box.top, box.bottom, window.innerHeight];
    }}""")
    return top >= 0 and bottom <= height + 0.5


@pytest.mark.parametrize("size", list(VIEWPORTS))
@pytest.mark.parametrize("js", [True, False], ids=["js", "no-js"])
def test_every_stage_has_its_heading_and_says_what_it_opens(new_context, size, js):
    page = new_context(viewport=VIEWPORTS[size], java_script_enabled=js).new_page()
    page.goto("/cards/kv-pool-users")
    headings = page.locator(".card-main .stage-title").all_inner_texts()
    assert headings == ["Short answer", "Full answer", "Follow-ups", "Wrong answers", "Where it is taught",
                        "Grade it"]
    expect(page.locator("#stage-full .waiting")).to_have_text("Opens once the short answer is shown.")
    expect(page.locator("#stage-short .opens")).to_have_text("It opens the full answer.")
    page.locator("#stage-short form.reveal button").click()
    expect(page.locator("#content-short .next-up")).to_have_text("Next: the full answer.")
    page.locator("#stage-full form.reveal button").click()
    expect(page.locator("#content-full .next-up")).to_have_text(
        "Next: the follow-ups' expected answers, the wrong answers and where it is taught; "
        "then grade the card at the end.")


def test_the_panel_shows_all_it_holds_without_an_inner_scroll(new_context):
    page = ready(new_context(viewport=DESKTOP).new_page(), "/cards/kv-pool-users")
    page.locator("#stage-short form.reveal button").click()
    page.locator("#stage-full form.reveal button").click()
    expect(page.locator("#derivations dl")).to_be_visible()
    overflow, scroll, client = page.evaluate("""() => {
      const panel = document.querySelector('.calc-panel');
      return [getComputedStyle(panel).overflowY, panel.scrollHeight, panel.clientHeight];
    }""")
    assert overflow == "visible" and scroll <= client + 1, (overflow, scroll, client)
    for selector in ("#reset-scenario", "#next-variant", "#held", "#derivations"):
        page.locator(selector).scroll_into_view_if_needed()
        expect(page.locator(selector)).to_be_in_viewport()
    # Beside the card, once the panel's fields are out of view, the scenario bar keeps the model in reach.
    page.locator("#stage-taught").scroll_into_view_if_needed()
    expect(page.locator("#scenario-bar")).to_be_visible()
    assert within_screen(page, "#scenario-bar")


def test_on_a_phone_the_model_changes_within_the_screen_of_the_stage_it_changes(new_context):
    page = ready(new_context(viewport=PHONE).new_page(), "/cards/kv-fp8-cache")
    page.locator("#stage-short form.reveal button").click()
    short = page.locator("#content-short")
    expect(page.locator("#stage-short")).to_have_class(re.compile(r"\brevealed\b"))
    before = short.inner_text()
    short.scroll_into_view_if_needed()
    expect(page.locator("#scenario-bar")).to_be_visible()
    assert within_screen(page, "#scenario-bar") and within_screen(page, "#title-short")
    page.locator("#bar-model").select_option(LLAMA_8B)
    expect(short).not_to_have_text(before)
    expect(page.locator("#in-model")).to_have_value(LLAMA_8B)  # the panel's own field follows
    assert within_screen(page, "#scenario-bar")
    expect(page.locator("#question-text")).to_contain_text(LLAMA_8B)


def test_on_a_phone_without_the_script_the_bar_is_a_form_in_reach(new_context):
    page = new_context(viewport=PHONE, java_script_enabled=False).new_page()
    page.goto("/cards/kv-fp8-cache")
    page.locator("#stage-short form.reveal button").click()
    page.locator("#content-short").scroll_into_view_if_needed()
    assert within_screen(page, "#scenario-bar")
    page.locator("#bar-model").select_option(LLAMA_8B)
    page.locator("#scenario-bar button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"model=meta-llama"))
    expect(page.locator("#question-text")).to_contain_text(LLAMA_8B)
    expect(page.locator("#content-short")).not_to_be_empty()  # the reader's stages stay revealed


@pytest.mark.parametrize("size", list(VIEWPORTS))
def test_the_dashboard_s_charts_fit_the_screen_with_readable_labels(new_context, size):
    page = new_context(viewport=VIEWPORTS[size]).new_page()
    ready(page, "/cards/kv-pool-users")
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("Space")
    expect(page.locator("#stage-short")).to_have_class(re.compile(r"\brevealed\b"))
    page.keyboard.press("Space")
    expect(page.locator("form.grade")).to_be_visible()
    page.keyboard.press("3")
    page.wait_for_url(re.compile(r"#card-"))
    page.goto("/progress")
    charts = page.evaluate("""() => [...document.querySelectorAll('.chart-figure svg')].map(svg => {
      const box = svg.getBoundingClientRect();
      return {right: box.right, width: box.width, drawn: svg.viewBox.baseVal.width,
              font: parseFloat(svg.getAttribute('font-size'))};
    })""")
    width = page.evaluate("window.innerWidth")
    assert len(charts) == 4
    for chart in charts:
        assert chart["right"] <= width, chart
        shown_px = chart["font"] * chart["width"] / chart["drawn"]  # the SVG scales its text with its width
        assert shown_px >= MIN_LABEL_PX, (size, chart, shown_px)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
