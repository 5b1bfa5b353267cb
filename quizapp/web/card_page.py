"""The card page's content, shared by every view of a card: the reader's (practice), the author's
preview, and the values API.

Every response that carries card text is built from ``card_view``: a stage that the reader
has not revealed is not rendered, so its text is in no page, fragment or JSON.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

from flask import current_app, request, url_for

from ..calc import KV_CACHE_DTYPES, CalcError, model_ids
from ..cards import CardError, card_view, overrides_from_query, resolve_scenario
from ..cards.environment import dtype
from ..progress.answers import GRADED, VERDICTS, display, grade_card_answer, unit_label
from ..progress.events import current_attempt
from .storage import get_db, learner_id


def scenario_from_request(card):
    """The scenario the URL asks for, or the card's own with the error that prevented it."""
    try:
        scenario = resolve_scenario(card, variant_index(card, request.args.get("variant", "")),
                                    overrides_from_query(request.args))
        return scenario, None
    except CalcError as error:
        return resolve_scenario(card, None, {}), error


def variant_index(card, raw: str) -> int | None:
    """The ?variant= of a card's URL: empty for the card's own scenario, else 0, 1, …"""
    raw = raw.strip()
    if not raw:
        return None
    if not re.fullmatch(r"[0-9]{1,4}", raw) or int(raw) >= len(card.variants):
        choices = f"from 0 to {len(card.variants) - 1}" if card.variants else "absent: this card has no variants"
        raise CalcError(f"variant must be {choices}", "variant")
    return int(raw)


def card_url(card, scenario) -> str:
    """The card's page for this scenario: the URL a reload or a shared link shows it again with."""
    query = urlencode(scenario.query())
    return url_for("practice.card", card_id=card.id) + (f"?{query}" if query else "")


def page_context(card, scenario, error, revealed: list[str] | None = None):
    """What the card page and its fragments show; ``revealed`` defaults to the reader's own."""
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
    return {
        "card": card, "view": view, "scenario": scenario, "error": error, "query": query,
        "controls": controls(card, scenario), "next_variant_url": next_variant_url,
        "variant_name": card.variants[scenario.variant].name if scenario.variant is not None else None,
        "attempt": attempt, "preview": False, "answer": answer_view(card, scenario, attempt),
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
        "controls": render.controls(context["controls"]),
        "error": ({"error": context["error"].message, "field": context["error"].field}
                  if context["error"] else None),
        "focus": focus,
        "announce": _announcement(context),
    }


def scenario_label(scenario) -> str:
    """A scenario as a verdict names it: "Qwen3-8B on the L4", "Llama-3.1-8B-Instruct with the KV
    cache in FP8 on the L4", "Llama-3.1-70B-Instruct at tensor parallel size 4"."""
    inputs = scenario.inputs
    words = [(inputs.model or "the card's model").rpartition("/")[2]]
    if inputs.kv_cache_dtype and inputs.kv_cache_dtype != "auto":
        words.append(f"with the KV cache in {dtype(inputs.kv_cache_dtype)}")
    if inputs.tensor_parallel_size and inputs.tensor_parallel_size > 1:
        words.append(f"at tensor parallel size {inputs.tensor_parallel_size}")
    if scenario.gpu_name:
        words.append(f"on the {scenario.gpu_name}")
    return " ".join(words)


def checked_answer(card, scenario, typed: str, working: str) -> dict:
    """What an answer event stores, typed before the short answer is seen: the verdict and why,
    and when it was graded the expected value, its arithmetic, the mistake it matches and the
    scenario it was checked for (its label and key). ``working`` is kept, never graded."""
    detail = _checked_number(card, scenario, typed) if card.answer else {}
    if working.strip():
        detail["working"] = working
    return detail


def _checked_number(card, scenario, typed: str) -> dict:
    if not typed.strip():
        return {"message": "No number in the answer box, so nothing was checked."}
    grade = grade_card_answer(card.answer, scenario.result.values, typed)
    if grade is None:
        return {"message": f"Not checked: the answer cannot be worked out for {scenario_label(scenario)}."}
    detail = grade.stored()
    if grade.verdict in GRADED:
        detail.update(checked_for=scenario_label(scenario), scenario_key=scenario.key)
    return detail


# How the page says each verdict after "checked for …:".
VERDICT_WORDS = {"right": "right", "close": "close", "wrong": "wrong", "mistake": "a known mistake"}


def answer_view(card, scenario, attempt) -> dict:
    """The answer box and the verdict as the page shows them: the unit beside the box, what was
    typed, and the verdict named with the scenario it was checked for, plus this scenario's
    answer when the reader has changed the scenario since."""
    values = scenario.result.values
    expected = values.get(card.answer["value"]) if card.answer else None
    feedback = attempt.feedback if isinstance(attempt.feedback, dict) else {}
    view = {"number": card.answer is not None, "unit": unit_label(expected) if expected else "",
            "typed": attempt.answer or "", "working": feedback.get("working") or "", "verdict": None}
    verdict = feedback.get("verdict")
    if not feedback.get("message") or not isinstance(verdict, (str, type(None))):  # an imported file's oddity
        return view
    view.update(verdict=verdict if verdict in VERDICTS else "none", message=feedback["message"],
                derivation=feedback.get("derivation"))
    if verdict in VERDICT_WORDS and feedback.get("checked_for"):
        headline = f"Checked for {feedback['checked_for']}: {VERDICT_WORDS[verdict]}"
        if feedback.get("scenario_key") != scenario.key:
            headline += _for_this_scenario(feedback["checked_for"], scenario, expected)
        view["headline"] = headline + "."
    elif verdict not in VERDICT_WORDS:
        view["headline"] = "Not checked"
    return view


def _for_this_scenario(checked_for: str, scenario, expected) -> str:
    now = scenario_label(scenario)
    named = "this scenario" if now == checked_for else f"this scenario ({now})"
    if expected is None:
        return f"; {named} has no answer to compare"
    return f"; for {named} the answer is {display(expected)}"


def _announcement(context) -> str:
    scenario = context["scenario"]
    if context["error"]:
        return f"Not recalculated: {context['error'].message}"
    return f"Recalculated for {scenario.inputs.model or 'the card'}" + (
        f", variant {context['variant_name']}" if context["variant_name"] else "") + "."
