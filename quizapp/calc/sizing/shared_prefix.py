"""What prefix caching shares and keeps: the blocks of a prompt's cached prefix, the users a pool
holds when they all start with it, and how many distinct prefixes the free blocks keep.

vLLM's rules (v1/core):

- Only full blocks are cached and hit: ``kv_cache_manager.py get_computed_blocks`` ("the computed
  blocks must be full"), and a hit stops at ``request.num_tokens - 1``, because the last prompt
  token is computed again for its logits. A prefix of P tokens in a prompt of N saves
  ⌊min(P, N − 1) ÷ block_size⌋ blocks; its partial last block is the request's own.
- A hit block is shared, not copied: ``block_pool.py touch`` raises its ref_cnt (and takes it off
  the free queue). So users who all start with the prefix hold its blocks once between them.
- A finished request's blocks go back to the free queue with their hashes (``block_pool.py
  free_blocks``), last block first (``single_type_kv_cache_manager.py free``: "Free blocks in
  reverse order so that the tail blocks are freed first"), and a cached block is evicted only when
  ``get_new_blocks`` pops it from the queue's head for a new allocation (``_maybe_evict_cached_block``).
  The cache is therefore the blocks that running requests do not hold, in LRU order.

Sized for models whose layers all keep every token (one uniform group); a sliding-window or
mamba group caches differently, and these values are left out for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import fmt
from ..errors import CalcError
from ..result import Result

if TYPE_CHECKING:
    from .pool import KvPool


def shared_prefix(result: Result, sized: KvPool | None) -> None:
    """prefix_blocks and prefix_hit_tokens from cached_prefix_tokens; with users and a pool, the users
    that fit sharing it, the blocks running requests leave to the cache and the prefixes those keep."""
    inputs, plan = result.inputs, result.plan
    prefix = inputs.cached_prefix_tokens
    if prefix is None:
        return
    if not plan.is_uniform:
        result.notes.append("cached_prefix_tokens: prefix sharing is sized for models whose layers all keep every "
                            "token; this model's sliding-window or linear-attention groups cache differently")
        return
    block = plan.block_size
    prompt = inputs.prompt_tokens
    if prompt is not None and prefix > prompt:
        raise CalcError(f"cached_prefix_tokens {prefix:,} is longer than prompt_tokens {prompt:,}; the prefix is "
                        "the start of the prompt", "cached_prefix_tokens")
    hit = min(prefix, prompt - 1) if prompt is not None else prefix
    shared = hit // block
    capped = (f"min({prefix:,}, {prompt:,} prompt − 1: the last prompt token is computed again for its logits) = "
              f"{hit:,} tokens; " if prompt is not None and hit < prefix else "")
    result.add("prefix_blocks", shared, "blocks", fmt.commas(shared),
               f"{capped}⌊{hit:,} ÷ {block} tokens per block⌋ = {shared:,} full blocks a later request hits (a partial "
               "block is never cached)")
    result.add("prefix_hit_tokens", shared * block, "tokens", fmt.commas(shared * block),
               f"{shared:,} blocks × {block} tokens = {shared * block:,} prompt tokens a hit skips in prefill")
    held = result.get("blocks_per_user")
    if sized is None or held is None:
        return
    free = sized.blocks - 1
    own = held - shared
    fit = (free - shared) // own if free >= shared else 0
    result.add("users_fit_shared_prefix", fit, "users", fmt.commas(fit),
               f"⌊({sized.blocks:,} blocks − 1 null block − {shared:,} shared prefix blocks, held once) ÷ ({held:,} − "
               f"{shared:,} = {own:,} blocks of each user's own)⌋ = {fit:,} user{'s' if fit != 1 else ''}")
    running = inputs.batch_size
    if running * held > free or not shared:
        why = ("the prefix fills no whole block" if not shared else
               f"{running:,} running requests of {held:,} blocks need more than the pool's {free:,}")
        result.notes.append(f"prefix_cache_room_blocks and prefixes_kept not derived: {why}")
        return
    room = free - running * held
    kept = room // shared
    result.add("prefix_cache_room_blocks", room, "blocks", fmt.commas(room),
               f"{sized.blocks:,} blocks − 1 null block − {running:,} running requests (batch_size) × {held:,} blocks = "
               f"{room:,} blocks no running request holds: the cached blocks of finished requests wait there, and a "
               "new allocation evicts them from the least recently used")
    result.add("prefixes_kept", kept, "prefixes", fmt.commas(kept),
               f"⌊{room:,} free blocks ÷ {shared:,} blocks per prefix⌋ = {kept:,} distinct prefixes of "
               f"{prefix:,} tokens the free blocks can keep at most, while {running:,} requests run")
