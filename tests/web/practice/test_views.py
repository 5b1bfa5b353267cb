"""Practice with progress: answers graded with units, reveals and grades stored, due cards first."""

import json
import re
from datetime import datetime, timedelta, timezone
from io import BytesIO

import pytest

from quizapp.progress.db.connection import connect


def feedback(page):
    """(verdict, message) of the typed answer's feedback on the page, or None."""
    match = re.search(r'<div class="feedback verdict-(\w+)".*?<p class="verdict-message">(.*?)</p>', page, re.S)
    return match.groups() if match else None


def test_37_users_grades_right(reader):
    verdict, message = feedback(reader.answer("37 users").text)
    assert verdict == "right" and "37 users" in message


def test_3_is_the_max_concurrency_mistake(reader):
    verdict, message = feedback(reader.answer("3").text)
    assert verdict == "mistake"
    assert "startup concurrency" in message and "2.94x" in message


def test_one_user_is_the_memory_over_model_size_mistake(reader):
    verdict, message = feedback(reader.answer("about one user").text)
    assert verdict == "mistake" and "model size" in message


def test_147456_bytes_on_the_bytes_question(reader):
    verdict, _ = feedback(reader.answer("147456 bytes", "?variant=0", card="kv-bytes-per-token").text)
    assert verdict == "right"
    verdict, _ = feedback(reader.answer("144 KiB", "?variant=0", card="kv-bytes-per-token").text)
    assert verdict is None or verdict == "right"  # the first answer of the attempt is the one graded


def test_the_answer_is_graded_in_the_reader_s_scenario(reader):
    verdict, _ = feedback(reader.answer("42 users", "?model=meta-llama/Llama-3.1-8B-Instruct").text)
    assert verdict == "right"


def test_reveal_answer_and_grade_are_stored_and_survive_a_reload(client, reader):
    reader.answer("37")
    reader.reveal("full")
    response = reader.grade("good")
    assert response.status_code == 303
    data = client.get("/api/progress").get_json()
    assert data["cards_seen"] == 1 and data["reviews"] == 1
    card = data["cards"]["kv-pool-users"]
    assert card["reps"] == 1 and card["last_rating"] == "good" and card["due"]
    history = client.get("/progress?card=kv-pool-users").text
    for kind in ("open", "answer: 37", "reveal short", "reveal full", "grade: good"):
        assert kind in history
    assert "(right)" in history


def test_grading_starts_a_new_attempt(reader):
    reader.open()
    reader.reveal("short")
    reader.grade("again")
    assert "real users hold" not in reader.open().text


def test_again_comes_back_before_easy_and_with_another_variant(client, reader):
    reader.open()
    reader.grade("again")
    reader.open(card="kv-bytes-per-token")
    reader.grade("easy", card="kv-bytes-per-token")
    cards = client.get("/api/progress").get_json()["cards"]
    assert cards["kv-pool-users"]["due"] < cards["kv-bytes-per-token"]["due"]
    # Nothing is due yet (Again waits a minute) and no card is new: practice says so.
    page = client.get("/practice", follow_redirects=True).text
    assert "caught up" in page


def test_practice_takes_new_cards_in_order_then_due_ones(client, app, reader):
    first = client.get("/practice")
    assert first.status_code == 303 and "/cards/" in first.location
    # A due card comes back with another variant than the one graded.
    reader.open()
    reader.grade("again")
    with client.session_transaction() as session:
        learner = session["learner_id"]
    db = connect(app.config["DATABASE"])
    db.execute("UPDATE card_states SET due = ? WHERE learner_id = ?",
               [(datetime.now(timezone.utc) - timedelta(minutes=1)).isoformat(), learner])
    db.conn.commit()
    due = client.get("/practice")
    assert due.location.endswith("/cards/kv-pool-users?variant=0")


def test_practice_filters_by_role_and_tag(client):
    response = client.get("/practice?tag=memory")
    assert response.location.endswith("/cards/kv-bytes-per-token")
    response = client.get("/practice?role=Nobody", follow_redirects=True)
    assert "No card matches" in response.text


def test_follow_up_knew_it(client, reader):
    reader.open()
    reader.reveal("short")
    reader.reveal("full")
    reader.reveal("followup-1")
    page = client.post("/cards/kv-pool-users/followup/1", data={"value": "knew"}, follow_redirects=True).text
    assert "You marked this: knew it." in page
    assert client.post("/cards/kv-pool-users/followup/1", data={"value": "maybe"}).status_code == 400
    assert client.post("/cards/kv-pool-users/followup/9", data={"value": "knew"}).status_code == 404


def test_bad_grade_is_400(reader):
    assert reader.grade("perfect").status_code == 400


