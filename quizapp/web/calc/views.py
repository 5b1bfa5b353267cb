"""The calculator page, /calc: every input, every value with its arithmetic, vLLM's refusals beside
the field that caused them.

The URL holds the scenario (a GET form), so a page can be bookmarked and shared. A pasted or
uploaded config.json cannot go in a URL: it is POSTed, computed, shown and not stored. The
script asks /calc/fragment for the parts that change; the same template renders them in the
page, and the browser computes nothing.
"""

from __future__ import annotations

import json
from urllib.parse import urlencode

from flask import Blueprint, get_template_attribute, jsonify, redirect, render_template, request, url_for
from markupsafe import Markup

from ...calc import BY_NAME, CalcError, calculate, parse_field
from .form import PAGE_FIELDS, calc_url, canonical_query, card_snippet, controls, field_of, read_inputs, tidier_url
from .output import refusals_by_field, refusals_html, result_view
from ...lru import LRU
from .. import limits
from ..security import limit_body

bp = Blueprint("calc", __name__, url_prefix="/calc")

# What a bare /calc shows: the seed card's model, on a GPU, with a user of 512 + 128 tokens.
DEFAULT_SCENARIO = {"model": "Qwen/Qwen3-8B", "gpu": "L4", "max_model_len": "8192", "prompt_tokens": "512",
                    "output_tokens": "128"}
CONFIG_BYTES = 1024 * 1024  # a config.json is a few KB; the biggest published ones are under 100 KB
# In config mode the config, not these, says what the model is.
MODEL_SOURCES = ("model", "kv_bytes_per_token")


# A scenario's form and result, drawn once: the same for every reader, and as costly to draw as the
# rest of the page (every input's control, every value, the memory bar and the time charts).
PAGES_KEPT = 256
_pages: LRU[tuple] = LRU(PAGES_KEPT)


@bp.get("")
def page():
    raw = scenario_from(request.args)
    tidier = tidier_url(request.args, calc_url(raw))
    if tidier:
        return redirect(tidier)
    context = drawn(raw)
    return render_template("calc/page.html", **context), context["status"]


def drawn(raw: dict[str, str]) -> dict:
    """The page's context for a scenario in the URL, with its form and result drawn (kept by the inputs as typed)."""
    return _pages.get_or_make(tuple(sorted(raw.items())), lambda: _draw(build(raw, None)))


def _draw(context: dict) -> dict:
    group = get_template_attribute("calc/_parts.html", "group")
    return {**context, "form_html": Markup("".join(group(g) for g in context["groups"])),
            "output_html": Markup(render_template("calc/_output.html", **context).strip())}


@bp.post("")
def page_with_config():
    raw, config_text = _posted()
    context = build(raw, config_text)
    return render_template("calc/page.html", **context), context["status"]


@bp.get("/fragment")
def fragment():
    context = drawn(scenario_from(request.args))
    return jsonify(fragment_json(context)), context["status"]


@bp.post("/fragment")
def fragment_with_config():
    raw, config_text = _posted()
    context = build(raw, config_text)
    return jsonify(fragment_json(context)), context["status"]


def scenario_from(args) -> dict[str, str]:
    """The inputs a query names; a bare /calc is the default scenario."""
    return read_inputs(args) if args else dict(DEFAULT_SCENARIO)


def _posted() -> tuple[dict[str, str], str]:
    """The inputs and the config.json text of a POSTed form (the upload wins over the pasted text)."""
    limit_body(CONFIG_BYTES + 64 * 1024)
    raw = {k: v for k, v in read_inputs(request.form).items() if k not in MODEL_SOURCES}
    upload = request.files.get("config_file")
    text = upload.read(CONFIG_BYTES + 1).decode("utf-8", errors="replace") if upload and upload.filename else ""
    return raw, text or request.form.get("config", "")


