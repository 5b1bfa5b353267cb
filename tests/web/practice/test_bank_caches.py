"""The bank page keeps what is the same for every reader (issue 21: `/` cost 3.6 ms of CPU, 19
times hello world's): what it derives from the listing, once per listing, and each card's
heading and details, once per file version. What is kept must never outlive what it was drawn
from: a card added, broken or edited on disk shows as it now is."""

import os
import re
import shutil

import pytest

from quizapp import create_app

from ..conftest import QUESTIONS_DIR, BrowserClient

POOL_TITLE = "How many users fit in the KV pool"


@pytest.fixture
def folder(tmp_path):
    folder = tmp_path / "questions"
    shutil.copytree(QUESTIONS_DIR, folder)
    return folder


@pytest.fixture
def app(folder, tmp_path):
    # The folder is looked at on every request, so an edit shows on the next page.
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "db.sqlite"), "QUESTIONS_DIR": str(folder),
                      "BANK_REFRESH_SECONDS": 0})
    app.test_client_class = BrowserClient
    return app


def titles(page: str) -> list[str]:
    return re.findall(r'<li class="bank-card"[^>]*>\s*<h2><a href="[^"]+">([^<]+)</a>', page)


def add_copy(folder, card_id: str, title: str, tags: str) -> None:
    text = (QUESTIONS_DIR / "kv-pool-users.md").read_text(encoding="utf-8")
    text = text.replace("id: kv-pool-users", f"id: {card_id}").replace(f"title: {POOL_TITLE}", f"title: {title}")
    (folder / f"{card_id}.md").write_text(text.replace("tags: [kv-cache, capacity, vllm]", f"tags: [{tags}]"),
                                          encoding="utf-8")


def test_a_card_added_to_the_folder_is_listed_counted_and_offered_by_its_tag(app, folder):
    client = app.test_client()
    page = client.get("/").text
    assert re.search(r'id="count">2 cards', page) and "added-later" not in page
    add_copy(folder, "added", "A card added later", "added-later")
    page = client.get("/").text
    assert re.search(r'id="count">3 cards', page)
    assert "A card added later" in titles(page)
    assert '<option value="added-later">added-later</option>' in page


def test_a_card_file_that_breaks_is_counted_as_broken(app, folder):
    client = app.test_client()
    assert "with errors" not in client.get("/").text
    text = (folder / "kv-pool-users.md").read_text(encoding="utf-8")
    # A name the card's scenario does not define: the card does not load.
    (folder / "kv-pool-users.md").write_text(text.replace("{{ users_fit | commas }}", "{{ users_fits | commas }}"),
                                             encoding="utf-8")
    page = client.get("/").text
    assert '<a href="/author">1 card with errors</a>' in page
    assert titles(page) == ["KV bytes for one token"]
