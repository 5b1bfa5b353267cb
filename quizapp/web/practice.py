"""The candidate's pages: the question bank and a card with staged reveals and a live calculator.

Every response that carries card text is built from ``card_view``: a stage that the reader
has not revealed is not rendered, so its text is in no page, fragment or JSON.
"""

from __future__ import annotations

from urllib.parse import urlencode

import re
from datetime import datetime, timezone
from pathlib import Path

from flask import Blueprint, abort, current_app, flash, jsonify, redirect, render_template, request, url_for

from ..calc import KV_CACHE_DTYPES, CalcError, model_ids
from ..cards import Bank, CardError, card_view, overrides_from_query, resolve_scenario
from ..progress import events
from ..progress.answers import grade_answer
from .storage import get_db, learner_id, new_event_id

bp = Blueprint("practice", __name__)


def bank() -> Bank:
    """The app's bank, reloaded when a card file changes."""
    bank = current_app.extensions.get("quizapp.bank")
    if bank is None:
        bank = current_app.extensions["quizapp.bank"] = Bank(Path(current_app.config["QUESTIONS_DIR"]))
    return bank.refresh()


def get_card(card_id: str):
    card = bank().get(card_id)
    if card is None:
        abort(404, description=f"There is no card {card_id!r} in the question bank.")
    return card


def card_state(card_id: str) -> dict:
    """The reader's current attempt at a card: revealed stages and the typed answer."""
    attempt = events.attempt_events(get_db(), learner_id(), card_id)
    answers = [e for e in attempt if e["kind"] == "answer"]
    return {
        "revealed": list(dict.fromkeys(e["stage"] for e in attempt if e["kind"] == "reveal")),
        "answer": answers[-1]["value"] if answers else "",
        "feedback": answers[-1]["detail"] if answers else None,
        "followups": {e["stage"]: e["value"] for e in attempt if e["kind"] == "followup"},
        "events": attempt,
    }


def record(card, kind: str, scenario=None, stage=None, value=None, detail=None, event_id=None) -> bool:
    """Store one event of the reader's, with the scenario they saw."""
    seen = None
    if scenario is not None:
        seen = {**scenario.inputs.given(), "variant": scenario.variant}
    event = events.Event(event_id or new_event_id(), card.id, kind, stage, value, detail, seen)
    return events.record(get_db(), learner_id(), event)


@bp.get("/")
def index():
    role = request.args.get("role", "").strip()
    tag = request.args.get("tag", "").strip()
    query = request.args.get("q", "").strip()
    the_bank = bank()
    return render_template("bank.html", cards=the_bank.matching(role, tag, query), total=len(the_bank.cards),
                           roles=the_bank.roles(), tags=the_bank.tags(), role=role, tag=tag, query=query,
                           broken=len(the_bank.diagnostics))


def scenario_from_request(card):
    """The scenario the URL asks for, or the card's own with the error that prevented it."""
    try:
        return resolve_scenario(card, _variant_index(card), overrides_from_query(request.args)), None
    except CalcError as error:
        return resolve_scenario(card, None, {}), error


def _variant_index(card) -> int | None:
    return variant_index(card, request.args.get("variant", ""))


def variant_index(card, raw: str) -> int | None:
    """The ?variant= of a card's URL: empty for the card's own scenario, else 0, 1, …"""
    raw = raw.strip()
    if not raw:
        return None
    if not re.fullmatch(r"[0-9]{1,4}", raw) or int(raw) >= len(card.variants):
        choices = f"from 0 to {len(card.variants) - 1}" if card.variants else "absent: this card has no variants"
        raise CalcError(f"variant must be {choices}", "variant")
    return int(raw)


def page_context(card, scenario, error, revealed: list[str] | None = None):
    """What the card page and its fragments show; ``revealed`` defaults to the reader's own."""
    state = card_state(card.id)
    if revealed is None:
        revealed = state["revealed"]
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
    return {
        "card": card, "view": view, "scenario": scenario, "error": error, "query": query,
        "controls": controls(card, scenario), "next_variant_url": next_variant_url,
        "variant_name": card.variants[scenario.variant].name if scenario.variant is not None else None,
        "state": state, "preview": False,
    }


