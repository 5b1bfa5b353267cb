"""The card page's calculator panel: which inputs it offers, their values, and errors in people's words.

The panel offers exactly the card's scenario space (``card.space``): its models, the KV
dtypes valid for the model, and the pool's rules the card allows. An error sits beside the
field that caused it; vLLM's own refusals keep vLLM's words.
"""

from __future__ import annotations

import re

from ...calc import BY_NAME, CalcError, fmt, gpu_entries, kv_cache_dtypes_for
from ...calc import FIT_CHECKS
from ...cards import Refused
from ...cards.scenario import POOL_RULES

# The panel's fields, in order, with the words a reader sees (the flag vLLM names it by).
LABELS = {
    "model": "Model",
    "kv_cache_dtype": "KV cache dtype (--kv-cache-dtype)",
    "tensor_parallel_size": "Tensor parallel size (--tensor-parallel-size)",
    "max_model_len": "Max model length, tokens (--max-model-len)",
    "pool_tokens": "Pool, tokens (as the startup log prints it)",
    "kv_cache_memory_bytes": "KV pool, bytes (--kv-cache-memory-bytes)",
    "gpu": "GPU",
    "gpu_memory_utilization": "GPU memory utilization (--gpu-memory-utilization)",
    "prompt_tokens": "Prompt tokens per user",
    "output_tokens": "Output tokens per user",
}
RULE_LABELS = {"tokens": "Tokens measured in a startup log", "bytes": "A pinned byte count",
               "fraction": "A fraction of the GPU's memory"}
POOL_FIELDS = ("pool_tokens", "kv_cache_memory_bytes", "gpu", "gpu_memory_utilization")
# Whole-number fields show thousands separators, and read them back.
COUNT_FIELDS = ("tensor_parallel_size", "max_model_len", "pool_tokens", "prompt_tokens", "output_tokens")


def controls(card, scenario, error: CalcError | None = None, typed=None) -> list[dict]:
    """The rows of the panel: name, label, kind, value, options, and the error beside it.

    ``typed`` holds what the reader typed (the query string): after an error the panel shows
    their input, marked, rather than the card's own scenario that the page fell back to.
    """
    space, inputs, values = card.space, scenario.inputs, scenario.result.values
    allowed = space.inputs if space is not None else ()
    # After an error the pool's rows are the rule the reader asked for, so their choice stays in view.
    asked = str(typed.get("pool_rule", "")) if error is not None and typed is not None else ""
    rule = asked if asked in POOL_RULES else None
    rows = []
    for name in LABELS:
        if name not in allowed or name in POOL_FIELDS:
            continue
        rows.append(_row(name, _value(name, inputs, values), scenario, card))
        if name == "max_model_len":
            rows += _pool_rows(allowed, scenario, rule)
    if not any(row["name"] in POOL_FIELDS or row["name"] == "pool_rule" for row in rows):
        rows += _pool_rows(allowed, scenario, rule)
    for name in allowed:  # inputs a card allows beyond the usual ones
        if name not in LABELS:
            rows.append({"name": name, "label": BY_NAME[name].help.capitalize(), "kind": "text",
                         "value": _shown(name, getattr(inputs, name))})
    return _mark(rows, error, typed)


def _row(name: str, value, scenario, card=None) -> dict:
    row = {"name": name, "label": LABELS[name], "kind": "text", "value": _shown(name, value)}
    if name == "model":
        # A variant's model that cannot start in the card's own scenario is offered in its variant only.
        models = [m for m in card.space.models if m not in card.space.variant_only or m == scenario.inputs.model]
        if scenario.inputs.model not in models:  # a variant's own model stays choosable
            models.insert(0, scenario.inputs.model)
        row.update(kind="select", options=models)
    elif name == "kv_cache_dtype":
        row.update(kind="select", options=list(kv_cache_dtypes_for(scenario.result.model)))
    elif name in COUNT_FIELDS:
        row["inputmode"] = "numeric"
    return row


def _value(name: str, inputs, values):
    given = getattr(inputs, name)
    if given is None and name in values:
        return values[name].value
    return given


