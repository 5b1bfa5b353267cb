"""``quizapp read-log``: a vLLM startup log read and set beside the calculator's prediction."""

from __future__ import annotations

import json
import sys

import click

from ..calc import MAX_LOG_CHARS, CalcError, read_log
from ..calc.log.reading import NOT_IN_FORMAT
from .errors import fail, flag as _flag, read_bounded


@click.command("read-log")
@click.argument("source", metavar="FILE|-")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def read_log_command(source, as_json):
    """Read a vLLM startup log: its settings and pool, the KV bytes per token they imply,
    and the calculator's prediction beside them.

    FILE is a log file, or - for standard input. Lines it does not recognise are listed.
    A text that is not a vLLM startup log is an error (exit 2).
    """
    try:
        reading = read_log(_read_log_text(source, MAX_LOG_CHARS))
    except CalcError as error:
        fail(error.message)
    if as_json:
        click.echo(json.dumps(reading.to_json(), indent=2, ensure_ascii=False))
    else:
        click.echo(render_reading(reading.to_json()))


def _read_log_text(source: str, limit: int) -> str:
    """The log as text; a huge file is refused, not loaded."""
    return read_bounded(source, limit, "log").decode("utf-8", errors="replace")


def render_reading(data: dict) -> str:
    """A log reading as text: what the log says, what it implies, the calculator beside it."""
    settings = [f"vLLM {data['vllm_version'] or '(version not stated)'}", data["model"] or "(model not stated)"]
    settings += [f"{name} {data[name]:,}" for name in ("tensor_parallel_size", "max_model_len") if data[name]]
    settings += [f"kv_cache_dtype {data['kv_cache_dtype']}"] if data["kv_cache_dtype"] else []
    lines = [" · ".join(settings), "", "From the log:"]
    memory = data["kv_cache_memory"]
    for name, text in (("pool_tokens", data["pool_tokens"] and f"{data['pool_tokens']:,} tokens"),
                       ("max_concurrency", data["max_concurrency_text"]),
                       ("num_gpu_blocks", data["num_gpu_blocks"] and f"{data['num_gpu_blocks']:,} blocks"),
                       ("kv_cache_memory_bytes", memory and memory["text"])):
        if not text and name == NOT_IN_FORMAT.get(data["log_format"]):
            continue  # a figure this log's format does not print
        lines.append(f"  {name:<22} {text or 'not stated':<18}" + (f" line {data['lines'][name]}" if text else "")
                     .rstrip())
    implied = data["implied_kv_bytes_per_token"]
    if implied:
        lines += ["", f"Implied KV bytes per token: {implied['low']:,} – {implied['high']:,} B"]
        lines += [f"  {evidence['derivation']}" for evidence in data["implied_from"]]
    lines += ["", *_render_predicted(data)]
    for refusal in data["refusals"]:
        ceiling = refusal.get("gpu_memory_utilization_ceiling")
        lines += ["", f"vLLM refused to start (line {refusal['line']}):", f"  {refusal['message']}"]
        if ceiling:
            lines.append(f"  gpu_memory_utilization {ceiling} is the most that starts with this free memory")
    if data["notes"]:
        lines += ["", "Notes:", *(f"  - {note}" for note in data["notes"])]
    flags = " ".join(_as_flag(name, value) for name, value in data["continue_inputs"].items())
    lines += ["", "Continue in the calculator:", f"  quizapp calc {flags}"]
    if data["unrecognised"]:
        lines += ["", f"Lines not recognised ({data['unrecognised_total']:,}):"]
        lines += [f"  {item['line']}: {item['text'][:120]}" for item in data["unrecognised"][:20]]
        if data["unrecognised_total"] > 20:
            lines.append(f"  … and {data['unrecognised_total'] - 20:,} more (--json lists up to 200)")
    return "\n".join(lines)


def _as_flag(name: str, value) -> str:
    """An input as `quizapp calc` takes it: --x N, or --x / --no-x for a switch."""
    if isinstance(value, bool):
        return _flag(name) if value else f"--no-{_flag(name)[2:]}"
    return f"{_flag(name)} {value}"


def _render_predicted(data: dict) -> list[str]:
    predicted = data["predicted"]
    if predicted is None:
        return [f"No prediction: {data['catalog_match']}."]
    lines = [f"Predicted by the calculator for {predicted['model']} (matched by {predicted['matched_by']}):"]
    if "error" in predicted:
        return lines + [f"  the calculator refuses: {predicted['error']}"]
    lines.append(f"  KV bytes per token: {predicted['kv_bytes_per_token_derivation']}")
    for comparison in predicted["comparisons"]:
        mark = "agrees" if comparison["agrees"] else "DIFFERS"
        lines.append(f"  {comparison['value']:<22} predicted {_shown(comparison['predicted'])}, "
                     f"log {_shown(comparison['logged'])}: {mark}")
    lines += [f"  why it may differ: {why}" for why in predicted["explanations"]]
    lines += [f"  note: {note}" for note in predicted["notes"] + predicted.get("not_compared", [])]
    return lines


def _shown(value) -> str:
    if isinstance(value, dict):
        return f"{value['low']:,}" if value["low"] == value["high"] else f"{value['low']:,} – {value['high']:,}"
    return f"{value:,}" if isinstance(value, int) else str(value)


# `quizapp export …` lives beside the exports it writes.
