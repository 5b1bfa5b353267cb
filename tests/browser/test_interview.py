"""Browser tests of a live interview, in two browsers: the interviewer's console and the
candidate's screen. A reveal reaches the candidate, and the candidate's scratch box reaches the
interviewer, within 2 s and without a reload; typed text never runs as script.

The sessions use questions/kv-pool-users.md in a scenario of the interviewer's: Llama 3.1 8B
with an FP8 KV cache on the card's pool (54,208 tokens, so 84 users of 640 tokens).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext, Dialog, Page, expect

WITHIN = 2_000  # ms: what the issue asks of a reveal and of the scratch box (other waits: expect's default)
HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(1)>[x](javascript:alert(1))"


@pytest.fixture
def candidate_context(new_context) -> BrowserContext:
    """The candidate's own browser: no cookie of the interviewer's."""
    return new_context()


def start_interview(page: Page, candidate: str = "Ada Lovelace") -> str:
    """Create a session with the form, in the session's own scenario; returns the candidate's link."""
    page.goto("/interview/new")
    page.fill("#candidate", candidate)
    page.fill("#role", "Inference Engineering")
    page.check("input[name=card][value=kv-pool-users]")
    page.locator("input[name=card][value=kv-pool-users]").locator("xpath=ancestor::li").locator("summary").click()
    page.select_option("select[name='input.kv-pool-users.model']", "meta-llama/Llama-3.1-8B-Instruct")
    page.select_option("select[name='input.kv-pool-users.kv_cache_dtype']", "fp8")
    page.click("text=Create the interview")
    expect(page.locator("h1")).to_have_text(candidate)
    return page.input_value("#candidate-link")


def watch_dialogs(page: Page, seen: list) -> Page:
    def record(dialog: Dialog) -> None:
        seen.append(dialog.message)
        dialog.dismiss()
    page.on("dialog", record)
    return page


def test_a_reveal_reaches_the_candidate_and_the_scratch_box_reaches_the_interviewer(page: Page, candidate_context):
    link = start_interview(page)
    candidate = candidate_context.new_page()
    candidate.goto(link)
    expect(candidate.get_by_text("Your first question appears here")).to_be_visible()
    candidate.evaluate("window.notReloaded = true")

    page.click("button[data-show]")
    expect(candidate.get_by_text("You serve meta-llama/Llama-3.1-8B-Instruct")).to_be_visible(timeout=WITHIN)
    expect(candidate.locator("#shown-short")).to_have_count(0)

    page.click("button[data-reveal=short]")
    shown = candidate.locator("#shown-short")
    expect(shown).to_contain_text("the pool of 54,208 tokens fits 84 users with 640 tokens each", timeout=WITHIN)
    expect(page.locator("[data-shown-at=short]")).to_contain_text("On the candidate's screen since")
    assert candidate.evaluate("window.notReloaded") is True
    expect(candidate.locator("#shown-full")).to_have_count(0)

    candidate.fill("#scratch", "54208 / 640 = 84 users")
    expect(page.locator("[data-scratch]")).to_have_text("54208 / 640 = 84 users", timeout=WITHIN)


def test_without_event_streams_the_candidates_screen_polls(page: Page, candidate_context):
    link = start_interview(page)
    candidate_context.add_init_script("delete window.EventSource")
    candidate = candidate_context.new_page()
    candidate.goto(link)
    page.click("button[data-reveal=short]")
    expect(candidate.locator("#shown-short")).to_be_visible(timeout=WITHIN)
    page.click("button[data-reveal=followup-1]")
    expect(candidate.locator("#shown-followup-1")).to_contain_text("vLLM preempts the most", timeout=WITHIN)


def test_two_tabs_of_the_console_stay_the_same(page: Page, context: BrowserContext):
    start_interview(page)
    other = context.new_page()
    other.goto(page.url)
    page.click("[data-score=short] button[value='3']")
    expect(other.locator("[data-score=short] button[value='3']")).to_have_attribute("aria-pressed", "true")
    other.check("[data-signal=wrong-2]")
    expect(page.locator("[data-signal=wrong-2]")).to_be_checked()
    other.fill("#note-text", "Knew the null block.")
    other.keyboard.press("Enter")
    expect(page.locator("[data-notes]")).to_contain_text("Knew the null block.")
    page.check("input[name=recommendation][value=strong_yes]")
    expect(other.locator("input[name=recommendation][value=strong_yes]")).to_be_checked()
    page.reload()  # everything was saved as it happened
    expect(page.locator("[data-score=short] button[value='3']")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("[data-notes]")).to_contain_text("Knew the null block.")


def test_ending_leads_to_the_report(page: Page, candidate_context):
    link = start_interview(page)
    candidate = candidate_context.new_page()
    candidate.goto(link)
    page.click("button[data-reveal=short]")
    page.click("[data-score=short] button[value='4']")
    page.fill("#reason", "Fast and exact.")
    page.locator("text=End the interview…").click()
    page.click("text=End the interview now")
    page.wait_for_url("**/report")
    expect(page.locator(".recommendation")).to_have_text("Not given")
    expect(page.locator(".reason")).to_have_text("Fast and exact.")
    expect(page.locator(".report-card")).to_contain_text("4 beyond")
    expect(candidate.get_by_role("heading", name="The interview has ended")).to_be_visible(timeout=WITHIN)
    expect(candidate.locator("#scratch")).to_have_attribute("readonly", "")


def test_typed_text_never_runs_as_script(page: Page, candidate_context):
    dialogs: list[str] = []
    watch_dialogs(page, dialogs)
    link = start_interview(page, candidate=f"Eve {HOSTILE}")
    candidate = watch_dialogs(candidate_context.new_page(), dialogs)
    candidate.goto(link)
    page.fill("#note-text", HOSTILE)
    page.keyboard.press("Enter")
    expect(page.locator("[data-notes] .note-text")).to_have_text(HOSTILE)
    page.check("input[name=recommendation][value=no]")
    page.fill("#reason", HOSTILE)
    candidate.fill("#scratch", HOSTILE)
    expect(page.locator("[data-scratch]")).to_have_text(HOSTILE)
    expect(page.locator("#recommendation [data-saved]")).to_contain_text("Saved")
    page.reload()
    expect(page.locator("h1")).to_have_text(f"Eve {HOSTILE}")
    page.goto(page.url + "/report")
    expect(page.locator(".reason")).to_have_text(HOSTILE)
    page.goto("/interview")
    expect(page.locator("table.sessions")).to_contain_text(HOSTILE)
    candidate.reload()
    expect(candidate.locator("#scratch")).to_have_value(HOSTILE)
    assert dialogs == []
    assert page.locator("img[src=x]").count() == 0 and candidate.locator("img[src=x]").count() == 0
