"""The question bank's page, a page of cards at a time."""

import re
import shutil

import pytest

from quizapp import create_app
from quizapp.progress.db.connection import connect
from quizapp.web.practice.bank import BANK_PAGE_CARDS, count_text

from ..conftest import QUESTIONS_DIR, BrowserClient


@pytest.fixture(scope="module")
def big_bank(tmp_path_factory):
    """120 copies of the web tests' kv-pool-users card, titled and tagged by number, and its other card.

    Made once for the module: loading 121 cards is most of this file's time, and its tests only
    read pages (a visitor who only reads stores nothing, so one client serves them all)."""
    tmp_path = tmp_path_factory.mktemp("big-bank")
    folder = tmp_path / "questions"
    folder.mkdir()
    shutil.copy(QUESTIONS_DIR / "kv-bytes-per-token.md", folder)
    text = (QUESTIONS_DIR / "kv-pool-users.md").read_text(encoding="utf-8")
    title = re.search(r"^title: (.*)$", text, re.M).group(0)
    for i in range(120):
        copy = text.replace("\nid: kv-pool-users\n", f"\nid: copy-{i:03d}\n", 1)
        copy = copy.replace(title, f"title: Copy {i:03d}", 1)
        if i % 2:
            copy = copy.replace("\ntags: [", "\ntags: [odd, ", 1)
        (folder / f"copy-{i:03d}.md").write_text(copy, encoding="utf-8")
    app = create_app({"TESTING": True, "DATABASE": str(folder.parent / "db.sqlite"), "QUESTIONS_DIR": str(folder)})
    return app.test_client()


def titles(page: str) -> list[str]:
    return re.findall(r'<li class="bank-card"[^>]*>\s*<h2><a href="[^"]+">([^<]+)</a>', page)


def test_the_first_page_shows_fifty_cards_and_links_to_the_next(big_bank):
    page = big_bank.get("/").text
    assert titles(page) == [f"Copy {i:03d}" for i in range(BANK_PAGE_CARDS)]
    assert "Cards 1–50 of 121" in page
    assert 'href="/?page=2" rel="next"' in page and 'rel="prev"' not in page


def test_the_last_page_holds_the_rest(big_bank):
    page = big_bank.get("/?page=3").text
    assert len(titles(page)) == 21
    assert titles(page)[-1] != "Copy 119"  # the other card sorts among them by title
    assert "Cards 101–121 of 121" in page and "Page 3 of 3" in page
    assert 'href="/?page=2" rel="prev"' in page and 'rel="next"' not in page


def test_filters_travel_with_the_page(big_bank):
    page = big_bank.get("/?tag=odd&page=2").text
    assert titles(page) == [f"Copy {i:03d}" for i in range(101, 120, 2)]
    assert "Cards 51–60 of 60 matching (121 in all)" in page
    assert 'href="/?tag=odd" rel="prev"' in page


@pytest.mark.parametrize("asked", ["0", "4", "-1", "two", "1.5", "٢", "9" * 40])
def test_a_page_that_does_not_exist_is_a_400_naming_the_field(big_bank, asked):
    response = big_bank.get("/", query_string={"page": asked})
    assert response.status_code == 400
    assert "page must be a whole number from 1 to 3" in response.text
    json = big_bank.get("/", query_string={"page": asked}, headers={"Accept": "application/json"})
    assert json.status_code == 400 and json.get_json()["field"] == "page"


def test_a_small_bank_has_one_page_and_no_links(client):
    page = client.get("/").text
    assert 'class="pages"' not in page
    assert re.search(r'id="count">2 cards', page)


@pytest.mark.parametrize("args, text", [
    ((0, 18, 18, 18), "18 cards"),
    ((0, 3, 3, 18), "3 of 18 cards"),
    ((0, 0, 0, 1), "0 of 1 card"),
    ((50, 50, 10_000, 10_000), "Cards 51–100 of 10,000"),
    ((0, 50, 120, 10_000), "Cards 1–50 of 120 matching (10,000 in all)"),
])
def test_count_text(args, text):
    assert count_text(*args) == text


# ---------------------------------------------------------------- issue 18: a bank that knows the reader


def standing_of(page: str, card_id: str) -> str:
    card = page.split(f'id="card-{card_id}"')[1].split("</li>")[0]
    return re.search(r'<p class="standing standing-(\w+)">', card).group(1)


