"""A card's scenario space: what a reader may change, the pool's three rules, refusals and
measured facts tied to their scenario."""

import pytest

from quizapp.calc import CalcError, calculate
from quizapp.cards.scenario import Refused, resolve_scenario
from quizapp.cards.space import models_of_kinds
from quizapp.cards.visibility import card_view

from .conftest import GOOD_CARD, error_of, line_of, load

SPACE = """space:
  attention: [uniform]
  inputs: [model, kv_cache_dtype, max_model_len, pool, prompt_tokens, output_tokens]
variants:"""
PINNED = GOOD_CARD.replace("  pool_tokens: 24096\n", "  kv_cache_memory_bytes: 4e9\n  gpu: L4\n")


@pytest.fixture
def card(write_card):
    return load(write_card(GOOD_CARD.replace("variants:", SPACE, 1)))


def test_without_space_a_card_offers_its_own_kind_and_the_inputs_it_names(write_card):
    card = load(write_card())
    assert "Qwen/Qwen3-8B" in card.space.models and "deepseek-ai/DeepSeek-V3" not in card.space.models
    # Only the models that can start there: the measured pool keeps its 1,506 blocks × 16 × 144 KiB
    # = 3.31 GiB, and Llama-3.1-405B's 126 layers × 8 × 128 × 2 × 2 B = 504 KiB per token fit
    # 3.31 GiB ÷ 504 KiB ≈ 6,900 tokens, less than one request of max_model_len 8,192.
    assert set(card.space.models) == set(models_of_kinds(["uniform"])) - {"meta-llama/Llama-3.1-405B"}
    assert card.space.inputs == ("model", "max_model_len", "pool_tokens", "prompt_tokens", "output_tokens")


def test_a_model_of_another_kind_is_refused_naming_the_field(card):
    with pytest.raises(CalcError) as error:
        resolve_scenario(card, None, {"model": "deepseek-ai/DeepSeek-V3"})
    assert error.value.field == "model" and "not written for deepseek-ai/DeepSeek-V3" in error.value.message


def test_an_input_outside_the_space_is_refused(card):
    with pytest.raises(CalcError) as error:
        resolve_scenario(card, None, {"tensor_parallel_size": "2"})
    assert error.value.field == "tensor_parallel_size"
    assert "does not let you change tensor_parallel_size" in error.value.message


def test_a_value_equal_to_the_default_is_not_a_change(card):
    # The panel sends every control; an unchanged TP (1, the default) is no change at all.
    assert resolve_scenario(card, None, {"tensor_parallel_size": "1", "kv_cache_dtype": "auto"}).own


def test_a_variant_outside_the_space_is_an_error_at_its_line(write_card):
    text = GOOD_CARD.replace("variants:", "space:\n  models: [Qwen/Qwen3-8B]\nvariants:", 1)
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.line == line_of(text, "model: meta-llama/Llama-3.1-8B-Instruct")
    assert "outside the card's space" in diagnostic.message


def test_unknown_space_keys_and_kinds_are_errors(write_card):
    diagnostic, _ = error_of(write_card, GOOD_CARD.replace("variants:", "space:\n  atention: [mla]\nvariants:", 1))
    assert "unknown space key 'atention'" in diagnostic.message and diagnostic.hint == "did you mean 'attention'?"
    diagnostic, _ = error_of(write_card, GOOD_CARD.replace("variants:", "space:\n  attention: [gqa]\nvariants:", 1))
    assert "space.attention must list kinds from uniform, mla, sliding, linear" in diagnostic.message


# --------------------------------------------------------------------------- the pool's rules


def test_a_pinned_pool_moves_to_a_fraction_of_the_gpu(write_card):
    card = load(write_card(PINNED.replace("variants:", SPACE, 1)))
    pinned = resolve_scenario(card, None, {})
    assert pinned.pool_rule == "bytes" and pinned.result["kv_cache_memory_bytes"] == 4_000_000_000
    fraction = resolve_scenario(card, None, {"kv_cache_memory_bytes": None, "gpu_memory_utilization": "0.9"})
    expected = calculate({"model": "Qwen/Qwen3-8B", "gpu": "L4", "gpu_memory_utilization": 0.9,
                          "max_model_len": 8192, "prompt_tokens": 512, "output_tokens": 128})
    assert fraction.pool_rule == "fraction"
    assert fraction.result["kv_cache_memory_bytes"] == expected["kv_cache_memory_bytes"] != 4_000_000_000
    # The URL keeps the cleared pin, so a shared link shows the same pool.
    assert fraction.query()["kv_cache_memory_bytes"] == ""


