"""sizing/shared_prefix.py against vLLM's prefix-caching rules, with the arithmetic written out.

vllm/v1/core/kv_cache_manager.py get_computed_blocks: only full blocks hit, and a hit stops at
num_tokens - 1; block_pool.py touch: a hit block is shared (ref_cnt + 1), not copied;
single_type_kv_cache_manager.py free and block_pool.py get_new_blocks: freed blocks keep their hash
in the free queue until a new allocation pops them.
"""

import pytest

from quizapp.calc import CalcError, calculate

# Qwen3-8B: 36 layers × 8 KV heads × 128 × 2 × 2 B = 147,456 B a token; a block of 16 tokens is 2,359,296 B.
# A pin of 10e9 B holds ⌊10,000,000,000 ÷ 2,359,296⌋ = 4,238 blocks.
BASE = {"model": "Qwen/Qwen3-8B", "kv_cache_memory_bytes": 10**10, "max_model_len": 8192,
        "prompt_tokens": 2000, "output_tokens": 200, "cached_prefix_tokens": 1000}


def test_only_full_blocks_of_the_prefix_are_shared():
    result = calculate(BASE)
    assert result["prefix_blocks"] == 62  # ⌊1,000 ÷ 16⌋; the last 8 tokens' block is the request's own
    assert result["prefix_hit_tokens"] == 992  # 62 × 16


def test_users_that_share_the_prefix_hold_its_blocks_once():
    result = calculate(BASE)
    assert result["num_blocks"] == 4238
    assert result["blocks_per_user"] == 138  # ⌈2,200 ÷ 16⌉
    assert result["users_fit"] == 30  # ⌊4,237 ÷ 138⌋
    assert result["users_fit_shared_prefix"] == 54  # ⌊(4,237 − 62) ÷ (138 − 62)⌋ = ⌊4,175 ÷ 76⌋


def test_a_whole_prompt_cached_still_computes_its_last_token():
    result = calculate({**BASE, "cached_prefix_tokens": 2000})
    assert result["prefix_blocks"] == 124  # ⌊(2,000 − 1) ÷ 16⌋ = ⌊1,999 ÷ 16⌋


def test_the_free_blocks_keep_the_prefixes_that_running_requests_leave_room_for():
    result = calculate({**BASE, "batch_size": 20})
    assert result["prefix_cache_room_blocks"] == 1477  # 4,238 − 1 − 20 × 138
    assert result["prefixes_kept"] == 23  # ⌊1,477 ÷ 62⌋


def test_no_room_values_when_the_running_requests_overfill_the_pool():
    result = calculate({**BASE, "batch_size": 31})  # 31 × 138 = 4,278 > 4,237
    assert "prefixes_kept" not in result.values
    assert "users_fit_shared_prefix" in result.values


def test_a_prefix_longer_than_the_prompt_is_refused_naming_the_field():
    with pytest.raises(CalcError) as refused:
        calculate({**BASE, "cached_prefix_tokens": 2001})
    assert refused.value.field == "cached_prefix_tokens"


def test_a_sliding_window_model_is_left_out():
    result = calculate({**BASE, "model": "google/gemma-3-4b-it"})
    assert "prefix_blocks" not in result.values
