"""A card as a whole, outside the practice pages: every stage rendered for the card's own scenario,
for an Anki deck (``anki``) and for printing (web/print_pages.py)."""

from __future__ import annotations

from ..cards import Card, CardView, card_view, resolve_scenario


def full_view(card: Card) -> CardView:
    """Every stage of ``card`` revealed, its numbers from the card's own scenario (no variant)."""
    return card_view(card, resolve_scenario(card, None, {}), set(card.stage_names))
