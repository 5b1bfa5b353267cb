"""Reading the one number in a card's answer box: digits, words, scale, unit, and why not."""

import time

import pytest

from quizapp.progress.answers.reading import MAX_CHARS, ParsedAnswer, Unreadable, read_number

GIB = 2**30


@pytest.mark.parametrize("text, value, unit, matched", [
    ("37", 37, None, "37"),
    ("about 37 users", 37, "users", "37 users"),
    ("~37", 37, None, "37"),
    ("≈ 37", 37, None, "37"),
    ("roughly 37", 37, None, "37"),
    ("approx. 37", 37, None, "37"),
    ("37.", 37, None, "37"),
    ("  37 users.  ", 37, "users", "37 users"),
    ("3 users", 3, "users", "3 users"),
    ("1 user", 1, "users", "1 user"),
    ("37 requests", 37, "users", "37 requests"),
    ("144 KiB", 147456, "B", "144 KiB"),
    ("144KiB", 147456, "B", "144KiB"),
    ("147456 bytes", 147456, "B", "147456 bytes"),
    ("147,456 B", 147456, "B", "147,456 B"),
    ("147 456 B", 147456, "B", "147 456 B"),
    ("147_456", 147456, None, "147_456"),
    ("147'456", 147456, None, "147'456"),
    ("1,546,000", 1_546_000, None, "1,546,000"),
    ("0.140625 MiB", 147456, "B", "0.140625 MiB"),
    ("3.3 GiB", 3.3 * GIB, "B", "3.3 GiB"),
    ("3.3GB", 3.3e9, "B", "3.3GB"),
    ("12 KB", 12_000, "B", "12 KB"),
    ("2 TB", 2e12, "B", "2 TB"),
    ("1 TiB", 2**40, "B", "1 TiB"),
    ("5 mebibytes", 5 * 2**20, "B", "5 mebibytes"),
    ("1.5M tokens", 1_500_000, "tokens", "1.5M tokens"),
    ("1.5 million tokens", 1_500_000, "tokens", "1.5 million tokens"),
    ("24k tokens", 24_000, "tokens", "24k tokens"),
    ("24 thousand", 24_000, None, "24 thousand"),
    ("2.94x", 2.94, "x", "2.94x"),
    ("2.94 x", 2.94, "x", "2.94 x"),
    ("2.94×", 2.94, "x", "2.94×"),
    ("2,94", 2.94, None, "2,94"),                       # a decimal comma: no group of three follows
    ("1.47e3", 1470, None, "1.47e3"),
    ("1.47E+3", 1470, None, "1.47E+3"),
    ("1.47 × 10^3", 1470, None, "1.47 × 10^3"),
    ("1.47x10**3 tokens", 1470, "tokens", "1.47x10**3 tokens"),
    ("1.47·10³", 1470, None, "1.47·10^3"),
    ("-5", -5, None, "-5"),
    ("１２３", 123, None, "123"),                        # full-width digits
    ("1,506 blocks", 1506, "blocks", "1,506 blocks"),
    ("thirty-seven users", 37, "users", "thirty-seven users"),
    ("Thirty seven", 37, None, "Thirty seven"),
    ("about thirty-seven", 37, None, "thirty-seven"),
    ("three", 3, None, "three"),
    ("one hundred and twenty users", 120, "users", "one hundred and twenty users"),
    ("nine hundred ninety-nine", 999, None, "nine hundred ninety-nine"),
    ("twenty-four thousand tokens", 24_000, "tokens", "twenty-four thousand tokens"),
    # Words between the number and its unit, and what the unit is counted per (issue 18).
    ("37 simultaneous users", 37, "users", "37 simultaneous users"),
    ("thirty-seven concurrent users", 37, "users", "thirty-seven concurrent users"),
    ("1,506 whole blocks", 1506, "blocks", "1,506 whole blocks"),
    ("about 144 KiB per token", 144 * 1024, "B", "144 KiB per token"),
    ("144 KiB/token", 144 * 1024, "B", "144 KiB/token"),
    ("640 tokens per user", 640, "tokens", "640 tokens per user"),
])
def test_reads_number_scale_and_unit(text, value, unit, matched):
    parsed = read_number(text)
    assert isinstance(parsed, ParsedAnswer)
    assert parsed.value == pytest.approx(value)
    assert parsed.unit == unit
    assert parsed.matched == matched


