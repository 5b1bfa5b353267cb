"""The calculator: a scenario in, every derived value out, each with its arithmetic.

``calculate(data)`` is the one entry point the CLI, the JSON API and the cards call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import ceil
from typing import Any

from . import fmt
from .blocks import (
    BlockPlan,
    blocks_for_logged_tokens,
    blocks_per_request,
    blocks_per_request_text,
    choose_block_size,
    estimate_max_model_len,
    logged_pool_tokens,
    max_concurrency,
    plan_blocks,
)
from .catalog import canonical_model_id, describe_attention, load_gpu, load_model
from .errors import CalcError
from .inputs import Inputs, parse_inputs
from .layout import Layout, build_layout, uniform_layout
from .maxlen import default_max_model_len
from .modelconfig import ModelConfig, parse_config
from .versions import VllmRules, check_served, rules_for
from .weights import count_parameters, weights_bytes


@dataclass(frozen=True)
class Quantity:
    """A derived value: the number, its unit, how it reads, and the arithmetic behind it."""

    value: Any
    unit: str
    text: str
    derivation: str


@dataclass
class Result:
    inputs: Inputs
    model: ModelConfig | None
    layout: Layout
    plan: BlockPlan
    rules: VllmRules
    values: dict[str, Quantity] = field(default_factory=dict)
    checks: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def __getitem__(self, name: str) -> Any:
        return self.values[name].value

    def get(self, name: str, default=None) -> Any:
        quantity = self.values.get(name)
        return default if quantity is None else quantity.value

    def add(self, name: str, value, unit: str, text: str, derivation: str) -> None:
        self.values[name] = Quantity(value, unit, text, derivation)

    def to_json(self) -> dict:
        data: dict[str, Any] = {name: None for name in ALWAYS_PRESENT}
        data.update({name: q.value for name, q in self.values.items()})
        data["max_concurrency_text"] = self.values["max_concurrency"].text if "max_concurrency" in self.values else None
        data["texts"] = {name: q.text for name, q in self.values.items()}
        data["units"] = {name: q.unit for name, q in self.values.items()}
        data["derivations"] = {name: q.derivation for name, q in self.values.items()}
        data["inputs"] = {k: v for k, v in self.inputs.given().items() if k != "config"}
        data["layout"] = self.layout_summary()
        data["vllm_version"] = self.rules.version
        data["checks"] = self.checks
        data["notes"] = self.notes
        return data

    def layout_summary(self) -> dict:
        return {
            "model": self.layout.model,
            "attention": describe_attention(self.model) if self.model else "measured bytes per token",
            "kv_dtype": self.layout.kv_dtype,
            "kv_heads_per_rank": self.layout.kv_heads_per_rank,
            "head_size": self.layout.head_size,
            "groups": self.plan.describe(),
            "group_size": self.plan.group_size,
            "block_size": self.plan.block_size,
            "bytes_per_block": self.plan.bytes_per_block,
        }


# Every value the calculator can derive, with what it means. Cards may use any of these
# names; AUTHORING.md documents each one (a test holds the two together).
VALUES = {
    "num_layers": "attention layers of the model (without draft layers)",
    "num_kv_heads": "KV heads in the config (num_key_value_heads)",
    "kv_heads_per_rank": "KV heads each tensor-parallel rank keeps (divided, or replicated when fewer than TP)",
    "head_size": "head size of one KV head (MLA: kv_lora_rank + qk_rope_head_dim)",
    "kv_dtype": "the KV cache dtype after 'auto' is resolved, e.g. bfloat16",
    "kv_dtype_bytes": "bytes per cached value in that dtype",
    "kv_bytes_per_token": "KV bytes per token per rank, as the pool charges it",
    "kv_bytes_per_token_all_layers": "bytes per token if every layer kept every token (hybrid models)",
    "state_bytes_per_request": "linear-attention (mamba) state per request, whatever its length",
    "bytes_per_block": "bytes of one block id across the layers of a group",
    "block_size": "tokens per block, when vLLM raises it for a hybrid model",
    "max_model_len": "the model's max_position_embeddings, when max_model_len is not given",
    "max_num_batched_tokens": "tokens per scheduler step (sliding-window models)",
    "in_flight_tokens": "tokens a sliding window keeps beyond its size (batches in flight × batched tokens)",
    "total_memory_bytes": "the GPU's total memory",
    "gpu_memory_utilization": "the fraction of the GPU vLLM may use",
    "requested_memory_bytes": "total × gpu_memory_utilization, as vLLM requests it",
    "gpu_memory_utilization_ceiling": "the largest gpu_memory_utilization that starts with the given free memory",
    "weights_bytes": "weights per GPU, counted from the config",
    "memory_over_weights": "GPU memory ÷ weights: the answer of the 'divide memory by model size' mistake",
    "num_parameters": "parameters counted from the config",
    "num_blocks": "KV blocks in the pool",
    "kv_cache_memory_bytes": "KV pool in bytes",
    "pool_tokens": "the pool as vLLM logs it: 'GPU KV cache size: N tokens'",
    "pool_tokens_plain": "pool bytes ÷ bytes per token, without whole blocks",
    "max_concurrency": "the 'Maximum concurrency' figure vLLM logs (a number; its text is '2.94x')",
    "log_line": "the startup log line(s) with the pool and the concurrency",
    "tokens_per_user": "prompt_tokens + output_tokens",
    "blocks_per_user": "blocks one user holds",
    "users_fit": "users of tokens_per_user that fit, in whole blocks, without the null block",
    "user_concurrency": "concurrency vLLM would log if max_model_len were tokens_per_user",
    "max_model_len_estimate": "the longest request the KV memory fits (vLLM's estimate)",
}

# Keys the JSON result always carries (null when the scenario does not determine them).
ALWAYS_PRESENT = ("kv_bytes_per_token", "num_blocks", "pool_tokens", "kv_cache_memory_bytes", "max_concurrency",
                  "tokens_per_user", "users_fit")


def calculate(data: dict[str, Any] | Inputs) -> Result:
    inputs = data if isinstance(data, Inputs) else parse_inputs(data)
    rules = rules_for(inputs.vllm_version)
    model = _model(inputs)
    if model is not None:
        check_served(model.architectures, rules)
        layout = build_layout(model, inputs.kv_cache_dtype, inputs.tensor_parallel_size, inputs.num_draft_layers)
    else:
        _refuse_model_only_inputs(inputs)
        layout = uniform_layout(inputs.kv_bytes_per_token)
    block_size, block_notes = choose_block_size(model, layout, inputs, rules)
    plan = plan_blocks(layout, block_size, rules, inputs.disable_hybrid_kv_cache_manager)
    result = Result(inputs, model, layout, plan, rules, notes=list(layout.notes) + block_notes + list(plan.notes))
    _layout_values(result)
    _kv_bytes(result)
    max_model_len = _max_model_len(result)
    in_flight = _in_flight(result)
    _memory_budget(result)
    _weights_ratio(result)
    _pool(result, max_model_len, in_flight)
    _users(result, max_model_len, in_flight)
    _start_checks(result, max_model_len, in_flight)
    return result


def _model(inputs: Inputs) -> ModelConfig | None:
    if inputs.model:
        canonical_model_id(inputs.model)
        return load_model(inputs.model)
    if inputs.config is not None:
        return parse_config(inputs.config, name=str(inputs.config.get("_name_or_path") or "config"))
    if inputs.kv_bytes_per_token is None:
        raise CalcError("give a model (catalog id), a config (config.json object) or kv_bytes_per_token", "model")
    return None


def _refuse_model_only_inputs(inputs: Inputs) -> None:
    for name in ("num_draft_layers", "disable_hybrid_kv_cache_manager"):
        if getattr(inputs, name):
            raise CalcError(f"{name} needs a model or config; a measured kv_bytes_per_token already includes it",
                            name)
    if inputs.kv_cache_dtype != "auto" or inputs.tensor_parallel_size != 1:
        name = "kv_cache_dtype" if inputs.kv_cache_dtype != "auto" else "tensor_parallel_size"
        raise CalcError(f"{name} changes the bytes per token, so it needs a model or config; a measured "
                        "kv_bytes_per_token is already per rank in its own dtype", name)


# The weights count reads many optional config fields; a malformed one must not stop the KV
# sizing, which does not need it.
WEIGHTS_ERRORS = (CalcError, ValueError, TypeError, KeyError, ZeroDivisionError, OverflowError, AttributeError)


def _reason(error: Exception) -> str:
    return error.message if isinstance(error, CalcError) else f"a config field has an unexpected value ({error})"


def _layout_values(result: Result) -> None:
    """The config facts a card quotes ("36 layers, 8 KV heads, a head size of 128")."""
    layout, model = result.layout, result.model
    if model is None:
        return
    source = f"from {model.config_source}"
    layers = len(layout.attention_layers) - layout.draft_layers
    result.add("num_layers", layers, "layers", str(layers), f"{layers} attention layers ({source})")
    result.add("num_kv_heads", model.num_kv_heads, "heads", str(model.num_kv_heads),
               f"num_key_value_heads {model.num_kv_heads} ({source}); {layout.kv_heads_per_rank} per rank")
    result.add("kv_heads_per_rank", layout.kv_heads_per_rank, "heads", str(layout.kv_heads_per_rank),
               f"{model.num_kv_heads} KV heads ÷ TP {layout.tensor_parallel_size}"
               f"{', at least 1 (replicated)' if model.num_kv_heads < layout.tensor_parallel_size else ''}"
               f" = {layout.kv_heads_per_rank}" if not model.is_mla else "MLA: one latent head on every rank")
    result.add("head_size", layout.head_size, "", str(layout.head_size),
               f"head size {layout.head_size} ({source})")
    result.add("kv_dtype", layout.kv_dtype, "", layout.kv_dtype, f"kv_cache_dtype {layout.kv_cache_dtype} → "
               f"{layout.kv_dtype}")
    result.add("kv_dtype_bytes", layout.kv_dtype_bytes, "B", f"{layout.kv_dtype_bytes} B",
               f"{layout.kv_dtype}: {layout.kv_dtype_bytes} byte(s) per value")
    try:
        params = count_parameters(model)
    except WEIGHTS_ERRORS as error:
        # A config may size the KV cache and still lack what the weights count needs.
        result.notes.append(f"parameters not counted: {_reason(error)}")
        return
    result.add("num_parameters", params.total, "parameters", f"{params.total / 1e9:.2f} B", params.derivation)


def _kv_bytes(result: Result) -> None:
    layout, plan, model = result.layout, result.plan, result.model
    per_token = plan.kv_bytes_per_token
    if model is None:
        derivation = f"{per_token:,} B per token per rank (given) = {fmt.kib(per_token)}"
    elif plan.is_uniform:
        layers = plan.group_size
        draft = f" ({layers - layout.draft_layers} + {layout.draft_layers} draft)" if layout.draft_layers else ""
        derivation = f"{layers} layers{draft} × {layout.derivation} = {per_token:,} B = {fmt.kib(per_token)}"
    else:
        one_layer = plan.page_bytes // plan.block_size
        derivation = (f"{plan.group_size} layers per block id × {one_layer:,} B per layer "
                      f"({layout.derivation}) = {per_token:,} B = {fmt.kib(per_token)}; "
                      f"groups: {plan.describe()}")
    result.add("kv_bytes_per_token", per_token, "B", fmt.kib(per_token), derivation)
    result.add("bytes_per_block", plan.bytes_per_block, "B", fmt.size(plan.bytes_per_block),
               f"{per_token:,} B per token × {plan.block_size} tokens per block = {plan.bytes_per_block:,} B")
    if model is not None and not plan.is_uniform:
        all_layers = layout.kv_bytes_all_layers
        result.add("kv_bytes_per_token_all_layers", all_layers, "B", fmt.kib(all_layers),
                   f"{len(layout.attention_layers)} attention layers × {layout.derivation} = {all_layers:,} B "
                   "(if every layer kept every token, as with the hybrid manager disabled)")
    mamba = [s for s in layout.layers if s.kind == "mamba"]
    if mamba:
        state = sum(s.state_bytes for s in mamba)
        result.add("state_bytes_per_request", state, "B", fmt.mib(state),
                   f"{len(mamba)} linear-attention layers × {mamba[0].state_bytes:,} B state = {state:,} B "
                   "per request, whatever its length")
        result.add("block_size", plan.block_size, "tokens", fmt.commas(plan.block_size),
                   f"raised so one attention page holds a mamba state: 16 × ⌈{mamba[0].state_bytes:,} ÷ "
                   f"(16 × {plan.page_bytes // plan.block_size:,})⌉ = {plan.block_size:,} "
                   f"(mamba page padded {plan.mamba_padding:.2%})")


def _max_model_len(result: Result) -> int | None:
    given = result.inputs.max_model_len
    model = result.model
    if given is not None:
        if model and model.max_position_embeddings and given > model.max_position_embeddings:
            result.notes.append(f"max_model_len {given:,} is longer than the model's max_position_embeddings "
                                f"{model.max_position_embeddings:,}: vLLM refuses it unless "
                                "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1")
        return given
    if model:
        length, derivation, notes = default_max_model_len(model, result.rules)
        result.notes.extend(notes)
        result.add("max_model_len", length, "tokens", fmt.commas(length), derivation)
        return length
    return None


def batched_tokens_default(total_memory: int | None, gpu_name: str = "") -> tuple[int, str]:
    """vLLM's max_num_batched_tokens default for `vllm serve` (engine/arg_utils.py get_batch_defaults)."""
    gib = (total_memory or 0) / fmt.GIB
    if gib >= 160:
        return 16384, f"{gib:.0f} GiB GPU (≥ 160 GiB): 16,384"
    if gib >= 70 and "a100" not in gpu_name.lower():
        return 8192, f"{gib:.0f} GiB GPU (≥ 70 GiB, not A100): 8,192 for the server"
    return 2048, "2,048 for the server on GPUs under 70 GiB (or an unknown GPU)"


