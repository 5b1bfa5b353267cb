"""Rendering a piece: sanitized HTML, calc() over another scenario, errors at their own line."""

from quizapp.cards import resolve_scenario
from quizapp.cards.render import render_piece, sanitize

from .conftest import GOOD_CARD, error_of, line_of, load


def test_author_script_never_reaches_html(write_card):
    text = GOOD_CARD.replace("Because the config says so.",
                             "Because <script>alert(1)</script> <a href=\"javascript:x()\" onclick=\"y()\">so</a>.")
    card = load(write_card(text))
    html = render_piece(card, "followup-1", resolve_scenario(card, None, {})).html
    assert "<script" not in html and "onclick" not in html and "javascript:" not in html


def test_sanitize_keeps_markdown_output():
    assert sanitize('<p><code>x</code> <span class="measured" title="t">40</span></p>') == \
        '<p><code>x</code> <span class="measured" title="t">40</span></p>'


def test_render_error_points_at_its_own_line(write_card):
    text = GOOD_CARD.replace("One token takes {{ kv_bytes_per_token | kib }}.",
                             "One token takes\nquite a lot:\n{{ calc(model=\"Qwen/Qwen3-32B\").kv_bytes_per_tokn | kib }}.")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.line == line_of(text, "kv_bytes_per_tokn")
    assert "calc() has no value 'kv_bytes_per_tokn'" in diagnostic.message
    assert "did you mean 'kv_bytes_per_token'?" in diagnostic.message


def test_calc_keeps_the_pool_bytes_like_a_reader_switch(write_card):
    text = GOOD_CARD.replace("One token takes {{ kv_bytes_per_token | kib }}.",
                             "Llama fits {{ calc(model=\"meta-llama/Llama-3.1-8B-Instruct\").users_fit }} users.")
    card = load(write_card(text))
    html = render_piece(card, "full", resolve_scenario(card, None, {})).html
    reader = resolve_scenario(card, None, {"model": "meta-llama/Llama-3.1-8B-Instruct"}).result["users_fit"]
    assert f"Llama fits {reader} users." in html and reader == 42
