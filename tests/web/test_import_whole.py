"""Imports are all or nothing, and say exactly what was imported or why nothing was (issue 21)."""

import json
from io import BytesIO

import pytest

from quizapp.progress import transfer


def event(n: int, **fields) -> dict:
    return {"event_id": f"evt-whole-{n:06d}", "card_id": "kv-pool-users", "kind": "open",
            "at": "2026-01-01T00:00:00+00:00", **fields}


def export_text(events: list[dict]) -> str:
    return transfer.dumps({"format": "quizapp-progress", "version": 1, "learner": {}, "events": events,
                           "review_log": []})


def post(client, text: str):
    # A lone surrogate travels as its JSON escape, "\\ud800", as in the probe of issue 21.
    return client.post("/me/import", data={"file": (BytesIO(text.encode("utf-8", "backslashreplace")), "x.json")},
                       follow_redirects=True)


def stored_events(client) -> list[dict]:
    return client.get("/me/export").get_json()["events"]


@pytest.mark.parametrize("layout", ["as exported", "as one line"])
def test_a_file_refused_at_its_last_row_has_written_nothing(client, layout):
    # 1,500 valid events, then one whose value is a lone surrogate: the first 1,000 were stored.
    rows = [event(n) for n in range(1500)] + [event(1500, value="\ud800")]
    text = export_text(rows) if layout == "as exported" else json.dumps(json.loads(export_text(rows)))
    page = post(client, text).text
    assert "Nothing imported: events[1500].value is not text" in page
    assert stored_events(client) == []


def test_a_file_read_whole_says_how_many_rows_it_imported(client):
    page = post(client, export_text([event(n) for n in range(1200)])).text
    assert "Imported 1,200 new events and 0 new reviews: 1,200 of 1,200 rows read" in page
    assert len(stored_events(client)) == 1200


@pytest.mark.parametrize("detail", ["[" * 100_000, {"a": json.loads("[" * 50 + "]" * 50)}, {"\ud800": 1},
                                    {"note": "\udfff"}])
def test_a_detail_too_deep_or_not_text_is_refused_not_a_500(client, detail):
    response = post(client, export_text([event(1), event(2, detail=detail)]))
    assert response.status_code == 200 and "Nothing imported: events[1].detail" in response.text
    assert stored_events(client) == []


def test_a_learner_name_that_is_not_text_is_left_out(client):
    text = transfer.dumps({"format": "quizapp-progress", "version": 1, "learner": {"display_name": "\ud800"},
                           "events": [event(1)], "review_log": []})
    assert "Imported 1 new events" in post(client, text).text
    assert client.get("/me").status_code == 200
