"""The calculator's inputs, named as vLLM names its flags, and their validation.

One table serves the CLI, the JSON API and the card scenarios, so a field is checked the
same way wherever it comes from.
"""

from __future__ import annotations

import math
import re
import reprlib
from dataclasses import dataclass, fields
from typing import Any

from .errors import CalcError, did_you_mean
from .model.layout import KV_CACHE_DTYPES
from .model.weights import WEIGHTS_DTYPES

MAX_INT = 2**53
BLOCK_SIZES = (1, 8, 16, 32, 64, 128, 256)  # vLLM's BlockSize choices

# Ceilings far above any real deployment, so that no input makes the calculator's work or its
# numbers unbounded (100,000,000 draft layers once took 60 s and 1.5 GB). Each names its reason.
MAX_TOKENS = 10**10          # tokens: lengths, pools, batches (the longest context is ~10**7)
MAX_MEMORY_BYTES = 2**50     # bytes of GPU memory: a pebibyte (the largest GPU holds ~2**38)
MAX_TOKEN_BYTES = 2**30      # KV bytes per token: a GiB (the largest model needs ~2**21)
MAX_TENSOR_PARALLEL = 1024   # GPUs per replica
MAX_DRAFT_LAYERS = 1000      # speculative draft layers (EAGLE and MTP use 1 to a few)
MAX_PARALLEL = 1024          # pipeline stages or data-parallel replicas
MAX_GPU_HOUR_PRICE = 10**4  # dollars per GPU-hour (clouds list ~$0.5 to ~$15)
MAX_BATCH = 10**6            # sequences decoded together (vLLM's max_num_seqs defaults to 256 or 1,024)
# Every value that arrives as text (a number, a model id, a version) is at most this long: the
# parsers then cost microseconds whatever is sent.
MAX_TEXT_CHARS = 200


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
    maximum: int = MAX_INT