def test_the_pool_rule_control_switches_and_back(write_card):
    card = load(write_card(PINNED.replace("variants:", SPACE, 1)))
    fraction = resolve_scenario(card, None, {}, pool_rule="fraction")
    assert fraction.pool_rule == "fraction"
    tokens = resolve_scenario(card, None, {"pool_tokens": "30000"}, pool_rule="tokens")
    assert tokens.pool_rule == "tokens" and tokens.result["pool_tokens"] == 30_000
    back = resolve_scenario(card, None, {}, pool_rule="bytes")
    assert back.pool_rule == "bytes" and back.own


def test_a_variant_with_a_gpu_fraction_replaces_a_pinned_pool(write_card):
    text = PINNED.replace("  - name: Llama\n    model: meta-llama/Llama-3.1-8B-Instruct\n",
                          "  - name: Most of the L4\n    gpu: L4\n    gpu_memory_utilization: 0.8\n")
    card = load(write_card(text))
    assert resolve_scenario(card, 0, {}).pool_rule == "fraction"


def test_calc_can_unset_the_pin(write_card):
    text = PINNED.replace("One token takes {{ kv_bytes_per_token | kib }}.",
                          "At 0.9: {{ calc(kv_cache_memory_bytes=None, gpu_memory_utilization=0.9).pool_tokens }}.")
    card = load(write_card(text))
    view = card_view(card, resolve_scenario(card, None, {}), {"short", "full"})
    expected = calculate({"model": "Qwen/Qwen3-8B", "gpu": "L4", "gpu_memory_utilization": 0.9,
                          "max_model_len": 8192})["pool_tokens"]
    assert f"At 0.9: {expected}." in view.stage("full").html


# --------------------------------------------------------------------------- refusals


def test_a_refused_scenario_shows_vllms_words_beside_the_field(card):
    with pytest.raises(Refused) as refusal:
        resolve_scenario(card, None, {"max_model_len": "100000"})
    assert refusal.value.field == "max_model_len"
    assert refusal.value.check == "max_model_len_within_model"
    assert "User-specified max_model_len (100000) is greater than the derived max_model_len" in refusal.value.message


def test_a_card_that_teaches_refusals_renders_them(write_card):
    text = GOOD_CARD.replace("variants:", "space:\n  refusals: true\nvariants:", 1).replace(
        "{{ users_fit }} users.", "{% if refused %}Refused by {{ refusal_check }}: {{ refusal }}{% else %}"
                                  "{{ users_fit }} users.{% endif %}")
    card = load(write_card(text))
    scenario = resolve_scenario(card, None, {"max_model_len": "30000"})
    assert scenario.refusal["check"] == "one_request_fits"
    html = card_view(card, scenario, {"short"}).stage("short").html
    assert "Refused by one_request_fits: To serve at least one request" in html


# --------------------------------------------------------------------------- measured facts


MEASURED = GOOD_CARD.replace("One token takes {{ kv_bytes_per_token | kib }}.",
                             '{{ measured("The sweep showed 40 running requests.", on="own", '
                             'otherwise="Your setup was not measured.") }}')


def test_a_measured_fact_shows_only_in_its_scenario(write_card):
    card = load(write_card(MEASURED))
    own = card_view(card, resolve_scenario(card, None, {}), {"short", "full"}).stage("full").html
    assert 'class="measured"' in own and "The sweep showed 40 running requests." in own
    for scenario in (resolve_scenario(card, 0, {}), resolve_scenario(card, None, {"max_model_len": "4096"})):
        other = card_view(card, scenario, {"short", "full"}).stage("full").html
        assert "40 running requests" not in other and "Your setup was not measured." in other


def test_measured_without_a_scenario_is_an_error(write_card):
    text = MEASURED.replace(', on="own"', "")
    diagnostic, _ = error_of(write_card, text)
    assert "measured(...) without a scenario" in diagnostic.message
    assert diagnostic.line == line_of(text, "measured(")


# --------------------------------------------------------------------------- the checker


FALSE_FORMULA = GOOD_CARD.replace("variants:", "space:\n  attention: [uniform, sliding]\nvariants:", 1).replace(
    "One token takes {{ kv_bytes_per_token | kib }}.",
    "One token takes {{ num_layers }} × {{ num_kv_heads }} × {{ head_size }} × 2 × {{ kv_dtype_bytes }} = "
    "{{ kv_bytes_per_token | commas }} B.")


