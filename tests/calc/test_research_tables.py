"""The worked tables of docs/research/vllm-kv.md, reproduced for every catalog model."""

import pytest

from quizapp.calc import CalcError, calculate

# §8: KV bytes per token per rank. Columns: TP1 bf16, TP1 fp8, TP2 bf16, TP4 bf16, TP8 bf16.
DENSE = {
    "Qwen/Qwen3-8B": (147_456, 73_728, 73_728, 36_864, 18_432),
    "Qwen/Qwen3-30B-A3B-Instruct-2507": (98_304, 49_152, 49_152, 24_576, 24_576),
    "Qwen/Qwen3-32B": (262_144, 131_072, 131_072, 65_536, 32_768),
    "meta-llama/Llama-3.1-8B-Instruct": (131_072, 65_536, 65_536, 32_768, 16_384),
    "meta-llama/Llama-3.1-70B-Instruct": (327_680, 163_840, 163_840, 81_920, 40_960),
    "mistralai/Mistral-7B-Instruct-v0.3": (131_072, 65_536, 65_536, 32_768, 16_384),
    "mistralai/Mixtral-8x7B-Instruct-v0.1": (131_072, 65_536, 65_536, 32_768, 16_384),
    "microsoft/Phi-3-mini-4k-instruct": (393_216, 196_608, 196_608, 98_304, 49_152),
}
COLUMNS = (("auto", 1), ("fp8", 1), ("auto", 2), ("auto", 4), ("auto", 8))


def kv_bytes(model, dtype="auto", tp=1, **extra):
    return calculate({"model": model, "kv_cache_dtype": dtype, "tensor_parallel_size": tp, **extra})


@pytest.mark.parametrize("model", DENSE)
def test_dense_table(model):
    got = tuple(kv_bytes(model, dtype, tp)["kv_bytes_per_token"] for dtype, tp in COLUMNS)
    assert got == DENSE[model]


@pytest.mark.parametrize("model", DENSE)
@pytest.mark.parametrize("tp", [2, 4, 8])
def test_fp8_at_tp_is_half_of_bf16(model, tp):
    assert kv_bytes(model, "fp8", tp)["kv_bytes_per_token"] * 2 == kv_bytes(model, "auto", tp)["kv_bytes_per_token"]


def test_qwen3_30b_replicates_kv_heads_at_tp8():
    result = kv_bytes("Qwen/Qwen3-30B-A3B-Instruct-2507", tp=8)
    assert result.layout.kv_heads_per_rank == 1
    assert any("replicated 2×" in note for note in result.notes)


# MLA: bf16 (576 × 2), fp8 (576 × 1), fp8_ds_mla (656), the same at any TP.
MLA = {
    "deepseek-ai/DeepSeek-V3": (70_272, 35_136, 40_016),
    "deepseek-ai/DeepSeek-V2-Lite": (31_104, 15_552, 17_712),
}


@pytest.mark.parametrize("model", MLA)
@pytest.mark.parametrize("tp", [1, 2, 4, 8])
def test_mla_table(model, tp):
    got = tuple(kv_bytes(model, dtype, tp)["kv_bytes_per_token"] for dtype in ("auto", "fp8", "fp8_ds_mla"))
    assert got == MLA[model]


def test_deepseek_v3_with_mtp_draft_layer():
    got = tuple(kv_bytes("deepseek-ai/DeepSeek-V3", dtype, num_draft_layers=1)["kv_bytes_per_token"]
                for dtype in ("auto", "fp8", "fp8_ds_mla"))
    assert got == (71_424, 35_712, 40_672)


def test_llama_with_one_eagle_layer():
    assert kv_bytes("meta-llama/Llama-3.1-8B-Instruct", num_draft_layers=1)["kv_bytes_per_token"] == 135_168


def test_deepseek_v3_kib():
    assert kv_bytes("deepseek-ai/DeepSeek-V3").values["kv_bytes_per_token"].text == "68.625 KiB"
    assert kv_bytes("deepseek-ai/DeepSeek-V2-Lite").values["kv_bytes_per_token"].text == "30.375 KiB"


# Sliding/hybrid: all layers TP1, full-only (what a block id costs per token) TP1, TP2 all, TP8 all.
SLIDING = {
    "google/gemma-2-9b-it": (344_064, 172_032, 172_032, 43_008),
    "google/gemma-3-12b-it": (393_216, 65_536, 196_608, 49_152),
    "openai/gpt-oss-20b": (49_152, 24_576, 24_576, 6_144),
    "openai/gpt-oss-120b": (73_728, 36_864, 36_864, 9_216),
}


