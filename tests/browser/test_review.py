"""Issue 18, point 1, in Chromium at 1280 × 800 and 390 × 844: review as Anki has it. On
/cards/kv-pool-users with every stage revealed in order, the grade form is the last thing on the
card, each grade button shows its key and the interval FSRS would give, focus reaches every
follow-up before the grades; with the script Space opens the next stage and 3 grades Good; a card
opened from the bank goes back to the bank, a practice session goes on to its next card."""

from __future__ import annotations

import re

import pytest
from quizapp.cards import load_card
from tests.paths import QUESTIONS

from playwright.sync_api import Page, expect

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
# Every stage of questions/kv-pool-users.md, in its order (the seed's four follow-ups, then those
# merged into it by issue 20), read from the card.
STAGES = load_card(QUESTIONS / "kv-pool-users.md", "kv-pool-users.md").stage_names
# py-fsrs 6's defaults for a new card: learning steps of 1 and 10 minutes, Hard halfway between
# them (5.5 min, shown rounded), Easy graduating at its initial stability w[3] = 8.2956 days.
INTERVALS = ["1 Again 1 min", "2 Hard 6 min", "3 Good 10 min", "4 Easy 8 days"]


@pytest.fixture(params=list(VIEWPORTS))
def viewport(request) -> dict:
    return VIEWPORTS[request.param]


def open_card(new_context, viewport, js: bool, path: str = "/cards/kv-pool-users") -> Page:
    page = new_context(viewport=viewport, java_script_enabled=js).new_page()
    page.goto(path)
    if js:
        page.wait_for_function("() => [...document.querySelectorAll('form.reveal')].every(f => f.dataset.bound)")
    return page


def grade_texts(page: Page) -> list[str]:
    return [" ".join(t.split()) for t in page.locator("form.grade button").all_inner_texts()]


def last_thing_on_the_card(page: Page) -> str:
    """The id of the last section in the card's column, and nothing focusable after its grade form."""
    return page.evaluate("""() => {
      const column = document.querySelector('.card-main');
      const sections = column.querySelectorAll(':scope > section');
      const last = sections[sections.length - 1];
      const focusable = [...column.querySelectorAll('a, button, input, select, textarea')];
      const after = focusable.filter(el => last.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING
                                            && !last.contains(el));
      return last.id + (after.length ? ' then ' + after.length + ' more' : '');
    }""")


def test_space_reveals_every_stage_in_order_and_3_grades_good(new_context, viewport):
    page = open_card(new_context, viewport, js=True)
    expect(page.locator("button[data-key=next] .key-hint")).to_have_text("Space")
    page.locator("body").click(position={"x": 5, "y": 5})
    for stage in STAGES:
        page.keyboard.press("Space")
        expect(page.locator(f"#stage-{stage}")).to_have_class(re.compile(r"\brevealed\b"))
    expect(page.locator("button[data-key=next]")).to_have_count(0)
    assert last_thing_on_the_card(page) == "stage-grade"
    assert grade_texts(page) == INTERVALS
    expect(page.locator("form.grade .key-hint").first).to_be_visible()  # the keys are shown
    page.keyboard.press("3")
    page.wait_for_url(re.compile(r"/#card-kv-pool-users$"))
    expect(page.locator(".notice.flash")).to_contain_text(
        "Graded “Good”: How many users fit in the KV pool comes back in 10 minutes.")
    expect(page.locator("#card-kv-pool-users .standing")).to_contain_text("Due")
    expect(page.locator("#card-kv-pool-users")).to_be_in_viewport()


def test_without_the_script_the_buttons_do_it_and_the_grade_is_still_last(new_context, viewport):
    page = open_card(new_context, viewport, js=False)
    for stage in STAGES:
        page.locator(f"#stage-{stage} form.reveal button").click()
        expect(page.locator(f"#stage-{stage}")).to_have_class(re.compile(r"\brevealed\b"))
    assert last_thing_on_the_card(page) == "stage-grade"
    assert grade_texts(page) == [text.split(" ", 1)[1] for text in INTERVALS]  # no key hints without the keys
    expect(page.locator("form.grade .key-hint").first).to_be_hidden()
    page.locator("form.grade button[value=easy]").click()
    expect(page).to_have_url(re.compile(r"/#card-kv-pool-users$"))
    expect(page.locator("#card-kv-pool-users .standing")).to_contain_text("Learned · next review")


def test_focus_reaches_every_follow_up_before_the_grades(new_context, viewport):
    page = open_card(new_context, viewport, js=True)
    page.locator("#stage-short form.reveal button").click()
    page.locator("#stage-full form.reveal button").click()
    expect(page.locator("form.grade")).to_be_visible()
    page.locator("#content-full").focus()
    order = []
    for _ in range(60):
        page.keyboard.press("Tab")
        order.append(page.evaluate("""() => {
          const el = document.activeElement;
          const stage = el.closest('[id^=stage-]');
          return (stage ? stage.id : '') + ':' + (el.value || el.textContent.trim().slice(0, 20));
        }"""))
        if order[-1].startswith("stage-grade:easy"):
            break
    first_grade = next(i for i, item in enumerate(order) if item.startswith("stage-grade:"))
    follow_ups = [i for i, item in enumerate(order) if item.startswith("stage-followup-")]
    assert follow_ups and max(follow_ups) < first_grade, order


def test_a_practice_session_goes_on_to_its_next_card(new_context, viewport):
    page = new_context(viewport=viewport).new_page()
    page.goto("/practice")
    first = page.url.split("/cards/")[1].split("?")[0]
    expect(page.locator("#practice-bar")).to_be_visible()
    page.wait_for_function("() => [...document.querySelectorAll('form.reveal')].every(f => f.dataset.bound)")
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("Space")
    expect(page.locator("#stage-short")).to_have_class(re.compile(r"\brevealed\b"))
    page.keyboard.press("Space")
    expect(page.locator("form.grade")).to_be_visible()
    expect(page.locator(".grade-then")).to_have_text("Then the next card of this practice session.")
    with page.expect_navigation():
        page.keyboard.press("3")
    assert page.url.split("/cards/")[1].split("?")[0] != first
    expect(page.locator("#practice-position")).to_contain_text("card 2 of this session")
