"""Whether a scenario can exist on its GPU: the weights, the non-KV memory and the KV pool in its memory.

One rule, used by the calculator's result, the cards' spaces, the CLI, the API and ``/calc``. vLLM
meets a deployment that does not fit at one of two points:

* loading the weights: a rank's weights larger than its GPU end in a CUDA out-of-memory error,
  which vLLM's ``gpu_model_runner.load_model`` reports as "Failed to load model - not enough GPU
  memory" (the words of recent releases; earlier ones let PyTorch's error through);
* sizing the pool: with the fraction rule, ``total × gpu_memory_utilization − weights − non-KV``
  at or below zero is "No available memory for the cache blocks" (``_check_enough_kv_cache_memory``);
  a pinned or measured pool that does not fit beside the weights fails when vLLM allocates it.

The verdict is a sentence a person reads first; what would make it fit (the smallest tensor
parallel size the model's heads allow, or the GPU memory needed) is searched only when asked,
by the caller's ``trial`` (``compute.calculate`` at another tensor parallel size).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from math import ceil

from .. import fmt
from ..hardware.listings import gpu_prose_name
from ..result import Result

LOAD_WORDS = ("Failed to load model - not enough GPU memory. Try lowering --gpu-memory-utilization to free memory "
              "for weights, increasing --tensor-parallel-size, or using --quantization.")
ALLOCATE_WORDS = "torch.OutOfMemoryError: CUDA out of memory."
# The start checks that say a scenario does not fit its GPU (the others are vLLM's own start checks).
FIT_CHECKS = ("weights_fit", "budget_fits", "pool_fits")

# Tensor parallel sizes searched above this many GPUs are not suggested: no node holds them.
MAX_SUGGESTED_GPUS = 1024
# At most this many sizes are tried (each a whole calculation), so a config whose head count has many
# divisors cannot make the search slow: a hostile input stays well under a second.
MAX_TRIALS = 12


@dataclass
class Fit:
    """The verdict for one scenario on its GPU. ``check`` is None when it fits, else which way it does not
    ("weights_fit", "budget_fits", "pool_fits"); ``vllm`` is vLLM's own words for it."""

    fits: bool
    verdict: str
    total: int
    needed: int  # the bytes one GPU would need: weights + non-KV + the pool (at least one block)
    check: str | None = None
    vllm: str | None = None
    utilization: float | None = None  # the fraction, when the pool is sized by it
    trial: Callable[[int], "Fit | None"] | None = field(default=None, repr=False, compare=False)
    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    gpu_name: str = "GPU"
    heads: int = 0
    _searched: bool = field(default=False, repr=False, compare=False)
    _min_tp: int | None = field(default=None, repr=False, compare=False)

    @property
    def overflow(self) -> int:
        return max(0, self.needed - (self.total if self.utilization is None else int(self.total * self.utilization)))

    @property
    def min_tensor_parallel_size(self) -> int | None:
        """The smallest tensor parallel size above this one that the model's heads allow and that fits
        (None when it fits already, or when none does)."""
        if self.fits or self.trial is None:
            return None
        if not self._searched:
            self._searched = True
            self._min_tp = next((tp for tp in candidate_sizes(self.heads, self.tensor_parallel_size)
                                 if (found := self.trial(tp)) is not None and found.fits), None)
        return self._min_tp

    @property
    def min_gpu_memory_bytes(self) -> int | None:
        """The smallest GPU memory that fits this scenario at its tensor parallel size (None when it fits)."""
        if self.fits:
            return None
        if self.utilization is not None:
            return ceil(self.needed / self.utilization)
        return self.needed

    def suggestion(self) -> str | None:
        """What would make it fit, in one sentence; None when it fits."""
        if self.fits:
            return None
        parts = []
        tp = self.min_tensor_parallel_size
        if tp is not None:
            gpus = tp * self.pipeline_parallel_size
            parts.append(f"it fits from tensor_parallel_size {tp} ({gpus} {self.gpu_name}s)")
        memory = self.min_gpu_memory_bytes
        gpu = smallest_gpu(memory)
        where = "per GPU" if self.tensor_parallel_size > 1 else ""
        sized = f"a GPU of at least {fmt.gib(memory)}{' ' + where if where else ''}"
        parts.append(f"{sized} would hold it ({gpu})" if gpu else sized + " would hold it")
        text = "; ".join(parts)
        return text[0].upper() + text[1:] + "."

    def to_json(self) -> dict:
        return {"fits": self.fits, "verdict": self.verdict, "check": self.check, "vllm": self.vllm,
                "needed_bytes": self.needed, "total_memory_bytes": self.total,
                "min_tensor_parallel_size": self.min_tensor_parallel_size,
                "min_gpu_memory_bytes": self.min_gpu_memory_bytes, "suggestion": self.suggestion()}