def _pool_rows(allowed, scenario, asked: str | None = None) -> list[dict]:
    """The pool's rule (when the card lets the reader change it) and the field of the rule in force
    (or of the rule the reader ``asked`` for, after an error)."""
    rules = [rule for rule, name in POOL_RULES.items() if name in allowed]
    rule = asked or scenario.pool_rule
    rows = []
    if len(rules) > 1 and rule:
        rows.append({"name": "pool_rule", "label": "The pool is sized by", "kind": "select", "value": rule,
                     "options": rules, "option_labels": RULE_LABELS})
    values, inputs = scenario.result.values, scenario.inputs
    if rule == "tokens" and "pool_tokens" in allowed:
        # A measured pool that keeps its bytes under another model still shows its measured
        # tokens, so sending the form unchanged keeps the same memory.
        rows.append(_row("pool_tokens", inputs.pool_tokens or scenario.stated_pool_tokens, scenario))
    elif rule == "bytes" and "kv_cache_memory_bytes" in allowed:
        rows.append(_row("kv_cache_memory_bytes", inputs.kv_cache_memory_bytes, scenario))
    elif rule == "fraction":
        if "gpu" in allowed:
            row = _row("gpu", inputs.gpu, scenario)
            row.update(kind="select", options=[g["id"] for g in gpu_entries()],
                       option_labels={g["id"]: g.get("display_name") or g["name"] for g in gpu_entries()})
            rows.append(row)
        if "gpu_memory_utilization" in allowed:
            rows.append(_row("gpu_memory_utilization", _value("gpu_memory_utilization", inputs, values), scenario))
    if rows and "kv_cache_memory_bytes" in values and rule == scenario.pool_rule:
        rows[-1]["note"] = pool_in_force(scenario)
    return rows


def pool_in_force(scenario) -> str:
    """One line: the pool the numbers use now, in tokens and bytes, and the rule that sized it."""
    values = scenario.result.values
    tokens = values["pool_tokens"].value if "pool_tokens" in values else None
    memory = values["kv_cache_memory_bytes"].value
    how = {"tokens": "measured tokens", "bytes": "a pinned byte count",
           "fraction": "a fraction of the GPU"}.get(scenario.pool_rule, "the card's scenario")
    held = " (the bytes of the card's measured pool)" if scenario.pool_rule == "bytes" and scenario.held else ""
    shown_tokens = f"{fmt.commas(tokens)} tokens = " if tokens is not None else ""
    return f"Pool in force: {shown_tokens}{fmt.commas(memory)} B ({fmt.gib(memory)}), sized by {how}{held}."


def _shown(name: str, value) -> str:
    if value is None:
        return ""
    if name in COUNT_FIELDS or name == "kv_cache_memory_bytes":
        return fmt.commas(value) if isinstance(value, (int, float)) else str(value)
    return str(value)


def _mark(rows: list[dict], error: CalcError | None, typed) -> list[dict]:
    if error is None:
        return rows
    for row in rows:
        if typed is not None and row["name"] in typed and row["kind"] == "text":
            row["value"] = typed[row["name"]]
        if typed is not None and row["name"] == error.field and row["kind"] == "select" and typed.get(row["name"]):
            # The reader's choice stays in view beside why it cannot be shown.
            chosen = str(typed[row["name"]])
            row["value"] = chosen
            if chosen not in row["options"]:
                row["options"] = [chosen] + list(row["options"])
        if row["name"] == error.field:
            row["error"] = message_for_people(error)
    return rows


def message_for_people(error: CalcError) -> str:
    """An input error in a reader's words ("Pool tokens must be a positive whole number");
    vLLM's refusals keep vLLM's words."""
    if isinstance(error, Refused):
        # The fit's message is a verdict already ("Does not fit: …", then what would fit, then vLLM's words).
        plain = error.check in FIT_CHECKS or error.message.startswith("vLLM would refuse") or " cannot start in " in \
            error.message
        return error.message if plain else f"vLLM would refuse to start: {error.message}"
    field, message = error.field, error.message
    label = _plain_label(field)
    if field in BY_NAME and BY_NAME[field].kind in ("int", "bytes") and re.search(
            r"must be (a whole number|positive|at least|a number of bytes)", message):
        minimum = BY_NAME[field].minimum
        kind = "a number of bytes such as 10e9, 10 GB or 9.31 GiB" if BY_NAME[field].kind == "bytes" else (
            "a positive whole number" if minimum >= 1 else "a whole number, 0 or more")
        return f"{label} must be {kind}."
    if field and message.startswith(field):
        return label + message[len(field):]
    return message[:1].upper() + message[1:]


# Names in a reader's words, for error messages.
PLAIN = {"max_model_len": "Max model length", "kv_cache_memory_bytes": "The KV pool in bytes",
         "kv_cache_dtype": "The KV cache dtype", "gpu": "The GPU", "model": "The model"}


def _plain_label(field: str | None) -> str:
    return PLAIN.get(field or "", (field or "this value").replace("_", " ").capitalize())
