"""AUTHORING.md documents exactly what the code accepts: a test fails when they disagree."""

import re
from pathlib import Path

import pytest
import yaml

from quizapp.calc import FIELD_NAMES, VALUES
from quizapp.cards.template.environment import CARD_FILTERS, CARD_FUNCTIONS, PROSE_NAMES
from quizapp.cards.load.front_matter import ANSWER, ANSWER_KEYS, FRONT_MATTER, FRONT_MATTER_KEYS, SPACE, SPACE_KEYS
from quizapp.cards.load.sections import SECTIONS

from tests.paths import AUTHORING as DOC


def section_text(heading: str) -> str:
    """The text under a heading of AUTHORING.md, up to the next heading."""
    text = DOC.read_text(encoding="utf-8")
    start = re.search(rf"^#+ {re.escape(heading)}\s*$", text, re.M)
    assert start, f"AUTHORING.md has no heading {heading!r}"
    rest = text[start.end():]
    end = re.search(r"^#+ ", rest, re.M)
    return rest[: end.start()] if end else rest


def table_names(heading: str) -> set[str]:
    """The backticked first cells of the table under a heading of AUTHORING.md."""
    return set(re.findall(r"^\| `([^`]+)` \|", section_text(heading), re.M))


def table_rows(heading: str) -> dict[str, list[str]]:
    """The other cells of each row of the table under a heading, by the row's backticked first cell."""
    rows = re.findall(r"^\| `([^`]+)` \|(.*)\|\s*$", section_text(heading), re.M)
    return {name: [cell.strip() for cell in re.split(r"(?<!\\)\|", cells)] for name, cells in rows}


def test_front_matter_keys():
    assert table_names("Front matter") == set(FRONT_MATTER_KEYS)


def test_answer_keys():
    assert table_names("Answer") == set(ANSWER_KEYS)


def test_space_keys():
    assert table_names("Space") == set(SPACE_KEYS)


@pytest.mark.parametrize("heading, keys", [("Front matter", FRONT_MATTER), ("Answer", ANSWER), ("Space", SPACE)],
                         ids=["front matter", "answer", "space"])
def test_each_key_states_the_default_the_code_applies(heading, keys):
    rows = table_rows(heading)
    for key in keys:
        stated = rows[key.name][0]
        if key.required:
            assert stated == "Required; no default", key.name
        else:
            default = re.fullmatch(r"Optional; default: `([^`]*)`", stated)
            assert default, f"{key.name}: {stated!r} should read 'Optional; default: `...`'"
            assert yaml.safe_load(default[1]) == key.default, key.name


def test_sections():
    assert table_names("Sections") == {section.heading for section in SECTIONS}


def test_each_section_states_whether_it_is_required_and_its_stage():
    rows = table_rows("Sections")
    for section in SECTIONS:
        required, stage = rows[section.heading][:2]
        assert required == ("yes" if section.required else "no"), section.heading
        if section.stage is None:
            assert stage == "always shown", section.heading
        else:
            assert stage.startswith(f"`{section.stage.format(number=1)}`"), section.heading


def test_values():
    assert table_names("Values") == set(VALUES)


def test_names_for_prose():
    assert table_names("Names for prose") == set(PROSE_NAMES)


def test_inputs():
    assert table_names("Inputs") == set(FIELD_NAMES) - {"config"}


def test_filters():
    assert table_names("Filters") == set(CARD_FILTERS)


def test_functions():
    assert table_names("Functions") == set(CARD_FUNCTIONS)


def test_topics():
    from quizapp.cards.topics import TOPICS

    rows = table_rows("Topics")
    assert list(rows) == [topic.id for topic in TOPICS]
    for topic in TOPICS:
        assert rows[topic.id][:2] == [topic.title, topic.blurb], topic.id
