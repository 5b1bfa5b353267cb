"""The profile run's activation floor, held to arithmetic written out from the configs.

Shapes from the models' config.json (Llama-3.1-8B: hidden 4,096, intermediate 14,336, vocab
128,256; Qwen3-8B: hidden 4,096, intermediate 12,288, vocab 151,936), the tokens and requests from
vLLM's `vllm serve` defaults (engine/arg_utils.py get_batch_defaults: 8,192 tokens and 1,024
sequences on an H100 80GB, 2,048 and 256 on an L4) and the dummy requests from
GPUModelRunner._dummy_run (num_reqs = min(num_tokens, max_num_seqs)).
"""

import pytest

from quizapp.calc import calculate

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def test_llama_on_an_h100_uses_the_server_defaults():
    result = calculate({"model": LLAMA, "gpu": "H100-80GB-SXM"})
    assert result["profile_tokens"] == 8192
    assert result["profile_requests"] == 1024
    # 8,192 × (4,096 + 3 × 14,336) × 2 B
    assert result["profile_mlp_bytes"] == 8192 * 47104 * 2 == 771_751_936
    # 8,192 × 4,096 × 2 B + 1,024 × 128,256 × (2 + 4) B
    assert result["profile_logits_bytes"] == 67_108_864 + 788_004_864
    assert result["profile_activation_bytes"] == 855_113_728


def test_the_mlp_splits_over_tensor_parallel_ranks_and_the_logits_do_not():
    result = calculate({"model": LLAMA, "gpu": "H100-80GB-SXM", "tensor_parallel_size": 2})
    # 8,192 × (4,096 + 3 × 7,168) × 2 B
    assert result["profile_mlp_bytes"] == 8192 * 25600 * 2
    assert result["profile_logits_bytes"] == 855_113_728


def test_a_larger_token_budget_grows_the_mlp_floor_in_proportion():
    result = calculate({"model": LLAMA, "gpu": "H100-80GB-SXM", "max_num_batched_tokens": 32768})
    assert result["profile_mlp_bytes"] == 4 * 771_751_936
    # 32,768 × 4,096 × 2 B + 1,024 × 128,256 × 6 B
    assert result["profile_logits_bytes"] == 268_435_456 + 788_004_864
    assert result["profile_activation_bytes"] == 4 * 771_751_936


def test_fewer_sequences_shrink_the_logits():
    result = calculate({"model": "Qwen/Qwen3-8B", "gpu": "L4"})
    assert (result["profile_tokens"], result["profile_requests"]) == (2048, 256)
    # 2,048 × (4,096 + 3 × 12,288) × 2 B; 2,048 × 4,096 × 2 B + 256 × 151,936 × 6 B
    assert result["profile_mlp_bytes"] == 2048 * 40960 * 2 == 167_772_160
    assert result["profile_logits_bytes"] == 16_777_216 + 233_373_696
    assert result["profile_activation_bytes"] == 250_150_912


def test_requests_never_exceed_the_tokens():
    result = calculate({"model": LLAMA, "gpu": "H100-80GB-SXM", "max_num_batched_tokens": 512,
                        "max_num_seqs": 1024})
    assert result["profile_requests"] == 512


@pytest.mark.parametrize("scenario", [
    {"model": "Qwen/Qwen3-30B-A3B-Instruct-2507", "gpu": "H100-80GB-SXM"},  # experts: a kernel of their own
    {"model": LLAMA, "kv_cache_memory_bytes": 10**10},  # no GPU: vLLM's defaults unknown
])
def test_no_floor_without_a_dense_model_on_a_gpu(scenario):
    assert "profile_activation_bytes" not in calculate(scenario).values
