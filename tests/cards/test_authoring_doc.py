"""AUTHORING.md documents exactly what the code accepts: a test fails when they disagree."""

import re
from pathlib import Path

from quizapp.calc import FIELD_NAMES, VALUES
from quizapp.cards.card import FRONT_MATTER_KEYS, SECTIONS
from quizapp.cards.environment import CARD_FILTERS, CARD_FUNCTIONS

DOC = Path(__file__).resolve().parents[2] / "AUTHORING.md"


def table_names(heading: str) -> set[str]:
    """The backticked first cells of the table under a heading of AUTHORING.md."""
    text = DOC.read_text(encoding="utf-8")
    start = re.search(rf"^#+ {re.escape(heading)}\s*$", text, re.M)
    assert start, f"AUTHORING.md has no heading {heading!r}"
    rest = text[start.end():]
    end = re.search(r"^#+ ", rest, re.M)
    section = rest[: end.start()] if end else rest
    return set(re.findall(r"^\| `([^`]+)` \|", section, re.M))


def test_front_matter_keys():
    assert table_names("Front matter") == set(FRONT_MATTER_KEYS)


def test_sections():
    assert table_names("Sections") == set(SECTIONS)


def test_values():
    assert table_names("Values") == set(VALUES)


def test_inputs():
    assert table_names("Inputs") == set(FIELD_NAMES) - {"config"}


def test_filters():
    assert table_names("Filters") == set(CARD_FILTERS)


def test_functions():
    assert table_names("Functions") == set(CARD_FUNCTIONS)
