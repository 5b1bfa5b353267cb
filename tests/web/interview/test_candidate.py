"""The candidate's screen receives the question and the revealed stages, under the session's
scenario, and nothing else: not in its page, its state, or its event stream."""

import html
import json
import re

import pytest

from quizapp import create_app
from quizapp.cards import card_view, load_bank, resolve_scenario

# A scenario of the session's own, not the card's: the public bank shows other numbers.
SESSION_SCENARIO = {"model": "meta-llama/Llama-3.1-8B-Instruct", "kv_cache_dtype": "fp8"}


@pytest.fixture
def app(database, tmp_path, questions_dir):
    return create_app({"TESTING": True, "DATABASE": database,
                       "QUESTIONS_DIR": str(questions_dir), "INTERVIEW_STREAM_SECONDS": 0.3})


@pytest.fixture
def session(interviewer):
    return interviewer.create([{"id": "kv-pool-users", "scenario": SESSION_SCENARIO}])


def text_of(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def stage_texts(questions_dir) -> dict[str, list[str]]:
    """Every stage's text under the session's scenario, as the interviewer's console shows it."""
    card = load_bank(questions_dir).get("kv-pool-users")
    view = card_view(card, resolve_scenario(card, None, SESSION_SCENARIO), set(card.stage_names))
    texts = {}
    for stage in view.stages:
        pieces = [stage.html] if stage.html else [piece for pair in stage.items for piece in pair]
        texts[stage.name] = [text_of(piece) for piece in pieces if text_of(piece)]
    return texts


def events_of(client, url) -> list[dict]:
    """The states a (short) event stream sends."""
    response = client.get(url + "/events")
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    body = response.get_data(as_text=True)
    assert body.startswith("retry: ")
    return [json.loads(line[6:]) for line in body.splitlines() if line.startswith("data: ")]


def everything_the_candidate_gets(client, url) -> str:
    """The candidate's page, state and event stream, as text."""
    page = client.get(url).text
    state = client.get(url + "/state").get_json()
    streamed = events_of(client, url)
    return " ".join([text_of(page), text_of(state["html"]), json.dumps(state), *(text_of(s["html"]) for s in streamed)])


# Numbers of this scenario that only later stages print (the question prints others).
LATER_NUMBERS = ("54,208", "84 users", "640 tokens", "64 KiB", "FP8")


def test_before_any_reveal_the_candidate_receives_no_answer_and_no_later_number(client, interviewer, session,
                                                                                questions_dir):
    interviewer.post(session["interviewer_url"] + "/show", {"card": "kv-pool-users"})
    received = everything_the_candidate_gets(client, session["candidate_url"])
    assert "meta-llama/Llama-3.1-8B-Instruct" in received  # the question, in the session's scenario
    for stage, texts in stage_texts(questions_dir).items():
        for text in texts:
            assert text not in received, (stage, text)
    for number in LATER_NUMBERS:
        assert number.lower() not in received.lower(), number
    assert "24,096" not in received  # the card's own pool, from the public bank


def test_after_the_short_answer_the_state_holds_it_with_the_sessions_numbers_and_nothing_later(
        client, interviewer, session, questions_dir):
    assert interviewer.post(session["interviewer_url"] + "/reveal",
                            {"card": "kv-pool-users", "stage": "short"}).status_code == 200
    state = client.get(session["candidate_url"] + "/state").get_json()
    assert state["revealed"] == ["short"]
    shown = text_of(state["html"])
    assert "On the L4, the pool of 54,208 tokens fits 84 users with 640 tokens each." in shown
    later = stage_texts(questions_dir)
    for stage in ("full", "followup-1", "followup-2", "followup-3", "followup-4", "wrong", "taught"):
        for text in later[stage]:
            assert text not in shown, (stage, text)
    assert "64 KiB" not in shown


def test_the_stream_sends_the_state_and_each_change(client, interviewer, session):
    [first] = events_of(client, session["candidate_url"])
    assert first["status"] == "waiting" and first["revealed"] == []
    interviewer.post(session["interviewer_url"] + "/reveal", {"card": "kv-pool-users", "stage": "short"})
    [after] = events_of(client, session["candidate_url"])
    assert after["status"] == "live" and after["revealed"] == ["short"] and after["version"] > first["version"]


def test_a_stream_past_the_ceiling_sends_the_state_once_and_closes(app, client, interviewer, session):
    slots = app.extensions["quizapp.interview_streams"]
    others = [f"interview-{n}" for n in range(app.config["INTERVIEW_STREAMS"])]
    assert all(slots.take(other) for other in others)
    try:
        [state] = events_of(client, session["candidate_url"])
        assert state["status"] == "waiting"
    finally:
        for other in others:
            slots.give_back(other)


def test_one_link_s_streams_cannot_take_another_interview_s_place(app, client, interviewer, session):
    # Issue 21: 40 streams on one candidate link filled the process's 2 slots, and every other
    # interview's stream closed at once.
    slots = app.extensions["quizapp.interview_streams"]
    greedy = interviewer.create()["candidate_url"]
    greedy_id = next(iter(slots.open), None)
    flood = 40
    taken = [slots.take("greedy") for _ in range(flood)]
    assert sum(taken) == app.config["INTERVIEW_STREAMS_PER_LINK"] < flood
    try:
        assert slots.take("another interview")  # a place is left for every other link
        slots.give_back("another interview")
        [state] = events_of(client, session["candidate_url"])
        assert state["status"] == "waiting"
    finally:
        for held in taken:
            if held:
                slots.give_back("greedy")
    assert greedy and greedy_id is None and slots.open == {}


def test_private_work_does_not_wake_the_candidates_stream(client, interviewer, session):
    before = client.get(session["candidate_url"] + "/state").get_json()["version"]
    url = session["interviewer_url"]
    interviewer.post(url + "/note", {"text": "seems unsure"})
    interviewer.post(url + "/recommendation", {"recommendation": "no", "reason": "unsure"})
    assert client.get(session["candidate_url"] + "/state").get_json()["version"] == before


def test_the_candidate_page_has_no_controls_no_calculator_and_no_links_to_the_bank(client, interviewer, session):
    interviewer.post(session["interviewer_url"] + "/reveal", {"card": "kv-pool-users", "stage": "full"})
    page = client.get(session["candidate_url"]).text
    assert "/reveal" not in page and "calc-form" not in page and "variant" not in page
    assert 'href="/"' not in page and "/author" not in page and "/cards/" not in page
    assert "/interview/i/" not in page  # nothing of the interviewer's


FOLLOW_UP_QUESTIONS = ("What happens to a request that needs more blocks than are free?",
                       "Why does the mixture-of-experts model use less KV memory per token than the dense model?",
                       "How do you check your count after a start?", "What is the cost of the FP8 KV cache?")


def test_no_follow_up_question_reaches_the_candidate_until_it_is_asked(client, interviewer, session):
    """Issue 18: the full answer revealed, the candidate's page, state and stream hold no follow-up
    question; asked, one question arrives, without its expected answer and without the others."""
    url, candidate = session["interviewer_url"], session["candidate_url"]
    interviewer.post(url + "/reveal", {"card": "kv-pool-users", "stage": "full"})
    received = everything_the_candidate_gets(client, candidate)
    assert "KV bytes per token = layers" in received  # the full answer is there
    for question in FOLLOW_UP_QUESTIONS:
        assert question not in received, question
    assert "Follow-up" not in text_of(client.get(candidate + "/state").get_json()["html"])

    assert interviewer.post(url + "/ask", {"card": "kv-pool-users", "stage": "followup-1"}).status_code == 200
    received = everything_the_candidate_gets(client, candidate)
    assert FOLLOW_UP_QUESTIONS[0] in received
    for question in FOLLOW_UP_QUESTIONS[1:]:
        assert question not in received, question
    assert "It waits in the queue" not in received  # its expected answer stays on the console
    state = client.get(candidate + "/state").get_json()
    assert state["asked"] == ["followup-1"] and state["announce"]["asked"] == {
        "followup-1": "The interviewer asks follow-up 1."}


def test_only_a_follow_up_is_asked_and_asking_twice_keeps_the_first_time(client, interviewer, session):
    url = session["interviewer_url"]
    refused = interviewer.post(url + "/ask", {"card": "kv-pool-users", "stage": "short"})
    assert refused.status_code == 400 and refused.get_json()["field"] == "stage"
    first = interviewer.post(url + "/ask", {"card": "kv-pool-users", "stage": "followup-2"}).get_json()
    again = interviewer.post(url + "/ask", {"card": "kv-pool-users", "stage": "followup-2"}).get_json()
    [card] = again["cards"]
    assert card["asked"] == first["cards"][0]["asked"] and "followup-2" in card["asked"]
    assert card["asked_text"]["followup-2"].startswith("Asked on the candidate's screen since")


def test_the_end_reaches_the_candidate_and_nothing_more_is_shown(client, interviewer, session):
    url = session["interviewer_url"]
    interviewer.post(url + "/reveal", {"card": "kv-pool-users", "stage": "short"})
    assert interviewer.post(url + "/end", {}).status_code == 200
    state = client.get(session["candidate_url"] + "/state").get_json()
    assert state["status"] == "ended" and "54,208" not in state["html"]
    refused = interviewer.post(url + "/reveal", {"card": "kv-pool-users", "stage": "full"})
    assert refused.status_code == 409 and refused.get_json()["error"] == "the interview has ended"
    assert interviewer.post(session["candidate_url"] + "/scratch", {"text": "late"}).status_code == 409


def test_the_candidates_state_words_its_announcements_for_what_is_shown_only(client, interviewer, session):
    url = session["interviewer_url"]
    interviewer.post(url + "/reveal", {"card": "kv-pool-users", "stage": "short"})
    interviewer.post(url + "/reveal", {"card": "kv-pool-users", "stage": "followup-2"})
    said = client.get(session["candidate_url"] + "/state").get_json()["announce"]
    assert said == {"card": "Question 1 is on the screen.", "ended": "The interview has ended.",
                    "stages": {"short": "The interviewer showed the short answer.",
                               "followup-2": "The interviewer showed the expected answer to follow-up 2."},
                    "asked": {}}  # follow-up 2's question came with its expected answer
