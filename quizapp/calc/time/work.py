"""The work of a step on one GPU of each pipeline stage: the bytes it must read from memory and
the seconds its matrix work takes at the dense peaks, for a batch at a context.

Read per decode step: every weight the stage's GPU holds except the embedding table (a step looks
up only its tokens' rows), the routed experts the batch's tokens are expected to touch, and each
sequence's KV cache at its context (a sliding or chunked layer at most its window, a linear-attention
layer its fixed state). Compute: 2 FLOPs per parameter a token multiplies by (top-k of the routed
experts), and attention's 2 × context × (QK + PV head dims) per head per layer.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model.config import ModelConfig
from ..model.layout import INDEXER_QUANT_BLOCK, LayerSpec
from ..model.parts import touched_share
from ..model.tensors import EXPERT_WEIGHT, LINEAR_WEIGHT, PLAIN
from ..sizing.pipeline import Stage
from .rates import Rates


@dataclass(frozen=True)
class StageWork:
    dense_bytes: float  # read every step on one GPU: weights other than the routed experts, no embedding table
    expert_bytes: float  # every routed expert on one GPU
    linear_seconds: float  # one token's matmuls on one GPU at the peaks (2 FLOPs per parameter)
    linear_flops: float  # the same in FLOPs
    layers: tuple[tuple[LayerSpec, int], ...]  # the stage's KV layers and how many of each
    active: tuple[tuple[str, float], ...] = ()  # parameters one token multiplies by on one GPU, by kind
    head_seconds: float = 0.0  # the part of linear_seconds that is lm_head (on the last stage)
    head_flops: float = 0.0


@dataclass(frozen=True)
class Work:
    """The scenario's steps, stage by stage, and what scales them."""

    stages: tuple[StageWork, ...]
    bandwidth: float
    rates: Rates
    experts: int  # routed experts per MoE layer (0: dense)
    top_k: int
    token_ranks: int  # how many DP ranks' tokens meet in the MoE layers (each routes its own batch)
    heads: int  # attention heads on one GPU
    head_dims: int  # QK + PV dims of one head
    sparse: tuple[int, int] | None = None  # sparse MLA: (tokens each query attends, indexer key bytes per token)
    weights_format: str = "bfloat16"  # the weights' format (formats.py), as the derivations name it


def stage_work(stage: Stage, tp: int, expert_ranks: int, rates: Rates, experts: int, top_k: int,
               given: int | None = None) -> StageWork:
    """One stage's work; with ``given`` weights on one GPU (weights_bytes), the counted reads scaled to it."""
    read = stage.read
    scale = given / stage.per_gpu(stage.held, tp, expert_ranks) if given is not None else 1.0
    dense = float(read.bytes - read.expert_bytes) / tp * scale
    matmul = dict(read.matmul)
    active = {LINEAR_WEIGHT: matmul.get(LINEAR_WEIGHT, 0) / tp, PLAIN: matmul.get(PLAIN, 0) / tp,
              EXPERT_WEIGHT: matmul.get(EXPERT_WEIGHT, 0) * (top_k / experts if experts else 0) / tp}
    seconds = sum(2 * n / rates.by_kind[kind].flops for kind, n in active.items())
    counts: dict[LayerSpec, int] = {}
    for spec in stage.layout.layers:
        counts[spec] = counts.get(spec, 0) + 1
    head = stage.head_params / tp
    return StageWork(dense, float(read.expert_bytes) / expert_ranks * scale, seconds, 2 * sum(active.values()),
                     tuple(counts.items()), tuple((kind, n) for kind, n in active.items() if n),
                     2 * head / rates.by_kind[PLAIN].flops, 2 * head)


def head_dims(model: ModelConfig) -> int:
    """QK plus PV dims of one attention head: MLA as prefill runs it (nope + rope, v), the fewer FLOPs."""
    if model.is_mla:
        return model.qk_rope_head_dim + int(model.get("qk_nope_head_dim") or 0) + int(model.get("v_head_dim") or 0)
    return 2 * model.head_dim


def sparse_attention(model: ModelConfig) -> tuple[int, int] | None:
    """DeepSeek-V3.2's sparse MLA: each query attends its indexer's top index_topk tokens, and a step reads
    every token's indexer key (layout.py: index_head_dim fp8 values and a 4-byte scale per 128)."""
    if not model.index_head_dim:
        return None
    dim = model.index_head_dim
    return int(model.get("index_topk")), dim + dim // INDEXER_QUANT_BLOCK * 4


