"""A startup log as a calculator scenario: its model in the catalog, and its settings as inputs.

``match_catalog`` finds the log's model among the catalog ids; ``continue_inputs`` turns the
log into inputs ``calculate()`` accepts, so a reader can go on in the calculator from it.
"""

from __future__ import annotations

import re
from fractions import Fraction

from ..compute import calculate
from ..errors import CalcError, closest
from ..inputs import BLOCK_SIZES, parse_inputs
from ..model.catalog import model_ids
from .reading import Memory, Pool, Settings

# Words a quantized checkpoint appends to its base model's name (Qwen3-8B-FP8, ...-int4-mixed-AutoRound).
QUANT_WORDS = {"fp8", "fp4", "nvfp4", "mxfp4", "int4", "int8", "awq", "gptq", "w4a16", "w8a8", "w8a16", "w4a8",
               "bnb", "4bit", "8bit", "autoround", "mixed", "dynamic", "static", "quantized", "marlin"}
GPU_BUDGET = ("gpu_memory_utilization", "free_memory_bytes", "total_memory_bytes")


def match_catalog(name: str | None) -> tuple[str | None, str]:
    """(catalog id, how it was matched) for a log's model: an id, a folder, or a quantized checkpoint of one.

    The id is None when the model is not in the catalog; the text then says why.
    """
    if not name:
        return None, "the log does not name the model"
    text = name.strip().rstrip("/")
    cached = re.search(r"models--([\w.-]{1,100})--([\w.-]{1,200})", text)  # a Hugging Face cache folder
    if cached:
        text = f"{cached[1]}/{cached[2]}"
    ids = {model_id.lower(): model_id for model_id in model_ids()}
    if text.lower() in ids:
        return ids[text.lower()], "the log's model id"
    base = text.rsplit("/", 1)[-1].lower()
    by_base: dict[str, list[str]] = {}
    for model_id in model_ids():
        by_base.setdefault(model_id.rsplit("/", 1)[-1].lower(), []).append(model_id)
    if len(by_base.get(base, ())) == 1:
        return by_base[base][0], f"the model's name {base!r}"
    for catalog_base, found in by_base.items():
        suffix = base[len(catalog_base):] if base.startswith(catalog_base) else ""
        words = re.split(r"[-_.]", suffix[1:]) if suffix[:1] in ("-", "_") else []
        if len(found) == 1 and words and all(word in QUANT_WORDS for word in words):
            return found[0], (f"the model's name without its quantization suffix {suffix!r} (a quantized "
                              "checkpoint keeps its base model's KV layout)")
    near = ", ".join(closest(base, model_ids(), n=3, cutoff=0.0))
    return None, f"{name} is not in the calculator's catalog (closest: {near})"


def utilization_ceiling(total_gib: str, free_gib: str, version: str | None) -> float | None:
    """The largest gpu_memory_utilization vLLM starts with, from a refusal's rounded GiB figures."""
    # The ceiling depends on the GPU alone; the calculator needs a model and a pool, and any serve.
    inputs = {"total_memory_bytes": f"{total_gib} GiB", "free_memory_bytes": f"{free_gib} GiB",
              "kv_bytes_per_token": 1, "weights_bytes": 0}
    for extra in ({"vllm_version": version} if version else {}, {}):
        try:
            return calculate({**inputs, **extra}).get("gpu_memory_utilization_ceiling")
        except CalcError:
            continue
    return None


def continue_inputs(catalog_model: str | None, predicted_inputs: dict, settings: Settings, pool: Pool,
                    memory: Memory | None, memory_profile: dict[str, int],
                    implied: tuple[Fraction, Fraction] | None) -> tuple[dict, list[str]]:
    """The log's scenario as calculator inputs, each one accepted by ``calculate()`` with the others,
    and a note for each input left out. ``predicted_inputs`` are the inputs the prediction ran with."""
    data: dict = {}
    if catalog_model:
        data["model"] = catalog_model
        data.update({k: v for k, v in predicted_inputs.items()
                     if k in ("tensor_parallel_size", "kv_cache_dtype", "num_draft_layers", "block_size")})
    elif implied:
        data["kv_bytes_per_token"] = round(sum(implied) / 2)
    elif settings.block_size in BLOCK_SIZES:
        data["block_size"] = settings.block_size
    if settings.max_model_len:
        data["max_model_len"] = settings.max_model_len
    version = settings.version
    if version and version >= (0, 11):
        data["vllm_version"] = f"{version[0]}.{version[1]}"
    if memory and memory.exact:
        data["kv_cache_memory_bytes"] = memory.bytes
    elif pool.tokens:
        data["pool_tokens"] = pool.tokens
    elif memory:
        data["kv_cache_memory_bytes"] = memory.bytes
    for name in ("total_memory_bytes", "free_memory_bytes"):
        if memory_profile.get(name):
            data[name] = memory_profile[name]
    if settings.gpu_memory_utilization and "total_memory_bytes" in data:
        data["gpu_memory_utilization"] = settings.gpu_memory_utilization
    if settings.max_num_batched_tokens:
        data["max_num_batched_tokens"] = settings.max_num_batched_tokens
    for name in ("async_scheduling", "enable_prefix_caching"):
        if getattr(settings, name) is not None:
            data[name] = getattr(settings, name)
    return _accepted(data)


def _accepted(data: dict) -> tuple[dict, list[str]]:
    """Leave out the inputs the calculator refuses together, saying which and why."""
    notes: list[str] = []
    for _ in range(len(data) + 1):
        try:
            if {"model", "kv_bytes_per_token"} & data.keys():
                calculate(data)
            else:
                parse_inputs(data)  # no model yet: check each input on its own
            return data, notes
        except CalcError as error:
            drop = [error.field] if error.field in data and error.field not in ("model", "kv_bytes_per_token") \
                else ["pool_tokens"] if error.field == "max_model_len" else list(GPU_BUDGET)
            drop = [key for key in drop if key in data]
            if not drop:
                notes.append(f"the calculator refuses the log's scenario: {error.message}")
                return data, notes
            notes.append(f"{', '.join(drop)} left out of the calculator's inputs: {error.message}")
            for key in drop:
                del data[key]
    return data, notes