def controls(card, scenario) -> list[dict]:
    """The calculator inputs shown on the card, with their current values."""
    inputs = scenario.inputs
    values = scenario.result.values
    rows = [
        {"name": "model", "label": "Model", "kind": "select", "value": inputs.model, "options": model_ids()},
        {"name": "kv_cache_dtype", "label": "KV cache dtype", "kind": "select", "value": inputs.kv_cache_dtype,
         "options": list(KV_CACHE_DTYPES)},
        {"name": "tensor_parallel_size", "label": "Tensor parallel size", "kind": "number",
         "value": inputs.tensor_parallel_size},
        {"name": "max_model_len", "label": "Max model length (tokens)", "kind": "number",
         "value": inputs.max_model_len or (values["max_model_len"].value if "max_model_len" in values else "")},
    ]
    if "pool_tokens" in card.scenario:
        rows.append({"name": "pool_tokens", "label": "Pool as logged by the card's setup (tokens)",
                     "kind": "number", "value": _pool_tokens_control(card, scenario)})
    elif inputs.kv_cache_memory_bytes is not None:
        rows.append({"name": "kv_cache_memory_bytes", "label": "KV pool (bytes)", "kind": "text",
                     "value": inputs.kv_cache_memory_bytes})
    if inputs.gpu and "pool_tokens" not in card.scenario:
        rows.append({"name": "gpu_memory_utilization", "label": "GPU memory utilization", "kind": "text",
                     "value": inputs.gpu_memory_utilization or ""})
    if inputs.prompt_tokens is not None:
        rows.append({"name": "prompt_tokens", "label": "Prompt tokens per user", "kind": "number",
                     "value": inputs.prompt_tokens})
        rows.append({"name": "output_tokens", "label": "Output tokens per user", "kind": "number",
                     "value": inputs.output_tokens or 0})
    return rows


def _pool_tokens_control(card, scenario):
    # The control keeps the card's measured figure unless the reader typed another one, so
    # submitting the form unchanged still means "the same memory as the card's setup".
    return scenario.overrides.get("pool_tokens", card.scenario["pool_tokens"])


@bp.get("/cards/<card_id>")
def card(card_id):
    card = get_card(card_id)
    scenario, error = scenario_from_request(card)
    state = card_state(card.id)
    if not state["events"]:
        # The attempt starts when the card is first shown: the clock for "time to first reveal".
        record(card, "open", scenario)
    context = page_context(card, scenario, error)
    return render_template("card.html", **context), (400 if error else 200)


@bp.post("/cards/<card_id>/reveal/<stage>")
def reveal(card_id, stage):
    card = get_card(card_id)
    if card.stage(stage) is None:
        abort(404, description=f"Card {card_id!r} has no stage {stage!r}; its stages are "
                               f"{', '.join(card.stage_names)}.")
    scenario, error = scenario_from_request(card)
    state = card_state(card.id)
    event_id = _form_event_id()
    answer = request.form.get("answer")
    if answer is not None and answer.strip() and not state["revealed"]:
        answer = answer[: events.MAX_TEXT]
        record(card, "answer", scenario, value=answer, detail=_grade(card, scenario, answer),
               event_id=f"{event_id}-answer")
    detail = {"elapsed_ms": _elapsed_ms(state)} if not state["revealed"] else None
    record(card, "reveal", scenario, stage=stage, detail=detail, event_id=event_id)
    if _wants_fragment():
        context = page_context(card, scenario, error)
        return jsonify(fragment_json(context, focus=stage))
    # Post/redirect/get: a reload shows the page instead of posting again.
    return redirect(_card_url(card, scenario) + f"#stage-{stage}", code=303)


@bp.post("/cards/<card_id>/followup/<int:number>")
def followup(card_id, number):
    """The candidate says whether they knew a follow-up's expected answer."""
    card = get_card(card_id)
    stage = f"followup-{number}"
    value = request.form.get("value")
    if card.stage(stage) is None:
        abort(404, description=f"Card {card_id!r} has no follow-up {number}.")
    if value not in events.FOLLOWUP_VALUES:
        abort(400, description="value must be knew or missed")
    scenario, _ = scenario_from_request(card)
    record(card, "followup", scenario, stage=stage, value=value, event_id=_form_event_id())
    return redirect(_card_url(card, scenario) + f"#stage-{stage}", code=303)


