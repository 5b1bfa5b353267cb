"""The decode bounds: what one step reads and computes, the least time it takes, the speeds that
follow, and the batch where the step turns from memory-bound to compute-bound."""

from __future__ import annotations

from ...lru import per_object
from .. import fmt
from ..hardware.specs import gpu_specs
from ..model.tensors import EXPERT_WEIGHT, LINEAR_WEIGHT, PLAIN
from ..result import Result
from .shape import Shape
from .work import Step, Work, attention_flops, decode_step, kv_read, weights_read

BOUND = "a lower bound from the spec sheet: real engines take longer"
SPEED_BOUND = "an upper bound from the spec sheet: real engines are slower"
KIND_WORDS = {LINEAR_WEIGHT: "linear layers", EXPERT_WEIGHT: "routed experts (top-k)", PLAIN: "lm_head and routers"}


def spec_values(result: Result, work: Work) -> None:
    """The GPU's figures the bounds divide by, with their sources."""
    specs = gpu_specs(result.inputs.gpu)
    band = specs.memory_bandwidth
    result.add("memory_bandwidth", band.value, "B/s", fmt.bandwidth(band.value),
               f"{specs.name} memory bandwidth {fmt.bandwidth(band.value)} ({band.source})"
               + (f"; {band.note}" if band.note else ""))
    linear = work.rates.linear
    result.add("peak_flops", linear.flops, "FLOP/s", fmt.flops(linear.flops), linear.words)
    result.add("compute_dtype", linear.dtype, "", linear.dtype.upper(),
               f"the linear layers compute in {linear.dtype.upper()} ({_why_dtype(work, linear.dtype)})")


def _why_dtype(work: Work, dtype: str) -> str:
    weights = work.weights_format
    if dtype in ("fp8", "fp4"):
        return f"{weights} weights, {dtype.upper()} activations, on this GPU's {dtype.upper()} tensor cores"
    if weights in ("awq", "gptq", "int4"):
        return f"{weights} weights are dequantized to 16 bits by weight-only kernels"
    if weights in ("bfloat16", "float16"):
        return f"{weights} weights"
    return f"{weights} weights: this GPU has no tensor cores for them, so weight-only kernels compute in 16 bits"


def decode_values(result: Result, work: Work, shape: Shape) -> Step:
    spec_values(result, work)
    step = decode_step(work, shape.batch, shape.context)
    b, c = shape.batch, shape.context
    staged = len(work.stages) > 1
    weights, kv = sum(step.weights), sum(step.kv)
    result.add("decode_weight_bytes", round(weights), "B", fmt.gib(weights), _weights_words(result, work, shape, step))
    result.add("decode_kv_bytes", round(kv), "B", fmt.gib(kv),
               f"{b:,} sequence{'s' if b > 1 else ''} × {sum(kv_read(work, s, c) for s in work.stages):,.0f} B of KV each "
               f"at {c:,} tokens of context{_per_stage(staged)}")
    memory, compute = sum(step.memory_seconds), sum(step.compute_seconds)
    result.add("decode_memory_seconds", memory, "s", fmt.duration(memory),
               f"({fmt.commas(round(weights))} B weights + {fmt.commas(round(kv))} B KV) ÷ "
               f"{fmt.bandwidth(work.bandwidth)} = {fmt.duration(memory)}{_per_stage(staged)}")
    result.add("decode_compute_seconds", compute, "s", fmt.duration(compute), _compute_words(work, shape, step))
    seconds = sum(step.seconds)
    side = "memory" if memory >= compute else "compute"
    result.add("decode_step_seconds", seconds, "s", fmt.duration(seconds),
               f"the least time one decode step of {b:,} sequence{'s' if b > 1 else ''} can take ({BOUND}): "
               f"max(memory {fmt.duration(memory)}, compute {fmt.duration(compute)}) = {fmt.duration(seconds)}, "
               f"{side}-bound" + (", each stage's larger side, summed over the stages a token passes" if staged else "")
               + "; the tensor-parallel all-reduce (tp_all_reduce_seconds) is not in it")
    _speeds(result, work, shape, step)
    knee, words = critical_batch(work, shape.context)
    result.add("critical_batch", knee, "sequences", f"{knee:,.0f} sequences", words)
    return step


def _per_stage(staged: bool) -> str:
    return ", summed over one GPU of each pipeline stage" if staged else ", on one GPU"


def _weights_words(result: Result, work: Work, shape: Shape, step: Step) -> str:
    dense = sum(s.dense_bytes for s in work.stages)
    text = (f"{fmt.commas(round(dense))} B: every weight one GPU holds but the embedding table (a step looks up only "
            "its tokens' rows), read once per step whatever the batch")
    if result.inputs.weights_bytes:
        text += (f" (weights_bytes {result.inputs.weights_bytes:,} B given: the counted parts scaled to it, the "
                 "embedding table's share left out)")
    if work.experts:
        experts = sum(s.expert_bytes for s in work.stages)
        tokens = shape.batch * work.token_ranks
        share = (sum(step.weights) - dense) / experts if experts else 0.0
        text += (f"; + routed experts {fmt.commas(round(experts))} B × {share:.2%} touched: 1 − (1 − {work.top_k}/"
                 f"{work.experts})^{tokens:,} for {tokens:,} token{'s' if tokens > 1 else ''} a step, the expected share "
                 f"under uniform routing (skewed routing touches fewer; the floor is {work.top_k} of {work.experts} per "
                 f"layer) = {fmt.commas(round(sum(step.weights)))} B")
    return text


