"""Browser tests of issue 17: a scenario that cannot exist, on /calc and on a card's panel.

/calc: the verdict first, the memory bar drawn past the GPU's total, and the suggestion a link that
sets tensor_parallel_size. A card: the option the reader picked that cannot start shows the plain
verdict beside its field and stays chosen. Each at 1280 and 390 px wide, with and without the script;
nothing scrolls sideways at 390. Screenshots go to $QUIZAPP_SHOTS when it is set, for a person to look at.

The figures: Llama-3.1-405B's 405.85e9 BF16 parameters are 811.7e9 B = 755.96 GiB, against the L4's
22.49 GiB; its 128 attention heads first allow a size whose share fits at 64 (811.7e9 ÷ 32 = 25.4e9 B
is more than the L4). Qwen3-8B's 16.4e9 B of weights exceed 0.5 × 24.1e9 B.
"""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import Page, expect

from .test_card_page import CARD

SIZES = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
CALC = "/calc?model=meta-llama%2FLlama-3.1-405B&gpu=L4"


def shot(page: Page, name: str) -> None:
    folder = os.environ.get("QUIZAPP_SHOTS")
    if folder:
        page.screenshot(path=os.path.join(folder, f"{name}.png"), full_page=False)


def no_sideways_scroll(page: Page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"] + 1


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_calc_says_first_that_it_does_not_fit_draws_the_overflow_and_links_the_fix(new_context, size, javascript):
    context = new_context(java_script_enabled=javascript, viewport=SIZES[size])
    page = context.new_page()
    response = page.goto(CALC)
    assert response is not None and response.status == 200
    verdict = page.locator("#fit-verdict")
    expect(verdict).to_contain_text("Does not fit: 755.96 GiB of weights on one 22.49 GiB L4.")
    # The verdict comes before the rest of the result.
    assert page.evaluate("document.querySelector('#fit-verdict').compareDocumentPosition("
                         "document.querySelector('.summary')) & Node.DOCUMENT_POSITION_FOLLOWING")
    bar = page.locator("figure.memory-bar")
    expect(bar).to_be_visible()
    expect(bar).to_contain_text("more than the GPU's 22.49 GiB")
    expect(bar).to_contain_text("The GPU's total 22.49 GiB")
    expect(page.locator("#calc-output")).to_contain_text("Failed to load model - not enough GPU memory")
    assert page.locator("#calc-output").inner_text().count("Failed to load model") == 1
    assert "Try increasing" not in page.locator("#calc-output").inner_text()
    link = page.locator("#fit-link")
    expect(link).to_contain_text("tensor_parallel_size 64")
    if size == "phone":
        no_sideways_scroll(page)
    page.locator("figure.memory-bar").scroll_into_view_if_needed()
    shot(page, f"calc-does-not-fit-{size}-{'js' if javascript else 'nojs'}")
    link.click()
    expect(page.locator("#fit-verdict")).to_contain_text("Fits: ")
    assert "tensor_parallel_size=64" in page.url
    expect(page.locator("#in-tensor_parallel_size")).to_have_value("64")


def test_calc_shows_the_verdict_in_place_when_the_reader_picks_a_model_too_big(new_context):
    context = new_context(viewport=SIZES["desktop"])
    page = context.new_page()
    page.goto("/calc")
    page.wait_for_function("() => document.getElementById('calc-form').dataset.bound === '1'")
    page.evaluate("window.__marker = 1")
    page.select_option("#in-model", "meta-llama/Llama-3.1-405B")
    expect(page.locator("#fit-verdict")).to_contain_text("Does not fit: 755.96 GiB of weights on one 22.49 GiB L4.")
    expect(page.locator("figure.memory-bar")).to_be_visible()
    assert page.evaluate("window.__marker") == 1, "the page was reloaded"


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_a_card_option_that_cannot_start_shows_the_verdict_beside_its_field(new_context, size, javascript):
    context = new_context(java_script_enabled=javascript, viewport=SIZES[size])
    page = context.new_page()
    response = page.goto(CARD)
    assert response is not None and response.ok
    if javascript:
        page.wait_for_function("() => [...document.querySelectorAll('form.reveal')].every(f => f.dataset.bound === '1')")
        page.select_option("#in-pool_rule", "fraction")
        expect(page.locator("#in-gpu_memory_utilization")).to_be_visible()
        page.fill("#in-gpu_memory_utilization", "0.5")
    else:
        response = page.goto(CARD + "?pool_rule=fraction&gpu_memory_utilization=0.5")
        assert response is not None and response.status == 400
    message = page.locator("#err-gpu_memory_utilization")
    expect(message).to_contain_text("Does not fit: ")
    expect(message).to_contain_text("leave no room for the KV cache")
    expect(page.locator("#in-gpu_memory_utilization")).to_have_value("0.5")
    expect(page.locator("#in-pool_rule")).to_have_value("fraction")
    assert "That scenario cannot be computed" not in page.content()
    if size == "phone":
        no_sideways_scroll(page)
    page.locator("#in-gpu_memory_utilization").scroll_into_view_if_needed()
    shot(page, f"card-option-does-not-fit-{size}-{'js' if javascript else 'nojs'}")