FIELDS = (
    Field("model", "str", "Hugging Face id of a catalog model, e.g. Qwen/Qwen3-8B", vllm_flag="--model"),
    Field("config", "object", "a Hugging Face config.json, as an object"),
    Field("kv_bytes_per_token", "int", "measured KV bytes per token per rank, instead of a model",
          maximum=MAX_TOKEN_BYTES),
    Field("kv_cache_dtype", "choice", "KV cache dtype", choices=KV_CACHE_DTYPES, vllm_flag="--kv-cache-dtype"),
    Field("tensor_parallel_size", "int", "tensor parallel size (GPUs per model replica)",
          vllm_flag="--tensor-parallel-size", maximum=MAX_TENSOR_PARALLEL),
    Field("pipeline_parallel_size", "int", "pipeline stages: the layers split over this many GPU groups, "
          "each its own KV pool (vLLM's get_pp_indices)", vllm_flag="--pipeline-parallel-size",
          maximum=MAX_PARALLEL),
    Field("data_parallel_size", "int", "data-parallel replicas; a mixture-of-experts model spreads its routed "
          "experts over TP × DP GPUs", vllm_flag="--data-parallel-size", maximum=MAX_PARALLEL),
    Field("enable_expert_parallel", "bool", "split whole routed experts over the TP × DP GPUs instead of "
          "sharding each one (the same bytes per GPU)", vllm_flag="--enable-expert-parallel"),
    Field("block_size", "choice", "tokens per KV block", choices=BLOCK_SIZES, vllm_flag="--block-size"),
    Field("max_model_len", "int", "maximum tokens per request (prompt + output)", vllm_flag="--max-model-len",
          maximum=MAX_TOKENS),
    Field("pool_tokens", "int", "KV pool as the startup log prints it: 'GPU KV cache size: N tokens'",
          maximum=MAX_TOKENS),
    Field("kv_cache_memory_bytes", "bytes", "KV pool pinned in bytes per GPU (--kv-cache-memory)",
          vllm_flag="--kv-cache-memory-bytes", maximum=MAX_MEMORY_BYTES),
    Field("gpu", "str", "GPU from the catalog, for a pool from the memory budget"),
    Field("gpu_memory_utilization", "float", "fraction of the GPU vLLM may use", vllm_flag="--gpu-memory-utilization"),
    Field("total_memory_bytes", "bytes", "GPU total memory as CUDA reports it (overrides the catalog)",
          maximum=MAX_MEMORY_BYTES),
    Field("free_memory_bytes", "bytes", "GPU memory free at startup, for vLLM's start check",
          maximum=MAX_MEMORY_BYTES),
    Field("weights_bytes", "bytes", "weights per GPU (default: counted from the config)", minimum=0,
          maximum=MAX_MEMORY_BYTES),
    Field("weights_dtype", "choice", "format of the weights, for their bytes and the time bounds (auto: the "
          "config's quantization_config, else its dtype)", choices=WEIGHTS_DTYPES),
    Field("non_kv_cache_memory_bytes", "bytes",
          "activations, CUDA graphs and other non-KV memory that vLLM measures at start", minimum=0,
          maximum=MAX_MEMORY_BYTES),
    Field("prompt_tokens", "int", "prompt tokens of a typical user", maximum=MAX_TOKENS),
    Field("output_tokens", "int", "output tokens of a typical user", minimum=0, maximum=MAX_TOKENS),
    Field("batch_size", "int", "sequences decoded together, for the time bounds (default 1)", maximum=MAX_BATCH),
    Field("num_draft_layers", "int", "speculative-decoding draft layers (EAGLE/MTP) sharing the pool",
          minimum=0, maximum=MAX_DRAFT_LAYERS),
    Field("max_num_batched_tokens", "int", "tokens per scheduler step (default follows vLLM)",
          vllm_flag="--max-num-batched-tokens", maximum=MAX_TOKENS),
    Field("max_num_seqs", "int", "the most sequences vLLM runs at once: caps batch_size (default follows vLLM)",
          vllm_flag="--max-num-seqs", maximum=MAX_BATCH),
    Field("gpu_hour_price", "float", "price of one GPU-hour in dollars, for the cost per token (e.g. 2.5)"),
    Field("vllm_version", "str", "vLLM release whose rules to follow (default: current)"),
    Field("disable_hybrid_kv_cache_manager", "bool", "size sliding-window layers as full attention",
          vllm_flag="--disable-hybrid-kv-cache-manager"),
    Field("async_scheduling", "bool", "schedule the next step while one runs: 2 batches in flight, so a "
          "sliding window keeps more blocks (default: on, as vLLM has it)",
          vllm_flag="--async-scheduling/--no-async-scheduling"),
    Field("enable_prefix_caching", "bool", "prefix caching; for a model with mamba layers it keeps 2 state "
          "blocks per request from vLLM 0.28 (default: on, as vLLM has it)",
          vllm_flag="--enable-prefix-caching/--no-enable-prefix-caching"),
    # Issue 20's prefix-caching and speculative-decoding cards (sizing/shared_prefix.py, time/speculative.py).
    Field("cached_prefix_tokens", "int", "tokens at the start of a prompt that an earlier request already "
          "computed (a system prompt, a document): prefix caching reuses their full blocks", maximum=MAX_TOKENS),
    Field("num_speculative_tokens", "int", "tokens the drafter proposes per step (--speculative-config "
          "num_speculative_tokens)", maximum=MAX_DRAFT_LAYERS),
    Field("acceptance_rate", "float", "the chance that the target accepts each proposed token, in [0, 1]"),
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
    pipeline_parallel_size: int = 1
    data_parallel_size: int = 1
    enable_expert_parallel: bool = False
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
    batch_size: int = 1
    num_draft_layers: int = 0
    max_num_batched_tokens: int | None = None
    max_num_seqs: int | None = None
    gpu_hour_price: float | None = None
    vllm_version: str | None = None
    disable_hybrid_kv_cache_manager: bool = False
    async_scheduling: bool | None = None  # None: as the chosen vLLM release has it
    enable_prefix_caching: bool | None = None  # None: as the chosen vLLM release has it
    cached_prefix_tokens: int | None = None
    num_speculative_tokens: int | None = None
    acceptance_rate: float | None = None

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


# One pass, no backtracking: the digits before a point, then those after it only behind the point
# (a pattern with [0-9_,]* then [0-9]* tried every split of "1111…1!" and took seconds).
BYTES = re.compile(r"([0-9][0-9_,]*(?:\.[0-9]*)?(?:e[+-]?[0-9]+)?) ?([a-z]*)")


def _text(value: str, name: str) -> str:
    """A value given as text, stripped: at most MAX_TEXT_CHARS, and digits only as ASCII 0-9.

    Python's int() and float() read any script's digits ("١٠"); byte sizes never did. One
    rule for every field: ASCII digits only.
    """
    if len(value) > MAX_TEXT_CHARS:
        raise CalcError(f"{name} is too long ({len(value):,} characters; at most {MAX_TEXT_CHARS})", name)
    if not value.isascii():
        raise CalcError(f"{name} must be written in ASCII (digits 0-9), got {shown(value)}", name)
    return value.strip()


class _Short(reprlib.Repr):
    """A value as an error message quotes it: cut short and shallow, so a message stays small."""

    def __init__(self):
        super().__init__()
        self.maxlevel, self.maxstring, self.maxother, self.maxlist, self.maxdict = 2, 60, 60, 4, 4

    def repr_int(self, x, level):
        # repr() of an int over 4,300 digits raises; a bit count is enough to say it is too big.
        return super().repr_int(x, level) if x.bit_length() < 200 else f"an integer of {x.bit_length():,} bits"


shown = _Short().repr


def parse_bytes(value: Any, name: str) -> int:
    """10e9, '10e9', '10 GB', '9.31 GiB' or '8,501,810,176' -> bytes (rounded to the byte)."""
    if isinstance(value, str):
        match = BYTES.fullmatch(_text(value, name).lower())
        if not match or match[2] not in BYTE_UNITS:
            raise CalcError(f"{name} must be a number of bytes such as 10e9, '10 GB' or '9.31 GiB', "
                            f"got {shown(value)}", name)
        number = float(match[1].replace(",", "").replace("_", "")) * BYTE_UNITS[match[2]]
        if not math.isfinite(number):
            raise CalcError(f"{name} {shown(value)} is not a finite number of bytes", name)
        value = round(number) if match[2] else number
    return parse_int(value, name)


def parse_int(value: Any, name: str) -> int:
    if isinstance(value, str):
        text = _text(value, name).replace(",", "").replace("_", "")
        try:
            value = float(text) if re.search(r"[.eE]", text) else int(text)
        except ValueError:
            raise CalcError(f"{name} must be a whole number, got {shown(value)}", name) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CalcError(f"{name} must be a whole number, got {shown(value)}", name)
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value) or not value.is_integer()):
        raise CalcError(f"{name} must be a whole number, got {shown(value)}", name)
    return int(value)


