"""Issue 18, points 5 and 6, in Chromium at 1280 × 800 and 390 × 844, with and without the script:
an answer with words around its unit is read ("37 simultaneous users"), and a worked answer is
checked step by step. The acceptance: 72 KiB for the bytes per token (key and value counted once)
and 37 users is told that the bytes-per-token step diverges, with its arithmetic, and that the
final answer is right. The card is questions/kv-pool-users.md in its own scenario (Qwen3-8B on the L4)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(params=[(size, js) for size in VIEWPORTS for js in (True, False)],
                ids=lambda p: f"{p[0]}-{'js' if p[1] else 'no-js'}")
def page(request, new_context):
    size, js = request.param
    page = new_context(viewport=VIEWPORTS[size], java_script_enabled=js).new_page()
    page.goto("/cards/kv-pool-users")
    if js:
        page.wait_for_function("() => [...document.querySelectorAll('form.reveal')].every(f => f.dataset.bound)")
    return page


def test_words_around_the_unit_are_read(page):
    page.fill("#answer", "37 simultaneous users")
    page.locator("#stage-short form.reveal button").click()
    expect(page.locator("#content-short .feedback[data-verdict]")).to_contain_text("Right: 37 users.")


def test_the_first_step_that_diverges_is_named_with_its_arithmetic(page):
    expect(page.locator("label[for=step-kv_bytes_per_token]")).to_have_text(
        "Step 1: The KV bytes per token (optional)")
    expect(page.locator("#step-kv_bytes_per_token + .answer-unit")).to_have_text("KiB")
    expect(page.locator("label[for=step-num_blocks]")).to_contain_text("The number of blocks or the pool in tokens")
    page.fill("#step-kv_bytes_per_token", "72 KiB")
    page.fill("#answer", "37 users")
    page.locator("#stage-short form.reveal button").click()
    steps = page.locator("#steps-verdict")
    # 36 layers × 8 KV heads × 128 head size × 2 (K and V) × 2 bytes = 147,456 B = 144 KiB.
    expect(steps).to_contain_text("The first step that diverges is step 1, the KV bytes per token: you wrote "
                                  "72 KiB, and it is 144 KiB (36 layers × 8 KV heads × 128 head size × 2 (K and V) "
                                  "× 2 bytes = 147,456 B = 144 KiB).")
    expect(page.locator("#content-short .feedback[data-verdict]")).to_contain_text("Right: 37 users.")
    expect(page.locator("#content-short .your-answer")).to_contain_text("37 users")
