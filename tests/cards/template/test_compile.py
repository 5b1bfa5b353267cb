"""Compiling: a broken expression or an unknown name is an error at its line, with a hint."""

import pytest

from ..conftest import GOOD_CARD, error_of, line_of


def test_unknown_value_names_line_and_hint(write_card):
    text = GOOD_CARD.replace("{{ kv_bytes_per_token | kib }}", "{{ kv_bytes | kib }}")
    diagnostic, path = error_of(write_card, text)
    assert diagnostic.line == line_of(text, "kv_bytes |")
    assert str(diagnostic) == (f"{path}:{diagnostic.line}: error: unknown value 'kv_bytes' "
                               "(hint: did you mean 'kv_bytes_per_token'?)")


def test_unknown_filter_names_line_and_hint(write_card):
    text = GOOD_CARD.replace("| kib }}", "| kibi }}")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.line == line_of(text, "| kibi")
    assert "kibi" in diagnostic.message and diagnostic.hint == "did you mean 'kib'?"


def test_syntax_error_in_expression(write_card):
    text = GOOD_CARD.replace("{{ users_fit }} users.", "{{ users_fit + }} users.")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.line == line_of(text, "users_fit +")
    assert diagnostic.message.startswith("expression error")


@pytest.mark.parametrize("expression, words", [
    ("{{ 1.x and users_fit }}", "'int object' has no attribute 'x'"),
    ("{{ not [1][3] }}", "list object has no element 3"),
    ("{{ 1.__class__ or users_fit }}", "access to attribute '__class__' of 'int' object is unsafe"),
])
def test_a_constant_expression_that_fails_as_jinja_folds_it_is_an_error_at_its_line(write_card, expression, words):
    """Jinja evaluates constant expressions while it compiles; one that reads what a literal
    does not have fails then, and is the card's error like any other."""
    text = GOOD_CARD.replace("{{ users_fit }} users.", f"Fits\n{expression} users.")
    diagnostic, _ = error_of(write_card, text)
    assert diagnostic.line == line_of(text, expression)
    assert words in diagnostic.message
