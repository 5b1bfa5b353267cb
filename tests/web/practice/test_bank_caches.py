"""The bank page keeps what is the same for every reader (issue 21: `/` cost 3.6 ms of CPU, 19
times hello world's): what it derives from the listing, once per listing, and each card's
heading and details, once per file version. What is kept must never outlive what it was drawn
from: a card added, broken or edited on disk shows as it now is."""

import os
import re
import shutil

import pytest

from quizapp import create_app
from quizapp.lru import LRU
from quizapp.progress.db.connection import connect
from quizapp.web import caches
from quizapp.web.practice import bank

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


def test_a_card_file_edited_on_disk_shows_its_new_title(app, folder):
    client = app.test_client()
    assert POOL_TITLE in titles(client.get("/").text)
    path = folder / "kv-pool-users.md"
    before = path.stat().st_mtime_ns
    path.write_text(path.read_text(encoding="utf-8").replace(f"title: {POOL_TITLE}", "title: Users in the pool"),
                    encoding="utf-8")
    os.utime(path, ns=(before + 5_000_000_000, before + 5_000_000_000))  # a new time, whatever the clock's step
    for reader in (client, app.test_client()):
        page = reader.get("/").text
        assert "Users in the pool" in titles(page) and POOL_TITLE not in page


def test_an_edit_that_keeps_the_file_s_time_shows_too(app, folder):
    """A second edit within the time's resolution (or a copy that kept it) changes the size, and
    the bank reads the file again: the card's listing is kept by its text, not by its time alone."""
    client = app.test_client()
    client.get("/")
    path = folder / "kv-pool-users.md"
    stat = path.stat()
    path.write_text(path.read_text(encoding="utf-8").replace(f"title: {POOL_TITLE}", "title: Same time, new title"),
                    encoding="utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_mtime_ns == stat.st_mtime_ns
    assert "Same time, new title" in titles(client.get("/").text)


def test_a_card_s_link_carries_the_prefix_of_the_request_that_shows_it(app):
    """Drawn once at the root, the list is not served under a prefix (``SCRIPT_NAME``) with root links."""
    assert 'href="/cards/kv-pool-users"' in app.test_client().get("/").text
    page = app.test_client().get("/", base_url="http://localhost/quiz").text  # SCRIPT_NAME=/quiz
    assert 'href="/quiz/cards/kv-pool-users"' in page and 'href="/cards/kv-pool-users"' not in page


def standing_of(page: str, card_id: str) -> str:
    card = page.split(f'id="card-{card_id}"')[1].split("</li>\n")[0]
    return re.search(r'<p class="standing standing-\w+">(.*?)</p>', card).group(1)


def grade_easy(client) -> str:
    """Grade kv-pool-users Easy as a reader does; the time it is due next, as stored."""
    client.get("/cards/kv-pool-users")
    client.post("/cards/kv-pool-users/reveal/short")
    client.post("/cards/kv-pool-users/reveal/full")
    assert client.post("/cards/kv-pool-users/grade", data={"rating": "easy"}).status_code == 303
    with client.session_transaction() as session:
        learner = session["learner_id"]
    db = connect(client.application.config["DATABASE"])
    return db.execute("SELECT due FROM card_states WHERE learner_id = ? AND card_id = 'kv-pool-users'",
                      [learner]).fetchone()[0]


def test_each_reader_sees_their_own_standing_in_the_kept_list(app):
    first, second, newcomer = app.test_client(), app.test_client(), app.test_client()
    # Easy on a new card: in review for 8 days (py-fsrs 6's w[3] = 8.2956 days), far beyond the hour.
    due_first = grade_easy(first)
    due_second = grade_easy(second)
    assert due_first != due_second  # graded at different moments
    for reader, due in ((first, due_first), (second, due_second), (first, due_first)):
        assert standing_of(reader.get("/").text, "kv-pool-users") == (
            f'Learned · next review <time datetime="{due}" data-relative="">{due[:10]} {due[11:16]} UTC</time>')
    assert standing_of(newcomer.get("/").text, "kv-pool-users") == "New"


def test_a_card_s_listing_is_drawn_once_for_every_reader(app):
    caches.clear()
    for reader in (app.test_client(), app.test_client()):
        assert len(titles(reader.get("/").text)) == 2
    assert len(caches.bank_cards) == 2  # the web tests' two cards, once each
    app.test_client().get("/", base_url="http://localhost/quiz")
    assert len(caches.bank_cards) == 4  # and once more under the prefix


def test_the_topic_tiles_kept_stay_within_their_bound(app):
    """A tile is kept by the reader's counts in it: readers enough to make more kinds of tile
    than TOPIC_TILES_KEPT leave that many, the least recently shown forgotten."""
    caches.clear()
    made = caches.TOPIC_TILES_KEPT + 500
    with app.test_request_context("/"):
        for learned in range(made):
            html = bank.topic_tiles([{"id": "kv-cache", "title": "KV cache sizing", "blurb": "", "count": made,
                                        "counts": [("new", f"{made - learned:,} new"), ("learned", f"{learned:,} learned")],
                                        "current": False}])
    assert len(caches.topic_tiles) == caches.TOPIC_TILES_KEPT
    assert f'<span class="topic-count">{made} cards</span>' in html  # the last reader's tile, drawn for them
    assert f'<span class="count-new">1 new</span> · <span class="count-learned">{made - 1:,} learned</span>' in html


def test_every_cache_of_the_web_layer_is_bounded_and_cleared():
    kept = [value for value in vars(caches).values() if isinstance(value, LRU)]
    assert set(map(id, kept)) == set(map(id, caches.ALL)), "a cache that clear() does not clear"
    assert all(0 < cache.limit <= 4096 for cache in kept)
