"""The calculator's inputs as a form: grouped, labelled with vLLM's flags, read back from a query.

The calculator page and the compare page share it. Names, help and choices come from the
calculator's FIELDS (one table feeds the CLI, the API and the pages); this module only groups
them and picks each one's control. A control carries the value as typed, so a refused value is
shown back beside its error.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from urllib.parse import parse_qsl, urlencode, urlsplit

import yaml

from ...calc import BY_NAME, CURRENT_VLLM_VERSION, FIELDS, VLLM_VERSIONS, CalcError, Inputs, gpu_entries, model_entries

# (group id, legend, [(subheading or None, input names)]): every input but config, which has its own form.
GROUPS = (
    ("model", "Model", ((None, ("model", "kv_bytes_per_token")),)),
    ("precision", "Precision and parallelism",
     ((None, ("kv_cache_dtype", "weights_dtype", "tensor_parallel_size", "pipeline_parallel_size",
              "data_parallel_size", "enable_expert_parallel", "block_size", "num_draft_layers")),)),
    ("pool", "The KV pool (one of three rules)", (
        ("As a startup log printed it", ("pool_tokens",)),
        ("Pinned in bytes", ("kv_cache_memory_bytes",)),
        ("A fraction of the GPU", ("gpu", "gpu_memory_utilization", "total_memory_bytes", "free_memory_bytes",
                                   "weights_bytes", "non_kv_cache_memory_bytes")),
    )),
    ("request", "The request shape", ((None, ("max_model_len", "prompt_tokens", "output_tokens", "batch_size")),
                                      ("Cost", ("gpu_hour_price",)))),
    ("scheduler", "Scheduler settings", ((None, ("max_num_batched_tokens", "max_num_seqs", "async_scheduling",
                                                 "enable_prefix_caching", "disable_hybrid_kv_cache_manager")),
                                         ("Prefix caching and speculative decoding",
                                          ("cached_prefix_tokens", "num_speculative_tokens", "acceptance_rate")))),
    ("version", "vLLM version", ((None, ("vllm_version",)),)),
)
PAGE_FIELDS = tuple(name for _, _, subgroups in GROUPS for _, names in subgroups for name in names)
QUERY_FIELDS = tuple(f.name for f in FIELDS if f.name != "config")

# What an empty field means, shown in it.
PLACEHOLDERS = {
    "max_model_len": "from the model's config",
    "gpu_memory_utilization": "0.92 (vLLM's default)",
    "max_num_batched_tokens": "vLLM's default for the GPU",
    "total_memory_bytes": "the GPU's, from the catalog",
    "weights_bytes": "counted from the config",
    "non_kv_cache_memory_bytes": "0",
    "num_draft_layers": "0",
    "tensor_parallel_size": "1",
    "pipeline_parallel_size": "1",
    "data_parallel_size": "1",
    "batch_size": "1",
    "max_num_seqs": "vLLM's default for the GPU",
    "prompt_tokens": "for the time bounds: 1,024",
    "output_tokens": "for the time bounds: 256",
    "kv_cache_memory_bytes": "e.g. 10e9 or 9.31 GiB",
    "free_memory_bytes": "e.g. 20 GiB",
}
CHOICE_DEFAULTS = {f.name: str(getattr(Inputs(), f.name)) for f in FIELDS if f.kind == "choice"}
SWITCHES = {"async_scheduling": ("--async-scheduling", "--no-async-scheduling"),
            "enable_prefix_caching": ("--enable-prefix-caching", "--no-enable-prefix-caching")}


def read_inputs(source: Mapping, prefix: str = "") -> dict[str, str]:
    """The calculator's fields in a query or form (without config), as typed and stripped; empty ones left out."""
    raw = {}
    for name in QUERY_FIELDS:
        value = source.get(prefix + name)
        if value is not None and str(value).strip():
            raw[name] = str(value).strip()
    return raw


def canonical_query(raw: Mapping[str, str], prefix: str = "", keep_defaults: bool = False) -> list[tuple[str, str]]:
    """The inputs in the calculator's order, so the same scenario has the same URL. A select that
    shows its default (kv_cache_dtype auto, block_size 16) is left out unless ``keep_defaults``:
    a compare page's own input set to the default differs from the shared one."""
    return [(prefix + name, raw[name]) for name in QUERY_FIELDS
            if name in raw and (keep_defaults or raw[name] != CHOICE_DEFAULTS.get(name))]


def calc_url(raw: Mapping[str, str]) -> str:
    """/calc for these inputs; an empty scenario keeps one empty key, so it is not read as the default."""
    query = canonical_query(raw)
    return "/calc?" + (urlencode(query) if query else "model=")


