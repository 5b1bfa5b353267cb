"""The card format: parse a Markdown card, check it, render one stage of it for a scenario."""

from .bank import Bank, load_bank
from .card import Card
from .diagnostics import CardError, Diagnostic
from .loader import load_card
from .scenario import Scenario, overrides_from_query, resolve_scenario
from .stage_order import OutOfOrder, available_stages, check_reveal, shown_stages
from .visibility import CardView, card_view

__all__ = ["Bank", "Card", "CardError", "CardView", "Diagnostic", "OutOfOrder", "Scenario", "available_stages",
           "card_view", "check_reveal", "load_bank", "load_card", "overrides_from_query", "resolve_scenario",
           "shown_stages"]