@pytest.mark.parametrize("model", SLIDING)
def test_sliding_table(model):
    all_tp1, full_only, all_tp2, all_tp8 = SLIDING[model]
    tp1 = kv_bytes(model)
    assert tp1["kv_bytes_per_token_all_layers"] == all_tp1
    assert tp1["kv_bytes_per_token"] == full_only
    assert kv_bytes(model, tp=2)["kv_bytes_per_token_all_layers"] == all_tp2
    assert kv_bytes(model, tp=8)["kv_bytes_per_token_all_layers"] == all_tp8


@pytest.mark.parametrize("model", SLIDING)
def test_disabling_the_hybrid_manager_sizes_every_layer(model):
    result = kv_bytes(model, disable_hybrid_kv_cache_manager=True)
    assert result["kv_bytes_per_token"] == SLIDING[model][0]
    assert result.plan.is_uniform


@pytest.mark.parametrize("tp, attention, state", [
    (1, 24_576, 39_518_208),
    (2, 12_288, 19_759_104),
    (8, 12_288, 4_939_776),
])
def test_qwen3_next(tp, attention, state):
    result = kv_bytes("Qwen/Qwen3-Next-80B-A3B-Instruct", tp=tp)
    assert result["kv_bytes_per_token"] == attention
    assert result["state_bytes_per_request"] == state


@pytest.mark.parametrize("tp, block, page", [(1, 544, 1_114_112), (2, 544, 557_056), (4, 272, None), (8, 144, None)])
def test_qwen3_next_block_alignment(tp, block, page):
    result = kv_bytes("Qwen/Qwen3-Next-80B-A3B-Instruct", tp=tp)
    assert result.plan.block_size == block
    if page:
        assert result.plan.page_bytes == page


def test_qwen3_next_bytes_per_block_tp1():
    assert kv_bytes("Qwen/Qwen3-Next-80B-A3B-Instruct").plan.bytes_per_block == 13_369_344


def test_qwen3_next_twenty_gib_at_262144_in_011():
    result = calculate({"model": "Qwen/Qwen3-Next-80B-A3B-Instruct", "kv_cache_memory_bytes": 20 * 2**30,
                        "max_model_len": 262_144, "vllm_version": "0.11"})
    assert result["num_blocks"] == 1_606
    assert result["pool_tokens"] == 218_144
    assert result.values["max_concurrency"].text == "3.31x"


# §6, current-vLLM rows: 20 GiB of KV memory, block 16, bf16, TP1.
SLIDING_ROWS = [
    # model, max_model_len, max_num_batched_tokens, num_blocks, blocks per request, N logged, conc
    ("google/gemma-2-9b-it", 8_192, 2_048, 7_801, 1_025, 62_347, "7.61x"),
    ("google/gemma-3-12b-it", 131_072, 8_192, 20_480, 13_637, 196_843, "1.50x"),
    ("openai/gpt-oss-20b", 131_072, 8_192, 54_613, 9_225, 775_960, "5.92x"),
    ("openai/gpt-oss-120b", 131_072, 8_192, 36_408, 9_225, 517_297, "3.95x"),
]


@pytest.mark.parametrize("model, length, batched, blocks, per_request, tokens, conc", SLIDING_ROWS)
def test_sliding_window_rows_current_vllm(model, length, batched, blocks, per_request, tokens, conc):
    result = calculate({"model": model, "max_model_len": length, "kv_cache_memory_bytes": 20 * 2**30,
                        "max_num_batched_tokens": batched, "prompt_tokens": length})
    assert result["num_blocks"] == blocks
    assert result["blocks_per_request"] == per_request
    assert result["pool_tokens"] == tokens
    assert result.values["max_concurrency"].text == conc
    assert result["in_flight_tokens"] == 2 * batched


@pytest.mark.parametrize("model, length, batched, per_request, tokens, conc", [
    ("google/gemma-2-9b-it", 8_192, 2_048, 897, 62_400, "8.70x"),
    ("google/gemma-3-12b-it", 131_072, 2_048, 9_157, 54_608, "2.24x"),
    ("openai/gpt-oss-20b", 131_072, 8_192, 8_713, 436_896, "6.27x"),
])
def test_sliding_window_rows_vllm_011(model, length, batched, per_request, tokens, conc):
    result = calculate({"model": model, "max_model_len": length, "kv_cache_memory_bytes": 20 * 2**30,
                        "max_num_batched_tokens": batched, "prompt_tokens": length, "vllm_version": "0.11"})
    assert result["blocks_per_request"] == per_request
    assert result["pool_tokens"] == tokens
    assert result.values["max_concurrency"].text == conc


def test_max_num_batched_tokens_default_follows_vllm():
    small = calculate({"model": "openai/gpt-oss-20b", "gpu": "L4", "max_model_len": 8192})
    hopper = calculate({"model": "openai/gpt-oss-20b", "gpu": "H100-80GB-SXM", "max_model_len": 8192})
    a100 = calculate({"model": "openai/gpt-oss-20b", "gpu": "A100-80GB", "max_model_len": 8192})
    assert small["max_num_batched_tokens"] == 2_048
    assert hopper["max_num_batched_tokens"] == 8_192
    assert a100["max_num_batched_tokens"] == 2_048


