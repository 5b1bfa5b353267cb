"""Compiling: a broken expression or an unknown name is an error at its line, with a hint."""

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
