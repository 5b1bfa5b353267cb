"""The log reader gives the bytes per token a startup log implies, within its rounding, and the
calculator's prediction beside it; a log it cannot read is refused, never guessed at.

The logs are in tests/calc/data/logs/ (README.md there says where each comes from).
"""

import json
import time

import pytest

from quizapp.calc import CalcError, calculate
from quizapp.calc.log.parse import MAX_LOG_CHARS, MAX_LOG_LINES
from quizapp.calc.log.read import read_log

from tests.paths import LOGS


def reading(name: str):
    return read_log((LOGS / name).read_text(encoding="utf-8"))


def implied(log) -> tuple[int, int]:
    bounds = log.to_json()["implied_kv_bytes_per_token"]
    return bounds["low"], bounds["high"]


def comparison(predicted: dict, value: str) -> dict:
    return next(c for c in predicted["comparisons"] if c["value"] == value)


# -- docs/research/vllm-kv.md §4.3 -----------------------------------------------------------

def test_l4_log_implies_qwen3_8b_bytes_per_token_and_the_calculator_agrees():
    log = reading("qwen3-8b-l4.log")
    assert (log.settings.model, log.settings.max_model_len, log.pool.tokens, log.pool.max_concurrency) == (
        "Qwen/Qwen3-8B", 8192, 24096, 2.94)
    low, high = implied(log)
    assert low <= 147_456 <= high  # 36 layers × 8 KV heads × 128 × 2 × 2 bytes
    assert high - low < 600  # 3.31 GiB is known to ±0.005 GiB: ±0.15 %
    assert log.predicted["kv_bytes_per_token"] == 147_456
    assert log.predicted["agrees"] is True
    assert log.predicted["pool_tokens"] == {"low": 24_064, "high": 24_128}  # 3.305 and 3.315 GiB in whole blocks
    assert comparison(log.predicted, "max_concurrency")["predicted"] == "2.94x"
    assert "vLLM 0.28 or later" in " ".join(log.notes)  # the one-line pool format


def test_l4_log_continues_in_the_calculator_with_the_users_of_the_seed_question():
    inputs = reading("qwen3-8b-l4.log").continue_inputs
    assert inputs == {"model": "Qwen/Qwen3-8B", "max_model_len": 8192, "pool_tokens": 24096}
    result = calculate({**inputs, "prompt_tokens": 512, "output_tokens": 128})
    assert result["users_fit"] == 37


def test_issue_25350_fp8_pool_pins_the_bytes_per_token():
    log = reading("vllm-25350-fp8.log")
    assert (log.pool.tokens, log.settings.max_model_len, log.pool.max_concurrency_text) == (230_528, 100_000, "2.31x")
    assert log.to_json()["kv_cache_memory"]["text"] == "10.55 GiB"
    low, high = implied(log)
    # 49,152 B = 48 layers × 4 KV heads × 128 × 2 × 1 byte (fp8): 14,408 blocks of 16 tokens.
    assert low <= 49_152 <= high and high - low < 60
    assert log.settings.model is None and log.predicted is None
    assert log.catalog_match == "the log does not name the model"


def test_issue_25350_refusal_is_read_with_vllms_figures_and_implies_the_same_bytes():
    log = reading("vllm-25350-refusal.log")
    [refusal] = log.refusals
    assert refusal["kind"] == "one_request_fits"
    assert (refusal["max_model_len"], refusal["needed_text"], refusal["available_text"]) == (221_000, "10.12 GiB",
                                                                                             "5.59 GiB")
    assert refusal["estimated_max_model_len"] == 122_080
    assert refusal["message"].startswith("To serve at least one request with the models's max seq len (221000)")
    assert log.settings.max_model_len == 221_000
    low, high = implied(log)
    assert low <= 49_152 <= high  # the same figure as the run that started


def test_a_refusal_printed_by_every_process_is_listed_once():
    line = (LOGS / "vllm-25350-refusal.log").read_text()
    log = read_log(f"(EngineCore_DP0 pid=1) ERROR 09-21 10:00:00 [core.py:700] {line}"
                   f"(APIServer pid=2) ERROR 09-21 10:00:01 [api_server.py:1] {line}")
    assert len(log.refusals) == 1 and log.refusals[0]["line"] == 1


def test_issue_26646_qwen3_next_is_matched_through_its_quantization_suffix():
    log = reading("vllm-26646-qwen3-next.log")
    assert log.settings.model == "/mnt/nfs-share/LLM/Qwen3-Next-80B-A3B-Instruct-int4-mixed-AutoRound"
    assert log.catalog_model == "Qwen/Qwen3-Next-80B-A3B-Instruct"
    assert "quantization suffix '-int4-mixed-autoround'" in log.catalog_match
    assert (log.settings.tensor_parallel_size, log.settings.kv_cache_dtype, log.settings.max_model_len) == (
        2, "fp8_e5m2", 215_040)
    assert log.pool.tokens == 90_048  # printed twice, read once
    assert log.implied is None  # the log states no KV memory