def _compute_words(work: Work, shape: Shape, step: Step) -> str:
    kinds = {kind for s in work.stages for kind, _ in s.active}
    attention = sum(attention_flops(work, s, shape.context) for s in work.stages) * shape.batch
    linear = sum(s.linear_flops for s in work.stages) * shape.batch
    return (f"{shape.batch:,} × {fmt.commas(round(linear / shape.batch))} FLOPs of matrix work per token on one GPU "
            f"(2 per parameter it multiplies by) + {fmt.commas(round(attention))} FLOPs of attention over "
            f"{shape.context:,} tokens, at {_peaks(work, kinds)} = {fmt.duration(sum(step.compute_seconds))}")


def _peaks(work: Work, kinds: set[str]) -> str:
    """The peaks the work runs at, each named once with the work it is for."""
    by_words: dict[str, list[str]] = {}
    for kind in KIND_WORDS:
        if kind in kinds:
            by_words.setdefault(work.rates.by_kind[kind].words, []).append(KIND_WORDS[kind])
    by_words.setdefault(work.rates.attention.words, []).append("attention")
    if len(by_words) == 1:
        return next(iter(by_words))
    return "; ".join(f"{' and '.join(what)} at {words}" for words, what in by_words.items())


def _speeds(result: Result, work: Work, shape: Shape, step: Step) -> None:
    seconds, b = sum(step.seconds), shape.batch
    per = 1 / seconds
    result.add("decode_tokens_per_second", per, "tokens/s", f"{per:,.1f} tokens/s",
               f"one token per {fmt.duration(seconds)} step: {per:,.1f} tokens/s per sequence at most ({SPEED_BOUND})")
    slowest = max(step.seconds)
    batch = b / slowest
    staged = len(work.stages) > 1
    dp = result.inputs.data_parallel_size
    result.add("decode_throughput", batch, "tokens/s", f"{batch:,.1f} tokens/s",
               f"{b:,} token{'s' if b > 1 else ''} per {fmt.duration(slowest)} step"
               + (" (the slowest stage's: the stages work on different micro-batches at once)" if staged else "")
               + f": {batch:,.1f} tokens/s for the batch at most ({SPEED_BOUND})"
               + (f"; × data_parallel_size {dp} replicas = {batch * dp:,.1f} tokens/s in all" if dp > 1 else ""))
    per_sequence = [max(kv_read(work, s, shape.context) / work.bandwidth,
                        s.linear_seconds + attention_flops(work, s, shape.context) / work.rates.attention.flops)
                    for s in work.stages]
    ceiling = 1 / max(per_sequence)
    result.add("decode_throughput_ceiling", ceiling, "tokens/s", f"{ceiling:,.0f} tokens/s",
               f"the most any batch can reach at {shape.context:,} tokens of context: the weights' read is shared, but "
               f"each sequence adds its own KV read and compute ({fmt.duration(max(per_sequence))} a step at the least), "
               f"so tokens/s tend to {ceiling:,.0f} ({SPEED_BOUND})")


# Kept per work (a kept one is one object per catalog model, GPU and parallel layout) and context:
# a new pool or batch meets the same crossing, and a mixture of experts finds it by bisection.
@per_object(512)
def critical_batch(work: Work, context: int) -> tuple[float, str]:
    """The batch where the step's matrix work takes as long as its weight reads; with the KV reads
    counted too, where (if ever) the whole step turns compute-bound: the batch and its arithmetic."""
    linear = sum(s.linear_seconds for s in work.stages)

    def weights_time(b: float) -> float:
        return sum(weights_read(work, s, b) for s in work.stages) / work.bandwidth

    dense = sum(s.dense_bytes for s in work.stages)
    # A dense model reads the same weights at any batch: the crossing has a closed form.
    knee = _crossing(lambda b: b * linear - weights_time(b)) if work.experts else dense / work.bandwidth / linear
    if work.experts:
        how = (f"the batch B where B × {fmt.duration(linear)} of matrix work per token equals the weights' read at B, "
               f"experts touched included ({fmt.commas(round(dense))} B + the experts' expected share) ÷ "
               f"{fmt.bandwidth(work.bandwidth)}: B = {knee:,.1f}")
    else:
        how = (f"the batch where matrix work (B × {fmt.duration(linear)} per token at the dense peak) equals the "
               f"weights' read ({fmt.commas(round(dense))} B ÷ {fmt.bandwidth(work.bandwidth)} = "
               f"{fmt.duration(dense / work.bandwidth)}): B = {fmt.duration(dense / work.bandwidth)} ÷ "
               f"{fmt.duration(linear)} = {knee:,.1f}")
    kv = sum(kv_read(work, s, context) for s in work.stages) / work.bandwidth
    attention = sum(attention_flops(work, s, context) for s in work.stages) / work.rates.attention.flops
    if kv >= linear + attention:
        tail = (f"; counting the KV reads, decode at {context:,} tokens of context never turns compute-bound: "
                f"each sequence's KV read ({fmt.duration(kv)}) outlasts its compute ({fmt.duration(linear + attention)})")
    else:
        whole = (_crossing(lambda b: b * (linear + attention) - weights_time(b) - b * kv) if work.experts
                 else dense / work.bandwidth / (linear + attention - kv))
        tail = f"; counting the KV reads at {context:,} tokens of context and attention, at B = {whole:,.1f}"
    return knee, how + tail


def _crossing(gap) -> float:
    """The B > 0 where ``gap(B)`` (increasing past its root) turns from negative to positive, by bisection."""
    lo, hi = 1e-6, 1.0
    while gap(hi) < 0 and hi < 1e12:
        lo, hi = hi, hi * 2
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gap(mid) < 0 else (lo, mid)
    return hi
