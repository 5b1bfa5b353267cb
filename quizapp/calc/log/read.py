"""Read a vLLM startup log: its settings, its pool figures, the KV bytes per token they imply,
and the calculator's prediction beside them.

``read_log(text)`` is the one entry point (``quizapp read-log``, the API and the page call it).
It returns a :class:`LogReading`, whose ``to_json()`` is the object the API returns. A text
that is too large, or in which no line is one vLLM prints, raises ``CalcError(field="log")``.
Whatever the log does not state is ``None``, never a guess: the implied bytes per token is
an interval (``logbounds``), and a model outside the catalog gets no prediction.

The modules behind it: ``logparse`` recognises lines, ``logbounds`` bounds the bytes per
token, ``logpredict`` runs the calculator beside the log, ``logscenario`` turns the log into
calculator inputs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import ceil, floor

from ..errors import CalcError
from .bounds import Evidence, Memory, block_sizes, find_memory, pool_evidence, refusal_evidence
from .parse import ParsedLog, parse_log
from .patterns import Gib
from .predict import predict
from .scenario import continue_inputs, match_catalog, utilization_ceiling
from ..versions import parse_version

MAX_LISTED = 200  # recognised and unrecognised lines listed in the JSON

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


@dataclass
class LogReading:
    """What a log states (None where it does not say), what it implies, and the calculator beside it.

    The settings are attributes named as vLLM names them (``model``, ``max_model_len``, ...);
    ``implied`` is the bytes-per-token interval (exact fractions), ``predicted`` the
    calculator's side, ``continue_inputs`` the scenario as calculator inputs, ``to_json()``
    all of it as plain JSON.
    """

    vllm_version: str | None = None
    model: str | None = None
    architecture: str | None = None
    tensor_parallel_size: int | None = None
    pipeline_parallel_size: int | None = None
    max_model_len: int | None = None
    kv_cache_dtype: str | None = None
    dtype: str | None = None
    quantization: str | None = None
    block_size: int | None = None
    gpu_memory_utilization: float | None = None
    max_num_batched_tokens: int | None = None
    async_scheduling: bool | None = None  # None: the log does not set it (vLLM's default applies)
    enable_prefix_caching: bool | None = None
    speculative: dict | None = None
    pool_tokens: int | None = None
    max_concurrency_text: str | None = None  # as printed: "2.94x"
    num_gpu_blocks: int | None = None
    memory: Memory | None = None
    memory_profile: dict[str, int] = field(default_factory=dict)  # the log's other memory figures, in bytes
    refusals: list[dict] = field(default_factory=list)  # vLLM's start refusals, with their figures
    lines: dict[str, int] = field(default_factory=dict)  # where each setting and figure was read
    one_line_pool: bool = False  # pool and concurrency printed on one line: vLLM 0.28 or later
    catalog_model: str | None = None
    catalog_match: str = ""  # how the catalog model was found, or why none was
    block_sizes: tuple[int, ...] = ()
    evidence: list[Evidence] = field(default_factory=list)
    predicted: dict | None = None
    continue_inputs: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    parsed: ParsedLog = field(default_factory=ParsedLog)

    @property
    def max_concurrency(self) -> float | None:
        return float(self.max_concurrency_text[:-1]) if self.max_concurrency_text else None

    @property
    def version(self) -> tuple[int, int] | None:
        """(major, minor) of the release; None when the log names none, or a source build ("0.1.dev…")."""
        if not self.vllm_version or self.vllm_version.startswith("0.1.dev"):
            return None
        try:
            return parse_version(self.vllm_version)
        except CalcError:
            return None

    @property
    def before_v1(self) -> bool:
        """A release before 0.11, or the V0 engine's memory-profile lines."""
        return (self.version is not None and self.version < (0, 11)) or "kv_memory_v0" in self.parsed.facts

    @property
    def implied(self) -> tuple[Fraction, Fraction] | None:
        """The KV bytes per token every way the log bounds it allows (None if it does not, or they conflict)."""
        if not self.evidence:
            return None
        low, high = max(e.low for e in self.evidence), min(e.high for e in self.evidence)
        return (low, high) if low <= high else None

    def to_json(self) -> dict:
        implied = self.implied
        data = {name: getattr(self, name) for name in SETTINGS}
        data.update({
            "pool_tokens": self.pool_tokens,
            "max_concurrency": self.max_concurrency,
            "max_concurrency_text": self.max_concurrency_text,
            "num_gpu_blocks": self.num_gpu_blocks,
            "kv_cache_memory_bytes": self.memory.bytes if self.memory else None,
            "kv_cache_memory": self.memory.to_json() if self.memory else None,
            "memory_profile": self.memory_profile or None,
            "refusals": self.refusals,
            "implied_kv_bytes_per_token": {"low": ceil(implied[0]), "high": floor(implied[1])} if implied else None,
            "implied_from": [e.to_json() for e in self.evidence],
            "catalog_model": self.catalog_model,
            "catalog_match": self.catalog_match,
            "predicted": self.predicted,
            "continue_inputs": self.continue_inputs,
            "notes": self.notes,
            "lines": self.lines,
            "lines_read": self.parsed.lines_total,
            "recognised": [{"line": n, "kind": k} for n, k in self.parsed.recognised[:MAX_LISTED]],
            "unrecognised": [{"line": n, "text": t} for n, t in self.parsed.unrecognised[:MAX_LISTED]],
            "unrecognised_total": len(self.parsed.unrecognised),
        })
        return data