@bp.post("/cards/<card_id>/grade")
def grade(card_id):
    """Self-grade after the full answer: FSRS schedules the card's next review."""
    card = get_card(card_id)
    rating = request.form.get("rating", "")
    if rating not in ("again", "hard", "good", "easy"):
        abort(400, description="rating must be again, hard, good or easy")
    scenario, _ = scenario_from_request(card)
    record(card, "grade", scenario, value=rating, detail={"variant": scenario.variant}, event_id=_form_event_id())
    flash(f"Graded “{rating.title()}”: {card.title} comes back {_when(scheduled_state(card.id).get('due'))}.")
    return redirect(url_for("learner.practice", **_practice_filters()), code=303)


@bp.post("/cards/<card_id>/reset")
def reset(card_id):
    """Hide every stage again: start the card over."""
    card = get_card(card_id)
    scenario, _ = scenario_from_request(card)
    record(card, "reset", scenario, event_id=_form_event_id())
    return redirect(_card_url(card, scenario), code=303)


def scheduled_state(card_id: str) -> dict:
    from ..progress import scheduling

    return scheduling.states(get_db(), learner_id()).get(card_id) or {}


def _when(due_iso: str | None) -> str:
    if not due_iso:
        return "later"
    due = datetime.fromisoformat(due_iso)
    minutes = (due - datetime.now(timezone.utc)).total_seconds() / 60
    if minutes < 60:
        return f"in {max(1, round(minutes))} minute{'s' if round(minutes) > 1 else ''}"
    if minutes < 60 * 36:
        return f"in {round(minutes / 60)} hours"
    return f"on {due:%Y-%m-%d} (in {round(minutes / 1440)} days)"


def _practice_filters() -> dict:
    return {k: v for k in ("role", "tag") if (v := request.form.get(k) or request.args.get(k))}


def _form_event_id() -> str:
    raw = request.form.get("event_id", "")
    return raw if events.EVENT_ID.fullmatch(raw) else new_event_id()


def _elapsed_ms(state: dict) -> int | None:
    opened = next((e["at"] for e in state["events"] if e["kind"] == "open"), None)
    if opened is None:
        return None
    return max(0, int((datetime.now(timezone.utc) - datetime.fromisoformat(opened)).total_seconds() * 1000))


def _grade(card, scenario, answer: str) -> dict | None:
    """The typed answer checked against the calculator value the card names, before the reveal."""
    if not card.answer or card.answer["value"] not in scenario.result.values:
        return None
    values = scenario.result.values
    mistakes = [(m["value"], values[m["value"]], m["says"]) for m in card.answer["mistakes"]
                if m["value"] in values]
    result = grade_answer(answer, values[card.answer["value"]], card.answer["tolerance"], mistakes)
    return {"verdict": result.verdict, "message": result.message, "expected": result.expected_text,
            "derivation": result.derivation, "mistake": result.mistake}


def _card_url(card, scenario) -> str:
    query = urlencode(scenario.query())
    return url_for("practice.card", card_id=card.id) + (f"?{query}" if query else "")


@bp.get("/cards/<card_id>/fragment")
def fragment(card_id):
    """The revealed parts of the card for another scenario, for in-place recalculation."""
    card = get_card(card_id)
    scenario, error = scenario_from_request(card)
    context = page_context(card, scenario, error)
    return jsonify(fragment_json(context)), (400 if error else 200)


def fragment_json(context: dict, focus: str | None = None) -> dict:
    view = context["view"]
    card = context["card"]
    render = current_app.jinja_env.get_template("cards/_parts.html").module
    return {
        "url": _card_url(card, context["scenario"]),
        "query": context["query"],
        "question": view.question_html,
        "stages": {s.name: render.stage(card, s, context["query"], context["state"], context["preview"])
                   for s in view.stages},
        "revealed": [s.name for s in view.stages if s.revealed],
        "derivations": render.derivations(view),
        "held": render.held(context["scenario"], context["variant_name"], context["next_variant_url"]),
        "controls": render.controls(context["controls"]),
        "error": ({"error": context["error"].message, "field": context["error"].field}
                  if context["error"] else None),
        "focus": focus,
        "announce": _announcement(context),
    }


def _announcement(context) -> str:
    scenario = context["scenario"]
    if context["error"]:
        return f"Not recalculated: {context['error'].message}"
    return f"Recalculated for {scenario.inputs.model or 'the card'}" + (
        f", variant {context['variant_name']}" if context["variant_name"] else "") + "."


def _wants_fragment() -> bool:
    return request.accept_mimetypes.best == "application/json" or request.headers.get("X-Fragment") == "1"
