"""The sentences issue 17 found false, rendered under the scenarios where they were false.

Each test loads the shipped card, renders every stage under the named scenario and asserts the
fixed sentence, from an independent source: vLLM's source (named) or the reference page (seed
``000_0d66b2ca2e932d5e.txt``), or arithmetic written out here.
"""

import re

import pytest

from quizapp.cards import load_card
from quizapp.cards.check.renders import plain_text
from quizapp.cards.scenario import resolve_scenario
from quizapp.cards.template.limits import render_budget
from quizapp.cards.visibility import card_view

from tests.paths import QUESTIONS


def rendered(card_id: str, variant: str | None = None, **overrides) -> str:
    """Every stage of the card, as plain text, in one scenario (a variant by name, and overrides)."""
    path = QUESTIONS / f"{card_id}.md"
    with render_budget(120):  # the checker's budget, not a request's: this machine may be loaded
        card = load_card(path, str(path))
        index = None if variant is None else [v.name for v in card.variants].index(variant)
        scenario = resolve_scenario(card, index, overrides)
        stages = {"short", "full", "wrong", "taught"} | {f"followup-{i}" for i in range(1, 10)} | {
            f"followup-{i}-answer" for i in range(1, 10)}
        view = card_view(card, scenario, stages, in_order=False)
    parts = [view.question_html] + [s.html for s in view.stages if s.html]
    return re.sub(r"\s+", " ", plain_text("\n".join(parts)))


def test_fp8_counts_exactly_twice_are_not_called_close_to_the_ratio():
    # Llama 3.1 70B, TP 4, a 60e9 B pin on a B200: 80 layers × 2 KV heads per rank × 128 × 2 × 2 B =
    # 81,920 B per token in BF16, 40,960 in FP8; 60e9 ÷ (16 × 81,920) = 45,776.4 blocks and
    # 60e9 ÷ (16 × 40,960) = 91,552.7: 45,776 and 91,552 blocks, exactly 2× (the 0.4 is under half).
    text = rendered("kv-fp8-cache")
    assert "not exactly at it" not in text
    assert "stand exactly in the ratio of the bytes per token" in text


def test_fp8_ds_mla_is_not_said_to_be_only_deepseek_v32():
    # vllm/model_executor/models/deepseek_v4.py converts an fp8 cache to "fp8_ds_mla" on the FlashMLA
    # sparse backend; the reference page's DeepSeek-V4-Flash row is "vLLM, fp8_ds_mla".
    text = rendered("kv-fp8-cache")
    assert "only for sparse MLA (DeepSeek-V3.2)" not in text
    assert "DeepSeek-V4" in text and "FlashInfer" in text


def test_a_smaller_kv_type_saves_at_most_40_percent_as_the_page_says():
    text = rendered("measured-vs-published-bytes-per-token")
    assert "could at most halve it" not in text
    assert "40 % per token at most" in text  # seed: "A smaller KV type saves at most 40 % per token here"


@pytest.mark.parametrize("variant", [None, "3 speculative tokens", "2 speculative tokens"])
def test_the_drafters_layers_are_the_same_only_for_a_single_module_drafter(variant):
    text = rendered("speculative-decoding-shares-the-pool", variant)
    assert "the drafter has the same layers whether it proposes two tokens or four" not in text
    assert "A drafter of one module" in text and "num_speculative_tokens − 1" in text


# kv-bytes-per-token-sets-the-pool was merged into measured-vs-published-bytes-per-token (issue 20).
@pytest.mark.parametrize("card_id, variant", [("measured-vs-published-bytes-per-token", "The 10e9 B pin that served"),
                                              ("deepseek-v4-flash-spark-pins", None)])
def test_the_logged_181777_is_the_measured_answer_and_an_odd_log_is_explained(card_id, variant):
    # 10e9 B ÷ (16 × 55,011 B) = 11,361.9 → 11,361 blocks × 16 = 181,776 derived; the log printed 181,777,
    # which no whole number of 16-token blocks gives (181,777 ÷ 16 = 11,361.06).
    text = rendered(card_id, variant)
    assert "181,777" in text and "181,776" in text
    assert "need not be a whole number of 16-token blocks" in text