class TestEventsApi:
    def post(self, client, **event):
        body = {"event_id": "evt-api-0001", "card_id": "kv-pool-users", "kind": "reveal", "stage": "short", **event}
        return client.post("/api/progress/events", json=body)

    def test_201_then_200(self, client):
        first, again = self.post(client), self.post(client)
        assert (first.status_code, again.status_code) == (201, 200)
        assert first.get_json() == {"event_id": "evt-api-0001", "stored": True}
        assert again.get_json()["stored"] is False

    def test_the_api_reveal_is_what_the_page_shows(self, client, reader):
        self.post(client)
        assert "real users hold" in reader.open().text

    @pytest.mark.parametrize("event, field", [
        ({"card_id": "nope"}, "card_id"),
        ({"stage": "everything"}, "stage"),
        ({"kind": "peek"}, "kind"),
        ({"event_id": "x"}, "event_id"),
        ({"kind": "grade", "value": "so-so", "stage": None}, "value"),
    ])
    def test_bad_event_is_400_with_field(self, client, event, field):
        response = self.post(client, **event)
        assert response.status_code == 400 and response.get_json()["field"] == field

    def test_non_json_body(self, client):
        response = client.post("/api/progress/events", data="x", content_type="text/plain")
        assert response.status_code == 400


class TestProfile:
    def test_first_visit_makes_a_learner_with_a_128_bit_id(self, client):
        client.get("/")
        with client.session_transaction() as session:
            assert re.fullmatch(r"[0-9a-f]{32}", session["learner_id"])
        assert client.get("/api/progress").get_json()["learner"]["id"] == session["learner_id"]

    def test_name_export_forget_import(self, client, reader):
        reader.open()
        reader.grade("good")
        client.post("/me/name", data={"display_name": "  Ada   Lovelace "})
        exported = client.get("/me/export")
        assert exported.headers["Content-Disposition"].startswith("attachment")
        data = json.loads(exported.data)
        assert data["learner"]["display_name"] == "Ada Lovelace" and len(data["review_log"]) == 1

        assert client.post("/me/forget", data={}).status_code == 400  # needs the confirmation
        client.post("/me/forget", data={"confirm": "forget"})
        assert client.get("/api/progress").get_json()["reviews"] == 0

        response = client.post("/me/import", data={"file": (BytesIO(exported.data), "p.json")},
                               content_type="multipart/form-data", follow_redirects=True)
        assert "Imported" in response.text
        assert client.get("/api/progress").get_json()["reviews"] == 1
        again = client.post("/me/import", data={"file": (BytesIO(exported.data), "p.json")},
                            content_type="multipart/form-data", follow_redirects=True)
        assert "Imported 0 new events and 0 new reviews" in again.text

    def test_bad_import_says_why_and_keeps_progress(self, client, reader):
        reader.open()
        reader.grade("good")
        response = client.post("/me/import", data={"file": (BytesIO(b"{not json"), "p.json")},
                               content_type="multipart/form-data", follow_redirects=True)
        assert "Nothing imported" in response.text
        assert client.get("/api/progress").get_json()["reviews"] == 1

    def test_switch_profile(self, client, app):
        client.get("/")
        client.post("/me/name", data={"display_name": "First"})  # a profile is stored once it holds something
        with client.session_transaction() as session:
            first = session["learner_id"]
        client.post("/me/new")
        with client.session_transaction() as session:
            assert session["learner_id"] != first
        client.post("/me/switch", data={"learner_id": first})
        with client.session_transaction() as session:
            assert session["learner_id"] == first
        page = client.post("/me/switch", data={"learner_id": "f" * 32}, follow_redirects=True).text
        assert "No profile has that id" in page


def test_dashboard_renders_charts_without_javascript(client, reader):
    reader.open()
    reader.grade("good")
    page = client.get("/progress").text
    assert page.count("<svg") == 4  # per day; by role: seen, known; by tag
    assert "Reviews per day" in page and "Inference Engineering" in page
    assert 'id="stat-reviews">1<' in page


def test_a_first_look_replayed_from_an_old_cookie_is_stored_once(client, reader, monkeypatch):
    """The first look waits in the session until the first reveal stores it. A request that sends
    the cookie from before that (a second tab, a replaying client) finds that open stored: no second
    open in the past, and no rebuilding the attempt from its events on every request."""
    from quizapp.progress import attempts

    reader.open()
    before_reveal = client.get_cookie("session").value
    rebuilt = []
    real_rebuild = attempts.rebuild
    monkeypatch.setattr(attempts, "rebuild", lambda *a: rebuilt.append(a) or real_rebuild(*a))
    for _ in range(3):
        client.set_cookie("session", before_reveal)
        assert reader.reveal("short").status_code == 200
    kinds = [row["kind"] for row in client.get("/me/export").get_json()["events"]]
    assert kinds.count("open") == 1 and kinds.count("reveal") == 3
    assert rebuilt == []


def test_a_first_look_replayed_from_another_scenarios_page_is_no_conflict(client, reader):
    """The old cookie sent again from a page of another scenario (a second tab with fp8 KV): the open
    it holds is stored already, so the reveal is stored and the open is not recorded again (as an
    event of another scenario, it would conflict with the stored one)."""
    reader.open()
    before_reveal = client.get_cookie("session").value
    assert reader.reveal("short").status_code == 200
    client.set_cookie("session", before_reveal)
    assert reader.reveal("full", "?kv_cache_dtype=fp8").status_code == 200
    kinds = [row["kind"] for row in client.get("/me/export").get_json()["events"]]
    assert kinds.count("open") == 1 and kinds.count("reveal") == 2
