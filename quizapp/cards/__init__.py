"""The card format: parse a Markdown card, check it, render one stage of it for a scenario."""

from .bank import Bank, load_bank
from .card import Card
from .diagnostics import CardError, Diagnostic
from .load.card_file import load_card
from .scenario import Refused, Scenario, overrides_from_query, resolve_scenario, scenario_from_query, variant_index
from .stage_order import OutOfOrder, available_stages, check_reveal, shown_stages
from .visibility import CardView, card_view

__all__ = ["Bank", "Card", "CardError", "CardView", "Diagnostic", "OutOfOrder", "Refused", "Scenario",
           "available_stages", "card_view", "check_reveal", "load_bank", "load_card", "overrides_from_query",
           "resolve_scenario", "scenario_from_query", "shown_stages", "variant_index"]