def _in_flight(result: Result) -> int:
    inputs = result.inputs
    if inputs.max_num_batched_tokens is not None:
        batched, why = inputs.max_num_batched_tokens, "given"
    else:
        total, name = _gpu_total(inputs)
        batched, why = batched_tokens_default(total, name)
    in_flight = result.rules.in_flight_batches * batched
    if any(g.spec.kind == "sliding" for g in result.plan.groups):
        batches = result.rules.in_flight_batches
        result.add("max_num_batched_tokens", batched, "tokens", fmt.commas(batched),
                   f"max_num_batched_tokens {batched:,} ({why})")
        result.add("in_flight_tokens", in_flight, "tokens", fmt.commas(in_flight),
                   f"{batches} batch{'es' if batches > 1 else ''} in flight × {batched:,} tokens = {in_flight:,} "
                   f"(vLLM {result.rules.version})")
    return in_flight


def _gpu_total(inputs: Inputs) -> tuple[int | None, str]:
    gpu = load_gpu(inputs.gpu) if inputs.gpu else None
    if inputs.total_memory_bytes is not None:
        return inputs.total_memory_bytes, gpu["name"] if gpu else ""
    if gpu:
        return gpu["total_memory_bytes"], gpu["name"]
    return None, ""


def _memory_budget(result: Result) -> None:
    """The GPU's total, the requested share, vLLM's start refusal and the utilization ceiling."""
    inputs, rules = result.inputs, result.rules
    total, name = _gpu_total(inputs)
    if total is None:
        if inputs.gpu_memory_utilization is not None or inputs.free_memory_bytes is not None:
            raise CalcError("a GPU budget needs the GPU: give gpu (from the catalog) or total_memory_bytes", "gpu")
        return
    result.add("total_memory_bytes", total, "B", fmt.gib(total),
               f"{name or 'GPU'} total memory {total:,} B = {fmt.gib(total)}")
    util = inputs.gpu_memory_utilization
    if util is None:
        util = rules.default_gpu_memory_utilization
        util_why = f"default in vLLM {rules.version}"
    else:
        util_why = "given"
    requested = ceil(total * util) if rules.ceil_requested_memory else total * util
    result.add("gpu_memory_utilization", util, "", f"{util}", f"gpu_memory_utilization {util} ({util_why})")
    result.add("requested_memory_bytes", requested, "B", fmt.gib(requested),
               f"{'⌈' if rules.ceil_requested_memory else ''}{total:,} B × {util}"
               f"{'⌉' if rules.ceil_requested_memory else ''} = {requested:,} B = {fmt.gib(requested)}")
    free = inputs.free_memory_bytes
    if free is None:
        return
    if free > total:
        raise CalcError(f"free_memory_bytes {free:,} is more than the GPU's total memory {total:,}",
                        "free_memory_bytes")
    ceiling = _utilization_ceiling(total, free, rules)
    result.add("gpu_memory_utilization_ceiling", ceiling, "", f"{ceiling:.4f}",
               f"largest fraction f with {'⌈' if rules.ceil_requested_memory else ''}{fmt.gib(total)} × f"
               f"{'⌉' if rules.ceil_requested_memory else ''} ≤ {fmt.gib(free)} free: "
               f"{free:,} ÷ {total:,} = {free / total:.6f} → {ceiling:.4f}")
    ok = free >= requested
    message = None if ok else _refusal_text(free, total, util, requested, rules)
    result.checks.append({"check": "free_memory", "ok": ok, "message": message})