def test_each_card_says_new_due_or_learned_and_the_counts_sum_up(client, app, reader):
    page = client.get("/").text
    assert re.search(r'id="bank-counts"[^>]*><span class="count-new">2 new</span></p>', page)
    assert 'id="start-practice" href="/practice"' in page
    assert standing_of(page, "kv-pool-users") == standing_of(page, "kv-bytes-per-token") == "new"
    reader.open()
    reader.grade("easy")  # a new card graded Easy goes to review: 8 days (py-fsrs 6's w[3] = 8.2956 days)
    reader.open(card="kv-bytes-per-token")
    reader.grade("again", card="kv-bytes-per-token")  # Again: due again in 1 minute, in learning steps
    page = client.get("/").text
    assert standing_of(page, "kv-pool-users") == "learned" and standing_of(page, "kv-bytes-per-token") == "learning"
    assert "Learned · next review <time datetime=" in page and "Due <time datetime=" in page
    assert "in 1 minute" in page  # the server's words for a time within the hour
    assert '<span class="count-learning">1 in learning steps</span> · <span class="count-learned">1 learned</span>' \
        in page
    # With nothing due or new, the bank offers to practise ahead instead.
    assert 'id="start-practice"' not in page and 'id="practise-ahead"' in page
    with client.session_transaction() as session:
        learner = session["learner_id"]
    db = connect(app.config["DATABASE"])
    db.execute("UPDATE card_states SET due = '2000-01-01T00:00:00+00:00' WHERE learner_id = ? AND card_id = ?",
               [learner, "kv-bytes-per-token"])
    db.conn.commit()
    page = client.get("/").text
    assert standing_of(page, "kv-bytes-per-token") == "due" and ">Due now</p>" in page
    assert '<span class="count-due">1 due now</span>' in page and 'id="start-practice"' in page


def test_interview_only_cards_carry_a_badge_where_they_are_listed(database, tmp_path, questions_dir):
    folder = tmp_path / "questions"
    shutil.copytree(questions_dir, folder)
    text = (questions_dir / "kv-pool-users.md").read_text(encoding="utf-8")
    (folder / "live.md").write_text(text.replace("id: kv-pool-users", "id: live\ninterview_only: true").replace(
        "title: How many users fit in the KV pool", "title: Live users"), encoding="utf-8")
    client = create_app({"TESTING": True, "DATABASE": database,
                         "QUESTIONS_DIR": str(folder)}).test_client()  # a loopback server: the author tools are open
    page = client.get("/").text
    live = page.split('id="card-live"')[1].split("</li>")[0]
    assert '<span class="badge">interview only</span>' in live
    assert page.count('<span class="badge">interview only</span>') == 1


def test_new_cards_come_in_the_authors_order_not_by_title(database, tmp_path, questions_dir):
    folder = tmp_path / "questions"
    folder.mkdir()
    text = (questions_dir / "kv-pool-users.md").read_text(encoding="utf-8")
    for card_id, title, extra in [("a-advanced", "A niche card", "level: advanced"),
                                  ("b-second", "B second", "level: beginner\norder: 2"),
                                  ("c-first", "C first", "order: 1"),
                                  ("d-middle", "D middle", "level: intermediate"),
                                  ("e-beginner", "E beginner", "")]:
        (folder / f"{card_id}.md").write_text(text.replace("id: kv-pool-users", f"id: {card_id}\n{extra}").replace(
            "title: How many users fit in the KV pool", f"title: {title}"), encoding="utf-8")
    app = create_app({"TESTING": True, "DATABASE": database, "QUESTIONS_DIR": str(folder)})
    app.test_client_class = BrowserClient  # its posts carry the CSRF token
    client = app.test_client()
    # Beginner (the default) first, by order, those without one after; then intermediate, then advanced.
    expected = ["C first", "B second", "E beginner", "D middle", "A niche card"]
    assert titles(client.get("/").text) == expected
    practised = []
    for _ in expected:
        location = client.get("/practice").location
        card = location.split("/cards/")[1].split("?")[0]
        practised.append(card)
        client.post("/practice/skip", data={"card_id": card})
    assert practised == ["c-first", "b-second", "e-beginner", "d-middle", "a-advanced"]
