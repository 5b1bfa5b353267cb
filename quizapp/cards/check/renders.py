"""The checks that render a loaded card: every stage under every scenario the card offers.

A sentence must be true in every scenario a reader can pick. When a card loads (the app's
bank), every piece renders under the card's own scenario and each variant, so a card that
cannot render is never served. ``quizapp check`` (``full=True``) also renders under each
model of the card's space and checks every arithmetic chain the text shows. Each check
collects its diagnostics, so an author hears of every problem of a card in one run.
(The literal-number warning is in ``literals``.)
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from ...calc import FIT_CHECKS, CalcError
from .arithmetic import check_text
from ..card import Card
from ..diagnostics import CardError, Diagnostic
from ..template.render import render_piece
from ..scenario import POOL_RULES, Refused, Scenario, resolve_scenario

RULE_WORDS = {"tokens": "the measured tokens", "bytes": "a pin in bytes", "fraction": "a fraction of the GPU"}

PRE_BLOCK = re.compile(r"(<pre>.*?</pre>)", re.S)
BLOCK_TAG = re.compile(r"</?(?:p|li|ul|ol|pre|h\d|tr|td|th|table|thead|tbody|blockquote|br|hr|div)\b[^>]*>")
TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class Choice:
    """One scenario the card lets a reader pick, as the checker names it."""

    label: str
    line: int  # where an author changes it
    variant: int | None = None
    overrides: tuple = ()
    must_start: bool = True  # the panel offers it: vLLM refusing it is the card's error
    pool_rule: str | None = None  # the panel's "The pool is sized by" choice


def choices(card: Card, full: bool) -> list[Choice]:
    """The card's own scenario and each variant; with ``full``, every other option its panel offers:
    each model of its space, and each pool rule (from the card's scenario, where the panel offers it)."""
    picked = [Choice("the card's scenario", card.line_of("scenario"))]
    picked += [Choice(f"variant {v.name!r}", v.line, i) for i, v in enumerate(card.variants)]
    if full and card.space is not None:
        own_model = card.scenario.get("model")
        # The space holds only models that start in the card's scenario, and the variants' own models,
        # which are checked in their variants (a reader who picks one here is told why it cannot start).
        theirs = {v.inputs.get("model") for v in card.variants}
        picked += [Choice(f"model {model}", card.line_of("space"), None, (("model", model),),
                          must_start=model not in theirs)
                   for model in card.space.models if model != own_model]
        rules = [rule for rule, name in POOL_RULES.items() if card.space.allows_input(name)]
        if len(rules) > 1:
            picked += [Choice(f"the card's scenario with the pool sized by {RULE_WORDS[rule]}", card.line_of("scenario"),
                              pool_rule=rule) for rule in rules]
    return picked


def check_renders(card: Card, full: bool = False) -> list[Diagnostic]:
    """Every error found by rendering each piece under each choice (and, with ``full``, every
    false arithmetic chain). Errors of one line are reported once, with the scenarios named."""
    found: dict[tuple[int, str], list[str]] = {}
    for choice in choices(card, full):
        for line, message in _choice_errors(card, choice, full):
            found.setdefault((line, message), []).append(choice.label)
    return [Diagnostic(card.path, line, "error", _with_scenarios(message, labels))
            for (line, message), labels in sorted(found.items())]


def _choice_errors(card: Card, choice: Choice, full: bool) -> list[tuple[int, str]]:
    try:
        scenario = resolve_scenario(card, choice.variant, dict(choice.overrides), choice.pool_rule)
    except Refused as refusal:
        # A reader who picks it sees the refusal beside the field; the panel should not offer it.
        return [] if not choice.must_start else [(choice.line, f"{choice.label}: {_cannot(refusal)}")]
    except CalcError as error:
        if choice.pool_rule is not None and error.field in (None, "pool_rule", "gpu", *POOL_RULES.values()):
            return []  # a rule this scenario cannot take (no GPU for the fraction): the panel says why
        prefix = "scenario" if choice.variant is None else f"variants.{choice.variant}"
        line = card.line_of(f"{prefix}.{error.field}") if error.field else choice.line
        return [(line, f"{choice.label}: {error.message}")]
    errors = _scenario_errors(card, scenario, choice)
    for key, piece in card.pieces.items():
        try:
            rendered = render_piece(card, key, scenario, label="{scenario}")
        except CardError as error:
            errors += [(d.line, d.message) for d in error.diagnostics]
            continue
        if full:
            errors += [(piece.line, f"{{scenario}}: {problem.message}")
                       for problem in check_text(plain_text(rendered.html))]
    return errors


def _scenario_errors(card: Card, scenario: Scenario, choice: Choice) -> list[tuple[int, str]]:
    errors = []
    if card.answer and not isinstance(scenario.result.get(card.answer["value"]), (int, float)):
        errors.append((card.line_of("answer.value"), f"{{scenario}}: answer value {card.answer['value']!r} is not a "
                                                     "number the calculator derives here"))
    for index, names in enumerate(card.answer.get("steps", ()) if card.answer else ()):
        if not any(isinstance(scenario.result.get(name), (int, float)) for name in names):
            errors.append((card.line_of(f"answer.steps.{index}"), f"{{scenario}}: answer step {' or '.join(names)} "
                                                                  "is not a number the calculator derives here"))
    refusal = scenario.refusal
    if refusal and choice.must_start and not (card.space and card.space.refusals):
        errors.append((choice.line, f"{{scenario}}: {_cannot(refusal)}"))
    elif refusal and refusal["check"] in FIT_CHECKS and choice.variant is None and not choice.pool_rule:
        # A card that teaches vLLM's refusals still cannot teach on a GPU its model does not fit.
        errors.append((choice.line, f"{{scenario}}: {_cannot(refusal)}"))
    return errors


def _cannot(refusal) -> str:
    """A scenario that cannot start, as the checker says it: the fit's verdict, or vLLM's refusal."""
    check = refusal["check"] if isinstance(refusal, dict) else refusal.check
    message = refusal["plain"] if isinstance(refusal, dict) else refusal.message
    return message if check in FIT_CHECKS else f"vLLM would refuse to start: {message}"


def _with_scenarios(message: str, labels: list[str]) -> str:
    """Put the scenarios a problem shows in into its message: "under model X (and 2 more): …"."""
    if "{scenario}" not in message:
        return message
    named = labels[0] if len(labels) == 1 else f"{labels[0]} (and {len(labels) - 1} more: {', '.join(labels[1:])})"
    return message.replace("{scenario}", f"under {named}", 1).replace("{scenario}", "")


def plain_text(rendered_html: str) -> str:
    """A rendered piece as text: one line per block, a code block's own lines kept."""
    parts = []
    for part in PRE_BLOCK.split(rendered_html):
        if not part.startswith("<pre>"):
            part = part.replace("\n", " ")
        parts.append(BLOCK_TAG.sub("\n", part))
    return html.unescape(TAG.sub("", "".join(parts)))
