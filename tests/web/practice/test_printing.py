"""Print-friendly pages: a card, or a role's deck, every stage shown, a printed page per card."""

from pathlib import Path

from tests.paths import STATIC


def test_a_card_prints_every_stage_with_its_own_numbers(client):
    page = client.get("/cards/kv-pool-users/print")
    assert page.status_code == 200
    text = page.text
    for heading in ("The question", "Short answer", "Full answer", "Expected answer", "Wrong answers", "Taught in"):
        assert heading in text
    assert "37" in text
    assert 'href="/static/print.css" media="print"' in text


def test_printing_reveals_nothing_to_the_reader(client):
    client.get("/cards/kv-pool-users/print")
    page = client.get("/cards/kv-pool-users").text
    assert "Show short answer" in page  # nothing was revealed by printing


def test_a_role_deck_has_a_page_per_card(client):
    text = client.get("/print?role=Inference Engineering").text
    assert text.count('<article class="print-card"') == 2
    assert 'id="print-kv-pool-users"' in text and 'id="print-kv-bytes-per-token"' in text
    assert client.get("/print?role=LLM Product Engineering").text.count('<article class="print-card"') == 1
    assert client.get("/print?role=Nobody").status_code == 404
    assert "Inference Engineering" in client.get("/print").text


def test_the_print_stylesheet_breaks_before_each_card():
    css = (STATIC / "print.css").read_text()
    assert ".print-card { break-before: page; }" in css