def _utilization_ceiling(total: int, free: int, rules: VllmRules) -> float:
    ceiling = int(free / total * 10_000) / 10_000
    while ceiling > 0:
        requested = ceil(total * ceiling) if rules.ceil_requested_memory else total * ceiling
        if requested <= free:
            return ceiling
        ceiling = round(ceiling - 0.0001, 4)
    return 0.0


def _format_gib(n: float) -> str:
    """vLLM's utils.mem_utils.format_gib: round(bytes / GiB, 2), printed as Python prints a float."""
    return f"{round(n / fmt.GIB, 2)}"


def _refusal_text(free: int, total: int, util: float, requested: float, rules: VllmRules) -> str:
    device = " cuda:0" if rules.device_in_refusal else ""
    return (f"Free memory on device{device} ({_format_gib(free)}/{_format_gib(total)} GiB) on startup is less "
            f"than desired GPU memory utilization ({util}, {_format_gib(requested)} GiB). Decrease GPU memory "
            "utilization or reduce GPU memory used by other processes.")


def _weights_ratio(result: Result) -> None:
    """GPU memory ÷ model size: the wrong answer "how many copies of the model fit" gives."""
    if result.model is None or "total_memory_bytes" not in result.values:
        return
    try:
        _weights(result)
    except WEIGHTS_ERRORS as error:
        result.notes.append(f"weights not counted: {_reason(error)}")
        return
    total, weights = result["total_memory_bytes"], result["weights_bytes"]
    ratio = total / weights
    result.add("memory_over_weights", ratio, "", f"{ratio:.2f}",
               f"{fmt.gib(total)} GPU memory ÷ {fmt.gib(weights)} of weights = {ratio:.2f} (not a user count: "
               "the users that fit depend on the KV pool)")


