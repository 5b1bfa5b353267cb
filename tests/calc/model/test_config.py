"""Reading Hugging Face configs: aliases, nesting, defaults, and clear errors."""

import pytest

from quizapp.calc import CalcError, calculate
from quizapp.calc.model.parse import parse_config


def kv(config, **extra):
    return calculate({"config": config, **extra})["kv_bytes_per_token"]


def test_gpt2_style_aliases_and_mha_default():
    # n_layer/n_head/n_embd, no KV heads (MHA), no head_dim (n_embd ÷ n_head), float32 → bf16.
    config = {"model_type": "gpt2", "n_layer": 12, "n_head": 12, "n_embd": 768, "torch_dtype": "float32"}
    model = parse_config(config)
    assert (model.num_layers, model.num_kv_heads, model.head_dim) == (12, 12, 64)
    assert kv(config) == 12 * 12 * 64 * 2 * 2


def test_falcon_style_mqa():
    config = {"model_type": "falcon", "num_hidden_layers": 32, "num_attention_heads": 71, "hidden_size": 4544,
              "multi_query": True, "torch_dtype": "bfloat16"}
    assert kv(config) == 32 * 1 * 64 * 2 * 2


def test_num_kv_heads_alias():
    config = {"num_hidden_layers": 2, "num_attention_heads": 8, "num_kv_heads": 2, "head_dim": 64}
    assert kv(config) == 2 * 2 * 64 * 2 * 2


def test_nested_text_config_and_gemma3_defaults():
    config = {"model_type": "gemma3", "text_config": {"model_type": "gemma3_text", "num_hidden_layers": 12,
                                                       "num_attention_heads": 8, "num_key_value_heads": 4,
                                                       "hidden_size": 1024, "sliding_window": 512}}
    model = parse_config(config)
    assert model.head_dim == 256  # transformers' Gemma3TextConfig default, not 1024 ÷ 8
    assert model.count("full_attention") == 2 and model.count("sliding_attention") == 10
    assert model.sliding_window == 512
    assert any("head_dim missing: 256" in rule for rule in model.rules)


