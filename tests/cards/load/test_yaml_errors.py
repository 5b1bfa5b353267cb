"""YAML mistakes are reported at the line the author has to change, with the fix in the hint."""

import pytest
import yaml

from quizapp.cards.load.yaml_errors import explain


def mistake_in(text: str, first_line: int = 2):
    lines = text.split("\n")
    with pytest.raises(yaml.YAMLError) as info:
        yaml.safe_load(text)
    return explain(info.value, lines, first_line)


def test_a_colon_in_a_title_is_quoted_in_the_hint():
    mistake = mistake_in("id: x\ntitle: Pin vs fraction: which one?\nroles: [a]")
    assert (mistake.line, mistake.column) == (1, 23)
    assert "a colon inside a value" in mistake.message
    assert mistake.hint == 'quote a value that holds a colon: title: "Pin vs fraction: which one?"'


def test_an_unclosed_bracket_is_reported_where_it_opens_not_on_the_next_line():
    mistake = mistake_in("id: x\ntags: [kv-cache\nroles: [a]", first_line=2)
    assert (mistake.line, mistake.column) == (1, 7)
    assert mistake.message == "the '[' on line 3 is never closed"
    assert mistake.hint == "close the bracket opened on line 3 with ']'"


def test_an_unclosed_brace_names_its_closer():
    mistake = mistake_in("id: x\nscenario: {model: a\nroles: [a]")
    assert mistake.line == 1 and mistake.hint.endswith("with '}'")


def test_an_unclosed_quote_is_reported_where_it_opens():
    mistake = mistake_in('id: x\ntitle: "A title\nroles: [a]')
    assert mistake.line == 1 and "quote on line 3 is never closed" in mistake.message


def test_a_tab_is_named():
    mistake = mistake_in("id: x\n\ttitle: y")
    assert mistake.line == 1 and "tabs" in mistake.hint


def test_a_value_starting_with_a_backtick_is_quoted_in_the_hint():
    mistake = mistake_in("title: `x`")
    assert mistake.hint == 'quote the value: title: "`x`"'


def test_a_key_indented_too_far_is_not_told_to_quote():
    mistake = mistake_in("scenario:\n  model: x\n   gpu: y")
    assert mistake.line == 2 and "line this key up" in mistake.hint