def _pool(result: Result, max_model_len: int | None, in_flight: int) -> None:
    inputs, plan, rules = result.inputs, result.plan, result.rules
    bpb = plan.bytes_per_block
    if inputs.pool_tokens is not None:
        if max_model_len is None and rules.tokens_from_concurrency:
            raise CalcError("a pool in tokens is read through max_model_len (vLLM logs int(concurrency × "
                            "max_model_len)): give max_model_len", "max_model_len")
        tokens = inputs.pool_tokens
        blocks = blocks_for_logged_tokens(tokens, plan, max_model_len or 1, in_flight, rules)
        if blocks == 0:
            raise CalcError(f"a pool of {tokens:,} tokens is less than one block of {plan.block_size} tokens",
                            "pool_tokens")
        memory = blocks * bpb
        result.add("num_blocks", blocks, "blocks", fmt.commas(blocks),
                   f"{_pool_tokens_to_blocks_text(tokens, blocks, plan, max_model_len, in_flight, rules)}")
        result.add("kv_cache_memory_bytes", memory, "B", fmt.gib(memory),
                   f"{blocks:,} blocks × {bpb:,} B per block = {memory:,} B = {fmt.gib(memory)} "
                   "(the least memory that gives these blocks)")
        result.add("pool_tokens", tokens, "tokens", fmt.commas(tokens),
                   f"GPU KV cache size: {tokens:,} tokens (given, as the startup log prints it)")
    else:
        memory, why = _pool_memory(result)
        if memory is None:
            return
        blocks = memory // bpb
        if blocks <= 0:
            raise CalcError(f"{fmt.gib(memory)} of KV memory is less than one block ({bpb:,} B)",
                            "kv_cache_memory_bytes")
        result.add("kv_cache_memory_bytes", memory, "B", fmt.gib(memory), why)
        result.add("num_blocks", blocks, "blocks", fmt.commas(blocks),
                   f"⌊{memory:,} B ÷ {bpb:,} B per block⌋ = {blocks:,} blocks")
        tokens = logged_pool_tokens(blocks, plan, max_model_len or 1, in_flight, rules) \
            if max_model_len or not rules.tokens_from_concurrency else blocks // len(plan.groups) * plan.block_size
        result.add("pool_tokens", tokens, "tokens", fmt.commas(tokens),
                   _pool_tokens_text(blocks, tokens, plan, max_model_len, in_flight, rules))
        plain = memory // plan.kv_bytes_per_token
        result.add("pool_tokens_plain", plain, "tokens", fmt.commas(plain),
                   f"⌊{memory:,} B ÷ {plan.kv_bytes_per_token:,} B per token⌋ = {plain:,} tokens by plain "
                   f"division (vLLM counts whole blocks: {tokens:,})")
    if max_model_len is not None:
        conc = max_concurrency(blocks, plan, max_model_len, in_flight)
        result.add("max_concurrency", conc, "x", fmt.conc(conc),
                   f"{blocks:,} blocks ÷ {blocks_per_request_text(plan, max_model_len, in_flight)} blocks per "
                   f"{max_model_len:,}-token request = {conc:.4f} → \"{fmt.conc(conc)}\"")
        result.add("log_line", _log_line(tokens, max_model_len, conc, rules), "", "",
                   f"the pool and concurrency lines as vLLM {rules.version} prints them")


