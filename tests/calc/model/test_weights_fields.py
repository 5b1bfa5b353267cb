"""Each config field the weights count reads is checked where it is read: a config that lacks it
or garbles it still sizes the KV cache, the count says which field it could not use, and a pool
that needs the weights is refused naming that field. Anything else the count raised would be a
bug, and is let through as one (no net catches it)."""

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizapp.calc import CalcError, calculate
from quizapp.calc.model.catalog import raw_model_config

MISSING = object()


def config(model_id: str, field: str, value) -> dict:
    """The catalog config with one field (of the language model, where it is nested) set or removed."""
    raw = copy.deepcopy(raw_model_config(model_id))
    target = raw.get("text_config") or raw
    if value is MISSING:
        del target[field]
    else:
        target[field] = value
    return raw


def nemotron(ffn) -> dict:
    """Nemotron-Super-49B with the first block's ffn replaced."""
    raw = copy.deepcopy(raw_model_config("nvidia/Llama-3_3-Nemotron-Super-49B-v1"))
    raw["block_configs"][0]["ffn"] = ffn
    return raw


QWEN, MOE, DEEPSEEK = "Qwen/Qwen3-8B", "Qwen/Qwen3-30B-A3B-Instruct-2507", "deepseek-ai/DeepSeek-V3"

# (config, the message, the field it names). A missing field's message is the one the count gave
# before it checked fields; a garbled one used to read "a config field has an unexpected value
# (invalid literal for int() ...)" and named no field.
CASES = {
    "vocab_size missing": (config(QWEN, "vocab_size", MISSING),
                           "config is missing 'vocab_size' (needed to count parameters)", "config.vocab_size"),
    "vocab_size text": (config(QWEN, "vocab_size", "many"),
                        "config field 'vocab_size' must be a whole number, got 'many'", "config.vocab_size"),
    "vocab_size 0": (config(QWEN, "vocab_size", 0),
                     "config field 'vocab_size' must be positive, got 0", "config.vocab_size"),
    "intermediate_size missing": (config(QWEN, "intermediate_size", MISSING),
                                  "config is missing 'intermediate_size' (needed to count parameters)",
                                  "config.intermediate_size"),
    "intermediate_size fraction": (config(QWEN, "intermediate_size", 12288.5),
                                   "config field 'intermediate_size' must be a whole number, got 12288.5",
                                   "config.intermediate_size"),
    "num_experts text": (config(MOE, "num_experts", "128"),
                         "config field 'num_experts' must be a whole number, got '128'", "config.num_experts"),
    "num_local_experts list": (config("mistralai/Mixtral-8x7B-Instruct-v0.1", "num_local_experts", [8]),
                               "config field 'num_local_experts' must be a whole number, got [8]",
                               "config.num_local_experts"),
    "moe_intermediate_size text": (config(MOE, "moe_intermediate_size", "768"),
                                   "config field 'moe_intermediate_size' must be a whole number, got '768'",
                                   "config.moe_intermediate_size"),
    "decoder_sparse_step 0": (config(MOE, "decoder_sparse_step", 0),
                              "config field 'decoder_sparse_step' must be positive, got 0",
                              "config.decoder_sparse_step"),
    "mlp_only_layers number": (config(MOE, "mlp_only_layers", 5),
                               "config field 'mlp_only_layers' must be a list of layer numbers, got 5",
                               "config.mlp_only_layers"),
    "n_routed_experts negative": (config(DEEPSEEK, "n_routed_experts", -256),
                                  "config field 'n_routed_experts' must be at least 0, got -256",
                                  "config.n_routed_experts"),
    "first_k_dense_replace text": (config(DEEPSEEK, "first_k_dense_replace", "3"),
                                   "config field 'first_k_dense_replace' must be a whole number, got '3'",
                                   "config.first_k_dense_replace"),
    "moe_layer_freq 0": (config(DEEPSEEK, "moe_layer_freq", 0),
                         "config field 'moe_layer_freq' must be positive, got 0", "config.moe_layer_freq"),
    "n_shared_experts text": (config(DEEPSEEK, "n_shared_experts", "one"),
                              "config field 'n_shared_experts' must be a whole number, got 'one'",
                              "config.n_shared_experts"),
    "q_lora_rank text": (config(DEEPSEEK, "q_lora_rank", "1536"),
                         "config field 'q_lora_rank' must be a whole number, got '1536'", "config.q_lora_rank"),
    "qk_nope_head_dim missing": (config(DEEPSEEK, "qk_nope_head_dim", MISSING),
                                 "config is missing 'qk_nope_head_dim' (needed to count parameters)",
                                 "config.qk_nope_head_dim"),
    "v_head_dim infinite": (config(DEEPSEEK, "v_head_dim", float("inf")),
                            "config field 'v_head_dim' must be a whole number, got inf", "config.v_head_dim"),
    "index_n_heads missing": (config("deepseek-ai/DeepSeek-V3.2", "index_n_heads", MISSING),
                              "config is missing 'index_n_heads' (needed to count parameters)",
                              "config.index_n_heads"),
    "shared_expert_intermediate_size text": (
        config("Qwen/Qwen3-Next-80B-A3B-Instruct", "shared_expert_intermediate_size", "512"),
        "config field 'shared_expert_intermediate_size' must be a whole number, got '512'",
        "config.shared_expert_intermediate_size"),
    # Llama 4 keeps the language model in text_config; every Scout layer is MoE, of intermediate_size.
    "nested intermediate_size text": (config("meta-llama/Llama-4-Scout-17B-16E-Instruct", "intermediate_size", "8k"),
                                      "config field 'intermediate_size' must be a whole number, got '8k'",
                                      "config.intermediate_size"),
    "nemotron ffn text": (nemotron("wide"), "a Nemotron block's 'ffn' must be an object, got 'wide'",
                          "config.block_configs"),
    "nemotron ffn_mult text": (nemotron({"ffn_mult": "2.625"}),
                               "a Nemotron block's ffn_mult must be a positive number that gives an MLP of at most "
                               "100,000,000, got '2.625'", "config.block_configs"),
    "nemotron ffn_mult huge": (nemotron({"ffn_mult": 1e300}),
                               "a Nemotron block's ffn_mult must be a positive number that gives an MLP of at most "
                               "100,000,000, got 1e+300", "config.block_configs"),
    "nemotron ffn without a size": (nemotron({"no_op": False}),
                                    "a Nemotron block's 'ffn' has neither 'ffn_mult' nor 'intermediate_size' "
                                    "(needed to count parameters)", "config.block_configs"),
    "nemotron intermediate_size text": (nemotron({"intermediate_size": "x"}),
                                        "a Nemotron block's ffn intermediate_size must be a whole number from 0 to "
                                        "100,000,000, got 'x'", "config.block_configs"),
}

