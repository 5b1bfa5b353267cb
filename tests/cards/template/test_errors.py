"""Jinja syntax errors point at the unclosed delimiter or block, in plain words."""

import pytest
from jinja2 import TemplateSyntaxError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from quizapp.cards.template.errors import explain, unclosed_delimiter


def mistake_in(text: str, first_line: int = 10):
    with pytest.raises(TemplateSyntaxError) as info:
        ImmutableSandboxedEnvironment().parse(text)
    return explain(info.value, text, first_line)


def test_an_unclosed_print_is_named_at_its_line_and_column():
    mistake = mistake_in("One token takes\nthis much: {{ kv_bytes_per_token | kib, and\nmore {{ model }}.")
    assert (mistake.line, mistake.column) == (2, 12)
    assert mistake.message == "`{{` on line 11 is never closed with `}}`"
    assert mistake.hint == "close it with }}"


def test_an_unclosed_print_at_the_end_of_a_piece():
    # Jinja's own words for this one are "unexpected end of template, expected 'name'."
    mistake = mistake_in("{{ users_fit }} users, {{ kv_bytes_per_token |")
    assert mistake.message == "`{{` on line 10 is never closed with `}}`" and mistake.column == 24


def test_an_unclosed_tag():
    assert mistake_in("a {% if own_scenario }}x{% endif %}").message == "`{%` on line 10 is never closed with `%}`"


def test_an_unclosed_block_names_its_end_tag():
    mistake = mistake_in("{% if own_scenario %}\nmeasured\n")
    assert mistake.line == 1 and mistake.message == "`{% if %}` on line 10 is never closed"
    assert mistake.hint == "end it with {% endif %}"


def test_a_wrong_end_tag_names_the_open_block():
    mistake = mistake_in("{% for x in y %}\n{% if x %}a{% endfor %}")
    assert "does not close the `{% if %}` of line 11" in mistake.message and mistake.hint == \
        "end that block with {% endif %} first"


@pytest.mark.parametrize("text, words", [
    ("{{ users_fit + }}", "ends too early"),
    ("{{ users_fit users }}", "two things side by side"),
    ("{{ users_fit | }}", "after | write a filter"),
    ('{{ "users }}', "quote that is never closed"),
])
def test_other_mistakes_get_a_plain_hint(text, words):
    mistake = mistake_in(text)
    assert words in mistake.hint and mistake.column == 1


def test_closed_delimiters_are_not_reported():
    assert unclosed_delimiter("{{ a }} and {% if b %}c{% endif %} {# note #}") is None
