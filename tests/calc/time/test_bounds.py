"""The time bounds beyond the acceptance scenario: mixture-of-experts reads, weight formats and the
dtype they compute in, a GPU without a published rate, the batch cap, pipeline stages, the link an
all-reduce crosses. Expected values are worked out here from the configs and the spec sheets."""

import pytest

from quizapp.calc import CalcError, calculate

H100_BW, H100_BF16, H100_FP8 = 3.35e12, 989.4e12, 3958e12 / 2  # H100 page: FP8 3,958 with sparsity

# Qwen3-30B-A3B: 48 layers, hidden 2,048, 32 heads and 4 KV heads of 128, 128 experts of 768 (top 8),
# q_norm and k_norm, vocab 151,936, untied.
Q_ATTENTION = 2048 * 4096 * 2 + 2048 * 512 * 2
Q_LAYER_DENSE = Q_ATTENTION + 2 * 128 + 128 * 2048 + 2 * 2048  # attention, q/k norms, router, 2 norms
Q_EXPERTS = 48 * 128 * 3 * 2048 * 768
Q_READ_DENSE = (48 * Q_LAYER_DENSE + 2048 + 151936 * 2048) * 2  # + final norm and lm_head, bf16; no embed table


@pytest.mark.parametrize("batch", [1, 8, 64])
def test_a_moe_step_reads_the_experts_its_batch_is_expected_to_touch(batch):
    result = calculate({"model": "Qwen/Qwen3-30B-A3B-Instruct-2507", "gpu": "H100-80GB-SXM", "batch_size": batch})
    touched = 1 - (1 - 8 / 128) ** batch  # uniform routing: 8/128 at one token, toward all of them
    assert result["decode_weight_bytes"] == pytest.approx(Q_READ_DENSE + Q_EXPERTS * 2 * touched, abs=2)
    assert "uniform routing" in result.values["decode_weight_bytes"].derivation


def test_active_parameters_are_what_the_model_card_says():
    result = calculate({"model": "Qwen/Qwen3-30B-A3B-Instruct-2507"})
    # Qwen's card: "30.5B in total and 3.3B activated".
    assert result["num_parameters"] == pytest.approx(30.5e9, rel=0.01)
    assert result["active_parameters"] == pytest.approx(3.3e9, rel=0.02)
    assert result["experts_bytes"] == Q_EXPERTS * 2


# Llama-3.1-8B: 32 layers, hidden 4,096, 32 heads and 8 KV heads of 128, MLP 14,336, vocab 128,256, untied.
L_LINEAR = 32 * (4096 * 4096 * 2 + 4096 * 1024 * 2 + 3 * 4096 * 14336)
L_VOCAB = 128256 * 4096
L_NORMS = 32 * 2 * 4096 + 4096


def test_fp8_weights_compute_in_fp8_on_hopper_and_in_bf16_on_ampere():
    hopper = calculate({"model": "meta-llama/Llama-3.1-8B-Instruct", "gpu": "H100-80GB-SXM", "weights_dtype": "fp8"})
    read = L_LINEAR * 1 + (L_VOCAB + L_NORMS) * 2  # fp8 linear layers, lm_head and norms kept bf16
    # The knee: weights' read time over one token's matrix work (linear in FP8, lm_head in BF16).
    matmul = 2 * L_LINEAR / H100_FP8 + 2 * L_VOCAB / H100_BF16
    assert hopper["compute_dtype"] == "fp8"
    assert hopper["critical_batch"] == pytest.approx(read / H100_BW / matmul, rel=1e-9)
    ampere = calculate({"model": "meta-llama/Llama-3.1-8B-Instruct", "gpu": "A100-80GB", "weights_dtype": "fp8"})
    bf16 = calculate({"model": "meta-llama/Llama-3.1-8B-Instruct", "gpu": "A100-80GB"})
    assert ampere["compute_dtype"] == "bf16"
    # 8-bit weights computed in BF16 halve the knee (the scaling book's int8 point), less the bf16 lm_head.
    assert ampere["critical_batch"] / bf16["critical_batch"] == pytest.approx(
        (L_LINEAR + 2 * L_VOCAB) / (2 * L_LINEAR + 2 * L_VOCAB), rel=1e-3)


