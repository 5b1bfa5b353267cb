"""quizapp/fields.py: the one reading of a whole number from a request field."""

import pytest

from quizapp.calc import FieldError
from quizapp.progress.interviews import InterviewError
from quizapp.fields import MAX_STORED, optional_whole_number, whole_number


@pytest.mark.parametrize("sent, read", [("7", 7), ("07", 7), (7, 7), ("0", 0), (0, 0), ("10", 10)])
def test_ascii_digits_and_json_integers_are_read(sent, read):
    assert whole_number(sent, "n", 0, 10) == read


@pytest.mark.parametrize("sent", [
    "²", "\u0662", "\uff19", "1\u00b2", " 7", "7 ", "+7", "-7", "7.0", "1e3", "0x7", "", "seven", True, False, 7.0,
    None, [7], {"n": 7}, "9" * 21,
])
def test_anything_else_is_refused_naming_the_field(sent):
    with pytest.raises(FieldError) as refused:
        whole_number(sent, "count", 0, 10)
    assert refused.value.field == "count"
    assert refused.value.message.startswith("count must be a whole number from 0 to 10, got ")


@pytest.mark.parametrize("sent", [-1, "11", 11, 2**64])
def test_a_number_outside_the_bounds_is_refused(sent):
    with pytest.raises(FieldError, match=r"from 0 to 10"):
        whole_number(sent, "n", 0, 10)


def test_the_callers_message_and_error_type():
    with pytest.raises(InterviewError) as refused:
        whole_number("²", "score", 1, 4, message="score must be one of 1, 2, 3, 4", error=InterviewError)
    assert (refused.value.message, refused.value.field, refused.value.status) == (
        "score must be one of 1, 2, 3, 4", "score", 400)


def test_a_blank_optional_field_is_none():
    assert optional_whole_number(None, "n", 0, 10) is None
    assert optional_whole_number("", "n", 0, 10) is None
    assert optional_whole_number("3", "n", 0, 10) == 3
    with pytest.raises(FieldError):
        optional_whole_number(" ", "n", 0, 10)


def test_the_largest_stored_number_is_sqlites():
    assert MAX_STORED == 9_223_372_036_854_775_807  # SQLite: "a signed integer ... 8 bytes"
    assert whole_number(str(MAX_STORED), "id", 1, MAX_STORED) == MAX_STORED