def test_dtype_key_of_newer_transformers():
    config = {"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 512, "dtype": "float16"}
    assert parse_config(config).dtype == "float16"


def test_missing_dtype_is_float32_and_runs_in_bf16():
    config = {"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 512}
    result = calculate({"config": config})
    assert result.layout.kv_dtype == "bfloat16"


def test_mla_config_without_catalog():
    config = {"model_type": "deepseek_v2", "num_hidden_layers": 10, "num_attention_heads": 16,
              "num_key_value_heads": 16, "hidden_size": 2048, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
              "qk_nope_head_dim": 128, "v_head_dim": 128, "torch_dtype": "bfloat16"}
    assert kv(config) == 10 * 576 * 2
    assert kv(config, tensor_parallel_size=8) == 10 * 576 * 2  # the latent is replicated


def test_sliding_window_layer_types_config():
    config = {"num_hidden_layers": 4, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 64,
              "sliding_window": 256, "torch_dtype": "bfloat16",
              "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "full_attention"]}
    result = calculate({"config": config, "kv_cache_memory_bytes": 2**30, "max_model_len": 4096,
                        "max_num_batched_tokens": 512})
    assert result["kv_bytes_per_token"] == 2 * 2 * 64 * 2 * 2
    assert result.values["max_concurrency"].derivation.count("sliding") == 1


# vLLM's engine/arg_utils.py (create_engine_config) copies sliding_window into CacheConfig when
# the config has no layer_types, and every Attention without a per-layer window takes it
# (layers/attention/attention.py), so every layer of Phi-3-mini-4k slides over 2,047 tokens.
def test_sliding_window_without_layer_types_slides_every_layer():
    result = calculate({"model": "microsoft/Phi-3-mini-4k-instruct", "kv_cache_memory_bytes": 2**30})
    (group,) = result.plan.groups
    assert (group.spec.kind, group.spec.window, group.num_layers) == ("sliding", 2047, 32)
    assert any("every layer slides" in note for note in result.notes)
    # 0.33, no GPU: 2 batches × 2,048 tokens in flight; a sliding layer holds
    # ⌈min(2,047 − 1 + 4,096, 4,096) ÷ 16⌉ + 1 = 256 + 1 = 257 blocks of a 4,096-token request.
    blocks = 2**30 // (32 * 16 * 32 * 96 * 2 * 2)
    assert result["num_blocks"] == blocks == 170
    assert result["max_concurrency"] == blocks / 257
    assert result["pool_tokens"] == int(blocks / 257 * 4096)


@pytest.mark.parametrize("version, batched, per_request", [
    ("0.11", 512, 161),   # ⌈min(2,046 + 512, 4,096) ÷ 16⌉ + 1 = ⌈2,558 ÷ 16⌉ + 1 = 160 + 1
    ("0.11", 2048, 257),  # ⌈min(2,046 + 2,048, 4,096) ÷ 16⌉ + 1 = ⌈4,094 ÷ 16⌉ + 1 = 256 + 1
    ("0.33", 512, 193),   # ⌈min(2,046 + 2 × 512, 4,096) ÷ 16⌉ + 1 = ⌈3,070 ÷ 16⌉ + 1 = 192 + 1
])
def test_phi3_blocks_per_request_follow_the_sliding_window(version, batched, per_request):
    result = calculate({"model": "microsoft/Phi-3-mini-4k-instruct", "kv_cache_memory_bytes": 2**30,
                        "vllm_version": version, "max_num_batched_tokens": batched})
    assert result["max_concurrency"] == 170 / per_request


def test_window_longer_than_the_context_still_slides_one_block_more():
    # Phi-4-mini: sliding_window 262,144 > max_position_embeddings 131,072; the window never drops a
    # token, but vLLM still sizes a sliding spec: ⌈min(262,143 + in flight, L) ÷ 16⌉ + 1 = L/16 + 1.
    result = calculate({"model": "microsoft/Phi-4-mini-instruct", "max_model_len": 131072,
                        "kv_cache_memory_bytes": 2**34})
    assert result.plan.groups[0].spec.kind == "sliding"
    assert result["max_concurrency"] == result["num_blocks"] / (131072 // 16 + 1)
    assert any("never drops a token" in note for note in result.notes)


def test_use_sliding_window_false_drops_the_window():
    # Qwen2.5-72B: sliding_window 131,072 with use_sliding_window false; transformers' Qwen2Config
    # sets sliding_window to None, so vLLM sees no window.
    result = calculate({"model": "Qwen/Qwen2.5-72B-Instruct"})
    assert result.plan.is_uniform and result.plan.groups[0].spec.kind == "full"
    assert result.model.sliding_window is None
    assert any("use_sliding_window is false" in rule for rule in result.model.rules)


def test_disabling_the_hybrid_manager_keeps_a_model_whose_layers_all_slide():
    # vLLM's unify_hybrid_kv_cache_specs promotes sliding layers only beside full-attention ones.
    result = calculate({"model": "mistralai/Ministral-8B-Instruct-2410", "disable_hybrid_kv_cache_manager": True})
    assert result.plan.groups[0].spec.kind == "sliding"


def test_sliding_window_zero_means_no_window():
    config = {"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 512, "sliding_window": 0}
    assert parse_config(config).layer_types == ("full_attention", "full_attention")


@pytest.mark.parametrize("config, field", [
    ({"num_attention_heads": 8, "hidden_size": 512}, "config.num_hidden_layers"),
    ({"num_hidden_layers": 8, "hidden_size": 512}, "config.num_attention_heads"),
    ({"num_hidden_layers": 8, "num_attention_heads": 8}, "config.head_dim"),
    ({"num_hidden_layers": "eight", "num_attention_heads": 8, "hidden_size": 512}, "config.num_hidden_layers"),
    ({"num_hidden_layers": 2, "num_attention_heads": 8, "hidden_size": 512, "torch_dtype": "int3"},
     "config.torch_dtype"),
    ({"num_hidden_layers": 2, "num_attention_heads": 8, "hidden_size": 512, "kv_lora_rank": 512},
     "config.qk_rope_head_dim"),
    ({"num_hidden_layers": 2, "num_attention_heads": 8, "hidden_size": 512,
      "layer_types": ["full_attention"]}, "config.layer_types"),
    ({"num_hidden_layers": 2, "num_attention_heads": 8, "hidden_size": 512,
      "layer_types": ["sliding_attention", "full_attention"]}, "config.sliding_window"),
    ({"num_hidden_layers": 4, "num_attention_heads": 8, "hidden_size": 512, "full_attention_interval": 2},
     "config.linear_num_key_heads"),
])
def test_incomplete_configs_name_the_field(config, field):
    with pytest.raises(CalcError) as error:
        calculate({"config": config})
    assert error.value.field == field


@pytest.mark.parametrize("tp, ok", [(1, True), (2, True), (4, True), (8, True), (16, True), (3, False), (6, False)])
def test_tensor_parallel_rules_for_8_kv_heads(tp, ok):
    config = {"num_hidden_layers": 2, "num_attention_heads": 48, "num_key_value_heads": 8, "head_dim": 128}
    if ok:
        assert kv(config, tensor_parallel_size=tp) == 2 * max(1, 8 // tp) * 128 * 2 * 2
    else:
        with pytest.raises(CalcError) as error:
            kv(config, tensor_parallel_size=tp)
        assert error.value.field == "tensor_parallel_size"


@pytest.mark.parametrize("tp, words", [(2, "cannot be split over tensor parallel size 2"),
                                       (4, "replicates KV heads only when the TP size divides by them")])
def test_kv_heads_that_neither_divide_nor_are_divided_are_refused(tp, words):
    config = {"num_hidden_layers": 2, "num_attention_heads": 12, "num_key_value_heads": 3, "head_dim": 64}
    with pytest.raises(CalcError) as error:
        kv(config, tensor_parallel_size=tp)
    assert words in error.value.message


def test_64_heads_refused_at_tp3_accepted_at_tp4():
    config = {"num_hidden_layers": 2, "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128}
    with pytest.raises(CalcError, match=r"Total number of attention heads \(64\) must be divisible by tensor "
                                        r"parallel size \(3\)\."):
        kv(config, tensor_parallel_size=3)
    assert kv(config, tensor_parallel_size=4) == 2 * 2 * 128 * 2 * 2