# §4.3: two real vLLM logs, from the inputs given there.
def test_vllm_issue_25350_fp8_log():
    # Qwen3-30B-A3B-shaped model (49,152 B/token at fp8), L = 100,000, two-line log of that era.
    result = calculate({"model": "Qwen/Qwen3-30B-A3B-Instruct-2507", "kv_cache_dtype": "fp8",
                        "max_model_len": 100_000, "pool_tokens": 230_528, "vllm_version": "0.11"})
    assert result["num_blocks"] == 14_408
    assert result["log_line"] == ("GPU KV cache size: 230,528 tokens\n"
                                  "Maximum concurrency for 100,000 tokens per request: 2.31x")


def test_vllm_issue_25350_refusal_estimates_122080():
    # The same model at max_model_len 221,000 with 5.59 GiB available: 10.12 GiB needed.
    result = calculate({"model": "Qwen/Qwen3-30B-A3B-Instruct-2507", "kv_cache_dtype": "fp8",
                        "max_model_len": 221_000, "kv_cache_memory_bytes": 7_630 * 16 * 49_152 + 1_000,
                        "vllm_version": "0.24"})
    check = next(c for c in result.checks if c["check"] == "one_request_fits")
    assert not check["ok"]
    assert check["message"].startswith("To serve at least one request with the model's max seq len (221000), "
                                       "(10.12 GiB KV cache is needed, which is larger than the available KV "
                                       "cache memory (5.59 GiB). Based on the available memory, the estimated "
                                       "maximum model length is 122080.")


def test_vllm_issue_26646_qwen3_next_log():
    result = calculate({"model": "Qwen/Qwen3-Next-80B-A3B-Instruct", "tensor_parallel_size": 2,
                        "kv_cache_dtype": "fp8_e5m2", "max_model_len": 215_040, "pool_tokens": 90_048,
                        "vllm_version": "0.11"})
    assert result.plan.block_size == 1_072
    assert len(result.plan.groups) == 4
    assert result["num_blocks"] in (338, 339)
    assert result["log_line"] == ("GPU KV cache size: 90,048 tokens\n"
                                  "Maximum concurrency for 215,040 tokens per request: 1.66x")


def test_pool_of_1506_blocks_at_8190_in_current_and_old_vllm():
    # §4.2: with max_model_len not a multiple of the block size, 0.22+ logs slightly less.
    new = calculate({"model": "Qwen/Qwen3-8B", "max_model_len": 8_190, "kv_cache_memory_bytes": 3_553_099_776})
    old = calculate({"model": "Qwen/Qwen3-8B", "max_model_len": 8_190, "kv_cache_memory_bytes": 3_553_099_776,
                     "vllm_version": "0.20"})
    assert new["num_blocks"] == old["num_blocks"] == 1_506
    assert new["pool_tokens"] == 24_090
    assert old["pool_tokens"] == 24_096


def test_unknown_layer_type_is_refused_not_guessed():
    config = {"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 256,
              "layer_types": ["full_attention", "dilated_attention"]}
    with pytest.raises(CalcError) as error:
        calculate({"config": config})
    assert error.value.field == "config.layer_types"
    assert "dilated_attention" in error.value.message


def test_current_refusal_text_has_the_cpu_note_and_the_docs_link():
    result = calculate({"model": "Qwen/Qwen3-30B-A3B-Instruct-2507", "kv_cache_dtype": "fp8",
                        "max_model_len": 221_000, "kv_cache_memory_bytes": 7_630 * 16 * 49_152 + 1_000})
    check = next(c for c in result.checks if c["check"] == "one_request_fits")
    assert "Try increasing `gpu_memory_utilization` (which also controls CPU memory on the CPU backend) or " \
           "decreasing `max_model_len` when initializing the engine. See https://docs.vllm.ai/en/latest/" \
           "configuration/conserving_memory/ for more details." in check["message"]
    # The current check keeps one block back for the null block: one block less than 0.24's estimate.
    assert "estimated maximum model length is 122064." in check["message"]


def test_a_budget_with_nothing_left_is_refused_in_vllm_words():
    # Qwen3-8B's ~8.2e9 BF16 parameters are ~16.4 GB: within the L4's 22.49 GiB (24.1 GB), but more
    # than the 0.6 × 24.1 GB = 14.5 GB that gpu_memory_utilization 0.6 requests, so no pool is left.
    result = calculate({"model": "Qwen/Qwen3-8B", "gpu": "L4", "gpu_memory_utilization": 0.6})
    check = result.checks[0]
    assert check["check"] == "budget_fits" and not check["ok"]
    assert check["message"].startswith("No available memory for the cache blocks.")
    assert "num_blocks" not in result.values and result.fit.fits is False
