"""Issue 18, point 7, in Chromium: the interviewer's console at 1280 × 800, the candidate's screen at
390 × 844, with and without the script where a page works without it. A follow-up's question
reaches the candidate only when asked; a scenario change from the console reaches the candidate
within 1 s and the report; the candidate's worked answer reaches the console checked; setting up
refuses an interview of no card and says what a chosen variant changes; the report prints; the
scratch box closes with the interview.

The sessions use questions/kv-pool-users.md in its own scenario: Qwen3-8B on the L4's logged pool
of 24,096 tokens, 37 users of 640 tokens."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
WITHIN = 1_000  # ms: what the issue asks of a scenario change on both screens
LLAMA_8B = "meta-llama/Llama-3.1-8B-Instruct"
FOLLOW_UPS = ("What happens to a request that needs more blocks than are free?",
              "Why does the mixture-of-experts model use less KV memory per token than the dense model?",
              "How do you check your count after a start?", "What is the cost of the FP8 KV cache?")


def start(new_context, js: bool = True) -> Page:
    """A session of kv-pool-users made with the new-interview form; the console's page."""
    page = new_context(viewport=DESKTOP, java_script_enabled=js).new_page()
    page.goto("/interview/new")
    page.fill("#candidate", "Ada Lovelace")
    page.check("input[name=card][value=kv-pool-users]")
    page.get_by_role("button", name="Create the interview").click()
    expect(page.locator("h1")).to_have_text("Ada Lovelace")
    return page


def candidate_of(console: Page, new_context, js: bool = True) -> Page:
    screen = new_context(viewport=PHONE, java_script_enabled=js).new_page()
    screen.goto(console.input_value("#candidate-link"))
    return screen


def test_a_follow_up_question_reaches_the_candidate_only_when_asked(new_context):
    console = start(new_context)
    screen = candidate_of(console, new_context)
    console.click("button[data-reveal=short]")
    console.click("button[data-reveal=full]")
    expect(screen.locator("#shown-full")).to_contain_text("KV bytes per token = layers", timeout=WITHIN * 2)
    for question in FOLLOW_UPS:
        expect(screen.locator("main")).not_to_contain_text(question)
    expect(console.locator("#stage-followup-1")).to_contain_text(FOLLOW_UPS[0])  # the console has it all
    console.click("button[data-ask=followup-1]")
    expect(screen.locator("#shown-followup-1")).to_contain_text(FOLLOW_UPS[0], timeout=WITHIN * 2)
    expect(screen.locator("#shown-followup-1")).not_to_contain_text("waits in the queue")  # its expected answer
    for question in FOLLOW_UPS[1:]:
        expect(screen.locator("main")).not_to_contain_text(question)
    expect(console.locator("[data-asked-at=followup-1]")).to_contain_text("Asked on the candidate's screen since")
    expect(console.locator("button[data-ask=followup-1]")).to_be_hidden()


def test_a_scenario_change_reaches_both_screens_within_a_second_and_the_report(new_context):
    console = start(new_context)
    screen = candidate_of(console, new_context)
    console.click("button[data-reveal=short]")
    expect(screen.locator("#shown-short")).to_contain_text("fits 37 users", timeout=WITHIN * 2)
    expect(console.locator("#scenario")).to_contain_text("24,096 tokens")
    expect(console.locator("#scenario")).to_contain_text("logged")
    console.locator("summary", has_text="Change the scenario").click()
    console.select_option("#in-model", LLAMA_8B)
    console.select_option("#in-kv_cache_dtype", "fp8")
    console.get_by_role("button", name="Apply to both screens").click()
    # Llama 3.1 8B in FP8: 32 × 8 × 128 × 2 (K and V) × 1 byte = 64 KiB a token; the logged pool's
    # 3,553,099,776 B hold 54,208 tokens, ⌊(3,388 blocks − 1) ÷ 40⌋ = 84 users.
    expect(screen.locator("#shown-short")).to_contain_text("the pool of 54,208 tokens fits 84 users", timeout=WITHIN)
    expect(console.locator("#stage-short")).to_contain_text("54,208 tokens", timeout=WITHIN)
    expect(console.locator("#scenario")).to_contain_text("computed for this scenario")
    expect(console.locator("#scenario")).to_contain_text("set by the interviewer")
    console.goto(console.url.split("?")[0] + "/report")
    expect(console.locator(".scenario-changes")).to_contain_text(LLAMA_8B)
    expect(console.locator(".scenario-changes")).to_contain_text("kv_cache_dtype → fp8")


