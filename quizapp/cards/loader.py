"""Load one card file: split it, check its front matter, build its sections, compile, check renders.

The steps run in that order and the first problem stops the load with a CardError that
names the file and the line, so an author fixes one thing at a time, top to bottom.
"""

from __future__ import annotations

from pathlib import Path

from .card import Card
from .checks import check_renders, literal_number_warnings, measured_without_scenario
from .compile import compile_pieces
from .diagnostics import CardError
from .front_matter import check_answer, check_listing, check_scenario, check_space, check_variants
from .sections import build_sections
from .source import read_card, split_card


def load_card(path: Path, display_path: str, full: bool = False) -> Card:
    """Parse, check and compile one card file. Raises CardError with every error found.

    The front matter and the sections must hold before anything compiles, so the first error
    there stops the load. Then every error is reported at once: each piece that does not
    compile, and each that compiles but does not render or whose arithmetic is false: under
    the card's scenario and each variant, and with ``full`` (``quizapp check``) under each
    model of the card's space, with its arithmetic checked.
    """
    source = split_card(display_path, read_card(path, display_path))
    mtime = path.stat().st_mtime
    listing = check_listing(source)
    scenario = check_scenario(source)
    variants = check_variants(source)
    space = check_space(source, scenario, variants)
    draft = build_sections(source)
    answer = check_answer(source)
    env, pieces, compile_errors = compile_pieces(source, draft.pieces)
    card = Card(
        **listing, path=source.path, mtime=mtime, scenario=scenario, variants=variants,
        taught_in=draft.taught_in, answer=answer, pieces=pieces, stages=draft.stages,
        follow_ups=draft.follow_ups, wrong_answers=draft.wrong_answers, key_lines=source.key_lines, env=env,
        space=space,
    )
    errors = compile_errors + measured_without_scenario(card) + check_renders(card, full)
    if errors:
        raise CardError(errors)
    card.warnings = literal_number_warnings(card)
    return card
