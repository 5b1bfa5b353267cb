"""Sections: missing, unknown and malformed sections are errors at their own line."""

import pytest

from quizapp.cards import CardError

from ..conftest import GOOD_CARD, error_of, line_of, load


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


def test_every_section_mistake_is_reported_in_one_run(write_card):
    text = (GOOD_CARD.replace("## Wrong answers", "## Wrong answer").replace("### L2 Working: Why", "### Working: Why")
            .replace("## Short answer\n\n{{ users_fit }} users.\n", ""))
    path = write_card(text)
    with pytest.raises(CardError) as info:
        load(path)
    assert [(d.line, d.message) for d in info.value.diagnostics] == [
        (line_of(text, "### Working: Why"), "follow-up heading '### Working: Why {{ num_kv_heads }} heads?' must "
                                            "read '### L2 Working: the question'"),
        (line_of(text, "## Wrong answer"), "unknown section '## Wrong answer'"),
        (len(text.splitlines()), "missing section '## Short answer'"),
    ]