def test_awq_weights_read_their_scales_and_zeros_and_compute_in_16_bits():
    result = calculate({"model": "meta-llama/Llama-3.1-8B-Instruct", "gpu": "L4", "weights_dtype": "awq"})
    read = L_LINEAR * (0.5 + 2.5 / 128) + (L_VOCAB + L_NORMS) * 2  # 4-bit, fp16 scale + 4-bit zero per 128
    assert result["decode_weight_bytes"] == pytest.approx(read, abs=2)
    assert result["compute_dtype"] == "bf16"
    assert result["decode_memory_seconds"] == pytest.approx((read + result["decode_kv_bytes"]) / 300e9, rel=1e-9)


def test_a_gpu_without_a_published_bf16_rate_is_bounded_by_its_fp4_rate():
    result = calculate({"model": "meta-llama/Llama-3.1-8B-Instruct", "gpu": "DGX-Spark"})
    # NVIDIA: "1 PFLOP ... FP4 ... using the sparsity feature" = 500 TFLOP/s dense; 273 GB/s.
    assert (result["peak_flops"], result["memory_bandwidth"]) == (500e12, 273e9)
    assert "publishes no dense BF16 rate" in result.values["peak_flops"].derivation


def test_a_turing_gpu_computes_a_bf16_model_in_fp16():
    result = calculate({"model": "meta-llama/Llama-3.2-3B-Instruct", "gpu": "T4"})
    assert result["peak_flops"] == 65e12  # "Mixed-precision FP16/FP32 peak: 65 TFLOPS"


@pytest.mark.parametrize("gpu, batch, extra, expected", [
    ("L4", 5000, {}, 256),                      # vLLM's max_num_seqs on a GPU under 70 GiB
    ("H100-80GB-SXM", 5000, {}, 1024),          # ≥ 70 GiB and not an A100
    ("A100-80GB", 5000, {}, 256),               # A100s keep the small default
    ("L4", 5000, {"max_num_seqs": 100}, 100),
    ("L4", 64, {}, 64),
])
def test_the_batch_is_capped_at_max_num_seqs(gpu, batch, extra, expected):
    result = calculate({"model": "Qwen/Qwen3-8B", "gpu": gpu, "batch_size": batch, **extra})
    assert result["decode_batch"] == expected


def test_without_lengths_the_default_request_fits_max_model_len():
    result = calculate({"model": "Qwen/Qwen3-8B", "gpu": "L4", "max_model_len": 512})
    assert result["decode_context_tokens"] == 511 + 1 // 2  # a 511-token prompt and 1 output token
    result = calculate({"model": "Qwen/Qwen3-8B", "gpu": "L4", "prompt_tokens": 2000, "output_tokens": 300})
    assert result["decode_context_tokens"] == 2000 + 150


def test_a_tied_lm_head_is_the_embedding_matrix_read_once():
    result = calculate({"model": "meta-llama/Llama-3.2-3B-Instruct", "gpu": "H100-80GB-SXM"})
    assert result["lm_head_bytes"] == 0
    assert result["decode_weight_bytes"] == result["weights_bytes"]  # nothing left unread: it multiplies every token


def test_pipeline_stages_add_up_for_a_token_and_pipeline_for_the_batch():
    one = calculate({"model": "meta-llama/Llama-3.1-8B-Instruct", "gpu": "H100-80GB-SXM", "prompt_tokens": 1000,
                     "output_tokens": 0})
    two = calculate({"model": "meta-llama/Llama-3.1-8B-Instruct", "gpu": "H100-80GB-SXM", "prompt_tokens": 1000,
                     "output_tokens": 0, "pipeline_parallel_size": 2})
    # Memory-bound at batch 1: the two stages together read what one GPU did, one after the other.
    assert two["decode_step_seconds"] == pytest.approx(one["decode_step_seconds"], rel=1e-12)
    # 16 + 16 layers; the last stage also reads lm_head and the final norm: it is the slower.
    layer = 4096 * 4096 * 2 + 4096 * 1024 * 2 + 3 * 4096 * 14336 + 2 * 4096
    last = (16 * layer + 4096 + L_VOCAB) * 2 + 1000 * 16 * 4096  # weights and 16 layers' KV at 1,000 tokens
    assert two["decode_throughput"] == pytest.approx(H100_BW / last, rel=1e-9)


