"""Arbitrary card files (issue 12, item 4): a card loads or is refused with diagnostics that name a
line; no other exception escapes, and no load takes a second.

Hypothesis draws the files, mostly the good card with a line changed, so the changes reach the
front matter, the sections and the expressions; derandomized, so CI sees the same ones every run.
"""

from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizapp.cards import CardError, load_card
from quizapp.cards.template.environment import CARD_FILTERS, CARD_NAMES

from .conftest import GOOD_CARD

PROPERTY = settings(max_examples=200, derandomize=True, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

LINES = GOOD_CARD.splitlines()

names = st.sampled_from(sorted(CARD_NAMES) + ["range", "lipsum", "dict", "loop", "x", "namespace", "cycler"])
numbers = st.one_of(st.integers(-10, 10**12).map(str), st.sampled_from(["10**10", "2**64", "1e400", "0.5", "-1"]))
strings = st.one_of(st.sampled_from(["'a'", "'x' * 100000", "'%s'", "'{}'", '"\\n"']), st.text(max_size=8).map(repr))
atoms = st.one_of(names, numbers, strings)
operators = st.sampled_from([" + ", " * ", " ** ", " % ", " ~ ", " // ", " / ", " - ", " and ", " in ", " < ",
                             ".x and "])
filters = st.one_of(st.sampled_from(sorted(CARD_FILTERS)),
                    st.sampled_from(["length", "center(10**9)", "indent(9)", "join", "replace('a', 'bb')",
                                     "round(2)", "int", "format(1)", "batch(3)", "list", "upper", "nope",
                                     "truncate(-5)", "fixed(10**9)"]))


@st.composite
def expressions(draw) -> str:
    parts = [draw(atoms)]
    for _ in range(draw(st.integers(0, 3))):
        parts += [draw(operators), draw(atoms)]
    text = "".join(parts)
    if draw(st.booleans()):
        text = f"({text}) | {draw(filters)}"
    if draw(st.booleans()):
        text = f"{draw(names)}({text})"
    return text


@st.composite
def snippets(draw) -> str:
    """A line a card author (or an attacker) might write."""
    expression = draw(expressions())
    return draw(st.sampled_from([
        f"{{{{ {expression} }}}}",
        f"{{% for i in {expression} %}}{{{{ i }}}}{{% endfor %}}",
        f"{{% if {expression} %}}yes{{% else %}}no{{% endif %}}",
        f"{{% set v = {expression} %}}{{{{ v }}}}",
        f"{{{{ {expression}",
        "{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}",
        f"key: {expression}",
        f"  model: {expression}",
        f"a: &a [{expression}]",
        "b: [*a, *a]",
        "---",
        "## Question",
        "## Short answer",
        "### L2 Working: item",
        "```",
        f"taught_in: [{{title: t, link: '{draw(st.sampled_from(['//x', '/ok', 'https://x', 'javascript:x']))}'}}]",
        draw(st.text(max_size=40)),
    ]))


@st.composite
def card_files(draw) -> str:
    if draw(st.integers(0, 9)) == 0:
        return draw(st.text(max_size=300))
    lines = list(LINES)
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.integers(0, len(lines)))
        if draw(st.booleans()) and where < len(lines):
            lines[where] = draw(snippets())
        else:
            lines.insert(where, draw(snippets()))
    return "\n".join(lines) + "\n"


@PROPERTY
@given(text=card_files())
def test_a_card_file_loads_or_is_refused_at_a_line(tmp_path, text):
    path = tmp_path / "card.md"
    path.write_text(text, encoding="utf-8")
    start = time.perf_counter()
    try:
        load_card(path, "card.md", full=False)
    except CardError as error:
        assert error.diagnostics
        for diagnostic in error.diagnostics:
            assert diagnostic.path == "card.md" and diagnostic.line >= 1 and diagnostic.message
    seconds = time.perf_counter() - start
    assert seconds < 1, f"took {seconds:.2f} s"
