"""The calculator panel as a reader meets it: vLLM's refusals beside their field, the pool's
rules, and only the card's scenario space on offer (issue 8)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from quizapp.calc import calculate

from .test_card_page import CARD, assert_no_reload, open_card, reveal, set_marker

BYTES_CARD = "/cards/kv-bytes-per-token"


def test_an_oversized_max_model_len_shows_vllms_refusal_beside_the_field(page: Page) -> None:
    response = page.goto(CARD + "?max_model_len=100000")
    assert response is not None and response.status == 400
    field = page.locator("#in-max_model_len")
    expect(field).to_have_attribute("aria-invalid", "true")
    message = page.locator("#err-max_model_len")
    expect(message).to_contain_text("vLLM would refuse to start: User-specified max_model_len (100000) is greater "
                                    "than the derived max_model_len")
    # The numbers that depended on it are withdrawn: the card shows its own scenario, and says so.
    expect(page.locator("#scenario-error")).to_contain_text("Showing the card's own scenario")
    expect(page.locator("#question-text")).to_contain_text("maximum model length of 8,192 tokens")
    expect(page.locator("#question-text")).not_to_contain_text("0.24")


def test_the_refusal_appears_in_place_when_the_reader_types_it(page: Page) -> None:
    open_card(page)
    reveal(page, "short")
    set_marker(page)
    page.fill("#in-max_model_len", "100000")
    message = page.locator("#err-max_model_len")
    expect(message).to_contain_text("User-specified max_model_len (100000)")
    expect(page.locator("#in-max_model_len")).to_have_attribute("aria-invalid", "true")
    # The revealed numbers are the card's own again, never the refused scenario's.
    expect(page.locator("#content-short")).to_contain_text("37 users with 640 tokens each")
    page.fill("#in-max_model_len", "8192")
    expect(message).to_have_count(0)
    expect(page.locator("#in-max_model_len")).not_to_have_attribute("aria-invalid", "true")
    assert_no_reload(page)


def test_a_bad_letter_is_an_error_in_a_readers_words(page: Page) -> None:
    open_card(page)
    page.fill("#in-prompt_tokens", "5x2")
    expect(page.locator("#err-prompt_tokens")).to_have_text("Prompt tokens must be a positive whole number.")


def test_a_pinned_card_switched_to_a_fraction_of_the_gpu_shows_the_new_pool(page: Page) -> None:
    response = page.goto(BYTES_CARD)
    assert response is not None and response.ok
    page.wait_for_function("() => [...document.querySelectorAll('form.reveal')].every(f => f.dataset.bound === '1')")
    reveal(page, "short")
    pinned = calculate({"model": "meta-llama/Llama-3.1-70B-Instruct", "tensor_parallel_size": 4,
                        "kv_cache_memory_bytes": 16e9, "gpu": "H100-80GB-SXM", "max_model_len": 131072})
    expect(page.locator("#content-short")).to_contain_text(f"{pinned['pool_tokens']:,} tokens")
    set_marker(page)

    page.select_option("#in-pool_rule", "fraction")

    fraction = calculate({"model": "meta-llama/Llama-3.1-70B-Instruct", "tensor_parallel_size": 4,
                          "gpu": "H100-80GB-SXM", "max_model_len": 131072})
    assert fraction["pool_tokens"] != pinned["pool_tokens"]
    expect(page.locator("#content-short")).to_contain_text(f"{fraction['pool_tokens']:,} tokens")
    expect(page.locator("#in-gpu_memory_utilization")).to_be_visible()
    expect(page.locator(".field-note")).to_contain_text("sized by a fraction of the GPU")
    assert_no_reload(page)
    # The URL holds the rule: a reload shows the same pool.
    page.reload()
    expect(page.locator("#content-short")).to_contain_text(f"{fraction['pool_tokens']:,} tokens")


def test_the_panel_offers_only_the_cards_space(page: Page) -> None:
    open_card(page)
    options = page.locator("#in-model option").all_inner_texts()
    assert "Qwen/Qwen3-8B" in options and "meta-llama/Llama-3.1-8B-Instruct" in options
    assert not any("DeepSeek-V3" in o or "gpt-oss" in o or "gemma" in o for o in options)
    dtypes = page.locator("#in-kv_cache_dtype option").all_inner_texts()
    assert "fp8" in dtypes and "fp8_ds_mla" not in dtypes
    expect(page.locator("#in-tensor_parallel_size")).to_have_count(0)