def test_the_all_reduce_crosses_a_bridge_for_a_pair_and_pcie_for_more():
    pair = calculate({"model": "meta-llama/Llama-3.1-8B-Instruct", "gpu": "H100-80GB-PCIe", "tensor_parallel_size": 2})
    four = calculate({"model": "meta-llama/Llama-3.1-8B-Instruct", "gpu": "H100-80GB-PCIe", "tensor_parallel_size": 4})
    per_token = lambda tp: (2 * 32 + 1) * 4096 * 2 * 2 * (tp - 1) / tp  # bf16 activations, ring
    assert pair["tp_all_reduce_seconds"] == pytest.approx(per_token(2) / 300e9)  # NVLink bridge 600 GB/s both ways
    assert four["tp_all_reduce_seconds"] == pytest.approx(per_token(4) / 64e9)   # PCIe Gen5 128 GB/s both ways


def test_a_batch_arriving_together_waits_for_all_its_prompts():
    result = calculate({"model": "Qwen/Qwen3-8B", "gpu": "H100-80GB-SXM", "batch_size": 16, "prompt_tokens": 2000,
                        "output_tokens": 100})
    assert result["ttft_seconds"] > 10 * result["prefill_seconds"]  # compute-bound: 16 prompts' FLOPs
    assert result["e2e_seconds"] == pytest.approx(result["ttft_seconds"] + 99 * result["decode_step_seconds"])


def test_long_contexts_never_turn_decode_compute_bound():
    result = calculate({"model": "meta-llama/Llama-3.1-8B-Instruct", "gpu": "H100-80GB-SXM", "prompt_tokens": 32000,
                        "output_tokens": 0})
    assert "never turns compute-bound" in result.values["critical_batch"].derivation
    assert result["decode_throughput_ceiling"] == pytest.approx(H100_BW / (32000 * 32 * 8 * 128 * 2 * 2), rel=1e-9)


def test_no_bounds_without_a_model_or_a_catalog_gpu():
    measured = calculate({"kv_bytes_per_token": 131072, "gpu": "H100-80GB-SXM", "weights_bytes": 10**10})
    assert "decode_step_seconds" not in measured.values
    no_specs = calculate({"model": "Qwen/Qwen3-8B", "total_memory_bytes": "80 GiB"})
    assert "decode_step_seconds" not in no_specs.values and "active_parameters" in no_specs.values


def test_a_batch_beyond_any_deployment_is_refused():
    with pytest.raises(CalcError) as refused:
        calculate({"model": "Qwen/Qwen3-8B", "gpu": "L4", "batch_size": 10**7})
    assert refused.value.field == "batch_size"


def test_nvfp4_70b_reads_what_a_published_per_tensor_count_says():
    # NVIDIA/dgx-spark-playbooks PR #91: "packed NVFP4 weights plus block scales account for about 38.50 GB/token,
    # and the BF16 language-model head adds about 2.10 GB/token. The resulting 40.61 GB/token gives an optimistic
    # 6.72 tokens/s roofline against Spark's 273 GB/s".
    result = calculate({"model": "meta-llama/Llama-3.1-70B-Instruct", "gpu": "DGX-Spark", "weights_dtype": "nvfp4",
                        "prompt_tokens": 1, "output_tokens": 1})
    assert result["decode_weight_bytes"] / 1e9 == pytest.approx(40.61, abs=0.01)
    assert result["decode_tokens_per_second"] == pytest.approx(6.72, abs=0.01)


