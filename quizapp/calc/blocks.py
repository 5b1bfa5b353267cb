"""From layers to vLLM's block accounting: groups, bytes per block, blocks per request.

A block id owns one page in every layer of a group; groups of a hybrid model share the
same block ids (docs/research/vllm-kv.md §2, §4, §5).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import CalcError
from .layout import Layout, LayerSpec
from .versions import VllmRules


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class Group:
    spec: LayerSpec
    num_layers: int


@dataclass(frozen=True)
class BlockPlan:
    groups: tuple[Group, ...]
    group_size: int  # layers (pages) behind one block id
    block_size: int  # tokens per block
    page_bytes: int  # one layer's page
    mamba_padding: float = 0.0  # padding added to a mamba page, as a share of its state (vLLM's log)

    @property
    def bytes_per_block(self) -> int:
        return self.group_size * self.page_bytes

    @property
    def kv_bytes_per_token(self) -> int:
        """What the pool charges per token slot: bytes per block ÷ tokens per block."""
        return self.bytes_per_block // self.block_size

    @property
    def is_uniform(self) -> bool:
        return len(self.groups) == 1

    def describe(self) -> str:
        counts: dict[str, list[int]] = {}
        for g in self.groups:
            label = g.spec.kind + (f" (window {g.spec.window:,})" if g.spec.window else "")
            counts.setdefault(label, []).append(g.num_layers)
        parts = [f"{len(v)} {k} group{'s' if len(v) > 1 else ''} of {v[0]}" for k, v in counts.items()]
        return ", ".join(parts)


def plan_blocks(layout: Layout, block_size: int, rules: VllmRules,
                disable_hybrid_kv_cache_manager: bool = False) -> BlockPlan:
    layers = list(layout.layers)
    if disable_hybrid_kv_cache_manager:
        if any(s.kind == "mamba" for s in layers):
            raise CalcError("the hybrid KV cache manager cannot be disabled for a model with linear-attention "
                            "(mamba) layers", "disable_hybrid_kv_cache_manager")
        # vLLM then sizes sliding layers as full attention.
        layers = [LayerSpec("full", s.bytes_per_token) if s.kind == "sliding" else s for s in layers]

    buckets: dict[LayerSpec, int] = {}
    for spec in layers:
        buckets[spec] = buckets.get(spec, 0) + 1

    if len(buckets) == 1:
        spec, count = next(iter(buckets.items()))
        return BlockPlan((Group(spec, count),), count, block_size, block_size * spec.bytes_per_token)

    attention = {s for s in buckets if s.kind != "mamba"}
    per_token = {s.bytes_per_token for s in attention}
    if len(per_token) != 1:
        raise CalcError("this model's attention layers have different page sizes; the calculator sizes hybrid "
                        "models only when every attention layer stores the same bytes per token", "config")
    attn_page_1tok = per_token.pop()
    padding = 0.0
    mamba = [s for s in buckets if s.kind == "mamba"]
    if mamba:
        state = max(s.state_bytes for s in mamba)
        # vLLM raises the block size until one attention page holds a whole mamba state (§5).
        aligned = 16 * cdiv(state, 16 * attn_page_1tok)
        block_size = max(block_size, aligned)
        padding = (block_size * attn_page_1tok - state) / state

    sizes = list(buckets.values())
    if rules.group_size_prefers_max and max(sizes) < 1.5 * min(sizes):
        group_size = max(sizes)
    else:
        group_size = min(sizes)
    groups = []
    for spec, count in buckets.items():
        for start in range(0, count, group_size):
            groups.append(Group(spec, min(group_size, count - start)))
    return BlockPlan(tuple(groups), group_size, block_size, block_size * attn_page_1tok, padding)


def group_blocks(group: Group, tokens: int, block_size: int, in_flight: int) -> int:
    """Blocks one request of ``tokens`` tokens holds in this group at most."""
    spec = group.spec
    if spec.kind == "sliding":
        # +1: the window need not start at a block boundary.
        return cdiv(min(spec.window - 1 + in_flight, tokens), block_size) + 1
    if spec.kind == "mamba":
        return 1
    return cdiv(tokens, block_size)


def blocks_per_request(plan: BlockPlan, tokens: int, in_flight: int) -> int:
    return sum(group_blocks(g, tokens, plan.block_size, in_flight) for g in plan.groups)


def blocks_per_request_text(plan: BlockPlan, tokens: int, in_flight: int) -> str:
    """The sum of blocks per group, in words, e.g. '512 + 513'."""
    if plan.is_uniform:
        return f"⌈{tokens:,} ÷ {plan.block_size}⌉ = {blocks_per_request(plan, tokens, in_flight):,}"
    parts: dict[tuple[str, int], int] = {}
    for g in plan.groups:
        key = (g.spec.kind, group_blocks(g, tokens, plan.block_size, in_flight))
        parts[key] = parts.get(key, 0) + 1
    terms = [f"{n}×{blocks:,} {kind}" if n > 1 else f"{blocks:,} {kind}" for (kind, blocks), n in parts.items()]
    return f"{' + '.join(terms)} = {blocks_per_request(plan, tokens, in_flight):,}"


def max_concurrency(num_blocks: int, plan: BlockPlan, max_model_len: int, in_flight: int) -> float:
    """vLLM's get_max_concurrency_for_kv_cache_config: blocks ÷ blocks one full request needs."""
    return num_blocks / blocks_per_request(plan, max_model_len, in_flight)


def logged_pool_tokens(num_blocks: int, plan: BlockPlan, max_model_len: int, in_flight: int,
                       rules: VllmRules) -> int:
    """The N of "GPU KV cache size: N tokens" as the given vLLM release prints it."""
    if rules.tokens_from_concurrency:
        return int(max_concurrency(num_blocks, plan, max_model_len, in_flight) * max_model_len)
    return num_blocks // len(plan.groups) * plan.block_size


def blocks_for_logged_tokens(pool_tokens: int, plan: BlockPlan, max_model_len: int, in_flight: int,
                             rules: VllmRules) -> int:
    """The most blocks whose log line reads at most ``pool_tokens`` (the log is monotone in blocks)."""
    lo, hi = 0, pool_tokens + 1
    while logged_pool_tokens(hi, plan, max_model_len, in_flight, rules) <= pool_tokens:
        hi *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if logged_pool_tokens(mid, plan, max_model_len, in_flight, rules) <= pool_tokens:
            lo = mid
        else:
            hi = mid
    return lo


def estimate_max_model_len(memory: int, plan: BlockPlan, max_model_len: int, in_flight: int) -> int:
    """vLLM's estimate_max_model_len: the longest request whose blocks fit in ``memory`` bytes."""
    lo, hi = 0, max_model_len
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if blocks_per_request(plan, mid, in_flight) * plan.bytes_per_block <= memory:
            lo = mid
        else:
            hi = mid - 1
    return lo

