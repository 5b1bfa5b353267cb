"""Reading and grading typed answers against real calculator values (Qwen3-8B, the seed scenario)."""

import pytest

from quizapp.calc import Quantity, calculate
from quizapp.progress.answers import Grade, ParsedAnswer, grade_answer, parse_answer

GIB = 2**30
SAYS = "You took the startup concurrency as the user limit; it assumes every user fills max_model_len."


@pytest.fixture(scope="module")
def values():
    result = calculate({"model": "Qwen/Qwen3-8B", "max_model_len": 8192, "pool_tokens": 24096,
                        "prompt_tokens": 512, "output_tokens": 128})
    return result.values


@pytest.fixture(scope="module")
def concurrency_mistake(values):
    return [("max_concurrency", values["max_concurrency"], SAYS)]


def test_the_scenario_values_are_the_ones_the_tests_assume(values):
    assert values["users_fit"].value == 37
    assert values["max_concurrency"].value == 2.94140625
    assert values["max_concurrency"].unit == "x"
    assert values["kv_bytes_per_token"].value == 147456
    assert values["kv_cache_memory_bytes"].value == 3_553_099_776


# ---------------------------------------------------------------- parse_answer


@pytest.mark.parametrize("text, value, unit, matched", [
    ("37", 37, None, "37"),
    ("about 37 users", 37, "users", "37 users"),
    ("~37", 37, None, "37"),
    ("37.", 37, None, "37"),
    ("3 users", 3, "users", "3 users"),
    ("37 requests", 37, "users", "37 requests"),
    ("144 KiB", 147456, "B", "144 KiB"),
    ("144KiB", 147456, "B", "144KiB"),
    ("147456 bytes", 147456, "B", "147456 bytes"),
    ("147,456 B", 147456, "B", "147,456 B"),
    ("3.3 GiB", 3.3 * GIB, "B", "3.3 GiB"),
    ("3.3GB", 3.3e9, "B", "3.3GB"),
    ("12 KB", 12_000, "B", "12 KB"),
    ("5 MiB", 5 * 2**20, "B", "5 MiB"),
    ("2 MB", 2_000_000, "B", "2 MB"),
    ("2 TB", 2e12, "B", "2 TB"),
    ("1 TiB", 2**40, "B", "1 TiB"),
    ("1.5M tokens", 1_500_000, "tokens", "1.5M tokens"),
    ("1.5 million tokens", 1_500_000, "tokens", "1.5 million tokens"),
    ("24k tokens", 24_000, "tokens", "24k tokens"),
    ("24 thousand", 24_000, None, "24 thousand"),
    ("2.94x", 2.94, "x", "2.94x"),
    ("2.94 x", 2.94, "x", "2.94 x"),
    ("2.94×", 2.94, "x", "2.94×"),
    ("thirty-seven users", 37, "users", "thirty-seven users"),
    ("Thirty seven", 37, None, "Thirty seven"),
    ("three users", 3, "users", "three users"),
    ("three", 3, None, "three"),
    ("one hundred and twenty users", 120, "users", "one hundred and twenty users"),
    ("nine hundred ninety-nine", 999, None, "nine hundred ninety-nine"),
    ("twenty-four thousand tokens", 24_000, "tokens", "twenty-four thousand tokens"),
])
def test_parse_reads_number_scale_and_unit(text, value, unit, matched):
    parsed = parse_answer(text)
    assert parsed.value == pytest.approx(value)
    assert parsed.unit == unit
    assert parsed.matched == matched


@pytest.mark.parametrize("text", ["", "no idea", "   ", "I don't know, sorry", "Qwen3-8B", "3rd"])
def test_parse_returns_none_without_a_standalone_number(text):
    assert parse_answer(text) is None


@pytest.mark.parametrize("text, value, unit", [
    ("Qwen3-8B fits 37", 37, None),                                    # 3 and 8 are in the name
    ("Qwen/Qwen3-8B takes 144 KiB a token, so 37 users", 37, "users"),  # last number with a unit
    ("meta-llama/Llama-3.1-8B-Instruct: 40", 40, None),
    ("Mistral-7B-Instruct-v0.3 gives 12 users", 12, "users"),
    ("an H100 with 80GB", 80e9, "B"),
    ("37, maybe 40", 37, None),                                         # no unit: the first number
    ("three and four", 3, None),                                        # "and" joins only after a scale word
    ("1.5 million", 1_500_000, None),                                   # "million" is not read a second time
])
def test_parse_skips_model_names_and_picks_by_the_documented_rule(text, value, unit):
    parsed = parse_answer(text)
    assert (parsed.value, parsed.unit) == (pytest.approx(value), unit)


