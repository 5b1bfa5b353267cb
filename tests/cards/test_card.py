"""Loading a card: structure, expressions, and errors that name the file and the line."""

import pytest

from quizapp.cards import CardError, load_card, resolve_scenario
from quizapp.cards.render import sanitize

from .conftest import GOOD_CARD


def load(path):
    return load_card(path, str(path))


def error_of(write_card, text):
    path = write_card(text)
    with pytest.raises(CardError) as info:
        load(path)
    return info.value.diagnostic, path


def line_of(text, needle):
    return next(i for i, line in enumerate(text.splitlines(), start=1) if needle in line)


def test_good_card_structure(write_card):
    card = load(write_card())
    assert card.id == "tiny"
    assert card.stage_names == ["short", "full", "followup-1", "wrong", "taught"]
    assert card.levels == ["L2"]
    assert card.follow_ups[0].label == "Working"
    assert card.pieces["short"].line == line_of(GOOD_CARD, "{{ users_fit }} users.")
    assert "users_fit" in card.pieces["short"].names
    assert card.variants[0].name == "Llama"


def test_unknown_value_names_line_and_hint(write_card):
    text = GOOD_CARD.replace("{{ kv_bytes_per_token | kib }}", "{{ kv_bytes | kib }}")
    diagnostic, path = error_of(write_card, text)
    assert diagnostic.line == line_of(text, "kv_bytes |")
    assert str(diagnostic) == (f"{path}:{diagnostic.line}: error: unknown value 'kv_bytes' "
                               "(hint: did you mean 'kv_bytes_per_token'?)")


def test_unknown_filter_names_line_and_hint(write_card):
    text = GOOD_CARD.replace("| kib }}", "| kibi }}")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.line == line_of(text, "| kibi")
    assert "kibi" in diagnostic.message and diagnostic.hint == "did you mean 'kib'?"


def test_syntax_error_in_expression(write_card):
    text = GOOD_CARD.replace("{{ users_fit }} users.", "{{ users_fit + }} users.")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.line == line_of(text, "users_fit +")
    assert diagnostic.message.startswith("expression error")


def test_missing_section(write_card):
    text = GOOD_CARD.replace("## Short answer\n\n{{ users_fit }} users.\n", "")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.message == "missing section '## Short answer'"


def test_unknown_section_with_hint(write_card):
    text = GOOD_CARD.replace("## Wrong answers", "## Wrong answer")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.line == line_of(text, "## Wrong answer")
    assert diagnostic.hint == "did you mean 'Wrong answers'?"


def test_bad_scenario_value_points_at_its_key(write_card):
    text = GOOD_CARD.replace("max_model_len: 8192", "max_model_len: -8192")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.line == line_of(text, "max_model_len: -8192")
    assert "max_model_len must be positive" in diagnostic.message


def test_unknown_scenario_input(write_card):
    text = GOOD_CARD.replace("  prompt_tokens: 512", "  prompt_token: 512")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.line == line_of(text, "prompt_token: 512")
    assert diagnostic.hint == "did you mean 'prompt_tokens'?"


def test_broken_variant_names_the_variant(write_card):
    text = GOOD_CARD.replace("model: meta-llama/Llama-3.1-8B-Instruct", "model: meta-llama/Llama-9")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.line == line_of(text, "model: meta-llama/Llama-9")
    assert "variant 'Llama'" in diagnostic.message and "closest catalog ids" in diagnostic.message


def test_value_not_derived_in_scenario(write_card):
    text = GOOD_CARD.replace("  prompt_tokens: 512\n  output_tokens: 128\n", "")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.line == line_of(text, "How many users")
    assert "tokens_per_user" in diagnostic.message and "undefined" in diagnostic.message


def test_invalid_yaml_points_at_the_line(write_card):
    text = GOOD_CARD.replace("tags: [kv-cache]", "tags: [kv-cache")
    diagnostic, _ = error_of(write_card, text)
    assert "not valid YAML" in diagnostic.message
    assert diagnostic.line >= line_of(text, "tags: [kv-cache")


def test_bad_follow_up_heading(write_card):
    text = GOOD_CARD.replace("### L2 Working: Why", "### Working: Why")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.line == line_of(text, "### Working: Why")


def test_javascript_link_is_refused(write_card):
    text = GOOD_CARD.replace("variants:", "taught_in:\n  - title: x\n    link: javascript:alert(1)\nvariants:")
    diagnostic, _ = error_of(write_card, text)
    assert "must start with https://" in diagnostic.message


def test_author_script_never_reaches_html(write_card):
    text = GOOD_CARD.replace("Because the config says so.",
                             "Because <script>alert(1)</script> <a href=\"javascript:x()\" onclick=\"y()\">so</a>.")
    card = load(write_card(text))
    from quizapp.cards.render import render_piece

    html = render_piece(card, "followup-1", resolve_scenario(card, None, {})).html
    assert "<script" not in html and "onclick" not in html and "javascript:" not in html


def test_sanitize_keeps_markdown_output():
    assert sanitize('<p><code>x</code> <span class="measured" title="t">40</span></p>') == \
        '<p><code>x</code> <span class="measured" title="t">40</span></p>'


def test_literal_number_the_calculator_makes_is_a_warning(write_card):
    card = load(write_card(GOOD_CARD.replace("{{ users_fit }} users.", "37 users.")))
    assert len(card.warnings) == 1
    warning = card.warnings[0]
    assert warning.severity == "warning"
    assert warning.line == line_of(GOOD_CARD, "{{ users_fit }} users.")
    assert "'users_fit'" in warning.message


def test_the_seed_card_loads_clean():
    from pathlib import Path

    card = load(Path("questions/kv-pool-users.md"))
    assert card.warnings == []
    assert len(card.follow_ups) == 4 and [f.level for f in card.follow_ups] == ["L2", "L2", "L3", "L3"]
    assert len(card.wrong_answers) == 3


def test_render_error_points_at_its_own_line(write_card):
    text = GOOD_CARD.replace("One token takes {{ kv_bytes_per_token | kib }}.",
                             "One token takes\nquite a lot:\n{{ calc(model=\"Qwen/Qwen3-32B\").kv_bytes_per_tokn | kib }}.")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.line == line_of(text, "kv_bytes_per_tokn")
    assert "calc() has no value 'kv_bytes_per_tokn'" in diagnostic.message
    assert "did you mean 'kv_bytes_per_token'?" in diagnostic.message


@pytest.mark.parametrize("answer, words", [
    ("answer:\n  value: users_fit\n  mistakes: 5\n", "mistakes must be a list"),
    ("answer:\n  value: users_fit\n  mistakes:\n    - value: max_concurrency\n      says: [1]\n", "'says' (text)"),
    ("answer:\n  value: kv_dtype\n", "is not a number"),
])
def test_bad_answer_blocks_are_errors_not_crashes(write_card, answer, words):
    diagnostic, _ = error_of(write_card, GOOD_CARD.replace("variants:", answer + "variants:"))
    assert words in diagnostic.message


def test_calc_keeps_the_pool_bytes_like_a_reader_switch(write_card):
    text = GOOD_CARD.replace("One token takes {{ kv_bytes_per_token | kib }}.",
                             "Llama fits {{ calc(model=\"meta-llama/Llama-3.1-8B-Instruct\").users_fit }} users.")
    card = load(write_card(text))
    from quizapp.cards.render import render_piece

    html = render_piece(card, "full", resolve_scenario(card, None, {})).html
    reader = resolve_scenario(card, None, {"model": "meta-llama/Llama-3.1-8B-Instruct"}).result["users_fit"]
    assert f"Llama fits {reader} users." in html and reader == 42
