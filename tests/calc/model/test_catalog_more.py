"""The 19 configs added from ../shared/model-configs-more, each sized by vLLM's rule by hand."""

import pytest

from quizapp.calc import CalcError, calculate, model_entries
from quizapp.calc.model.catalog import load_model
from quizapp.calc.model.weights import count_parameters

GIB = 2**30


def kv(model, **extra):
    return calculate({"model": model, **extra})["kv_bytes_per_token"]


# KV bytes per token per rank at TP 1, kv_cache_dtype auto (bf16 for all of them), as the pool
# charges it: layers behind one block id × bytes one layer keeps per token.
# Full attention: layers × 2 (K and V) × KV heads × head_dim × 2 bytes.
KV_BYTES = {
    "meta-llama/Llama-3.2-3B-Instruct": 28 * 2 * 8 * 128 * 2,                  # 114,688
    "Qwen/Qwen3-14B": 40 * 2 * 8 * 128 * 2,                                     # 163,840
    "Qwen/Qwen3-235B-A22B": 94 * 2 * 4 * 128 * 2,                               # 192,512
    "Qwen/Qwen3-235B-A22B-Instruct-2507": 94 * 2 * 4 * 128 * 2,                 # 192,512
    "Qwen/Qwen3-Coder-480B-A35B-Instruct": 62 * 2 * 8 * 128 * 2,                # 253,952
    # no head_dim: 8192 ÷ 64 heads = 128; use_sliding_window false, so no window
    "Qwen/Qwen2.5-72B-Instruct": 80 * 2 * 8 * 128 * 2,                          # 327,680
    # 5120 ÷ 40 heads = 128; use_sliding_window false
    "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B": 64 * 2 * 8 * 128 * 2,           # 262,144
    "mistralai/Mistral-Nemo-Instruct-2407": 40 * 2 * 8 * 128 * 2,               # 163,840
    # sliding_window 32,768 and no layer_types: one sliding group of all 36 layers
    "mistralai/Ministral-8B-Instruct-2410": 36 * 2 * 8 * 128 * 2,               # 147,456
    "ibm-granite/granite-3.3-8b-instruct": 40 * 2 * 8 * 128 * 2,                # 163,840
    # 3072 ÷ 24 heads = 128; every layer slides (window 262,144)
    "microsoft/Phi-4-mini-instruct": 32 * 2 * 8 * 128 * 2,                      # 131,072
    "meta-llama/Llama-3.1-405B": 126 * 2 * 8 * 128 * 2,                         # 516,096
    # Nemotron: only the blocks with attention keep a cache; 64 ÷ n_heads_in_group 8 = 8 KV heads
    "nvidia/Llama-3_3-Nemotron-Super-49B-v1": 49 * 2 * 8 * 128 * 2,             # 200,704
    # 128 ÷ n_heads_in_group 16 = 8 KV heads in 64 of 162 blocks
    "nvidia/Llama-3_1-Nemotron-Ultra-253B-v1": 64 * 2 * 8 * 128 * 2,            # 262,144
    # MLA: 61 layers × (512 kv_lora_rank + 64 rope) × 2 bytes, one latent head
    "deepseek-ai/DeepSeek-R1": 61 * (512 + 64) * 2,                             # 70,272
    # sparse MLA: + an indexer key per layer, 128 fp8 values + one 4-byte scale per 128
    "deepseek-ai/DeepSeek-V3.2": 61 * ((512 + 64) * 2 + 128 + 4),               # 78,324
    # 29 sliding + 5 full layers (every 6th): groups of min(29, 5) = 5 layers; transformers'
    # Gemma3TextConfig defaults: 4 KV heads, head_dim 256
    "google/gemma-3-4b-it": 5 * 2 * 4 * 256 * 2,                                # 20,480
    # 36 chunked + 12 NoPE full layers: groups of 12 (36 ≥ 1.5 × 12, so the min)
    "meta-llama/Llama-4-Scout-17B-16E-Instruct": 12 * 2 * 8 * 128 * 2,          # 49,152
}


@pytest.mark.parametrize("model", sorted(KV_BYTES))
def test_kv_bytes_per_token_by_hand(model):
    assert kv(model) == KV_BYTES[model]


def test_every_added_model_is_covered():
    assert len(KV_BYTES) + 1 == 19  # and MiniMax-M1, below: not served by current vLLM


def test_nemotron_no_op_blocks_keep_no_cache():
    result = calculate({"model": "nvidia/Llama-3_3-Nemotron-Super-49B-v1"})
    assert result["num_layers"] == 49
    assert result["num_kv_heads"] == 8
    assert any("31 are no-op attention blocks" in note for note in result.notes)


