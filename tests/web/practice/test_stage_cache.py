"""A stage is drawn once per card version, scenario and what the reader has open, and each page
puts its own CSRF token and event ids in its forms (quizapp.web.practice.card_page.stage_sections);
the pieces beside the stages are drawn once per what they show (CardPage.held_html …). What one
reader typed is never kept, and no reader's page shows another's answer or marks."""

import os
import re
import shutil

import pytest

from quizapp import create_app
from quizapp.cards import caches as card_caches
from quizapp.web import caches

from tests.web.conftest import QUESTIONS_DIR, BrowserClient, Reader

SECTION = re.compile(r'<section class="stage[^"]*" id="stage-([\w-]+)".*?</section>', re.S)
TOKENS = re.compile(r'name="(csrf_token|event_id)" value="([^"]+)"')


def sections(page: str) -> dict[str, str]:
    return {m.group(1): m.group(0) for m in SECTION.finditer(page)}


def without_tokens(html: str) -> str:
    return TOKENS.sub(r'name="\1" value="…"', html)


@pytest.fixture(autouse=True)
def empty_caches():
    caches.clear()
    yield
    caches.clear()


KEPT = [(caches.stages, caches.STAGES_KEPT), (caches.stage_sets, caches.STAGE_SETS_KEPT),
        (caches.page_parts, caches.PAGE_PARTS_KEPT), (card_caches.VIEWS, card_caches.VIEWS.limit)]


def drawn_without_cache(monkeypatch, reader: Reader, query: str = "") -> str:
    for cache, _ in KEPT:
        monkeypatch.setattr(cache, "limit", 0)  # kept for no request: every piece drawn afresh
    try:
        return reader.open(query).text
    finally:
        for cache, limit in KEPT:
            monkeypatch.setattr(cache, "limit", limit)


def page_parts(page: str) -> list[str]:
    """The held list, the arithmetic and the scenario bar, as the page shows them."""
    return [re.search(r'<div id="held">.*?</ul>', page, re.S).group(0),
            re.search(r'<div id="derivations">.*?</div>', page, re.S).group(0),
            re.search(r'<form class="scenario-bar".*?</form>', page, re.S).group(0)]


def test_kept_stages_are_the_stages_drawn_afresh_but_for_their_tokens(client, reader, monkeypatch):
    fresh = sections(drawn_without_cache(monkeypatch, reader, "?kv_cache_dtype=fp8"))
    reader.open("?kv_cache_dtype=fp8")
    kept = sections(reader.open("?kv_cache_dtype=fp8").text)
    assert len(caches.stages) >= len(kept) >= 6  # every stage, the short answer's blank box too
    assert len(caches.stage_sets) == 1  # the second visit found them with one key
    assert kept.keys() == fresh.keys()
    assert {k: without_tokens(v) for k, v in kept.items()} == {k: without_tokens(v) for k, v in fresh.items()}


@pytest.mark.parametrize("query", ["", "?kv_cache_dtype=fp8", "?variant=1"])
def test_kept_revealed_stages_and_page_parts_are_the_ones_drawn_afresh(client, reader, monkeypatch, query):
    reader.open(query)
    for stage in ("short", "full", "followup-1", "wrong", "taught"):
        reader.reveal(stage, query)
    client.post("/cards/kv-pool-users/followup/1" + query, data={"value": "knew"})
    fresh = drawn_without_cache(monkeypatch, reader, query)
    reader.open(query)
    kept = reader.open(query).text
    assert "You marked this: knew it." in sections(kept)["followup-1"]
    assert {k: without_tokens(v) for k, v in sections(kept).items()} == {
        k: without_tokens(v) for k, v in sections(fresh).items()}
    assert page_parts(kept) == page_parts(fresh)
    assert "<dt><code>" in page_parts(kept)[1]  # the arithmetic of what the answers use


def test_one_reader_s_answer_and_marks_stay_on_their_page(app):
    first, second = Reader(app.test_client()), Reader(app.test_client())
    first.open()
    typed = first.reveal("short", answer="4711.5 users", working="zebra-working-4711").text
    assert "zebra-working-4711" in typed and "4711.5 users" in typed
    assert not any("zebra-working" in drawn or "4711.5" in drawn for drawn in caches.stages._entries.values())
    first.reveal("full")
    first.client.post("/cards/kv-pool-users/followup/1", data={"value": "missed"})
    first.reveal("followup-1")
    assert "You marked this: did not know it." in first.open().text
    second.open()
    for stage in ("short", "full", "followup-1"):
        page = second.reveal(stage).text
    assert "zebra-working" not in page and "4711.5" not in page and "<p class=\"muted\">You marked this" not in page
    assert 'name="working"' not in page  # the short answer is shown: no answer box, and no answer of theirs
    assert "You marked this: did not know it." in first.open().text


