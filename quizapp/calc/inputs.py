"""The calculator's inputs, named as vLLM names its flags, and their validation.

One table serves the CLI, the JSON API and the card scenarios, so a field is checked the
same way wherever it comes from.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, fields
from typing import Any

from .errors import CalcError, did_you_mean
from .layout import KV_CACHE_DTYPES
from .weights import WEIGHTS_DTYPES

MAX_INT = 2**53
BLOCK_SIZES = (1, 8, 16, 32, 64, 128, 256)  # vLLM's BlockSize choices


@dataclass(frozen=True)
class Field:
    """One calculator input. ``vllm_flag`` is vLLM's own flag for it, where vLLM has one: the page
    labels the input with it, so a reader finds the same name in ``vllm serve --help``."""

    name: str
    kind: str  # int, bytes, float, str, choice, bool, object
    help: str
    minimum: int = 1
    choices: tuple = ()
    vllm_flag: str = ""


FIELDS = (
    Field("model", "str", "Hugging Face id of a catalog model, e.g. Qwen/Qwen3-8B", vllm_flag="--model"),
    Field("config", "object", "a Hugging Face config.json, as an object"),
    Field("kv_bytes_per_token", "int", "measured KV bytes per token per rank, instead of a model"),
    Field("kv_cache_dtype", "choice", "KV cache dtype", choices=KV_CACHE_DTYPES, vllm_flag="--kv-cache-dtype"),
    Field("tensor_parallel_size", "int", "tensor parallel size (GPUs per model replica)",
          vllm_flag="--tensor-parallel-size"),
    Field("block_size", "choice", "tokens per KV block", choices=BLOCK_SIZES, vllm_flag="--block-size"),
    Field("max_model_len", "int", "maximum tokens per request (prompt + output)", vllm_flag="--max-model-len"),
    Field("pool_tokens", "int", "KV pool as the startup log prints it: 'GPU KV cache size: N tokens'"),
    Field("kv_cache_memory_bytes", "bytes", "KV pool pinned in bytes per GPU (--kv-cache-memory)",
          vllm_flag="--kv-cache-memory-bytes"),
    Field("gpu", "str", "GPU from the catalog, for a pool from the memory budget"),
    Field("gpu_memory_utilization", "float", "fraction of the GPU vLLM may use", vllm_flag="--gpu-memory-utilization"),
    Field("total_memory_bytes", "bytes", "GPU total memory as CUDA reports it (overrides the catalog)"),
    Field("free_memory_bytes", "bytes", "GPU memory free at startup, for vLLM's start check"),
    Field("weights_bytes", "bytes", "weights per GPU (default: counted from the config)", minimum=0),
    Field("weights_dtype", "choice", "dtype of the weights, for the weights bytes", choices=WEIGHTS_DTYPES),
    Field("non_kv_cache_memory_bytes", "bytes",
          "activations, CUDA graphs and other non-KV memory that vLLM measures at start", minimum=0),
    Field("prompt_tokens", "int", "prompt tokens of a typical user"),
    Field("output_tokens", "int", "output tokens of a typical user", minimum=0),
    Field("num_draft_layers", "int", "speculative-decoding draft layers (EAGLE/MTP) sharing the pool",
          minimum=0),
    Field("max_num_batched_tokens", "int", "tokens per scheduler step (default follows vLLM)",
          vllm_flag="--max-num-batched-tokens"),
    Field("vllm_version", "str", "vLLM release whose rules to follow (default: current)"),
    Field("disable_hybrid_kv_cache_manager", "bool", "size sliding-window layers as full attention",
          vllm_flag="--disable-hybrid-kv-cache-manager"),
    Field("async_scheduling", "bool", "schedule the next step while one runs: 2 batches in flight, so a "
          "sliding window keeps more blocks (default: on, as vLLM has it)",
          vllm_flag="--async-scheduling/--no-async-scheduling"),
    Field("enable_prefix_caching", "bool", "prefix caching; for a model with mamba layers it keeps 2 state "
          "blocks per request from vLLM 0.28 (default: on, as vLLM has it)",
          vllm_flag="--enable-prefix-caching/--no-enable-prefix-caching"),
)
FIELD_NAMES = tuple(f.name for f in FIELDS)
BY_NAME = {f.name: f for f in FIELDS}


@dataclass(frozen=True)
class Inputs:
    model: str | None = None
    config: dict | None = None
    kv_bytes_per_token: int | None = None
    kv_cache_dtype: str = "auto"
    tensor_parallel_size: int = 1
    block_size: int = 16
    max_model_len: int | None = None
    pool_tokens: int | None = None
    kv_cache_memory_bytes: int | None = None
    gpu: str | None = None
    gpu_memory_utilization: float | None = None
    total_memory_bytes: int | None = None
    free_memory_bytes: int | None = None
    weights_bytes: int | None = None
    weights_dtype: str = "auto"
    non_kv_cache_memory_bytes: int = 0
    prompt_tokens: int | None = None
    output_tokens: int | None = None
    num_draft_layers: int = 0
    max_num_batched_tokens: int | None = None
    vllm_version: str | None = None
    disable_hybrid_kv_cache_manager: bool = False
    async_scheduling: bool | None = None  # None: as the chosen vLLM release has it
    enable_prefix_caching: bool | None = None  # None: as the chosen vLLM release has it

    def given(self) -> dict[str, Any]:
        """The inputs that differ from their defaults, for a stable key and for display."""
        defaults = Inputs()
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) != getattr(defaults, f.name)}


BYTE_UNITS = {
    "": 1, "b": 1, "byte": 1, "bytes": 1,
    "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
    "k": 10**3, "m": 10**6, "g": 10**9,
}


def parse_bytes(value: Any, name: str) -> int:
    """10e9, '10e9', '10 GB', '9.31 GiB' or '8,501,810,176' -> bytes (rounded to the byte)."""
    if isinstance(value, str):
        match = re.fullmatch(r"\s*([0-9][0-9_,]*\.?[0-9]*(?:e[+-]?[0-9]+)?)\s*([a-z]*)\s*", value.lower())
        if not match or match[2] not in BYTE_UNITS:
            raise CalcError(f"{name} must be a number of bytes such as 10e9, '10 GB' or '9.31 GiB', got {value!r}",
                            name)
        number = float(match[1].replace(",", "").replace("_", "")) * BYTE_UNITS[match[2]]
        if not math.isfinite(number):
            raise CalcError(f"{name} {value!r} is not a finite number of bytes", name)
        value = round(number) if match[2] else number
    return parse_int(value, name)


def parse_int(value: Any, name: str) -> int:
    if isinstance(value, str):
        text = value.strip().replace(",", "").replace("_", "")
        try:
            value = float(text) if re.search(r"[.eE]", text) else int(text)
        except ValueError:
            raise CalcError(f"{name} must be a whole number, got {value!r}", name) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CalcError(f"{name} must be a whole number, got {value!r}", name)
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value) or not value.is_integer()):
        raise CalcError(f"{name} must be a whole number, got {value!r}", name)
    return int(value)


def parse_float(value: Any, name: str) -> float:
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise CalcError(f"{name} must be a number, got {value!r}", name) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise CalcError(f"{name} must be a number, got {value!r}", name)
    return float(value)


def parse_bool(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("1", "true", "yes", "on"):
        return True
    if isinstance(value, str) and value.lower() in ("0", "false", "no", "off", ""):
        return False
    raise CalcError(f"{name} must be true or false, got {value!r}", name)


def _check_range(field: Field, value: int) -> None:
    if value < field.minimum:
        need = "positive" if field.minimum == 1 else f"at least {field.minimum}"
        raise CalcError(f"{field.name} must be {need}, got {value:,}", field.name)
    if value > MAX_INT:
        raise CalcError(f"{field.name} {value:,} is larger than 2**53; no real deployment has that", field.name)


def parse_field(field: Field, value: Any) -> Any:
    name = field.name
    if field.kind == "int":
        number = parse_int(value, name)
        _check_range(field, number)
        return number
    if field.kind == "bytes":
        number = parse_bytes(value, name)
        _check_range(field, number)
        return number
    if field.kind == "float":
        number = parse_float(value, name)
        if name == "gpu_memory_utilization" and not 0 < number <= 1:
            raise CalcError(f"gpu_memory_utilization must be in (0, 1], got {number}", name)
        return number
    if field.kind == "choice":
        if name == "block_size":
            number = parse_int(value, name)
            if number not in field.choices:
                raise CalcError(f"block_size must be one of {', '.join(map(str, field.choices))}, got {number}",
                                name)
            return number
        if value not in field.choices:
            raise CalcError(f"{name} {value!r} is not one of {', '.join(field.choices)}", name)
        return value
    if field.kind == "bool":
        return parse_bool(value, name)
    if field.kind == "object":
        if not isinstance(value, dict):
            raise CalcError(f"{name} must be a JSON object (a config.json), got {type(value).__name__}", name)
        return value
    if not isinstance(value, str) or not value.strip():
        raise CalcError(f"{name} must be a non-empty string, got {value!r}", name)
    if len(value) > 200:
        raise CalcError(f"{name} is too long ({len(value)} characters)", name)
    return value.strip()


def parse_inputs(data: dict[str, Any]) -> Inputs:
    """Validate a mapping of input names to values. Unknown names are refused, with a hint."""
    if not isinstance(data, dict):
        raise CalcError("the calculator's inputs must be a JSON object", None)
    values = {}
    for name, value in data.items():
        field = BY_NAME.get(name)
        if field is None:
            raise CalcError(f"unknown input {name!r}{_unknown_input_hint(name)}", name)
        if value is None or value == "":
            continue
        values[name] = parse_field(field, value)
    sources = [n for n in ("model", "config", "kv_bytes_per_token") if n in values]
    if len(sources) > 1:
        raise CalcError(f"give one of model, config or kv_bytes_per_token, not {' and '.join(sources)}", sources[1])
    if "pool_tokens" in values and "kv_cache_memory_bytes" in values:
        raise CalcError("give the pool as pool_tokens or as kv_cache_memory_bytes, not both", "kv_cache_memory_bytes")
    return Inputs(**values)


def _unknown_input_hint(name: str) -> str:
    hint = did_you_mean(name, FIELD_NAMES)
    return f" ({hint})" if hint else f"; inputs are {', '.join(FIELD_NAMES)}"
