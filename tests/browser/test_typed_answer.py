"""The typed answer in the browser: the number box with its unit, the working box, and a verdict
that keeps the scenario it was checked for when the reader changes the panel's model."""

from __future__ import annotations

import re

from quizapp.cards import load_card
from tests.paths import QUESTIONS

from playwright.sync_api import Page, expect

from .test_card_page import LLAMA, open_card, reveal_button, set_marker, assert_no_reload

FEEDBACK = "#content-short .feedback"


def test_changing_the_model_after_answering_relabels_the_verdict(page: Page) -> None:
    open_card(page)
    expect(page.locator("#answer-unit")).to_have_text("users")
    page.fill("#answer", "37")
    page.fill("#working", "The pool holds 24,096 tokens; a user holds 640.")
    reveal_button(page, "short").click()

    feedback = page.locator(FEEDBACK)
    expect(feedback.locator(".checked-for")).to_have_text("Checked for Qwen3-8B on the L4: right.")
    expect(feedback).to_contain_text("Right: 37 users.")
    expect(page.locator("#content-short .working")).to_have_text("The pool holds 24,096 tokens; a user holds 640.")
    set_marker(page)

    page.select_option("#in-model", LLAMA)

    # Llama 3.1 8B keeps the pool's bytes: 1,694 blocks, (1,694 - 1) // 40 = 42 users.
    expect(feedback.locator(".checked-for")).to_have_text(
        "Checked for Qwen3-8B on the L4: right; for this scenario (Llama-3.1-8B-Instruct on the L4) "
        "the answer is 42 users.")
    expect(feedback).to_contain_text("Right: 37 users.")
    expect(page.locator("#content-short")).to_contain_text("42 users with 640 tokens each")
    assert_no_reload(page)

    page.select_option("#in-model", "Qwen/Qwen3-8B")
    expect(feedback.locator(".checked-for")).to_have_text("Checked for Qwen3-8B on the L4: right.")


def test_the_next_stage_s_button_appears_only_after_the_one_it_needs(page: Page) -> None:
    open_card(page)
    expect(reveal_button(page, "full")).to_have_count(0)
    expect(page.get_by_role("button", name="Show expected answer")).to_have_count(0)
    reveal_button(page, "short").click()
    expect(reveal_button(page, "full")).to_have_attribute("aria-expanded", "false")
    expect(page.get_by_role("button", name="Show expected answer")).to_have_count(0)
    reveal_button(page, "full").click()
    follow_ups = len(load_card(QUESTIONS / "kv-pool-users.md", "kv-pool-users.md").follow_ups)
    expect(page.get_by_role("button", name="Show expected answer")).to_have_count(follow_ups)
    expect(page).to_have_url(re.compile(r"/cards/kv-pool-users"))


def test_typing_survives_a_recalculation(page: Page) -> None:
    open_card(page)
    page.fill("#answer", "about 40")
    page.fill("#working", "a rough guess")
    page.select_option("#in-model", LLAMA)
    expect(page.locator("#question-text")).to_contain_text(f"You serve {LLAMA}")
    expect(page.locator("#answer")).to_have_value("about 40")
    expect(page.locator("#working")).to_have_value("a rough guess")


def test_a_stale_button_the_server_refuses_says_why_in_place(page: Page) -> None:
    open_card(page)
    reveal_button(page, "short").click()
    expect(reveal_button(page, "full")).to_have_attribute("aria-expanded", "false")
    set_marker(page)
    # Another tab starts the card over: this page's "Show full answer" is now out of order.
    token = page.locator("meta[name=csrf-token]").get_attribute("content")
    assert page.request.post("/cards/kv-pool-users/reset", form={"csrf_token": token}).ok

    reveal_button(page, "full").click()

    expect(page.locator("#stage-full .refused")).to_have_text(
        "Reveal the short answer first: the full answer opens once the short answer is shown, as in an interview.")
    expect(page.locator("#content-full")).to_be_empty()
    assert_no_reload(page)
