"""Load one card file: split it, check its front matter, build its sections, compile, check renders.

Every problem of a card is reported in one run, at its own line: each check reports what it
finds and goes on with what is usable. The render checks run when the card's scenario is
usable, even if other parts are broken, so a YAML mistake in a title and a value the scenario
does not derive are heard of together. A card with any error is left out of the bank.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...calc import CalcError
from ..caches import card_version
from ..card import Card
from ..check.renders import check_renders
from ..template.compile import compile_pieces
from ..diagnostics import CardError, Diagnostic
from ..check.drafts import draft_diagnostics
from .front_matter import check_answer, check_draft, check_interview_only, check_listing, check_ordering, \
    check_rubric, check_scenario, check_space, check_variants
from ..check.literals import literal_number_warnings
from .filing import check_replaces, check_topic
from .sections import build_sections
from .source import read_card, split_card
from .startable import startable_space


def load_card(path: Path, display_path: str, full: bool = False) -> Card:
    """Parse, check and compile one card file. Raises CardError with every problem found.

    The errors are those of the front matter and the sections, each piece that does not
    compile, and each that compiles but does not render or whose arithmetic is false: under
    the card's scenario and each variant, and with ``full`` (``quizapp check``) under each
    model of the card's space, with its arithmetic checked. A broken card's CardError carries
    its literal-number warnings too; a card that loads keeps them in ``card.warnings``.
    """
    text = read_card(path, display_path)
    source = split_card(display_path, text)
    listing = check_listing(source)
    ordering = check_ordering(source)
    draft = check_draft(source)
    topic = check_topic(source, draft)
    scenario = check_scenario(source)
    variants = check_variants(source)
    space = startable_space(source, scenario, check_space(source, scenario, variants), variants)
    sections = build_sections(source)
    answer = check_answer(source)
    pieces, compile_errors = compile_pieces(source, sections.pieces)
    card = Card(
        **listing, **ordering, draft=draft, topic=topic, replaces=check_replaces(source), path=source.path, mtime=path.stat().st_mtime, version=card_version(text),
        scenario=scenario or {}, variants=variants,
        taught_in=sections.taught_in, answer=answer, pieces=pieces, stages=sections.stages,
        follow_ups=sections.follow_ups, wrong_answers=sections.wrong_answers,
        key_lines=_numbered_as_kept(source.key_lines, variants),
        space=space, interview_only=_reported(source, check_interview_only, False),
        rubric=_reported(source, check_rubric, None),
    )
    made = draft_diagnostics(source, draft)
    errors = source.problems + compile_errors + [d for d in made if d.severity == "error"]
    warnings = [d for d in made if d.severity != "error"]
    if scenario is not None:
        errors += check_renders(card, full)
        warnings += _literal_warnings(card)
    if errors:
        raise CardError(sorted(errors + warnings, key=lambda d: (d.line, d.column or 0)))
    card.warnings = warnings
    return card


def _reported(source, check, fallback):
    """A check that raises at its first problem, with the problem recorded like the others'."""
    try:
        return check(source)
    except CardError as error:
        source.problems.extend(error.diagnostics)
        return fallback


def _numbered_as_kept(key_lines: dict[str, int], variants: list) -> dict[str, int]:
    """The front matter's key lines with the variants numbered as the card holds them: a variant
    with an error is reported and left out, and 'variants.1.model' must still find the line of
    the card's second variant."""
    original = {line: key.split(".")[1] for key, line in key_lines.items() if re.fullmatch(r"variants\.\d+", key)}
    renumbered = {key: line for key, line in key_lines.items() if not key.startswith("variants.")}
    for index, variant in enumerate(variants):
        prefix = f"variants.{original[variant.line]}"
        renumbered.update({f"variants.{index}{key[len(prefix):]}": line for key, line in key_lines.items()
                           if key == prefix or key.startswith(prefix + ".")})
    return renumbered


def _literal_warnings(card: Card) -> list[Diagnostic]:
    """The literal-number warnings, when the card's own scenario computes (else its error says so)."""
    try:
        return literal_number_warnings(card)
    except CalcError:
        return []
