"""How the interview's pages say a time (web/interview/clock.py), and that the console's state
carries the same words its page draws."""

import pytest

from quizapp.web.interview.clock import clock_text, duration, moment_text


@pytest.mark.parametrize("ms, shown", [
    (0, "0:00"), (999, "0:00"), (245_000, "4:05"),          # 4 × 60 + 5 s
    (3_599_999, "59:59"), (3_600_000, "1:00:00"),           # an hour is 3,600,000 ms
    (4_500_000, "1:15:00"), (36_061_000, "10:01:01"),       # 10 h + 1 min + 1 s
])
def test_the_console_clock(ms, shown):
    assert clock_text(ms) == shown


@pytest.mark.parametrize("ms, shown", [(42_000, "42 s"), (725_000, "12 min 05 s"), (3_900_000, "1 h 05 min")])
def test_the_reports_duration(ms, shown):
    assert duration(ms) == shown


def test_a_moment_and_how_far_into_the_session():
    assert moment_text("2026-03-01T14:03:07+00:00", "2026-03-01T13:50:27+00:00") == "14:03:07 UTC (+12:40)"
    assert moment_text("2026-03-01T14:03:07+00:00", None) == "14:03:07 UTC"
    assert moment_text(None, None) == ""


def test_the_console_state_words_what_the_page_draws(client, interviewer):
    url = interviewer.create(["kv-pool-users"])["interviewer_url"]
    assert client.get(url + "/state").get_json()["status_text"] == "Not started"
    interviewer.post(url + "/reveal", {"card": "kv-pool-users", "stage": "short"})
    interviewer.post(url + "/score", {"card": "kv-pool-users", "stage": "short", "score": "3"})
    interviewer.post(url + "/note", {"text": "quick", "card": "kv-pool-users"})
    state = client.get(url + "/state").get_json()
    page = client.get(url).text
    [card] = state["cards"]
    [note] = state["notes"]
    assert (state["status_text"], card["scored_text"], note["card_text"]) == ("Live", "1 scored", "card 1")
    assert card["shown_text"]["short"].startswith("On the candidate's screen since ")
    assert note["at_text"].endswith(")") and state["scratch_at_text"] == "Nothing typed yet."
    for text in (state["status_text"], card["scored_text"], card["shown_text"]["short"], note["at_text"],
                 note["card_text"], state["scratch_at_text"]):
        assert text.replace("'", "&#39;") in page, text
