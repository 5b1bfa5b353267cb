"""What calculate() returns: quantities with their arithmetic, and a JSON form with fixed keys."""

from quizapp.calc import ALWAYS_PRESENT, VALUES, Quantity, calculate

FULL_SCENARIO = {"model": "google/gemma-2-9b-it", "gpu": "H100-80GB-SXM", "free_memory_bytes": "70 GiB",
                 "max_model_len": 8192, "prompt_tokens": 1000, "output_tokens": 200}


def test_a_value_reads_as_its_number_and_keeps_its_arithmetic():
    result = calculate({"model": "Qwen/Qwen3-8B"})
    assert result["kv_bytes_per_token"] == 147_456
    assert result.values["kv_bytes_per_token"] == Quantity(
        147_456, "B", "144 KiB",
        "36 layers × 8 KV heads × 128 head size × 2 (K and V) × 2 bytes = 147,456 B = 144 KiB")
    assert result.get("num_blocks") is None
    assert result.get("num_blocks", 0) == 0


def test_every_value_it_derives_is_in_the_table():
    result = calculate(FULL_SCENARIO)
    assert set(result.values) <= set(VALUES)
    assert {"in_flight_tokens", "gpu_memory_utilization_ceiling", "users_fit"} <= set(result.values)
    assert set(ALWAYS_PRESENT) <= set(VALUES)


def test_json_always_carries_the_fixed_keys_null_when_undetermined():
    data = calculate({"model": "Qwen/Qwen3-8B"}).to_json()
    assert data["kv_bytes_per_token"] == 147_456
    assert {name: data[name] for name in ALWAYS_PRESENT if name != "kv_bytes_per_token"} == {
        "num_blocks": None, "pool_tokens": None, "kv_cache_memory_bytes": None, "max_concurrency": None,
        "tokens_per_user": None, "users_fit": None}
    assert data["max_concurrency_text"] is None
    assert data["inputs"] == {"model": "Qwen/Qwen3-8B"}
    assert data["vllm_version"] == "0.33"


def test_json_has_texts_units_derivations_and_the_layout():
    data = calculate({"model": "Qwen/Qwen3-8B", "max_model_len": 8192, "pool_tokens": 24_096}).to_json()
    assert data["max_concurrency_text"] == "2.94x"
    assert data["texts"]["kv_bytes_per_token"] == "144 KiB"
    assert data["units"]["num_blocks"] == "blocks"
    assert data["derivations"]["num_blocks"] == "⌊24,096 tokens ÷ 16 tokens per block⌋ = 1,506 blocks (whole blocks)"
    assert data["layout"] == {"model": "Qwen/Qwen3-8B", "attention": "GQA, 36 full", "kv_dtype": "bfloat16",
                              "kv_heads_per_rank": 8, "head_size": 128, "groups": "1 full group of 36",
                              "group_size": 36, "block_size": 16, "bytes_per_block": 2_359_296}
    assert data["checks"] == [{"check": "one_request_fits", "ok": True, "message": None,
                               "needed_bytes": 512 * 2_359_296, "available_bytes": 1_505 * 2_359_296}]


def test_a_measured_model_has_no_config_facts():
    result = calculate({"kv_bytes_per_token": 55_011})
    assert "num_layers" not in result.values
    assert result.layout_summary()["attention"] == "measured bytes per token"
