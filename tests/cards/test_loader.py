"""Loading a card: its structure, and the shipped card loads clean."""

from pathlib import Path

from .conftest import GOOD_CARD, error_of, line_of, load


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
    assert len(card.follow_ups) == 4 and [f.level for f in card.follow_ups] == ["L2", "L2", "L3", "L3"]
    assert len(card.wrong_answers) == 3
