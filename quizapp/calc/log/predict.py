"""The calculator beside a startup log: the log's settings predicted from the model's config.

``predict`` runs the calculator on the log's settings and sets each figure beside the log's.
When they differ it tries the changes the calculator knows about (draft layers, the hybrid
manager, MLA stored uncompressed, another KV dtype, another vLLM release's formula) and
names the ones that account for the log.
"""

from __future__ import annotations

from fractions import Fraction
from math import ceil, floor
from typing import NamedTuple

from ..model.catalog import load_model
from ..compute import calculate
from ..errors import CalcError
from ..inputs import BLOCK_SIZES
from ..model.layout import KV_CACHE_DTYPES
from ..model.config import ModelConfig
from ..versions import CURRENT, KNOWN, parse_version
from .reading import Memory, Pool, Settings

GIB = 2**30
# KV dtypes vLLM accepts that the calculator sizes as another of the same width.
SAME_WIDTH_DTYPES = {"fp8_inc": "fp8"}
# Speculative methods whose draft layers share the target's KV pool, and how many there are.
ONE_LAYER_DRAFTS = {"eagle", "eagle3"}
MTP_DRAFTS = {"mtp", "deepseek_mtp", "qwen3_next_mtp", "ernie_mtp", "glm4_moe_mtp", "mimo_mtp"}
NO_KV_DRAFTS = {"ngram", "suffix"}


class Logged(NamedTuple):
    """What the log states that the calculator's figures are set beside."""

    settings: Settings
    pool: Pool
    memory: Memory | None
    refusals: list[dict]
    implied: tuple[Fraction, Fraction] | None


def predict(catalog_model: str | None, matched_by: str, settings: Settings, pool: Pool, memory: Memory | None,
            refusals: list[dict], implied: tuple[Fraction, Fraction] | None) -> dict | None:
    """The calculator's figures for the log's settings, each beside the log's; None for an unknown model."""
    if catalog_model is None:
        return None
    model = load_model(catalog_model)
    logged = Logged(settings, pool, memory, refusals, implied)
    notes: list[str] = []
    predicted = {"model": catalog_model, "matched_by": matched_by}
    try:
        inputs = _base_inputs(catalog_model, settings, model, notes)
        predicted["inputs"] = inputs
        compared = _compare(logged, inputs)
    except CalcError as error:
        return {**predicted, "error": error.message, "field": error.field, "notes": notes}
    comparisons = compared.pop("comparisons")
    agrees = all(c["agrees"] for c in comparisons) if comparisons else None
    explanations = _explanations(logged, inputs, model, compared) if agrees is False else []
    if agrees is False and not explanations:
        notes.append("the calculator does not know why the log differs: a vLLM change it does not model, or "
                     "settings the log does not show")
    return {**predicted, **compared, "comparisons": comparisons, "agrees": agrees, "explanations": explanations,
            "notes": notes}


def _base_inputs(catalog_model: str, settings: Settings, model: ModelConfig, notes: list[str]) -> dict:
    inputs: dict = {"model": catalog_model}
    if settings.tensor_parallel_size:
        inputs["tensor_parallel_size"] = settings.tensor_parallel_size
    if settings.pipeline_parallel_size and settings.pipeline_parallel_size > 1:
        notes.append(f"pipeline_parallel_size {settings.pipeline_parallel_size}: each stage caches only its own "
                     "layers, which the calculator does not split; its figures are for all layers on one rank")
    kv = SAME_WIDTH_DTYPES.get(settings.kv_cache_dtype, settings.kv_cache_dtype)
    if kv and kv != "auto":
        if kv not in KV_CACHE_DTYPES:
            raise CalcError(f"the calculator does not size kv_cache_dtype {kv!r} (it sizes "
                            f"{', '.join(KV_CACHE_DTYPES)})", "kv_cache_dtype")
        inputs["kv_cache_dtype"] = kv
    if settings.block_size in BLOCK_SIZES and not model.linear:
        inputs["block_size"] = settings.block_size  # a hybrid mamba model's raised block is derived, not given
    if settings.max_model_len:
        inputs["max_model_len"] = settings.max_model_len
    else:
        notes.append("max_model_len not stated: the calculator uses the model's max_position_embeddings, as vLLM does")
    version = settings.version
    if version and version < (0, 11):
        inputs["vllm_version"] = KNOWN[0]
        notes.append(f"vLLM {settings.vllm_version} predates the V1 engine; predicted with {KNOWN[0]}'s rules, which "
                     "count bytes per token and blocks the same way (V0 divides tokens by max_model_len for the "
                     "concurrency, so that figure is not compared)")
    elif version and version > parse_version(CURRENT):
        notes.append(f"vLLM {settings.vllm_version} is newer than the releases the calculator knows; predicted with "
                     f"{CURRENT}'s rules")
    elif version:
        inputs["vllm_version"] = f"{version[0]}.{version[1]}"
    drafts = _draft_layers(settings, model, notes)
    if drafts:
        inputs["num_draft_layers"] = drafts
    if settings.max_num_batched_tokens:
        inputs["max_num_batched_tokens"] = settings.max_num_batched_tokens
    for name in ("async_scheduling", "enable_prefix_caching"):
        if getattr(settings, name) is not None:
            inputs[name] = getattr(settings, name)
    return inputs


