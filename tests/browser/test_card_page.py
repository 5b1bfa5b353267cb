"""Browser tests of the card page /cards/kv-pool-users: staged reveals, the live calculator,
variants, keyboard use, the page without JavaScript and a hostile query string.

The numbers come from questions/kv-pool-users.md: Qwen/Qwen3-8B on the L4 with a logged pool
of 24,096 tokens (1,506 blocks of 16), 512 + 128 = 640 tokens (40 blocks) per user, so
(1,506 - 1) // 40 = 37 users.
"""

from __future__ import annotations

import re
import urllib.error
import urllib.request

import pytest
from quizapp.cards import load_card
from tests.paths import QUESTIONS

from playwright.sync_api import BrowserContext, Dialog, Page, expect

CARD = "/cards/kv-pool-users"
# Every stage of questions/kv-pool-users.md, in its order (the seed's four follow-ups, then those
# merged into it by issue 20), read from the card.
STAGES = load_card(QUESTIONS / "kv-pool-users.md", "kv-pool-users.md").stage_names

# Text that each stage shows once revealed, all from questions/kv-pool-users.md.
STAGE_TEXT = {
    "short": ["real users hold", "the pool of 24,096 tokens fits", "37 users with 640 tokens each"],
    "full": ["Bytes for one token", "144 KiB", "96 KiB", "From bytes to users",
             "GPU KV cache size: 24,096 tokens, Maximum concurrency for 8,192 tokens per request: 2.94x"],
    "followup-1": ["waits in the queue", "vLLM preempts the most"],
    "followup-2": ["It has fewer KV heads"],
    "followup-3": ["Read the memory line and the pool line in the startup log"],
    "followup-4": ["A possible loss of quality"],
    "wrong": ["Divide the GPU memory by the model size.",
              "The weights are only one part.",
              "The maximum concurrency in the log is the user limit."],
    "taught": ["The memory section of vLLM 101 counts the pool", "vLLM documentation: Conserving memory",
               "vLLM documentation: Paged attention (design)"],
}

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
QWEN = "Qwen/Qwen3-8B"


# --------------------------------------------------------------------------- helpers


def open_card(page: Page, query: str = "", javascript: bool = True) -> None:
    response = page.goto(CARD + query)
    assert response is not None and response.ok, response and response.status
    # app.js is deferred; wait until it has bound the reveal forms so a click is handled in place.
    if javascript:
        page.wait_for_function(
            "() => [...document.querySelectorAll('form.reveal')].every(f => f.dataset.bound === '1')")


def set_marker(page: Page) -> None:
    """A value on window survives in-place updates and is lost by any full page load."""
    page.evaluate("window.__marker = 1")


def assert_no_reload(page: Page) -> None:
    assert page.evaluate("window.__marker") == 1, "the page was reloaded (window.__marker is gone)"


def reveal_button(page: Page, stage: str):
    return page.locator(f"#stage-{stage} form.reveal button")


def reveal(page: Page, stage: str) -> None:
    """Click a stage's button and wait until its content is in place."""
    reveal_button(page, stage).click()
    expect(page.locator(f"#content-{stage}")).not_to_be_empty()
    expect(reveal_button(page, stage)).to_have_attribute("aria-expanded", "true")


def focus_is_in(page: Page, element_id: str) -> None:
    page.wait_for_function(
        "(id) => { const el = document.getElementById(id);"
        " return !!el && !!document.activeElement && el.contains(document.activeElement); }",
        arg=element_id,
    )


