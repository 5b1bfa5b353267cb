"""From layers to vLLM's block accounting: groups, bytes per block, blocks per request.

A block id owns one page in every layer of a group; groups of a hybrid model share the
same block ids (docs/research/vllm-kv.md §2, §4, §5).
"""

from __future__ import annotations

from dataclasses import dataclass

from typing import TYPE_CHECKING

from ...lru import per_object
from ..hardware.catalog import load_gpu
from ..errors import CalcError
from ..model.layout import Layout, LayerSpec
from .prefix_caching import MambaCache
from ..versions import VllmRules

if TYPE_CHECKING:
    from ..inputs import Inputs
    from ..model.config import ModelConfig


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
    notes: tuple[str, ...] = ()  # what vLLM decided about the groups, in words
    mamba_blocks: int = 1  # state blocks a request keeps in each mamba group (2 in "align" mode)
    mamba_alignment: int = 16  # a block size raised for a mamba state is a multiple of this

    @property
    def bytes_per_block(self) -> int:
        return self.group_size * self.page_bytes

    @property
    def kv_bytes_per_token(self) -> int:
        """What the pool charges per token slot: bytes per block ÷ tokens per block."""
        return self.bytes_per_block // self.block_size

    @property
    def is_uniform(self) -> bool:
        """One group whose layers keep every token: a block holds block_size tokens of a request,
        and ⌈tokens ÷ block_size⌉ blocks hold a request (a model whose layers all slide is not)."""
        return len(self.groups) == 1 and self.groups[0].spec.kind in ("full", "mla")

    def describe(self) -> str:
        counts: dict[str, list[int]] = {}
        for g in self.groups:
            noun = "chunk" if g.spec.kind == "chunked" else "window"
            label = g.spec.kind + (f" ({noun} {g.spec.window:,})" if g.spec.window else "")
            counts.setdefault(label, []).append(g.num_layers)
        parts = [f"{len(v)} {k} group{'s' if len(v) > 1 else ''} of {v[0]}" for k, v in counts.items()]
        return ", ".join(parts)


# Kept per layout (a kept one is one object per catalog model, KV dtype and TP) and release: every
# pool, context or batch of a model groups its layers alike, and hashing each layer's spec to
# bucket them cost more than the rest of the block accounting.
@per_object(512)
def plan_blocks(layout: Layout, block_size: int, rules: VllmRules,
                disable_hybrid_kv_cache_manager: bool = False, cache: MambaCache = MambaCache()) -> BlockPlan:
    """vLLM's KV cache groups for these layers; ``cache`` is how the mamba layers cache (``prefix_caching.py``)."""
    layers, notes = _local_layers(list(layout.layers), rules, disable_hybrid_kv_cache_manager)
    buckets: dict[LayerSpec, int] = {}
    for spec in layers:
        buckets[spec] = buckets.get(spec, 0) + 1

    if len(buckets) == 1:
        spec, count = next(iter(buckets.items()))
        return BlockPlan((Group(spec, count),), count, block_size, block_size * spec.bytes_per_token,
                         notes=notes)

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
        aligned = cache.alignment * cdiv(state, cache.alignment * attn_page_1tok)
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
    return BlockPlan(tuple(groups), group_size, block_size, block_size * attn_page_1tok, padding, notes,
                     cache.blocks, cache.alignment)


LOCAL_KINDS = ("sliding", "chunked")


def _local_layers(layers: list[LayerSpec], rules: VllmRules, disabled: bool) -> tuple[list[LayerSpec], tuple]:
    """Sliding and chunked layers sized as full attention when the hybrid manager is off.

    vLLM's unify_hybrid_kv_cache_specs promotes them only when full-attention layers sit beside
    them; a model whose layers all slide keeps its sliding spec. Chunked local attention turns
    the hybrid manager off by default before 0.14 (VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE).
    """
    kinds = {s.kind for s in layers}
    chunked_off = "chunked" in kinds and not rules.chunked_local_in_hybrid_manager
    if disabled and "mamba" in kinds:
        raise CalcError("the hybrid KV cache manager cannot be disabled for a model with linear-attention "
                        "(mamba) layers", "disable_hybrid_kv_cache_manager")
    if not (disabled or chunked_off) or "full" not in kinds or not kinds & set(LOCAL_KINDS):
        return layers, ()
    notes = ()
    if chunked_off and not disabled:
        notes = (f"vLLM {rules.version} disables the hybrid KV cache manager for chunked local attention unless "
                 "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1 (the default from 0.14), so chunked "
                 "layers keep every token like full attention",)
    return [LayerSpec("full", s.bytes_per_token) if s.kind in LOCAL_KINDS else s for s in layers], notes