def test_issue_26646_without_a_version_is_explained_by_the_older_pool_formula():
    predicted = reading("vllm-26646-qwen3-next.log").predicted
    assert predicted["agrees"] is False  # current vLLM counts a hybrid pool differently
    assert any("vLLM 0.11 to 0.20" in why for why in predicted["explanations"])


def test_issue_26646_with_its_version_reproduces_the_logged_concurrency():
    text = (LOGS / "vllm-26646-qwen3-next.log").read_text()
    log = read_log("(APIServer pid=1007373) INFO 10-11 16:17:40 [api_server.py:1839] vLLM API server version 0.11.0\n"
                   + text)
    assert log.settings.vllm_version == "0.11.0"
    assert log.predicted["inputs"]["vllm_version"] == "0.11"
    assert comparison(log.predicted, "max_concurrency") == {"value": "max_concurrency", "logged": "1.66x",
                                                  "predicted": "1.66x", "agrees": True}
    assert log.predicted["log_line"].startswith("GPU KV cache size: 90,048 tokens")


# -- the reference page: ../shared/seeds/000_0d66b2ca2e932d5e.txt ----------------------------------

def test_reference_deepseek_v4_flash_pool_gives_the_pages_55011_bytes():
    log = reading("reference-deepseek-v4-flash.log")
    assert log.settings.kv_cache_dtype == "fp8_ds_mla" and log.settings.tensor_parallel_size == 2
    assert log.to_json()["kv_cache_memory_bytes"] == 10_000_000_000
    assert log.memory.exact
    low, high = implied(log)
    assert low <= 55_011 <= high  # "DeepSeek-V4-Flash NVFP4, vLLM, fp8_ds_mla | 55,011"
    assert high == 55_012  # 10e9 ÷ 181,777 = 55,012.5: the logged tokens never exceed what the pool holds
    assert log.predicted is None
    assert "is not in the calculator's catalog" in log.catalog_match
    assert any("hybrid model" in note for note in log.notes)  # 181,777 is not whole blocks of one group


def test_reference_deepseek_v4_flash_both_pins_measure_the_same_bytes_per_token():
    gen234, gen235 = implied(reading("reference-deepseek-v4-flash-gen234.log")), implied(
        reading("reference-deepseek-v4-flash.log"))
    assert max(gen234[0], gen235[0]) <= min(gen234[1], gen235[1])  # the intervals overlap
    assert all(abs(bound - 55_011) / 55_011 < 0.001 for bound in (*gen234, *gen235))


def test_reference_qwen38_flash_next_pool_gives_the_pages_16392_bytes():
    log = reading("reference-qwen38-flash-next.log")
    assert implied(log) == (16_392, 16_392)  # 28e9 B ÷ 1,708,119 tokens
    assert log.settings.speculative == {"method": None, "num_speculative_tokens": 4}
    assert log.pool.max_concurrency_text == "6.52x"
    assert log.continue_inputs == {"kv_bytes_per_token": 16_392, "max_model_len": 262_144,
                                   "kv_cache_memory_bytes": 28_000_000_000}


def test_a_log_of_several_starts_is_read_from_the_last():
    log = reading("reference-qwen38-flash-next-restarts.log")
    assert "the log holds 3 vLLM starts; this reads the last, from line 5" in log.notes
    assert log.pool.tokens == 1_791_558 and log.settings.speculative["num_speculative_tokens"] == 2
    assert implied(log) == (15_628, 15_628)  # a smaller drafter leaves more of the pin to the target


def test_reference_rtx_5090_refusal_gives_the_utilization_ceiling():
    log = reading("reference-rtx5090-refusal.log")
    [refusal] = log.refusals
    assert refusal["kind"] == "free_memory"
    assert (refusal["free_text"], refusal["total_text"], refusal["requested_text"]) == ("30.85 GiB", "31.36 GiB",
                                                                                        "31.05 GiB")
    assert refusal["gpu_memory_utilization"] == 0.99
    assert refusal["gpu_memory_utilization_ceiling"] == 0.9837  # "0.9837 is the ceiling"
    assert log.continue_inputs["kv_cache_memory_bytes"] == 8_501_810_176
    assert log.continue_inputs["gpu_memory_utilization"] == 0.99


# -- other real logs --------------------------------------------------------------------------

