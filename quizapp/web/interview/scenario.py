"""A card's scenario in an interview: in words, with where each figure comes from, and changed by
the interviewer, at setup or mid-question, only within what the card's space allows.

Each row says its source: "the card's scenario", "the variant's", "set by the interviewer",
"logged" (the pool the card's startup log printed, in its own scenario) or "computed for this
scenario" (a pool counted again for another model, or sized from a pin or a GPU).
"""

from __future__ import annotations

from flask import current_app
from markupsafe import Markup

from ...calc import fmt
from ...cards import Scenario
from ...progress.interviews import InterviewError
from ..practice.panel import controls
from .state import Entry, checked_scenario, variant_choice

COMPUTED = "computed for this scenario"


def scenario_rows(entry: Entry) -> list[dict]:
    """The session's scenario for a card, in words: {"label", "value", "source"} for each row the
    interviewer reads before asking."""
    scenario = entry.scenario
    if scenario is None:
        return []
    inputs, values = scenario.inputs, scenario.result.values
    text = {name: (q.text or str(q.value)) for name, q in values.items()}
    source = _sources(entry)
    base = f"variant: {entry.variant_name}" if entry.variant_name else "the card's own"
    rows = [_row("Scenario", base + (", changed by the interviewer" if scenario.overrides else ""), "")]
    if inputs.model:
        rows.append(_row("Model", inputs.model, source("model")))
    else:
        rows.append(_row("Model", f"measured, {text.get('kv_bytes_per_token', '?')} a token", source("kv_bytes_per_token")))
    rows.append(_row("KV cache dtype", text.get("kv_dtype", inputs.kv_cache_dtype), source("kv_cache_dtype")))
    rows.append(_row("Tensor parallel", str(inputs.tensor_parallel_size), source("tensor_parallel_size")))
    if inputs.gpu:
        rows.append(_row("GPU", scenario.gpu_name, source("gpu")))
    rows += _pool_rows(scenario, text, source)
    if "max_model_len" in values or inputs.max_model_len:
        rows.append(_row("Max model length", f"{fmt.commas(inputs.max_model_len or values['max_model_len'].value)} "
                                             "tokens", source("max_model_len") if inputs.max_model_len else COMPUTED))
    if inputs.prompt_tokens is not None:
        rows.append(_row("Per user", f"{fmt.commas(inputs.prompt_tokens)} prompt + {fmt.commas(inputs.output_tokens or 0)} "
                                     "output tokens", source("prompt_tokens", "output_tokens")))
    return rows


def _row(label: str, value: str, source: str) -> dict:
    return {"label": label, "value": value, "source": source}


def _sources(entry: Entry):
    """Where an input's value comes from: the interviewer's change, the variant, or the card."""
    overrides = entry.scenario.overrides
    variant = entry.card.variants[entry.scenario.variant].inputs if entry.scenario.variant is not None else {}

    def source(*names: str) -> str:
        if any(name in overrides for name in names):
            return "set by the interviewer"
        if any(name in variant for name in names):
            return "the variant's"
        return "the card's scenario"
    return source


def _pool_rows(scenario: Scenario, text: dict, source) -> list[dict]:
    """The pool, and where its figure comes from: a logged pool is "logged" only in the scenario it
    was logged in; counted again for another model (or sized otherwise) it is computed."""
    inputs, tokens = scenario.inputs, text.get("pool_tokens", "?")
    rule = scenario.pool_rule
    if rule == "tokens" and not scenario.held:
        logged = source("pool_tokens")
        return [_row("KV pool", f"{tokens} tokens", "logged" if logged == "the card's scenario" else logged)]
    if rule == "tokens":  # the logged pool keeps its bytes; its tokens are counted again
        return [_row("KV pool", f"{tokens} tokens ({text.get('kv_cache_memory_bytes', '?')})",
                     f"{COMPUTED}: the logged pool's bytes, counted for this model")]
    if rule == "bytes":
        return [_row("KV pool pinned", text.get("kv_cache_memory_bytes", "?"), source("kv_cache_memory_bytes")),
                _row("KV pool", f"{tokens} tokens", COMPUTED)]
    if rule == "fraction":
        return [_row("GPU memory utilization", str(inputs.gpu_memory_utilization), source("gpu_memory_utilization")),
                _row("KV pool", f"{text.get('kv_cache_memory_bytes', '?')}, {tokens} tokens", COMPUTED)]
    return []


def changed_scenario(entry: Entry, sent: dict, pool_rule: str | None = None) -> Scenario:
    """The card's scenario with the interviewer's changes (``sent``: inputs, and a ``variant`` by
    index or name) over the session's: an InterviewError naming ``scenario.<field>`` when it is
    outside the card's space, vLLM would refuse it, or the card cannot be shown in it."""
    if entry.card is None or entry.scenario is None:
        raise InterviewError("that card cannot be used now", "card")
    if not isinstance(sent, dict) or not sent:
        raise InterviewError("scenario must be an object: the inputs to change (and a variant)", "scenario")
    changes = dict(sent)
    variant = entry.scenario.variant
    if "variant" in changes:
        variant = variant_choice(entry.card, changes.pop("variant"), "scenario.variant")
    overrides = {**entry.scenario.overrides, **changes} if variant == entry.scenario.variant else changes
    return checked_scenario(entry.card, variant, overrides, "scenario", pool_rule)


def what_changed(entry: Entry, after: Scenario) -> dict:
    """What a change did to the card's scenario, as the report lists it: the variant when it changed
    (by name), and each input set or unset (None) against the scenario before."""
    before = entry.scenario
    change = {}
    if after.variant != before.variant:
        change["variant"] = entry.card.variants[after.variant].name if after.variant is not None else "the card's own"
        old = {}
    else:
        old = before.overrides
    change.update({name: value for name, value in after.overrides.items() if old.get(name, ...) != value})
    change.update({name: None for name in old if name not in after.overrides})
    return change


def changes_text(change: dict) -> str:
    """A scenario change in words: "model → meta-llama/Llama-3.1-8B-Instruct, kv_cache_dtype → fp8"."""
    return ", ".join(f"{name} → {'unset' if value is None else value}" for name, value in change.items())


def scenario_controls(entry: Entry) -> Markup | None:
    """The console's fields for changing the card's scenario: the card page's calculator fields
    (the space's inputs, with the values in force), drawn by the same macro."""
    if entry.card is None or entry.scenario is None or not entry.card.space:
        return None
    rows = controls(entry.card, entry.scenario)
    if not rows:
        return None
    return current_app.jinja_env.get_template("cards/_parts.html").module.controls(rows)
