"""`quizapp check` over many files: split among processes, the same outcome as one process."""

import pytest

from quizapp.cards.check import run as check_run
from quizapp.cards.bank import load_files

from ..conftest import GOOD_CARD


def folder_of_cards(write_card):
    """Copies, broken copies, a duplicate id and a card with a warning, in file order."""
    texts = {}
    for i in range(8):
        text = GOOD_CARD.replace("id: tiny", f"id: card-{i}").replace("A tiny card", "A parallel card")
        if i in (2, 6):
            text = text.replace("{{ users_fit }}", "{{ users_fitt }}")
        texts[f"card-{i}.md"] = text
    texts["card-8.md"] = texts["card-1.md"]  # the id card-1 again
    texts["card-9.md"] = texts["card-0.md"].replace("id: card-0", "id: card-9").replace(
        "Because the config says so.", "The pool holds 24,096 tokens.")
    paths = [write_card(text, name=name) for name, text in texts.items()]
    return sorted(paths)


def serial_outcome(paths):
    """What `quizapp check` reported before it used a pool: load_files with full, and the
    warnings of the cards that load."""
    cards, diagnostics = load_files(paths, full=True)
    return {card.id: card.path for card in cards.values()}, sorted(
        diagnostics + [w for card in cards.values() for w in card.warnings], key=lambda d: (d.path, d.line))


def test_a_pool_of_processes_reports_exactly_what_one_process_does(write_card, monkeypatch):
    monkeypatch.setattr(check_run, "POOL_FROM_FILES", 2)
    paths = folder_of_cards(write_card)
    cards, diagnostics = check_run.check_files(paths, workers=2)
    expected_cards, expected_diagnostics = serial_outcome(paths)
    assert cards == expected_cards
    assert sorted(diagnostics, key=lambda d: (d.path, d.line)) == expected_diagnostics
    # Each broken copy at its own path and line; the duplicate at its id line.
    errors = [(d.path.rsplit("/", 1)[1], d.line) for d in expected_diagnostics if d.severity == "error"]
    assert errors == [("card-2.md", 24), ("card-6.md", 24), ("card-8.md", 2)]  # the {{ users_fitt }} line
    assert [(d.path.rsplit("/", 1)[1], d.severity) for d in expected_diagnostics if d.severity != "error"] == \
           [("card-9.md", "warning")]


def test_one_process_reports_the_same(write_card):
    paths = folder_of_cards(write_card)
    cards, diagnostics = check_run.check_files(paths, workers=1)
    assert (cards, sorted(diagnostics, key=lambda d: (d.path, d.line))) == serial_outcome(paths)


def test_an_old_id_may_not_be_a_live_id_nor_claimed_twice(write_card):
    from quizapp.cards.bank import Bank

    one = write_card(GOOD_CARD.replace("id: tiny", "id: one").replace("topic: kv-cache", "topic: kv-cache\n"
                                                                       "replaces: [old, two]"), name="one.md")
    write_card(GOOD_CARD.replace("id: tiny", "id: two"), name="two.md")
    write_card(GOOD_CARD.replace("id: tiny", "id: three").replace("topic: kv-cache", "topic: kv-cache\nreplaces: old"),
               name="three.md")
    cards, diagnostics = check_run.check_files(sorted(one.parent.glob("*.md")), workers=1)
    errors = [(d.path.rsplit("/", 1)[1], d.message) for d in diagnostics if d.severity == "error"]
    assert errors == [("one.md", "replaces: 'two' is the id of a live card, " + str(one.parent / "two.md")),
                      ("three.md", "replaces: 'old' is already replaced by " + str(one))]
    assert sorted(cards) == ["one", "three", "two"]
    bank = Bank(one.parent).refresh()
    assert bank.aliases == {"old": "one"}  # the live id and the second claim go to no card
    assert sum("replaces:" in d.message for d in bank.diagnostics) == 2


def test_replaces_must_name_ids_other_than_the_card_s_own(write_card):
    from quizapp.cards import CardError, load_card

    path = write_card(GOOD_CARD.replace("topic: kv-cache", "topic: kv-cache\nreplaces: [tiny, Bad Id]"))
    with pytest.raises(CardError) as raised:
        load_card(path, str(path))
    assert [d.message for d in raised.value.diagnostics if "replaces" in d.message] == [
        "replaces: 'tiny' is this card's own id", "replaces: 'Bad Id' is not a card id"]
