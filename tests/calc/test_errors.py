"""The calculator's error type, and the one "did you mean" that every unknown name gets."""

import pytest

from quizapp.calc import FIELD_NAMES, VALUES, CalcError, calculate, did_you_mean, load_gpu, model_ids
from quizapp.calc.errors import closest


def test_an_error_names_its_field_in_json():
    assert CalcError("tensor_parallel_size must be positive", "tensor_parallel_size").to_json() == {
        "error": "tensor_parallel_size must be positive", "field": "tensor_parallel_size"}


def test_a_name_it_abbreviates_comes_before_a_closer_spelling():
    assert did_you_mean("kv_bytes", VALUES) == "did you mean 'kv_bytes_per_token'?"
    assert closest("max", FIELD_NAMES) == ["max_num_seqs"]  # the shortest of max_num_seqs, max_model_len, ...


def test_otherwise_the_closest_spelling():
    assert did_you_mean("promt_tokens", FIELD_NAMES) == "did you mean 'prompt_tokens'?"


def test_case_is_ignored_and_the_choice_comes_back_as_spelled():
    assert closest("qwen/qwen3-8b", model_ids(), n=1) == ["Qwen/Qwen3-8B"]
    assert did_you_mean("wrong answers", ["Question", "Wrong answers"]) == "did you mean 'Wrong answers'?"


def test_nothing_close_is_none():
    assert did_you_mean("zzzzzz", FIELD_NAMES) is None
    assert closest("zzzzzz", FIELD_NAMES) == []


def test_cutoff_zero_always_gives_n():
    # (the catalog grew: the 405B now stands between the 8B and the 70B)
    three = closest("Llama-3.1-8B", model_ids(), n=3, cutoff=0.0)
    assert three[0] == "meta-llama/Llama-3.1-8B-Instruct" and "meta-llama/Llama-3.1-70B-Instruct" in three
    assert len(closest("zzzzzz", model_ids(), n=3, cutoff=0.0)) == 3


@pytest.mark.parametrize("data, message", [
    ({"kv_bytes": 1}, "unknown input 'kv_bytes' (did you mean 'kv_bytes_per_token'?)"),
    ({"max": 1}, "unknown input 'max' (did you mean 'max_num_seqs'?)"),
    ({"model": "Qwen/Qwen3"}, "unknown model 'Qwen/Qwen3'; closest catalog ids: Qwen/Qwen3-8B, Qwen/Qwen3-14B, "
                              "Qwen/Qwen3-32B"),
])
def test_unknown_inputs_and_models_get_the_same_hint(data, message):
    with pytest.raises(CalcError) as error:
        calculate(data)
    assert error.value.message == message


def test_with_nothing_close_the_inputs_are_listed():
    with pytest.raises(CalcError) as error:
        calculate({"zzzzzz": 1})
    assert error.value.message.startswith("unknown input 'zzzzzz'; inputs are model, config, kv_bytes_per_token, ")
    assert error.value.field == "zzzzzz"


def test_an_unknown_gpu_is_refused_with_the_closest_names():
    with pytest.raises(CalcError) as refused:
        calculate({"model": "Qwen/Qwen3-8B", "gpu": "H1000"})
    assert refused.value.field == "gpu"
    assert "closest catalog GPUs: " in refused.value.message
def test_a_name_longer_than_a_choice_finds_that_choice():
    assert closest("Qwen/Qwen3-8B-Instruct", ["Qwen/Qwen3-8B", "Qwen/Qwen3-14B", "Qwen/Qwen3-32B"]) == \
        ["Qwen/Qwen3-8B"]


@pytest.mark.parametrize("typed, first", [("GB10", "DGX-Spark"), ("H100", "H100-80GB-SXM"), ("RTX-5090-Ti", "RTX-5090")])
def test_an_unknown_gpu_lists_close_catalog_gpus_by_id_or_name(typed, first):
    with pytest.raises(CalcError) as info:
        load_gpu(typed)
    assert info.value.field == "gpu"
    assert info.value.message.startswith(f"unknown GPU {typed!r}; closest catalog GPUs: {first} (")
