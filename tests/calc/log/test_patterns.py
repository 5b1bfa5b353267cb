"""Each line pattern's reader turns every line the pattern matches into facts, without an error.

recognise() no longer catches a reader's ValueError: a pattern admits only numbers its reader
converts (INT, DEC, COMMA_INT), so a failing reader is a bug to see, not a line to skip.
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import re
from fractions import Fraction

from quizapp.calc.log.patterns import DEC, PATTERNS, Gib, recognise

# Digits of other scripts match \d too, and int() and float() read them.
DIGITS = st.sampled_from("0123456789٠١٢٣٤٥٦٧٨٩०१२३४५६७८९")


@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: p.name)
@settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_line_a_pattern_matches_is_read(pattern, data):
    text = data.draw(st.from_regex(pattern.regex))
    match = pattern.regex.search(text)
    assert match is not None
    assert isinstance(pattern.read(match), dict)


@settings(max_examples=200, deadline=None, database=None)
@given(number=st.text(st.sampled_from("0123456789.,-e+"), min_size=1, max_size=30))
def test_a_garbled_number_in_the_args_is_left_out_not_an_error(number):
    names, facts = recognise(f"non-default args: {{'model': 'x', 'max_model_len': {number}, "
                             f"'gpu_memory_utilization': {number}}}")
    assert names == ["non_default_args"] and facts["arg_model"] == "x"
    assert isinstance(facts.get("arg_max_model_len", 0), int)
    assert isinstance(facts.get("arg_gpu_memory_utilization", 0.0), float)


@settings(max_examples=200, deadline=None, database=None)
@given(a=st.text(DIGITS, min_size=1, max_size=9), b=st.text(DIGITS, min_size=1, max_size=8))
def test_figures_in_any_scripts_digits_are_read(a, b):
    names, facts = recognise(f"Available KV cache memory: {a}.{b} GiB")
    assert names == ["available_kv"] and facts["kv_memory_available"].value >= 0


def test_a_number_that_does_not_parse_is_not_a_fact():
    _, facts = recognise("non-default args: {'model': 'x', 'max_model_len': 1.2.3, 'block_size': 16}")
    assert facts == {"arg_model": "x", "arg_block_size": 16}


@given(st.from_regex(re.compile(rf"\A(?:{DEC})\Z"), fullmatch=True))
def test_a_gib_figure_is_the_exact_fraction_its_digits_write(text):
    # Fraction("15.2683") parses the digits itself: 152683/10000, with no float in between.
    figure = Gib(text)
    assert figure.value == Fraction(text) and figure.value is figure.value  # worked out once


@pytest.mark.parametrize("text, expected", [
    ("1", 2**30), ("0.5", 2**29), ("-0.5", -(2**29)), ("0", 0),
    ("15.2683", 16_394_212_291),  # 15.2683 × 1,073,741,824 = 16,394,212,291.38
    ("0.00000001", 11), ("0.0000000025", 3),  # 10.737 and 2.684 bytes
    # Exactly half a byte rounds to even: 2**-31 GiB is 0.5 B, 3 × 2**-31 GiB is 1.5 B.
    ("0.0000000004656612873077392578125", 0), ("0.0000000013969838619232177734375", 2),
])
def test_a_gib_figure_in_bytes_is_its_value_times_2_to_the_30_rounded_half_to_even(text, expected):
    assert Gib(text).bytes == expected


@given(st.from_regex(rf"\A(?:{DEC})\Z"))
def test_a_gib_figure_in_bytes_is_what_fraction_arithmetic_gives(text):
    assert Gib(text).bytes == round(Fraction(text) * 2**30)
