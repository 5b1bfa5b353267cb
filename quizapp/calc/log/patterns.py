"""What each line of a vLLM startup log states: one table of patterns, each with its reader.

Each kind of line is one entry of ``PATTERNS``: a name, a regular expression and a reader that
turns the match into facts (``{"pool_tokens": (24096, "GPU")}``). A new line format is one
more entry. ``recognise(message)`` applies the table to one line; a line may match several
entries (vLLM 0.28+ prints the pool and the concurrency on one line).

Every quantifier is bounded or ends its pattern, so matching takes time linear in the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import cached_property
from typing import Callable

INT = r"\d{1,15}"
COMMA_INT = r"\d{1,3}(?:,\d{3}){0,5}|\d{1,18}"
DEC = r"-?\d{1,9}(?:\.\d{1,8})?"


@dataclass(frozen=True)
class Gib:
    """A figure vLLM printed in GiB, with the precision it was rounded to."""

    text: str

    @cached_property  # read a few dozen times per log; Fraction's own parse of a string is slow
    def value(self) -> Fraction:
        return Fraction(Decimal(self.text))  # exact: a decimal figure is a fraction of a power of ten

    @property
    def bytes(self) -> int:
        """The figure in bytes, rounded half to even as ``round(value * 2**30)``, in integers: the
        Fraction arithmetic took a tenth of reading a short log."""
        whole, _, fraction = self.text.partition(".")
        scale = 10 ** len(fraction)
        quotient, remainder = divmod(int(whole + fraction) * 2**30, scale)
        twice = 2 * remainder
        return quotient + (twice > scale or (twice == scale and quotient % 2 == 1))

    @property
    def decimals(self) -> int:
        # vLLM's format_gib rounds to 2 decimals and prints the shortest float ("73.6"), so a
        # figure is never less precise than 2 decimals.
        return max(len(self.text.partition(".")[2]), 2)

    def bounds(self) -> tuple[Fraction, Fraction]:
        """The bytes the rounded figure can stand for (inclusive: round-half-even goes either way)."""
        half = Fraction(1, 2 * 10**self.decimals)
        return (self.value - half) * 2**30, (self.value + half) * 2**30


def _gib(text: str) -> Gib:
    return Gib(text)  # DEC admits only well-formed decimals


def _int(text: str) -> int:
    return int(text.replace(",", ""))


# -- "non-default args: {...}" and "Initializing a V1 LLM engine (v0.11.0) with config: ..." --------

ARG_KINDS = {
    "model": str, "max_model_len": int, "tensor_parallel_size": int, "pipeline_parallel_size": int,
    "kv_cache_dtype": str, "dtype": str, "block_size": int, "gpu_memory_utilization": float,
    "kv_cache_memory_bytes": int, "max_num_batched_tokens": int, "quantization": str,
    "async_scheduling": bool, "enable_prefix_caching": bool,
}
ARG_VALUE = re.compile(r"'(\w{1,40})': ('[^']{0,500}'|-?[\d.]{1,30}(?:e[+-]?\d{1,3})?|True|False|None)")
NESTED = re.compile(r"\{[^{}]{0,5000}\}")
SPEC_ARGS = re.compile(r"'speculative_config': (\{[^{}]{0,5000}\})")
CONFIG_VALUE = re.compile(r"\b(model|max_seq_len|tensor_parallel_size|pipeline_parallel_size|kv_cache_dtype|dtype|"
                          r"quantization)=('[^']{0,500}'|[^,\s)]{1,100})")
CONFIG_KINDS = {"model": str, "max_seq_len": int, "tensor_parallel_size": int, "pipeline_parallel_size": int,
                "kv_cache_dtype": str, "dtype": str, "quantization": str}
SPEC_CONFIG = re.compile(r"speculative_config=SpeculativeConfig\(([^()]{0,2000})\)")
SPEC_METHOD = re.compile(r"method'?[=:] ?'(\w{1,40})'")
SPEC_TOKENS = re.compile(r"num_spec(?:ulative)?_tokens'?[=:] ?(\d{1,4})")


def _typed(kind: type, raw: str):
    raw = raw.strip("'")
    if raw == "None":
        return None
    if kind is str:
        return raw
    if kind is bool:
        return {"True": True, "False": False}.get(raw)
    try:
        number = float(raw)
    except ValueError:  # ARG_VALUE admits "1.2.3" or "."
        return None
    if kind is int:
        return int(number) if number.is_integer() else None
    return number


def _pairs(found: list[tuple[str, str]], kinds: dict, prefix: str) -> dict:
    """The first value of each known key, typed; a value that does not parse is left out."""
    facts: dict = {}
    for key, raw in found:
        if key in kinds and f"{prefix}{key}" not in facts:
            value = _typed(kinds[key], raw)
            if value is not None:
                facts[f"{prefix}{key}"] = value
    return facts


def _speculative(text: str) -> dict:
    method, tokens = SPEC_METHOD.search(text), SPEC_TOKENS.search(text)
    return {"method": method[1] if method else None, "num_speculative_tokens": int(tokens[1]) if tokens else None}


def _read_args(m: re.Match) -> dict:
    """The flags as typed. Nested dicts (hf_overrides, compilation_config) are dropped first so their keys
    cannot pass for the top level's."""
    body = m[1][1:]
    spec = SPEC_ARGS.search(body)
    for _ in range(4):
        body = NESTED.sub("{}", body)
    facts = _pairs(ARG_VALUE.findall(body), ARG_KINDS, "arg_")
    if spec:
        facts["speculative"] = _speculative(spec[1])
    return facts


