"""Pipeline parallelism: vLLM's layer split and the smallest stage's pool, with the arithmetic written out."""

import pytest

from quizapp.calc import CalcError, calculate
from quizapp.calc.sizing.pipeline import partition


@pytest.mark.parametrize("layers, stages, expected", [
    (80, 3, [27, 27, 26]),     # 26 each, 2 left over: partitions[-2] and [-3] get one (get_pp_indices)
    (32, 5, [6, 6, 7, 7, 6]),  # "remaining layers are evenly distributed across the middle partitions"
    (11, 4, [3, 3, 3, 2]),     # 3 left over = pp_size - 1: the first stage gets one too
    (32, 2, [16, 16]),
])
def test_layers_split_as_get_pp_indices_splits_them(layers, stages, expected):
    assert partition(layers, stages) == expected


# Llama-3.1-70B at TP 2 over 3 stages on H100 SXM (nvidia-smi total 81,559 MiB), gpu_memory_utilization 0.92.
LAYER = 2 * 8192 * 8192 + 2 * 8192 * 1024 + 3 * 8192 * 28672 + 2 * 8192  # q, o, k, v, MLP, 2 norms
EMBEDDINGS = 128256 * 8192
REQUESTED = -(-81559 * 2**20 * 92 // 100)  # vLLM rounds the request up: ⌈total × 0.92⌉


def test_each_stage_sizes_its_pool_and_every_stage_gets_the_fewest_blocks():
    result = calculate({"model": "meta-llama/Llama-3.1-70B-Instruct", "gpu": "H100-80GB-SXM", "tensor_parallel_size": 2,
                        "pipeline_parallel_size": 3, "max_model_len": 8192})
    # bf16 over TP 2: one byte per parameter per GPU; embed_tokens on the first, final norm and lm_head on the last.
    weights = [EMBEDDINGS + 27 * LAYER, 27 * LAYER, 26 * LAYER + 8192 + EMBEDDINGS]
    per_token = [27 * 4 * 128 * 2 * 2, 27 * 4 * 128 * 2 * 2, 26 * 4 * 128 * 2 * 2]  # 4 KV heads per rank
    blocks = [(REQUESTED - w) // (16 * b) for w, b in zip(weights, per_token)]
    assert result["stage_layers"] == [27, 27, 26]
    assert result["stage_weights_bytes"] == weights
    assert result["stage_kv_bytes_per_token"] == per_token
    assert result["stage_num_blocks"] == blocks
    assert result["num_blocks"] == min(blocks) == blocks[0]
    assert (result["kv_bytes_per_token"], result["weights_bytes"]) == (per_token[0], weights[0])


def test_a_pinned_pool_is_set_by_the_stage_with_the_most_bytes_per_block():
    result = calculate({"model": "meta-llama/Llama-3.1-8B-Instruct", "pipeline_parallel_size": 3,
                        "kv_cache_memory_bytes": 10**10})
    # 32 layers: 11 + 11 + 10; 8 KV heads × 128 × 2 × 2 B = 4,096 B per layer per token.
    assert result["stage_kv_bytes_per_token"] == [11 * 4096, 11 * 4096, 10 * 4096]
    assert result["num_blocks"] == 10**10 // (16 * 11 * 4096)


def test_pipeline_stages_are_sized_for_models_whose_layers_all_keep_every_token():
    with pytest.raises(CalcError) as refused:
        calculate({"model": "google/gemma-3-4b-it", "pipeline_parallel_size": 2})
    assert refused.value.field == "pipeline_parallel_size"
    with pytest.raises(CalcError) as refused:
        calculate({"model": "meta-llama/Llama-3.2-3B-Instruct", "pipeline_parallel_size": 29})  # 28 layers
    assert refused.value.field == "pipeline_parallel_size"
    with pytest.raises(CalcError):
        calculate({"kv_bytes_per_token": 1000, "pipeline_parallel_size": 2, "pool_tokens": 10000})


def test_data_parallel_spreads_a_moe_models_experts_and_not_a_dense_models_weights():
    moe = {"model": "Qwen/Qwen3-30B-A3B-Instruct-2507", "gpu": "H100-80GB-SXM", "tensor_parallel_size": 2}
    experts = 48 * 128 * 3 * 2048 * 768 * 2  # routed experts, bf16
    one, two = calculate(moe)["weights_bytes"], calculate({**moe, "data_parallel_size": 2})["weights_bytes"]
    assert one - two == pytest.approx(experts / 2 - experts / 4, abs=2)
    dense = {"model": "Qwen/Qwen3-8B", "gpu": "H100-80GB-SXM"}
    assert calculate(dense)["weights_bytes"] == calculate({**dense, "data_parallel_size": 4})["weights_bytes"]
