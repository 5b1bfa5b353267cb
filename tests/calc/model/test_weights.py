"""Parameter counts against published figures, and weight bytes computed by hand."""

import math

import pytest

from quizapp.calc.model.catalog import load_model, raw_model_config
from quizapp.calc.errors import CalcError
from quizapp.calc.model.parse import parse_config
from quizapp.calc.model.weights import count_parameters, weights_bytes

GIB = 1024**3

# The parameter count each model's publisher states. 1% is the rounding of a figure
# given to two or three significant digits.
PUBLISHED = {
    # Qwen3-8B model card: "Number of Parameters: 8.2B" (huggingface.co/Qwen/Qwen3-8B).
    "Qwen/Qwen3-8B": 8.2e9,
    # Qwen3-32B model card: "Number of Parameters: 32.8B".
    "Qwen/Qwen3-32B": 32.8e9,
    # Qwen3-30B-A3B-Instruct-2507 model card: "30.5B in total and 3.3B activated".
    "Qwen/Qwen3-30B-A3B-Instruct-2507": 30.5e9,
    # Qwen3-Next-80B-A3B-Instruct model card: "80B in total and 3B activated".
    "Qwen/Qwen3-Next-80B-A3B-Instruct": 80e9,
    # Hugging Face model page (safetensors metadata): 8.03B params.
    "meta-llama/Llama-3.1-8B-Instruct": 8.03e9,
    # Hugging Face model page (safetensors metadata): 70.6B params.
    "meta-llama/Llama-3.1-70B-Instruct": 70.6e9,
    # Hugging Face model page (safetensors metadata): 7.25B params.
    "mistralai/Mistral-7B-Instruct-v0.3": 7.25e9,
    # Mistral AI, "Mixtral of experts" announcement: "46.7B total parameters".
    "mistralai/Mixtral-8x7B-Instruct-v0.1": 46.7e9,
    # DeepSeek-V3 technical report (arXiv 2412.19437): "671B total parameters"; the
    # main model only, without the 14B MTP module.
    "deepseek-ai/DeepSeek-V3": 671e9,
    # DeepSeek-V2-Lite model card and the DeepSeek-V2 paper: 15.7B total, 2.4B active.
    "deepseek-ai/DeepSeek-V2-Lite": 15.7e9,
    # Hugging Face model page (safetensors metadata): 9.24B params.
    "google/gemma-2-9b-it": 9.24e9,
    # Phi-3-mini-4k-instruct model card: "3.8B parameters".
    "microsoft/Phi-3-mini-4k-instruct": 3.8e9,
    # gpt-oss model card (arXiv 2508.10925), Table 1: 20.91B total.
    "openai/gpt-oss-20b": 20.91e9,
    # gpt-oss model card, Table 1: 116.83B total.
    "openai/gpt-oss-120b": 116.83e9,
    # gemma-3-12b-it is tested below: its published count includes the vision tower.
}

# Exact tensor element counts from each checkpoint's safetensors metadata (the figure the
# Hugging Face model page rounds), for checkpoints that hold nothing but the text model.
CHECKPOINT_COUNTS = {
    "meta-llama/Llama-3.1-8B-Instruct": 8_030_261_248,
    "meta-llama/Llama-3.1-70B-Instruct": 70_553_706_496,
    "mistralai/Mistral-7B-Instruct-v0.3": 7_248_023_552,
    "mistralai/Mixtral-8x7B-Instruct-v0.1": 46_702_792_704,
    "google/gemma-2-9b-it": 9_241_705_984,
    "microsoft/Phi-3-mini-4k-instruct": 3_821_079_552,
    "Qwen/Qwen3-8B": 8_190_735_360,
    "Qwen/Qwen3-32B": 32_762_123_264,
    "Qwen/Qwen3-30B-A3B-Instruct-2507": 30_532_122_624,
    "deepseek-ai/DeepSeek-V2-Lite": 15_706_484_224,
}