def _draft_layers(settings: Settings, model: ModelConfig, notes: list[str]) -> int:
    method = ((settings.speculative or {}).get("method") or "").lower()
    if not method or method in NO_KV_DRAFTS:
        return 0
    if method in ONE_LAYER_DRAFTS:
        return 1
    if method in MTP_DRAFTS:
        return int(model.get("num_nextn_predict_layers") or 1)
    notes.append(f"speculative method {method!r}: a separate draft model's layers are not counted")
    return 0


def _compare(logged: Logged, inputs: dict) -> dict:
    """Run the calculator on the inputs and set each figure the log states beside its prediction."""
    plain = calculate(inputs)
    values = {"kv_bytes_per_token": plain["kv_bytes_per_token"],
              "kv_bytes_per_token_text": plain.values["kv_bytes_per_token"].text,
              "kv_bytes_per_token_derivation": plain.values["kv_bytes_per_token"].derivation,
              "kv_dtype_bytes": plain.get("kv_dtype_bytes"), "attention": plain.layout_summary()["attention"],
              "one_kv_cache_group": plain.plan.is_uniform, "not_compared": []}
    comparisons: list[dict] = []
    pipeline = logged.settings.pipeline_parallel_size
    if pipeline and pipeline > 1:
        return {**values, "comparisons": comparisons}
    implied = logged.implied
    if implied and plain.plan.is_uniform:
        low, high = ceil(implied[0]), floor(implied[1])
        per_token = plain["kv_bytes_per_token"]
        comparisons.append({"value": "kv_bytes_per_token", "logged": {"low": low, "high": high},
                            "predicted": per_token, "agrees": low <= per_token <= high})
    for compare in (_pool_from_memory, _concurrency_from_pool, _needed_for_one_request):
        try:
            comparisons += compare(logged, inputs, values)
        except CalcError as error:
            values["not_compared"].append(error.message)
    return {**values, "comparisons": comparisons}


def _pool_from_memory(logged: Logged, inputs: dict, values: dict) -> list[dict]:
    """The pool the logged memory gives, at both ends of its rounding."""
    memory, tokens = logged.memory, logged.pool.tokens
    if not memory:
        return []
    ends = [calculate({**inputs, "kv_cache_memory_bytes": max(1, bound)})
            for bound in (ceil(memory.low), floor(memory.high))]
    if ends[0].get("pool_tokens") is None:
        return []
    values["pool_tokens"] = {"low": ends[0]["pool_tokens"], "high": ends[1]["pool_tokens"]}
    if tokens is None:
        return []
    return [{"value": "pool_tokens", "logged": tokens, "predicted": values["pool_tokens"],
             "agrees": ends[0]["pool_tokens"] <= tokens <= ends[1]["pool_tokens"]}]


def _concurrency_from_pool(logged: Logged, inputs: dict, values: dict) -> list[dict]:
    """The concurrency and log line the logged pool gives (V0 divides differently: not compared)."""
    pool, settings = logged.pool, logged.settings
    if not (pool.tokens and settings.max_model_len):
        return []
    result = calculate({**inputs, "pool_tokens": pool.tokens})
    values["kv_cache_memory_bytes"] = result["kv_cache_memory_bytes"]
    values["max_concurrency_text"] = result.values["max_concurrency"].text
    values["log_line"] = result["log_line"]
    if not pool.max_concurrency_text or settings.before_v1:
        return []
    return [{"value": "max_concurrency", "logged": pool.max_concurrency_text,
             "predicted": values["max_concurrency_text"],
             "agrees": values["max_concurrency_text"] == pool.max_concurrency_text}]