def _read_engine(m: re.Match) -> dict:
    """The engine's resolved config."""
    facts = _pairs(CONFIG_VALUE.findall(m[2]), CONFIG_KINDS, "config_")
    if "config_dtype" in facts:
        facts["config_dtype"] = facts["config_dtype"].removeprefix("torch.")
    if m[1]:
        facts["vllm_version"] = m[1]
    spec = SPEC_CONFIG.search(m[2])
    if spec:
        facts["speculative"] = _speculative(spec[1])
    return facts


# -- memory and the pool ----------------------------------------------------------------------

def _one(name: str, convert: Callable = str, group: int = 1) -> Callable[[re.Match], dict]:
    return lambda m: {name: convert(m[group])}


def _profile_v1(m: re.Match) -> dict:
    return {"profile": {"non_kv": _gib(m[1]), "torch_peak": _gib(m[2]), "non_torch": _gib(m[3]),
                        "weights": _gib(m[4])}}


def _split_v0(m: re.Match) -> dict:
    return {"profile": {"weights": _gib(m[1]), "non_torch": _gib(m[2]), "torch_peak": _gib(m[3])},
            "kv_memory_v0": _gib(m[4])}


PROFILE_PAIR = re.compile(r"(\w{1,40})=(-?\d{1,9}(?:\.\d{1,8})?)")


def _results_v0(m: re.Match) -> dict:
    pairs = dict(PROFILE_PAIR.findall(m[1]))
    names = {"kv_cache_size": "kv_memory_v0", "total_gpu_memory": "total_memory"}
    facts = {fact: _gib(pairs[key]) for key, fact in names.items() if key in pairs}
    if "gpu_memory_utilization" in pairs:
        facts["arg_gpu_memory_utilization"] = float(pairs["gpu_memory_utilization"])
    return facts


def _device_memory(m: re.Match) -> dict:
    return {"free_memory": _gib(m[1]), "total_memory": _gib(m[2]), "arg_gpu_memory_utilization": float(m[3]),
            "requested_memory": _gib(m[4])}


def _words(m: re.Match) -> str:
    """vLLM's own words for a refusal: the message from where the match starts."""
    return m.string[m.start():m.start() + 1000]


def _refusal_free(m: re.Match) -> dict:
    facts = _device_memory(m)
    return {**facts, "refusal": {"kind": "free_memory", "message": _words(m), "free": facts["free_memory"],
                                 "total": facts["total_memory"],
                                 "gpu_memory_utilization": facts["arg_gpu_memory_utilization"],
                                 "requested": facts["requested_memory"]}}


ESTIMATE = re.compile(r"estimated maximum model length is (-?\d{1,12})")


def _refusal_one_request(m: re.Match) -> dict:
    estimate = ESTIMATE.search(m.string)
    return {"refusal": {"kind": "one_request_fits", "message": _words(m), "max_model_len": int(m[1]),
                        "needed": _gib(m[2]), "available": _gib(m[3]),
                        "estimated_max_model_len": int(estimate[1]) if estimate else None},
            "refused_max_model_len": int(m[1])}


def _refusal_max_seq_len(m: re.Match) -> dict:
    return {"refusal": {"kind": "max_seq_len", "message": _words(m), "max_model_len": int(m[1]),
                        "pool_tokens": int(m[2])},
            "refused_max_model_len": int(m[1]), "v0_pool_tokens": int(m[2])}


@dataclass(frozen=True)
class LinePattern:
    name: str
    regex: re.Pattern
    read: Callable[[re.Match], dict]
    starts_run: bool = False  # vLLM prints it once, as a run starts
    needle: str = ""  # text every line it matches holds: a line without it is not searched


def _p(name: str, pattern: str, read: Callable[[re.Match], dict], starts_run: bool = False) -> LinePattern:
    return LinePattern(name, re.compile(pattern), read, starts_run, NEEDLES[name])