def _pool_memory(result: Result) -> tuple[int | None, str]:
    inputs = result.inputs
    if inputs.kv_cache_memory_bytes is not None:
        memory = inputs.kv_cache_memory_bytes
        return memory, f"kv_cache_memory_bytes {memory:,} B = {fmt.gib(memory)} (pinned)"
    if "requested_memory_bytes" not in result.values:
        return None, ""
    requested = result["requested_memory_bytes"]
    weights, weights_why = _weights(result)
    other = inputs.non_kv_cache_memory_bytes
    memory = int(requested - weights - other)
    if memory <= 0:
        raise CalcError(
            f"{_no_memory_text(result.rules)} ({fmt.gib(requested)} requested − {fmt.gib(weights)} weights − "
            f"{fmt.gib(other)} other = {fmt.gib(memory)})", "gpu_memory_utilization")
    other_why = (f"{other:,} B non-KV memory (given)" if other else
                 "0 B non-KV memory (not given; vLLM measures activations and CUDA graphs at start)")
    return memory, (f"{int(requested):,} B requested − {weights:,} B weights ({weights_why}) − {other_why} "
                    f"= {memory:,} B = {fmt.gib(memory)}")


def _weights(result: Result) -> tuple[int, str]:
    inputs = result.inputs
    if inputs.weights_bytes is not None:
        return inputs.weights_bytes, "given"
    if "weights_bytes" in result.values:
        return result["weights_bytes"], "counted from the config"
    if result.model is None:
        raise CalcError("a pool from the GPU budget needs weights_bytes when there is no model config",
                        "weights_bytes")
    try:
        weights = weights_bytes(result.model, inputs.weights_dtype, inputs.tensor_parallel_size)
    except CalcError:
        raise
    except WEIGHTS_ERRORS as error:
        raise CalcError(f"the weights cannot be counted from this config ({_reason(error)}); give weights_bytes",
                        "weights_bytes") from None
    result.add("weights_bytes", weights.bytes, "B", fmt.gib(weights.bytes), weights.derivation)
    return weights.bytes, f"{weights.dtype}, counted from the config"


