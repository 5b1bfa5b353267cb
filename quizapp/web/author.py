"""Pages for course authors: what is broken in the bank, and a preview of each card."""

from __future__ import annotations

from flask import Blueprint, render_template

from .access import require_author_tools
from .card_page import page_context, scenario_from_request
from .storage import get_bank, get_card

bp = Blueprint("author", __name__, url_prefix="/author")
bp.before_request(require_author_tools)


@bp.get("/")
def index():
    bank = get_bank()
    return render_template("author.html", cards=bank.sorted_cards(), diagnostics=bank.diagnostics,
                           folder=str(bank.folder))


@bp.get("/cards/<card_id>")
def preview(card_id):
    """The card as a reader sees it with every stage revealed, without the forms that record progress."""
    card = get_card(card_id)
    scenario, error = scenario_from_request(card)
    context = {**page_context(card, scenario, error, card.stage_names), "preview": True}
    return render_template("card.html", **context), (400 if error else 200)