# The text each pattern's matches hold, so most lines skip most regular expressions.
NEEDLES = {
    "api_server_version": "vLLM API server version",
    "banner_version": "█",
    "banner_model": "█",
    "non_default_args": "non-default args: {",
    "engine_config": "LLM engine",
    "load_model": "Starting to load model ",
    "architecture": "Resolved architecture: ",
    "max_model_len": "Using max model len ",
    "chunked_prefill": "Chunked prefill is enabled with max_num_batched_tokens=",
    "downcast": "Downcasting torch.",
    "block_size_forced": "Forcing kv cache block size to ",
    "block_size_hybrid": "Setting attention block size to ",
    "model_loading": " took ",
    "available_kv": "Available KV cache memory: ",
    "kv_pinned": " memory for KV Cache as specified by kv_cache_memory_bytes",
    "profile_v1": "Total non KV cache memory: ",
    "budget_v0": "can use total_gpu_memory (",
    "split_v0": "model weights take ",
    "results_v0": "Memory profiling results: ",
    "device_memory": "Free memory on device ",
    "kv_in_use_bytes": "Current kv cache memory in use is ",
    "kv_in_use": "Current kv cache memory in use is ",
    "refusal_free_memory": "Free memory on device ",
    "refusal_one_request": "To serve at least one request with the model",
    "refusal_max_seq_len": "The model's max seq len (",
    "refusal_no_memory": "No available memory for the cache blocks",
    "gpu_blocks": " blocks: ",
    "pool_tokens": " KV cache size: ",
    "max_concurrency": "Maximum concurrency for ",
}


PATTERNS = (
    _p("api_server_version", r"vLLM API server version (\S{1,80})", _one("vllm_version"), starts_run=True),
    _p("banner_version", r"█\s{1,20}version\s{1,20}(\d\S{0,80})", _one("vllm_version"), starts_run=True),
    _p("banner_model", r"█\s{1,20}model\s{1,20}(\S{1,500})", _one("banner_model")),
    _p("non_default_args", r"non-default args: (\{.*)", _read_args, starts_run=True),
    _p("engine_config", r"Initializing an? (?:V1 )?LLM engine (?:\(v?([^()\s]{1,80})\) )?with config: (.*)",
       _read_engine, starts_run=True),
    _p("load_model", r"Starting to load model (\S{1,500})", lambda m: {"loaded_model": m[1].removesuffix("...")}),
    _p("architecture", r"Resolved architecture: (\w{1,100})", _one("architecture")),
    _p("max_model_len", rf"Using max model len ({INT})", _one("resolved_max_model_len", int)),
    _p("chunked_prefill", rf"Chunked prefill is enabled with max_num_batched_tokens=({INT})",
       _one("arg_max_num_batched_tokens", int)),
    _p("downcast", r"Downcasting torch\.(\w{1,20}) to torch\.(\w{1,20})", _one("config_dtype", group=2)),
    _p("block_size_forced", rf"Forcing kv cache block size to ({INT})", _one("forced_block_size", int)),
    _p("block_size_hybrid", rf"Setting attention block size to ({INT}) tokens", _one("forced_block_size", int)),
    # Releases that print "GB" here divide by 2**30 all the same.
    _p("model_loading", rf"(?:Model loading|Loading model weights) took ({DEC}) ?Gi?B", _one("weights", _gib)),
    _p("available_kv", rf"Available KV cache memory: ({DEC}) ?GiB", _one("kv_memory_available", _gib)),
    _p("kv_pinned", rf"reserved ({DEC}) GiB memory for KV Cache as specified by kv_cache_memory_bytes",
       _one("kv_memory_reserved", _gib)),
    _p("profile_v1", rf"Total non KV cache memory: ({DEC}) ?GiB; torch peak memory increase: ({DEC}) ?GiB; "
                     rf"non-torch forward increase memory: ({DEC}) ?GiB; weights memory: ({DEC}) ?GiB", _profile_v1),
    _p("budget_v0", rf"can use total_gpu_memory \(({DEC}) ?GiB\) x gpu_memory_utilization \(({DEC})\) = ({DEC}) ?GiB",
       lambda m: {"total_memory": _gib(m[1]), "arg_gpu_memory_utilization": float(m[2]),
                  "requested_memory": _gib(m[3])}),
    _p("split_v0", rf"model weights take ({DEC}) ?GiB; non_torch_memory takes ({DEC}) ?GiB; PyTorch activation peak "
                   rf"memory takes ({DEC}) ?GiB; the rest of the memory reserved for KV Cache is ({DEC}) ?GiB",
       _split_v0),
    _p("results_v0", r"Memory profiling results: (.*)", _results_v0),
    _p("device_memory", rf"Free memory on device (?:\S{{1,40}} )?\(({DEC})/({DEC}) GiB\) on startup\. Desired GPU "
                        rf"memory utilization is \(({DEC}), ({DEC}) GiB\)", _device_memory),
    _p("kv_in_use_bytes", r"Current kv cache memory in use is (\d{1,16}) bytes", _one("kv_memory_exact", int)),
    _p("kv_in_use", rf"Current kv cache memory in use is ({DEC}) ?GiB", _one("kv_memory_in_use", _gib)),
    _p("refusal_free_memory", rf"Free memory on device (?:\S{{1,40}} )?\(({DEC})/({DEC}) GiB\) on startup is less "
                              rf"than desired GPU memory utilization \(({DEC}), ({DEC}) GiB\)", _refusal_free),
    _p("refusal_one_request", rf"To serve at least one request with the models?'s max seq len \(({INT})\), "
                              rf"\(?({DEC}) GiB KV cache is needed, which is larger than the available KV cache "
                              rf"memory \(({DEC}) GiB\)", _refusal_one_request),
    _p("refusal_max_seq_len", rf"The model's max seq len \(({INT})\) is larger than the maximum number of tokens that "
                              rf"can be stored in KV cache \(({INT})\)", _refusal_max_seq_len),
    _p("refusal_no_memory", r"No available memory for the cache blocks",
       lambda m: {"refusal": {"kind": "no_memory", "message": _words(m)}}),
    _p("gpu_blocks", rf"(?<!\w)(?:GPU|cuda|CUDA|XPU|NPU|HPU|ROCm) blocks: ({INT})", _one("num_gpu_blocks", int)),
    _p("pool_tokens", rf"([A-Za-z]{{1,12}}) KV cache size: ({COMMA_INT}) tokens",
       lambda m: {"pool_tokens": (_int(m[2]), m[1])}),
    _p("max_concurrency", rf"Maximum concurrency for ({COMMA_INT}) tokens per request: (\d{{1,9}}\.\d{{1,4}})x",
       lambda m: {"max_concurrency": (_int(m[1]), f"{m[2]}x")}),
)
RESULTS = ("pool_tokens", "num_gpu_blocks", "refusal")  # facts that end a run

