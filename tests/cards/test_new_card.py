"""A new card's stub: every section in place with its comment, and it loads as it is."""

from pathlib import Path

import pytest

from quizapp.cards import CardError, load_card
from quizapp.cards.new_card import card_id_from_title, find_card_file, front_matter_blocks, stub_text
from quizapp.cards.load.sections import SECTIONS

SEED = Path("questions/kv-pool-users.md")


def test_an_id_from_a_title():
    assert card_id_from_title("Pin vs fraction: which one?") == "pin-vs-fraction-which-one"
    assert card_id_from_title("KV heads & TP=8 (Qwen3-30B-A3B)") == "kv-heads-tp-8-qwen3-30b-a3b"
    assert card_id_from_title("???") == ""


def test_the_stub_loads_as_a_draft_with_every_section_and_its_comment(tmp_path):
    path = tmp_path / "pin-vs-fraction.md"
    path.write_text(stub_text("pin-vs-fraction", "Pin vs fraction: which one?", str(path)), encoding="utf-8")
    card = load_card(path, str(path), full=True)
    assert card.draft is True
    [warning] = card.warnings
    draft_line = path.read_text(encoding="utf-8").splitlines().index("draft: true") + 1
    assert (warning.severity, warning.line) == ("warning", draft_line)
    assert warning.message == "draft: the card is kept out of the bank, practice, print and the Anki export"
    assert (card.id, card.title) == ("pin-vs-fraction", "Pin vs fraction: which one?")
    assert card.stage_names == ["short", "full", "followup-1", "followup-2", "wrong", "taught"]
    assert [f.level for f in card.follow_ups] == ["L2", "L3"] and len(card.wrong_answers) == 2
    text = path.read_text(encoding="utf-8")
    for section in SECTIONS:
        assert f"## {section.heading}\n\n<!-- " in text, section.heading


def test_a_stub_published_with_its_todos_left_is_an_error_at_each_todo_line(tmp_path):
    path = tmp_path / "pin-vs-fraction.md"
    text = stub_text("pin-vs-fraction", "Pin vs fraction", str(path), topic="kv-cache").replace("draft: true\n", "")
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CardError) as raised:
        load_card(path, str(path))
    lines = text.splitlines()
    body = lines.index("---", 1) + 1  # the front matter's comments say TODO too, and are not read
    todo_lines = [n for n, line in enumerate(lines, 1) if n > body and "TODO" in line]
    errors = [d for d in raised.value.diagnostics if d.severity == "error"]
    assert [d.line for d in errors] == todo_lines and len(todo_lines) >= 6
    assert {d.message for d in errors} == {"leftover TODO text in a card that is not a draft"}


def test_front_matter_blocks_keep_the_author_s_comments():
    blocks = front_matter_blocks(SEED)
    assert set(blocks) == {"scenario", "space", "variants"}
    assert blocks["scenario"].startswith("# The scenario of seed 003")
    assert "  pool_tokens: 24096\n" in blocks["scenario"] and "space" not in blocks["scenario"]
    assert blocks["variants"].startswith("variants:\n  - name: Llama 3.1 8B on the same pool")


def test_a_stub_from_another_card_has_its_scenario_and_loads(tmp_path):
    path = tmp_path / "users.md"
    path.write_text(stub_text("users", "Users", str(path), front_matter_blocks(SEED)), encoding="utf-8")
    card = load_card(path, str(path))
    seed = load_card(SEED, str(SEED))
    assert card.scenario == seed.scenario and card.space == seed.space
    assert [v.inputs for v in card.variants] == [v.inputs for v in seed.variants]


def test_a_card_file_is_found_by_its_id(tmp_path):
    (tmp_path / "other-name.md").write_text("---\nid: the-card\n---\n", encoding="utf-8")
    assert find_card_file(tmp_path, "the-card") == tmp_path / "other-name.md"
    assert find_card_file(tmp_path, "missing") is None


def test_a_stub_without_a_topic_leaves_it_blank_and_publishing_it_then_names_the_line(tmp_path):
    path = tmp_path / "t.md"
    text = stub_text("t", "T", str(path))
    assert "\ntopic: \n" in text and "kv-cache, prefill-decode" in text
    path.write_text(text.replace("draft: true\n", ""), encoding="utf-8")
    with pytest.raises(CardError) as raised:
        load_card(path, str(path))
    [missing] = [d for d in raised.value.diagnostics if "topic" in d.message]
    assert missing.message == "front matter has no 'topic'"
    assert missing.line == path.read_text(encoding="utf-8").splitlines().index("topic: ") + 1


def test_a_stub_with_a_topic_writes_it(tmp_path):
    path = tmp_path / "t.md"
    path.write_text(stub_text("t", "T", str(path), topic="roofline"), encoding="utf-8")
    assert load_card(path, str(path)).topic == "roofline"
