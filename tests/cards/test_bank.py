"""The bank: broken cards are reported and skipped, the rest serve, edits are picked up."""

import os
from pathlib import Path

from quizapp.cards import Bank, load_bank

from .conftest import GOOD_CARD


def test_broken_card_is_listed_and_others_still_serve(write_card):
    good = write_card()
    write_card(GOOD_CARD.replace("id: tiny", "id: broken").replace("{{ users_fit }}", "{{ users_fitt }}"),
               name="broken.md")
    bank = Bank(good.parent).refresh()
    assert list(bank.cards) == ["tiny"]
    [diagnostic] = bank.diagnostics
    assert diagnostic.path.endswith("broken.md")
    assert diagnostic.line == 24  # the line of {{ users_fitt }}
    assert "users_fitt" in diagnostic.message


def test_duplicate_id_is_an_error_for_the_second_file(write_card):
    write_card()
    write_card(name="zz-copy.md")
    bank = Bank(write_card().parent).refresh()
    assert list(bank.cards) == ["tiny"]
    assert "already used" in bank.diagnostics[0].message


def test_edit_is_picked_up_by_modification_time(write_card):
    path = write_card()
    bank = Bank(path.parent, refresh_seconds=0).refresh()
    first = bank.get("tiny")
    assert bank.refresh().get("tiny") is first  # unchanged file: not parsed again
    path.write_text(GOOD_CARD.replace("A tiny card", "A renamed card"), encoding="utf-8")
    os.utime(path, (first.mtime + 5, first.mtime + 5))
    assert bank.refresh().get("tiny").title == "A renamed card"


def test_non_utf8_file_is_reported(write_card):
    path = write_card()
    (path.parent / "binary.md").write_bytes(b"\xff\xfe---\n")
    bank = Bank(path.parent).refresh()
    assert "tiny" in bank.cards
    assert "not UTF-8" in bank.diagnostics[0].message


def test_a_card_that_crashes_the_loader_is_a_diagnostic(write_card, monkeypatch):
    from quizapp.cards import bank as bank_module

    path = write_card()
    # Another text: a copy of tiny.md's (but for its id) would be known good without a load.
    write_card(GOOD_CARD.replace("id: tiny", "id: other").replace("A tiny card", "Another card"), name="other.md")

    real = bank_module.load_card

    def flaky(file, shown, full=False):
        if file.name == "other.md":
            raise RuntimeError("boom")
        return real(file, shown, full)

    monkeypatch.setattr(bank_module, "load_card", flaky)
    bank = Bank(path.parent).refresh()
    assert list(bank.cards) == ["tiny"]
    assert "RuntimeError: boom" in bank.diagnostics[0].message


def test_broken_cards_are_listed_by_their_file_stem(tmp_path):
    folder = tmp_path / "questions"
    folder.mkdir()
    seed = Path("questions/kv-pool-users.md").read_text(encoding="utf-8")
    (folder / "kv-pool-users.md").write_text(seed, encoding="utf-8")
    (folder / "pin-vs-fraction.md").write_text(seed.replace("id: kv-pool-users", "id: pin-vs-fraction")
                                               .replace("## Wrong answers", "## Wrong answer")
                                               .replace("## Taught in", "## Taught"), encoding="utf-8")
    bank = load_bank(folder)
    assert list(bank.cards) == ["kv-pool-users"]
    broken = bank.broken()
    assert list(broken) == ["pin-vs-fraction"]
    assert [d.message for d in broken["pin-vs-fraction"]] == ["unknown section '## Wrong answer'",
                                                              "unknown section '## Taught'"]
