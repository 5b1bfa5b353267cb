"""The prefill bounds: a prompt's FLOPs and least time, the first token of a batch, a whole request."""

from __future__ import annotations

from .. import fmt
from ..result import Result
from .all_reduce import prompt_words
from .decode import BOUND
from .shape import Shape
from .work import Step, Work, prefill_step


def prefill_values(result: Result, work: Work, shape: Shape, decode: Step) -> None:
    one = prefill_step(work, 1, shape.prompt)
    flops = sum(one.flops)
    head = sum(s.head_flops for s in work.stages)
    result.add("prefill_flops", flops, "FLOP", f"{flops / 1e12:,.2f} TFLOP",
               f"{shape.prompt:,} tokens × {fmt.commas(round(sum(s.linear_flops for s in work.stages) - head))} FLOPs "
               f"each (2 per parameter a token multiplies by, on one GPU) + lm_head's {fmt.commas(round(head))} for the "
               f"last token only (the first output's logits) + causal attention over every (query, key) pair = "
               f"{flops:,.0f} FLOPs")
    seconds = _seconds(one)
    result.add("prefill_seconds", seconds, "s", fmt.duration(seconds),
               f"the least time a {shape.prompt:,}-token prompt's prefill can take ({BOUND}): max(compute "
               f"{fmt.duration(sum(one.compute_seconds))}, reading the weights and writing the KV "
               f"{fmt.duration(sum(one.memory_seconds))}) = {fmt.duration(seconds)}, {_side(one)}-bound"
               + _staged(work) + prompt_words(result, shape.prompt))
    batch = prefill_step(work, shape.batch, shape.prompt) if shape.batch > 1 else one
    ttft = _seconds(batch)
    result.add("ttft_seconds", ttft, "s", fmt.duration(ttft),
               (f"the least time to the first token ({BOUND}): one prefill of the {shape.prompt:,}-token prompt, "
                f"{fmt.duration(ttft)}" if shape.batch == 1 else
                f"the least time until each of {shape.batch:,} sequences arriving together has its first token "
                f"({BOUND}): their {shape.batch * shape.prompt:,} prompt tokens in one pass, max(compute "
                f"{fmt.duration(sum(batch.compute_seconds))}, memory {fmt.duration(sum(batch.memory_seconds))}) = "
                f"{fmt.duration(ttft)}") + "; queueing and scheduling not counted"
               + prompt_words(result, shape.batch * shape.prompt))
    steps = max(0, shape.output - 1)
    e2e = ttft + steps * sum(decode.seconds)
    result.add("e2e_seconds", e2e, "s", fmt.duration(e2e),
               f"ttft and {steps:,} more decode steps for {shape.prompt:,} prompt and {shape.output:,} output tokens: "
               f"{ttft:.4g} s + {steps:,} × {sum(decode.seconds):.4g} s = {e2e:.4g} s ({BOUND})")


def _seconds(step: Step) -> float:
    return sum(step.seconds)


def _side(step: Step) -> str:
    return "compute" if sum(step.compute_seconds) >= sum(step.memory_seconds) else "memory"


def _staged(work: Work) -> str:
    return ", each stage's larger side summed over the stages" if len(work.stages) > 1 else ""
