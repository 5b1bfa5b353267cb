"""Rendering a piece: sanitized HTML, calc() over another scenario, errors at their own line."""

import pytest

from quizapp.cards import resolve_scenario
from quizapp.cards.template import render as render_module
from quizapp.cards.template.render import render_piece, sanitize

from ..conftest import GOOD_CARD, error_of, line_of, load


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


def test_the_reused_markdown_converter_carries_nothing_from_one_text_to_the_next():
    """One converter per thread, reset between texts: a reference defined in one text does not
    link in the next, and each text converts as a fresh converter would."""
    import markdown

    from quizapp.cards.template.render import _to_html

    defines = "See [the docs][d].\n\n[d]: https://docs.vllm.ai/\n"
    uses = "See [the docs][d]."
    table = "| a | b |\n|---|---|\n| 1 | 2 |\n\n```\ncode\n```"
    assert 'href="https://docs.vllm.ai/"' in _to_html(defines, inline=False)
    assert "href" not in _to_html(uses, inline=False)
    fresh = markdown.markdown(table, extensions=["fenced_code", "tables", "sane_lists"])
    assert "<table>" in fresh and _to_html(table, inline=False).startswith("<table>")


@pytest.mark.parametrize("expression, words", [
    ("{{ 1 in users_fit }}", "argument of type 'int' is not iterable"),
    ("{{ model < 1 }}", "'<' not supported between instances of 'str' and 'int'"),
    ("{{ -model }}", "bad operand type for unary -: 'str'"),
    ("{% set a, b = [users_fit] %}{{ a }}", "not enough values to unpack"),
    ("{{ model | gib }}", "unsupported operand type(s) for /: 'str' and 'int'"),
    ("{{ range(1, 2, 0) | list }}", "range() arg 3 must not be zero"),
    ("{{ model.index('zzz') }}", "substring not found"),
    ("{{ users_fit / 0 }}", "division by zero"),
    ("{{ users_fit is divisibleby(0) }}", "modulo by zero"),
    ("{{ calc(1) }}", "takes 0 positional arguments"),
    ("{{ cycler() }}", "RuntimeError: at least one item has to be provided"),
    ("{{ model | truncate(-5) }}", "expected length >= 3, got -5"),
    ("{{ derivation([1]) }}", "the calculator does not derive [1] here"),
    ("{{ measured('x', on=[1]) }}", "on must be 'own' or a variant's name"),
])
def test_what_python_refuses_in_an_expression_is_the_cards_error_at_its_line(write_card, expression, words):
    text = GOOD_CARD.replace("{{ users_fit }} users.", f"Fits\n{expression} users.")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.line == line_of(text, expression)
    assert words in diagnostic.message


def test_an_error_inside_a_function_an_expression_calls_is_a_bug_not_the_cards_error(write_card, monkeypatch):
    """A KeyError from deep in the calculator is not reported to the author as a mistake in
    their card: it propagates, to be logged with its traceback (the bank catches it)."""
    card = load(write_card(GOOD_CARD.replace("{{ users_fit }} users.",
                                             "{{ calc(max_model_len=4096).users_fit }} users.")))
    scenario = resolve_scenario(card, None, {"max_model_len": 16384})

    def broken_compute(inputs):
        raise KeyError("weights_bytes")

    monkeypatch.setattr(render_module, "compute", broken_compute)
    with pytest.raises(KeyError):
        render_piece(card, "short", scenario)
