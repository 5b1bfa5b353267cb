"""Compare 2–4 scenarios side by side, /calc/compare: a table of every value and charts of the four
figures that decide a deployment.

The URL holds them all: an input without a prefix is shared by every scenario (the same GPU,
the same memory), and ``a.model=…``, ``b.kv_cache_dtype=fp8`` set one scenario's own. For example
``/calc/compare?a.model=Qwen/Qwen3-8B&b.model=meta-llama/Llama-3.1-8B-Instruct&gpu=L4``.
"""

from __future__ import annotations

from urllib.parse import urlencode

from flask import Blueprint, jsonify, redirect, render_template, request

from ...calc import VALUES, CalcError, Result, calculate
from .form import CHOICE_DEFAULTS, PAGE_FIELDS, PLACEHOLDERS, canonical_query, controls, field_of, read_inputs, tidier_url
from .output import refusals_by_field, refusals_html, result_view, value_text
from ..charts import hbar_chart
from .roofline import STYLES, decode_chart, prefill_chart, shared_scales

bp = Blueprint("calc_compare", __name__, url_prefix="/calc/compare")

LETTERS = "abcd"
DEFAULT_QUERY = {"a.model": "Qwen/Qwen3-8B", "b.model": "meta-llama/Llama-3.1-8B-Instruct", "gpu": "L4",
                 "max_model_len": "8192", "prompt_tokens": "512", "output_tokens": "128"}
# A scenario's own inputs shown first; the others are behind "More inputs".
OWN_FIRST = ("model", "kv_cache_dtype", "weights_dtype", "tensor_parallel_size", "gpu")
SHARED_FIRST = ("gpu", "gpu_memory_utilization", "pool_tokens", "kv_cache_memory_bytes", "max_model_len",
                "prompt_tokens", "output_tokens", "vllm_version")
# (value, chart title, unit, scale): the figures a reader compares first.
CHARTS = (("kv_bytes_per_token", "KV bytes per token (KiB)", "KiB", 1 / 1024),
          ("pool_tokens", "Pool (tokens, as vLLM logs it)", "tokens", 1),
          ("max_concurrency", "Max concurrency", "×", 1),
          ("users_fit", "Users that fit", "users", 1),
          ("decode_tokens_per_second", "Decode tokens/s, one sequence (upper bound)", "tokens/s", 1),
          ("decode_throughput", "Decode tokens/s, the batch (upper bound)", "tokens/s", 1),
          ("ttft_seconds", "Time to first token, ms (lower bound)", "ms", 1000))


@bp.get("")
def page():
    args = request.args or DEFAULT_QUERY
    context = build(args)
    tidier = tidier_url(request.args, context["url"]) if request.args else None
    if tidier:
        return redirect(tidier)
    return render_template("calc/compare.html", **context), context["status"]


@bp.get("/fragment")
def fragment():
    context = build(request.args or DEFAULT_QUERY)
    return jsonify({"output": render_template("calc/_compare_output.html", **context).strip(), "errors": context["errors"],
                    "refusals": context["refusals"], "refusals_html": refusals_html(context["refusals"]),
                    "url": context["url"], "announce": _announcement(context)}), \
        context["status"]


def letters_in(args) -> list[str]:
    """The scenarios a query names (a and b always), in order."""
    named = {key.split(".", 1)[0] for key in args if "." in key}
    return [letter for letter in LETTERS if letter in named or letter in "ab"]


def build(args) -> dict:
    """Each scenario's result or error, the shared and own controls, the table, the charts and the URL."""
    shared = read_inputs(args)
    letters = letters_in(args)
    errors: dict[str, str] = {}
    refusals: dict[str, list[str]] = {}
    scenarios = []
    for letter in letters:
        own = read_inputs(args, f"{letter}.")
        scenario = _run(letter, shared, own, errors, refusals)
        scenario["controls"] = _own_controls(letter, own, shared, errors, refusals)
        scenario["remove_url"] = _url(shared, _without(letters, letter, args)) if len(letters) > 2 else None
        scenarios.append(scenario)
    owns = {letter: read_inputs(args, f"{letter}.") for letter in letters}
    return {
        "scenarios": scenarios,
        "shared_first": controls(shared, errors, refusals, names=SHARED_FIRST),
        "shared_more": controls(shared, errors, refusals, names=[n for n in PAGE_FIELDS if n not in SHARED_FIRST]),
        "rows": _rows(scenarios),
        "charts": _charts(scenarios),
        "time_charts": _time_charts(scenarios),
        "styles": STYLES,
        "url": _url(shared, owns),
        "add_url": _add_url(shared, owns, letters),
        "errors": errors,
        "refusals": refusals,
        "status": 400 if any(s["error"] for s in scenarios) else 200,
    }