# Lines vLLM prints at start that state nothing this reader uses: recognised (a log of them is
# a vLLM log) and so not listed as unrecognised.
KNOWN_PHRASES = (
    "Automatically detected platform", "Loading weights took", "Loading safetensors checkpoint shards",
    "Loading pt checkpoint shards", "Graph capturing finished", "Capturing CUDA graphs", "Capturing cudagraphs",
    "init engine (profile, create kv", "Waiting for init message from front-end", "Application startup complete",
    "Starting vLLM API server", "Supported tasks", "Memory profiling takes", "Free memory after profiling",
    "CUDA graph pool memory", "Estimated CUDA graph memory", "torch.compile takes", "Using cache directory",
    "Dynamo bytecode transform time", "Compiling a graph for", "Cache the graph of shape", "attention backend",
    "This model supports multiple tasks", "Defaulting to use mp for distributed inference",
    "Padding mamba page size by", "Disabling cascade attention", "Asynchronous scheduling is", "Available routes are",
    "Route: ", "Started server process", "Waiting for application startup", "Uvicorn running on", "world_size=",
    "Initial free memory", "Overriding num_gpu_blocks", "Using fp8 data type to store kv cache", "Engine 000:",
    "Traceback (most recent call last)", "EngineCore failed to start",
)
BANNER = re.compile(r"[\s█▄▀]{1,200}")
TRACEBACK_FRAME = re.compile(r"(?:File \"|\^{1,200}$|raise |return )")


# (needle, pattern) in PATTERNS' order: a line is tested against every needle.
NEEDLES = tuple((pattern.needle, pattern) for pattern in PATTERNS)


def recognise(message: str) -> tuple[list[str], dict]:
    """The names of the patterns a message matches, and the facts they read from it."""
    names, facts = [], {}
    for needle, pattern in NEEDLES:
        if needle not in message:
            continue
        match = pattern.regex.search(message)
        if not match:
            continue
        # Each pattern admits only numbers its reader converts, so a reader does not fail on a match.
        found = pattern.read(match)
        if found:
            names.append(pattern.name)
            for key, value in found.items():
                facts.setdefault(key, value)
    return names, facts


def known(message: str) -> bool:
    """A line vLLM prints that states nothing this reader uses."""
    return ("█" in message and bool(BANNER.fullmatch(message))) or any(p in message for p in KNOWN_PHRASES) \
        or bool(TRACEBACK_FRAME.match(message))