def test_check_names_the_model_under_which_an_equation_is_false(write_card):
    path = write_card(FALSE_FORMULA)
    load(path)  # the app's load renders the card's own scenario and variants only: true there
    with pytest.raises(Exception) as info:
        from quizapp.cards import load_card
        load_card(path, str(path), full=True)
    messages = [d.message for d in info.value.diagnostics]
    assert any("under model google/gemma-2-9b-it" in m and "does not hold" in m for m in messages), messages
    assert all(d.line == line_of(FALSE_FORMULA, "One token takes") for d in info.value.diagnostics), [(d.line, d.message[:150]) for d in info.value.diagnostics if d.line != line_of(FALSE_FORMULA, "One token takes")]


def test_check_reports_every_error_of_a_card_in_one_run(write_card):
    text = FALSE_FORMULA.replace("{{ users_fit }} users.", "{{ users_fit }} users, {{ kv_byte }}.").replace(
        "Weights are not the pool.", "Weights are {{ pool_tokenz }}.")
    from quizapp.cards import CardError, load_card
    with pytest.raises(CardError) as info:
        load_card(write_card(text), "tiny.md", full=True)
    found = "\n".join(str(d) for d in info.value.diagnostics)
    assert "kv_byte" in found and "pool_tokenz" in found and "does not hold" in found


ON_THE_L4 = GOOD_CARD.replace("  pool_tokens: 24096\n", "  pool_tokens: 24096\n  gpu: L4\n")


def test_the_default_space_leaves_out_the_models_that_do_not_fit_the_gpu(write_card):
    card = load(write_card(ON_THE_L4))
    # Qwen3-32B: 32.8e9 parameters × 2 B = 65.5e9 B of BF16 weights, far more than the L4's ~24.1e9 B;
    # Qwen3-14B: 14.8e9 × 2 = 29.5e9 B, more too; Llama-3.1-8B: 8.0e9 × 2 = 16.1e9 B fits beside the pool.
    assert "Qwen/Qwen3-32B" not in card.space.models and "Qwen/Qwen3-14B" not in card.space.models
    assert "meta-llama/Llama-3.1-8B-Instruct" in card.space.models


def test_an_explicit_model_that_cannot_start_is_an_error_naming_it_and_why(write_card):
    text = ON_THE_L4.replace("variants:", "space:\n  models: [Qwen/Qwen3-8B, meta-llama/Llama-3.1-8B-Instruct, "
                                         "Qwen/Qwen3-32B]\nvariants:", 1)
    diagnostic, _ = error_of(write_card, text)
    assert "space.models lists Qwen/Qwen3-32B, which cannot start in the card's scenario" in diagnostic.message
    assert "does not fit" in diagnostic.message and "of weights on one 22.49 GiB L4" in diagnostic.message


def test_a_readers_model_that_does_not_fit_gets_the_plain_verdict_beside_the_field(write_card):
    # A variant's model stays in the space; picked on the card's own GPU and pool it may not fit.
    card = load(write_card(ON_THE_L4.replace("model: meta-llama/Llama-3.1-8B-Instruct",
                                             "model: Qwen/Qwen3-32B\n    tensor_parallel_size: 4")))
    with pytest.raises(Refused) as error:
        resolve_scenario(card, None, {"model": "Qwen/Qwen3-32B"})
    assert error.value.field == "model"
    assert error.value.message.startswith("Does not fit: ")
    assert "tensor_parallel_size" in error.value.message  # what would make it fit
    assert error.value.message.count("Failed to load model") == 1  # vLLM's words, once


SPARK_PINNED = GOOD_CARD.replace("  pool_tokens: 24096\n", "  kv_cache_memory_bytes: 20e9\n  gpu: DGX-Spark\n")


def test_a_new_card_without_a_space_passes_when_its_own_scenario_and_variants_can_start(write_card):
    # Issue 17: Qwen3-8B on a DGX Spark with a pinned pool and no space failed for Qwen3-235B,
    # Nemotron-Ultra and Qwen3-Coder-480B, which cannot start there (470 GB to 960 GB of BF16 weights
    # against the Spark's 121.63 GiB).
    from quizapp.cards.bank import load_files

    path = write_card(SPARK_PINNED)
    cards, diagnostics = load_files([path], full=True)
    assert [d for d in diagnostics if d.severity == "error"] == []
    space = cards["tiny"].space.models
    assert "Qwen/Qwen3-235B-A22B-Instruct-2507" not in space and "Qwen/Qwen3-Coder-480B-A35B-Instruct" not in space
