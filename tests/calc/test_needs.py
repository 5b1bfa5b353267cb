"""The needs table says what calculate() needs for each value: with its needs a value is derived,
without any one of them it is not."""

import pytest

from quizapp.calc import NEEDS, VALUES, CalcError, calculate, needs_text
from quizapp.calc.needs import MODEL

# A model of each attention kind a need may ask for.
MODEL_OF_KIND = {"uniform": "Qwen/Qwen3-8B", "sliding": "google/gemma-3-4b-it",
                 "linear": "Qwen/Qwen3-Next-80B-A3B-Instruct"}
# The input each need is met with in these tests, and its value.
SAMPLES = {"model": "Qwen/Qwen3-8B", "kv_cache_memory_bytes": 10**10, "gpu": "H100-80GB-SXM",
           "free_memory_bytes": 70 * 2**30, "max_model_len": 8192, "prompt_tokens": 512, "pipeline_parallel_size": 2,
           "gpu_hour_price": 2.5, "cached_prefix_tokens": 256, "num_speculative_tokens": 3, "acceptance_rate": 0.7}


def scenario_meeting(needs) -> dict:
    """A scenario that meets each need with the first sample input it accepts."""
    kinds = [kind for need in needs for kind in need.kinds]
    scenario = {"model": MODEL_OF_KIND[kinds[0]] if kinds else SAMPLES["model"]}
    for need in needs:
        name = next((name for name in SAMPLES if name in need.inputs), None)
        if name and name not in scenario:
            scenario[name] = SAMPLES[name]
    return scenario


def without(scenario: dict, need) -> dict:
    """The scenario with nothing that meets the need (a measured bytes-per-token figure stands in
    for a model, with the weights given, so the rest still computes)."""
    if need.kinds:
        return {**scenario, "model": MODEL_OF_KIND["uniform"]}
    left = {name: value for name, value in scenario.items() if name not in need.inputs}
    if "model" not in left:
        left.update(kv_bytes_per_token=147456, weights_bytes=10**9)
    return left


def derived(scenario: dict, value: str) -> bool:
    """Whether the calculator derives the value (a scenario it refuses derives nothing)."""
    try:
        return value in calculate(scenario).values
    except CalcError:
        return False


def test_every_value_says_what_it_needs():
    assert set(NEEDS) == set(VALUES)


@pytest.mark.parametrize("value", sorted(NEEDS))
def test_a_value_is_derived_with_its_needs_and_not_without_any_one(value):
    needs = NEEDS[value]
    scenario = scenario_meeting(needs)
    assert derived(scenario, value), scenario
    for need in needs:
        lacking = without(scenario, need)
        assert not derived(lacking, value), (need.words, lacking)


def test_the_words_name_only_what_the_scenario_lacks():
    assert needs_text("users_fit", {"model", "pool_tokens"}, "uniform") == \
        "users_fit needs prompt_tokens and output_tokens in the scenario"
    assert needs_text("users_fit", {"model"}, "uniform") == ("users_fit needs prompt_tokens and output_tokens and "
                                                            "a pool (pool_tokens, kv_cache_memory_bytes, or gpu) "
                                                            "in the scenario")
    assert needs_text("gpu_memory_utilization_ceiling", {"model", "gpu"}, "uniform") == \
        "gpu_memory_utilization_ceiling needs free_memory_bytes in the scenario"
    assert needs_text("in_flight_tokens", {"model"}, "uniform").startswith(
        "in_flight_tokens needs a sliding-window model")
    assert needs_text("users_fit", {"model", "pool_tokens", "prompt_tokens"}, "uniform") is None


def test_a_missing_model_goes_without_its_kind():
    assert needs_text("in_flight_tokens", {"kv_bytes_per_token"}, None) == \
        f"in_flight_tokens needs {MODEL.words} in the scenario"