def parse_config_text(text: str) -> dict:
    """A pasted config.json as an object; CalcError(field="config") saying where it is not one."""
    if not text.strip():
        raise CalcError("paste a config.json, or upload one", "config")
    if len(text) > CONFIG_BYTES:
        raise CalcError(f"the config.json has {len(text):,} characters; a config.json is at most {CONFIG_BYTES:,}",
                        "config")
    try:
        config = limits.loads_checked(text, "config")
    except json.JSONDecodeError as error:
        raise CalcError(f"the config.json is not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})",
                        "config") from None
    except limits.RefusedValue as refused:  # a lone surrogate, an integer of thousands of digits
        raise CalcError(refused.message, refused.field) from None
    except limits.JSONTooDeep as error:
        raise CalcError(f"the config.json is not a config.json: {error}", "config") from None
    if not isinstance(config, dict):
        raise CalcError(f"a config.json is a JSON object, not a {type(config).__name__}", "config")
    return config


def build(raw: dict[str, str], config_text: str | None) -> dict:
    """Everything the page and its fragment show for these inputs (and this config.json, in config mode)."""
    errors = _field_errors(raw)  # every input that is wrong on its own, not just the first
    general = None
    result = None
    try:
        if errors:
            raise next(iter(errors.values()))
        data: dict = dict(raw)
        if config_text is not None:
            data["config"] = parse_config_text(config_text)
        result = calculate(data)
    except CalcError as error:
        field = field_of(error)
        if field:
            errors.setdefault(field, error)
        else:
            general = error.message
    errors = {name: error.message for name, error in errors.items()}
    refusals = refusals_by_field(result) if result else {}
    config_mode = config_text is not None
    names = [n for n in PAGE_FIELDS if n not in MODEL_SOURCES] if config_mode else PAGE_FIELDS
    return {
        "mode": "config" if config_mode else "query",
        "raw": raw,
        "groups": controls(raw, errors, refusals, names=names),
        "config_text": config_text or "",
        "config_help": BY_NAME["config"].help,
        "errors": errors,
        "general_error": general,
        "refusals": refusals,
        "view": result_view(result) if result else None,
        "fit_url": _fit_url(raw, result) if result and not config_mode else None,
        "snippet": card_snippet(result.inputs) if result and not config_mode else None,
        "url": None if config_mode else calc_url(raw),
        "compare_url": None if config_mode else compare_url(raw),
        "carried": [(k, v) for k, v in canonical_query(raw) if k not in MODEL_SOURCES],
        "model_sources": MODEL_SOURCES,
        "status": 400 if (errors or general) else 200,
    }


def _fit_url(raw: dict[str, str], result) -> str | None:
    """This scenario at the tensor parallel size that makes it fit, when there is one."""
    fit = result.fit
    size = fit.min_tensor_parallel_size if fit is not None else None
    return calc_url({**raw, "tensor_parallel_size": str(size)}) if size else None


def _field_errors(raw: dict[str, str]) -> dict[str, CalcError]:
    found = {}
    for name, value in raw.items():
        try:
            parse_field(BY_NAME[name], value)
        except CalcError as error:
            found[name] = error
    return found


def compare_url(raw: dict[str, str]) -> str:
    """This scenario as A on the compare page, and B the same with an fp8 KV cache (or as given)."""
    shared = [(k, v) for k, v in canonical_query(raw) if k not in ("model", "kv_cache_dtype")]
    a = [(f"a.{k}", raw[k]) for k in ("model", "kv_cache_dtype") if k in raw]
    b = [("b.model", raw["model"])] if "model" in raw else []
    if "model" in raw and raw.get("kv_cache_dtype", "auto") == "auto":
        b.append(("b.kv_cache_dtype", "fp8"))
    return url_for("calc_compare.page") + "?" + urlencode((a or [("a.model", "")]) + (b or [("b.model", "")]) + shared)


def fragment_json(context: dict) -> dict:
    """The parts of the page that change, rendered by the template the page includes."""
    return {
        "output": context.get("output_html") or render_template("calc/_output.html", **context).strip(),
        "errors": context["errors"],
        "refusals": context["refusals"],
        "refusals_html": refusals_html(context["refusals"]),
        "url": context["url"],
        "announce": _announcement(context),
    }


def _announcement(context: dict) -> str:
    if context["general_error"] or context["errors"]:
        return "Not calculated: " + (context["general_error"] or next(iter(context["errors"].values())))
    view = context["view"]
    if view["fit"] and not view["fit"]["fits"]:
        return f"Recalculated. {view['fit']['verdict']}"
    figures = ", ".join(f"{f['label']} {f['text']}" for f in view["figures"])
    return f"Recalculated. {figures}." + (" vLLM would refuse to start." if view["refused"] else "")