def test_a_batch_the_pool_cannot_hold_is_said_so():
    result = calculate({"model": "Qwen/Qwen3-8B", "gpu": "L4", "batch_size": 32, "prompt_tokens": 2000,
                        "output_tokens": 200})
    assert result["users_fit"] < 32 and result["decode_batch"] == 32
    assert f"the KV pool holds only {result['users_fit']:,} users" in result.values["decode_batch"].derivation


def test_sparse_mla_reads_every_indexer_key_and_only_its_top_k_latents():
    result = calculate({"model": "deepseek-ai/DeepSeek-V3.2", "gpu": "B200", "tensor_parallel_size": 8,
                        "prompt_tokens": 64000, "output_tokens": 0})
    # 61 MLA layers, each token an fp8 indexer key of 128 values + 4 B scale (132 B) and a bf16 latent of
    # (512 + 64) × 2 = 1,152 B; each query attends its index_topk 2,048 tokens (vLLM's sparse MLA backends).
    assert result["decode_kv_bytes"] == 61 * (132 * 64000 + 1152 * 2048)


def test_the_kept_work_per_step_follows_the_gpu_the_dtype_and_the_pool():
    """A model's work per step is kept (quizapp.lru.per_object on its model and layout): asked in
    turns on two GPUs, in two weight formats and at two pool sizes, each answer is still its own
    (the knee and the bytes read, by hand as above)."""
    read_fp8 = L_LINEAR * 1 + (L_VOCAB + L_NORMS) * 2
    knee_hopper = read_fp8 / H100_BW / (2 * L_LINEAR / H100_FP8 + 2 * L_VOCAB / H100_BF16)
    awq = L_LINEAR * (0.5 + 2.5 / 128) + (L_VOCAB + L_NORMS) * 2
    for pool in (20_000, 30_000, 20_000):
        hopper = calculate({"model": "meta-llama/Llama-3.1-8B-Instruct", "gpu": "H100-80GB-SXM",
                            "weights_dtype": "fp8", "pool_tokens": pool})
        assert hopper["critical_batch"] == pytest.approx(knee_hopper, rel=1e-9)
        l4 = calculate({"model": "meta-llama/Llama-3.1-8B-Instruct", "gpu": "L4", "weights_dtype": "awq",
                        "pool_tokens": pool})
        assert l4["decode_weight_bytes"] == pytest.approx(awq, abs=2)
        assert l4["compute_dtype"] == "bf16" and hopper["compute_dtype"] == "fp8"


def test_the_kept_weight_parts_follow_the_format_and_the_parallel_layout():
    """The weights by part are kept per model (quizapp.lru.per_object): asked in turns in two weight
    formats and at two TP sizes, each answer is its own (Llama-3.1-8B's MLP by hand: 32 layers of
    gate, up and down projections, 4,096 × 14,336 each, 2 bytes in BF16 and 1 in FP8)."""
    mlp = 32 * 3 * 4096 * 14336
    for _ in range(2):
        for dtype, tp, per_param in (("auto", 1, 2), ("fp8", 1, 1), ("auto", 2, 2)):
            result = calculate({"model": "meta-llama/Llama-3.1-8B-Instruct", "weights_dtype": dtype,
                                "tensor_parallel_size": tp, "pool_tokens": 20_000})
            assert result["mlp_bytes"] == mlp * per_param // tp


def test_the_kept_critical_batch_follows_the_context():
    """The critical batch is kept per work and context: asked in turns at two prompt lengths, its
    words name each one's context (a request of 2 output tokens decodes once, at prompt + 1)."""
    for _ in range(2):
        for prompt in (1000, 3000):
            result = calculate({"model": "meta-llama/Llama-3.1-8B-Instruct", "gpu": "H100-80GB-SXM",
                                "pool_tokens": 20_000, "prompt_tokens": prompt, "output_tokens": 2})
            assert f"at {prompt + 1:,} tokens of context" in result.values["critical_batch"].derivation