def parse_float(value: Any, name: str) -> float:
    if isinstance(value, str):
        text = _text(value, name)
        try:
            value = float(text)
        except ValueError:
            raise CalcError(f"{name} must be a number, got {shown(value)}", name) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise CalcError(f"{name} must be a number, got {shown(value)}", name)
    return float(value)


def parse_bool(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("1", "true", "yes", "on"):
        return True
    if isinstance(value, str) and value.lower() in ("0", "false", "no", "off", ""):
        return False
    raise CalcError(f"{name} must be true or false, got {shown(value)}", name)


def _check_range(field: Field, value: int) -> None:
    if value < field.minimum:
        need = "positive" if field.minimum == 1 else f"at least {field.minimum}"
        raise CalcError(f"{field.name} must be {need}, got {value:,}", field.name)
    if value > MAX_INT:
        raise CalcError(f"{field.name} {value:,} is larger than 2**53; no real deployment has that", field.name)
    if value > field.maximum:
        raise CalcError(f"{field.name} must be at most {field.maximum:,}; no real deployment comes near it, "
                        f"got {value:,}", field.name)


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
        if name == "gpu_hour_price" and not 0 < number <= MAX_GPU_HOUR_PRICE:
            raise CalcError(f"gpu_hour_price must be in (0, {MAX_GPU_HOUR_PRICE:,}] dollars, got {number}", name)
        if name == "acceptance_rate" and not 0 <= number <= 1:
            raise CalcError(f"acceptance_rate must be in [0, 1], got {number}", name)
        return number
    if field.kind == "choice":
        if name == "block_size":
            number = parse_int(value, name)
            if number not in field.choices:
                raise CalcError(f"block_size must be one of {', '.join(map(str, field.choices))}, got {number}",
                                name)
            return number
        if value not in field.choices:
            raise CalcError(f"{name} {shown(value)} is not one of {', '.join(field.choices)}", name)
        return value
    if field.kind == "bool":
        return parse_bool(value, name)
    if field.kind == "object":
        if not isinstance(value, dict):
            raise CalcError(f"{name} must be a JSON object (a config.json), got {type(value).__name__}", name)
        check_config_size(value)
        return value
    if not isinstance(value, str) or not value.strip():
        raise CalcError(f"{name} must be a non-empty string, got {shown(value)}", name)
    if len(value) > MAX_TEXT_CHARS:
        raise CalcError(f"{name} is too long ({len(value):,} characters; at most {MAX_TEXT_CHARS})", name)
    return value.strip()


# A real config.json has a few hundred values, five levels deep at most, and short texts.
MAX_CONFIG_VALUES = 100_000
MAX_CONFIG_DEPTH = 20
MAX_CONFIG_TEXT = 10_000


def check_config_size(config: dict) -> None:
    """Refuse a config too big or too deep to be one: the calculator then reads it in bounded time.

    Its name (``_name_or_path``) is quoted in every derivation, so it is as short as a model id.
    """
    name = config.get("_name_or_path")
    if isinstance(name, str) and len(name) > MAX_TEXT_CHARS:
        raise CalcError(f"config._name_or_path is too long ({len(name):,} characters; at most {MAX_TEXT_CHARS})",
                        "config._name_or_path")
    level, depth, count = [config], 0, 0
    while level:
        depth += 1
        count += len(level)
        if depth > MAX_CONFIG_DEPTH or count > MAX_CONFIG_VALUES:
            raise CalcError(f"config is too large to be a config.json (at most {MAX_CONFIG_VALUES:,} values, "
                            f"{MAX_CONFIG_DEPTH} levels deep)", "config")
        children = []
        for item in level:
            if isinstance(item, str) and len(item) > MAX_CONFIG_TEXT:
                raise CalcError(f"config holds a text of {len(item):,} characters; a config.json's are at most "
                                f"{MAX_CONFIG_TEXT:,}", "config")
            if isinstance(item, dict):
                children.extend(item.keys())
                children.extend(item.values())
            elif isinstance(item, list):
                children.extend(item)
        level = children


def parse_inputs(data: dict[str, Any]) -> Inputs:
    """Validate a mapping of input names to values. Unknown names are refused, with a hint."""
    if not isinstance(data, dict):
        raise CalcError("the calculator's inputs must be a JSON object", None)
    values = {}
    for name, value in data.items():
        field = BY_NAME.get(name)
        if field is None:
            raise CalcError(f"unknown input {shown(name)}{_unknown_input_hint(name)}", str(name)[:100])
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
    # difflib compares every pair of characters: a long name gets the list, not a guess.
    hint = did_you_mean(name, FIELD_NAMES) if isinstance(name, str) and 0 < len(name.strip()) <= 100 else None
    return f" ({hint})" if hint else f"; inputs are {', '.join(FIELD_NAMES)}"
