"""Read a vLLM startup log: its settings, its pool figures, the KV bytes per token they imply,
and the calculator's prediction beside them.

``read_log(text)`` is the one entry point (``quizapp read-log``, the API and the page call it).
It returns a :class:`~.reading.LogReading`, whose ``to_json()`` is the object the API returns. A
text that is too large, or in which no line is one vLLM prints, raises ``CalcError(field="log")``.
Whatever the log does not state is ``None``, never a guess: the implied bytes per token is
an interval (``bounds.py``), and a model outside the catalog gets no prediction.

``read_log`` runs the steps in order, each given the facts it needs and returning what it
finds (with its notes): ``parse.py`` recognises lines, the pool lines and the settings are read
here, ``bounds.py`` finds the KV memory and bounds the bytes per token, ``predict.py`` runs the
calculator beside the log, ``scenario.py`` finds the catalog model and turns the log into
calculator inputs.
"""

from __future__ import annotations

from ..errors import CalcError
from .bounds import block_sizes, find_memory, implied_interval, pool_evidence, refusal_evidence
from .parse import ParsedLog, parse_log
from .patterns import Gib
from .predict import predict
from .reading import LogReading, Pool, Settings
from .scenario import continue_inputs, match_catalog, utilization_ceiling

# Each setting, and the facts that state it, most authoritative first: the engine's resolved
# config and the pool lines before the flags as typed.
SETTINGS = {
    "vllm_version": ("vllm_version",),
    "model": ("arg_model", "config_model", "banner_model", "loaded_model"),
    "architecture": ("architecture",),
    "tensor_parallel_size": ("config_tensor_parallel_size", "arg_tensor_parallel_size"),
    "pipeline_parallel_size": ("config_pipeline_parallel_size", "arg_pipeline_parallel_size"),
    "max_model_len": ("concurrency_max_model_len", "config_max_seq_len", "resolved_max_model_len",
                      "arg_max_model_len", "refused_max_model_len"),
    "kv_cache_dtype": ("config_kv_cache_dtype", "arg_kv_cache_dtype"),
    "dtype": ("config_dtype", "arg_dtype"),
    "quantization": ("config_quantization", "arg_quantization"),
    "block_size": ("forced_block_size", "arg_block_size"),
    "gpu_memory_utilization": ("arg_gpu_memory_utilization",),
    "max_num_batched_tokens": ("arg_max_num_batched_tokens",),
    "async_scheduling": ("arg_async_scheduling",),
    "enable_prefix_caching": ("arg_enable_prefix_caching",),
    "speculative": ("speculative",),
}

SETTING_FACTS = {name: frozenset(keys) for name, keys in SETTINGS.items()}


def read_log(text: str) -> LogReading:
    """Read a vLLM startup log. Raises CalcError(field="log") for a text that is not one."""
    parsed = parse_log(text)
    if not parsed.lines_total:
        raise CalcError("the log is empty: paste the lines vLLM prints as it starts", "log")
    if not parsed.recognised:
        raise CalcError(f"not recognised as a vLLM startup log: none of its {parsed.lines_total:,} lines is one "
                        "vLLM prints as it starts (such as 'GPU KV cache size: N tokens', 'Available KV cache "
                        "memory', 'non-default args' or 'Initializing a V1 LLM engine')", "log")
    notes = []
    if parsed.reordered:
        notes.append("the lines are not in the order vLLM printed them (lines of several processes, or a grep); "
                     "this reads them in their timestamps' order")
    if parsed.runs > 1:
        notes.append(f"the log holds {parsed.runs} vLLM starts; this reads the last, from line {parsed.first_line}")
    if parsed.dropped:
        more = parsed.dropped_total - len(parsed.dropped)
        notes.append("not read, as they belong to an earlier start than the one read: "
                     + "; ".join(f"line {line}: {_pool_words(key, value)}" for line, key, value in parsed.dropped)
                     + (f"; and {more:,} more" if more else ""))
    pool, lines, found = _pool(parsed)
    notes += found
    settings, setting_lines, found = _settings(parsed, pool, lines.get("max_concurrency"))
    notes += found
    lines.update(setting_lines)
    refusals = _refusals(parsed, settings.vllm_version)
    catalog_model, catalog_match = match_catalog(settings.model)
    memory, found = find_memory(parsed)
    notes += found
    if memory:
        lines["kv_cache_memory_bytes"] = memory.line
    sizes, evidence = (), []
    if (memory and (pool.tokens or pool.num_gpu_blocks)) or any(r["kind"] == "one_request_fits" for r in refusals):
        sizes, found = block_sizes(settings, pool, catalog_model)
        notes += found
        evidence = [e for e in [pool_evidence(memory, pool, settings, sizes), *refusal_evidence(refusals, sizes)]
                    if e]
    implied = implied_interval(evidence)
    if evidence and implied is None:
        notes.append("the log's figures disagree about the bytes per token: "
                     + "; ".join(e.derivation for e in evidence))
    predicted = predict(catalog_model, catalog_match, settings, pool, memory, refusals, implied)
    profile = _memory_profile(parsed)
    inputs, found = continue_inputs(catalog_model, (predicted or {}).get("inputs", {}), settings, pool, memory,
                                    profile, implied)
    notes += found
    return LogReading(parsed=parsed, settings=settings, pool=pool, memory=memory, memory_profile=profile,
                      refusals=refusals, lines=lines, catalog_model=catalog_model, catalog_match=catalog_match,
                      block_sizes=sizes, evidence=evidence, implied=implied, predicted=predicted,
                      continue_inputs=inputs, notes=notes)


