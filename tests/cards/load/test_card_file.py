"""Loading a card: its structure, and the shipped card loads clean."""

from pathlib import Path

import pytest

from quizapp.cards import CardError

from ..conftest import GOOD_CARD, error_of, line_of, load


def test_good_card_structure(write_card):
    card = load(write_card())
    assert card.id == "tiny"
    assert card.stage_names == ["short", "full", "followup-1", "wrong", "taught"]
    assert card.levels == ["L2"]
    assert card.follow_ups[0].label == "Working"
    assert card.pieces["short"].line == line_of(GOOD_CARD, "{{ users_fit }} users.")
    assert "users_fit" in card.pieces["short"].names
    assert card.variants[0].name == "Llama"


def test_invalid_yaml_points_at_the_line(write_card):
    text = GOOD_CARD.replace("tags: [kv-cache]", "tags: [kv-cache")
    diagnostic, _ = error_of(write_card, text)
    assert "not valid YAML" in diagnostic.message
    assert diagnostic.line >= line_of(text, "tags: [kv-cache")


def test_the_seed_card_loads_clean():
    card = load(Path("questions/kv-pool-users.md"))
    assert card.warnings == []
    # The seed's four follow-ups and three wrong answers first (their stages keep their numbers), then
    # those of the two cards merged into it (issue 20: kv-pool-tokens-for-seats, reading-the-kv-startup-lines).
    assert [f.level for f in card.follow_ups] == ["L2", "L2", "L3", "L3"] * 2
    assert len(card.wrong_answers) == 6


def test_every_problem_of_a_card_is_reported_in_one_run(write_card):
    """A YAML mistake, a section mistake, an expression that does not compile, a value the scenario
    does not derive, and a literal warning: all at once, in the order of their lines."""
    text = (GOOD_CARD.replace("title: A tiny card", "title: A tiny card: with a colon")
            .replace("  prompt_tokens: 512\n  output_tokens: 128\n", "")
            .replace("One token takes {{ kv_bytes_per_token | kib }}.", "One token takes {{ kv_bytes_per_token.\n\n"
                     "The pool holds 1,506 blocks.")
            .replace("## Wrong answers", "## Wrong answer"))
    path = write_card(text)
    with pytest.raises(CardError) as info:
        load(path)
    # (the render errors show under the card's scenario and its variant)
    found = [(d.line, d.severity, d.message.split(":")[0].split(" (and")[0]) for d in info.value.diagnostics]
    assert found == [
        (line_of(text, "title: A tiny"), "error", "front matter is not valid YAML"),
        (line_of(text, "How many users"), "error", "under the card's scenario"),
        (line_of(text, "{{ users_fit }} users."), "error", "under the card's scenario"),
        (line_of(text, "One token takes"), "error", "expression error"),
        (line_of(text, "## Wrong answer"), "error", "unknown section '## Wrong answer'"),
    ]
    assert info.value.diagnostic.message.startswith("front matter is not valid YAML")
    assert "tokens_per_user needs prompt_tokens and output_tokens in the scenario" in \
        info.value.diagnostics[1].message


def test_a_broken_card_carries_its_literal_warnings(write_card):
    text = GOOD_CARD.replace("## Wrong answers", "## Wrong answer").replace(
        "One token takes {{ kv_bytes_per_token | kib }}.", "The pool holds 1,506 blocks.")
    with pytest.raises(CardError) as info:
        load(write_card(text))
    assert [d.severity for d in info.value.diagnostics] == ["warning", "error"]
    assert [d.message for d in info.value.errors] == ["unknown section '## Wrong answer'"]


def test_a_variant_left_out_keeps_the_lines_of_the_next_ones(write_card):
    text = GOOD_CARD.replace("    model: meta-llama/Llama-3.1-8B-Instruct\n",
                             "    model: meta-llama/Llama-9\n  - name: Long\n    max_model_len: -1\n")
    with pytest.raises(CardError) as info:
        load(write_card(text))
    assert [(d.line, d.message.split(";")[0].split(" must")[0]) for d in info.value.diagnostics] == [
        (line_of(text, "Llama-9"), "variant 'Llama': unknown model 'meta-llama/Llama-9'"),
        (line_of(text, "max_model_len: -1"), "variant 'Long': max_model_len"),
    ]