def test_no_card_says_the_next_request_evicts_a_freed_prefix():
    # vllm/v1/core/block_pool.py: get_new_blocks pops from the front of FreeKVCacheBlockQueue, where
    # the blocks freed longest ago sit; freed blocks are appended at its end. (kv-pool-tokens-for-seats,
    # which said otherwise, was merged into kv-pool-users by issue 20.)
    for path in QUESTIONS.glob("*.md"):
        assert "the next request that\nneeds a free block takes them" not in path.read_text()
        assert "next request that needs a free block takes them" not in path.read_text().replace("\n", " ")
    assert "least recently" in rendered("prefix-cache-eviction-under-load")


@pytest.mark.parametrize("variant", [None, "The 16e9 B pin of gen 234"])
def test_the_unified_memory_pin_chain_keeps_one_unit_and_names_no_fraction_the_page_lacks(variant):
    # unified-memory-pin-from-warm-up was merged into deepseek-v4-flash-spark-pins (issue 20).
    text = rendered("deepseek-v4-flash-spark-pins", variant)
    assert "GB − (" not in text  # no GB − (GiB − GiB) chain
    assert "at vLLM's default of" not in text  # the page does not give the pair's fraction
    # 115.1 GiB − 114.5 GiB = 0.6 GiB = 0.644 GB; 10 GB − 0.64 GB = 9.36 GB.
    assert "0.6 GiB, that is 0.64 GB" in text and "10 GB − 0.64 GB = 9.36 GB" in text


@pytest.mark.parametrize("variant", ["Mistral 7B, short prompts", "Llama 3.1 8B on the same pool"])
def test_a_measured_pool_carried_to_another_model_says_it_keeps_the_bytes(variant):
    text = rendered("kv-pool-users", variant)
    assert "On the L4, the pool of" not in text
    assert "With the same bytes as the pool measured with Qwen3-8B on the L4" in text


@pytest.mark.parametrize("variant, rule", [(None, None), ("Llama 3.1 8B on the same pool", None)])
def test_fp8_weights_free_memory_for_the_cache_only_under_the_fraction_rule(variant, rule):
    text = rendered("kv-pool-users", variant)
    assert "Use FP8 weights to free memory that the cache can then take" not in text
    assert "--gpu-memory-utilization" in text


def test_fp8_weights_free_memory_for_the_cache_under_the_fraction_rule():
    path = QUESTIONS / "kv-pool-users.md"
    with render_budget(120):
        card = load_card(path, str(path))
        scenario = resolve_scenario(card, None, {}, "fraction")
        text = plain_text(card_view(card, scenario, {"short", "full"}).stage("full").html)
    assert "Use FP8 weights to free memory that the cache can then take" in text


def test_the_default_fraction_is_dated_as_the_releases_read_date_it():
    # quizapp/calc/versions.py reads 0.9 in 0.18 and 0.92 in 0.20 (the releases sampled): the change
    # lies in 0.19 or 0.20, not "before 0.20".
    text = rendered("kv-pin-start-check")
    assert "0.9 before vLLM 0.20" not in text and "0.9 in 0.18 and earlier" in text


def test_the_one_line_log_is_not_dated_more_firmly_than_the_releases_read():
    # reading-the-kv-startup-lines, which said "earlier releases print two lines", was merged by issue 20.
    for path in QUESTIONS.glob("*.md"):
        assert "earlier releases print two lines" not in path.read_text()


def test_the_sliding_window_card_says_it_takes_vllm_serves_batch_budget():
    text = rendered("kv-sliding-window-concurrency")
    assert "`vllm serve` gives this GPU" in text or "vllm serve gives this GPU" in text


@pytest.mark.parametrize("card_id", ["kv-pool-users", "kv-sliding-window-concurrency"])
def test_the_token_count_from_concurrency_is_dated_between_the_releases_read(card_id):
    # docs/research/vllm-kv.md §9: 0.20 logs (blocks // groups) × block size, 0.22 int(concurrency × L).
    text = rendered(card_id)
    assert "0.21 or 0.22" in text
