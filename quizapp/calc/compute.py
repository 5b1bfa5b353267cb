"""The calculator: a scenario in, every derived value out, each with its arithmetic.

``calculate(data)`` is the one entry point the CLI, the JSON API and the cards call. It runs
the stages in order: the model's layout and bytes per token (here), the GPU budget and
weights (``memory.py``), the pool and its users (``pool.py``), and vLLM's start checks
(``refusals.py``). Each stage adds its values to one :class:`~.result.Result` and returns
what a later stage uses (the max_model_len, the tokens in flight, the budget, the weights, the
pool), which ``calculate`` hands on: a stage never looks in the result for another's values.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from . import fmt
from .sizing.blocks import choose_block_size, plan_blocks
from .model.catalog import canonical_model_id, load_model
from .errors import CalcError
from .inputs import Inputs, parse_inputs
from .model.layout import build_layout, uniform_layout
from .model.maxlen import default_max_model_len
from .sizing.memory import gpu_weights, in_flight, memory_budget, weights_ratio
from .model.config import ModelConfig
from .model.parse import parse_config
from .sizing.activations import profile_activations
from .sizing.pipeline import check_pipeline, pipeline_pool
from .sizing import fit
from .sizing.pool import size_pool, users
from .sizing.prefix_caching import mamba_cache
from .sizing.shared_prefix import shared_prefix
from .sizing.refusals import model_length_check, no_memory_text, one_request_bytes, start_checks
from .result import Result
from .time.bounds import time_bounds
from .time.preemption import preemption_values
from .cost.price import cost_values
from .sizing.fragmentation import fragmentation_values
from .time.speculative import speculative_values
from .versions import check_served, rules_for
from .model.weights import count_parameters


def calculate(data: dict[str, Any] | Inputs, *, suggest: bool = True) -> Result:
    """Every value the scenario determines. Raises CalcError, naming the input, for what vLLM would refuse.

    A scenario whose weights, non-KV memory and pool do not fit its GPU is not an error: its result
    has ``fit`` (``sizing/fit.py``) saying so, first among its start checks, and no pool when the
    fraction rule leaves none. With ``suggest``, the fit can search the tensor parallel sizes that
    would make it fit (each tried without a search of its own)."""
    inputs = data if isinstance(data, Inputs) else parse_inputs(data)
    rules = rules_for(inputs.vllm_version)
    model = _model(inputs)
    if model is not None:
        check_served(model.architectures, rules)
        layout = build_layout(model, inputs.kv_cache_dtype, inputs.tensor_parallel_size, inputs.num_draft_layers)
    else:
        _refuse_model_only_inputs(inputs)
        layout = uniform_layout(inputs.kv_bytes_per_token)
    check_pipeline(model, layout, inputs.pipeline_parallel_size)
    block_size, block_notes = choose_block_size(model, layout, inputs, rules)
    mamba = mamba_cache(model, inputs, rules)
    plan = plan_blocks(layout, block_size, rules, inputs.disable_hybrid_kv_cache_manager, mamba)
    result = Result(inputs, model, layout, plan, rules,
                    notes=list(layout.notes) + block_notes + list(plan.notes) + list(mamba.notes))
    _layout_values(result)
    _kv_bytes(result)
    max_model_len = _max_model_len(result)
    in_flight_tokens = in_flight(result)
    budget = memory_budget(result)
    weights = gpu_weights(result, budget)
    if inputs.pipeline_parallel_size > 1:
        weights = pipeline_pool(result, budget, weights)
        _kv_bytes(result)  # the stage that sets the pool: its layers' bytes per token and block
    weights_ratio(result, budget, weights)
    known = weights.bytes if weights is not None else None
    room = fit.budget_room(result, budget.requested, known) if budget is not None else None
    short = room is not None and room < result.plan.bytes_per_block
    pool = None if short else size_pool(result, max_model_len, in_flight_tokens, budget, weights)
    users(result, max_model_len, in_flight_tokens, pool)
    shared_prefix(result, pool)
    verdict = fit.assess(result, budget.total if budget else None, budget.requested if budget else None, known,
                         pool.memory if pool else None, one_request_bytes(result, max_model_len, in_flight_tokens))
    if verdict is not None and suggest:
        verdict.trial = lambda tp: _trial(inputs, tp)
    fit.record(result, verdict, no_memory_text(rules))
    start_checks(result, max_model_len, in_flight_tokens, pool.memory if pool else None)
    time_bounds(result, layout)
    fragmentation_values(result)
    preemption_values(result)
    cost_values(result)
    speculative_values(result)  # without the time bounds, the tokens a step yields
    profile_activations(result)
    return result


def _trial(inputs: Inputs, tensor_parallel_size: int) -> fit.Fit | None:
    """The fit of the same scenario at another tensor parallel size; None where vLLM refuses that size."""
    try:
        return calculate(replace(inputs, tensor_parallel_size=tensor_parallel_size), suggest=False).fit
    except CalcError:
        return None


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
    except CalcError as error:
        # A config may size the KV cache and still lack what the weights count needs.
        result.notes.append(f"parameters not counted: {error.message}")
        return
    # Every field the count reads is bounded (model.config.whole_number), so the count fits a float.
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
        grid = plan.mamba_alignment
        result.add("block_size", plan.block_size, "tokens", fmt.commas(plan.block_size),
                   f"raised so one attention page holds a mamba state: {grid} × ⌈{mamba[0].state_bytes:,} ÷ "
                   f"({grid} × {plan.page_bytes // plan.block_size:,})⌉ = {plan.block_size:,} "
                   f"(mamba page padded {plan.mamba_padding:.2%})")
    elif plan.block_size != result.inputs.block_size:
        # An MLA backend's own block size (blocks.choose_block_size), not the input's 16.
        result.add("block_size", plan.block_size, "tokens", fmt.commas(plan.block_size),
                   f"{plan.block_size} tokens per block, as the attention backend sets it")


def _max_model_len(result: Result) -> int | None:
    given = result.inputs.max_model_len
    model = result.model
    if model is None:
        return given
    length, derivation, notes = default_max_model_len(model, result.rules)
    if given is not None:
        # LongRoPE defaults below the model's full length; the check allows the full length.
        model_length_check(result, given, max(length, model.max_position_embeddings or 0))
        return given
    result.notes.extend(notes)
    result.add("max_model_len", length, "tokens", fmt.commas(length), derivation)
    return length
