"""How many parameters a model has, and how many bytes its weights take in vLLM.

Counts follow the tensor shapes of transformers' modeling_<family>.py (what a checkpoint
stores), so they can be checked against the parameter counts on model cards. Fused tensors
(Phi-3's qkv_proj and gate_up_proj, vLLM's merged projections) hold the same parameters as
their unfused parts, so they are counted unfused.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from math import ceil

from ...lru import per_object
from ..errors import CalcError
from ..fmt import commas, gib
from .formats import BF16, WEIGHTS_DTYPES, Format, model_format
from .layout import model_dtype
from .config import CHUNKED, FULL, LINEAR, MLA, SLIDING, ModelConfig, kept_model
from .tensors import (
    EXPERT_WEIGHT,
    LINEAR_WEIGHT,
    PLAIN,
    Term,
    hidden,
    is_moe_layer,
    layer_terms,
    nemotron_groups,
    num_experts,
    required_int,
)

# Parts reported but left out of ``total``: DeepSeek-V3's multi-token-prediction module
# is used only for MTP speculative decoding, and HF's "671B" excludes it (685B with it).
NOT_IN_TOTAL = ("mtp",)

@dataclass(frozen=True)
class ParamCount:
    total: int  # every part except NOT_IN_TOTAL (the MTP module)
    parts: dict[str, int]
    derivation: str
    terms: tuple[Term, ...] = ()
    not_in_total: tuple[str, ...] = NOT_IN_TOTAL


@dataclass(frozen=True)
class WeightsBytes:
    bytes: int  # per GPU
    bytes_per_param: float  # bytes ÷ parameters over the whole model (mixed dtypes average)
    dtype: str
    derivation: str
    total_bytes: int = 0  # all GPUs together
    tensor_parallel_size: int = 1


# --- the model ----------------------------------------------------------------------------

LAYER_LABELS = {FULL: "full-attention", MLA: "MLA", LINEAR: "linear-attention"}


def _layer_groups(model: ModelConfig) -> list[tuple[int, str, tuple[Term, ...]]]:
    """(how many layers, label, one layer's terms) per distinct layer shape, in layer order."""
    if model.raw.get("block_configs"):
        return nemotron_groups(model)
    # sliding and chunked layers have the same weights as full attention
    weights_kind = [FULL if t in (SLIDING, CHUNKED) else t for t in model.layer_types]
    kinds = [(weights_kind[i], is_moe_layer(model, i)) for i in range(model.num_layers)]
    counts = Counter(kinds)
    uniform = len(counts) == 1
    groups = []
    for kind in dict.fromkeys(kinds):
        layer_type, moe = kind
        label = f"{LAYER_LABELS[layer_type]} {'MoE' if moe else 'dense'}"
        groups.append((counts[kind], "" if uniform else label, layer_terms(model, layer_type, moe)))
    return groups


def _mtp(model: ModelConfig, embeddings: int) -> list[Term]:
    """DeepSeek-V3's MTP module: one more (MoE) decoder layer, enorm + hnorm, eh_proj
    (2·hidden → hidden), a final norm, and its own copies of embed_tokens and lm_head
    (stored in the checkpoint and loaded by vLLM's DeepSeekMTP)."""
    n, h = model.num_nextn_predict_layers, hidden(model)
    if not n:
        return []
    moe = bool(num_experts(model))
    layer = sum(t.count for t in layer_terms(model, model.layer_types[-1], moe))
    per_module = layer + 2 * h * h + 3 * h + 2 * embeddings
    return [Term("mtp", f"{n} MTP module(s)", n * per_module)]


PART_LABELS = {"embeddings": "embeddings", "attention": "attention",
               "linear_attention": "linear attention", "mlp": "MLP", "experts": "experts",
               "shared_experts": "shared experts", "router": "router", "norms": "norms",
               "lm_head": "lm_head", "mtp": "MTP"}


def _sum_by_part(terms) -> dict[str, int]:
    parts = dict.fromkeys(PART_LABELS, 0)
    for t in terms:
        parts[t.part] += t.count
    return {k: v for k, v in parts.items() if v}


def count_parameters(model: ModelConfig) -> ParamCount:
    """The model's parameters by part. Counted once per model object: the count depends on the
    config alone, and every scenario of a page (weights, layout, pool) asks for it."""
    counted = model.__dict__.get("_parameter_count")
    if counted is None:
        # a frozen dataclass's own cache slot, as functools.cached_property writes it
        counted = model.__dict__["_parameter_count"] = _count_parameters(model)
    return counted


def _count_parameters(model: ModelConfig) -> ParamCount:
    h = hidden(model)
    vocab = required_int(model, "vocab_size")
    embeddings = vocab * h
    # transformers' decoder configs (Llama, Qwen, Mistral, DeepSeek…) default to untied;
    # Gemma's default to tied, which FAMILY_DEFAULTS supplies through model.get.
    tied = bool(model.get("tie_word_embeddings", False))
    groups = _layer_groups(model)

    terms = [Term("embeddings", "embed_tokens", embeddings, PLAIN)]
    for n, _, layer in groups:
        terms += [Term(t.part, t.name, n * t.count, t.kind) for t in layer]
    terms.append(Term("norms", "final norm", h, PLAIN))
    if not tied:
        terms.append(Term("lm_head", "lm_head", embeddings, PLAIN))
    terms += _mtp(model, embeddings)

    parts = _sum_by_part(terms)
    total = sum(v for k, v in parts.items() if k not in NOT_IN_TOTAL)
    return ParamCount(total=total, parts=parts, terms=tuple(terms),
                      derivation=_derivation(vocab, h, tied, groups, parts, total))


def _derivation(vocab, h, tied, groups, parts, total) -> str:
    pieces = [f"embeddings {commas(vocab * h)} ({commas(vocab)} × {commas(h)})"]
    for n, label, layer in groups:
        per_part = _sum_by_part(layer)
        inner = " + ".join(f"{PART_LABELS[p]} {commas(c)}" for p, c in per_part.items())
        pieces.append(f"{n} {label + ' ' if label else ''}layer{'s' if n != 1 else ''} × ({inner})")
    pieces.append(f"final norm {commas(h)}")
    if tied:
        pieces.append("lm_head 0 (tied to the embeddings)")
    else:
        pieces.append(f"lm_head {commas(vocab * h)} ({commas(vocab)} × {commas(h)})")
    text = " + ".join(pieces) + f" = {commas(total)}"
    if parts.get("mtp"):
        text += f" (MTP module {commas(parts['mtp'])} not counted: used only for MTP speculative decoding)"
    return text


# --- bytes --------------------------------------------------------------------------------

def _check_inputs(weights_dtype, tensor_parallel_size) -> str:
    name = str(weights_dtype).strip().lower()
    if name not in WEIGHTS_DTYPES:
        raise CalcError(f"weights_dtype {weights_dtype!r} is not one of {', '.join(WEIGHTS_DTYPES)}",
                        "weights_dtype")
    if isinstance(tensor_parallel_size, bool) or not isinstance(tensor_parallel_size, int) \
            or tensor_parallel_size < 1:
        raise CalcError("tensor_parallel_size must be a positive whole number, "
                        f"got {tensor_parallel_size!r}", "tensor_parallel_size")
    return name


# Kept per model: the weights do not change with the pool, the context or the users.
@per_object(512, keep=kept_model)
def weights_bytes(model: ModelConfig, weights_dtype: str = "auto",
                  tensor_parallel_size: int = 1, expert_ranks: int | None = None) -> WeightsBytes:
    """Weight memory as vLLM holds it, excluding the MTP module (loaded only for MTP drafts).

    ``expert_ranks`` is how many GPUs share the routed experts: tensor_parallel_size ×
    data_parallel_size, since vLLM's fused MoE layers shard (or, with expert parallelism, split)
    them over every GPU of the TP × DP group (FusedMoEParallelConfig.make); default TP.
    """
    name = _check_inputs(weights_dtype, tensor_parallel_size)
    params = count_parameters(model)
    weight_format = model_format(model, name)
    fmt, per_kind = weight_format.name, weight_format.per_kind
    counted = [t for t in params.terms if t.part not in params.not_in_total]
    if fmt == "mxfp4" and not any(t.kind == EXPERT_WEIGHT for t in counted):
        raise CalcError(f"mxfp4 quantizes only routed experts, and {model.name} has none", "weights_dtype")
    by_size: dict[Fraction, int] = {}
    for t in counted:
        by_size[per_kind[t.kind]] = by_size.get(per_kind[t.kind], 0) + t.count
    total = ceil(sum(size * n for size, n in by_size.items()))
    per_gpu = ceil(Fraction(total, tensor_parallel_size))
    derivation = _bytes_derivation(model, weight_format, by_size, total, per_gpu, tensor_parallel_size)
    if expert_ranks not in (None, tensor_parallel_size):
        experts = sum(per_kind[t.kind] * t.count for t in counted if t.part == "experts")
        per_gpu = ceil((sum(size * n for size, n in by_size.items()) - experts) / tensor_parallel_size
                       + experts / expert_ranks)
        derivation += (f"; the routed experts ({commas(ceil(experts))} B) are spread over {expert_ranks} GPUs "
                       f"(TP × DP), the rest over TP {tensor_parallel_size}: {commas(per_gpu)} B "
                       f"({gib(per_gpu)}) per GPU")
    if "mtp" in params.parts:
        derivation += "; the MTP module is not counted (vLLM loads it only for MTP drafts)"
    return WeightsBytes(bytes=per_gpu, bytes_per_param=total / params.total, dtype=fmt,
                        derivation=derivation, total_bytes=total,
                        tensor_parallel_size=tensor_parallel_size)


def _bytes_derivation(model, weight_format: Format, by_size, total, per_gpu, tp) -> str:
    plain, fmt = model_dtype(model)[0], weight_format.name
    if len(by_size) == 1:
        (size, n), = by_size.items()
        text = f"{commas(n)} params × {size} B ({fmt}) = {commas(total)} B"
    else:
        what = "expert weights" if fmt == "mxfp4" else "linear-layer weights"
        size = weight_format.per_kind[weight_format.quantized_kind]
        kept = "embeddings, lm_head, norms, biases, routers" + (", attention" if fmt == "mxfp4" else "")
        pieces = [f"{what} {commas(by_size[size])} × {weight_format.note}",
                  f"the rest ({kept}) {commas(by_size[BF16])} × 2 B (kept {plain})"]
        text = " + ".join(pieces) + f" = {commas(total)} B"
    text += f" ({gib(total)})"
    if tp > 1:
        text += (f"; ÷ tensor_parallel_size {tp} = {commas(per_gpu)} B ({gib(per_gpu)}) per GPU "
                 "(ignores parts every GPU replicates, such as norms and routers)")
    return text
