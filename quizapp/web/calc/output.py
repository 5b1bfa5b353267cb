"""What a calculator result shows: every value with its unit and arithmetic, the log lines vLLM
would print, its refusals, the notes, and the memory bar (SVG drawn here, on the server).

The calculator page and the compare page both build their results here.
"""

from __future__ import annotations

from flask import current_app

from ...calc import BY_NAME, CHECK_FIELDS, FIT_CHECKS, VALUES, Result, fmt, load_gpu
from ...calc.time.measured import runs, runs_on
from ..charts import MARKER_DASHES, SEGMENT_OPACITY, stacked_bar
from .roofline import STYLES, decode_chart, prefill_chart

# The figures an engineer sizing a deployment looks for first, in the order they follow from each other.
KEY_FIGURES = ("kv_bytes_per_token", "pool_tokens", "max_concurrency", "users_fit")
LABELS = {"kv_bytes_per_token": "KV bytes per token", "pool_tokens": "Pool (tokens)",
          "max_concurrency": "Max concurrency", "users_fit": "Users that fit"}
# The time bounds a reader looks for first: how fast one sequence and the batch can go, how soon
# the first token, the whole request, and where the batch stops being bandwidth-bound.
TIME_FIGURES = {"decode_tokens_per_second": "Decode, one sequence", "decode_throughput": "Decode, the batch",
                "ttft_seconds": "Time to first token", "e2e_seconds": "Whole request",
                "critical_batch": "Knee (critical batch)"}


def result_view(result: Result, charts: bool = True) -> dict:
    """The parts of a result a page shows; ``refusals`` maps each input to vLLM's refusals about it.
    Without ``charts`` the time section leaves its charts to the page (compare draws them on shared axes)."""
    values = result.values
    refused = [c for c in result.checks if not c["ok"]]
    return {
        "summary": summary_line(result),
        "figures": [{"name": n, "label": LABELS[n], "text": value_text(result, n), "derivation": values[n].derivation}
                    for n in KEY_FIGURES if n in values],
        "rows": [{"name": name, "meaning": VALUES.get(name, ""), "text": value_text(result, name),
                  "derivation": quantity.derivation}
                 for name, quantity in values.items() if name != "log_line"],
        "log_lines": values["log_line"].value.splitlines() if "log_line" in values else [],
        "fit": fit_view(result),
        "refused": [{"check": c["check"], "message": c["message"], "field": CHECK_FIELDS.get(c["check"]),
                     "flag": _flag(CHECK_FIELDS.get(c["check"])), "fit": c["check"] in FIT_CHECKS} for c in refused],
        "refusals": refusals_by_field(result),
        "notes": list(result.notes),
        "bar": memory_bar(result),
        "time": time_view(result, charts),
    }


def fit_view(result: Result) -> dict | None:
    """Whether the scenario fits its GPU, as the page says it first: the verdict, and what would make it
    fit (the tensor parallel size a link sets, the GPU memory needed). None without a GPU."""
    fit = result.fit
    if fit is None:
        return None
    return {"fits": fit.fits, "verdict": fit.verdict[0].upper() + fit.verdict[1:] + ".",
            "suggestion": fit.suggestion(), "tensor_parallel_size": fit.min_tensor_parallel_size,
            "min_gpu_memory": fmt.gib(fit.min_gpu_memory_bytes) if fit.min_gpu_memory_bytes else None}


def _flag(field: str | None) -> str | None:
    return (BY_NAME[field].vllm_flag or field) if field else None


def summary_line(result: Result) -> str:
    """Model · attention · KV dtype · TP · GPU · vLLM release: what a reader checks before the numbers."""
    layout, inputs = result.layout_summary(), result.inputs
    parts = [layout["model"], layout["attention"], f"KV {layout['kv_dtype']}"]
    if inputs.tensor_parallel_size > 1:
        parts.append(f"TP {inputs.tensor_parallel_size}")
    if inputs.gpu:
        parts.append(load_gpu(inputs.gpu)["display_name"])
    return " · ".join(parts + [f"vLLM {result.rules.version}"])


def refusals_html(refusals: dict[str, list[str]]) -> dict[str, str]:
    """Each input's refusals as the page draws them beside it, for a fragment's script."""
    lines = current_app.jinja_env.get_template("calc/_parts.html").module.refusal_lines
    return {name: str(lines(messages)) for name, messages in refusals.items()}


def refusals_by_field(result: Result, prefix: str = "") -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for check in result.checks:
        field = CHECK_FIELDS.get(check["check"])
        # A scenario that does not fit is said once, above the result, with what would make it fit.
        if not check["ok"] and field and check["check"] not in FIT_CHECKS:
            found.setdefault(prefix + field, []).append(check["message"])
    return found


