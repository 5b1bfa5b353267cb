"""The prefill bounds: a prompt's FLOPs and least time, the first token of a batch, a whole request,
and a prompt prefilled in chunks beside running decodes.

Chunked prefill (vLLM v1/core/sched/scheduler.py ``Scheduler.schedule``): each step has a budget of
``max_num_batched_tokens`` tokens; the RUNNING requests are scheduled first, a decode taking one token
(``num_tokens_with_spec + num_output_placeholders − num_computed_tokens``), and a prompt being prefilled
gets ``min(num_new_tokens, token_budget)`` of what is left. A prompt that arrives while the batch
decodes therefore advances by the budget less the decodes, step after step.
"""

from __future__ import annotations

from .. import fmt
from ..result import Result
from .all_reduce import prompt_words
from .decode import BOUND, SPEED_BOUND as SPEED
from .shape import Shape
from ..sizing.memory import batched_tokens_default
from .work import Step, Work, attention_flops, kv_read, kv_written, prefill_step, weights_read


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
    # Little's law: requests in the system = arrival rate × time each spends there. A request of the
    # batch spends at least its own prefill and its decode steps at this batch.
    least = _seconds(one) + steps * sum(decode.seconds)
    rate = shape.batch / least
    result.add("request_rate_bound", rate, "requests/s", f"{rate:,.2f} requests/s",
               f"Little's law: {shape.batch:,} request{'s' if shape.batch > 1 else ''} in flight ÷ ({fmt.duration(_seconds(one))} "
               f"prefill + {steps:,} × {fmt.duration(sum(decode.seconds))} decode steps = {least:.4g} s each at the least) = "
               f"{rate:,.2f} requests/s at most, completed and admitted, with the batch kept full ({SPEED})")


def chunked_values(result: Result, work: Work, shape: Shape, gpu: dict, total: int | None) -> None:
    """A prompt of prompt_tokens arriving while decode_batch sequences decode: the tokens of it each step
    takes, the steps its prefill needs, and the least time of one such mixed step."""
    given = result.inputs.max_num_batched_tokens
    budget, why = (given, "given") if given else batched_tokens_default(total, gpu["name"])
    decodes = shape.batch
    chunk = budget - decodes
    if chunk <= 0:
        result.notes.append(f"prefill_chunks not derived: {decodes:,} decodes take the whole step budget of "
                            f"{budget:,} tokens, so an arriving prompt waits")
        return
    result.add("prefill_chunk_tokens", chunk, "tokens", fmt.commas(chunk),
               f"max_num_batched_tokens {budget:,} ({why}) − {decodes:,} decode token{'s' if decodes > 1 else ''} "
               f"(the running sequences go first, one token each) = {chunk:,} prompt tokens a step")
    steps = -(-shape.prompt // chunk)
    result.add("prefill_chunks", steps, "steps", fmt.commas(steps),
               f"⌈{shape.prompt:,} prompt tokens ÷ {chunk:,} a step⌉ = {steps:,} step{'s' if steps > 1 else ''} "
               f"to prefill the prompt beside {decodes:,} decoding sequence{'s' if decodes > 1 else ''}")
    tokens = decodes + min(chunk, shape.prompt)
    part = min(chunk, shape.prompt)
    memory = compute = 0.0
    seconds = 0.0
    for s in work.stages:
        m = (weights_read(work, s, tokens) + decodes * kv_read(work, s, shape.context) + kv_written(s, part)) \
            / work.bandwidth
        c = (decodes * (s.linear_seconds + attention_flops(work, s, shape.context) / work.rates.attention.flops)
             + part * (s.linear_seconds - s.head_seconds))
        memory, compute, seconds = memory + m, compute + c, seconds + max(m, c)
    result.add("chunked_step_seconds", seconds, "s", fmt.duration(seconds),
               f"the least time of one step that decodes {decodes:,} sequence{'s' if decodes > 1 else ''} and "
               f"prefills {part:,} prompt tokens ({BOUND}): max(memory {fmt.duration(memory)}: the weights, the "
               f"decodes' KV and the chunk's KV written; compute {fmt.duration(compute)}: {tokens:,} tokens' matrix "
               f"work and the decodes' attention) = {fmt.duration(seconds)}{_staged(work)}; the chunk's attention over "
               "its own tokens is left out, which only lowers the bound; every decoding sequence "
               "waits this long for its next token while the prompt is prefilled")


def _seconds(step: Step) -> float:
    return sum(step.seconds)


def _side(step: Step) -> str:
    return "compute" if sum(step.compute_seconds) >= sum(step.memory_seconds) else "memory"


def _staged(work: Work) -> str:
    return ", each stage's larger side summed over the stages" if len(work.stages) > 1 else ""
