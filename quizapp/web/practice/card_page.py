"""The card page's content, shared by every view of a card: the reader's (practice), the author's
preview, and the values API.

Every response that carries card text is built from ``card_view``: a stage that the reader
has not revealed is not rendered, so its text is in no page, fragment or JSON.
"""

from __future__ import annotations

from urllib.parse import urlencode

from flask import current_app, request, url_for
from markupsafe import Markup

from ...calc import CalcError
from ...cards import CardError, Refused, card_view, resolve_scenario, scenario_from_query
from ...progress.events import current_attempt
from .. import caches
from . import session as practice_session
from .answer_box import answer_view
from .panel import controls, message_for_people
from ..storage import get_db, learner_id


def scenario_from_request(card):
    """The scenario the URL asks for, or the card's own with the error that prevented it."""
    try:
        return scenario_from_query(card, request.args), None
    except CalcError as error:
        return resolve_scenario(card, None, {}), error


def card_url(card, scenario) -> str:
    """The card's page for this scenario: the URL a reload or a shared link shows it again with."""
    query = urlencode(scenario.query())
    return url_for("practice.card", card_id=card.id) + (f"?{query}" if query else "")


def page_context(card, scenario, error, revealed: list[str] | None = None, attempt=None):
    """What the card page and its fragments show; ``revealed`` defaults to the reader's own,
    ``attempt`` to the reader's current attempt at the card."""
    if attempt is None:
        attempt = current_attempt(get_db(), learner_id(), card.id)
    if revealed is None:
        revealed = attempt.revealed
    try:
        view = card_view(card, scenario, set(revealed))
    except CardError as failure:
        # The reader's scenario computes but the card cannot use it (a value it needs is not
        # derived there): say so, and show the card's own scenario.
        current_app.logger.warning("%s", failure.diagnostic)
        error = CalcError(f"this card cannot be shown for that scenario: {failure.diagnostic.message}", None)
        scenario = resolve_scenario(card, None, {})
        view = card_view(card, scenario, set(revealed))
    query = urlencode(scenario.query())
    next_variant = (0 if scenario.variant is None else scenario.variant + 1)
    next_variant_url = (url_for("practice.card", card_id=card.id, variant=next_variant)
                        if next_variant < len(card.variants) else url_for("practice.card", card_id=card.id))
    rows, rows_html = panel(card, scenario, error, query)
    return {
        "card": card, "view": view, "scenario": scenario, "error": error, "query": query,
        "page_url": url_for("practice.card", card_id=card.id),  # where the calculator's form goes
        "controls": rows, "controls_html": rows_html,
        "next_variant_url": next_variant_url,
        "variant_name": card.variants[scenario.variant].name if scenario.variant is not None else None,
        "attempt": attempt, "preview": False, "answer": answer_view(card, scenario, attempt),
        "practice": practice_session.position(card.id),
    }


def panel(card, scenario, error, query: str) -> tuple[list[dict], Markup]:
    """The panel's rows and their HTML. After an error they hold what the reader typed, so they
    are drawn for this request; otherwise they are drawn once per ``caches.panel_key``."""
    if error:
        return _drawn(controls(card, scenario, error, request.args))
    return caches.panels.get_or_make(caches.panel_key(card, scenario), lambda: _drawn(controls(card, scenario)))


def _drawn(rows: list[dict]) -> tuple[list[dict], Markup]:
    return rows, _draw_panel(rows)


def _draw_panel(rows) -> Markup:
    return current_app.jinja_env.get_template("cards/_parts.html").module.controls(rows)


def fragment_json(context: dict, focus: str | None = None) -> dict:
    """The parts of the page that change, for the script to put in place: the same macros render
    them as render the page."""
    view = context["view"]
    card = context["card"]
    render = current_app.jinja_env.get_template("cards/_parts.html").module
    return {
        "url": card_url(card, context["scenario"]),
        "query": context["query"],
        "question": view.question_html,
        "stages": {s.name: render.stage(card, s, context["query"], context["attempt"], context["preview"],
                                        context["answer"])
                   for s in view.stages},
        "revealed": [s.name for s in view.stages if s.revealed],
        "derivations": render.derivations(view),
        "held": render.held(context["scenario"], context["variant_name"], context["next_variant_url"]),
        "controls": context["controls_html"],
        "error": error_json(context["error"]),
        "focus": focus,
        "announce": _announcement(context),
    }


def error_json(error: CalcError | None) -> dict | None:
    """The scenario error for the script: vLLM's or the calculator's words, in a reader's words too."""
    if error is None:
        return None
    return {"error": error.message, "field": error.field, "message": message_for_people(error),
            "refused": isinstance(error, Refused), "check": getattr(error, "check", None)}


def _announcement(context) -> str:
    scenario = context["scenario"]
    if context["error"]:
        return f"Not recalculated: {context['error'].message}"
    return f"Recalculated for {scenario.inputs.model or 'the card'}" + (
        f", variant {context['variant_name']}" if context["variant_name"] else "") + "."
