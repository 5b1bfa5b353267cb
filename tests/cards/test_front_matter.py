"""Front matter: unknown keys and bad values are errors at their own line."""

import pytest

from .conftest import GOOD_CARD, error_of, line_of


def test_unknown_scenario_input(write_card):
    text = GOOD_CARD.replace("  prompt_tokens: 512", "  prompt_token: 512")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.line == line_of(text, "prompt_token: 512")
    assert diagnostic.hint == "did you mean 'prompt_tokens'?"


def test_javascript_link_is_refused(write_card):
    text = GOOD_CARD.replace("variants:", "taught_in:\n  - title: x\n    link: javascript:alert(1)\nvariants:")
    diagnostic, _ = error_of(write_card, text)
    assert "must start with https://" in diagnostic.message


@pytest.mark.parametrize("answer, words", [
    ("answer:\n  value: users_fit\n  mistakes: 5\n", "mistakes must be a list"),
    ("answer:\n  value: users_fit\n  mistakes:\n    - value: max_concurrency\n      says: [1]\n", "'says' (text)"),
    ("answer:\n  value: kv_dtype\n", "is not a number"),
])
def test_bad_answer_blocks_are_errors_not_crashes(write_card, answer, words):
    diagnostic, _ = error_of(write_card, GOOD_CARD.replace("variants:", answer + "variants:"))
    assert words in diagnostic.message
