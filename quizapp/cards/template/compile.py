"""Compile a card's pieces as Jinja2 templates in the card environment.

Every card compiles in one environment (``ENVIRONMENT``): all are configured alike, so a
piece's template depends on its source alone and is kept by it (``caches.TEMPLATES``); copies
of a card compile once. An expression that does not parse is an error at the line and column
of the mistake, in plain words (``errors``); a name the card environment does not know is an
error at the line where the author wrote it, with a hint at the likeliest intended name; so is
a measured(...) that does not say where it was measured.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from jinja2 import TemplateRuntimeError, TemplateSyntaxError, Undefined, meta, nodes
from jinja2.environment import Template

from ...calc import did_you_mean
from ..caches import TEMPLATES, template_key
from ..card import Piece
from ..diagnostics import Diagnostic
from ..load.source import CardSource
from .environment import CARD_FILTERS, CARD_NAMES, make_environment
from .errors import explain

ENVIRONMENT = make_environment()
# The file a piece's template is compiled as: a render error's traceback names it at the piece's line.
PIECE_FILE = "<card piece>"


@dataclass(frozen=True)
class Compiled:
    """A piece's source compiled, and what its syntax tree says."""

    template: Template
    names: frozenset[str]  # the names it reads from its context
    measured_without_on: tuple[int, ...]  # lines (of the piece) of its measured(...) calls without on=


def compiled(source: str) -> Compiled:
    """The piece compiled in the card environment, kept by its source; a TemplateSyntaxError
    when it does not compile."""
    return TEMPLATES.get_or_make(template_key(source), lambda: _compile(source))


def _compile(source: str) -> Compiled:
    tree = ENVIRONMENT.parse(source)
    unplaced = tuple(call.lineno for call in tree.find_all(nodes.Call) if isinstance(call.node, nodes.Name)
                     and call.node.name == "measured" and "on" not in {keyword.key for keyword in call.kwargs})
    try:
        # Both fold constant expressions in the tree in place (Jinja's optimizer): its calls are read before.
        names = frozenset(meta.find_undeclared_variables(tree))
        code = ENVIRONMENT.compile(tree, filename=PIECE_FILE)
    except TemplateRuntimeError as error:
        # A constant expression that uses what a literal does not have ({{ 1.x and y }}, an
        # unsafe attribute) fails as it is folded, before any render.
        raise TemplateSyntaxError(error.message, _lookup_in_literal_line(tree)) from None
    template = ENVIRONMENT.template_class.from_code(ENVIRONMENT, code, ENVIRONMENT.make_globals(None))
    return Compiled(template, names, unplaced)


def _lookup_in_literal_line(tree: nodes.Template) -> int:
    """The line of the first attribute or item read from a literal that does not have it."""
    for lookup in tree.find_all((nodes.Getattr, nodes.Getitem)):
        try:
            if isinstance(lookup.as_const(), Undefined):
                return lookup.lineno
        except nodes.Impossible:
            continue
    return 1


def compile_pieces(source: CardSource, pieces: dict[str, Piece]) -> tuple[dict[str, Piece], list[Diagnostic]]:
    """The pieces that compile, each with the card names it uses, and the errors of those that
    do not; then a measured(...) without a scenario in any piece that compiles."""
    path = source.path
    kept, errors, unplaced = {}, [], []
    for key, piece in pieces.items():
        try:
            found = compiled(piece.source)
        except TemplateSyntaxError as error:
            mistake = explain(error, piece.source, piece.line)
            errors.append(Diagnostic(path, piece.line + mistake.line - 1, "error",
                                     f"expression error: {mistake.message}",
                                     _filter_hint(error.message or "") or mistake.hint, mistake.column))
            continue
        unknown_names = found.names - CARD_NAMES
        for unknown in sorted(unknown_names):
            errors += source.error(_line_of_name(piece, unknown), f"unknown value {unknown!r}",
                                   did_you_mean(unknown, CARD_NAMES) or "see AUTHORING.md for the values").diagnostics
        if unknown_names:
            continue
        kept[key] = Piece(key, piece.line, piece.source, piece.inline, found.names)
        unplaced += [_measured_without_scenario(path, piece.line + line - 1) for line in found.measured_without_on]
    return kept, errors + unplaced


def _measured_without_scenario(path: str, line: int) -> Diagnostic:
    """A measured(...) must say where it was measured: on="own" or a variant's name."""
    return Diagnostic(path, line, "error",
                      "measured(...) without a scenario: a measured figure is true where it was measured",
                      "add on=\"own\" (the card's own scenario) or on=\"<variant name>\", and otherwise=\"...\" "
                      "for what other scenarios show")


def _filter_hint(message: str) -> str | None:
    match = re.search(r"No filter named '([^']+)'", message)
    if match:
        return did_you_mean(match[1], CARD_FILTERS) or f"filters are {', '.join(sorted(CARD_FILTERS))}"
    return None


def _line_of_name(piece: Piece, name: str) -> int:
    """The first line of the piece that uses ``name`` in an expression."""
    for offset, text in enumerate(piece.source.splitlines()):
        if re.search(rf"\b{re.escape(name)}\b", text) and "{" in text:
            return piece.line + offset
    return piece.line