def read_log(text: str) -> LogReading:
    """Read a vLLM startup log. Raises CalcError(field="log") for a text that is not one."""
    parsed = parse_log(text)
    if not parsed.lines_total:
        raise CalcError("the log is empty: paste the lines vLLM prints as it starts", "log")
    if not parsed.recognised:
        raise CalcError(f"not recognised as a vLLM startup log: none of its {parsed.lines_total:,} lines is one "
                        "vLLM prints as it starts (such as 'GPU KV cache size: N tokens', 'Available KV cache "
                        "memory', 'non-default args' or 'Initializing a V1 LLM engine')", "log")
    reading = LogReading(parsed=parsed)
    if parsed.runs > 1:
        reading.notes.append(f"the log holds {parsed.runs} vLLM starts; this reads the last, from line "
                             f"{parsed.first_line}")
    _figures(reading, parsed)
    _settings(reading, parsed)
    reading.catalog_model, reading.catalog_match = match_catalog(reading.model)
    reading.memory = find_memory(parsed, reading.notes)
    if reading.memory:
        reading.lines["kv_cache_memory_bytes"] = reading.memory.line
    if (reading.memory and (reading.pool_tokens or reading.num_gpu_blocks)) or \
            any(r["kind"] == "one_request_fits" for r in reading.refusals):
        reading.block_sizes = block_sizes(reading)
        reading.evidence = [e for e in [pool_evidence(reading), *refusal_evidence(reading)] if e]
    if reading.evidence and reading.implied is None:
        reading.notes.append("the log's figures disagree about the bytes per token: "
                             + "; ".join(e.derivation for e in reading.evidence))
    reading.predicted = predict(reading)
    reading.continue_inputs = continue_inputs(reading)
    return reading


def _figures(reading: LogReading, parsed: ParsedLog) -> None:
    """The pool lines and the memory lines. Workers may each print them; the pool follows the smallest."""
    pools = parsed.all("pool_tokens")
    if pools:
        (reading.pool_tokens, _), reading.lines["pool_tokens"] = min(pools, key=lambda seen: seen[0][0])
        _note_spread(reading, "GPU KV cache size", {tokens for (tokens, _), _ in pools})
    elif parsed.all("v0_pool_tokens"):
        # V0's refusal names the tokens its blocks hold: "... stored in KV cache (23648)".
        reading.pool_tokens, reading.lines["pool_tokens"] = parsed.first("v0_pool_tokens")
    concurrency = parsed.all("max_concurrency")
    if concurrency:
        (length, text), line = min(concurrency, key=lambda seen: float(seen[0][1][:-1]))
        reading.max_concurrency_text, reading.lines["max_concurrency"] = text, line
        parsed.facts["concurrency_max_model_len"] = [(length, line)]  # the resolved length: SETTINGS reads it first
        reading.one_line_pool = bool({n for _, n in concurrency} & {n for _, n in pools})
    blocks = parsed.all("num_gpu_blocks")
    if blocks:
        reading.num_gpu_blocks, reading.lines["num_gpu_blocks"] = min(blocks, key=lambda seen: seen[0])
    version, _ = parsed.first("vllm_version")
    said = set()
    for refusal, line in parsed.all("refusal"):
        if refusal.get("message") in said:
            continue  # the worker, the engine and the server each print the same refusal
        said.add(refusal.get("message"))
        reading.refusals.append(_refusal_json(refusal, line))
        if refusal["kind"] == "free_memory":
            reading.refusals[-1]["gpu_memory_utilization_ceiling"] = utilization_ceiling(
                refusal["total"].text, refusal["free"].text, version)
    for name in ("weights", "requested_memory", "total_memory", "free_memory"):
        value, _ = parsed.first(name)
        if value is not None:
            reading.memory_profile[f"{name}_bytes"] = round(value.value * 2**30)
    profile, _ = parsed.first("profile")
    for name, value in (profile or {}).items():
        reading.memory_profile.setdefault(f"{name}_bytes", round(value.value * 2**30))


def _note_spread(reading: LogReading, what: str, values: set) -> None:
    if len(values) > 1:
        reading.notes.append(f"workers logged different '{what}' figures "
                             f"({', '.join(f'{v:,}' for v in sorted(values))}); vLLM sizes the pool by the smallest")


def _refusal_json(refusal: dict, line: int) -> dict:
    """A refusal's figures: GiB as bytes, with the text vLLM printed beside each."""
    data: dict = {"kind": refusal["kind"], "line": line}
    for key, value in refusal.items():
        if isinstance(value, Gib):
            data[key], data[f"{key}_text"] = round(value.value * 2**30), f"{value.text} GiB"
        elif key != "kind":
            data[key] = value
    return data


def _settings(reading: LogReading, parsed: ParsedLog) -> None:
    for name, keys in SETTINGS.items():
        found = [(value, line) for key in keys for value, line in parsed.all(key)
                 if not (name == "max_model_len" and value <= 0)]  # -1 asks vLLM to fit the length itself
        if not found:
            continue
        if name == "model":
            found = [(v.rstrip("/") or v, line) for v, line in found]
        value, line = found[0]
        setattr(reading, name, value)
        reading.lines[name] = line
        others = sorted({str(v) for v, _ in found if v != value})
        if others and name != "speculative":
            reading.notes.append(f"{name}: the log states {value} (line {line}) and also {', '.join(others)}; "
                                 f"this reads {value}")
    if reading.vllm_version is None and reading.one_line_pool:
        reading.notes.append("the log does not state its vLLM version; its pool and concurrency on one line are "
                             "vLLM 0.28 or later")
    if reading.vllm_version and reading.version is None:
        reading.notes.append(f"vLLM {reading.vllm_version} is a source build whose release is not known; the "
                             "prediction follows the current release")
