"""PagedAttention's internal fragmentation, against arithmetic written out.

Qwen3-8B: 36 layers × 8 KV heads × 128 × 2 (K and V) × 2 bytes = 147,456 B per token (its config.json).
"""

import pytest

from quizapp.calc import calculate

BASE = {"model": "Qwen/Qwen3-8B", "pool_tokens": 24096, "max_model_len": 8192, "prompt_tokens": 3000,
        "output_tokens": 500}


def test_the_last_block_of_sixteen_leaves_four_slots_of_3500_tokens():
    result = calculate(BASE)
    # ⌈3,500 ÷ 16⌉ = 219 blocks = 3,504 slots; 3,504 − 3,500 = 4.
    assert result["last_block_empty_slots"] == 4
    assert result["fragmentation_share"] == pytest.approx(4 / 3504)


def test_a_block_of_128_leaves_84():
    result = calculate({**BASE, "block_size": 128})
    # ⌈3,500 ÷ 128⌉ = 28 blocks = 3,584 slots; 3,584 − 3,500 = 84.
    assert result["last_block_empty_slots"] == 84
    assert result["fragmentation_share"] == pytest.approx(84 / 3584)


def test_a_request_that_fills_its_blocks_wastes_none():
    result = calculate({**BASE, "prompt_tokens": 3200, "output_tokens": 0})
    assert result["last_block_empty_slots"] == 0
    assert result["fragmentation_share"] == 0


def test_every_attention_group_wastes_its_last_block():
    # gpt-oss-20b: one full and one sliding group, each with its own last block of the same 4 empty slots.
    result = calculate({"model": "openai/gpt-oss-20b", "kv_cache_memory_bytes": 10**10, "prompt_tokens": 3000,
                        "output_tokens": 500})
    held = result["blocks_per_user"]
    assert result["last_block_empty_slots"] == 4
    assert result["fragmentation_share"] == pytest.approx(2 * 4 / (held * 16))
