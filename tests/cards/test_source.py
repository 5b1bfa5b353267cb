"""Splitting a card file: every YAML mistake at its own line, and the rest of the file still read."""

from quizapp.cards.source import split_card

from .conftest import GOOD_CARD, line_of


def test_each_yaml_mistake_is_reported_and_the_rest_is_read():
    text = GOOD_CARD.replace("title: A tiny card", "title: A tiny card: with a colon").replace(
        "tags: [kv-cache]", "tags: [kv-cache")
    source = split_card("tiny.md", text)
    assert [(d.line, d.column, d.message) for d in source.problems] == [
        (line_of(text, "title: A tiny"), 19, "front matter is not valid YAML: a colon inside a value (mapping "
                                             "values are not allowed here)"),
        (line_of(text, "tags: [kv-cache"), 7, "front matter is not valid YAML: the '[' on line 5 is never closed"),
    ]
    assert source.broken_keys == {"title", "tags"}
    # The keys around the mistakes are read, with their lines.
    assert source.front_matter["scenario"]["pool_tokens"] == 24096
    assert source.line_of("scenario.model") == line_of(text, "model: Qwen/Qwen3-8B")
    assert [s.heading for s in source.sections][:2] == ["Question", "Short answer"]


def test_a_key_given_twice_is_reported():
    text = GOOD_CARD.replace("tags: [kv-cache]", "tags: [kv-cache]\ntags: [memory]")
    [problem] = split_card("tiny.md", text).problems
    assert problem.line == line_of(text, "tags: [memory]")
    assert problem.message == "key 'tags' appears twice (first on line 5); the second one wins"


def test_text_before_the_first_section_is_reported_once():
    text = GOOD_CARD.replace("## Question", "Stray text\nmore stray text\n\n## Question")
    [problem] = split_card("tiny.md", text).problems
    assert problem.line == line_of(text, "Stray text") and problem.hint == "start the card with '## Question'"