def group_blocks(group: Group, tokens: int, block_size: int, in_flight: int, mamba_blocks: int = 1) -> int:
    """Blocks vLLM reserves for one request of ``tokens`` tokens in this group: the most it can hold
    while its last batches are in flight (``max_memory_usage_bytes`` of the group's spec)."""
    spec = group.spec
    if spec.kind == "sliding":
        # +1: the window need not start at a block boundary.
        return cdiv(min(spec.window - 1 + in_flight, tokens), block_size) + 1
    if spec.kind == "chunked":
        # vLLM's ChunkedLocalAttentionSpec: one chunk plus the tokens in flight, no extra block.
        return cdiv(min(spec.window + in_flight, tokens), block_size)
    if spec.kind == "mamba":
        return mamba_blocks
    return cdiv(tokens, block_size)


def blocks_per_request(plan: BlockPlan, tokens: int, in_flight: int) -> int:
    return sum(group_blocks(g, tokens, plan.block_size, in_flight, plan.mamba_blocks) for g in plan.groups)


def held_blocks(group: Group, tokens: int, block_size: int, mamba_blocks: int = 1) -> int:
    """Blocks a request that has computed ``tokens`` tokens keeps in this group once nothing is in flight.

    A sliding layer frees the blocks wholly before its window (vLLM's SlidingWindowManager
    get_num_skipped_tokens: tokens − window + 1 are skipped); a chunked layer frees the chunks
    before the current one. Full attention keeps every block.
    """
    spec, allocated = group.spec, cdiv(tokens, block_size)
    if spec.kind == "sliding":
        return allocated - max(0, tokens - spec.window + 1) // block_size
    if spec.kind == "chunked":
        return allocated - tokens // spec.window * spec.window // block_size
    if spec.kind == "mamba":
        return mamba_blocks
    return allocated


def held_blocks_per_user(plan: BlockPlan, tokens: int) -> int:
    return sum(held_blocks(g, tokens, plan.block_size, plan.mamba_blocks) for g in plan.groups)


def held_blocks_text(plan: BlockPlan, tokens: int) -> str:
    """Blocks a user of ``tokens`` tokens holds, group by group, in words."""
    total = held_blocks_per_user(plan, tokens)
    if plan.is_uniform:
        return f"⌈{tokens:,} ÷ {plan.block_size}⌉ = {total:,}"
    parts: dict[tuple[str, int], int] = {}
    for g in plan.groups:
        key = (g.spec.kind, held_blocks(g, tokens, plan.block_size, plan.mamba_blocks))
        parts[key] = parts.get(key, 0) + 1
    terms = [f"{n}×{blocks:,} {kind}" if n > 1 else f"{blocks:,} {kind}" for (kind, blocks), n in parts.items()]
    return f"{' + '.join(terms)} = {total:,}"


def blocks_per_request_text(plan: BlockPlan, tokens: int, in_flight: int) -> str:
    """The sum of blocks per group, in words, e.g. '512 + 513'."""
    if plan.is_uniform:
        return f"⌈{tokens:,} ÷ {plan.block_size}⌉ = {blocks_per_request(plan, tokens, in_flight):,}"
    if len(plan.groups) == 1:
        return _local_group_text(plan.groups[0].spec, tokens, plan.block_size, in_flight)
    parts: dict[tuple[str, int], int] = {}
    for g in plan.groups:
        key = (g.spec.kind, group_blocks(g, tokens, plan.block_size, in_flight, plan.mamba_blocks))
        parts[key] = parts.get(key, 0) + 1
    terms = [f"{n}×{blocks:,} {kind}" if n > 1 else f"{blocks:,} {kind}" for (kind, blocks), n in parts.items()]
    return f"{' + '.join(terms)} = {blocks_per_request(plan, tokens, in_flight):,}"


def _local_group_text(spec: LayerSpec, tokens: int, block_size: int, in_flight: int) -> str:
    """A sliding or chunked group's blocks for one request, with vLLM's formula."""
    if spec.kind == "sliding":
        held = min(spec.window - 1 + in_flight, tokens)
        return (f"⌈min(window {spec.window:,} − 1 + {in_flight:,} in flight, {tokens:,}) ÷ {block_size}⌉ + 1 "
                f"= ⌈{held:,} ÷ {block_size}⌉ + 1 = {cdiv(held, block_size) + 1:,}")
    held = min(spec.window + in_flight, tokens)
    return (f"⌈min(chunk {spec.window:,} + {in_flight:,} in flight, {tokens:,}) ÷ {block_size}⌉ = "
            f"{cdiv(held, block_size):,}")


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