def test_a_stage_with_two_forms_gives_each_its_own_event_id(client, reader):
    reader.open()
    for stage in ("short", "full", "followup-1"):
        reader.reveal(stage)
    reader.open()
    followup = sections(reader.open().text)["followup-1"]  # its reveal form and its knew-it form
    event_ids = [value for name, value in TOKENS.findall(followup) if name == "event_id"]
    assert len(event_ids) == len(set(event_ids)) == 2


def test_every_form_of_every_page_has_its_own_event_id_and_the_session_s_csrf_token(client, reader):
    reader.open()
    reader.reveal("short")
    reader.reveal("full")  # the follow-ups' forms are open, each from a kept drawing
    pages = [reader.open().text for _ in range(2)]
    event_ids = [value for page in pages for name, value in TOKENS.findall(page) if name == "event_id"]
    assert len(event_ids) == len(set(event_ids)) >= 4
    assert caches.EVENT_ID_MARK not in "".join(pages) and caches.CSRF_MARK not in "".join(pages)
    csrf = re.search(r'<meta name="csrf-token" content="([^"]+)">', pages[1]).group(1)
    assert {value for name, value in TOKENS.findall(pages[1]) if name == "csrf_token"} == {csrf}


def test_a_kept_form_reveals(client, reader):
    reader.open()
    reader.reveal("short")
    page = reader.open().text  # the full answer's form now comes from the kept drawing
    form = sections(page)["full"]
    fields = dict(TOKENS.findall(form))
    revealed = client.post("/cards/kv-pool-users/reveal/full", data=fields, follow_redirects=True)
    assert revealed.status_code == 200
    assert 'class="stage stage-full revealed"' in revealed.text


def test_a_card_edited_on_disk_shows_its_new_words_in_a_kept_stage(tmp_path, database):
    folder = tmp_path / "questions"
    shutil.copytree(QUESTIONS_DIR, folder)
    app = create_app({"TESTING": True, "DATABASE": database, "QUESTIONS_DIR": str(folder), "BANK_REFRESH_SECONDS": 0})
    app.test_client_class = BrowserClient
    reader = Reader(app.test_client())
    reader.open()
    reader.reveal("short")
    reader.reveal("full")  # the follow-ups' questions are shown, their answers are not
    [path] = [p for p in folder.glob("*.md") if "\nid: kv-pool-users\n" in p.read_text(encoding="utf-8")]
    before = sections(reader.open().text)["followup-1"]
    text = path.read_text(encoding="utf-8")
    question = re.search(r'<span class="followup-question">(.*?)</span>', before).group(1)
    assert text.count(question) == 1, question  # the follow-up's question, as the card writes it
    path.write_text(text.replace(question, "Reworded: " + question), encoding="utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    after = sections(reader.open().text)["followup-1"]
    assert "Reworded" in after and "Reworded" not in before


def test_the_kept_stages_are_bounded():
    assert caches.stages.limit == caches.STAGES_KEPT <= 10_000


def test_a_stage_kept_from_one_scenario_carries_each_page_s_own_query(client, reader):
    reader.open()  # the stages are drawn for the card's own scenario, with no query on their forms
    assert 'action="/cards/kv-pool-users/reveal/short"' in sections(reader.open().text)["short"]
    kept = len(caches.stages)
    page = reader.open("?prompt_tokens=600&output_tokens=100").text
    assert len(caches.stages) == kept  # an unrevealed stage is one drawing for every scenario
    short = sections(page)["short"]
    query = re.search(r'action="/cards/kv-pool-users/reveal/short\?([^"]*)"', short).group(1)
    assert sorted(query.split("&amp;")) == ["output_tokens=100", "prompt_tokens=600"]
    assert caches.QUERY_MARK not in page
    revealed = reader.reveal("short", "?" + query.replace("&amp;", "&")).text
    assert "with 700 tokens each" in revealed and 'class="stage stage-short revealed"' in revealed
