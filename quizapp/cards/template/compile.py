"""Compile a card's pieces as Jinja2 templates in the card environment.

An expression that does not parse is an error at the line and column of the mistake, in plain
words (``template_errors``); a name the card environment does not know is an error at the line
where the author wrote it, with a hint at the likeliest intended name.
"""

from __future__ import annotations

import re

from jinja2 import TemplateSyntaxError, meta
from jinja2.loaders import FunctionLoader
from jinja2.sandbox import ImmutableSandboxedEnvironment

from ...calc import did_you_mean
from ..card import Piece
from ..diagnostics import Diagnostic
from .environment import CARD_FILTERS, CARD_NAMES, make_environment
from ...lru import LRU
from .sandbox import TEMPLATE_CACHE_LIMIT
from ..load.source import CardSource
from .errors import explain


def compile_pieces(source: CardSource, pieces: dict[str, Piece]
                   ) -> tuple[ImmutableSandboxedEnvironment, dict[str, Piece], list[Diagnostic]]:
    """The environment that holds every piece as the template '<path>#<key>', the pieces that
    compile with the card names each one uses, and the errors of those that do not."""
    path = source.path
    sources = {f"{path}#{k}": p.source for k, p in pieces.items()}
    # The loader names each template's file, so a render error's traceback gives its line.
    env = make_environment(FunctionLoader(lambda name: (sources[name], name, lambda: True)
                                          if name in sources else None))
    compiled, errors = {}, []
    for key, piece in pieces.items():
        name = f"{path}#{key}"
        try:
            env.get_template(name)
            names = undeclared_names(env, piece.source)
        except TemplateSyntaxError as error:
            mistake = explain(error, piece.source, piece.line)
            errors.append(Diagnostic(path, piece.line + mistake.line - 1, "error",
                                     f"expression error: {mistake.message}",
                                     _filter_hint(error.message or "") or mistake.hint, mistake.column))
            continue
        for unknown in sorted(names - CARD_NAMES):
            errors += source.error(_line_of_name(piece, unknown), f"unknown value {unknown!r}",
                                   did_you_mean(unknown, CARD_NAMES) or "see AUTHORING.md for the values").diagnostics
        if names - CARD_NAMES:
            continue
        compiled[key] = Piece(key, piece.line, piece.source, piece.inline, frozenset(names))
    return env, compiled, errors


# The names a piece uses depend on its source alone (every card's sandbox is alike).
_NAMES_BY_SOURCE: LRU[frozenset] = LRU(TEMPLATE_CACHE_LIMIT)


def undeclared_names(env: ImmutableSandboxedEnvironment, source: str) -> frozenset[str]:
    """The names a piece reads from its context; a TemplateSyntaxError when it does not parse."""
    return _NAMES_BY_SOURCE.get_or_make(source, lambda: frozenset(meta.find_undeclared_variables(env.parse(source))))


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
