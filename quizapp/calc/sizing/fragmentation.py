"""PagedAttention's internal fragmentation: the token slots a request's last block leaves empty.

A block holds ``block_size`` tokens of one request (Kwon et al., SOSP 2023, §4.1-4.2), so a request of
T tokens takes ⌈T ÷ block_size⌉ blocks in each attention group and leaves ⌈T ÷ block_size⌉ × block_size − T
slots of its last block empty, in every layer: the only memory the scheme wastes, at most block_size − 1
slots per request and group. Linear-attention (mamba) state blocks hold a whole state and waste none here.
"""

from __future__ import annotations

from .. import fmt
from ..result import Result
from .blocks import cdiv, held_blocks_per_user


def fragmentation_values(result: Result) -> None:
    """last_block_empty_slots and fragmentation_share, for a user of prompt + output tokens."""
    inputs, plan = result.inputs, result.plan
    if inputs.prompt_tokens is None:
        return
    tokens = inputs.prompt_tokens + (inputs.output_tokens or 0)
    size = plan.block_size
    empty = cdiv(tokens, size) * size - tokens
    result.add("last_block_empty_slots", empty, "tokens", fmt.commas(empty),
               f"⌈{tokens:,} ÷ {size}⌉ × {size} − {tokens:,} = {cdiv(tokens, size) * size:,} − {tokens:,} = "
               f"{empty:,} empty token slots in the request's last block (of each attention layer)")
    groups = sum(1 for g in plan.groups if g.spec.kind != "mamba")
    held = held_blocks_per_user(plan, tokens)
    wasted = empty * plan.kv_bytes_per_token * groups
    share = wasted / (held * plan.bytes_per_block)
    result.add("fragmentation_share", share, "", f"{share:.2%}",
               f"{empty:,} empty slots × {plan.kv_bytes_per_token:,} B per token slot × {groups} attention "
               f"group{'s' if groups > 1 else ''} = {wasted:,} B of the {held:,} blocks × "
               f"{plan.bytes_per_block:,} B = {held * plan.bytes_per_block:,} B the user holds: {share:.2%}")
