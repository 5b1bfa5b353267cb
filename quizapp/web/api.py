"""The JSON API: the calculator and its catalogs, the startup-log reader, and progress events.

Errors are {"error", "field"}: 400 for bad input, 409 for an event_id reused for another event
(the handler in ``web/__init__.py``).
"""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request

from ..calc import CalcError, calculate, gpu_entries, model_entries, read_log
from ..cards import scenario_from_query
from ..progress import events as progress_events
from ..progress.summary import summary
from . import caches
from .access import require_author_tools
from .calc.log import MAX_LOG_BODY
from .security import limit_body
from .storage import get_bank, get_card, get_db, learner_id

bp = Blueprint("api", __name__, url_prefix="/api")


def json_body() -> dict:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise CalcError("the request body must be a JSON object of calculator inputs", None)
    return data


@bp.post("/calc")
def calc():
    return jsonify(calculate(json_body()).to_json())


@bp.post("/read-log")
def read_log_api():
    """A vLLM startup log, as JSON {"log": "..."}, read as `quizapp read-log --json` reads it.
    (Like every /api/ route, web/security.py takes only a JSON body from this site.)"""
    limit_body(MAX_LOG_BODY)
    data = request.get_json(silent=True)
    if not isinstance(data, dict) or not isinstance(data.get("log"), str):
        raise CalcError('the request body must be a JSON object {"log": "..."} holding the log as a string', "log")
    return jsonify(read_log(data["log"]).to_json())


@bp.get("/models")
def models():
    return jsonify({"models": model_entries()})


@bp.get("/gpus")
def gpus():
    return jsonify({"gpus": gpu_entries()})


@bp.get("/cards/<card_id>/values")
def card_values(card_id):
    """Every value the card's scenario computes (an author tool: pages never use it)."""
    require_author_tools()
    card = get_card(card_id)
    scenario = scenario_from_query(card, request.args)
    text = caches.values.get_or_make(caches.values_key(card, scenario), lambda: _values_text(card, scenario))
    return current_app.response_class(text, mimetype="application/json")


def _values_text(card, scenario) -> str:
    """The values as ``jsonify`` writes them: the result's JSON, the card, the variant and what is held."""
    data = scenario.result.to_json()
    data["card"] = card.id
    data["variant"] = card.variants[scenario.variant].name if scenario.variant is not None else None
    data["held"] = scenario.held
    return f"{current_app.json.dumps(data)}\n"


@bp.post("/progress/events")
def post_event():
    """Store one event. 201 the first time an event_id is seen, 200 when it is a retry."""
    data = request.get_json(silent=True)
    event = progress_events.parse_event(data)
    card = get_bank().get(event.card_id)
    if card is None:
        raise progress_events.EventError(f"there is no card {event.card_id!r}", "card_id")
    if event.stage and event.stage not in card.stage_names:
        raise progress_events.EventError(f"card {card.id!r} has no stage {event.stage!r}; its stages are "
                                         f"{', '.join(card.stage_names)}", "stage")
    created = progress_events.record(get_db(), learner_id(), event)
    return jsonify({"event_id": event.event_id, "stored": created}), (201 if created else 200)


@bp.get("/progress")
def get_progress():
    return jsonify(summary(get_db(), learner_id(), get_bank().cards))
