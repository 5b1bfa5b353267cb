"""Stages open in interview order on the card page: the server refuses an out-of-order reveal with
409, and the page never shows a button the server would refuse."""

import re

import pytest

FOLLOW_UP_QUESTION = "What happens to a request"
FOLLOW_UP_ANSWER = "waits in the queue"


def reveal_buttons(page: str) -> list[str]:
    """The stages whose reveal button the page shows (a shown stage's button is disabled)."""
    return re.findall(r'action="/cards/kv-pool-users/reveal/([\w-]+)[^"]*">(?:(?!</form>).)*?<button type="submit" '
                      r'aria-expanded="false"', page, re.S)


@pytest.mark.parametrize("before", [[], ["short"], ["short", "full"], ["short", "full", "followup-2", "wrong"]])
def test_every_button_on_the_page_is_one_the_server_accepts(client, reader, before):
    for stage in before:
        reader.reveal(stage)
    buttons = reveal_buttons(reader.open().text)
    assert buttons
    for stage in buttons:
        response = client.post(f"/cards/kv-pool-users/reveal/{stage}")
        assert response.status_code == 303, (stage, response.text[:200])


def test_no_expected_answer_button_before_the_full_answer(reader):
    page = reader.reveal("short").text
    assert reveal_buttons(page) == ["full"]
    assert "Show expected answer" not in page and FOLLOW_UP_QUESTION not in page


@pytest.mark.parametrize("stage, before", [("full", []), ("followup-1", ["short"]), ("wrong", ["short"]),
                                           ("taught", []), ("followup-4", [])])
def test_an_out_of_order_reveal_is_a_409_page_and_nothing_is_stored(client, reader, stage, before):
    for earlier in before:
        reader.reveal(earlier)
    response = client.post(f"/cards/kv-pool-users/reveal/{stage}")
    assert response.status_code == 409
    assert "<h1>409: Not yet</h1>" in response.text
    assert "first:" in response.text and "as in an interview" in response.text
    stored = [row["stage"] for row in client.get("/me/export").get_json()["events"] if row["kind"] == "reveal"]
    assert stored == before


def test_an_out_of_order_reveal_is_409_json_for_the_script(client):
    response = client.post("/cards/kv-pool-users/reveal/followup-1", headers={"Accept": "application/json"})
    assert response.status_code == 409
    assert response.get_json() == {
        "error": "Reveal the full answer first: follow-up questions and their expected answers open once the full "
                 "answer is shown, as in an interview.",
        "field": "stage"}
    assert FOLLOW_UP_QUESTION not in response.text and FOLLOW_UP_ANSWER not in response.text


def test_a_follow_up_recorded_early_through_the_api_stays_closed_until_the_full_answer(client, reader):
    body = {"event_id": "evt-early-followup", "card_id": "kv-pool-users", "kind": "reveal", "stage": "followup-1"}
    assert client.post("/api/progress/events", json=body).status_code == 201
    reader.reveal("short")
    page = reader.open().text
    assert FOLLOW_UP_QUESTION not in page and FOLLOW_UP_ANSWER not in page
    fragment = client.get("/cards/kv-pool-users/fragment").get_json()
    assert FOLLOW_UP_ANSWER not in str(fragment) and fragment["revealed"] == ["short"]
    # Once the full answer is shown, the reveal the reader asked for earlier counts.
    assert FOLLOW_UP_ANSWER in reader.reveal("full").text


def test_the_waiting_stages_say_what_they_wait_for(reader):
    page = reader.open().text
    assert page.count("Opens once the short answer is shown.") == 1                 # full
    assert page.count("Opens once the full answer is shown.") == 3                  # wrong, taught, the grade
    assert page.count("(shown with the full answer)") == 4                          # the follow-ups