def test_minimax_m1_is_refused_after_0_23_in_vllm_words():
    with pytest.raises(CalcError) as error:
        calculate({"model": "MiniMaxAI/MiniMax-M1"})
    assert error.value.field == "vllm_version"
    assert error.value.message.startswith(
        "Model architecture MiniMaxM1ForCausalLM was supported in vLLM until v0.23.0, and is not supported anymore. "
        "Please use an older version of vLLM if you want to use this model architecture.")


def test_minimax_m1_in_0_23_is_a_hybrid_of_10_attention_and_70_lightning_layers():
    result = calculate({"model": "MiniMaxAI/MiniMax-M1", "vllm_version": "0.23", "kv_cache_memory_bytes": 40 * GIB,
                        "max_model_len": 1_000_000})
    # attention: 10 layers × 2 × 8 × 128 × 2 = 40,960 B per token
    assert result["kv_bytes_per_token"] == 40_960
    # lightning state: 64 heads × 128 × 128 × 2 bytes (bf16: the config has no torch_dtype,
    # float32 runs as bfloat16) = 2,097,152 B per layer per request
    assert result["state_bytes_per_request"] == 70 * 64 * 128 * 128 * 2
    # block size raised until an attention page holds a state: 16 × ⌈2,097,152 ÷ (16 × 4,096)⌉ = 512
    assert result.plan.block_size == 512
    # 0.23 groups by the smaller bucket (10): 1 full + 7 lightning groups of 10 layers
    assert len(result.plan.groups) == 8
    blocks = 40 * GIB // (10 * 512 * 4096)
    assert result["num_blocks"] == blocks == 2048
    # per request: ⌈1,000,000 ÷ 512⌉ = 1,954 full blocks + 7 × 1 state block
    assert result["max_concurrency"] == blocks / (1954 + 7)


def test_deepseek_v3_2_uses_64_token_blocks_and_the_indexer_beside_fp8_ds_mla():
    result = calculate({"model": "deepseek-ai/DeepSeek-V3.2", "kv_cache_dtype": "fp8_ds_mla"})
    assert result["kv_bytes_per_token"] == 61 * (656 + 132) == 48_068
    assert result.plan.block_size == 64
    fp8 = calculate({"model": "deepseek-ai/DeepSeek-V3.2", "kv_cache_dtype": "fp8"})
    assert any("FLASHMLA_SPARSE" in note for note in fp8.notes)


@pytest.mark.parametrize("version, per_token, per_request", [
    # 0.11: VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE defaults to 0, so the hybrid manager is
    # off and all 48 layers keep every token: 48 × 4,096 B, ⌈131,072 ÷ 16⌉ = 8,192 blocks.
    ("0.11", 48 * 4096, 8192),
    # 0.33: 12 full + 3 chunked groups of 12; a chunked group holds ⌈min(8,192 + 2 × 2,048, 131,072) ÷ 16⌉
    # = 768 blocks of a request, the full group 8,192.
    ("0.33", 12 * 4096, 8192 + 3 * 768),
])
def test_llama4_scout_chunked_local_attention_by_version(version, per_token, per_request):
    result = calculate({"model": "meta-llama/Llama-4-Scout-17B-16E-Instruct", "vllm_version": version,
                        "max_model_len": 131072, "kv_cache_memory_bytes": 40 * GIB})
    assert result["kv_bytes_per_token"] == per_token
    assert result["max_concurrency"] == result["num_blocks"] / per_request


def test_gemma3_4b_fills_omitted_fields_from_transformers_defaults():
    model = load_model("google/gemma-3-4b-it")
    assert (model.num_attention_heads, model.num_kv_heads, model.head_dim) == (8, 4, 256)
    assert (model.count("sliding_attention"), model.count("full_attention")) == (29, 5)
    assert model.max_position_embeddings == 131072
    assert any("num_attention_heads missing: 8" in rule for rule in model.rules)
    # gemma3's RoPE factor 8 is not applied again (vLLM skips it for gemma3)
    assert calculate({"model": "google/gemma-3-4b-it"})["max_model_len"] == 131072


@pytest.mark.parametrize("version, length", [("0.11", 131072), ("0.33", 4096)])
def test_phi4_mini_longrope_defaults_to_the_original_length_from_0_14(version, length):
    result = calculate({"model": "microsoft/Phi-4-mini-instruct", "vllm_version": version})
    assert result["max_model_len"] == length