@pytest.mark.parametrize("text, step", [
    ("37", 1), ("3.3 GiB", 0.1 * GIB), ("144 KiB", 1024), ("1.5M tokens", 100_000), ("2.94x", 0.01),
    ("twenty-four thousand", 1000), ("thirty-seven", 1),
])
def test_parse_keeps_the_precision_typed(text, step):
    assert parse_answer(text).step == pytest.approx(step)


def test_parsed_answer_is_frozen():
    parsed = parse_answer("37")
    assert isinstance(parsed, ParsedAnswer)
    with pytest.raises(AttributeError):
        parsed.value = 38


# ---------------------------------------------------------------- grade_answer: users_fit


@pytest.mark.parametrize("text", ["37 users", "about 37 users", "37", "~37", "37.", "thirty-seven users",
                                  "Qwen3-8B fits 37", "37 requests"])
def test_37_is_right_for_users_fit(values, concurrency_mistake, text):
    grade = grade_answer(text, values["users_fit"], 0, concurrency_mistake)
    assert grade.verdict == "right"
    assert grade.typed.value == 37
    assert grade.mistake is None
    assert grade.message == "Right: 37 users."


def test_grade_carries_the_expected_text_and_derivation(values):
    grade = grade_answer("37", values["users_fit"])
    assert isinstance(grade, Grade)
    assert grade.expected_text == "37"
    assert grade.derivation == "⌊(1,506 blocks − 1 null block) ÷ 40 blocks per user⌋ = 37 users"


def test_36_is_close_for_users_fit(values, concurrency_mistake):
    grade = grade_answer("36", values["users_fit"], 0, concurrency_mistake)
    assert grade.verdict == "close"
    assert grade.mistake is None
    assert grade.message == "Close: you said 36; it is 37 users."


@pytest.mark.parametrize("text, relation", [
    ("3", "3 is the startup concurrency (2.94x) rounded"),
    ("three users", "three users is the startup concurrency (2.94x) rounded"),
    ("2 users", "2 users is the startup concurrency (2.94x) rounded down"),
    ("2.94x", "2.94x is the startup concurrency (2.94x)"),
])
def test_startup_concurrency_is_the_known_mistake(values, concurrency_mistake, text, relation):
    grade = grade_answer(text, values["users_fit"], 0, concurrency_mistake)
    assert grade.verdict == "wrong"
    assert grade.mistake == {"name": "max_concurrency", "says": SAYS, "text": "2.94x"}
    assert grade.message == f"Not quite: {relation} — {SAYS}"


def test_mistakes_may_be_any_iterable_and_says_gets_a_full_stop(values):
    mistakes = (m for m in [("max_concurrency", values["max_concurrency"], "Startup concurrency")])
    grade = grade_answer("3", values["users_fit"], 0, mistakes)
    assert grade.mistake["name"] == "max_concurrency"
    assert grade.message.endswith("— Startup concurrency.")


def test_a_mistake_outranks_close(values):
    near_miss = Quantity(36.2, "users", "36.2", "a value a near mistake produces")
    grade = grade_answer("36", values["users_fit"], 0, [("near_miss", near_miss, "Off by one block.")])
    assert grade.verdict == "wrong"
    assert grade.mistake["name"] == "near_miss"
    assert grade.message == "Not quite: 36 is the near miss (36.2) — Off by one block."


def test_a_far_number_is_wrong(values, concurrency_mistake):
    grade = grade_answer("12", values["users_fit"], 0, concurrency_mistake)
    assert grade.verdict == "wrong"
    assert grade.mistake is None
    assert grade.message == "Not quite: you said 12; it is 37 users."


def test_a_unit_that_does_not_fit_is_wrong(values, concurrency_mistake):
    grade = grade_answer("37 GiB", values["users_fit"], 0, concurrency_mistake)
    assert grade.verdict == "wrong"
    assert grade.message == "Not quite: the unit in 37 GiB does not fit a count of users; it is 37 users."


@pytest.mark.parametrize("text", ["", "no idea", "   "])
def test_no_number_is_unparsed(values, text):
    grade = grade_answer(text, values["users_fit"])
    assert grade.verdict == "unparsed"
    assert grade.typed is None
    assert grade.expected_text == "37"
    assert grade.message == "No number found: type a number, with its unit if it has one."


# ---------------------------------------------------------------- grade_answer: bytes


