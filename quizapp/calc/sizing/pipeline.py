"""Pipeline parallelism: the layers each stage holds, its KV bytes per token and its weights, and
the stage whose pool sets every stage's blocks.

vLLM splits the decoder layers with ``get_pp_indices`` (vllm/distributed/utils.py): an even
share each, and the remainder to the stages before the last, from the second-to-last back ("the
last partition is excluded because it often contains an additional norm layer"). Each stage
sizes its own KV cache from what its GPUs have left, and ``get_kv_cache_configs``
(vllm/v1/core/kv_cache_utils.py) then gives every stage "the smallest [num_blocks] among all
ranks", since one scheduler hands out block ids for all of them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from math import ceil

from .. import fmt
from ..errors import CalcError
from ..model.config import NO_ATTENTION, ModelConfig
from ..model.formats import Format, model_format
from ..model.layout import Layout
from ..model.parts import Tensors, expert_ranks, format_key, head_tensors, layer_tensors, tied
from ..result import Result
from .blocks import plan_blocks
from .memory import Budget, WeightsOnGpu


def partition(num_layers: int, stages: int) -> list[int]:
    """Layers per stage, as vLLM's get_pp_indices gives them (without VLLM_PP_LAYER_PARTITION)."""
    counts = [num_layers // stages] * stages
    for i in range(2, num_layers % stages + 2):
        counts[-i] += 1
    return counts


def stage_ranges(num_layers: int, stages: int) -> list[range]:
    ranges, start = [], 0
    for count in partition(num_layers, stages):
        ranges.append(range(start, start + count))
        start += count
    return ranges


@dataclass(frozen=True)
class Stage:
    """One pipeline stage: its decoder layers, its share of the KV layout, and the tensors it holds
    and reads per step (over all its TP GPUs)."""

    index: int
    layers: range
    layout: Layout
    held: Tensors  # in GPU memory: its layers, embed_tokens on the first, norm and lm_head on the last
    read: Tensors  # read by a forward pass: not the embedding table (only a token's row is looked up)
    head_params: int = 0  # lm_head's, on the last stage: a prefill computes logits for its last token only

    def per_gpu(self, tensors: Tensors, tp: int, expert_ranks: int) -> float:
        """Bytes on one GPU of the stage: routed experts over ``expert_ranks`` GPUs, the rest over TP."""
        return float((tensors.bytes - tensors.expert_bytes) / tp + tensors.expert_bytes / expert_ranks)


# Stage lists kept per model object, by layout, format and stage count: at most this many, so a
# stream of scenarios with ever new parallelism cannot grow a catalog model without bound.
STAGES_KEPT = 32


def stages(model: ModelConfig, layout: Layout, weights_dtype: str, pp: int) -> list[Stage]:
    """Every stage of ``pp`` (1 for the whole model), with the layers vLLM gives it."""
    if pp > model.num_layers:
        raise CalcError(f"pipeline_parallel_size {pp} is more than the model's {model.num_layers} layers",
                        "pipeline_parallel_size")
    weight_format = model_format(model, weights_dtype)
    cached = model.__dict__.setdefault("_stages", {})  # a frozen dataclass's own cache slot
    key = (layout, format_key(weight_format), pp)
    if key not in cached:
        if len(cached) >= STAGES_KEPT:
            cached.clear()
        cached[key] = _stages(model, layout, weight_format, pp)
    return cached[key]


def _stages(model: ModelConfig, layout: Layout, weight_format: Format, pp: int) -> list[Stage]:
    distinct, shape_of = layer_tensors(model, weight_format)
    embeddings, norm, lm_head = head_tensors(model, weight_format)
    attention_at = [i for i, kind in enumerate(model.layer_types) if kind != NO_ATTENTION]
    specs = dict(zip(attention_at, layout.layers))
    found = []
    for index, layers in enumerate(stage_ranges(model.num_layers, pp)):
        first, last = index == 0, index == pp - 1
        body = sum((distinct[shape].times(n) for shape, n in Counter(shape_of[i] for i in layers).items()), Tensors())
        held = body + (embeddings if first else Tensors())
        if last:  # a tied lm_head on a one-stage model is the embed_tokens already held
            held = held + norm + (lm_head if not (tied(model) and first) else Tensors())
        read = body + (norm + lm_head if last else Tensors())
        stage_layout = replace(layout, layers=tuple(specs[i] for i in layers if i in specs), draft_layers=0)
        found.append(Stage(index, layers, stage_layout, held, read, lm_head.params if last else 0))
    return found


def check_pipeline(model: ModelConfig | None, layout: Layout, pp: int) -> None:
    """The models whose pool the calculator sizes per stage: every layer keeps every token (one KV group)."""
    if pp == 1:
        return
    if model is None:
        raise CalcError("pipeline_parallel_size needs a model or config: a measured kv_bytes_per_token is already "
                        "per stage", "pipeline_parallel_size")
    if layout.draft_layers:
        raise CalcError("draft layers with pipeline parallelism are not sized", "num_draft_layers")
    kinds = {spec.kind for spec in layout.layers}
    if kinds not in ({"full"}, {"mla"}):
        raise CalcError(f"pipeline_parallel_size > 1 is sized for models whose layers all keep every token (one KV "
                        f"group); {model.name} has {', '.join(sorted(kinds))} layers", "pipeline_parallel_size")


def stage_weights(found: list[Stage], tp: int, expert_ranks: int) -> list[int]:
    """Bytes of weights on one GPU of each stage."""
    return [ceil(s.per_gpu(s.held, tp, expert_ranks)) for s in found]


def stage_weights_text(found: list[Stage], weights: list[int]) -> str:
    return " + ".join(f"stage {s.index} {fmt.gib(w)}" for s, w in zip(found, weights))


def pipeline_pool(result: Result, budget: Budget | None, weights: WeightsOnGpu | None) -> WeightsOnGpu | None:
    """With pipeline_parallel_size > 1: every stage's layers, KV bytes per token and weights, and the
    stage whose pool is smallest in blocks, which becomes the layout and plan every later stage sizes
    (vLLM gives each stage that stage's num_blocks). Returns that stage's weights on one GPU."""
    inputs, model = result.inputs, result.model
    tp, pp = inputs.tensor_parallel_size, inputs.pipeline_parallel_size
    found = stages(model, result.layout, inputs.weights_dtype, pp)
    plans = [plan_blocks(s.layout, result.plan.block_size, result.rules) for s in found]
    counts = [len(s.layers) for s in found]
    result.add("stage_layers", counts, "layers", " + ".join(map(str, counts)),
               f"vLLM's get_pp_indices: {model.num_layers} layers ÷ {pp} stages = {model.num_layers // pp} each"
               + (f", the {model.num_layers % pp} left over to the stages before the last, from the second-to-last "
                  "back" if model.num_layers % pp else "") + f": {' + '.join(map(str, counts))}")
    per_token = [p.kv_bytes_per_token for p in plans]
    result.add("stage_kv_bytes_per_token", per_token, "B", " + ".join(fmt.kib(b) for b in per_token),
               "; ".join(f"stage {s.index}: {len(s.layout.layers)} layers × {result.layout.derivation} = {b:,} B"
                         for s, b in zip(found, per_token)))
    held = _stage_weights(result, found, weights, tp, expert_ranks(model, tp, inputs.data_parallel_size))
    blocks = _stage_blocks(result, plans, budget, held)
    chosen = (min(range(pp), key=lambda i: blocks[i]) if blocks is not None
              else max(range(pp), key=lambda i: plans[i].bytes_per_block))
    result.layout, result.plan = found[chosen].layout, plans[chosen]
    if blocks is not None:
        result.add("stage_num_blocks", blocks, "blocks", " + ".join(fmt.commas(b) for b in blocks),
                   f"each stage's own pool in blocks: {', '.join(f'{b:,}' for b in blocks)}; vLLM gives every stage "
                   f"the fewest, stage {chosen}'s {blocks[chosen]:,} (get_kv_cache_configs: one scheduler hands out "
                   "block ids for all stages)")
    if held is None or isinstance(held, WeightsOnGpu):
        return held if held is not None else weights
    result.add("weights_bytes", held[chosen], "B", fmt.gib(held[chosen]),
               f"stage {chosen}'s weights on one GPU, the stage whose pool sets every stage's ("
               + stage_weights_text(found, held) + ")")
    return WeightsOnGpu(held[chosen], f"stage {chosen}'s, counted from the config")


def _stage_weights(result: Result, found: list[Stage], weights: WeightsOnGpu | None, tp: int,
                   experts_over: int) -> list[int] | WeightsOnGpu | None:
    """Each stage's weights on one GPU (a given weights_bytes is every stage's); the weights' error
    when they cannot be counted; None without a GPU budget, where no pool needs them."""
    if weights is None:
        return None
    if weights.error is not None:
        return weights
    if result.inputs.weights_bytes is not None:
        return [weights.bytes] * len(found)
    held = stage_weights(found, tp, experts_over)
    result.add("stage_weights_bytes", held, "B", " + ".join(fmt.gib(w) for w in held),
               f"each stage's layers, embed_tokens on the first, the final norm and lm_head on the last, per GPU: "
               f"{stage_weights_text(found, held)}")
    return held


def _stage_blocks(result: Result, plans: list, budget: Budget | None, held) -> list[int] | None:
    """Each stage's pool in whole blocks: pinned bytes, or its GPUs' request less its weights and the
    non-KV memory; None when the pool is given in tokens or not sized."""
    inputs = result.inputs
    if inputs.kv_cache_memory_bytes is not None:
        return [inputs.kv_cache_memory_bytes // p.bytes_per_block for p in plans]
    if budget is None or inputs.pool_tokens is not None or not isinstance(held, list):
        return None
    other = inputs.non_kv_cache_memory_bytes
    return [max(0, int(budget.requested - w - other)) // p.bytes_per_block for p, w in zip(plans, held)]