@pytest.mark.parametrize("model_id", sorted(PUBLISHED))
def test_total_within_one_percent_of_published(model_id):
    total = count_parameters(load_model(model_id)).total
    assert total == pytest.approx(PUBLISHED[model_id], rel=0.01)


@pytest.mark.parametrize("model_id", sorted(CHECKPOINT_COUNTS))
def test_total_equals_checkpoint_tensor_count(model_id):
    assert count_parameters(load_model(model_id)).total == CHECKPOINT_COUNTS[model_id]


def test_gemma3_text_model_is_published_count_minus_vision_tower():
    # google/gemma-3-12b-it safetensors metadata: 12,187,325,040 parameters, including
    # the SigLIP vision tower and the projector that the text-only count leaves out.
    published = 12_187_325_040
    width, mlp, layers, positions = 1152, 4304, 27, (896 // 14) ** 2
    siglip = (3 * 14 * 14 * width + width                     # patch embedding
              + positions * width                              # position embedding
              + layers * (4 * (width * width + width)          # q, k, v, out (+ biases)
                          + 2 * width * mlp + mlp + width      # fc1, fc2 (+ biases)
                          + 2 * 2 * width)                     # two LayerNorms
              + 2 * width)                                     # post_layernorm
    projector = width * 3840 + width  # mm_input_projection + mm_soft_emb_norm
    assert siglip == 416_866_032
    count = count_parameters(load_model("google/gemma-3-12b-it"))
    assert count.total == published - siglip - projector == 11_766_034_176
    assert "lm_head" not in count.parts  # Gemma ties lm_head to the embeddings


def test_deepseek_v3_mtp_is_a_separate_part_outside_the_total():
    count = count_parameters(load_model("deepseek-ai/DeepSeek-V3"))
    assert count.total == 671_026_419_200
    assert "mtp" in count.not_in_total
    assert count.total == sum(v for k, v in count.parts.items() if k != "mtp")
    # DeepSeek-V3 model card: "685B, which includes 671B of the Main Model weights and
    # 14B of the Multi-Token Prediction (MTP) Module weights".
    assert count.total + count.parts["mtp"] == pytest.approx(685e9, rel=0.01)
    assert "MTP module 13,463,426,304 not counted" in count.derivation


def test_deepseek_v2_lite_has_no_q_compression_and_one_dense_layer():
    count = count_parameters(load_model("deepseek-ai/DeepSeek-V2-Lite"))
    names = {t.name for t in count.terms}
    assert "q_proj" in names and "q_a_proj" not in names
    # layer 0: 3 × 2048 × 10944 dense MLP; 26 MoE layers: 2 shared experts of 1408
    assert count.parts["mlp"] == 3 * 2048 * 10944
    assert count.parts["shared_experts"] == 26 * 3 * 2048 * 2 * 1408


@pytest.mark.parametrize("model_id, mlp, attention, embed_unembed", [
    # gpt-oss model card, Table 1: MLP 114.71B, attention 0.96B, embed + unembed 1.16B.
    ("openai/gpt-oss-120b", 114.71e9, 0.96e9, 1.16e9),
    # Same table, 20b column: MLP 19.12B, attention 0.64B, embed + unembed 1.16B.
    ("openai/gpt-oss-20b", 19.12e9, 0.64e9, 1.16e9),
])
def test_gpt_oss_parts_match_model_card_table(model_id, mlp, attention, embed_unembed):
    parts = count_parameters(load_model(model_id)).parts
    assert parts["experts"] + parts["router"] == pytest.approx(mlp, rel=0.01)
    assert parts["attention"] == pytest.approx(attention, rel=0.01)
    assert parts["embeddings"] + parts["lm_head"] == pytest.approx(embed_unembed, rel=0.01)


@pytest.mark.parametrize("model_id, checkpoint_gib", [
    # gpt-oss model card, Table 1: checkpoint size 60.8 GiB (120b), 12.8 GiB (20b), with
    # MoE weights in MXFP4 and everything else in BF16.
    ("openai/gpt-oss-120b", 60.8),
    ("openai/gpt-oss-20b", 12.8),
])
def test_gpt_oss_auto_bytes_match_mxfp4_checkpoint_size(model_id, checkpoint_gib):
    result = weights_bytes(load_model(model_id))
    assert result.dtype == "mxfp4"
    assert result.bytes / GIB == pytest.approx(checkpoint_gib, rel=0.01)


def test_qwen3_8b_derivation_substitutes_numbers():
    count = count_parameters(load_model("Qwen/Qwen3-8B"))
    # Sub-products stand in parentheses after their value, so the whole line is one true sum.
    assert count.derivation == (
        "embeddings 622,329,856 (151,936 × 4,096) + 36 layers × (attention 41,943,040 "
        "+ MLP 150,994,944 + norms 8,448) + final norm 4,096 + lm_head 622,329,856 (151,936 × 4,096) "
        "= 8,190,735,360")


def test_qwen3_next_counts_gated_deltanet_and_gated_attention():
    count = count_parameters(load_model("Qwen/Qwen3-Next-80B-A3B-Instruct"))
    h, key_dim, value_dim = 2048, 16 * 128, 32 * 128
    gdn = (h * (2 * key_dim + 2 * value_dim)   # in_proj_qkvz
           + h * 2 * 32                         # in_proj_ba
           + (2 * key_dim + value_dim) * 4      # depthwise conv1d
           + 2 * 32                             # dt_bias, A_log
           + value_dim * h)                     # out_proj
    gated_attention = h * 2 * 16 * 256 + 2 * h * 2 * 256 + 16 * 256 * h
    assert count.parts["linear_attention"] == 36 * gdn
    assert count.parts["attention"] == 12 * gated_attention
    assert count.parts["shared_experts"] == 48 * 3 * h * 512
    assert count.parts["router"] == 48 * (512 * h + h)  # router + shared_expert_gate


def test_biases_follow_the_config():
    raw = dict(raw_model_config("meta-llama/Llama-3.1-8B-Instruct"),
               attention_bias=True, mlp_bias=True)
    with_bias = count_parameters(parse_config(raw)).total
    per_layer = (4096 + 2 * 1024 + 4096) + (2 * 14336 + 4096)  # q, k, v, o + gate, up, down
    assert with_bias - 8_030_261_248 == 32 * per_layer


# Qwen3-8B by hand: the linear layers (q, k, v, o, gate, up, down) are what fp8 and
# nvfp4 convert; embeddings, lm_head and norms stay bfloat16 in vLLM.
QWEN3_8B_LINEAR = 36 * (4096 * 4096 + 2 * 4096 * 1024 + 4096 * 4096 + 3 * 4096 * 12288)
QWEN3_8B_REST = 2 * 151936 * 4096 + 36 * (2 * 4096 + 2 * 128) + 4096


def test_qwen3_8b_bfloat16_bytes():
    result = weights_bytes(load_model("Qwen/Qwen3-8B"), "bfloat16")
    assert result.bytes == 2 * 8_190_735_360 == 16_381_470_720
    assert result.bytes_per_param == 2.0
    assert weights_bytes(load_model("Qwen/Qwen3-8B")).bytes == 16_381_470_720  # auto


def test_qwen3_8b_fp8_bytes():
    result = weights_bytes(load_model("Qwen/Qwen3-8B"), "fp8")
    assert QWEN3_8B_LINEAR == 6_945_767_424
    assert result.bytes == QWEN3_8B_LINEAR * 1 + QWEN3_8B_REST * 2 == 9_435_703_296
    assert result.dtype == "fp8"


def test_qwen3_8b_nvfp4_bytes():
    result = weights_bytes(load_model("Qwen/Qwen3-8B"), "nvfp4")
    # 4-bit values + one fp8 scale per 16 values = 4.5 bits = 9/16 byte per parameter
    assert result.bytes == QWEN3_8B_LINEAR * 9 // 16 + QWEN3_8B_REST * 2 == 6_396_930_048
    assert "4.5 bits" in result.derivation


def test_deepseek_v3_auto_is_fp8_from_quantization_config():
    result = weights_bytes(load_model("deepseek-ai/DeepSeek-V3"))
    assert result.dtype == "fp8"
    assert 1.0 < result.bytes_per_param < 1.01


def test_tensor_parallel_divides_the_total():
    result = weights_bytes(load_model("meta-llama/Llama-3.1-70B-Instruct"), "bfloat16", 4)
    assert result.total_bytes == 70_553_706_496 * 2
    assert result.bytes == 70_553_706_496 * 2 // 4 == 35_276_853_248
    assert "per GPU" in result.derivation


def test_bad_weights_dtype_names_the_field():
    with pytest.raises(CalcError) as err:
        weights_bytes(load_model("Qwen/Qwen3-8B"), "int3")
    assert err.value.field == "weights_dtype"


def test_bad_tensor_parallel_size_names_the_field():
    with pytest.raises(CalcError) as err:
        weights_bytes(load_model("Qwen/Qwen3-8B"), "bfloat16", 0)
    assert err.value.field == "tensor_parallel_size"


def test_auto_loads_float32_checkpoints_as_bfloat16():
    # The gemma-3-12b config in the catalog has no torch_dtype: transformers' float32.
    result = weights_bytes(load_model("google/gemma-3-12b-it"))
    assert result.dtype == "bfloat16"
    assert result.bytes == 2 * 11_766_034_176


def test_auto_refuses_a_quantization_it_cannot_size():
    raw = dict(raw_model_config("Qwen/Qwen3-8B"), quantization_config={"quant_method": "bitsandbytes"})
    with pytest.raises(CalcError) as err:
        weights_bytes(parse_config(raw))
    assert err.value.field == "weights_dtype"
    assert weights_bytes(parse_config(raw), "nvfp4").bytes == 6_396_930_048


# Qwen3-8B: 8,190,735,360 parameters, of which the linear layers (everything but embed_tokens and
# lm_head, 151,936 × 4,096 each, and the norms) hold 36 × (q 4,096² + k, v 4,096 × 1,024 + o 4,096² +
# MLP 3 × 4,096 × 12,288) = 6,945,767,424.
QWEN3_8B_LINEAR = 36 * (4096 * 4096 + 2 * 4096 * 1024 + 4096 * 4096 + 3 * 4096 * 12288)
QWEN3_8B_REST = 8_190_735_360 - QWEN3_8B_LINEAR


def test_awq_and_gptq_count_a_scale_and_a_zero_per_group_of_128():
    # 4-bit values, then per 128 weights an fp16 scale (2 B) and a packed 4-bit zero (0.5 B):
    # 0.5 + 2.5/128 = 0.51953125 B per weight (vLLM's AWQ/GPTQ layers load qweight, scales, qzeros).
    expected = math.ceil(QWEN3_8B_LINEAR * 0.51953125 + QWEN3_8B_REST * 2)
    for method in ("awq", "gptq"):
        raw = dict(raw_model_config("Qwen/Qwen3-8B"), quantization_config={"quant_method": method, "bits": 4,
                                                                             "group_size": 128})
        assert weights_bytes(parse_config(raw)).bytes == expected, method
        assert weights_bytes(load_model("Qwen/Qwen3-8B"), method).bytes == expected, method
    # int4: symmetric, one fp16 scale per 128 and no zero: 0.5 + 2/128 = 0.515625 B.
    assert weights_bytes(load_model("Qwen/Qwen3-8B"), "int4").bytes == \
        math.ceil(QWEN3_8B_LINEAR * 0.515625 + QWEN3_8B_REST * 2)


def test_an_awq_config_gives_its_own_bits_and_group():
    # 8-bit GPTQ, group 64: 1 B + (2 B scale + 1 B zero) / 64 = 1.046875 B per weight.
    raw = dict(raw_model_config("Qwen/Qwen3-8B"), quantization_config={"quant_method": "gptq", "bits": 8,
                                                                         "group_size": 64})
    assert weights_bytes(parse_config(raw)).bytes == math.ceil(QWEN3_8B_LINEAR * 1.046875 + QWEN3_8B_REST * 2)
    bad = dict(raw_model_config("Qwen/Qwen3-8B"), quantization_config={"quant_method": "awq", "bits": 5})
    with pytest.raises(CalcError) as err:
        weights_bytes(parse_config(bad))
    assert err.value.field == "config.quantization_config"


def test_mxfp4_needs_routed_experts():
    with pytest.raises(CalcError) as err:
        weights_bytes(load_model("Qwen/Qwen3-8B"), "mxfp4")
    assert err.value.field == "weights_dtype"


def test_data_parallel_spreads_the_routed_experts_over_tp_times_dp():
    # vLLM fused_moe/config.py FusedMoEParallelConfig.make: with TP 2 and DP 2 "the tensors are sharded
    # across 4 devices". Qwen3-30B-A3B: 48 layers × 128 experts × 3 × 2,048 × 768 routed-expert weights.
    model = load_model("Qwen/Qwen3-30B-A3B-Instruct-2507")
    experts = 48 * 128 * 3 * 2048 * 768 * 2
    total = weights_bytes(model, "bfloat16").bytes
    assert weights_bytes(model, "bfloat16", 2, expert_ranks=4).bytes == math.ceil((total - experts) / 2 + experts / 4)
    assert weights_bytes(model, "bfloat16", 2, expert_ranks=2).bytes == weights_bytes(model, "bfloat16", 2).bytes


def test_kept_weights_follow_their_arguments():
    """weights_bytes is kept per model object (quizapp.lru.per_object): the same model asked in
    another dtype or TP, before and after, still gets its own bytes (by hand above)."""
    model = load_model("Qwen/Qwen3-8B")
    assert weights_bytes(model, "bfloat16").bytes == 16_381_470_720
    assert weights_bytes(model, "bfloat16", 2).bytes == 16_381_470_720 // 2
    assert weights_bytes(model, "bfloat16").bytes == 16_381_470_720
    assert weights_bytes(model, "fp8").bytes == QWEN3_8B_LINEAR + 2 * QWEN3_8B_REST == 9_435_703_296
    assert weights_bytes(model, "bfloat16", 2).bytes == 8_190_735_360


def test_a_kept_answer_never_stands_in_for_a_refused_argument():
    """True == 1 as a key, but weights_bytes refuses a bool TP: kept answers are per argument type."""
    model = load_model("Qwen/Qwen3-8B")
    assert weights_bytes(model, "auto", 1).bytes == 16_381_470_720
    with pytest.raises(CalcError, match="tensor_parallel_size"):
        weights_bytes(model, "auto", True)


def test_only_catalog_models_are_kept():
    """A given config.json is one reader's and up to a megabyte: its weights are worked out each
    time and never held by the cache; a catalog model's are kept."""
    from quizapp.calc.model.catalog import raw_model_config
    from quizapp.calc.model.parse import parse_config

    kept = weights_bytes.kept
    catalog = load_model("Qwen/Qwen3-8B")
    weights_bytes(catalog, "bfloat16")
    held = len(kept)
    given = parse_config(raw_model_config("Qwen/Qwen3-8B"), name="Qwen/Qwen3-8B")
    assert weights_bytes(given, "bfloat16").bytes == 16_381_470_720
    assert len(kept) == held
    assert not any(entry[0][0] is given for entry in kept._entries.values())
