"""The checks that render a loaded card: errors that only show in a scenario, and literal numbers.

Both run when a card loads, so an author hears of them from ``quizapp check`` and the
author pages, never from a reader's page.
"""

from __future__ import annotations

import re

from ..calc import CalcError
from .card import Card
from .diagnostics import CardError, Diagnostic
from .render import render_piece
from .scenario import resolve_scenario

EXPRESSION = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)
LITERAL_NUMBER = re.compile(r"(?<![\w.,])\d+(?:,\d{3})*(?:\.\d+)?(?!\w|,\d|\.\d)")


def check_renders(card: Card) -> None:
    """Render every piece for the card's scenario and each variant: errors surface at load."""
    choices = [(None, "scenario", card.line_of("scenario"))] + [
        (i, f"variants.{i}", v.line) for i, v in enumerate(card.variants)]
    for variant, prefix, line in choices:
        label = "the card's scenario" if variant is None else f"variant {card.variants[variant].name!r}"
        try:
            scenario = resolve_scenario(card, variant, {})
        except CalcError as error:
            key_line = card.line_of(f"{prefix}.{error.field}") if error.field else line
            raise CardError(Diagnostic(card.path, key_line, "error", f"{label}: {error.message}")) from None
        if card.answer and not isinstance(scenario.result.get(card.answer["value"]), (int, float)):
            raise CardError(Diagnostic(card.path, card.line_of("answer.value"), "error",
                                       f"{label}: answer value {card.answer['value']!r} is not a number the "
                                       "calculator derives here"))
        for check in scenario.result.checks:
            if not check["ok"]:
                raise CardError(Diagnostic(card.path, line, "error", f"{label}: vLLM would refuse to start: "
                                           f"{check['message']}"))
        for key in card.pieces:
            render_piece(card, key, scenario, label=label)


def literal_number_warnings(card: Card) -> list[Diagnostic]:
    """A number typed into a card that the calculator produces for its scenario should be an
    expression, or it will not follow the reader's scenario."""
    scenario = resolve_scenario(card, None, {})
    known: dict[float, str] = {}
    for name, quantity in scenario.result.values.items():
        for candidate in (quantity.value, _leading_number(quantity.text)):
            if isinstance(candidate, (int, float)) and not isinstance(candidate, bool) and candidate >= 3:
                known.setdefault(float(candidate), name)
    warnings = []
    for piece in card.pieces.values():
        for offset, line in enumerate(piece.source.splitlines()):
            for match in LITERAL_NUMBER.finditer(EXPRESSION.sub(" ", line)):
                number = float(match[0].replace(",", ""))
                if number in known:
                    warnings.append(Diagnostic(
                        card.path, piece.line + offset, "warning",
                        f"literal {match[0]} is what the calculator computes for {known[number]!r}",
                        f"write {{{{ {known[number]} }}}} so it follows the reader's scenario, or "
                        f"{{{{ measured(\"...\") }}}} if it was measured"))
    return warnings


def _leading_number(text: str) -> float | None:
    match = re.match(r"[\d,]+(?:\.\d+)?", text or "")
    return float(match[0].replace(",", "")) if match else None