@pytest.mark.parametrize("text", ["147456 bytes", "144 KiB", "147,456 B", "144KiB"])
def test_kv_bytes_per_token_is_right_in_any_byte_unit(values, text):
    grade = grade_answer(text, values["kv_bytes_per_token"])
    assert grade.verdict == "right"
    assert grade.typed.value == 147456
    assert grade.message == "Right: 144 KiB."


def test_a_bare_144_is_close_and_asks_for_the_unit(values):
    grade = grade_answer("144", values["kv_bytes_per_token"])
    assert grade.verdict == "close"
    assert grade.typed == ParsedAnswer(144.0, None, "144", 1.0)
    assert grade.message == ("Close: 144 KiB would be right, but a number without a unit reads as bytes, "
                             "so give the unit (144 KiB).")


def test_a_bare_number_right_as_bytes_is_right(values):
    assert grade_answer("147456", values["kv_bytes_per_token"]).verdict == "right"


def test_a_count_unit_does_not_fit_bytes(values):
    grade = grade_answer("144 users", values["kv_bytes_per_token"])
    assert grade.verdict == "wrong"
    assert "does not fit a size in bytes" in grade.message


@pytest.mark.parametrize("text, verdict", [
    ("3.3 GiB", "right"),     # 3.309 GiB, right to the one decimal typed
    ("3.31 GiB", "right"),
    ("3.55 GB", "right"),     # 3.553 GB
    ("3.3GB", "close"),       # 3.3e9 is 7 % short of 3.553e9
    ("3.4 GiB", "close"),     # to one decimal it is 3.3
    ("3 GiB", "close"),       # rounding to a whole GiB (±15 %) is too coarse to be right
    ("3.3", "close"),         # right in GiB, but bare numbers read as bytes
    ("5 GiB", "wrong"),
])
def test_kv_pool_bytes_at_the_precision_typed(values, text, verdict):
    assert values["kv_cache_memory_bytes"].value == 3_553_099_776
    assert grade_answer(text, values["kv_cache_memory_bytes"]).verdict == verdict


def test_the_unit_hint_names_the_unit_that_fits(values):
    grade = grade_answer("3.3", values["kv_cache_memory_bytes"])
    assert grade.message.startswith("Close: 3.3 GiB would be right")


# ---------------------------------------------------------------- grade_answer: tokens, concurrency, tolerance

POOL = Quantity(1_546_000, "tokens", "1,546,000", "a pool of 1,546,000 tokens")


@pytest.mark.parametrize("text, expected, verdict", [
    ("1.5M tokens", POOL, "right"),
    ("1.5 million tokens", POOL, "right"),
    ("1.55M tokens", POOL, "right"),
    ("1,546,000", POOL, "right"),
    ("1,540,000 tokens", POOL, "close"),   # all digits typed, so it must be exact
    ("1.6M tokens", POOL, "close"),
    ("1.5M tokens", Quantity(1_560_000, "tokens", "1,560,000", ""), "close"),   # 1.56M rounds to 1.6M
    ("2M tokens", POOL, "wrong"),
])
def test_tokens_at_the_precision_typed(text, expected, verdict):
    assert grade_answer(text, expected).verdict == verdict


def test_tokens_message_adds_the_unit_to_the_text():
    assert grade_answer("1.5M tokens", POOL).message == "Right: 1,546,000 tokens."


@pytest.mark.parametrize("text, verdict", [
    ("2.94x", "right"), ("2.94", "right"), ("2.9x", "right"), ("3x", "close"), ("3", "close"),
    ("2.94 users", "right"), ("2.94 GiB", "wrong"), ("5x", "wrong"),
])
def test_max_concurrency(values, text, verdict):
    assert grade_answer(text, values["max_concurrency"]).verdict == verdict


@pytest.mark.parametrize("text, verdict", [("104", "right"), ("95", "right"), ("112", "close"),
                                           ("119", "close"), ("125", "wrong")])
def test_tolerance_widens_right_and_close(text, verdict):
    expected = Quantity(100, "tokens", "100", "")
    assert grade_answer(text, expected, tolerance=0.05).verdict == verdict


@pytest.mark.parametrize("text, verdict", [("8.19B", "right"), ("8.19 billion", "right"), ("8.2B", "right"),
                                           ("8B", "close"), ("Qwen3-8B has 8.19 B", "right")])
def test_parameters_read_b_as_billions(values, text, verdict):
    assert grade_answer(text, values["num_parameters"]).verdict == verdict


def test_non_numeric_quantities_cannot_be_graded(values):
    with pytest.raises(TypeError):
        grade_answer("bfloat16", values["kv_dtype"])


def test_negative_tolerance_is_refused(values):
    with pytest.raises(ValueError):
        grade_answer("37", values["users_fit"], tolerance=-0.1)