# --- block size -------------------------------------------------------------------------------

DEFAULT_BLOCK_SIZE = 16
FP8_CACHES = ("fp8", "fp8_e4m3", "fp8_e5m2")


def choose_block_size(model: ModelConfig | None, layout: Layout, inputs: Inputs,
                      rules: VllmRules) -> tuple[int, list[str]]:
    """The block size vLLM runs with: the one given, or the MLA backend's on the given GPU.

    MLA backends fix their own block sizes (docs/research/vllm-kv.md §3.3). A block_size of 16
    reads as not given, since 16 is also the default.
    """
    size = inputs.block_size
    if model is None or not model.is_mla:
        return size, []
    given = size != DEFAULT_BLOCK_SIZE
    if model.index_head_dim:
        return _sparse_mla_block_size(size, given, rules)
    gpu = load_gpu(inputs.gpu) if inputs.gpu else None
    if gpu is None or not gpu.get("compute_capability"):
        return size, [] if given else [_mla_block_note(rules)]
    if gpu.get("platform", "cuda") != "cuda":
        # ROCm's torch reports gfx942 as capability 9.4: not Hopper, whose backends the rules below are.
        return size, [f"block_size {size}: the calculator follows vLLM's CUDA MLA backends; on {gpu['display_name']} "
                      "(ROCm) vLLM's AITER or Triton MLA backend may choose another block size"]
    major = int(str(gpu["compute_capability"]).split(".")[0])
    chosen, backend = _mla_backend_block(major, size, given, layout.kv_cache_dtype, rules)
    if chosen == size and not backend:
        return size, []
    where = f"{gpu['display_name']} (compute capability {gpu['compute_capability']})"
    return chosen, [f"block_size {chosen}: vLLM {rules.version}'s MLA backend on {where} is {backend}"]


def _mla_backend_block(major: int, size: int, given: bool, kv_cache_dtype: str,
                       rules: VllmRules) -> tuple[int, str]:
    """(block size, the backend and why) for dense MLA on a GPU of this compute capability."""
    if rules.mla_block_rule in ("0.11", "0.14"):
        # platforms/cuda.py check_and_update_config forces the size, even over --block-size:
        # 0.11 when it differs, 0.14 when it is not a multiple.
        forced = {9: (64, "FlashMLA"), 10: (128, "CUTLASS_MLA")}.get(major)
        if forced is None:
            return size, ""
        block, name = forced
        if rules.mla_block_rule == "0.11":
            return block, f"{name}, which forces {block}"
        return (size if size % block == 0 else block), f"{name}, which forces a multiple of {block}"
    if given:  # from 0.18 a --block-size the backend supports is kept
        return size, ""
    if major == 9 and kv_cache_dtype in FP8_CACHES:
        return 64, "FLASHMLA (FLASH_ATTN_MLA, first on Hopper, has no fp8 cache), which takes 64"
    if major == 9:
        return 16, "FLASH_ATTN_MLA, which takes multiples of 16"
    if major == 10:
        return 32, "FLASHINFER_MLA, which takes 32 or 64 (the smallest is chosen)"
    return 16, "TRITON_MLA, which takes multiples of 16"


def _sparse_mla_block_size(size: int, given: bool, rules: VllmRules) -> tuple[int, list[str]]:
    """DeepSeek-V3.2: every sparse MLA backend and the indexer's cache take 64-token blocks on CUDA."""
    if rules.mla_block_rule in ("0.11", "0.14") or not given:
        return 64, [f"block_size 64: vLLM {rules.version}'s sparse MLA backends (FLASHMLA_SPARSE and the indexer "
                    "cache) take 64-token blocks"]
    return size, [f"block_size {size} given: vLLM's sparse MLA backends and the indexer cache take 64-token "
                  "blocks on CUDA, so vLLM may refuse another size"]


def _mla_block_note(rules: VllmRules) -> str:
    if rules.mla_block_rule == "0.18":
        return (f"MLA attention backends choose their own block size by GPU: in vLLM {rules.version}, 16 on Hopper "
                "(FLASH_ATTN_MLA; 64 with FLASHMLA for an fp8 cache), 32 on Blackwell (FLASHINFER_MLA), 16 elsewhere "
                "(TRITON_MLA). Give gpu, or block_size, to size it for one.")
    return (f"MLA attention backends choose their own block size by GPU: vLLM {rules.version} forces 64 on Hopper "
            "(FlashMLA) and 128 on Blackwell (CUTLASS_MLA), and keeps 16 elsewhere. Give gpu, or block_size, to "
            "size it for one.")
