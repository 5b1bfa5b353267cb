"""A practice session: where the reader is, skip, end with a summary, practise ahead, a new profile."""

import re
from io import BytesIO


def practise(client):
    """Follow /practice to the card it picks; returns (card id, page text) or (None, page text)."""
    response = client.get("/practice")
    if response.status_code != 303:
        return None, response.text
    card_id = re.search(r"/cards/([a-z0-9-]+)", response.headers["Location"]).group(1)
    return card_id, client.get(response.headers["Location"]).text


def test_the_card_says_where_the_session_is(client):
    _card_id, page = practise(client)
    assert "card 1 of this session" in page
    assert "0 of 2 due, 2 new" in page


def test_skip_moves_on_without_grading_and_the_skipped_card_is_not_picked_again(client):
    first, _ = practise(client)
    response = client.post("/practice/skip", data={"card_id": first})
    assert response.status_code == 303 and response.headers["Location"].endswith("/practice")
    second, page = practise(client)
    assert second != first and "card 2 of this session" in page
    client.post("/practice/skip", data={"card_id": second})
    _, page = practise(client)
    assert "you skipped 2 in this session" in page
    assert re.search(r'id="stat-reviews">0<', client.get("/progress").text)


def test_end_shows_what_the_session_did(client):
    first, _ = practise(client)
    client.post(f"/cards/{first}/grade", data={"rating": "good"})
    second, _ = practise(client)
    client.post("/practice/skip", data={"card_id": second})
    response = client.post("/practice/end")
    assert response.status_code == 303
    page = client.get(response.headers["Location"]).text
    assert "You graded 1 card: 1 good, and skipped 1." in page
    # A new session starts from nothing skipped.
    assert practise(client)[0] == second


def test_practise_ahead_when_nothing_is_due(client):
    for _ in range(2):
        card_id, _ = practise(client)
        client.post(f"/cards/{card_id}/grade", data={"rating": "easy"})
    page = client.get("/practice").text
    assert "You are caught up" in page and 'id="practise-ahead"' in page
    assert re.search(r'<time datetime="[0-9T:.+-]+Z?[^"]*" data-relative="[^"]*">[^<]+ UTC</time>', page)
    response = client.get("/practice?ahead=1")
    assert response.status_code == 303 and "/cards/" in response.headers["Location"]
    card_id = re.search(r"/cards/([a-z0-9-]+)", response.headers["Location"]).group(1)
    graded = client.post(f"/cards/{card_id}/grade", data={"rating": "good"})
    assert graded.headers["Location"].endswith("/practice?ahead=1")  # still practising ahead


def test_a_new_profile_is_confirmed_first_and_shows_the_old_id(client):
    client.get("/me")
    old_id = re.search(r'<code id="learner-id">([0-9a-f]+)</code>', client.get("/me").text).group(1)
    page = client.get("/me/new").text
    assert f'<code id="old-learner-id">{old_id}</code>' in page
    client.post("/me/new")
    assert old_id not in client.get("/me").text


def test_an_import_that_is_not_an_export_says_so_in_plain_words(client):
    for body in (b"\xff\xfe not text", b"{not json", b"[]"):
        response = client.post("/me/import", data={"file": (BytesIO(body), "x.json")}, follow_redirects=True)
        assert "This file is not a quizapp export" in response.text.replace("this file", "This file")
        assert "Expecting" not in response.text and "codec" not in response.text


def test_the_dashboard_says_what_each_percentage_is_of(client, reader):
    reader.open()
    reader.grade("good")
    page = client.get("/progress").text
    assert "By role: % of cards seen" in page and "percentage you have opened" in page
    assert "the percentage that were Good or Easy" in page
    assert "across, the day" in page and "up, how many cards you graded" in page