# Read for the bytes of the weights, not for their count.
BYTES_CASES = {
    "quantization_config list": (config("openai/gpt-oss-20b", "quantization_config", ["mxfp4"]),
                                 "config field 'quantization_config' must be an object, got ['mxfp4']",
                                 "config.quantization_config"),
}


@pytest.mark.parametrize("raw, message, field", CASES.values(), ids=CASES.keys())
def test_a_field_the_count_cannot_read_is_named_and_the_kv_cache_still_sized(raw, message, field):
    result = calculate({"config": raw})
    assert result["kv_bytes_per_token"] > 0
    assert "num_parameters" not in result.values
    assert f"parameters not counted: {message}" in result.notes


@pytest.mark.parametrize("raw, message, field", [*CASES.values(), *BYTES_CASES.values()],
                         ids=[*CASES, *BYTES_CASES])
def test_a_pool_that_needs_the_weights_is_refused_naming_the_field(raw, message, field):
    with pytest.raises(CalcError) as error:
        calculate({"config": raw, "gpu": "B200"})
    assert (error.value.message, error.value.field) == (message, field)


@pytest.mark.parametrize("raw, message, field", [CASES["vocab_size text"], *BYTES_CASES.values()],
                         ids=["vocab_size text", *BYTES_CASES])
def test_a_pinned_pool_needs_no_weights_and_says_they_were_not_counted(raw, message, field):
    result = calculate({"config": raw, "gpu": "B200", "kv_cache_memory_bytes": 10**10})
    assert result["num_blocks"] > 0
    assert f"weights not counted: {message}" in result.notes


# Every field the count reads, and the models whose configs have it.
READ_FIELDS = [(QWEN, "vocab_size"), (QWEN, "intermediate_size"), (QWEN, "tie_word_embeddings"),
               (QWEN, "attention_bias"), (QWEN, "mlp_bias"), (MOE, "num_experts"), (MOE, "moe_intermediate_size"),
               (MOE, "decoder_sparse_step"), (MOE, "mlp_only_layers"), (DEEPSEEK, "n_routed_experts"),
               (DEEPSEEK, "first_k_dense_replace"), (DEEPSEEK, "moe_layer_freq"), (DEEPSEEK, "n_shared_experts"),
               (DEEPSEEK, "q_lora_rank"), (DEEPSEEK, "qk_nope_head_dim"), (DEEPSEEK, "v_head_dim"),
               (DEEPSEEK, "topk_method"), ("deepseek-ai/DeepSeek-V3.2", "index_n_heads"),
               ("Qwen/Qwen3-Next-80B-A3B-Instruct", "shared_expert_intermediate_size"),
               ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "intermediate_size_mlp"),
               ("mistralai/Mixtral-8x7B-Instruct-v0.1", "num_local_experts"),
               ("openai/gpt-oss-20b", "quantization_config")]
JSON = st.recursive(st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.floats() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                max_size=3), max_leaves=6)


@pytest.mark.parametrize("model_id, field", READ_FIELDS, ids=[field for _, field in READ_FIELDS])
@settings(max_examples=60, deadline=None, database=None)
@given(value=JSON)
def test_any_json_in_a_field_the_count_reads_gives_a_count_or_a_calc_error(model_id, field, value):
    try:
        calculate({"config": config(model_id, field, value), "gpu": "B200"})
    except CalcError:
        pass


@settings(max_examples=200, deadline=None, database=None)
@given(ffn=JSON)
def test_any_json_in_a_nemotron_ffn_gives_a_count_or_a_calc_error(ffn):
    try:
        calculate({"config": nemotron(ffn), "gpu": "B200"})
    except CalcError:
        pass
