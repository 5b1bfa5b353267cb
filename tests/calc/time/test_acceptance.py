"""Issue 19's acceptance scenario: Llama-3.1-70B-Instruct on H100 SXM at tensor_parallel_size 4.

Every expected value is computed here from the model's config.json (hidden_size 8,192, 80 layers,
64 heads of 128, 8 KV heads, intermediate_size 28,672, vocab_size 128,256, untied, bfloat16) and
the GPU's sources (NVIDIA's H100 page: 3.35 TB/s, NVLink 900 GB/s both ways; the Hopper
whitepaper: BF16 dense 989.4 TFLOP/s), the arithmetic written out, not copied from the code.
"""

import json

import pytest

from quizapp.calc import calculate
from tests.cli.test_cli import run

SCENARIO = {"model": "meta-llama/Llama-3.1-70B-Instruct", "gpu": "H100-SXM", "tensor_parallel_size": 4}

TP, LAYERS, HIDDEN, HEADS, HEAD_DIM, KV_HEADS, FFN, VOCAB = 4, 80, 8192, 64, 128, 8, 28672, 128256
BANDWIDTH, BF16, LINK = 3.35e12, 989.4e12, 900e9 / 2
EMBEDDINGS = VOCAB * HIDDEN                                             # 1,050,673,152
ATTENTION = HIDDEN * HEADS * HEAD_DIM * 2 + HIDDEN * KV_HEADS * HEAD_DIM * 2  # q, o + k, v: 150,994,944
MLP = 3 * HIDDEN * FFN                                                   # gate, up, down: 704,643,072
NORMS = 2 * HIDDEN * LAYERS + HIDDEN
PARAMS = EMBEDDINGS * 2 + LAYERS * (ATTENTION + MLP) + NORMS             # 70,553,706,496
HELD = PARAMS * 2 // TP                                                  # bf16 on one GPU
READ = HELD - EMBEDDINGS * 2 // TP                                       # a step looks up only its tokens' rows
MATMUL = 2 * (LAYERS * (ATTENTION + MLP) + EMBEDDINGS) / TP              # FLOPs per token: layers and lm_head
PROMPT, OUTPUT = 1024, 256                                               # no lengths given: the default request
CONTEXT = PROMPT + OUTPUT // 2                                           # the decode steps' mean context
KV_PER_TOKEN = LAYERS * (KV_HEADS // TP) * HEAD_DIM * 2 * 2              # K and V, bf16: 81,920 B
ATTENTION_FLOPS = 2 * CONTEXT * (HEAD_DIM + HEAD_DIM) * (HEADS // TP) * LAYERS  # QK and PV over the context
MEMORY = (READ + CONTEXT * KV_PER_TOKEN) / BANDWIDTH
COMPUTE = (MATMUL + ATTENTION_FLOPS) / BF16
PAIRS = PROMPT * (PROMPT + 1) / 2
LM_HEAD = 2 * EMBEDDINGS / TP                                           # logits for the last prompt token only
PREFILL_FLOPS = PROMPT * (MATMUL - LM_HEAD) + LM_HEAD + 2 * PAIRS * (HEAD_DIM + HEAD_DIM) * (HEADS // TP) * LAYERS
PREFILL = max(PREFILL_FLOPS / BF16, (READ + PROMPT * KV_PER_TOKEN) / BANDWIDTH)
ALL_REDUCE = (2 * LAYERS + 1) * HIDDEN * 2 * 2 * (TP - 1) / TP

EXPECTED = {
    "num_parameters": PARAMS,
    "active_parameters": PARAMS,  # dense
    "embeddings_bytes": EMBEDDINGS * 2 / TP,
    "attention_bytes": LAYERS * ATTENTION * 2 / TP,
    "mlp_bytes": LAYERS * MLP * 2 / TP,
    "experts_bytes": 0,
    "lm_head_bytes": EMBEDDINGS * 2 / TP,
    "weights_bytes": HELD,
    "decode_batch": 1,
    "decode_context_tokens": CONTEXT,
    "memory_bandwidth": BANDWIDTH,
    "peak_flops": BF16,
    "compute_dtype": "bf16",
    "decode_weight_bytes": READ,
    "decode_kv_bytes": CONTEXT * KV_PER_TOKEN,
    "decode_memory_seconds": MEMORY,
    "decode_compute_seconds": COMPUTE,
    "decode_step_seconds": MEMORY,  # memory-bound at batch 1
    "decode_tokens_per_second": 1 / MEMORY,
    "decode_throughput": 1 / MEMORY,
    "decode_throughput_ceiling": 1 / max(CONTEXT * KV_PER_TOKEN / BANDWIDTH, COMPUTE),
    "critical_batch": (READ / BANDWIDTH) / (MATMUL / BF16),  # ≈ 295: 989.4 / 3.35 × 2 B ÷ 2 FLOPs
    "prefill_flops": PREFILL_FLOPS,
    "prefill_seconds": PREFILL,
    "ttft_seconds": PREFILL,
    "e2e_seconds": PREFILL + (OUTPUT - 1) * MEMORY,
    "tp_all_reduce_bytes_per_token": ALL_REDUCE,
    "tp_all_reduce_seconds": ALL_REDUCE / LINK,
}


@pytest.fixture(scope="module")
def result():
    return calculate(SCENARIO)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_each_value_is_the_independent_arithmetic(result, name):
    expected = EXPECTED[name]
    if isinstance(expected, str):
        assert result[name] == expected
    else:
        assert result[name] == pytest.approx(expected, rel=1e-9, abs=1)


def test_the_knee_is_the_scaling_book_figure(result):
    # 989.4e12 FLOP/s ÷ 3.35e12 B/s × 2 B per weight ÷ 2 FLOPs per weight ≈ 295, less a hair for the
    # embedding table a step does not read and the lm_head it multiplies by.
    assert 290 < result["critical_batch"] < 300


def test_every_time_value_says_it_is_a_bound(result):
    for name in ("decode_step_seconds", "prefill_seconds", "ttft_seconds", "e2e_seconds"):
        assert "a lower bound from the spec sheet" in result.values[name].derivation, name
    for name in ("decode_tokens_per_second", "decode_throughput", "decode_throughput_ceiling"):
        assert "an upper bound from the spec sheet" in result.values[name].derivation, name


def test_the_acceptance_command_prints_every_value_with_its_derivation(capsys):
    code, out, _ = run(capsys, "calc", "--model", "meta-llama/Llama-3.1-70B-Instruct", "--gpu", "H100-SXM",
                       "--tensor-parallel-size", "4", "--json")
    assert code == 0
    data = json.loads(out)
    for name, expected in EXPECTED.items():
        assert name in data and data["derivations"][name], name
        if not isinstance(expected, str):
            assert data[name] == pytest.approx(expected, rel=1e-9, abs=1), name
