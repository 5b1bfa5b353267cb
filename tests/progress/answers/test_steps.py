"""A worked answer checked step by step (issue 18, point 6), against real calculator values:
Qwen3-8B on the L4 with the pool its startup log printed (the seed scenario of kv-pool-users)."""

import pytest

from quizapp.calc import calculate
from quizapp.progress.answers.steps import boxed_steps, check_steps, divergence_text, first_divergence

ANSWER = {"value": "users_fit", "tolerance": 0.0, "mistakes": [],
          "steps": [["kv_bytes_per_token"], ["num_blocks", "pool_tokens"], ["users_fit"]]}


@pytest.fixture(scope="module")
def values():
    return calculate({"model": "Qwen/Qwen3-8B", "gpu": "L4", "max_model_len": 8192, "pool_tokens": 24096,
                      "prompt_tokens": 512, "output_tokens": 128}).values


def test_each_step_but_the_answer_s_own_value_gets_a_box(values):
    steps = boxed_steps(ANSWER, values)
    assert [(s.field, s.label, s.unit) for s in steps] == [
        ("step-kv_bytes_per_token", "The KV bytes per token", "KiB"),
        ("step-num_blocks", "The number of blocks or the pool in tokens", "blocks or tokens")]


def test_bytes_per_token_counted_once_is_the_first_step_that_diverges(values):
    """The acceptance case: 72 KiB (key and value counted once) and then the right blocks."""
    checked = check_steps(ANSWER, values, {"step-kv_bytes_per_token": "72 KiB", "step-num_blocks": "1,506"})
    assert [(s["name"], s["verdict"]) for s in checked] == [("kv_bytes_per_token", "wrong"), ("num_blocks", "right")]
    first = first_divergence(checked)
    # 36 layers × 8 KV heads × 128 × 2 (K and V) × 2 bytes = 147,456 B = 144 KiB, twice the 72 typed.
    assert divergence_text(first) == (
        "The first step that diverges is step 1, the KV bytes per token: you wrote 72 KiB, and it is 144 KiB "
        "(36 layers × 8 KV heads × 128 head size × 2 (K and V) × 2 bytes = 147,456 B = 144 KiB).")


def test_a_step_in_tokens_is_checked_against_the_pool_in_tokens(values):
    checked = check_steps(ANSWER, values, {"step-num_blocks": "24,096 tokens"})
    assert [(s["name"], s["verdict"], s["number"]) for s in checked] == [("pool_tokens", "right", 2)]
    # ⌊24,096 ÷ 16⌋ = 1,506 whole blocks; 1,500 is close, not right.
    [blocks] = check_steps(ANSWER, values, {"step-num_blocks": "1500 blocks"})
    assert (blocks["name"], blocks["verdict"]) == ("num_blocks", "close")


def test_steps_left_empty_are_not_checked_and_an_unreadable_one_does_not_diverge(values):
    assert check_steps(ANSWER, values, {}) == []
    checked = check_steps(ANSWER, values, {"step-kv_bytes_per_token": "lots", "step-num_blocks": "1,506 blocks"})
    assert [s["verdict"] for s in checked] == ["unreadable", "right"] and first_divergence(checked) is None


def test_a_card_without_steps_has_no_boxes(values):
    assert boxed_steps({"value": "users_fit"}, values) == [] and boxed_steps(None, values) == []
