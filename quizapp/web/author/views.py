"""Pages for course authors: what is broken in the bank, and a preview of each card.

Paths are shown relative to the questions folder, never as the server's own path. A broken
card has no id in the bank; its file's stem stands for it, so ``/cards/<stem>`` and
``/author/cards/<stem>`` tell an author what is wrong with it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from flask import Blueprint, render_template

from ...cards import Diagnostic
from ..access import require_author_tools
from ..practice.card_page import page_for, scenario_from_request
from ..storage import BrokenCard, get_bank, get_card

bp = Blueprint("author", __name__, url_prefix="/author")
bp.before_request(require_author_tools)


@bp.get("/")
def index():
    bank = get_bank()
    broken = {stem: shown(diagnostics, bank.folder) for stem, diagnostics in sorted(bank.broken().items())}
    cards = [{"id": card.id, "title": card.title, "variants": len(card.variants),
              "file": relative_path(card.path, bank.folder)} for card in bank.sorted_cards()]
    return render_template("author/index.html", cards=cards, broken=broken, folder=Path(bank.folder).name)


@bp.get("/cards/<card_id>")
def preview(card_id):
    """The card as a reader sees it with every stage revealed, without the forms that record
    progress, for its own scenario, a variant or a model of its space. A broken card's preview
    is its diagnostics."""
    bank = get_bank()
    if bank.get(card_id) is None and card_id in bank.broken():
        return broken_card_page(BrokenCard(card_id, bank.broken()[card_id])), 200
    card = get_card(card_id)
    scenario, error = scenario_from_request(card)
    page = page_for(card, scenario, error, card.stage_names, endpoint="author.preview", preview=True)
    return render_template("author/preview.html", page=page, models=_pickable_models(card)), (400 if error else 200)


def broken_card_page(error: BrokenCard) -> str:
    """What an author sees for a card that does not load: each of its problems, with its line."""
    return render_template("author/broken.html", card_id=error.card_id,
                           diagnostics=shown(error.diagnostics, get_bank().folder))


def relative_path(path: str, folder) -> str:
    """A card file as the author names it: relative to the questions folder (its name alone when
    it lies elsewhere), never the server's absolute path."""
    try:
        return str(Path(path).resolve().relative_to(Path(folder).resolve()))
    except ValueError:
        return Path(path).name


def shown(diagnostics: list[Diagnostic], folder) -> list[Diagnostic]:
    return [dataclasses.replace(d, path=relative_path(d.path, folder)) for d in diagnostics]


def _pickable_models(card) -> list[str]:
    """The models the preview's picker offers: the card's space, when the space lets the model change."""
    if card.space is None or not card.space.allows_input("model"):
        return []
    return list(card.space.models)
