"""Issue 18, point 1: review as review tools have it, without JavaScript. The grade is the card's
last step (after the follow-ups, the wrong answers and where it is taught), each grade button
shows its key and the interval FSRS would give, and a grade goes back where the card came from:
the bank for a card opened there, the next card for a practice session."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from quizapp.progress.db.connection import connect
from quizapp.web.practice.review import interval_text


def grade_buttons(page: str) -> list[tuple[str, str, str]]:
    """(key, grade, interval) of each grade button, in the page's order."""
    return re.findall(r'data-key="(\d)"[^>]*>\s*<span class="grade-name"><kbd[^>]*>\d</kbd> (\w+)</span>\s*'
                      r'<span class="grade-interval"[^>]*>([^<]+)</span>', page)


def test_the_grade_opens_with_the_full_answer_and_comes_after_every_stage(reader):
    page = reader.open().text
    assert 'class="grade"' not in page and 'id="stage-grade"' in page  # its heading says when it opens
    page = reader.reveal("short").text
    assert 'class="grade"' not in page
    page = reader.reveal("full").text
    assert 'class="grade"' in page
    order = [m.group(1) for m in re.finditer(r'<section class="[^"]*" id="stage-([\w-]+)"', page)]
    assert order == ["short", "full", "followup-1", "followup-2", "followup-3", "followup-4", "wrong", "taught",
                     "grade"]
    # Nothing that can be focused follows the grade buttons in the card's column.
    column = page.split('<div class="card-main">')[1].split('<aside class="calc-panel"')[0]
    after = column.split('id="stage-grade"')[1]
    assert "<button" not in after.split("</section>", 1)[1] and "<a " not in after.split("</section>", 1)[1]


def test_each_grade_button_shows_its_key_and_the_interval_fsrs_would_give(reader):
    reader.open()
    reader.reveal("short")
    page = reader.reveal("full").text
    # py-fsrs 6's defaults for a new card: learning steps of 1 and 10 minutes, Hard halfway
    # between them (5.5 min, shown rounded), Easy graduating at its initial stability w[3] =
    # 8.2956 days.
    assert grade_buttons(page) == [("1", "Again", "1 min"), ("2", "Hard", "6 min"), ("3", "Good", "10 min"),
                                   ("4", "Easy", "8 days")]


def test_the_intervals_follow_the_card_s_own_state(client, app, reader):
    reader.open()
    reader.grade("good")  # 10 minutes; a day later it is overdue and in its second learning step
    with client.session_transaction() as session:
        learner = session["learner_id"]
    db = connect(app.config["DATABASE"])
    day_ago = (datetime.now(timezone.utc) - timedelta(days=1)).isoformat()
    db.execute("UPDATE card_states SET due = ? WHERE learner_id = ?", [day_ago, learner])
    db.conn.commit()
    reader.open()
    reader.reveal("short")
    shown = dict((grade, interval) for _, grade, interval in grade_buttons(reader.reveal("full").text))
    # Good at the last learning step graduates the card: a day or more, no longer 10 minutes.
    assert shown["Again"] == "1 min" and shown["Good"] != "10 min" and shown["Good"].endswith(("day", "days"))


def test_a_card_opened_from_the_bank_goes_back_to_the_bank_with_its_standing(client, reader):
    reader.open()
    reader.reveal("short")
    reader.reveal("full")
    response = reader.grade("good")
    assert response.status_code == 303 and response.location == "/#card-kv-pool-users"
    bank = client.get("/").text
    assert "Graded “Good”: How many users fit in the KV pool comes back in 10 minutes." in bank
    card = bank.split('id="card-kv-pool-users"')[1].split("</li>")[0]
    assert 'class="standing standing-learning"' in card and "<time datetime=" in card
    assert "Practice: card" not in bank


def test_a_card_of_a_practice_session_goes_on_to_the_next_card(client, reader):
    first = client.get("/practice").location
    card = first.split("/cards/")[1].split("?")[0]
    client.get(first)
    response = reader.grade("good", card=card)
    assert response.location == "/practice"
    assert client.get("/practice").location.split("?")[0] != f"/cards/{card}"


def test_the_interval_text_is_what_a_review_tool_shows():
    assert [interval_text(timedelta(minutes=m)) for m in (0.2, 1, 5.5, 10, 59)] == \
        ["1 min", "1 min", "6 min", "10 min", "59 min"]
    assert interval_text(timedelta(hours=5)) == "5 h"
    assert [interval_text(timedelta(days=d)) for d in (1, 8, 45)] == ["1 day", "8 days", "45 days"]
    assert interval_text(timedelta(days=106.4)) == "3.5 months"  # 106.4 ÷ 30.4 days a month
    assert interval_text(timedelta(days=438)) == "1.2 years"     # 438 ÷ 365
