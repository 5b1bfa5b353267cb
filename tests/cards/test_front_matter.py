"""Front matter: unknown keys and bad values are errors at their own line."""

import pytest

from quizapp.cards import load_card

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


def test_a_rubric_lists_points_per_level_and_interview_only_is_a_flag(write_card):
    text = GOOD_CARD.replace("variants:", "interview_only: true\nrubric:\n  solid: [divides the pool by one user's "
                             "tokens]\n  beyond: checks   the log\nvariants:")
    card = load_card(write_card(text), "tiny.md")
    assert card.interview_only is True
    assert card.rubric == {"solid": ["divides the pool by one user's tokens"], "beyond": ["checks the log"]}


def test_without_them_a_card_is_public_with_the_general_rubric(write_card):
    card = load_card(write_card(), "tiny.md")
    assert card.interview_only is False and card.rubric is None


@pytest.mark.parametrize("block, words, hint", [
    ("rubric:\n  soild: [x]\n", "unknown rubric level 'soild'", "did you mean 'solid'?"),
    ("rubric:\n  solid: []\n", "rubric.solid must be a point or a list of points", None),
    ("rubric: [x]\n", "rubric must map levels (missed, partial, solid, beyond)", None),
    ("interview_only: yes please\n", "interview_only must be true or false", None),
])
def test_bad_rubrics_and_flags_are_errors_at_their_line(write_card, block, words, hint):
    text = GOOD_CARD.replace("variants:", block + "variants:")
    diagnostic, _ = error_of(write_card, text)
    assert words in diagnostic.message
    assert diagnostic.line == line_of(text, block.splitlines()[-1].strip())
    if hint:
        assert diagnostic.hint == hint