def candidate_sizes(heads: int, tp: int) -> list[int]:
    """Tensor parallel sizes above ``tp`` that divide the attention heads (vLLM's first rule; the KV
    heads' rule is the trial's, which refuses a size they do not allow), the first MAX_TRIALS of them."""
    return [n for n in range(tp + 1, min(heads, MAX_SUGGESTED_GPUS) + 1) if heads % n == 0][:MAX_TRIALS]


def smallest_gpu(memory: int | None) -> str | None:
    """The catalog GPU with the least memory that holds ``memory``, as prose names it."""
    if memory is None:
        return None
    from ..hardware.catalog import gpu_entries  # the catalog's list, read once it is needed

    fitting = sorted((g["total_memory_bytes"], g["id"]) for g in gpu_entries() if g["total_memory_bytes"] >= memory)
    return f"the {gpu_prose_name(fitting[0][1])} has {fmt.gib(fitting[0][0])}" if fitting else None


def weights_on_gpu(result: Result, weights: int | None) -> int | None:
    """The weights one GPU holds: the heaviest pipeline stage's, else the scenario's."""
    stages = result.get("stage_weights_bytes")
    return max(stages) if stages else weights


def budget_room(result: Result, requested: float, weights: int | None) -> int | None:
    """The KV memory the fraction rule leaves (requested − weights − non-KV), or None when the pool is
    not sized by the fraction or the weights are not known."""
    inputs = result.inputs
    if inputs.pool_tokens is not None or inputs.kv_cache_memory_bytes is not None or weights is None:
        return None
    return int(requested - weights - inputs.non_kv_cache_memory_bytes)


def assess(result: Result, total: int | None, requested: float | None, weights: int | None,
           pool_memory: int | None, one_request: int | None) -> Fit | None:
    """The verdict for the scenario on its GPU; None without a GPU (nothing to fit) or without weights.

    ``pool_memory`` is the pool as sized (None when the fraction rule left no room for it);
    ``one_request`` the KV bytes the smallest pool that starts needs (one request of max_model_len
    and the null block, or one block).
    """
    inputs = result.inputs
    if total is None or weights is None:
        return None
    weights = weights_on_gpu(result, weights)
    other = inputs.non_kv_cache_memory_bytes
    tp = inputs.tensor_parallel_size
    gpus = tp * inputs.pipeline_parallel_size
    name = gpu_prose_name(inputs.gpu) if inputs.gpu else "GPU"
    on = f"on one {fmt.gib(total)} {name}" if gpus == 1 else f"per GPU, on each of {gpus} {fmt.gib(total)} {name}s"
    heads = result.model.num_attention_heads if result.model is not None else 0
    base = dict(total=total, tensor_parallel_size=tp, pipeline_parallel_size=inputs.pipeline_parallel_size,
                gpu_name=name, heads=heads)
    fraction = inputs.pool_tokens is None and inputs.kv_cache_memory_bytes is None
    free = inputs.free_memory_bytes if inputs.free_memory_bytes is not None else total
    least_pool = one_request or result.plan.bytes_per_block
    if weights > free:
        return Fit(False, f"does not fit: {fmt.gib(weights)} of weights {on}", needed=weights + other +
                   (least_pool if fraction else pool_memory or 0), check="weights_fit", vllm=LOAD_WORDS,
                   utilization=(requested / total) if fraction and requested else None, **base)
    if fraction:
        util = requested / total
        room = int(requested - weights - other)
        if pool_memory is None or room < result.plan.bytes_per_block:
            with_other = f" and {fmt.gib(other)} of non-KV memory" if other else ""
            return Fit(False, f"does not fit: {fmt.gib(weights)} of weights{with_other} leave no room for the KV "
                              f"cache in the {fmt.gib(requested)} that gpu_memory_utilization "
                              f"{result.get('gpu_memory_utilization')} requests {on}",
                       needed=weights + other + least_pool, check="budget_fits", utilization=util,
                       vllm=None, **base)
        return Fit(True, f"fits: {fmt.gib(weights)} of weights and a {fmt.gib(pool_memory)} KV pool {on}",
                   needed=weights + other + pool_memory, utilization=util, **base)
    needed = weights + other + (pool_memory or 0)
    if needed > free:
        with_other = f", {fmt.gib(other)} of non-KV memory" if other else ""
        return Fit(False, f"does not fit: {fmt.gib(weights)} of weights{with_other} and a {fmt.gib(pool_memory)} "
                          f"KV pool need {fmt.gib(needed)} {on}", needed=needed, check="pool_fits",
                   vllm=ALLOCATE_WORDS, **base)
    return Fit(True, f"fits: {fmt.gib(weights)} of weights and a {fmt.gib(pool_memory or 0)} KV pool {on}",
               needed=needed, **base)


def record(result: Result, fit: Fit | None, no_memory_words: str) -> None:
    """The verdict on the result, and as one of vLLM's start checks when it does not fit (its own words)."""
    result.fit = fit
    if fit is None or fit.fits:
        return
    if fit.vllm is None:
        fit.vllm = no_memory_words
    result.checks.insert(0, {"check": fit.check, "ok": False, "message": fit.vllm, "verdict": fit.verdict})
