"""The GPU's side of the sizing: its memory budget, the weights on it, and the tokens in flight.

Each stage adds its values to a :class:`~.result.Result` and returns what a later stage uses:
the :class:`Budget` and the :class:`WeightsOnGpu`, from which the KV pool (``pool.py``) is
what the budget leaves after the weights.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil

from .. import fmt
from ..hardware.catalog import load_gpu
from ..errors import CalcError
from ..inputs import Inputs
from .refusals import free_memory_text
from ..result import Result
from ..versions import VllmRules
from ..model.parts import expert_ranks
from ..model.weights import weights_bytes


@dataclass(frozen=True)
class Budget:
    """The GPU memory vLLM may use: the GPU's total and what gpu_memory_utilization requests of it
    (an int from vLLM 0.14, which rounds it up; the float product before)."""

    total: int
    requested: int | float


@dataclass(frozen=True)
class WeightsOnGpu:
    """The weights on one GPU and where the figure comes from; or, with ``bytes`` None, the
    CalcError saying why they cannot be counted, which only a pool that needs them raises."""

    bytes: int | None
    source: str = ""
    error: CalcError | None = None

    def needed(self) -> tuple[int, str]:
        """(bytes, source), or the CalcError when they could not be counted."""
        if self.error is not None:
            raise self.error
        return self.bytes, self.source

def batched_tokens_default(total_memory: int | None, gpu_name: str = "") -> tuple[int, str]:
    """vLLM's max_num_batched_tokens default for `vllm serve` (engine/arg_utils.py get_batch_defaults)."""
    gib = (total_memory or 0) / fmt.GIB
    if gib >= 160:
        return 16384, f"{gib:.0f} GiB GPU (≥ 160 GiB): 16,384"
    if gib >= 70 and "a100" not in gpu_name.lower():
        return 8192, f"{gib:.0f} GiB GPU (≥ 70 GiB, not A100): 8,192 for the server"
    return 2048, "2,048 for the server on GPUs under 70 GiB (or an unknown GPU)"


def in_flight(result: Result) -> int:
    """Tokens a sliding window keeps beyond its size; the values are shown only for sliding models."""
    inputs = result.inputs
    if inputs.max_num_batched_tokens is not None:
        batched, why = inputs.max_num_batched_tokens, "given"
    else:
        total, name = _gpu_total(inputs)
        batched, why = batched_tokens_default(total, name)
    batches, batches_why = _batches_in_flight(inputs, result.rules)
    tokens = batches * batched
    if any(g.spec.kind == "sliding" for g in result.plan.groups):
        result.add("max_num_batched_tokens", batched, "tokens", fmt.commas(batched),
                   f"max_num_batched_tokens {batched:,} ({why})")
        result.add("in_flight_tokens", tokens, "tokens", fmt.commas(tokens),
                   f"{batches} batch{'es' if batches > 1 else ''} in flight × {batched:,} tokens = {tokens:,} "
                   f"(vLLM {result.rules.version}: {batches_why})")
    return tokens


def _batches_in_flight(inputs: Inputs, rules: VllmRules) -> tuple[int, str]:
    """Batches a sliding window must keep room for, and why: 2 with async scheduling from 0.28, else 1."""
    if rules.in_flight_batches == 1:
        return 1, "one batch, whatever the scheduling"
    if inputs.async_scheduling is None:
        return rules.in_flight_batches, "async scheduling, on by default"
    if inputs.async_scheduling:
        return rules.in_flight_batches, "--async-scheduling"
    return 1, "--no-async-scheduling"


def _gpu_total(inputs: Inputs) -> tuple[int | None, str]:
    gpu = load_gpu(inputs.gpu) if inputs.gpu else None
    if inputs.total_memory_bytes is not None:
        return inputs.total_memory_bytes, gpu["name"] if gpu else ""
    if gpu:
        return gpu["total_memory_bytes"], gpu["name"]
    return None, ""


