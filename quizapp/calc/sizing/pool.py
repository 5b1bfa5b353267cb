"""The KV pool: its blocks and memory, the tokens vLLM logs for it, and the users it holds.

The pool is given in tokens (as a startup log prints it), in bytes, or as what the GPU
budget leaves after the weights (``memory.py``). :func:`size_pool` returns the
:class:`KvPool` it sized, which the users (here) and vLLM's start check (``refusals.py``) take.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import fmt
from .blocks import (
    blocks_for_logged_tokens,
    blocks_per_request,
    blocks_per_request_text,
    held_blocks_per_user,
    held_blocks_text,
    logged_pool_tokens,
    max_concurrency,
)
from ..errors import CalcError
from .memory import Budget, WeightsOnGpu
from .refusals import no_memory_text
from ..result import Result
from ..versions import VllmRules


@dataclass(frozen=True)
class KvPool:
    """The KV pool as sized: whole blocks, their bytes, and the tokens vLLM logs for them."""

    blocks: int
    memory: int
    tokens: int


def size_pool(result: Result, max_model_len: int | None, in_flight: int, budget: Budget | None,
              weights: WeightsOnGpu | None) -> KvPool | None:
    """The pool's blocks, bytes and logged tokens; with max_model_len, vLLM's concurrency and log line.

    None, adding nothing, when the scenario sizes no pool (no pool_tokens, kv_cache_memory_bytes or
    GPU budget).
    """
    if result.inputs.pool_tokens is not None:
        sized = _pool_from_tokens(result, max_model_len, in_flight)
    else:
        sized = _pool_from_memory(result, max_model_len, in_flight, budget, weights)
        if sized is None:
            return None
    if max_model_len is not None:
        _concurrency(result, sized, max_model_len, in_flight)
    return sized


def _pool_from_tokens(result: Result, max_model_len: int | None, in_flight: int) -> KvPool:
    """A pool given as the startup log prints it: the fewest bytes that give the most blocks it reads as."""
    plan, rules = result.plan, result.rules
    if max_model_len is None and rules.tokens_from_concurrency:
        raise CalcError("a pool in tokens is read through max_model_len (vLLM logs int(concurrency × "
                        "max_model_len)): give max_model_len", "max_model_len")
    tokens = result.inputs.pool_tokens
    blocks = blocks_for_logged_tokens(tokens, plan, max_model_len or 1, in_flight, rules)
    if blocks == 0:
        raise CalcError(f"a pool of {tokens:,} tokens is less than one block of {plan.block_size} tokens",
                        "pool_tokens")
    bpb = plan.bytes_per_block
    memory = blocks * bpb
    result.add("num_blocks", blocks, "blocks", fmt.commas(blocks),
               f"{_pool_tokens_to_blocks_text(tokens, blocks, plan, max_model_len, in_flight, rules)}")
    result.add("kv_cache_memory_bytes", memory, "B", fmt.gib(memory),
               f"{blocks:,} blocks × {bpb:,} B per block = {memory:,} B = {fmt.gib(memory)} "
               "(the least memory that gives these blocks)")
    result.add("pool_tokens", tokens, "tokens", fmt.commas(tokens),
               f"GPU KV cache size: {tokens:,} tokens (given, as the startup log prints it)")
    return KvPool(blocks, memory, tokens)


def _pool_from_memory(result: Result, max_model_len: int | None, in_flight: int, budget: Budget | None,
                      weights: WeightsOnGpu | None) -> KvPool | None:
    """A pool in bytes (pinned, or left by the GPU budget): whole blocks, and the tokens vLLM logs."""
    plan, rules = result.plan, result.rules
    memory, why = _pool_memory(result, budget, weights)
    if memory is None:
        return None
    bpb = plan.bytes_per_block
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
    return KvPool(blocks, memory, tokens)


def _concurrency(result: Result, sized: KvPool, max_model_len: int, in_flight: int) -> None:
    """vLLM's "Maximum concurrency" figure and the startup log line(s) that print it."""
    plan, rules = result.plan, result.rules
    blocks, tokens = sized.blocks, sized.tokens
    conc = max_concurrency(blocks, plan, max_model_len, in_flight)
    per_request = blocks_per_request(plan, max_model_len, in_flight)
    result.add("blocks_per_request", per_request, "blocks", fmt.commas(per_request),
               f"{blocks_per_request_text(plan, max_model_len, in_flight)} blocks reserved for one "
               f"{max_model_len:,}-token request")
    result.add("max_concurrency", conc, "x", fmt.conc(conc),
               f"{blocks:,} blocks ÷ {per_request:,} blocks per request = {conc:.4f} → \"{fmt.conc(conc)}\" "
               f"(a request of {max_model_len:,} tokens: {blocks_per_request_text(plan, max_model_len, in_flight)})")
    result.add("log_line", _log_line(tokens, max_model_len, conc, rules), "", "",
               f"the pool and concurrency lines as vLLM {rules.version} prints them")