def _pool_tokens_to_blocks_text(tokens, blocks, plan, max_model_len, in_flight, rules) -> str:
    if plan.is_uniform and (not rules.tokens_from_concurrency or max_model_len % plan.block_size == 0):
        exact = " (whole blocks)" if tokens % plan.block_size == 0 else \
            f" (whole blocks; {tokens:,} is not a multiple of {plan.block_size})"
        return f"⌊{tokens:,} tokens ÷ {plan.block_size} tokens per block⌋ = {blocks:,} blocks{exact}"
    return (f"the most blocks whose log line reads at most {tokens:,} tokens: {blocks:,} "
            f"(vLLM {rules.version} logs {logged_pool_tokens(blocks, plan, max_model_len, in_flight, rules):,})")


def _pool_tokens_text(blocks, tokens, plan, max_model_len, in_flight, rules) -> str:
    if rules.tokens_from_concurrency and max_model_len:
        per_request = blocks_per_request(plan, max_model_len, in_flight)
        return (f"int({blocks:,} blocks ÷ {per_request:,} blocks per request × {max_model_len:,}) = {tokens:,} "
                f"tokens (vLLM {rules.version}: concurrency × max_model_len)")
    return (f"⌊{blocks:,} blocks ÷ {len(plan.groups)} group{'s' if len(plan.groups) > 1 else ''}⌋ × "
            f"{plan.block_size} tokens per block = {tokens:,} tokens")


