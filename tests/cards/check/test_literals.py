"""The literal-number warning: a number the calculator makes, in the same unit, should be an expression."""

import pytest

from quizapp.cards import resolve_scenario
from quizapp.cards.check.literals import agrees, unit_of
from quizapp.cards.template.render import render_piece

from ..conftest import GOOD_CARD, line_of, load

# The good card's scenario: Qwen3-8B (head size 128, 36 layers, 8 KV heads), 24,096 tokens in
# 1,506 blocks, 37 users of 640 tokens.
FULL_ANSWER = "One token takes {{ kv_bytes_per_token | kib }}."


def warnings_for(write_card, text: str):
    return load(write_card(GOOD_CARD.replace(FULL_ANSWER, text))).warnings


def test_literal_number_the_calculator_makes_is_a_warning(write_card):
    card = load(write_card(GOOD_CARD.replace("{{ users_fit }} users.", "37 users.")))
    assert len(card.warnings) == 1
    warning = card.warnings[0]
    assert warning.severity == "warning"
    assert warning.line == line_of(GOOD_CARD, "{{ users_fit }} users.")
    assert "'users_fit'" in warning.message


def test_the_warning_gives_the_column_and_the_three_ways_out(write_card):
    [warning] = warnings_for(write_card, "It holds 1,506 blocks.")
    assert warning.column == len("It holds ") + 1
    assert warning.message == "literal 1,506 is what the calculator computes for 'num_blocks'"
    assert "{{ num_blocks }}" in warning.hint and 'measured("...", on="own")' in warning.hint
    assert '{{ literal("1,506 blocks") }}' in warning.hint


@pytest.mark.parametrize("text", [
    "A machine with 128 GB of memory.",  # memory, not the head size 128
    "Spread over 8 GPUs.",  # GPUs, not the 8 KV heads
    "About 37 seconds.",  # time, not the 37 users
    "The machine has {{ literal(\"128 GB\") }} and a head size of {{ literal(128) }}.",
    "<!-- a head size of 128 -->Nothing shown here.",
])
def test_a_number_of_another_unit_or_marked_literal_does_not_warn(write_card, text):
    assert warnings_for(write_card, text) == []


@pytest.mark.parametrize("text, value", [
    ("A head size of 128.", "head_size"),  # a plain number, like the value
    ("It has 8 KV heads.", "num_kv_heads"),  # the unit two words on
    ("Each of 37 requests.", "users_fit"),  # a word for the same unit
    ("It has 36 layers.", "num_layers"),
])
def test_a_number_in_the_value_s_unit_warns(write_card, text, value):
    [warning] = warnings_for(write_card, text)
    assert f"{value!r}" in warning.message


def test_literal_prints_its_text(write_card):
    card = load(write_card(GOOD_CARD.replace(FULL_ANSWER, 'It has {{ literal("128 GB") }}.')))
    assert render_piece(card, "full", resolve_scenario(card, None, {})).html == "<p>It has 128 GB.</p>"


def test_units_agree_by_the_words_after_the_number():
    assert unit_of("GB") == "GB" and unit_of("requests") == "users" and unit_of("values") is None
    assert agrees("", ()) and agrees("", ("values",)) and not agrees("", ("GB",))
    assert agrees("heads", ("KV", "heads")) and not agrees("heads", ("GPUs",))
    assert agrees("tokens", ()) and not agrees("tokens", ("running",))
    # A rate's number is not a count of whatever word follows it ("3 experts").
    assert not agrees("tokens/s", ("experts",)) and not agrees("B/s", ("layers",))
