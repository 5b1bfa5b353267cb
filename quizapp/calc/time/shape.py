"""What the bounds are for: the batch decoded together and the request's lengths.

The batch is ``batch_size`` capped at vLLM's ``max_num_seqs``; a request is the scenario's
prompt and output tokens, or 1,024 and 256 when it gives none, so a bare scenario still has a
time to first token. A decode step is bounded at the mean context of the request's steps, since
each step's memory and compute grow linearly with its context: the bound at the mean, times the
steps, is at most the sum of the steps' own bounds.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import fmt
from ..fmt import GIB
from ..result import Result
from ..sizing.memory import batched_tokens_default

DEFAULT_PROMPT_TOKENS = 1024
DEFAULT_OUTPUT_TOKENS = 256


@dataclass(frozen=True)
class Shape:
    batch: int  # sequences decoded together
    prompt: int
    output: int

    @property
    def context(self) -> int:
        """The mean context of the decode steps (tokens prompt + 1 … prompt + output − 1), rounded down."""
        return self.prompt + self.output // 2


def max_num_seqs_default(total_memory: int | None, gpu_name: str, batched: int) -> tuple[int, str]:
    """vLLM's max_num_seqs for ``vllm serve`` (engine/arg_utils.py get_batch_defaults): 1,024 on a GPU of
    at least 70 GiB that is not an A100, else 256, and never above max_num_batched_tokens."""
    gib = (total_memory or 0) / GIB
    if gib >= 70 and "a100" not in gpu_name.lower():
        seqs, why = 1024, f"1,024 on a {gib:.0f} GiB GPU (≥ 70 GiB, not A100)"
    else:
        seqs, why = 256, "256 on GPUs under 70 GiB, A100s and an unknown GPU"
    if batched < seqs:
        return batched, f"{why}, capped at max_num_batched_tokens {batched:,}"
    return seqs, why


def request_shape(result: Result, gpu: dict, total_memory: int | None) -> Shape:
    """The batch and the request lengths the bounds use, added as decode_batch and decode_context_tokens."""
    inputs = result.inputs
    batched = inputs.max_num_batched_tokens or batched_tokens_default(total_memory, gpu["name"])[0]
    if inputs.max_num_seqs is not None:
        cap, cap_why = inputs.max_num_seqs, "given"
    else:
        cap, cap_why = max_num_seqs_default(total_memory, gpu["name"], batched)
    batch = min(inputs.batch_size, cap)
    capped = f"batch_size {inputs.batch_size:,} capped at max_num_seqs {cap:,} ({cap_why})" if batch < inputs.batch_size \
        else f"batch_size {inputs.batch_size:,}" + (" (default)" if inputs.batch_size == 1 else "") + \
        f", within max_num_seqs {cap:,} ({cap_why})"
    fit = result.get("users_fit")
    room = (f"; the KV pool holds only {fit:,} users of {result['tokens_per_user']:,} tokens, so vLLM would run at most "
            f"that many at once (the bounds are for the batch as given)" if fit is not None and fit < batch else "")
    result.add("decode_batch", batch, "sequences", fmt.commas(batch),
               f"{capped}: {batch:,} sequence{'s' if batch > 1 else ''} decoded together{room}")
    shape = Shape(batch, *_lengths(result))
    result.add("decode_context_tokens", shape.context, "tokens", fmt.commas(shape.context),
               f"{shape.prompt:,} prompt + {shape.output:,} output ÷ 2 = {shape.context:,} tokens: the mean context of "
               f"the request's decode steps{_default_words(result)}")
    return shape


def _lengths(result: Result) -> tuple[int, int]:
    inputs = result.inputs
    if inputs.prompt_tokens is not None:
        return inputs.prompt_tokens, inputs.output_tokens or 0
    longest = result.get("max_model_len") or inputs.max_model_len or DEFAULT_PROMPT_TOKENS + DEFAULT_OUTPUT_TOKENS
    prompt = min(DEFAULT_PROMPT_TOKENS, max(1, longest - 1))
    return prompt, min(DEFAULT_OUTPUT_TOKENS, longest - prompt)


def _default_words(result: Result) -> str:
    if result.inputs.prompt_tokens is not None:
        return ""
    return (f" (no prompt_tokens given: the time bounds take a request of {DEFAULT_PROMPT_TOKENS:,} prompt and "
            f"{DEFAULT_OUTPUT_TOKENS:,} output tokens, within max_model_len)")
