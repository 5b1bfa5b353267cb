"""The KV pool: from tokens, bytes or the GPU budget; the log line vLLM prints; the users it holds."""

import pytest

from quizapp.calc import CalcError, calculate

QWEN3_8B = "Qwen/Qwen3-8B"
BLOCK = 16 * 147_456  # Qwen3-8B, bf16: bytes of one 16-token block


def test_the_l4_budget_leaves_a_pool_of_2474_blocks():
    result = calculate({"model": QWEN3_8B, "gpu": "L4"})
    assert result["kv_cache_memory_bytes"] == 22_220_667_618 - 16_381_470_720 == 5_839_196_898
    assert result["num_blocks"] == 5_839_196_898 // BLOCK == 2_474
    assert result["pool_tokens"] == 39_584  # int(2,474 ÷ 2,560 × 40,960), at the model's 40,960 tokens
    assert result["pool_tokens_plain"] == 39_599
    assert result.values["max_concurrency"].text == "0.97x"
    assert result["log_line"] == ("GPU KV cache size: 39,584 tokens, Maximum concurrency for 40,960 tokens per "
                                  "request: 0.97x")


@pytest.mark.parametrize("inputs, weights", [
    ({}, "16,381,470,720 B weights (counted from the config)"),
    ({"weights_bytes": 16_381_470_720}, "16,381,470,720 B weights (given)"),
])
def test_the_budget_pool_says_where_its_weights_come_from(inputs, weights):
    derivation = calculate({"model": QWEN3_8B, "gpu": "L4", **inputs}).values["kv_cache_memory_bytes"].derivation
    assert derivation.startswith(f"22,220,667,618 B requested − {weights} − 0 B non-KV memory")
    assert "= 5,839,196,898 B" in derivation  # 22,220,667,618 − 16,381,470,720


def test_vllm_011_logs_whole_blocks_on_two_lines():
    result = calculate({"model": QWEN3_8B, "gpu": "L4", "vllm_version": "0.11"})
    assert result["num_blocks"] == 2_270
    assert result["pool_tokens"] == 2_270 * 16
    assert result["log_line"] == ("GPU KV cache size: 36,320 tokens\n"
                                  "Maximum concurrency for 40,960 tokens per request: 0.89x")


def test_a_pool_in_tokens_is_the_least_memory_that_gives_its_blocks():
    result = calculate({"model": QWEN3_8B, "pool_tokens": 24_096, "vllm_version": "0.20"})
    assert result["num_blocks"] == 1_506
    assert result["kv_cache_memory_bytes"] == 1_506 * BLOCK
    assert result.values["max_concurrency"].text == "0.59x"


def test_current_vllm_reads_a_pool_in_tokens_through_max_model_len():
    with pytest.raises(CalcError) as error:
        calculate({"kv_bytes_per_token": 55_011, "pool_tokens": 24_096})
    assert error.value.field == "max_model_len"


def test_a_pool_under_one_block_is_refused():
    with pytest.raises(CalcError) as error:
        calculate({"model": QWEN3_8B, "pool_tokens": 15, "max_model_len": 8192})
    assert error.value.field == "pool_tokens"
    with pytest.raises(CalcError) as error:
        calculate({"model": QWEN3_8B, "kv_cache_memory_bytes": BLOCK - 1})
    assert error.value.field == "kv_cache_memory_bytes"


def test_no_pool_no_blocks_but_a_user_still_has_tokens():
    result = calculate({"model": QWEN3_8B, "prompt_tokens": 1_000, "output_tokens": 200})
    assert "num_blocks" not in result.values
    assert result["tokens_per_user"] == 1_200
    assert "users_fit" not in result.values


def test_users_fit_in_whole_blocks_without_the_null_block():
    result = calculate({"model": QWEN3_8B, "pool_tokens": 24_096, "max_model_len": 8192,
                        "prompt_tokens": 1_000, "output_tokens": 200})
    assert result["blocks_per_user"] == 75
    assert result["users_fit"] == (1_506 - 1) // 75 == 20
    assert result.values["user_concurrency"].text == "20.08x"


@pytest.mark.parametrize("data", [
    {"output_tokens": 200},
    {"prompt_tokens": 8_000, "output_tokens": 200, "max_model_len": 8_192},
])
def test_a_user_needs_a_prompt_that_fits_max_model_len(data):
    with pytest.raises(CalcError) as error:
        calculate({"model": QWEN3_8B, **data})
    assert error.value.field == "prompt_tokens"


def test_the_kept_block_plan_follows_the_block_size():
    """A model's block plan is kept per layout (quizapp.lru.per_object): asked in turns at block sizes
    16 and 32, each gets its own. Qwen3-8B stores 36 layers × 8 KV heads × 128 dims × 2 (K and V)
    × 2 bytes = 147,456 B per token, so a block of 16 tokens is 2,359,296 B and one of 32 twice that."""
    for _ in range(2):
        for block_size in (16, 32):
            result = calculate({"model": "Qwen/Qwen3-8B", "block_size": block_size, "pool_tokens": 20_000})
            assert result["bytes_per_block"] == 147_456 * block_size