def _needed_for_one_request(logged: Logged, inputs: dict, values: dict) -> list[dict]:
    """vLLM's "X GiB KV cache is needed" for one request of max_model_len, as the calculator counts it."""
    found = []
    for refusal in logged.refusals:
        if refusal["kind"] != "one_request_fits":
            continue
        result = calculate({**inputs, "max_model_len": refusal["max_model_len"],
                            "kv_cache_memory_bytes": refusal["available"]})
        check = next(c for c in result.checks if c["check"] == "one_request_fits")
        predicted = round(check["needed_bytes"] / GIB, 2)  # vLLM's format_gib
        found.append({"value": "needed_kv_cache_memory", "logged": refusal["needed_text"],
                      "predicted": f"{predicted} GiB", "agrees": predicted == float(refusal["needed_text"].split()[0])})
    return found


def _explanations(logged: Logged, inputs: dict, model: ModelConfig, base: dict) -> list[str]:
    found, versions = [], []
    for why, changed in _alternatives(logged.settings, inputs, model, base):
        try:
            comparisons = _compare(logged, changed)["comparisons"]
        except CalcError:
            continue
        if comparisons and all(c["agrees"] for c in comparisons):
            if why is None:
                versions.append(changed["vllm_version"])
            else:
                found.append(why)
    if versions:
        span = versions[0] if len(versions) == 1 else f"{versions[0]} to {versions[-1]}"
        found.append(f"the log matches the formula of vLLM {span} (the log does not state its version; the "
                     f"prediction follows vLLM {CURRENT})")
    return found


def _alternatives(settings: Settings, inputs: dict, model: ModelConfig, base: dict):
    """(why, changed inputs) for each change the calculator can make; why is None for a version."""
    if not inputs.get("num_draft_layers"):
        for layers in (1, 2, 3):
            yield (f"speculative decoding with {layers} draft layer{'s' if layers > 1 else ''} (EAGLE/MTP) sharing "
                   "the pool: every block also holds the draft layers' KV", {**inputs, "num_draft_layers": layers})
    if not settings.kv_cache_dtype or settings.kv_cache_dtype == "auto":
        yield ("the KV cache in fp8 (one byte per value), though the log does not say so",
               {**inputs, "kv_cache_dtype": "fp8"})
    elif "kv_cache_dtype" in inputs:
        yield (f"the KV cache in the model's dtype, not {settings.kv_cache_dtype}",
               {k: v for k, v in inputs.items() if k != "kv_cache_dtype"})
    if settings.async_scheduling is None and not base["one_kv_cache_group"]:
        yield ("async scheduling off (--no-async-scheduling, or a setting that turns it off, such as pipeline "
               "parallelism): one batch in flight, so a sliding window reserves fewer blocks",
               {**inputs, "async_scheduling": False})
    if settings.enable_prefix_caching is None and model.linear_kind:
        yield ("prefix caching off (--no-enable-prefix-caching): one mamba state block per request, not 2",
               {**inputs, "enable_prefix_caching": False})
    if not base["one_kv_cache_group"]:
        yield ("the hybrid KV cache manager off (--disable-hybrid-kv-cache-manager, or a KV connector): every "
               "layer stores every token", {**inputs, "disable_hybrid_kv_cache_manager": True})
    if model.is_mla:
        for block_size in (64, 128):
            if not settings.block_size:
                yield (f"the MLA backend's {block_size}-token blocks (FlashMLA uses 64, CUTLASS MLA 128)",
                       {**inputs, "block_size": block_size})
        yield from _mla_uncompressed(inputs, model, base)
    if not settings.tensor_parallel_size:
        for tp in (2, 4, 8):
            yield f"tensor_parallel_size {tp} (the log does not state it)", {**inputs, "tensor_parallel_size": tp}
    if settings.version is None:
        for version in KNOWN:
            if version != inputs.get("vllm_version", CURRENT):
                yield None, {**inputs, "vllm_version": version}


def _mla_uncompressed(inputs: dict, model: ModelConfig, base: dict):
    """MLA switched off (VLLM_MLA_DISABLE=1): every head's K and V cached in full (docs/research §1.4)."""
    nope, rope = model.get("qk_nope_head_dim"), model.qk_rope_head_dim
    if not (isinstance(nope, int) and rope and base.get("kv_dtype_bytes")):
        return
    tp = inputs.get("tensor_parallel_size", 1)
    heads = max(1, model.num_attention_heads // tp)
    per_token = model.num_layers * 2 * heads * (nope + rope) * base["kv_dtype_bytes"]
    changed = {k: v for k, v in inputs.items()
               if k not in ("model", "tensor_parallel_size", "kv_cache_dtype", "num_draft_layers")}
    yield (f"MLA stored uncompressed (VLLM_MLA_DISABLE=1): {model.num_layers} layers × 2 × {heads} heads × "
           f"{nope + rope} × {base['kv_dtype_bytes']} B = {per_token:,} B per token, not the compressed latent",
           {**changed, "kv_bytes_per_token": per_token})
