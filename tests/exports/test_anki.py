"""`quizapp export anki`: a deck Anki opens, one note per public card, each stage a field."""

import sqlite3
import zipfile
from pathlib import Path

import pytest

from quizapp.cards import load_bank
from quizapp.cli import main
from quizapp.exports.anki import FIELDS

from tests.paths import QUESTIONS


def notes(deck: Path, tmp_path: Path) -> list[tuple[str, str]]:
    """(fields, tags) of each note in the deck's collection.anki2."""
    with zipfile.ZipFile(deck) as package:
        package.extract("collection.anki2", tmp_path)
    with sqlite3.connect(tmp_path / "collection.anki2") as db:
        return db.execute("SELECT flds, tags FROM notes").fetchall()


def test_one_note_per_public_card_with_its_stages_numbers_and_tags(tmp_path, capsys):
    deck = tmp_path / "quizapp.apkg"
    main(["export", "anki", str(deck), "--questions", str(QUESTIONS)])
    bank = load_bank(QUESTIONS)
    public = [card for card in bank.cards.values() if not card.interview_only]
    assert len(public) < len(bank.cards)  # the bank has interview-only cards, and they stay out
    rows = notes(deck, tmp_path)
    assert len(rows) == len(public)
    by_id = {fields.split("\x1f")[FIELDS.index("Card id")]: (fields.split("\x1f"), tags) for fields, tags in rows}
    assert set(by_id) == {card.id for card in public}
    fields, tags = by_id["kv-pool-users"]
    assert "37" in fields[FIELDS.index("Short answer")]  # the card's own scenario's number
    assert "Expected answer" in fields[FIELDS.index("Follow-ups")]
    assert fields[FIELDS.index("Wrong answers")].startswith("<ul>")
    assert "Inference_Engineering" in tags.split()
    assert f"wrote {deck}: {len(public)} cards" in capsys.readouterr().out


def test_an_error_is_one_line_and_exit_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as done:
        main(["export", "anki", str(tmp_path / "no-folder" / "x.apkg"), "--questions", str(QUESTIONS)])
    assert done.value.code == 2
    error = capsys.readouterr().err
    assert error.startswith("quizapp: error: cannot write") and error.count("\n") == 1