def _log_line(tokens: int, max_model_len: int, conc: float, rules: VllmRules) -> str:
    if rules.one_log_line:
        return (f"GPU KV cache size: {tokens:,} tokens, Maximum concurrency for {max_model_len:,} tokens per "
                f"request: {conc:.2f}x")
    return (f"GPU KV cache size: {tokens:,} tokens\nMaximum concurrency for {max_model_len:,} tokens per "
            f"request: {conc:.2f}x")


def _users(result: Result, max_model_len: int | None, in_flight: int) -> None:
    inputs, plan = result.inputs, result.plan
    if inputs.prompt_tokens is None:
        if inputs.output_tokens is not None:
            raise CalcError("output_tokens needs prompt_tokens (a user's tokens are prompt + output)", "prompt_tokens")
        return
    output = inputs.output_tokens or 0
    per_user = inputs.prompt_tokens + output
    if max_model_len is not None and per_user > max_model_len:
        raise CalcError(f"prompt_tokens + output_tokens = {per_user:,} is longer than max_model_len "
                        f"{max_model_len:,}; vLLM would refuse such a request", "prompt_tokens")
    result.add("tokens_per_user", per_user, "tokens", fmt.commas(per_user),
               f"{inputs.prompt_tokens:,} prompt + {output:,} output = {per_user:,} tokens")
    if "num_blocks" not in result.values:
        return
    blocks = result["num_blocks"]
    per_request = blocks_per_request(plan, per_user, in_flight)
    usable = blocks - 1
    users = usable // per_request
    result.add("blocks_per_user", per_request, "blocks", fmt.commas(per_request),
               f"{blocks_per_request_text(plan, per_user, in_flight)} blocks for {per_user:,} tokens")
    result.add("users_fit", users, "users", fmt.commas(users),
               f"⌊({blocks:,} blocks − 1 null block) ÷ {per_request:,} blocks per user⌋ = {users:,} users")
    conc = blocks / per_request
    result.add("user_concurrency", conc, "x", fmt.conc(conc),
               f"{blocks:,} blocks ÷ {per_request:,} blocks per user = {conc:.4f} (what vLLM would print if "
               f"max_model_len were {per_user:,})")


