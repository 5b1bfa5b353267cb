"""Browser tests of the calculator pages: /calc, /calc/compare and /calc/log.

Each page updates in place with JavaScript (the script fetches server-rendered fragments; the
page is not reloaded), keeps its scenario in the URL so a shared URL shows the same page, and
works with JavaScript off. At 390 px wide none scrolls sideways.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

# Qwen3-8B's shape under another name: the default scenario's GPU budget also counts its weights.
CONFIG = ('{"_name_or_path": "acme/tiny", "model_type": "qwen3", "num_hidden_layers": 36, "num_attention_heads": 32, '
          '"num_key_value_heads": 8, "head_dim": 128, "hidden_size": 4096, "intermediate_size": 12288, '
          '"vocab_size": 151936, "max_position_embeddings": 40960, "torch_dtype": "bfloat16"}')
SEED_LOG = (Path(__file__).resolve().parent.parent / "calc" / "data" / "logs" / "qwen3-8b-l4.log").read_text()


def open_live(page: Page, path: str, form: str) -> None:
    response = page.goto(path)
    assert response is not None and response.ok, response and response.status
    page.wait_for_function(f"() => document.getElementById('{form}').dataset.bound === '1'")
    page.evaluate("window.__marker = 1")  # survives in-place updates, lost by a reload


def assert_no_reload(page: Page) -> None:
    assert page.evaluate("window.__marker") == 1, "the page was reloaded"


def figure(page: Page, name: str):
    return page.locator(f"#figure-{name} dd")


# --------------------------------------------------------------------------- /calc


def test_changing_an_input_updates_the_values_in_place(context) -> None:
    page = context.new_page()
    open_live(page, "/calc", "calc-form")
    expect(figure(page, "kv_bytes_per_token")).to_have_text("144 KiB")
    page.select_option("#in-kv_cache_dtype", "fp8")
    expect(figure(page, "kv_bytes_per_token")).to_have_text("72 KiB")
    expect(page.locator("#value-kv_dtype td.num")).to_have_text("fp8")
    page.fill("#in-max_model_len", "4096")
    expect(page.locator("#log-lines")).to_contain_text("Maximum concurrency for 4,096 tokens per request")
    assert "kv_cache_dtype=fp8" in page.url and "max_model_len=4096" in page.url
    assert_no_reload(page)


def test_a_bad_input_is_marked_in_place_and_cleared_when_fixed(context) -> None:
    page = context.new_page()
    open_live(page, "/calc", "calc-form")
    page.fill("#in-tensor_parallel_size", "3")
    expect(page.locator("#in-tensor_parallel_size")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#err-in-tensor_parallel_size")).to_contain_text("must be divisible")
    expect(page.locator("#calc-output .notice.error")).to_contain_text("Not calculated")
    page.fill("#in-tensor_parallel_size", "2")
    expect(page.locator("#err-in-tensor_parallel_size")).to_be_hidden()
    expect(page.locator("#in-tensor_parallel_size")).not_to_have_attribute("aria-invalid", "true")
    expect(figure(page, "kv_bytes_per_token")).to_have_text("72 KiB")  # 4 KV heads per rank
    assert_no_reload(page)


def test_vllms_refusal_appears_beside_the_field(context) -> None:
    page = context.new_page()
    open_live(page, "/calc", "calc-form")
    page.fill("#in-max_model_len", "40960")
    expect(page.locator("#ref-in-max_model_len")).to_contain_text("To serve at least one request with the model's "
                                                                  "max seq len (40960)")
    expect(page.locator("#calc-output .notice.refusal")).to_contain_text("vLLM would refuse to start")


def test_a_shared_url_reproduces_the_same_page(context) -> None:
    page = context.new_page()
    open_live(page, "/calc", "calc-form")
    page.select_option("#in-model", "meta-llama/Llama-3.1-8B-Instruct")
    page.select_option("#in-gpu", "H100-80GB-SXM")
    page.fill("#in-prompt_tokens", "2000")
    expect(page.locator("#share-link")).to_contain_text("H100-80GB-SXM")
    expect(page.locator("#share-link")).to_contain_text("prompt_tokens=2000")
    shown = page.locator("table.values").inner_text()
    other = context.new_page()
    other.goto(page.url)
    assert other.locator("table.values").inner_text() == shown
    expect(other.locator("#in-gpu")).to_have_value("H100-80GB-SXM")
    expect(other.locator("#in-prompt_tokens")).to_have_value("2000")


def test_the_calculator_works_without_javascript(new_context) -> None:
    context = new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto("/calc")
    expect(figure(page, "kv_bytes_per_token")).to_have_text("144 KiB")
    page.select_option("#in-kv_cache_dtype", "fp8")
    page.fill("#in-max_model_len", "-1")
    page.click("#calc-form button[type=submit]")
    expect(page.locator("#in-max_model_len")).to_have_attribute("aria-invalid", "true")
    assert page.url.endswith("/calc?model=Qwen%2FQwen3-8B&kv_cache_dtype=fp8&max_model_len=-1&gpu=L4"
                             "&prompt_tokens=512&output_tokens=128")
    page.fill("#in-max_model_len", "8192")
    page.click("#calc-form button[type=submit]")
    expect(figure(page, "kv_bytes_per_token")).to_have_text("72 KiB")


def test_a_pasted_config_is_computed_without_javascript(new_context) -> None:
    context = new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto("/calc")
    page.click("details.config-paste summary")
    page.fill("#in-config", CONFIG)
    page.click("#config-form button[type=submit]")
    expect(figure(page, "kv_bytes_per_token")).to_have_text("144 KiB")
    expect(page.locator("#group-model .notice")).to_contain_text("cannot be bookmarked")


def test_a_pasted_config_keeps_updating_in_place_with_javascript(context) -> None:
    page = context.new_page()
    open_live(page, "/calc", "calc-form")
    page.click("details.config-paste summary")
    page.fill("#in-config", CONFIG)
    page.click("#config-form button[type=submit]")
    page.wait_for_function("() => document.getElementById('calc-form').dataset.bound === '1'")
    expect(figure(page, "kv_bytes_per_token")).to_have_text("144 KiB")
    expect(page.locator("#in-gpu")).to_have_value("L4")  # the other inputs came along
    page.evaluate("window.__marker = 1")
    page.select_option("#in-kv_cache_dtype", "fp8")
    expect(figure(page, "kv_bytes_per_token")).to_have_text("72 KiB")
    assert_no_reload(page)


# --------------------------------------------------------------------------- /calc/compare


def test_compare_updates_in_place_and_keeps_every_scenario_in_the_url(context) -> None:
    page = context.new_page()
    open_live(page, "/calc/compare", "compare-form")
    expect(page.locator("#row-kv_bytes_per_token td")).to_have_text(["144 KiB", "128 KiB"])
    page.select_option("#in-b-kv_cache_dtype", "fp8")
    expect(page.locator("#row-kv_bytes_per_token td")).to_have_text(["144 KiB", "64 KiB"])
    assert "b.kv_cache_dtype=fp8" in page.url
    assert_no_reload(page)
    other = context.new_page()
    other.goto(page.url)
    expect(other.locator("#row-kv_bytes_per_token td")).to_have_text(["144 KiB", "64 KiB"])
    # 7 bar charts of the figures, and each scenario's decode and prefill bound charts.
    expect(other.locator("#compare-output svg.chart")).to_have_count(7 + 2 * 2)


def test_compare_works_without_javascript(new_context) -> None:
    context = new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto("/calc/compare")
    page.click("#add-scenario")
    expect(page.locator(".scenario-column")).to_have_count(3)
    page.select_option("#in-c-model", "meta-llama/Llama-3.2-3B-Instruct")
    page.click("#compare-form button[type=submit]")
    expect(page.locator("#row-kv_bytes_per_token td")).to_have_text(["144 KiB", "128 KiB", "112 KiB"])
    # The form's empty fields are not kept: the server sends the browser on to the scenario's own URL.
    assert page.url.endswith("/calc/compare?a.model=Qwen%2FQwen3-8B&b.model=meta-llama%2FLlama-3.1-8B-Instruct"
                             "&c.model=meta-llama%2FLlama-3.2-3B-Instruct&max_model_len=8192&gpu=L4&prompt_tokens=512"
                             "&output_tokens=128")


# --------------------------------------------------------------------------- /calc/log


def test_a_pasted_log_is_read_in_place(context) -> None:
    page = context.new_page()
    open_live(page, "/calc/log", "log-form")
    page.fill("#in-log", "hello, not a log")
    page.click("#log-form button[type=submit]")
    expect(page.locator("#err-in-log")).to_contain_text("not recognised as a vLLM startup log")
    expect(page.locator("#in-log")).to_have_attribute("aria-invalid", "true")
    page.fill("#in-log", SEED_LOG)
    page.click("#log-form button[type=submit]")
    expect(page.locator("#implied")).to_contain_text("147,171 – 147,719 B")
    expect(page.locator("#in-log")).not_to_have_attribute("aria-invalid", "true")
    assert_no_reload(page)
    page.click("#continue-link")
    expect(page.locator("#log-lines")).to_contain_text("GPU KV cache size: 24,096 tokens")


def test_the_log_reader_works_without_javascript(new_context) -> None:
    context = new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto("/calc/log")
    page.fill("#in-log", SEED_LOG)
    page.click("#log-form button[type=submit]")
    expect(page.locator("#implied")).to_contain_text("147,171 – 147,719 B")
    expect(page.locator("#compare-max_concurrency .agrees")).to_have_text("agrees")


# --------------------------------------------------------------------------- narrow screens


@pytest.mark.parametrize("path", ["/calc", "/calc/compare", "/calc/log",
                                  "/calc?model=google/gemma-3-12b-it&gpu=H100-80GB-SXM&free_memory_bytes=70GiB"])
def test_no_page_scrolls_sideways_at_390_px(new_context, path) -> None:
    context = new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(path)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
