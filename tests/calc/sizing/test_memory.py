"""The GPU budget, the weights on it, the utilization ceiling and the tokens in flight."""

import pytest

from quizapp.calc import CalcError, calculate, fmt
from quizapp.calc.sizing.memory import batched_tokens_default

L4_TOTAL = 24_152_899_584


def test_l4_budget_in_current_vllm_rounds_the_request_up():
    result = calculate({"model": "Qwen/Qwen3-8B", "gpu": "L4"})
    assert result["total_memory_bytes"] == L4_TOTAL
    assert result["gpu_memory_utilization"] == 0.92
    assert result["requested_memory_bytes"] == 22_220_667_618
    assert result.values["requested_memory_bytes"].derivation == (
        "⌈24,152,899,584 B × 0.92⌉ = 22,220,667,618 B = 20.69 GiB")


def test_l4_budget_in_vllm_011_is_the_plain_product_of_09():
    result = calculate({"model": "Qwen/Qwen3-8B", "gpu": "L4", "vllm_version": "0.11"})
    assert result["gpu_memory_utilization"] == 0.9
    assert result["requested_memory_bytes"] == pytest.approx(L4_TOTAL * 0.9)


def test_weights_are_counted_and_compared_with_the_gpu():
    result = calculate({"model": "Qwen/Qwen3-8B", "gpu": "L4"})
    assert result["weights_bytes"] == 16_381_470_720
    assert result.values["memory_over_weights"].text == "1.47"


def test_given_weights_are_used_for_the_ratio():
    result = calculate({"model": "Qwen/Qwen3-8B", "gpu": "L4", "weights_bytes": 1_000_000_000})
    assert "weights_bytes" not in result.values
    assert result["memory_over_weights"] == pytest.approx(L4_TOTAL / 1e9)
    assert result["kv_cache_memory_bytes"] == 22_220_667_618 - 1_000_000_000


def test_zero_given_weights_give_no_ratio():
    result = calculate({"model": "Qwen/Qwen3-8B", "gpu": "L4", "weights_bytes": 0})
    assert "memory_over_weights" not in result.values
    assert result["kv_cache_memory_bytes"] == 22_220_667_618


def test_a_budget_without_a_gpu_is_refused():
    with pytest.raises(CalcError) as error:
        calculate({"model": "Qwen/Qwen3-8B", "gpu_memory_utilization": 0.9})
    assert error.value.field == "gpu"


def test_more_free_memory_than_the_gpu_has_is_refused():
    with pytest.raises(CalcError) as error:
        calculate({"model": "Qwen/Qwen3-8B", "gpu": "L4", "free_memory_bytes": L4_TOTAL + 1})
    assert error.value.field == "free_memory_bytes"


def test_the_ceiling_is_the_largest_fraction_whose_request_fits():
    free = 20 * fmt.GIB
    result = calculate({"model": "Qwen/Qwen3-8B", "gpu": "L4", "free_memory_bytes": free})
    ceiling = result["gpu_memory_utilization_ceiling"]
    assert ceiling == 0.8891
    assert L4_TOTAL * ceiling <= free < L4_TOTAL * (ceiling + 0.0001)
    assert next(c for c in result.checks if c["check"] == "free_memory")["ok"] is False


@pytest.mark.parametrize("total, name, batched", [
    (None, "", 2_048),
    (24_152_899_584, "NVIDIA L4", 2_048),
    (85_520_809_984, "NVIDIA H100 80GB HBM3 (SXM)", 8_192),
    (85_520_809_984, "NVIDIA A100-SXM4-80GB", 2_048),
    (192 * 2**30, "NVIDIA B200", 16_384),
])
def test_batched_tokens_default_follows_vllm_serve(total, name, batched):
    assert batched_tokens_default(total, name)[0] == batched


def test_a_sliding_model_shows_the_tokens_in_flight():
    result = calculate({"model": "google/gemma-2-9b-it", "gpu": "H100-80GB-SXM", "max_model_len": 8192})
    assert result["max_num_batched_tokens"] == 8_192
    assert result["in_flight_tokens"] == 16_384
    assert result.values["in_flight_tokens"].derivation == \
        "2 batches in flight × 8,192 tokens = 16,384 (vLLM 0.33: async scheduling, on by default)"


def test_a_full_attention_model_has_nothing_in_flight_to_show():
    result = calculate({"model": "Qwen/Qwen3-8B", "max_model_len": 8192})
    assert "in_flight_tokens" not in result.values