def test_exact_kv_memory_line_pins_qwen3_8b_and_predicts_the_pool_to_the_token():
    log = reading("vllm-qwen3-8b-fp8-debug.log")
    assert log.memory.exact and log.memory.bytes == 9_232_221_491  # "in use is 9232221491 bytes", not "8.60 GiB"
    low, high = implied(log)
    assert low <= 147_456 <= high and high - low < 50
    assert log.catalog_model == "Qwen/Qwen3-8B" and "'-fp8'" in log.catalog_match
    assert log.predicted["pool_tokens"] == {"low": 62_608, "high": 62_608}
    assert log.predicted["agrees"] is True
    assert log.memory_profile["weights_bytes"] == round(8.80 * 2**30)
    assert log.memory_profile["total_memory_bytes"] == round(23.53 * 2**30)


def test_v0_log_blocks_give_the_bytes_per_token_and_unknown_lines_are_listed():
    log = reading("vllm-v0-blocks.log")
    assert log.pool.num_gpu_blocks == 5_102 and log.pool.tokens is None
    low, high = implied(log)
    assert low <= 57_344 <= high  # 28 layers × 4 KV heads × 128 × 2 × 2 (a Qwen2-7B-shaped model)
    assert "16 tokens is the only size that gives both its pool and its concurrency" in " ".join(log.notes)
    [line] = log.to_json()["unrecognised"]
    assert line["line"] == 2 and line["text"].startswith("Using a slow image processor")


