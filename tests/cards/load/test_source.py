"""Splitting a card file: every YAML mistake at its own line, and the rest of the file still read."""

from quizapp.cards.load.source import split_card

from ..conftest import GOOD_CARD, line_of


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


def _front_matter_both_ways(text, monkeypatch):
    from quizapp.cards.load import source as source_module

    fast = split_card("card.md", text)
    monkeypatch.setattr(source_module, "FAST_YAML", False)
    slow = split_card("card.md", text)
    return fast, slow


def test_libyaml_reads_every_shipped_card_as_pyyaml_does(monkeypatch):
    from pathlib import Path

    import yaml

    assert yaml.__with_libyaml__  # else the fast path is not under test here
    for path in sorted(Path("questions").glob("*.md")):
        fast, slow = _front_matter_both_ways(path.read_text(encoding="utf-8"), monkeypatch)
        monkeypatch.undo()
        assert (fast.front_matter, fast.key_lines, fast.problems) == (slow.front_matter, slow.key_lines,
                                                                      slow.problems), path


def test_an_anchor_is_still_refused_at_its_line_with_libyaml():
    text = GOOD_CARD.replace("  output_tokens: 128\n", "  output_tokens: &big 128\n")
    [problem] = split_card("tiny.md", text).problems
    assert problem.line == line_of(text, "output_tokens: &big")
    assert "an anchor (&name) is not allowed in front matter" in problem.message


def test_a_yaml_mistake_reads_the_same_with_and_without_libyaml(monkeypatch):
    text = GOOD_CARD.replace("title: A tiny card", "title: A tiny card: with a colon")
    fast, slow = _front_matter_both_ways(text, monkeypatch)
    assert fast.problems == slow.problems and fast.problems[0].line == line_of(text, "title: A tiny")