def _start_checks(result: Result, max_model_len: int | None, in_flight: int) -> None:
    """vLLM's check that one request of max_model_len fits in the KV memory."""
    if max_model_len is None or "kv_cache_memory_bytes" not in result.values:
        return
    plan, rules = result.plan, result.rules
    memory = result["kv_cache_memory_bytes"]
    available = memory - plan.bytes_per_block if rules.reserve_null_block_in_check else memory
    needed = blocks_per_request(plan, max_model_len, in_flight) * plan.bytes_per_block
    estimate = estimate_max_model_len(max(available, 0), plan, max_model_len, in_flight)
    result.add("max_model_len_estimate", estimate, "tokens", fmt.commas(estimate),
               f"longest request whose {_blocks_word(plan)} fit in {available:,} B "
               f"({'KV memory − one null block' if rules.reserve_null_block_in_check else 'KV memory'}), "
               f"capped at max_model_len {max_model_len:,}: {estimate:,} tokens")
    message = None
    if available <= 0:
        message = _no_memory_text(rules)
    elif needed > available:
        estimated = (f"Based on the available memory, the estimated maximum model length is {estimate}. "
                     if estimate > 0 else "")
        cpu_note = " (which also controls CPU memory on the CPU backend)" if rules.cpu_note_in_refusal else ""
        message = (f"To serve at least one request with the model's max seq len ({max_model_len}), "
                   f"({_format_gib(needed)} GiB KV cache is needed, which is larger than the available KV cache "
                   f"memory ({_format_gib(available)} GiB). {estimated}Try increasing `gpu_memory_utilization`"
                   f"{cpu_note} or decreasing `max_model_len` when initializing the engine."
                   f"{DOCS_LINK if rules.cpu_note_in_refusal else ''}")
    result.checks.append({"check": "one_request_fits", "ok": message is None, "message": message,
                          "needed_bytes": needed, "available_bytes": available})


DOCS_LINK = " See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."


def _no_memory_text(rules: VllmRules) -> str:
    """vLLM's refusal when nothing is left for the KV cache, as the chosen release words it."""
    if rules.cpu_note_in_refusal:
        return ("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
                "initializing the engine (this flag also controls CPU memory reservation on the CPU backend, "
                "despite its name)." + DOCS_LINK)
    return ("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
            "initializing the engine.")


def _blocks_word(plan: BlockPlan) -> str:
    return "blocks" if plan.is_uniform else "blocks in every group"