def seen(spec: LayerSpec, context: float, sparse: tuple[int, int] | None = None) -> float:
    """Tokens one layer attends over at a context: all of them, or at most a window, a chunk or a sparse top-k."""
    if spec.kind == "mamba":
        return 0.0
    if sparse and spec.kind == "mla":
        return min(context, sparse[0])
    return min(context, spec.window) if spec.window else context


def pairs(spec: LayerSpec, tokens: int, sparse: tuple[int, int] | None = None) -> float:
    """(query, key) pairs causal attention over a prompt computes in one layer."""
    if spec.kind == "mamba":
        return 0.0
    w = sparse[0] if sparse and spec.kind == "mla" else spec.window
    if not w or tokens <= w:
        return tokens * (tokens + 1) / 2
    if spec.kind == "chunked":  # block-diagonal: whole chunks, then the rest
        full, rest = divmod(tokens, w)
        return full * w * (w + 1) / 2 + rest * (rest + 1) / 2
    return w * (w + 1) / 2 + (tokens - w) * w


def kv_read(work: Work, stage: StageWork, context: float) -> float:
    """KV bytes one sequence's decode step reads on one GPU of the stage (sparse MLA: every indexer key,
    the latents of its top-k tokens only)."""
    total = 0.0
    for spec, n in stage.layers:
        if spec.kind == "mamba":
            total += n * spec.state_bytes
        elif work.sparse and spec.kind == "mla":
            index = work.sparse[1]
            total += n * (index * context + (spec.bytes_per_token - index) * seen(spec, context, work.sparse))
        else:
            total += n * spec.bytes_per_token * seen(spec, context)
    return total


def kv_written(stage: StageWork, tokens: int) -> float:
    """KV bytes a prompt of ``tokens`` tokens writes on one GPU of the stage (a mamba layer: its state)."""
    return sum(n * (spec.state_bytes if spec.kind == "mamba" else spec.bytes_per_token * tokens)
               for spec, n in stage.layers)


def attention_flops(work: Work, stage: StageWork, context: float) -> float:
    """One sequence's decode attention FLOPs on one GPU of the stage."""
    return sum(n * 2 * seen(spec, context, work.sparse) * work.head_dims * work.heads for spec, n in stage.layers)


def weights_read(work: Work, stage: StageWork, tokens: float) -> float:
    """Weights a forward pass of ``tokens`` tokens (per DP rank) reads on one GPU of the stage."""
    return stage.dense_bytes + stage.expert_bytes * touched_share(work.experts, work.top_k, tokens * work.token_ranks)


@dataclass(frozen=True)
class Step:
    """One step on one GPU of each stage: bytes, FLOPs and the two sides of the roofline, stage by stage."""

    weights: tuple[float, ...]
    kv: tuple[float, ...]
    flops: tuple[float, ...]
    memory_seconds: tuple[float, ...]
    compute_seconds: tuple[float, ...]

    @property
    def seconds(self) -> tuple[float, ...]:
        return tuple(max(m, c) for m, c in zip(self.memory_seconds, self.compute_seconds))


def decode_step(work: Work, batch: float, context: float) -> Step:
    weights = tuple(weights_read(work, s, batch) for s in work.stages)
    kv = tuple(batch * kv_read(work, s, context) for s in work.stages)
    attention = tuple(batch * attention_flops(work, s, context) for s in work.stages)
    return Step(weights, kv, tuple(batch * s.linear_flops + a for s, a in zip(work.stages, attention)),
                tuple((w + k) / work.bandwidth for w, k in zip(weights, kv)),
                tuple(batch * s.linear_seconds + a / work.rates.attention.flops
                      for s, a in zip(work.stages, attention)))


def prefill_step(work: Work, prompts: int, tokens: int) -> Step:
    """``prompts`` prompts of ``tokens`` tokens in one pass: the weights read once, each prompt's KV written,
    and lm_head for each prompt's last token only (the first output token's logits)."""
    weights = tuple(weights_read(work, s, prompts * tokens) for s in work.stages)
    kv = tuple(prompts * kv_written(s, tokens) for s in work.stages)
    attention = tuple(prompts * sum(n * 2 * pairs(spec, tokens, work.sparse) * work.head_dims * work.heads
                                    for spec, n in s.layers) for s in work.stages)
    body = prompts * tokens
    flops = tuple(body * (s.linear_flops - s.head_flops) + prompts * s.head_flops + a
                  for s, a in zip(work.stages, attention))
    return Step(weights, kv, flops, tuple((w + k) / work.bandwidth for w, k in zip(weights, kv)),
                tuple(body * (s.linear_seconds - s.head_seconds) + prompts * s.head_seconds + a / work.rates.attention.flops
                      for s, a in zip(work.stages, attention)))
