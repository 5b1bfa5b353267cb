"""Feasibility: whether the weights, the non-KV memory and the pool fit the scenario's GPU (issue 17).

Expected values come from the configs' parameter counts and the GPUs' memory, written out here:
the L4's 22.49 GiB is 24,148,000,000-odd bytes (nvidia-smi's 23,034 MiB); BF16 weights are two bytes a
parameter. vLLM's words are from ``vllm/v1/worker/gpu_model_runner.py`` (load_model's OOM handler)
and ``vllm/v1/core/kv_cache_planning.py`` (``_check_enough_kv_cache_memory``).
"""

import pytest

from quizapp.calc import calculate
from quizapp.calc.sizing.fit import candidate_sizes


def test_llama_405b_does_not_fit_one_l4_and_says_so_first():
    result = calculate({"model": "meta-llama/Llama-3.1-405B", "gpu": "L4"})
    fit = result.fit
    # 405.85e9 parameters × 2 B = 811.7e9 B = 755.96 GiB, the figure issue 17 quotes.
    assert fit.fits is False
    assert fit.verdict == "does not fit: 755.96 GiB of weights on one 22.49 GiB L4"
    assert result.checks[0]["check"] == "weights_fit"
    assert result.checks[0]["message"].startswith("Failed to load model - not enough GPU memory.")
    # 128 attention heads allow 2, 4, 8, 16, 32, 64, 128; 811.7e9 ÷ 32 = 25.4e9 B is more than the
    # L4's ~24.1e9, and ÷ 64 = 12.7e9 B fits with room for a pool.
    assert fit.min_tensor_parallel_size == 64
    assert fit.min_gpu_memory_bytes > 811.7e9
    assert "tensor_parallel_size 64" in fit.suggestion()
    assert "num_blocks" not in result.values  # no pool is sized on a GPU the weights do not fit


def test_a_model_that_fits_the_gpu_but_not_the_fraction_gets_vllms_no_memory_words():
    # Qwen3-30B-A3B: 30.5e9 parameters × 2 B = 61.1e9 B, more than the L4; at TP 2, 30.5e9 B per GPU is
    # still more than the L4's ~24.1e9 B; at TP 4, 15.3e9 B fits beneath 0.92 × 24.1e9 = 22.2e9 B.
    result = calculate({"model": "Qwen/Qwen3-30B-A3B-Instruct-2507", "gpu": "L4", "gpu_memory_utilization": 0.92})
    assert result.fit.check == "weights_fit"
    assert result.fit.min_tensor_parallel_size == 4
    fits_at_4 = calculate({"model": "Qwen/Qwen3-30B-A3B-Instruct-2507", "gpu": "L4",
                           "gpu_memory_utilization": 0.92, "tensor_parallel_size": 4})
    assert fits_at_4.fit.fits and fits_at_4.fit.verdict.startswith("fits: ")


def test_a_pin_beside_weights_that_overflow_the_gpu_does_not_fit():
    # Qwen3-8B's 16.4e9 B of weights + a 10e9 B pin = 26.4e9 B, more than the L4's ~24.1e9 B.
    result = calculate({"model": "Qwen/Qwen3-8B", "gpu": "L4", "kv_cache_memory_bytes": 10e9, "max_model_len": 8192})
    assert result.fit.check == "pool_fits"
    assert "KV pool need" in result.fit.verdict
    # At TP 2, 8.2e9 B + 10e9 B = 18.2e9 B fits.
    assert result.fit.min_tensor_parallel_size == 2
    assert result.fit.min_gpu_memory_bytes >= 26.4e9 - 0.1e9


def test_a_scenario_that_fits_has_no_suggestion_and_no_failing_check():
    result = calculate({"model": "Qwen/Qwen3-8B", "gpu": "L4", "max_model_len": 8192})
    assert result.fit.fits is True
    assert result.fit.suggestion() is None and result.fit.min_tensor_parallel_size is None
    assert all(c["ok"] for c in result.checks)


def test_without_a_gpu_there_is_nothing_to_fit():
    assert calculate({"model": "Qwen/Qwen3-8B", "kv_cache_memory_bytes": 10e9}).fit is None


def test_the_json_carries_the_verdict():
    data = calculate({"model": "meta-llama/Llama-3.1-405B", "gpu": "L4"}).to_json()
    assert data["fit"]["fits"] is False
    assert data["fit"]["min_tensor_parallel_size"] == 64
    assert data["fit"]["verdict"].startswith("does not fit")


@pytest.mark.parametrize("heads, tp, expected", [(32, 1, [2, 4, 8, 16, 32]), (64, 8, [16, 32, 64]), (40, 2, [4, 5, 8, 10, 20, 40])])
def test_the_sizes_searched_divide_the_attention_heads(heads, tp, expected):
    assert candidate_sizes(heads, tp) == expected


def test_the_search_tries_a_bounded_number_of_sizes():
    # 720,720 has 240 divisors; the search tries the first twelve above the current size.
    sizes = candidate_sizes(720_720, 1)
    assert len(sizes) == 12 and sizes[:4] == [2, 3, 4, 5]
