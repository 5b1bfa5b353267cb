"""Print-friendly pages: one card, or a role's whole deck, every stage shown, one card per page."""

from __future__ import annotations

from flask import Blueprint, abort, render_template, request

from ...exports import full_view
from ..storage import get_bank, get_card

bp = Blueprint("print_pages", __name__)


@bp.get("/cards/<card_id>/print")
def print_card(card_id):
    """One card with every stage, numbers from its own scenario. Nothing is recorded."""
    card = get_card(card_id)
    return render_template("practice/print.html", title=card.title, views=[full_view(card)], role=None, roles=[])


@bp.get("/print")
def print_deck():
    """Every card of a role (``?role=``), one per printed page; without a role, the roles to choose from."""
    role = request.args.get("role", "").strip()
    bank = get_bank()
    if not role:
        return render_template("practice/print.html", title="Print a deck", views=[], role=None, roles=bank.roles())
    if role not in bank.roles():
        abort(404, description=f"No card has the role {role!r}.")
    # The bank lists cards by their index entries; each is loaded (and checked) to be printed.
    cards = (bank.get(entry.id) for entry in bank.matching(role, ""))
    views = [full_view(card) for card in cards if card is not None]
    return render_template("practice/print.html", title=f"{role}: every card", views=views, role=role, roles=[])
