"""Issue 20's merged cards on the shipped bank: an old id answers with a redirect to its successor,
the values API and a new interview take the old id, and a progress file exported before the merge
(tests/fixtures/progress-before-issue-20.json, made with main's code at f66cea3 by
tests/fixtures/make_progress_before_issue_20.py: every one of the 18 cards of then graded) imports
with every row landing on a card of today's bank."""

from __future__ import annotations

import json

import pytest

from quizapp import create_app
from quizapp.progress import scheduling

from tests.cards.test_shipped_bank import MERGED
from tests.paths import QUESTIONS, TESTS

from .conftest import BrowserClient, Interviewer

EXPORT = TESTS / "fixtures" / "progress-before-issue-20.json"


@pytest.fixture
def app(tmp_path):
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "test.sqlite"), "QUESTIONS_DIR": str(QUESTIONS)})
    app.test_client_class = BrowserClient
    return app


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.mark.parametrize("old, new", MERGED.items())
def test_an_old_id_redirects_to_its_successor(client, old, new):
    answer = client.get(f"/cards/{old}?variant=0")
    assert answer.status_code == 308 and answer.headers["Location"] == f"/cards/{new}?variant=0"
    assert client.get(f"/cards/{old}", follow_redirects=True).request.path == f"/cards/{new}"
    posted = client.post(f"/cards/{old}/reveal/short")  # a form on a page loaded before the merge
    assert posted.status_code == 308 and posted.headers["Location"] == f"/cards/{new}/reveal/short"
    values = client.get(f"/api/cards/{old}/values")
    assert values.status_code == 308 and values.headers["Location"] == f"/api/cards/{new}/values"
    assert client.get(f"/api/cards/{old}/values", follow_redirects=True).get_json()["card"] == new


def test_an_unknown_id_is_still_a_404(client):
    assert client.get("/cards/kv-heads-tensor-parallels").status_code == 404


def test_an_interview_planned_with_an_old_id_asks_its_successor(client):
    interviewer = Interviewer(client)
    created = interviewer.create(cards=["kv-mla-vs-gqa", "kv-pool-users"])
    state = client.get(created["interviewer_url"].split("localhost", 1)[1] + "/state").get_json()
    assert [card["id"] for card in state["cards"]][:2] == ["kv-log-figures-under-tensor-parallelism", "kv-pool-users"]


def test_an_export_from_before_the_merge_lands_on_the_successors(app, client):
    export = json.loads(EXPORT.read_text(encoding="utf-8"))
    old_ids = {row["card_id"] for row in export["review_log"]}
    assert len(old_ids) == 18 and set(MERGED) <= old_ids
    client.get("/me")
    answer = client.post("/me/import", data={"file": (EXPORT.open("rb"), "progress.json")},
                         content_type="multipart/form-data", follow_redirects=True)
    assert "rows were of cards this server does not have" not in answer.text
    assert f"Imported {len(export['events'])} new events and {len(export['review_log'])} new reviews" in answer.text
    mine = client.get("/me/export").get_json()
    landed = {row["card_id"] for row in mine["review_log"]}
    assert landed == {MERGED.get(card_id, card_id) for card_id in old_ids}
    assert not landed & set(MERGED)
    # Each successor's schedule is rebuilt from all the reviews merged into it.
    with app.app_context():
        from quizapp.web.storage import get_db

        learner = mine["learner"]["id"]
        states = scheduling.states(get_db(), learner)
    for successor in set(MERGED.values()):
        merged_in = [row for row in export["review_log"] if MERGED.get(row["card_id"], row["card_id"]) == successor]
        assert states[successor]["reps"] == len(merged_in), successor
    # The bank shows them as graded, not new.
    page = client.get("/").text
    for successor in set(MERGED.values()):
        assert f'id="card-{successor}"' in page
