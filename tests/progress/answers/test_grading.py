"""Grading typed answers against real calculator values (Qwen3-8B on the L4, the seed scenario)."""

import pytest

from quizapp.calc import Quantity, calculate
from quizapp.progress.answers.reading import ParsedAnswer
from quizapp.progress.answers.grading import Grade, grade_answer, grade_card_answer, unit_label

GIB = 2**30
SAYS = "You took the startup concurrency as the user limit; it assumes every user fills max_model_len."


@pytest.fixture(scope="module")
def values():
    result = calculate({"model": "Qwen/Qwen3-8B", "gpu": "L4", "max_model_len": 8192, "pool_tokens": 24096,
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


# ---------------------------------------------------------------- grade_answer: users_fit


@pytest.mark.parametrize("text", ["37 users", "about 37 users", "37", "~37", "37.", "37.0", "thirty-seven users",
                                  "37 requests"])
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
    ("2.94", "2.94 is the startup concurrency (2.94x)"),
])
def test_startup_concurrency_is_the_known_mistake(values, concurrency_mistake, text, relation):
    grade = grade_answer(text, values["users_fit"], 0, concurrency_mistake)
    assert grade.verdict == "mistake"
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
    assert grade.verdict == "mistake"
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
    assert grade.message == ("Not quite: 37 GiB is a size in bytes, and the answer is a count of users: "
                             "37 users.")


def test_a_fraction_of_a_whole_count_is_close(values, concurrency_mistake):
    grade = grade_answer("37.65", values["users_fit"], 0, concurrency_mistake)
    assert grade.verdict == "close"
    assert grade.message == "Close: users come in whole numbers; it is 37 users, not 37.65."


def test_the_memory_over_weights_mistake(values):
    mistakes = [("memory_over_weights", values["memory_over_weights"], "You divided memory by size.")]
    grade = grade_answer("1.47", values["users_fit"], 0, mistakes)
    assert grade.verdict == "mistake" and grade.mistake["name"] == "memory_over_weights"


@pytest.mark.parametrize("text, why", [
    ("", "The answer box was empty, so nothing was checked."),
    ("no idea", "Nothing was checked: “no idea” is not a number. Type one number, with or without its unit "
                "(users), in the answer box; your reasoning goes in the working box."),
    ("3 is wrong, it is 37", "Nothing was checked: the answer box reads one number, with or without its unit "
                             "(users), and “3 is wrong, it is 37” is more than that. Put your reasoning in the "
                             "working box."),
    ("1e999", "Nothing was checked: “1e999” is too large a number to check."),
])
def test_no_single_number_is_unreadable_and_says_why_in_plain_words(values, concurrency_mistake, text, why):
    grade = grade_answer(text, values["users_fit"], 0, concurrency_mistake)
    assert grade.verdict == "unreadable"
    assert grade.typed is None and grade.mistake is None
    assert grade.message == why
    # Nothing of the answer is kept: an unreadable answer was not graded.
    assert grade.stored() == {"verdict": "unreadable", "message": why}


def test_the_working_s_numbers_are_never_read_as_the_answer(values, concurrency_mistake):
    """Issue 8: "each user holds 640 tokens so 37 fit" was "the unit in 640 tokens does not fit"."""
    grade = grade_answer("each user holds 640 tokens so 37 fit", values["users_fit"], 0, concurrency_mistake)
    assert grade.verdict == "unreadable" and "640 tokens does not fit" not in grade.message


# ---------------------------------------------------------------- grade_answer: bytes


@pytest.mark.parametrize("text", ["147456 bytes", "144 KiB", "147,456 B", "144KiB", "0.140625 MiB", "144"])
def test_kv_bytes_per_token_is_right_in_any_byte_unit(values, text):
    grade = grade_answer(text, values["kv_bytes_per_token"])
    assert grade.verdict == "right"
    assert grade.typed.value == 147456
    assert grade.message == "Right: 144 KiB."


def test_a_bare_number_reads_in_the_unit_shown_beside_the_box(values):
    assert unit_label(values["kv_bytes_per_token"]) == "KiB"
    grade = grade_answer("144", values["kv_bytes_per_token"])
    assert grade.verdict == "right"
    assert grade.typed == ParsedAnswer(147456.0, None, "144", 1024.0)


def test_a_bare_number_right_as_bytes_is_right(values):
    assert grade_answer("147456", values["kv_bytes_per_token"]).verdict == "right"


def test_a_count_unit_does_not_fit_bytes(values):
    grade = grade_answer("144 users", values["kv_bytes_per_token"])
    assert grade.verdict == "wrong"
    assert "the answer is a size in bytes" in grade.message


@pytest.mark.parametrize("text, verdict", [
    ("3.3 GiB", "right"),     # 3.309 GiB, right to the one decimal typed
    ("3.31 GiB", "right"),
    ("3.55 GB", "right"),     # 3.553 GB
    ("3.3GB", "close"),       # 3.3e9 is 7 % short of 3.553e9
    ("3.4 GiB", "close"),     # to one decimal it is 3.3
    ("3 GiB", "close"),       # rounding to a whole GiB (±15 %) is too coarse to be right
    ("3.3", "right"),         # beside a box that shows GiB
    ("3553099776", "right"),  # or in bytes, whichever reading is nearer
    ("5 GiB", "wrong"),
])
def test_kv_pool_bytes_at_the_precision_typed(values, text, verdict):
    assert values["kv_cache_memory_bytes"].value == 3_553_099_776
    assert grade_answer(text, values["kv_cache_memory_bytes"]).verdict == verdict


@pytest.mark.parametrize("name, label", [("kv_cache_memory_bytes", "GiB"), ("users_fit", "users"),
                                         ("max_concurrency", "x"), ("pool_tokens", "tokens"),
                                         ("memory_over_weights", ""), ("num_blocks", "blocks")])
def test_unit_label_is_the_unit_the_card_states_the_value_in(values, name, label):
    assert unit_label(values[name]) == label


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
                                           ("8B", "close"), ("8.19 B", "right")])
def test_parameters_read_b_as_billions(values, text, verdict):
    assert grade_answer(text, values["num_parameters"]).verdict == verdict


def test_non_numeric_quantities_cannot_be_graded(values):
    with pytest.raises(TypeError):
        grade_answer("bfloat16", values["kv_dtype"])


def test_negative_tolerance_is_refused(values):
    with pytest.raises(ValueError):
        grade_answer("37", values["users_fit"], tolerance=-0.1)


# ---------------------------------------------------------------- a card's answer, stored


def test_grade_card_answer_uses_the_card_s_value_tolerance_and_mistakes(values):
    answer = {"value": "users_fit", "tolerance": 0, "mistakes": [{"value": "max_concurrency", "says": SAYS}]}
    grade = grade_card_answer(answer, values, "2.94x")
    assert grade.verdict == "mistake" and grade.mistake["name"] == "max_concurrency"
    assert grade.stored() == {"verdict": "mistake", "message": grade.message, "expected": "37",
                              "derivation": values["users_fit"].derivation, "mistake": grade.mistake}


def test_grade_card_answer_is_none_when_the_scenario_does_not_derive_the_value(values):
    assert grade_card_answer({"value": "users_fit"}, {}, "37") is None