def _pool(parsed: ParsedLog) -> tuple[Pool, dict[str, int], list[str]]:
    """The pool lines, with where each was read. Workers may each print them; the pool follows the smallest."""
    lines: dict[str, int] = {}
    notes: list[str] = []
    tokens = text = blocks = length = None
    pools = parsed.all("pool_tokens")
    if pools:
        (tokens, _), lines["pool_tokens"] = min(pools, key=lambda seen: seen[0][0])
        notes += _spread("GPU KV cache size", {tokens for (tokens, _), _ in pools})
        notes += [f"line {line}: {_pool_words('v0_pool_tokens', value)} is not read: line {lines['pool_tokens']}'s "
                  "'GPU KV cache size' states the pool" for value, line in parsed.all("v0_pool_tokens")]
    elif parsed.all("v0_pool_tokens"):
        # V0's refusal names the tokens its blocks hold: "... stored in KV cache (23648)".
        tokens, lines["pool_tokens"] = parsed.first("v0_pool_tokens")
    concurrency = parsed.all("max_concurrency")
    if concurrency:
        (length, text), lines["max_concurrency"] = min(concurrency, key=lambda seen: float(seen[0][1][:-1]))
        if len({value for value, _ in concurrency}) > 1:
            notes.append("workers logged different 'Maximum concurrency' lines ("
                         + "; ".join(sorted({_pool_words("max_concurrency", v) for v, _ in concurrency}))
                         + f"); this reads the smallest, line {lines['max_concurrency']}")
    all_blocks = parsed.all("num_gpu_blocks")
    if all_blocks:
        blocks, lines["num_gpu_blocks"] = min(all_blocks, key=lambda seen: seen[0])
        notes += _spread("# GPU blocks", {value for value, _ in all_blocks})
    one_line = bool({n for _, n in concurrency} & {n for _, n in pools})
    return Pool(tokens, text, blocks, length, one_line), lines, notes


def _pool_words(key: str, value) -> str:
    """A pool fact as vLLM prints it."""
    if key == "pool_tokens":
        return f"'{value[1]} KV cache size: {value[0]:,} tokens'"
    if key == "max_concurrency":
        return f"'Maximum concurrency for {value[0]:,} tokens per request: {value[1]}'"
    if key == "num_gpu_blocks":
        return f"'# GPU blocks: {value:,}'"
    return f"'... stored in KV cache ({value:,})'"


def _spread(what: str, values: set) -> list[str]:
    if len(values) > 1:
        return [f"workers logged different '{what}' figures ({', '.join(f'{v:,}' for v in sorted(values))}); "
                "vLLM sizes the pool by the smallest"]
    return []


def _refusals(parsed: ParsedLog, version: str | None) -> list[dict]:
    """vLLM's start refusals, each once (the worker, the engine and the server each print the same one)."""
    refusals, said = [], set()
    for refusal, line in parsed.all("refusal"):
        if refusal.get("message") in said:
            continue
        said.add(refusal.get("message"))
        data = _refusal_json(refusal, line)
        if refusal["kind"] == "free_memory":
            data["gpu_memory_utilization_ceiling"] = utilization_ceiling(
                refusal["total"].text, refusal["free"].text, version)
        refusals.append(data)
    return refusals


def _refusal_json(refusal: dict, line: int) -> dict:
    """A refusal's figures: GiB as bytes, with the text vLLM printed beside each."""
    data: dict = {"kind": refusal["kind"], "line": line}
    for key, value in refusal.items():
        if isinstance(value, Gib):
            data[key], data[f"{key}_text"] = value.bytes, f"{value.text} GiB"
        elif key != "kind":
            data[key] = value
    return data


def _memory_profile(parsed: ParsedLog) -> dict[str, int]:
    """The log's memory figures other than the KV cache's, in bytes."""
    profile = {}
    for name in ("weights", "requested_memory", "total_memory", "free_memory"):
        value, _ = parsed.first(name)
        if value is not None:
            profile[f"{name}_bytes"] = value.bytes
    found, _ = parsed.first("profile")
    for name, value in (found or {}).items():
        profile.setdefault(f"{name}_bytes", value.bytes)
    return profile


def _settings(parsed: ParsedLog, pool: Pool, concurrency_line: int | None) -> tuple[Settings, dict[str, int],
                                                                                     list[str]]:
    """Each setting as its most authoritative fact states it (SETTINGS), where it was read, and a note
    for each setting the log also states otherwise."""
    values, lines, notes = {}, {}, []
    # The request length of the concurrency line is the resolved max_model_len: SETTINGS reads it first.
    stated = {"concurrency_max_model_len": [(pool.request_tokens, concurrency_line)] if concurrency_line else []}
    facts = {**parsed.facts, **stated}
    for name, keys in SETTINGS.items():
        if SETTING_FACTS[name].isdisjoint(facts):
            continue  # most settings: a log states a few
        found = [(value, line) for key in keys for value, line in facts.get(key, ())
                 if not (name == "max_model_len" and value <= 0)]  # -1 asks vLLM to fit the length itself
        if not found:
            continue
        if name == "model":
            found = [(v.rstrip("/") or v, line) for v, line in found]
        value, line = found[0]
        values[name], lines[name] = value, line
        others = sorted({str(v) for v, _ in found if v != value})
        if others and name != "speculative":
            notes.append(f"{name}: the log states {value} (line {line}) and also {', '.join(others)}; "
                         f"this reads {value}")
    settings = Settings(**values, v0_engine="kv_memory_v0" in parsed.facts)
    if settings.vllm_version is None and pool.one_line:
        notes.append("the log does not state its vLLM version; its pool and concurrency on one line are "
                     "vLLM 0.28 or later")
    if settings.vllm_version and settings.version is None:
        notes.append(f"vLLM {settings.vllm_version} is a source build whose release is not known; the "
                     "prediction follows the current release")
    return settings, lines, notes
