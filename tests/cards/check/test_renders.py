"""The load-time render checks: every scenario the card offers renders."""

from ..conftest import GOOD_CARD, error_of, line_of


def test_bad_scenario_value_points_at_its_key(write_card):
    text = GOOD_CARD.replace("max_model_len: 8192", "max_model_len: -8192")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.line == line_of(text, "max_model_len: -8192")
    assert "max_model_len must be positive" in diagnostic.message


def test_broken_variant_names_the_variant(write_card):
    text = GOOD_CARD.replace("model: meta-llama/Llama-3.1-8B-Instruct", "model: meta-llama/Llama-9")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.line == line_of(text, "model: meta-llama/Llama-9")
    assert "variant 'Llama'" in diagnostic.message and "closest catalog ids" in diagnostic.message


def test_value_not_derived_in_scenario(write_card):
    text = GOOD_CARD.replace("  prompt_tokens: 512\n  output_tokens: 128\n", "")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.line == line_of(text, "How many users")
    assert "tokens_per_user" in diagnostic.message and "undefined" in diagnostic.message
