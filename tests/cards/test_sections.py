"""Sections: missing, unknown and malformed sections are errors at their own line."""

from .conftest import GOOD_CARD, error_of, line_of


def test_missing_section(write_card):
    text = GOOD_CARD.replace("## Short answer\n\n{{ users_fit }} users.\n", "")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.message == "missing section '## Short answer'"


def test_unknown_section_with_hint(write_card):
    text = GOOD_CARD.replace("## Wrong answers", "## Wrong answer")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.line == line_of(text, "## Wrong answer")
    assert diagnostic.hint == "did you mean 'Wrong answers'?"


def test_bad_follow_up_heading(write_card):
    text = GOOD_CARD.replace("### L2 Working: Why", "### Working: Why")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.line == line_of(text, "### Working: Why")
