"""Issue 18, drafts: a card that `quizapp new` writes is a draft, absent from the bank, practice,
print and the Anki export, and listed (with its preview) on /author/ only."""

import zipfile
import sqlite3

import pytest

from quizapp import create_app
from quizapp.cli import main

from ..conftest import BrowserClient

DRAFT_TITLE = "Draft card"


@pytest.fixture
def folder(tmp_path, questions_dir, capsys):
    """The web tests' model card and a new card, as `quizapp new "Draft card"` writes it."""
    folder = tmp_path / "questions"
    folder.mkdir()
    seed = (questions_dir / "kv-pool-users.md").read_text(encoding="utf-8")
    (folder / "kv-pool-users.md").write_text(seed, encoding="utf-8")
    main(["new", DRAFT_TITLE, "--questions", str(folder)])
    assert (folder / "draft-card.md").is_file()
    capsys.readouterr()
    return folder


@pytest.fixture
def client(database, tmp_path, folder):
    app = create_app({"TESTING": True, "QUESTIONS_DIR": str(folder), "DATABASE": database})
    app.test_client_class = BrowserClient  # its posts carry the CSRF token
    return app.test_client()


def test_a_draft_is_in_no_page_a_reader_sees(client):
    bank = client.get("/").text
    assert "How many users fit in the KV pool" in bank and DRAFT_TITLE not in bank and "TODO" not in bank
    assert client.get("/cards/draft-card").status_code == 404
    assert client.get("/cards/draft-card/print").status_code == 404
    deck = client.get("/print?role=Inference Engineering").text
    assert "How many users fit" in deck and DRAFT_TITLE not in deck and "TODO" not in deck
    assert client.get("/api/cards/draft-card/values").status_code == 404
    # Practice takes the one published card, and after it nothing: never the draft.
    first = client.get("/practice")
    assert first.headers["Location"].startswith("/cards/kv-pool-users")
    assert client.post("/practice/skip", data={"card_id": "kv-pool-users"}).status_code == 303
    done = client.get("/practice", follow_redirects=True).text
    assert "Every card left to practise here is one you skipped" in done and "draft-card" not in done


def test_the_author_page_lists_the_draft_with_its_preview(client):
    page = client.get("/author/").text
    drafts = page.split('id="drafts"')[1].split("<h2")[0]
    assert DRAFT_TITLE in drafts and 'href="/author/cards/draft-card"' in drafts
    cards = page.split('id="drafts"')[1].split("<h2>Cards</h2>")[1]
    assert DRAFT_TITLE not in cards
    preview = client.get("/author/cards/draft-card")
    assert preview.status_code == 200 and "TODO: the question." in preview.text


def test_a_draft_is_not_in_the_anki_export(tmp_path, folder, capsys):
    deck = tmp_path / "deck.apkg"
    main(["export", "anki", str(deck), "--questions", str(folder)])
    with zipfile.ZipFile(deck) as package:
        package.extract("collection.anki2", tmp_path)
    with sqlite3.connect(tmp_path / "collection.anki2") as db:
        fields = [row[0] for row in db.execute("SELECT flds FROM notes")]
    # One note, the published card's (its id is the note's last field), and no TODO in the deck.
    assert [text.split("\x1f")[-1] for text in fields] == ["kv-pool-users"]
    assert not any("TODO" in text for text in fields)


def test_an_interview_cannot_use_a_draft(client):
    page = client.get("/interview/new").text
    assert DRAFT_TITLE not in page