def http_get(url: str, cookie: str | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8")


def cookie_header(context: BrowserContext) -> str:
    return "; ".join(f"{c['name']}={c['value']}" for c in context.cookies())


# --------------------------------------------------------------------------- 1. staged reveals


def test_reveals_each_stage_in_order_in_place(page: Page) -> None:
    open_card(page)
    set_marker(page)
    for stage in STAGES:
        button = reveal_button(page, stage)
        expect(button).to_have_attribute("aria-expanded", "false")
        expect(page.locator(f"#content-{stage}")).to_be_empty()

        button.click()

        content = page.locator(f"#content-{stage}")
        for text in STAGE_TEXT.get(stage, []):
            expect(content).to_contain_text(text)
        # The section is replaced: the new button says it is expanded and can't be pressed again.
        button = reveal_button(page, stage)
        expect(button).to_have_attribute("aria-expanded", "true")
        expect(button).to_be_disabled()
        focus_is_in(page, f"content-{stage}")
        assert_no_reload(page)

        if stage == "full":
            # The follow-up questions appear with the full answer, their answers stay hidden.
            expect(page.locator("#stage-followup-1 .followup-question")).to_contain_text(
                "What happens to a request that needs more blocks than are free?")
            expect(page.locator("#content-followup-1")).to_be_empty()

    # Every stage is still shown at the end: no reveal hid an earlier one.
    for stage in STAGE_TEXT:
        expect(page.locator(f"#content-{stage}")).to_contain_text(STAGE_TEXT[stage][0])
    expect(page.locator("#derivations")).to_contain_text("users_fit = 37")
    assert page.url.endswith(CARD) or CARD + "?" in page.url


# --------------------------------------------------------------------------- 2. nothing leaks


HIDDEN_SHORT = ["real users hold", "fits"]
HIDDEN_FULL = ["Bytes for one token"]


def test_unrevealed_answers_are_not_in_the_page_source(page: Page, live_server: str) -> None:
    open_card(page)
    dom = page.content()
    status, source = http_get(live_server + CARD)
    assert status == 200
    _, fragment = http_get(live_server + CARD + "/fragment")
    for text in HIDDEN_SHORT + HIDDEN_FULL:
        assert text not in dom, f"{text!r} is in the page before any reveal"
        assert text not in source, f"{text!r} is in the served HTML before any reveal"
        assert text not in fragment, f"{text!r} is in the fragment JSON before any reveal"

    reveal(page, "short")

    dom = page.content()
    for text in HIDDEN_SHORT:
        assert text in dom
    for text in HIDDEN_FULL:
        assert text not in dom, f"{text!r} (full answer) is in the page after revealing only the short one"

    # The server renders the short answer for this reader (its cookie) and for nobody else.
    _, own = http_get(live_server + CARD, cookie=cookie_header(page.context))
    for text in HIDDEN_SHORT:
        assert text in own
    for text in HIDDEN_FULL:
        assert text not in own
    _, stranger = http_get(live_server + CARD)
    for text in HIDDEN_SHORT + HIDDEN_FULL:
        assert text not in stranger


# --------------------------------------------------------------------------- 3, 4. live calculator


def test_changing_the_model_recalculates_in_place(page: Page) -> None:
    open_card(page)
    reveal(page, "short")
    reveal(page, "full")
    short, full = page.locator("#content-short"), page.locator("#content-full")
    expect(full).to_contain_text("144 KiB")
    expect(short).to_contain_text("37 users with 640 tokens each")
    set_marker(page)

    page.select_option("#in-model", LLAMA)

    # Llama 3.1 8B: 32 layers x 8 KV heads x 128 x 2 x 2 B = 128 KiB per token. The pool keeps
    # its bytes: 3,553,099,776 B / 2,097,152 B per block = 1,694 blocks; (1,694 - 1) // 40 = 42.
    expect(full).to_contain_text("128 KiB")
    expect(full).not_to_contain_text("144 KiB")
    expect(full).to_contain_text(f"{LLAMA} has 32 layers")
    expect(short).to_contain_text("the pool of 27,104 tokens fits")
    expect(short).to_contain_text("42 users with 640 tokens each")
    expect(short).not_to_contain_text("37 users")
    expect(page.locator("#derivations")).to_contain_text("(1,694 blocks − 1 null block) ÷ 40 blocks per user")
    expect(page.locator("#question-text")).to_contain_text(f"You serve {LLAMA}")
    expect(page).to_have_url(re.compile(r"[?&]model=meta-llama%2FLlama-3\.1-8B-Instruct(&|$)"))
    expect(page.locator("#announce")).to_have_text(f"Recalculated for {LLAMA}.")
    expect(page.locator("#scenario-error")).to_be_hidden()
    # Recalculating does not reveal anything new, and the stages stay revealed.
    expect(page.locator("#content-followup-1")).to_be_empty()
    expect(page.locator("#content-wrong")).to_be_empty()
    expect(reveal_button(page, "full")).to_have_attribute("aria-expanded", "true")
    assert_no_reload(page)


def test_fp8_kv_cache_halves_the_bytes_per_token(page: Page) -> None:
    open_card(page)
    reveal(page, "short")
    reveal(page, "full")
    full = page.locator("#content-full")
    expect(full).to_contain_text("144 KiB")
    expect(full).to_contain_text("96 KiB")
    set_marker(page)

    page.select_option("#in-kv_cache_dtype", "fp8")

    expect(full).to_contain_text("72 KiB")
    expect(full).to_contain_text("48 KiB")  # Qwen3-30B-A3B: 96 KiB in BF16, halved
    expect(full).not_to_contain_text("144 KiB")
    expect(full).not_to_contain_text("96 KiB")
    # The same bytes hold twice the tokens: 3,012 blocks, (3,012 - 1) // 40 = 75 users.
    expect(page.locator("#content-short")).to_contain_text("75 users with 640 tokens each")
    expect(page).to_have_url(re.compile(r"[?&]kv_cache_dtype=fp8(&|$)"))
    expect(page.locator("#announce")).not_to_be_empty()
    assert_no_reload(page)


# --------------------------------------------------------------------------- 5. without JavaScript


def test_reveal_works_without_javascript(new_context) -> None:
    context = new_context(java_script_enabled=False)
    context.set_default_timeout(10_000)
    page = context.new_page()
    open_card(page, javascript=False)
    expect(page.locator("#content-short")).to_be_empty()
    page.fill("#answer", "37")
    page.fill("#working", "Roughly 37, since users hold 640 tokens.")

    with page.expect_navigation():
        page.get_by_role("button", name="Show short answer").click()

    content = page.locator("#content-short")
    expect(content).to_contain_text("the pool of 24,096 tokens fits")
    expect(content).to_contain_text("37 users with 640 tokens each")
    expect(content.locator(".your-answer")).to_contain_text("Roughly 37, since users hold 640 tokens.")
    expect(content.locator(".feedback")).to_contain_text("Checked for Qwen3-8B on the L4: right.")
    expect(reveal_button(page, "short")).to_have_attribute("aria-expanded", "true")
    expect(page.locator("#content-full")).to_be_empty()
    # The revealed state is in the cookie: a plain GET of the card still shows it.
    page.goto(CARD)
    expect(page.locator("#content-short")).to_contain_text("37 users with 640 tokens each")


# --------------------------------------------------------------------------- 6. keyboard


def test_keyboard_tab_and_enter_reveal_the_short_answer(page: Page) -> None:
    open_card(page)
    set_marker(page)
    button = reveal_button(page, "short")
    for _ in range(20):
        page.keyboard.press("Tab")
        if button.evaluate("el => el === document.activeElement"):
            break
    else:
        pytest.fail("20 presses of Tab never reached the 'Show short answer' button")
    expect(button).to_be_focused()

    page.keyboard.press("Enter")

    expect(page.locator("#content-short")).to_contain_text("37 users with 640 tokens each")
    expect(reveal_button(page, "short")).to_have_attribute("aria-expanded", "true")
    focus_is_in(page, "content-short")
    assert_no_reload(page)


# --------------------------------------------------------------------------- 7. variants and reset


def test_another_variant_and_reset(page: Page) -> None:
    open_card(page)
    reveal(page, "short")
    expect(page.locator("#in-model")).to_have_value(QWEN)
    set_marker(page)

    page.click("#next-variant")

    expect(page.locator("#in-model")).to_have_value(LLAMA)
    expect(page.locator("#held")).to_contain_text("Variant: Llama 3.1 8B on the same pool")
    expect(page.locator("#content-short")).to_contain_text("42 users with 640 tokens each")
    expect(page).to_have_url(re.compile(r"[?&]variant=0(&|$)"))
    expect(page.locator("#calc-form input[name=variant]")).to_have_value("0")
    expect(page.locator("#next-variant")).to_have_attribute("href", re.compile(r"variant=1$"))
    expect(page.locator("#announce")).to_have_text(
        f"Recalculated for {LLAMA}, variant Llama 3.1 8B on the same pool.")

    page.click("#next-variant")
    expect(page.locator("#in-kv_cache_dtype")).to_have_value("fp8")
    expect(page.locator("#in-model")).to_have_value(QWEN)
    expect(page.locator("#held")).to_contain_text("Variant: Qwen3-8B with an FP8 KV cache")

    page.click("#reset-scenario")

    expect(page.locator("#in-model")).to_have_value(QWEN)
    expect(page.locator("#in-kv_cache_dtype")).to_have_value("auto")
    expect(page.locator("#held")).to_contain_text("The card's own scenario")
    expect(page.locator("#content-short")).to_contain_text("37 users with 640 tokens each")
    expect(page.locator("#calc-form input[name=variant]")).to_have_count(0)
    expect(page.locator("#next-variant")).to_have_attribute("href", re.compile(r"variant=0$"))
    expect(page).not_to_have_url(re.compile(r"variant="))
    # Reset keeps what the reader revealed.
    expect(reveal_button(page, "short")).to_have_attribute("aria-expanded", "true")
    assert_no_reload(page)


# --------------------------------------------------------------------------- 8. hostile input


def test_hostile_query_string_is_reported_and_not_executed(page: Page) -> None:
    dialogs: list[str] = []

    def on_dialog(dialog: Dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)

    response = page.goto(CARD + "?model=<script>alert(1)</script>")
    assert response is not None and response.status == 400
    error = page.locator("#scenario-error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("unknown model '<script>alert(1)</script>'")
    expect(error).to_contain_text("(field model)")
    expect(error.locator("script")).to_have_count(0)
    # The card's own scenario is shown instead.
    expect(page.locator("#in-model")).to_have_value(QWEN)
    expect(page.locator("#question-text")).to_contain_text(f"You serve {QWEN}")

    # The same through the live calculator: the error comes back as JSON and is shown as text.
    page.wait_for_function("() => document.querySelectorAll('form.reveal[data-bound]').length > 0")
    page.evaluate("""() => {
        const select = document.getElementById('in-model');
        select.add(new Option('x', '<img src=x onerror=alert(2)>', true, true));
        select.dispatchEvent(new Event('change', { bubbles: true }));
    }""")
    expect(page.locator("#announce")).to_contain_text("Not recalculated: unknown model '<img src=x onerror=alert(2)>'")
    expect(error).to_contain_text("unknown model '<img src=x onerror=alert(2)>'")
    expect(error).to_contain_text("(field model)")
    expect(error.locator("img")).to_have_count(0)
    expect(page.locator("#main img")).to_have_count(0)

    assert dialogs == [], f"a dialog fired: {dialogs}"
