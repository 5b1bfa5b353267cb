"""Front matter: unknown keys and bad values are errors at their own line."""

import pytest

from quizapp.cards import load_card

from ..conftest import GOOD_CARD, error_of, line_of
from quizapp.cards import CardError

from ..conftest import GOOD_CARD, error_of, line_of, load


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
    ("answer:\n  value: users_fit\n  steps: kv_bytes_per_token\n", "steps must be a list of calculator values"),
    ("answer:\n  value: users_fit\n  steps: [kv_bytes_per_tokens]\n", "unknown value 'kv_bytes_per_tokens'"),
    ("answer:\n  value: users_fit\n  steps: [[]]\n", "each step is a calculator value, or a list"),
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
def errors_of(write_card, text):
    """Every diagnostic of a card that must fail to load."""
    path = write_card(text)
    with pytest.raises(CardError) as info:
        load(path)
    return info.value.diagnostics


def test_three_front_matter_mistakes_are_three_errors(write_card):
    text = (GOOD_CARD.replace("id: tiny", "id: Tiny Card").replace("tags: [kv-cache]", "tags: kv-cache")
            .replace("  prompt_tokens: 512", "  prompt_token: 512"))
    diagnostics = errors_of(write_card, text)
    assert [(d.line, d.message) for d in diagnostics] == [
        (line_of(text, "id: Tiny Card"), "id 'Tiny Card' must be lowercase letters, digits and dashes"),
        (line_of(text, "tags: kv-cache"), "tags must be a list of names, e.g. [tag one, two]"),
        (line_of(text, "prompt_token: 512"), "unknown calculator input 'prompt_token'"),
    ]


def test_unknown_models_and_gpus_list_close_catalog_ids(write_card):
    text = GOOD_CARD.replace("    model: meta-llama/Llama-3.1-8B-Instruct",
                             "    model: meta-llama/Llama-3.1-8B\n  - name: Spark\n    gpu: GB10")
    text = text.replace("variants:", "space:\n  models: [Qwen/Qwen3-8B, Qwen/Qwen3-8B-Instruct]\nvariants:")
    diagnostics = errors_of(write_card, text)
    messages = {d.line: d.message for d in diagnostics}
    assert messages[line_of(text, "models: [")] == ("unknown model 'Qwen/Qwen3-8B-Instruct'; closest catalog ids: "
                                                    "Qwen/Qwen3-8B, Qwen/Qwen2.5-72B-Instruct, "
                                                    "Qwen/Qwen3-Next-80B-A3B-Instruct")
    assert messages[line_of(text, "model: meta-llama/Llama-3.1-8B")].startswith(
        "variant 'Llama': unknown model 'meta-llama/Llama-3.1-8B'; closest catalog ids: "
        "meta-llama/Llama-3.1-8B-Instruct")
    assert messages[line_of(text, "gpu: GB10")].startswith(
        "variant 'Spark': unknown GPU 'GB10'; closest catalog GPUs: DGX-Spark (NVIDIA DGX Spark (GB10")


def test_answer_steps_are_lists_of_the_values_a_reader_may_give(write_card):
    text = GOOD_CARD.replace("variants:", "answer:\n  value: users_fit\n  steps: [kv_bytes_per_token, [num_blocks, "
                             "pool_tokens], users_fit]\nvariants:")
    card = load_card(write_card(text), "tiny.md")
    assert card.answer["steps"] == [["kv_bytes_per_token"], ["num_blocks", "pool_tokens"], ["users_fit"]]


def test_an_answer_step_the_scenario_does_not_derive_is_an_error_at_its_line(write_card):
    # A uniform-attention model has no linear-attention state per request.
    text = GOOD_CARD.replace("variants:", "answer:\n  value: users_fit\n  steps:\n    - state_bytes_per_request\n"
                             "variants:")
    with pytest.raises(CardError) as raised:
        load_card(write_card(text), "tiny.md")
    [diagnostic] = [d for d in raised.value.diagnostics if "answer step" in d.message]
    assert diagnostic.line == line_of(text, "- state_bytes_per_request")
    assert "answer step state_bytes_per_request is not a number the calculator derives here" in diagnostic.message


def test_an_unknown_topic_is_an_error_at_its_line_with_the_closest_id(write_card):
    text = GOOD_CARD.replace("topic: kv-cache", "topic: kv-cach")
    diagnostic, _ = error_of(write_card, text)
    assert (diagnostic.line, diagnostic.message) == (line_of(text, "topic: kv-cach"), "unknown topic 'kv-cach'")
    assert diagnostic.hint == "did you mean 'kv-cache'?"


def test_a_published_card_without_a_topic_is_an_error_and_a_draft_may_leave_it_out(write_card):
    text = GOOD_CARD.replace("topic: kv-cache\n", "")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.message == "front matter has no 'topic'" and "roofline" in diagnostic.hint
    card = load(write_card(text.replace("tags: [kv-cache]\n", "tags: [kv-cache]\ndraft: true\n")))
    assert card.draft and card.topic is None


def test_the_topic_is_held_by_the_card_and_its_index_entry(write_card):
    from quizapp.cards.index import read_entry

    path = write_card(GOOD_CARD.replace("topic: kv-cache", "topic: roofline"))
    assert load(path).topic == "roofline" and read_entry(path, str(path)).topic == "roofline"