def test_v0_refusal_gives_the_pool_and_llama_prediction_agrees():
    log = reading("vllm-10517-v0-refusal.log")
    assert log.refusals[0]["kind"] == "max_seq_len" and log.refusals[0]["pool_tokens"] == 23_648
    assert log.pool.tokens == 23_648 and log.settings.max_model_len == 29_000
    low, high = implied(log)
    assert low <= 131_072 <= high  # Llama-3.1-8B: 32 × 8 × 128 × 2 × 2
    assert log.predicted["model"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert log.predicted["agrees"] is True


@pytest.mark.parametrize("version, pool_lines", [
    ("0.33.0", "GPU KV cache size: 775,960 tokens, Maximum concurrency for 131,072 tokens per request: 5.92x"),
    ("0.11.0", "GPU KV cache size: 436,896 tokens\nMaximum concurrency for 131,072 tokens per request: 6.27x"),
])
def test_a_sliding_window_pool_is_predicted_by_the_versions_rule(version, pool_lines):
    """gpt-oss-20b, 20 GiB of KV memory, 131,072 tokens (docs/research/vllm-kv.md §6's table)."""
    log = read_log(f"vLLM API server version {version}\nnon-default args: {{'model': 'openai/gpt-oss-20b', "
                   f"'max_model_len': 131072, 'kv_cache_memory_bytes': 21474836480, 'max_num_batched_tokens': 8192}}\n"
                   f"{pool_lines}\n")
    assert log.predicted["agrees"] is True
    assert [c["value"] for c in log.predicted["comparisons"]] == ["pool_tokens", "max_concurrency"]
    assert any("keeps several KV cache groups" in note for note in log.notes)


# -- differences the calculator explains ------------------------------------------------------

def test_a_draft_model_sharing_the_pool_is_named_as_the_difference():
    predicted = reading("composed-llama-eagle.log").predicted
    assert predicted["kv_bytes_per_token"] == 131_072
    assert predicted["agrees"] is False
    assert any(why.startswith("speculative decoding with 1 draft layer") for why in predicted["explanations"])


def test_a_stated_eagle_draft_is_predicted_and_its_model_does_not_replace_the_target():
    text = (LOGS / "composed-llama-eagle.log").read_text().replace(
        "'kv_cache_memory_bytes'", "'speculative_config': {'method': 'eagle', 'model': "
        "'yuhuili/EAGLE-LLaMA3.1-Instruct-8B', 'num_speculative_tokens': 5}, 'kv_cache_memory_bytes'")
    log = read_log(text)
    assert log.settings.model == "meta-llama/Llama-3.1-8B-Instruct"
    assert log.predicted["inputs"]["num_draft_layers"] == 1
    assert log.predicted["kv_bytes_per_token"] == 135_168 and log.predicted["agrees"] is True


def test_hybrid_manager_off_is_named_for_gemma_2():
    predicted = reading("composed-gemma2-no-hybrid.log").predicted
    assert comparison(predicted, "max_concurrency")["predicted"] == "8.70x"  # the hybrid manager on
    assert any(why.startswith("the hybrid KV cache manager off") for why in predicted["explanations"])


def test_mla_stored_uncompressed_is_named_for_deepseek_v3():
    predicted = reading("composed-deepseek-v3-mla-off.log").predicted
    assert predicted["kv_bytes_per_token"] == 70_272  # 61 × 576 × 2
    assert any(why.startswith("MLA stored uncompressed") and "749,568 B" in why for why in predicted["explanations"])


# -- not a vLLM log, and hostile input ---------------------------------------------------------

@pytest.mark.parametrize("text", [
    (LOGS / "sglang.log").read_text(),
    "llama_kv_cache_unified: size = 4096.00 MiB (32768 cells, 32 layers, 1 seqs), K (f16): 2048.00 MiB\n",
    "KV cache capacity: 24,096 tokens (a format no vLLM release prints)\n",
    "\x00\x01\x02 binary \xff\n" * 5,
])
def test_a_log_of_an_unknown_format_is_refused_as_not_recognised(text):
    with pytest.raises(CalcError) as error:
        read_log(text)
    assert error.value.field == "log"
    assert error.value.message.startswith("not recognised as a vLLM startup log")


@pytest.mark.parametrize("text, words", [
    ("", "the log is empty"),
    ("   \n\n\t\n", "the log is empty"),
    ("x" * (MAX_LOG_CHARS + 1), "paste at most 2,000,000"),
    ("x\n" * (MAX_LOG_LINES + 1), "paste at most 20,000"),
    ("x\r" * (MAX_LOG_LINES + 1), "paste at most 20,000"),
    (b"GPU KV cache size", "the log must be text"),
])
def test_empty_huge_or_non_text_input_is_refused(text, words):
    with pytest.raises(CalcError) as error:
        read_log(text)
    assert words in error.value.message and error.value.field == "log"


@pytest.mark.parametrize("text", [
    "GPU KV cache size: " + "1," * 900_000,
    "non-default args: {" + "{" * 19_000 + "'model': 'x'" + "}" * 19_000,
    "█ version " * 190_000,
    "(" * 1_900_000,
    "Free memory on device (1.0/2.0 GiB) on startup is less than desired GPU memory utilization (0.9, "
    + "9" * 900 + "\n" * 19_000,
    "Available KV cache memory: 1.00 GiB\nGPU KV cache size: 24,096 tokens\n" * 9_999,
])
def test_hostile_input_is_read_quickly_without_a_traceback(text):
    start = time.perf_counter()
    try:
        json.dumps(read_log(text).to_json())
    except CalcError:
        pass
    assert time.perf_counter() - start < 1.0


def test_unrecognised_lines_are_listed_up_to_a_bound_and_counted():
    text = "".join(f"some line {i} that vLLM never prints\n" for i in range(500))
    log = read_log(text + "GPU KV cache size: 24,096 tokens\n")
    data = log.to_json()
    assert data["unrecognised_total"] == 500 and len(data["unrecognised"]) == 200
    assert data["unrecognised"][0] == {"line": 1, "text": "some line 0 that vLLM never prints"}


def test_prefixes_colours_and_crlf_do_not_hide_a_line():
    log = read_log("\x1b[32m(EngineCore_DP0 pid=1) INFO 10-01 12:00:00 [kv_cache_utils.py:1087]\x1b[0m "
                   "GPU KV cache size: 24,096 tokens\r\nMaximum concurrency for 8,192 tokens per request: 2.94x\r\n")
    assert (log.pool.tokens, log.settings.max_model_len, log.pool.max_concurrency_text) == (24_096, 8_192, "2.94x")
    assert log.lines == {"pool_tokens": 1, "max_concurrency": 2, "max_model_len": 2}


def test_workers_that_disagree_are_read_at_the_smallest_with_a_note():
    log = read_log("(Worker_TP0 pid=1) INFO 09-04 11:00:12 [gpu_worker.py:624] Available KV cache memory: 17.79 GiB\n"
                   "(Worker_TP1 pid=2) INFO 09-04 11:00:12 [gpu_worker.py:624] Available KV cache memory: 17.73 GiB\n")
    assert log.memory.text == "17.73 GiB" and log.memory.line == 2
    assert any("17.73, 17.79 GiB" in note for note in log.notes)


def test_json_has_every_field_null_where_the_log_does_not_say():
    data = read_log("INFO 10-01 12:00:00 [__init__.py:216] Automatically detected platform cuda.\n").to_json()
    for name in ("vllm_version", "model", "max_model_len", "pool_tokens", "max_concurrency", "kv_cache_memory_bytes",
                 "implied_kv_bytes_per_token", "predicted"):
        assert data[name] is None
    assert data["unrecognised"] == [] and data["recognised"] == [{"line": 1, "kind": "known"}]


@pytest.mark.parametrize("path", sorted(LOGS.glob("*.log")), ids=lambda p: p.name)
def test_every_reading_is_plain_json(path):
    try:
        data = read_log(path.read_text(encoding="utf-8")).to_json()
    except CalcError:
        return
    assert json.loads(json.dumps(data)) == data