def _pool_memory(result: Result, budget: Budget | None, gpu_weights: WeightsOnGpu | None) -> tuple[int | None, str]:
    """The KV memory and its arithmetic: pinned, or the request less weights and other memory; None without either.

    Raises the weights' CalcError when the budget needs them and they could not be counted.
    """
    inputs = result.inputs
    if inputs.kv_cache_memory_bytes is not None:
        memory = inputs.kv_cache_memory_bytes
        return memory, f"kv_cache_memory_bytes {memory:,} B = {fmt.gib(memory)} (pinned)"
    if budget is None or gpu_weights is None:
        return None, ""
    requested = budget.requested
    weights, weights_why = gpu_weights.needed()
    other = inputs.non_kv_cache_memory_bytes
    memory = int(requested - weights - other)
    if memory <= 0:
        raise CalcError(
            f"{no_memory_text(result.rules)} ({fmt.gib(requested)} requested − {fmt.gib(weights)} weights − "
            f"{fmt.gib(other)} other = {fmt.gib(memory)})", "gpu_memory_utilization")
    other_why = (f"{other:,} B non-KV memory (given)" if other else
                 "0 B non-KV memory (not given; vLLM measures activations and CUDA graphs at start)")
    return memory, (f"{int(requested):,} B requested − {weights:,} B weights ({weights_why}) − {other_why} "
                    f"= {memory:,} B = {fmt.gib(memory)}")


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
        return (f"⌊{blocks:,} blocks ÷ {per_request:,} blocks per request × {max_model_len:,}⌋ = {tokens:,} "
                f"tokens (vLLM {rules.version}: concurrency × max_model_len)")
    return (f"⌊{blocks:,} blocks ÷ {len(plan.groups)} group{'s' if len(plan.groups) > 1 else ''}⌋ × "
            f"{plan.block_size} tokens per block = {tokens:,} tokens")


def _log_line(tokens: int, max_model_len: int, conc: float, rules: VllmRules) -> str:
    if rules.one_log_line:
        return (f"GPU KV cache size: {tokens:,} tokens, Maximum concurrency for {max_model_len:,} tokens per "
                f"request: {conc:.2f}x")
    return (f"GPU KV cache size: {tokens:,} tokens\nMaximum concurrency for {max_model_len:,} tokens per "
            f"request: {conc:.2f}x")


def users(result: Result, max_model_len: int | None, in_flight: int, sized: KvPool | None) -> None:
    """Users of prompt_tokens + output_tokens: their blocks, how many fit in the pool, and the concurrency
    they give."""
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
    if sized is None:
        return
    blocks = sized.blocks
    held = held_blocks_per_user(plan, per_user)
    fit = (blocks - 1) // held
    result.add("blocks_per_user", held, "blocks", fmt.commas(held),
               f"{held_blocks_text(plan, per_user)} blocks for {per_user:,} tokens{_held_why(plan)}")
    result.add("users_fit", fit, "users", fmt.commas(fit),
               f"⌊({blocks:,} blocks − 1 null block) ÷ {held:,} blocks per user⌋ = {fit:,} user{'s' if fit != 1 else ''}")
    per_request = blocks_per_request(plan, per_user, in_flight)
    conc = blocks / per_request
    result.add("user_concurrency", conc, "x", fmt.conc(conc),
               f"{blocks:,} blocks ÷ {per_request:,} blocks per request = {conc:.4f} (what vLLM would print if "
               f"max_model_len were {per_user:,}: {blocks_per_request_text(plan, per_user, in_flight)})")


def _held_why(plan) -> str:
    """Why a user of a model with local or mamba layers holds fewer blocks than its tokens fill."""
    kinds = {g.spec.kind for g in plan.groups}
    reasons = []
    if "sliding" in kinds:
        reasons.append("a sliding layer keeps only the blocks of its window, the ones before it are freed")
    if "chunked" in kinds:
        reasons.append("a chunked layer keeps only the blocks of the current chunk")
    if "mamba" in kinds:
        reasons.append(f"a mamba layer keeps {plan.mamba_blocks} state block{'s' if plan.mamba_blocks > 1 else ''}")
    return f" ({'; '.join(reasons)})" if reasons else ""