def value_text(result: Result, name: str) -> str:
    """A value as a reader reads it: its text, with its unit when the text does not carry one."""
    quantity = result.values[name]
    text = quantity.text or str(quantity.value)
    unit = quantity.unit
    if unit[:1].isalpha() and unit != "B" and not text.endswith(unit):  # "1,506" + "blocks"; "144 KiB" has its own
        return f"{text} {unit}"
    return text


def memory_bar(result: Result) -> dict | None:
    """The GPU's memory as one bar: weights, non-KV memory, the KV pool, and the headroom above the
    utilization ceiling. None when the scenario has no GPU total (nothing to draw it against). A
    scenario that does not fit is drawn past the GPU's total, with a line at the total and what overflows."""
    values = result.values
    fit = result.fit
    if "total_memory_bytes" not in values or ("kv_cache_memory_bytes" not in values and fit is None):
        return None
    total = values["total_memory_bytes"].value
    weights = result.inputs.weights_bytes if result.inputs.weights_bytes is not None else result.get("weights_bytes")
    other = result.inputs.non_kv_cache_memory_bytes
    pool = result.get("kv_cache_memory_bytes") or 0
    used = (weights or 0) + other + pool
    weights_why = ("given" if result.inputs.weights_bytes is not None else
                   "counted from the config" if weights is not None else "not counted")
    segments = [("Weights", weights or 0, weights_why),
                ("Non-KV memory", other, "activations, CUDA graphs" if other else "not given: vLLM measures it"),
                ("KV pool", pool, f"{result['num_blocks']:,} blocks" if "num_blocks" in values else
                 "none: nothing is left for it")]
    requested = result.get("requested_memory_bytes")
    markers = []
    over = used > total or (fit is not None and not fit.fits)
    if requested is not None and result.inputs.kv_cache_memory_bytes is None and result.inputs.pool_tokens is None:
        segments.append(("Headroom", max(0, total - max(used, requested)) if over else max(0, total - used),
                         f"above gpu_memory_utilization {values['gpu_memory_utilization'].text}"))
        markers.append((f"Utilization ceiling {fmt.gib(requested)}", requested / fmt.GIB))
    else:
        segments.append(("Free", max(0, total - used), "the rest of the GPU"))
    if result.inputs.free_memory_bytes is not None:
        markers.append((f"Free at start {fmt.gib(result.inputs.free_memory_bytes)}",
                        result.inputs.free_memory_bytes / fmt.GIB))
    scale = max(total, used)
    if used > total:
        markers.append((f"The GPU's total {fmt.gib(total)}", total / fmt.GIB))
    svg = stacked_bar([(label, value / fmt.GIB) for label, value, _ in segments],
                      f"GPU memory: {fmt.gib(total)}", total=scale / fmt.GIB, unit="GiB", markers=markers,
                      width=480, description=f"How the {fmt.gib(total)} of one GPU is spent"
                      + (f"; {fmt.gib(used - total)} more than it holds." if used > total else "."))
    legend = [{"label": label, "text": fmt.gib(value), "detail": detail,
               "opacity": SEGMENT_OPACITY[i % len(SEGMENT_OPACITY)]}
              for i, (label, value, detail) in enumerate(segments)]
    marked = [{"label": label, "dash": MARKER_DASHES[i % len(MARKER_DASHES)]} for i, (label, _) in enumerate(markers)]
    return {"svg": svg, "legend": legend, "markers": marked, "over": over, "total": fmt.gib(total),
            "overflow": fmt.gib(used - total) if used > total else None}


def time_view(result: Result, charts: bool = True) -> dict | None:
    """The time section: the key bounds, the two charts, and what published runs on this GPU reached
    of their bounds, with their sources. None without time bounds (no model or no catalog GPU)."""
    values = result.values
    if "decode_step_seconds" not in values:
        return None
    gpu = load_gpu(result.inputs.gpu)
    on_gpu = runs_on(gpu["id"])
    shares = sorted(run.ratio for run in runs())
    return {
        "lede": (f"Lower bounds on time, upper bounds on speed, from the {gpu['display_name']} spec sheet: "
                 f"{values['memory_bandwidth'].text} of memory bandwidth and {values['peak_flops'].text} dense "
                 f"{values['compute_dtype'].text}, for {_sequences(result['decode_batch'])} at "
                 f"{values['decode_context_tokens'].text} tokens of context. Real engines are slower."),
        "figures": [{"name": n, "label": label, "text": value_text(result, n), "derivation": values[n].derivation}
                    for n, label in TIME_FIGURES.items()],
        "charts": [decode_chart(result), prefill_chart(result)] if charts else [],
        "runs": [{"engine": run.engine, "model": run.model, "figure": run.figure, "ratio": f"{run.ratio:.0%}",
                  "source": run.source, "url": run.url, "id": run.id} for run in on_gpu],
        "runs_range": f"{shares[0]:.0%} to {shares[-1]:.0%}", "runs_count": len(shares),
        "styles": STYLES,
    }

def _sequences(n: int) -> str:
    return "one sequence" if n == 1 else f"{n:,} sequences decoded together"
