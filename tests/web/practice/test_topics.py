"""The bank's topics (issue 20): counts and the reader's standing per topic, the topic filter of the
bank and of practice, and practice drawn from the reader's weakest topics, with its rule said."""

import re
import shutil

import pytest

from quizapp import create_app
from quizapp.progress import weakness

from ..conftest import QUESTIONS_DIR, BrowserClient

# Four cards in three topics: the web tests' two cards, and a copy of each under other topics.
TOPICS = {"kv-pool-users": "kv-cache", "kv-bytes-per-token": "kv-cache", "users-roofline": "roofline",
          "bytes-parallel": "parallelism"}


@pytest.fixture
def client(tmp_path):
    folder = tmp_path / "questions"
    folder.mkdir()
    for name in ("kv-pool-users", "kv-bytes-per-token"):
        shutil.copy(QUESTIONS_DIR / f"{name}.md", folder)
    for new, old in (("users-roofline", "kv-pool-users"), ("bytes-parallel", "kv-bytes-per-token")):
        text = (QUESTIONS_DIR / f"{old}.md").read_text(encoding="utf-8")
        text = text.replace(f"\nid: {old}\n", f"\nid: {new}\n", 1).replace("\ntopic: kv-cache\n",
                                                                          f"\ntopic: {TOPICS[new]}\n", 1)
        text = re.sub(r"^title: (.*)$", rf"title: \1 ({new})", text, count=1, flags=re.M)
        (folder / f"{new}.md").write_text(text, encoding="utf-8")
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "db.sqlite"), "QUESTIONS_DIR": str(folder)})
    app.test_client_class = BrowserClient
    return app.test_client()


def topic_tiles(page: str) -> dict[str, str]:
    """Each topic tile's text, by topic id, tags stripped."""
    tiles = re.findall(r'<li class="topic[^"]*" id="topic-([a-z-]+)">(.*?)</li>', page, re.S)
    return {topic: " ".join(re.sub(r"<[^>]+>", " ", body).split()) for topic, body in tiles}


def card_ids(page: str) -> list[str]:
    return re.findall(r'<li class="bank-card" id="card-([a-z0-9-]+)">', page)


def grade(client, card, rating):
    client.get(f"/cards/{card}")
    client.post(f"/cards/{card}/reveal/short")
    client.post(f"/cards/{card}/reveal/full")
    assert client.post(f"/cards/{card}/grade", data={"rating": rating}).status_code == 303


def test_the_bank_shows_each_topic_with_its_cards_and_the_reader_s_standing(client):
    tiles = topic_tiles(client.get("/").text)
    assert list(tiles) == ["kv-cache", "roofline", "parallelism"]  # the list's order; empty topics left out
    assert tiles["kv-cache"].startswith("KV cache sizing 2 cards 2 new")
    grade(client, "kv-pool-users", "easy")
    grade(client, "users-roofline", "again")
    tiles = topic_tiles(client.get("/").text)
    assert tiles["kv-cache"].startswith("KV cache sizing 2 cards 1 new · 1 learned")
    assert tiles["roofline"].startswith("Roofline arithmetic 1 card 1 in learning steps")


def test_the_bank_filters_by_topic_without_a_script_and_links_practice_to_it(client):
    page = client.get("/?topic=kv-cache").text
    assert sorted(card_ids(page)) == ["kv-bytes-per-token", "kv-pool-users"]
    assert 'aria-current="page">KV cache sizing</a>' in page
    assert '<option value="kv-cache" selected>KV cache sizing</option>' in page  # the form's select keeps it
    assert 'id="start-practice" href="/practice?topic=kv-cache"' in page
    assert card_ids(client.get("/?topic=parallelism").text) == ["bytes-parallel"]


@pytest.mark.parametrize("url, field", [("/?topic=kv-cach", "topic"), ("/practice?topic=nope", "topic"),
                                        ("/practice?topics=strongest", "topics")])
def test_an_unknown_topic_is_a_400_naming_the_field(client, url, field):
    answer = client.get(url, headers={"Accept": "application/json"})
    assert answer.status_code == 400 and answer.get_json()["field"] == field
    page = client.get(url)
    assert page.status_code == 400 and "<html" in page.text and field in page.text
    if url == "/?topic=kv-cach":
        assert "did you mean &#39;kv-cache&#39;?" in page.text


def test_practice_filtered_by_topic_draws_only_its_cards_and_says_so(client):
    seen = []
    for _ in range(3):
        answer = client.get("/practice?topic=kv-cache")
        if answer.status_code != 303:
            break
        card = answer.headers["Location"].split("/cards/")[1].split("?")[0]
        page = client.get(f"/cards/{card}").text
        assert '<p id="practice-drawing">Topic: KV cache sizing</p>' in page
        seen.append(card)
        client.post(f"/cards/{card}/reveal/short")
        client.post(f"/cards/{card}/reveal/full")
        after = client.post(f"/cards/{card}/grade", data={"rating": "good"})
        assert after.headers["Location"] == "/practice?topic=kv-cache"  # the session keeps its topic
    assert sorted(seen) == ["kv-bytes-per-token", "kv-pool-users"]
    assert "You are caught up: no card is due for this filter" in client.get("/practice?topic=kv-cache").text


def test_practice_of_the_weakest_topics_follows_the_rule_it_states(client):
    # No grade yet: every topic, and the page says why.
    card = client.get("/practice?topics=weakest").headers["Location"].split("/cards/")[1]
    page = client.get(f"/cards/{card}").text
    assert f"Your weakest topics: none yet, so every topic. The weakest are {weakness.RULE}." in page.replace(
        "&#39;", "'")
    client.post("/practice/end")
    grade(client, "kv-pool-users", "good")
    grade(client, "bytes-parallel", "hard")
    grade(client, "users-roofline", "again")
    grade(client, "kv-bytes-per-token", "again")
    # kv-cache 1 of 2 missed; parallelism 1 of 1 (Hard); roofline 1 of 1 (Again, lapses 0): parallelism and
    # roofline tie on share and lapses, and go in the list's order (roofline before parallelism).
    # Nothing is due yet: the page says which topics it would draw from, and practising ahead takes them.
    page = client.get("/practice?topics=weakest").text
    assert '<p id="practice-drawing">Your weakest topics: Roofline arithmetic, Parallelism, KV cache sizing.' in page
    answer = client.get("/practice?topics=weakest&ahead=1")
    card = answer.headers["Location"].split("/cards/")[1].split("?")[0]
    assert card in ("users-roofline", "bytes-parallel", "kv-bytes-per-token")
    page = client.get(f"/cards/{card}").text
    assert "Your weakest topics: Roofline arithmetic, Parallelism, KV cache sizing." in page


def test_the_readme_states_the_weakest_rule_the_code_applies():
    from tests.paths import ROOT

    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert f"the topics with the largest share of Again and Hard grades in your last {weakness.RECENT_REVIEWS} " \
           f"reviews (a tie to the one whose cards lapsed more), at most {weakness.WEAKEST}" in readme