def test_without_the_script_the_console_changes_the_scenario_with_its_form(new_context):
    console = start(new_context, js=False)
    console.locator("summary", has_text="Change the scenario").click()
    console.select_option("#in-model", LLAMA_8B)
    console.get_by_role("button", name="Apply to both screens").click()
    expect(console.locator("#scenario")).to_contain_text(LLAMA_8B)
    expect(console.locator(".question")).to_contain_text(f"You serve {LLAMA_8B}")


def test_the_candidate_s_steps_reach_the_console_checked(new_context):
    console = start(new_context)
    screen = candidate_of(console, new_context)
    console.click("button[data-show]")
    expect(screen.locator("#step-kv_bytes_per_token")).to_be_visible(timeout=WITHIN * 2)
    screen.fill("#step-kv_bytes_per_token", "72 KiB")
    screen.fill("#answer", "37 users")
    typed = console.locator("#typed-answer")
    # 36 layers × 8 KV heads × 128 head size × 2 (K and V) × 2 bytes = 144 KiB, not 72.
    expect(typed).to_contain_text("The first step that diverges is step 1, the KV bytes per token: you wrote 72 KiB",
                                  timeout=WITHIN * 3)
    expect(typed).to_contain_text("Right: 37 users.")
    expect(screen.locator("main")).not_to_contain_text("diverges")
    console.click("button[data-reveal=short]")  # a reveal redraws the screen, not the boxes typed in
    expect(screen.locator("#shown-short")).to_be_visible(timeout=WITHIN * 2)
    expect(screen.locator("#step-kv_bytes_per_token")).to_have_value("72 KiB")


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize("js", [True, False], ids=["js", "no-js"])
def test_an_interview_of_no_card_is_refused_with_a_message(new_context, size, js):
    page = new_context(viewport=size, java_script_enabled=js).new_page()
    page.goto("/interview/new")
    page.fill("#candidate", "Grace Hopper")
    page.get_by_role("button", name="Create the interview").click()
    expect(page.locator("#form-error")).to_contain_text("tick at least one card to ask")
    expect(page.locator("#candidate")).to_have_value("Grace Hopper")
    expect(page).to_have_url(re.compile(r"/interview/new$"))


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize("js", [True, False], ids=["js", "no-js"])
def test_the_setup_page_says_what_a_chosen_variant_changes(new_context, size, js):
    page = new_context(viewport=size, java_script_enabled=js).new_page()
    page.goto("/interview/new")
    card = page.locator("details[data-scenario-card=kv-pool-users]")
    card.locator("summary").click()
    expect(card.locator("[data-scenario-summary]")).to_have_text("Scenario: the card's own")
    page.select_option("#variant-kv-pool-users", "1")  # Qwen3-8B with an FP8 KV cache
    if not js:
        page.fill("#candidate", "Grace Hopper")
        page.get_by_role("button", name="Show what each chosen scenario changes").click()
        card = page.locator("details[data-scenario-card=kv-pool-users]")
    expect(card.locator("[data-scenario-summary]")).to_have_text("Scenario: variant: Qwen3-8B with an FP8 KV cache")
    preview = card.locator("[data-scenario-preview]")
    expect(preview).to_contain_text("the variant's")
    expect(preview).to_contain_text("computed for this scenario")  # the logged pool, counted for FP8


def test_the_report_prints_and_the_scratch_box_closes_with_the_interview(new_context):
    console = start(new_context)
    screen = candidate_of(console, new_context)
    expect(screen.locator("[data-scratch-open]")).to_be_visible()
    console.locator("text=End the interview…").click()
    console.click("text=End the interview now")
    console.wait_for_url("**/report")
    console.evaluate("window.printed = 0; window.print = () => { window.printed = 1; }")
    console.get_by_role("button", name="Print").click()
    assert console.evaluate("window.printed") == 1
    expect(screen.locator("[data-scratch-closed]")).to_be_visible(timeout=WITHIN * 3)
    expect(screen.locator("[data-scratch-open]")).to_be_hidden()
    expect(screen.locator("#scratch")).to_have_attribute("readonly", "")
    # Without the script: no Print button (the page says how it prints), and the closed box on a reload.
    plain = new_context(viewport=DESKTOP, java_script_enabled=False).new_page()
    plain.goto(console.url)
    expect(plain.get_by_role("button", name="Print")).to_be_hidden()
    reloaded = new_context(viewport=PHONE, java_script_enabled=False).new_page()
    reloaded.goto(screen.url)
    expect(reloaded.locator("[data-scratch-closed]")).to_be_visible()
