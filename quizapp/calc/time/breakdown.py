"""The weights by part on one GPU (embeddings, attention, MLP, routed experts, lm_head) in the
scenario's weight format, and the parameters one token computes with."""

from __future__ import annotations

from ...lru import per_object
from .. import fmt
from ..errors import CalcError
from ..model.config import ModelConfig, kept_model
from ..model.formats import model_format
from ..model.layout import model_dtype
from ..model.parts import active_parameters, expert_ranks, part_bytes, tied, top_k
from ..model.tensors import num_experts
from ..result import Result

PART_VALUES = (("embeddings", "embeddings_bytes", "embed_tokens"),
               ("attention", "attention_bytes", "attention (and linear-attention) projections"),
               ("mlp", "mlp_bytes", "dense MLPs and shared experts"),
               ("experts", "experts_bytes", "routed experts"),
               ("lm_head", "lm_head_bytes", "lm_head"))


def weight_parts(result: Result) -> bool:
    """Adds the per-part bytes and active_parameters; False when the model's weights cannot be counted."""
    inputs = result.inputs
    try:
        rows = part_rows(result.model, inputs.weights_dtype, inputs.tensor_parallel_size, inputs.data_parallel_size,
                         result.get("num_parameters"))
    except CalcError as error:
        result.notes.append(f"weights by part and time bounds not counted: {error.message}")
        return False
    for row in rows:
        result.add(*row)
    return True


# Kept per catalog model: every pool, context or batch of a model in a weight format and a parallel
# layout weighs the same, and counting the parts was a tenth of a new scenario's calculation.
@per_object(512, keep=kept_model)
def part_rows(model: ModelConfig, weights_dtype: str, tp: int, dp: int, total: int | None) -> tuple[tuple, ...]:
    """The values ``weight_parts`` adds, as ``Result.add``'s arguments; raises CalcError when the
    weights cannot be counted. ``total``: the model's parameters (num_parameters)."""
    weight_format = model_format(model, weights_dtype)
    parts = part_bytes(model, weight_format)
    active = active_parameters(model)
    experts_over = expert_ranks(model, tp, dp)
    rows = []
    for part, name, words in PART_VALUES:
        params, size = parts[part]
        ranks = experts_over if part == "experts" else tp
        per_gpu = round(size / ranks)
        rows.append((name, per_gpu, "B", fmt.gib(per_gpu),
                     _part_words(model, part, words, params, size, ranks, weight_format.name, ranks > tp)))
    if num_experts(model):
        k, experts, routed = top_k(model), num_experts(model), parts["experts"][0]
        words = (f"{total:,} − {routed:,} + {routed:,} × {k} ÷ {experts} = {active:,} parameters: all but the "
                 f"{routed:,} in routed experts, and {k} of every {experts} of those per token")
    else:
        words = f"a dense model: every token computes with all {active:,} parameters"
    rows.append(("active_parameters", active, "parameters", f"{active / 1e9:.2f} B", words))
    return tuple(rows)


def _part_words(model, part, words, params, size, ranks, fmt_name, spread) -> str:
    if part == "lm_head" and tied(model):
        return "lm_head is tied to embed_tokens (tie_word_embeddings): no weights of its own, 0 B"
    if not params:
        return f"no {words} in this model: 0 B"
    per = size / params
    over = (f"; over {ranks} GPUs" + (" (TP × DP: vLLM spreads routed experts over every GPU of the group)" if spread
                                      else " (tensor parallel)") + f", {round(size / ranks):,} B per GPU") if ranks > 1 \
        else ""
    dtype = fmt_name if per < 2 else model_dtype(model)[0]
    return f"{words}: {params:,} params × {float(per):.6g} B ({dtype}) = {round(size):,} B{over}"
