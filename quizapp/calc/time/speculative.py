"""Speculative decoding's bounds: the tokens one target step yields, the least time that step takes,
and the ceiling it gives against plain decoding's.

The drafter proposes k tokens; the target scores all k + 1 positions in one forward pass and keeps
the proposals up to the first it rejects, then adds one token of its own (the corrected token, or a
bonus token when all k were accepted): vLLM v1/sample/rejection_sampler.py
(``rejection_greedy_sample_kernel``, ``rejection_random_sample_kernel``). With each proposal accepted
with probability α, independently, the tokens a step yields are 1 + α + α² + … + α^k =
(1 − α^(k+1)) ÷ (1 − α) (Leviathan, Kalman and Matias 2023, "Fast Inference from Transformers via
Speculative Decoding", eq. 1).

The verification step's bound is the decode step's roofline with k + 1 tokens per sequence: the
weights are read once for the step, each sequence's KV once (its k + 1 queries share it), and the
matrix work and attention are done for every one of the k + 1 tokens. The drafter's own time is not
counted, so the step's bound is lower and the tokens/s higher than any real run.
"""

from __future__ import annotations

from .. import fmt
from ..result import Result
from .decode import BOUND, SPEED_BOUND
from .shape import Shape
from .work import Work, attention_flops, kv_read, weights_read


def tokens_per_step(k: int, alpha: float) -> float:
    """Expected tokens one target step yields: the accepted run of k proposals, plus one of the target's."""
    return float(k + 1) if alpha >= 1 else (1 - alpha ** (k + 1)) / (1 - alpha)


def speculative_values(result: Result, work: Work | None = None, shape: Shape | None = None) -> None:
    """spec_tokens_per_step from num_speculative_tokens and acceptance_rate; with the time model (a model
    and a catalog GPU), the verification step's bound, the tokens/s it allows and the ratio to plain decoding."""
    k, alpha = result.inputs.num_speculative_tokens, result.inputs.acceptance_rate
    if k is None or alpha is None:
        return
    if "spec_tokens_per_step" not in result.values:
        per = tokens_per_step(k, alpha)
        result.add("spec_tokens_per_step", per, "tokens", f"{per:.2f} tokens",
                   f"1 + α + … + α^k = (1 − {alpha:g}^{k + 1}) ÷ (1 − {alpha:g}) = {per:.4f} tokens a target step "
                   f"yields on average with {k} proposals each accepted with probability {alpha:g}"
                   if alpha < 1 else f"every one of {k} proposals accepted: {k} + 1 bonus token = {k + 1} tokens a step")
    if work is None or shape is None:
        return
    per = result["spec_tokens_per_step"]
    b, c, n = shape.batch, shape.context, shape.batch * (k + 1)
    stages = []
    for s in work.stages:
        memory = (weights_read(work, s, n) + b * kv_read(work, s, c)) / work.bandwidth
        compute = n * (s.linear_seconds + attention_flops(work, s, c) / work.rates.attention.flops)
        stages.append((memory, compute))
    memory, compute = sum(m for m, _ in stages), sum(c_ for _, c_ in stages)
    seconds = sum(max(m, c_) for m, c_ in stages)
    side = "memory" if memory >= compute else "compute"
    result.add("spec_step_seconds", seconds, "s", fmt.duration(seconds),
               f"the least time one verification step can take ({BOUND}): {b:,} sequence{'s' if b > 1 else ''} × "
               f"{k + 1} positions = {n:,} tokens, the weights read once and each sequence's KV once, max(memory "
               f"{fmt.duration(memory)}, compute {fmt.duration(compute)}) = {fmt.duration(seconds)}, {side}-bound; "
               "the drafter's own time is not counted")
    slowest = max(max(m, c_) for m, c_ in stages)
    speed = b * per / slowest
    result.add("spec_throughput", speed, "tokens/s", f"{speed:,.1f} tokens/s",
               f"{b * per:,.1f} tokens ({b:,} sequence{'s' if b > 1 else ''} × {per:.4f}) per {fmt.duration(slowest)} "
               f"step: {speed:,.1f} tokens/s at most ({SPEED_BOUND}; the drafter not counted)")
    plain = result.get("decode_throughput")
    if plain:
        ratio = speed / plain
        result.add("spec_speedup_bound", ratio, "x", f"{ratio:.2f}x",
                   f"{speed:,.1f} tokens/s ÷ plain decoding's {plain:,.1f} tokens/s at the same batch = {ratio:.2f}: "
                   "the ratio of the two ceilings from the spec sheet, before the drafter's time, which only lowers it")
