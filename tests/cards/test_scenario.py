"""Scenarios: variants, reader overrides, and the pool that keeps its bytes."""

from pathlib import Path

import pytest

from quizapp.calc import CalcError
from quizapp.cards import load_card, resolve_scenario


@pytest.fixture(scope="module")
def seed():
    return load_card(Path("questions/kv-pool-users.md"), "questions/kv-pool-users.md")


def test_card_scenario_is_the_seed(seed):
    result = resolve_scenario(seed, None, {}).result
    assert (result["pool_tokens"], result["num_blocks"], result["users_fit"]) == (24_096, 1_506, 37)


def test_another_model_keeps_the_pool_bytes(seed):
    scenario = resolve_scenario(seed, None, {"model": "meta-llama/Llama-3.1-8B-Instruct"})
    result = scenario.result
    assert result["kv_cache_memory_bytes"] == 3_553_099_776
    # 3,553,099,776 B ÷ (131,072 B × 16) = 1,694 blocks; (1,694 − 1) ÷ 40 = 42 users.
    assert (result["num_blocks"], result["pool_tokens"], result["users_fit"]) == (1_694, 27_104, 42)
    assert "keeps its 3.31 GiB" in scenario.held[0]


def test_fp8_doubles_the_tokens_of_the_same_pool(seed):
    result = resolve_scenario(seed, None, {"kv_cache_dtype": "fp8"}).result
    assert result["kv_bytes_per_token"] == 73_728
    assert result["num_blocks"] == 3_012 and result["users_fit"] == 75


def test_overrides_equal_to_the_card_are_not_changes(seed):
    scenario = resolve_scenario(seed, None, {"max_model_len": "8192", "pool_tokens": "24096", "model": "Qwen/Qwen3-8B"})
    assert scenario.overrides == {} and scenario.held == []
    assert scenario.result["pool_tokens"] == 24_096


def test_reader_pool_in_tokens_is_read_under_the_current_model(seed):
    result = resolve_scenario(seed, None, {"pool_tokens": "30000"}).result
    assert result["pool_tokens"] == 30_000 and result["num_blocks"] == 1_875


def test_variant_then_override(seed):
    scenario = resolve_scenario(seed, 0, {"kv_cache_dtype": "fp8"})
    assert scenario.inputs.model == "meta-llama/Llama-3.1-8B-Instruct"
    assert scenario.result["kv_bytes_per_token"] == 65_536
    assert scenario.query() == {"variant": 0, "kv_cache_dtype": "fp8"}


def test_bad_override_names_the_field(seed):
    with pytest.raises(CalcError) as error:
        resolve_scenario(seed, None, {"tensor_parallel_size": "0"})
    assert error.value.field == "tensor_parallel_size"


def test_a_new_gpu_beside_the_cards_own_pin_keeps_the_pin():
    # A variant (or calc()) that names a GPU and restates the card's pin keeps the pool on the
    # bytes rule; naming only the GPU moves it to the GPU's fraction.
    from quizapp.cards.scenario import apply_changes
    scenario = {"model": "deepseek-ai/DeepSeek-V2-Lite", "gpu": "B200", "kv_cache_memory_bytes": 20 * 10**9}
    kept, _ = apply_changes(scenario, {"gpu": "H100-80GB-SXM", "kv_cache_memory_bytes": 20 * 10**9})
    assert kept == {"model": "deepseek-ai/DeepSeek-V2-Lite", "gpu": "H100-80GB-SXM", "kv_cache_memory_bytes": 20 * 10**9}
    moved, _ = apply_changes(scenario, {"gpu": "H100-80GB-SXM"})
    assert "kv_cache_memory_bytes" not in moved