def _run(letter: str, shared: dict, own: dict, errors: dict, refusals: dict) -> dict:
    """One scenario: the shared inputs, its own over them. An error or refusal marks the input it is about:
    the scenario's own when it gave one, else the shared one, naming the scenario."""
    name = letter.upper()
    data = {**shared, **own}
    scenario = {"letter": letter, "name": name, "title": data.get("model") or "measured bytes per token",
                "result": None, "view": None, "error": None}
    try:
        result = calculate(data)
    except CalcError as error:
        scenario["error"] = error.message
        field = field_of(error)
        if field:
            key = f"{letter}.{field}" if field in own or field not in shared else field
            message = error.message if key != field else f"{name}: {error.message}"
            errors[key] = f"{errors[key]}; {message}" if key in errors else message
        return scenario
    scenario["result"], scenario["view"] = result, result_view(result, charts=False)
    for field, messages in refusals_by_field(result).items():
        key = f"{letter}.{field}" if field in own else field
        refusals.setdefault(key, []).extend(messages if key != field else [f"{name}: {m}" for m in messages])
    return scenario


def _own_controls(letter: str, own: dict, shared: dict, errors: dict, refusals: dict) -> dict:
    """A scenario's controls; an empty one says which shared value it takes."""
    prefix = f"{letter}."
    first = controls(own, errors, refusals, prefix, names=OWN_FIRST)
    more = controls(own, errors, refusals, prefix, names=[n for n in PAGE_FIELDS if n not in OWN_FIRST])
    for group in first + more:
        for _, rows in group["parts"]:
            for row in rows:
                _say_shared(row, shared.get(row["field"]), row["field"] in own)
    return {"first": first, "more": more}


def _say_shared(row: dict, shared_value: str | None, typed: bool) -> None:
    """An empty own control reads "as shared (L4)": the scenario takes the shared value."""
    shown = shared_value or CHOICE_DEFAULTS.get(row["field"]) or PLACEHOLDERS.get(row["field"]) or "none"
    text = f"as shared ({shown})"
    if row["kind"] == "select" and row["options"] and row["options"][0][0] == "":
        row["options"] = [("", text)] + row["options"][1:]
    elif row["kind"] == "select":  # a choice with a default: an empty option means "as shared"
        row["options"] = [("", text)] + row["options"]
        if not typed:
            row["value"] = ""
    elif row["kind"] in ("text", "number"):
        row["placeholder"] = text


def _rows(scenarios: list[dict]) -> list[dict]:
    """Every value any scenario derives, in the calculator's order, with each scenario's text."""
    names = [n for n in VALUES if any(s["result"] and n in s["result"].values for s in scenarios) and n != "log_line"]
    return [{"name": n, "meaning": VALUES[n],
             "cells": [value_text(s["result"], n) if s["result"] and n in s["result"].values else "—"
                       for s in scenarios]} for n in names]


def _charts(scenarios: list[dict]) -> list[dict]:
    charts = []
    for name, title, unit, scale in CHARTS:
        points = [(f"{s['name']}: {_short(s['title'])}", _value(s["result"], name) * scale)
                  for s in scenarios if _value(s["result"], name) is not None]
        charts.append({"title": title,
                       "svg": hbar_chart(points, title, unit=unit, width=420, value_width=96,
                                         description=f"{title} of each scenario that has one.")})
    return charts


def _time_charts(scenarios: list[dict]) -> list[list[dict]]:
    """Each scenario's decode chart, then each one's prefill chart, on axes they share."""
    timed = [s for s in scenarios if s["view"] and s["view"]["time"]]
    if not timed:
        return []
    decode, prefill = shared_scales([s["result"] for s in timed])
    return [[{"scenario": s, **decode_chart(s["result"], decode)} for s in timed],
            [{"scenario": s, **prefill_chart(s["result"], prefill)} for s in timed]]


def _value(result: Result | None, name: str) -> float | None:
    return result.get(name) if result is not None else None


def _short(model: str) -> str:
    return model.rsplit("/", 1)[-1]


def _url(shared: dict, owns: dict[str, dict]) -> str:
    query = [pair for letter, own in owns.items() for pair in canonical_query(own, f"{letter}.", keep_defaults=True)]
    for letter in owns:  # a scenario with nothing of its own keeps its letter
        if not owns[letter]:
            query.append((f"{letter}.model", ""))
    return "/calc/compare?" + urlencode(query + canonical_query(shared))


def _add_url(shared: dict, owns: dict[str, dict], letters: list[str]) -> str | None:
    """The page with one more scenario, a copy of the last one's own inputs."""
    following = next((letter for letter in LETTERS if letter not in letters), None)
    if following is None:
        return None
    return _url(shared, {**owns, following: dict(owns[letters[-1]])})


def _without(letters: list[str], removed: str, args) -> dict[str, dict]:
    """The scenarios but one, their letters closed up (removing B makes C the new B)."""
    kept = [letter for letter in letters if letter != removed]
    return {LETTERS[i]: read_inputs(args, f"{letter}.") for i, letter in enumerate(kept)}


def _announcement(context: dict) -> str:
    parts = []
    for s in context["scenarios"]:
        if s["error"]:
            parts.append(f"{s['name']} not calculated: {s['error']}")
        else:
            parts.append(f"{s['name']} " + ", ".join(f"{f['label']} {f['text']}" for f in s["view"]["figures"]))
    return "Compared. " + "; ".join(parts) + "."
