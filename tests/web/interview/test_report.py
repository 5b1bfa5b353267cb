"""Ending a session gives a report: as a page, as Markdown, and for print (one card per page).
What people typed is text everywhere: it opens no tag, no link and no image."""

import html
import re
from pathlib import Path

import markdown
import pytest

HOSTILE = ("<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "[x](javascript:alert(1))")
from tests.paths import STATIC

PRINT_CSS = STATIC / "print.css"


@pytest.fixture
def ended(interviewer):
    """A session of two cards, worked through and ended."""
    session = interviewer.create(["kv-pool-users", "kv-bytes-per-token"], candidate="Ada Lovelace")
    url = session["interviewer_url"]
    interviewer.post(url + "/reveal", {"card": "kv-pool-users", "stage": "short"})
    interviewer.post(url + "/score", {"card": "kv-pool-users", "stage": "short", "score": 3})
    interviewer.post(url + "/score", {"card": "kv-pool-users", "stage": "followup-1", "score": 2})
    interviewer.post(url + "/signal", {"card": "kv-pool-users", "signal": "wrong-2", "heard": True})
    interviewer.post(url + "/note", {"card": "kv-pool-users", "text": "Counted the null block unprompted."})
    interviewer.post(url + "/note", {"text": "Calm and structured throughout."})
    interviewer.post(url + "/reveal", {"card": "kv-bytes-per-token", "stage": "full"})
    interviewer.post(url + "/score", {"card": "kv-bytes-per-token", "stage": "full", "score": 4})
    interviewer.post(session["candidate_url"] + "/scratch", {"text": "24096 tokens / 640 = 37"})
    interviewer.post(url + "/end", {"recommendation": "strong_yes",
                                    "reason": "Reasons from the formula, checks results."})
    return session


def test_the_report_page_holds_the_scores_signals_notes_and_recommendation(client, ended):
    page = client.get(ended["interviewer_url"] + "/report").text
    for text in ("Ada Lovelace", "Strong yes", "Reasons from the formula, checks results.", "3 solid", "2 partial",
                 "4 beyond", "The maximum concurrency in the log is the user limit.",
                 "Counted the null block unprompted.", "Calm and structured throughout.", "24096 tokens / 640 = 37",
                 "Follow-up 1 (L2 Working)", "the card&#39;s own"):
        assert text in page, text


def test_the_markdown_download_holds_them_too(client, ended):
    response = client.get(ended["interviewer_url"] + "/report.md")
    assert response.mimetype == "text/markdown"
    assert re.fullmatch(r'attachment; filename="interview-ada-lovelace-\d{4}-\d{2}-\d{2}\.md"',
                        response.headers["Content-Disposition"])
    text = response.get_data(as_text=True)
    for fragment in ("# Interview: Ada Lovelace", "**Strong yes**", "Reasons from the formula, checks results.",
                     "| Short answer |", "| 3 solid |", "| 2 partial |", "| 4 beyond |",
                     "The maximum concurrency in the log is the user limit.", "Counted the null block unprompted.",
                     "Calm and structured throughout.", "    24096 tokens / 640 = 37",
                     "KV pool:** 24,096 tokens (logged)", "| Follow-up 1 (L2 Working) |"):
        assert fragment in text, fragment
    # Issue 18: only what Markdown would read as syntax is escaped; ordinary punctuation stays.
    for over_escaped in ("\\.", "\\-", "\\(", "\\)", "max\\_", "\\,"):
        assert over_escaped not in text, over_escaped


def test_the_print_view_puts_each_card_on_its_own_page(client, ended):
    page = client.get(ended["interviewer_url"] + "/report").text
    assert re.search(r'<link rel="stylesheet" href="/static/print.css" media="print">', page)
    assert len(re.findall(r'<section class="report-card"', page)) == 2
    css = PRINT_CSS.read_text(encoding="utf-8")
    rule = re.search(r"\.report-card\s*\{([^}]*)\}", css)
    assert rule and re.search(r"break-before:\s*page", rule.group(1))
    assert re.search(r"header\.site[^{]*\{[^}]*display:\s*none", css)  # no navigation on paper


@pytest.mark.parametrize("hostile", HOSTILE)
def test_what_people_type_stays_text_everywhere(client, interviewer, hostile):
    session = interviewer.create(["kv-pool-users"], candidate=f"Eve {hostile}")
    url = session["interviewer_url"]
    interviewer.post(url + "/note", {"card": "kv-pool-users", "text": hostile})
    interviewer.post(url + "/note", {"text": hostile})
    interviewer.post(url + "/recommendation", {"recommendation": "no", "reason": hostile})
    interviewer.post(session["candidate_url"] + "/scratch", {"text": hostile})
    pages = [client.get(url).text, client.get(url + "/report").text, client.get(session["candidate_url"]).text,
             client.get("/interview").text]
    for page in pages:
        assert "<script>alert" not in page and "<img src=x" not in page and 'href="javascript:' not in page
        assert page.count(html.escape(hostile, quote=False)) >= 1
    state = client.get(url + "/state")  # JSON: the console's script sets it as text, never as HTML
    assert state.mimetype == "application/json" and state.headers["X-Content-Type-Options"] == "nosniff"
    assert state.get_json()["reason"] == hostile and state.get_json()["notes"][0]["text"] == hostile
    text = client.get(url + "/report.md").get_data(as_text=True)
    rendered = markdown.markdown(text, extensions=["tables"])
    assert "<script" not in rendered and "<img" not in rendered and "href" not in rendered
    assert "javascript:alert(1)" in rendered or "alert(1)" in rendered  # shown, as text