def memory_budget(result: Result) -> Budget | None:
    """The GPU's total, the requested share, vLLM's start refusal and the utilization ceiling.

    None without a GPU (no gpu or total_memory_bytes): then nothing is sized from a budget.
    """
    inputs, rules = result.inputs, result.rules
    total, name = _gpu_total(inputs)
    if total is None:
        if inputs.gpu_memory_utilization is not None or inputs.free_memory_bytes is not None:
            raise CalcError("a GPU budget needs the GPU: give gpu (from the catalog) or total_memory_bytes", "gpu")
        return None
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
    budget = Budget(total, requested)
    free = inputs.free_memory_bytes
    if free is None:
        return budget
    if free > total:
        raise CalcError(f"free_memory_bytes {free:,} is more than the GPU's total memory {total:,}",
                        "free_memory_bytes")
    ceiling = _utilization_ceiling(total, free, rules)
    result.add("gpu_memory_utilization_ceiling", ceiling, "", f"{ceiling:.4f}",
               f"largest fraction f with {'⌈' if rules.ceil_requested_memory else ''}{fmt.gib(total)} × f"
               f"{'⌉' if rules.ceil_requested_memory else ''} ≤ {fmt.gib(free)} free: "
               f"{free:,} ÷ {total:,} = {free / total:.6f} → {ceiling:.4f}")
    ok = free >= requested
    message = None if ok else free_memory_text(free, total, util, requested, rules)
    result.checks.append({"check": "free_memory", "ok": ok, "message": message})
    return budget


def _utilization_ceiling(total: int, free: int, rules: VllmRules) -> float:
    """The largest gpu_memory_utilization, in vLLM's 4 decimals, whose request fits in the free memory."""
    ceiling = int(free / total * 10_000) / 10_000
    while ceiling > 0:
        requested = ceil(total * ceiling) if rules.ceil_requested_memory else total * ceiling
        if requested <= free:
            return ceiling
        ceiling = round(ceiling - 0.0001, 4)
    return 0.0


def gpu_weights(result: Result, budget: Budget | None) -> WeightsOnGpu | None:
    """The weights on one GPU, which a pool from the budget subtracts: given, or counted from the config
    (then added as weights_bytes). None without a budget, where nothing needs them."""
    inputs = result.inputs
    if budget is None:
        return None
    if inputs.weights_bytes is not None:
        return WeightsOnGpu(inputs.weights_bytes, "given")
    if result.model is None:
        return WeightsOnGpu(None, error=CalcError(
            "a pool from the GPU budget needs weights_bytes when there is no model config", "weights_bytes"))
    try:
        tp = inputs.tensor_parallel_size
        weights = weights_bytes(result.model, inputs.weights_dtype, tp,
                                expert_ranks(result.model, tp, inputs.data_parallel_size))
    except CalcError as error:
        # The count reads many optional config fields (each checked where it is read); one the
        # count cannot use must not stop the KV sizing, which does not need it.
        return WeightsOnGpu(None, error=error)
    result.add("weights_bytes", weights.bytes, "B", fmt.gib(weights.bytes), weights.derivation)
    return WeightsOnGpu(weights.bytes, "counted from the config")  # the derivation of weights_bytes names the dtype


def weights_ratio(result: Result, budget: Budget | None, weights: WeightsOnGpu | None) -> None:
    """GPU memory ÷ model size: the wrong answer "how many copies of the model fit" gives."""
    if result.model is None or budget is None or weights is None:
        return
    if weights.error is not None:
        result.notes.append(f"weights not counted: {weights.error.message}")
        return
    if weights.bytes == 0:  # weights_bytes given as 0: there is no ratio to state
        return
    ratio = budget.total / weights.bytes
    result.add("memory_over_weights", ratio, "", f"{ratio:.2f}",
               f"{fmt.gib(budget.total)} GPU memory ÷ {fmt.gib(weights.bytes)} of weights = {ratio:.2f} (not a "
               "user count: the users that fit depend on the KV pool)")