@pytest.mark.parametrize("text, step", [
    ("37", 1), ("37.0", 0.1), ("3.3 GiB", 0.1 * GIB), ("144 KiB", 1024), ("1.5M tokens", 100_000),
    ("2.94x", 0.01), ("1.47e3", 10), ("twenty-four thousand", 1000), ("thirty-seven", 1), ("1,506", 1),
])
def test_keeps_the_precision_typed(text, step):
    assert read_number(text).step == pytest.approx(step)


@pytest.mark.parametrize("text, billions, value, unit", [
    ("8B", False, 8, "B"),             # a bare B is bytes …
    ("8.19B", True, 8.19e9, None),     # … and billions when the answer counts parameters
    ("8.19 billion", False, 8.19e9, None),
])
def test_b_reads_as_bytes_unless_the_answer_counts_parameters(text, billions, value, unit):
    parsed = read_number(text, billions=billions)
    assert (parsed.value, parsed.unit) == (pytest.approx(value), unit)


@pytest.mark.parametrize("text, reason", [
    ("", "empty"),
    ("   ", "empty"),
    (None, "empty"),
    ("lots", "no_number"),
    ("no idea", "no_number"),
    ("3 is wrong, it is 37", "more_than_a_number"),
    ("each user holds 640 tokens so 37 fit", "more_than_a_number"),
    ("Qwen3-8B fits 37", "more_than_a_number"),
    ("37, maybe 40", "more_than_a_number"),
    ("three and four", "more_than_a_number"),
    ("37 apples", "more_than_a_number"),
    ("37 users fit", "more_than_a_number"),
    ("37 big users fit", "more_than_a_number"),         # words before the unit, but more after it
    ("37 simultaneous", "more_than_a_number"),          # words, and no unit after them
    ("three and four users", "more_than_a_number"),     # a number word is not a word before the unit
    ("37 very many more real users", "more_than_a_number"),  # at most three words
    ("144 KiB per apple", "more_than_a_number"),
    ("1e400", "too_large"),
    ("9" * 40, "too_large"),
    ("hundred " * 160, "more_than_a_number"),     # too long to be a number (issue 12, M4)
])
def test_anything_but_one_number_is_unreadable_with_its_reason(text, reason):
    assert read_number(text) == Unreadable(reason, (text or "").strip()[:MAX_CHARS] +
                                           ("…" if len((text or "").strip()) > MAX_CHARS else ""))


def test_reading_is_fast_on_hostile_text():
    for text in ["1" * 79 + "!", "1," * 39 + "!", "one " * 19 + "!", "1 " * 39 + "x", "~" * 79 + "1",
                 "1" + " ab" * 26, "1" + " a" * 38 + " users"]:
        started = time.perf_counter()
        read_number(text)
        assert time.perf_counter() - started < 0.05, text


def test_parsed_answer_is_frozen():
    parsed = read_number("37")
    with pytest.raises(AttributeError):
        parsed.value = 38


@pytest.mark.parametrize("text, value, unit", [
    ("17.25 ms", 0.01725, "s"), ("0.01725 s", 0.01725, "s"), ("about 17 ms", 0.017, "s"),
    ("34.6 µs", 34.6e-6, "s"), ("2 seconds", 2, "s"), ("3 ms per token", 0.003, "s"),
    ("$0.165", 0.165, "$"), ("~$0.17", 0.17, "$"), ("0.165 dollars", 0.165, "$"),
])
def test_times_and_prices_are_read_in_seconds_and_dollars(text, value, unit):
    # The time bounds are in seconds and the cost values in dollars: 1 ms = 0.001 s.
    reading = read_number(text)
    assert reading.value == pytest.approx(value) and reading.unit == unit


def test_a_dollar_sign_before_another_unit_is_not_a_price():
    assert read_number("$5 GB").reason == "more_than_a_number"