def tidier_url(args, canonical: str) -> str | None:
    """The canonical URL when the query is a submitted form's (blank fields, its own order); None when
    the query already is it. A form without JavaScript sends every field, empty or not."""
    blanks = any(not value.strip() for value in args.values())
    pairs = parse_qsl(urlsplit(canonical).query, keep_blank_values=True)
    return canonical if blanks and pairs != list(args.items(multi=True)) else None


def field_of(error: CalcError, names=PAGE_FIELDS + ("config",)) -> str | None:
    """The page input an error is about (config.num_hidden_layers is about the config), or None."""
    field = (error.field or "").split(".")[0]
    return field if field in names else None


def controls(raw: Mapping[str, str], errors: Mapping[str, str], refusals: Mapping[str, list[str]],
             prefix: str = "", names=None) -> list[dict]:
    """The groups of controls, each control with its value as typed and its messages."""
    wanted = set(PAGE_FIELDS if names is None else names)
    groups = []
    for group_id, legend, subgroups in GROUPS:
        parts = [(heading, [control(name, raw, errors, refusals, prefix) for name in names_ if name in wanted])
                 for heading, names_ in subgroups]
        parts = [(heading, rows) for heading, rows in parts if rows]
        if parts:
            groups.append({"id": prefix + group_id, "legend": legend, "parts": parts})
    return groups


def control(name: str, raw: Mapping[str, str], errors: Mapping[str, str], refusals: Mapping[str, list[str]],
            prefix: str = "") -> dict:
    """One input's control: its vLLM flag (or the calculator's name), help, kind, options and messages."""
    field = BY_NAME[name]
    key = prefix + name
    row = {"name": key, "field": name, "id": "in-" + key.replace(".", "-"), "flag": field.vllm_flag.split("/")[0]
           or "--" + name.replace("_", "-"), "vllm": bool(field.vllm_flag), "help": field.help,
           "value": raw.get(name, ""), "placeholder": PLACEHOLDERS.get(name, ""), "error": errors.get(key),
           "refusals": refusals.get(key, []), "options": [], "kind": "text"}
    if name in SWITCHES:
        on, off = SWITCHES[name]
        row.update(kind="select", flag=field.vllm_flag, options=[("", f"vLLM's default (on in {CURRENT_VLLM_VERSION})"),
                                                               ("true", on), ("false", off)])
        row["value"] = _switch_value(row["value"])
    elif field.kind == "bool":
        row.update(kind="checkbox", checked=_switch_value(row["value"]) == "true")
    elif name == "model":
        row.update(kind="select", options=[("", "none: a measured kv_bytes_per_token, or a config.json")]
                   + model_options())
    elif name == "gpu":
        row.update(kind="select", options=[("", "none")] + gpu_options())
    elif name == "vllm_version":
        row.update(kind="select", options=[("", f"current ({CURRENT_VLLM_VERSION})")]
                   + [(v, v) for v in reversed(VLLM_VERSIONS) if v != CURRENT_VLLM_VERSION])
    elif field.kind == "choice":
        default = str(getattr(Inputs(), name))
        row.update(kind="select", options=[(str(c), str(c) + (" (default)" if str(c) == default else ""))
                                           for c in field.choices])
        row["value"] = row["value"] or default
    elif field.kind == "int":
        row.update(kind="number", minimum=field.minimum, step="1")
    elif field.kind == "float":
        row.update(kind="number", minimum="0.01", maximum="1", step="any")
    if row["kind"] == "select" and row["value"] not in {value for value, _ in row["options"]}:
        row["options"] = row["options"] + [(row["value"], row["value"])]  # keep what was typed, to show its error
    return row


def _switch_value(value: str) -> str:
    lowered = value.lower()
    if lowered in ("1", "true", "yes", "on"):
        return "true"
    if lowered in ("0", "false", "no", "off"):
        return "false"
    return value


@cache
def model_options() -> list[tuple[str, str]]:
    """Every catalog model, with its attention, for the model select (the catalog is read once)."""
    return [(m["id"], f"{m['id']} ({m['attention']})") for m in model_entries()]


@cache
def gpu_options() -> list[tuple[str, str]]:
    return [(g["id"], f"{g['display_name']} ({g['total_memory_bytes'] / 2**30:.1f} GiB)") for g in gpu_entries()]


def card_snippet(inputs: Inputs) -> str:
    """The front matter's `scenario:` block for these inputs, as a card author pastes it."""
    given = {name: value for name, value in inputs.given().items() if name != "config"}
    return yaml.safe_dump({"scenario": given}, sort_keys=False, allow_unicode=True).rstrip()
