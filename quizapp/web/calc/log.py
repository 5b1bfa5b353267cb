"""Read a vLLM startup log, /calc/log: paste it (a POST form), and see what it states, the bytes per
token it implies, the calculator's prediction beside it, and the lines it did not recognise.

The reading is ``quizapp.calc.read_log`` (the CLI's ``read-log`` and ``POST /api/read-log`` give
the same object); this module only lays it out. Nothing is stored.
"""

from __future__ import annotations

from urllib.parse import urlencode

from flask import Blueprint, jsonify, render_template, request

from ...calc import MAX_LOG_CHARS, CalcError, LogReading, read_log
from ...calc.log.reading import NOT_IN_FORMAT
from ..security import limit_body

bp = Blueprint("calc_log", __name__, url_prefix="/calc/log")

MAX_LOG_BODY = 2 * 1024 * 1024 + 64 * 1024  # a 2,000,000-character log and the form around it
SETTING_LABELS = {
    "vllm_version": "vLLM version", "model": "--model", "architecture": "architecture",
    "tensor_parallel_size": "--tensor-parallel-size", "pipeline_parallel_size": "--pipeline-parallel-size",
    "max_model_len": "--max-model-len", "kv_cache_dtype": "--kv-cache-dtype", "dtype": "--dtype",
    "quantization": "--quantization", "block_size": "--block-size",
    "gpu_memory_utilization": "--gpu-memory-utilization", "max_num_batched_tokens": "--max-num-batched-tokens",
    "async_scheduling": "--async-scheduling", "enable_prefix_caching": "--enable-prefix-caching",
    "speculative": "--speculative-config",
}
POOL_LINES = (("pool_tokens", "GPU KV cache size"), ("max_concurrency", "Maximum concurrency"),
              ("num_gpu_blocks", "# GPU blocks (V0)"), ("kv_cache_memory_bytes", "KV cache memory"))


@bp.get("")
def page():
    return render_template("calc/log.html", **context_for("", None, None))


@bp.post("")
def read():
    context = _read_posted()
    return render_template("calc/log.html", **context), context["status"]


@bp.post("/fragment")
def fragment():
    context = _read_posted()
    return jsonify({"output": render_template("calc/_log_output.html", **context).strip(), "error": context["error"],
                    "announce": context["announce"]}), context["status"]


def _read_posted() -> dict:
    limit_body(MAX_LOG_BODY)
    upload = request.files.get("log_file")
    text = upload.read(MAX_LOG_CHARS + 1).decode("utf-8", errors="replace") if upload and upload.filename else ""
    text = text or request.form.get("log", "")
    try:
        return context_for(text, read_log(text), None)
    except CalcError as error:
        return context_for(text, None, error.message)


def context_for(text: str, reading: LogReading | None, error: str | None) -> dict:
    data = reading.to_json() if reading else None
    return {
        "log_text": text,
        "error": error,
        "reading": data,
        "settings": _settings(data) if data else [],
        "pool": _pool(data) if data else [],
        "comparisons": _comparisons(data["predicted"]) if data and data["predicted"] else [],
        "continue_url": continue_url(data["continue_inputs"]) if data else None,
        "max_chars": MAX_LOG_CHARS,
        "announce": (f"Not read: {error}" if error else
                     f"Read {data['lines_read']:,} lines; {data['unrecognised_total']:,} not recognised." if data
                     else ""),
        "status": 400 if error else 200,
    }


def _settings(data: dict) -> list[dict]:
    rows = []
    for name, label in SETTING_LABELS.items():
        value = data.get(name)
        if value is None:
            continue
        if name == "speculative":
            value = ", ".join(f"{k} {v}" for k, v in value.items() if v is not None) or "yes"
        elif isinstance(value, bool):
            value = "on" if value else "off"
        elif isinstance(value, int):
            value = f"{value:,}"
        rows.append({"name": name, "label": label, "value": value, "line": data["lines"].get(name)})
    return rows


def _pool(data: dict) -> list[dict]:
    memory = data["kv_cache_memory"]
    texts = {"pool_tokens": data["pool_tokens"] and f"{data['pool_tokens']:,} tokens",
             "max_concurrency": data["max_concurrency_text"],
             "num_gpu_blocks": data["num_gpu_blocks"] and f"{data['num_gpu_blocks']:,} blocks",
             "kv_cache_memory_bytes": memory and f"{memory['text']} ({memory['source']})"}
    cannot = NOT_IN_FORMAT.get(data["log_format"])
    return [{"name": name, "label": label, "text": texts[name], "line": data["lines"].get(name)}
            for name, label in POOL_LINES if texts[name] or name != cannot]


def _comparisons(predicted: dict) -> list[dict]:
    """Each figure the log states beside the calculator's, as text (an interval reads "low – high")."""
    return [{**c, "logged_text": _shown(c["logged"]), "predicted_text": _shown(c["predicted"])}
            for c in predicted.get("comparisons", [])]


def _shown(value) -> str:
    if isinstance(value, dict):
        return f"{value['low']:,}" if value["low"] == value["high"] else f"{value['low']:,} – {value['high']:,}"
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def continue_url(inputs: dict) -> str:
    """The calculator page for the log's scenario."""
    query = [(k, ("true" if v else "false") if isinstance(v, bool) else str(v)) for k, v in inputs.items()]
    return "/calc?" + (urlencode(query) if query else "model=")