# The parameter count each publisher states for these models; the figures are rounded, so a
# few percent of slack.
PUBLISHED = {
    # Llama 3.2 model card: 3.21B (3B Instruct).
    "meta-llama/Llama-3.2-3B-Instruct": 3.21e9,
    # Qwen3-14B model card: "Number of Parameters: 14.8B".
    "Qwen/Qwen3-14B": 14.8e9,
    # Qwen3-235B-A22B model cards (both releases): "235B in total and 22B activated".
    "Qwen/Qwen3-235B-A22B": 235e9,
    "Qwen/Qwen3-235B-A22B-Instruct-2507": 235e9,
    # Qwen3-Coder-480B-A35B-Instruct model card: "480B in total and 35B activated".
    "Qwen/Qwen3-Coder-480B-A35B-Instruct": 480e9,
    # Qwen2.5-72B-Instruct model card: "Number of Parameters: 72.7B".
    "Qwen/Qwen2.5-72B-Instruct": 72.7e9,
    # Hugging Face model page (safetensors metadata): 32.8B.
    "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B": 32.8e9,
    # DeepSeek-R1 model card: 671B total (the MTP module is counted apart, as for V3).
    "deepseek-ai/DeepSeek-R1": 671e9,
    # Hugging Face model page (safetensors metadata): 12.2B (the announcement rounds to "12B").
    "mistralai/Mistral-Nemo-Instruct-2407": 12.2e9,
    # Ministral-8B-Instruct-2410 model card: 8,019,808,256 parameters ("8B").
    "mistralai/Ministral-8B-Instruct-2410": 8.02e9,
    # Hugging Face model page (safetensors metadata): 8.17B.
    "ibm-granite/granite-3.3-8b-instruct": 8.17e9,
    # Phi-4-mini-instruct model card: "3.8B parameters".
    "microsoft/Phi-4-mini-instruct": 3.8e9,
    # Llama 3.1 model card: 405B.
    "meta-llama/Llama-3.1-405B": 405e9,
    # Llama-3.3-Nemotron-Super-49B-v1 model card: 49B.
    "nvidia/Llama-3_3-Nemotron-Super-49B-v1": 49e9,
    # Llama-3.1-Nemotron-Ultra-253B-v1 model card: 253B.
    "nvidia/Llama-3_1-Nemotron-Ultra-253B-v1": 253e9,
    # MiniMax-M1 model card: "456 billion parameters in total, 45.9 billion activated".
    "MiniMaxAI/MiniMax-M1": 456e9,
    # Llama 4 model card: Scout has 109B total parameters, the vision encoder included, which
    # the text-only count here leaves out.
    "meta-llama/Llama-4-Scout-17B-16E-Instruct": 109e9,
}


@pytest.mark.parametrize("model_id", sorted(PUBLISHED))
def test_total_within_a_few_percent_of_published(model_id):
    total = count_parameters(load_model(model_id)).total
    assert total == pytest.approx(PUBLISHED[model_id], rel=0.02)


def test_deepseek_v3_2_with_mtp_is_the_published_685b():
    # Hugging Face model page: 685B, the MTP module included; the indexer adds ~0.85B to V3's 671B.
    count = count_parameters(load_model("deepseek-ai/DeepSeek-V3.2"))
    assert count.total + count.parts["mtp"] == pytest.approx(685e9, rel=0.01)
    assert count.total - count_parameters(load_model("deepseek-ai/DeepSeek-V3")).total == 61 * (
        1536 * 64 * 128 + 7168 * (128 + 64) + 2 * 128)  # wq_b + wk, weights_proj + k_norm


def test_gemma3_4b_text_model_is_published_count_minus_vision_tower():
    # google/gemma-3-4b-it safetensors metadata: 4,300,079,472 parameters, with the SigLIP vision
    # tower (416,866,032, as in test_weights.py for 12b) and the projector (1152 × 2560 + 1152).
    assert count_parameters(load_model("google/gemma-3-4b-it")).total == (
        4_300_079_472 - 416_866_032 - (1152 * 2560 + 1152))


def test_nemotron_intermediate_sizes_follow_ffn_mult():
    # vLLM nemotron_nas.py: int(2 × ffn_mult × hidden ÷ 3) rounded up to a multiple of 256;
    # Super's ffn_mult 5.25 at hidden 8192 gives 28,672.
    count = count_parameters(load_model("nvidia/Llama-3_3-Nemotron-Super-49B-v1"))
    assert "MLP (intermediate 28,672)" in count.derivation


def test_api_entries_give_attention_kind_and_figures():
    entries = {e["id"]: e for e in model_entries()}
    assert len(entries) == 34
    super49 = entries["nvidia/Llama-3_3-Nemotron-Super-49B-v1"]
    assert (super49["attention_kind"], super49["kv_cache_layers"], super49["kv_heads"], super49["head_size"]) == (
        "full", 49, 8, 128)
    assert entries["deepseek-ai/DeepSeek-V3.2"]["attention_kind"] == "sparse-mla"
    assert entries["deepseek-ai/DeepSeek-V3.2"]["head_dim"] is None  # MLA: the cache does not use it
    assert entries["meta-llama/Llama-4-Scout-17B-16E-Instruct"]["attention_chunk_size"] == 8192
    assert entries["MiniMaxAI/MiniMax-M1"]["attention_kind"] == "hybrid-linear"
