"""vLLM's start checks and refusals, in the words of the chosen release."""

from quizapp.calc import calculate, fmt
from quizapp.calc.sizing.refusals import DOCS_LINK, free_memory_text, no_memory_text
from quizapp.calc.versions import rules_for

QWEN3_8B = "Qwen/Qwen3-8B"
BLOCK = 16 * 147_456  # Qwen3-8B, bf16: bytes of one 16-token block


def one_request_check(data):
    result = calculate(data)
    return result, next(c for c in result.checks if c["check"] == "one_request_fits")


def test_the_l4_budget_cannot_hold_one_request_of_40960_tokens():
    result, check = one_request_check({"model": QWEN3_8B, "gpu": "L4"})
    assert check["needed_bytes"] == 2_560 * BLOCK == 6_039_797_760
    assert check["available_bytes"] == 5_839_196_898 - BLOCK  # current vLLM keeps the null block back
    assert result["max_model_len_estimate"] == 39_568
    assert check["message"] == (
        "To serve at least one request with the model's max seq len (40960), (5.62 GiB KV cache is needed, "
        "which is larger than the available KV cache memory (5.44 GiB). Based on the available memory, the "
        "estimated maximum model length is 39568. Try increasing `gpu_memory_utilization` (which also controls "
        "CPU memory on the CPU backend) or decreasing `max_model_len` when initializing the engine." + DOCS_LINK)


def test_vllm_011_words_it_without_the_cpu_note_or_the_link():
    result, check = one_request_check({"model": QWEN3_8B, "gpu": "L4", "vllm_version": "0.11"})
    assert check["available_bytes"] == result["kv_cache_memory_bytes"] == 5_356_138_905
    assert check["message"].endswith("estimated maximum model length is 36320. Try increasing "
                                     "`gpu_memory_utilization` or decreasing `max_model_len` when initializing "
                                     "the engine.")


def test_one_block_is_all_null_block_in_current_vllm_and_enough_in_024():
    pinned = {"model": QWEN3_8B, "kv_cache_memory_bytes": BLOCK, "max_model_len": 16}
    result, check = one_request_check(pinned)
    assert check["available_bytes"] == 0
    assert check["message"] == no_memory_text(rules_for(None))
    assert result["max_model_len_estimate"] == 0
    result, check = one_request_check({**pinned, "vllm_version": "0.24"})
    assert check["ok"] and check["message"] is None
    assert result["max_model_len_estimate"] == 16


def test_no_check_without_max_model_len_or_a_pool():
    assert calculate({"kv_bytes_per_token": 55_011, "kv_cache_memory_bytes": 10**10}).checks == []
    assert calculate({"model": QWEN3_8B}).checks == []


def test_no_memory_text_gains_the_cpu_note_and_the_link_in_current_vllm():
    assert no_memory_text(rules_for("0.24")) == ("No available memory for the cache blocks. Try increasing "
                                                 "`gpu_memory_utilization` when initializing the engine.")
    current = no_memory_text(rules_for(None))
    assert "despite its name)." in current and current.endswith(DOCS_LINK)


def test_free_memory_text_names_the_device_from_014_and_rounds_like_vllm():
    free, total = 30.85 * fmt.GIB, 31.36 * fmt.GIB
    assert free_memory_text(free, total, 0.99, total * 0.99, rules_for("0.11")) == (
        "Free memory on device (30.85/31.36 GiB) on startup is less than desired GPU memory utilization "
        "(0.99, 31.05 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.")
    assert free_memory_text(free, total, 0.99, total * 0.99, rules_for("0.14")).startswith(
        "Free memory on device cuda:0 (30.85/31.36 GiB)")
