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

from .errors import CalcError
from .fmt import commas, gib
from .layout import model_dtype
from .modelconfig import FULL, LINEAR, MLA, SLIDING, ModelConfig

# What a tensor is, for quantization: vLLM's quantization methods (fp8, ModelOpt nvfp4)
# convert the weights of linear layers, and mxfp4 (gpt-oss) only the routed experts';
# embeddings, lm_head, norms, biases, routers and convolutions stay in the model dtype.
LINEAR_WEIGHT = "linear"
EXPERT_WEIGHT = "expert"
PLAIN = "plain"

# Parts reported but left out of ``total``: DeepSeek-V3's multi-token-prediction module
# is used only for MTP speculative decoding, and HF's "671B" excludes it (685B with it).
NOT_IN_TOTAL = ("mtp",)

QK_NORM_TYPES = {"qwen3", "qwen3_moe", "qwen3_next", "gemma3", "gemma3_text"}
# Gemma 2/3 add a norm before and after the MLP to the usual two.
FOUR_NORM_TYPES = {"gemma2", "gemma3", "gemma3_text"}
# Qwen2's q/k/v always carry a bias (no config flag) and o_proj never does.
QKV_BIAS_TYPES = {"qwen2", "qwen2_moe", "qwen2_vl"}
# gpt-oss experts and router have biases, and every attention head a learned sink.
GPT_OSS_TYPES = {"gpt_oss"}
# Qwen3-Next's full attention projects a sigmoid output gate alongside q.
GATED_ATTENTION_TYPES = {"qwen3_next"}


@dataclass(frozen=True)
class Term:
    """One kind of tensor, summed over every layer that has it."""

    part: str  # the key of ParamCount.parts it adds to
    name: str
    count: int
    kind: str = LINEAR_WEIGHT


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


# --- per-layer tensors --------------------------------------------------------------------

def _hidden(model: ModelConfig) -> int:
    if model.hidden_size is None:
        raise CalcError("config has no 'hidden_size' (needed to count parameters)", "config.hidden_size")
    return model.hidden_size


def _int(model: ModelConfig, key: str) -> int:
    value = model.get(key)
    if value is None:
        raise CalcError(f"config is missing '{key}' (needed to count parameters)", f"config.{key}")
    return int(value)


def _attention(model: ModelConfig) -> list[Term]:
    h, hd = _hidden(model), model.head_dim
    q, kv = model.num_attention_heads * hd, model.num_kv_heads * hd
    q_out = 2 * q if model.model_type in GATED_ATTENTION_TYPES else q
    terms = [Term("attention", "q_proj", h * q_out), Term("attention", "k_proj", h * kv),
             Term("attention", "v_proj", h * kv), Term("attention", "o_proj", q * h)]
    if model.model_type in QKV_BIAS_TYPES:
        terms.append(Term("attention", "qkv bias", q + 2 * kv, PLAIN))
    elif model.get("attention_bias", False):
        terms.append(Term("attention", "q/k/v/o bias", q_out + 2 * kv + h, PLAIN))
    if model.model_type in GPT_OSS_TYPES:
        terms.append(Term("attention", "sinks", model.num_attention_heads, PLAIN))
    if model.model_type in QK_NORM_TYPES:
        terms.append(Term("norms", "q_norm, k_norm", 2 * hd, PLAIN))
    return terms


def _mla(model: ModelConfig) -> list[Term]:
    h, heads = _hidden(model), model.num_attention_heads
    rank, rope = model.kv_lora_rank, model.qk_rope_head_dim
    nope, v = _int(model, "qk_nope_head_dim"), _int(model, "v_head_dim")
    q_lora = model.get("q_lora_rank")
    if q_lora:
        q_terms = [Term("attention", "q_a_proj", h * q_lora),
                   Term("norms", "q_a_layernorm", q_lora, PLAIN),
                   Term("attention", "q_b_proj", q_lora * heads * (nope + rope))]
    else:
        q_terms = [Term("attention", "q_proj", h * heads * (nope + rope))]
    return q_terms + [
        Term("attention", "kv_a_proj_with_mqa", h * (rank + rope)),
        Term("norms", "kv_a_layernorm", rank, PLAIN),
        Term("attention", "kv_b_proj", rank * heads * (nope + v)),
        Term("attention", "o_proj", heads * v * h),
    ]


def _gated_delta_net(model: ModelConfig) -> list[Term]:
    """Qwen3-Next's linear attention, as transformers' Qwen3NextGatedDeltaNet shapes it."""
    h, lin = _hidden(model), model.linear
    key_dim = lin["linear_num_key_heads"] * lin["linear_key_head_dim"]
    value_dim = lin["linear_num_value_heads"] * lin["linear_value_head_dim"]
    v_heads = lin["linear_num_value_heads"]
    conv_dim = 2 * key_dim + value_dim
    part = "linear_attention"
    return [
        Term(part, "in_proj_qkvz", h * (2 * key_dim + 2 * value_dim)),
        Term(part, "in_proj_ba", h * 2 * v_heads),
        Term(part, "conv1d", conv_dim * lin["linear_conv_kernel_dim"], PLAIN),
        Term(part, "dt_bias, A_log", 2 * v_heads, PLAIN),
        Term("norms", "gated norm", lin["linear_value_head_dim"], PLAIN),
        Term(part, "out_proj", value_dim * h),
    ]


def _mlp(model: ModelConfig, part: str, inner: int, kind: str = LINEAR_WEIGHT) -> list[Term]:
    """A gated MLP (gate, up, down); every catalog family uses SwiGLU or GeGLU."""
    h = _hidden(model)
    terms = [Term(part, "gate_proj, up_proj, down_proj", 3 * h * inner, kind)]
    if model.get("mlp_bias", False):
        terms.append(Term(part, "mlp bias", 2 * inner + h, PLAIN))
    return terms


def _num_experts(model: ModelConfig) -> int:
    return int(model.get("n_routed_experts") or model.get("num_experts")
               or model.get("num_local_experts") or 0)


def _moe(model: ModelConfig) -> list[Term]:
    h, experts = _hidden(model), _num_experts(model)
    inner = int(model.get("moe_intermediate_size") or _int(model, "intermediate_size"))
    terms = [Term("experts", f"{experts} experts × 3 × {h:,} × {inner:,}", experts * 3 * h * inner,
                  EXPERT_WEIGHT),
             Term("router", "router", experts * h, PLAIN)]
    if model.model_type in GPT_OSS_TYPES:
        terms += [Term("experts", "expert biases", experts * (2 * inner + h), PLAIN),
                  Term("router", "router bias", experts, PLAIN)]
    if model.get("topk_method") == "noaux_tc":  # DeepSeek-V3's e_score_correction_bias
        terms.append(Term("router", "e_score_correction_bias", experts, PLAIN))
    if model.get("n_shared_experts"):
        terms += _mlp(model, "shared_experts", int(model.get("n_shared_experts")) * inner)
    if model.get("shared_expert_intermediate_size"):
        terms += _mlp(model, "shared_experts", int(model.get("shared_expert_intermediate_size")))
        terms.append(Term("router", "shared_expert_gate", h, PLAIN))
    return terms


def _is_moe_layer(model: ModelConfig, i: int) -> bool:
    if not _num_experts(model):
        return False
    if model.get("n_routed_experts"):  # DeepSeek: dense first layers, then every freq-th
        first_dense, freq = int(model.get("first_k_dense_replace", 0)), int(model.get("moe_layer_freq", 1))
        return i >= first_dense and i % freq == 0
    if i in (model.get("mlp_only_layers") or []):  # Qwen MoE
        return False
    return (i + 1) % int(model.get("decoder_sparse_step", 1)) == 0


def _layer_norms(model: ModelConfig) -> list[Term]:
    count = 4 if model.model_type in FOUR_NORM_TYPES else 2
    return [Term("norms", f"{count} layer norms", count * _hidden(model), PLAIN)]


def _layer(model: ModelConfig, layer_type: str, moe: bool) -> tuple[Term, ...]:
    if layer_type == MLA:
        mixer = _mla(model)
    elif layer_type == LINEAR:
        mixer = _gated_delta_net(model)
    else:
        mixer = _attention(model)
    mlp = _moe(model) if moe else _mlp(model, "mlp", _int(model, "intermediate_size"))
    return tuple(mixer + mlp + _layer_norms(model))


# --- the model ----------------------------------------------------------------------------

LAYER_LABELS = {FULL: "full-attention", MLA: "MLA", LINEAR: "linear-attention"}


def _layer_groups(model: ModelConfig) -> list[tuple[int, str, tuple[Term, ...]]]:
    """(how many layers, label, one layer's terms) per distinct layer shape, in layer order."""
    kinds = [(model.layer_types[i] if model.layer_types[i] != SLIDING else FULL, _is_moe_layer(model, i))
             for i in range(model.num_layers)]
    counts = Counter(kinds)
    uniform = len(counts) == 1
    groups = []
    for kind in dict.fromkeys(kinds):
        layer_type, moe = kind
        label = f"{LAYER_LABELS[layer_type]} {'MoE' if moe else 'dense'}"
        groups.append((counts[kind], "" if uniform else label, _layer(model, layer_type, moe)))
    return groups


def _mtp(model: ModelConfig, embeddings: int) -> list[Term]:
    """DeepSeek-V3's MTP module: one more (MoE) decoder layer, enorm + hnorm, eh_proj
    (2·hidden → hidden), a final norm, and its own copies of embed_tokens and lm_head
    (stored in the checkpoint and loaded by vLLM's DeepSeekMTP)."""
    n, h = model.num_nextn_predict_layers, _hidden(model)
    if not n:
        return []
    moe = bool(_num_experts(model))
    layer = sum(t.count for t in _layer(model, model.layer_types[-1], moe))
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
    h = _hidden(model)
    vocab = _int(model, "vocab_size")
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
    pieces = [f"embeddings {commas(vocab)} × {commas(h)} = {commas(vocab * h)}"]
    for n, label, layer in groups:
        per_part = _sum_by_part(layer)
        inner = " + ".join(f"{PART_LABELS[p]} {commas(c)}" for p, c in per_part.items())
        pieces.append(f"{n} {label + ' ' if label else ''}layer{'s' if n != 1 else ''} × ({inner})")
    pieces.append(f"final norm {commas(h)}")
    if tied:
        pieces.append("lm_head 0 (tied to the embeddings)")
    else:
        pieces.append(f"lm_head {commas(vocab)} × {commas(h)} = {commas(vocab * h)}")
    text = " + ".join(pieces) + f" = {commas(total)}"
    if parts.get("mtp"):
        text += f" (MTP module {commas(parts['mtp'])} not counted: used only for MTP speculative decoding)"
    return text


# --- bytes --------------------------------------------------------------------------------

# Bytes per parameter of each weight format.
BF16 = Fraction(2)
FP8 = Fraction(1)  # per-tensor/per-block scales are < 0.1% and not counted
NVFP4 = Fraction(9, 16)  # 4-bit values + one fp8 scale per 16 values = 4.5 bits
MXFP4 = Fraction(17, 32)  # 4-bit values + one 8-bit (E8M0) scale per 32 values = 4.25 bits

WEIGHTS_DTYPES = ("auto", "bfloat16", "float16", "fp8", "nvfp4")
FORMAT_NOTES = {
    "fp8": "fp8 1 B (scales, < 0.1%, not counted)",
    "nvfp4": "nvfp4 0.5625 B = 4-bit values + one fp8 scale per 16 values (4.5 bits)",
    "mxfp4": "mxfp4 0.53125 B = 4-bit values + one 8-bit scale per 32 values (4.25 bits)",
}


def _model_dtype(model: ModelConfig) -> str:
    """The dtype vLLM loads unquantized tensors in (the same rule as the KV cache's 'auto')."""
    return model_dtype(model)[0]


def _auto_format(model: ModelConfig) -> str:
    """The weight format the config's quantization_config names, else its torch_dtype."""
    quant = model.get("quantization_config") or {}
    method = quant.get("quant_method")
    if method is None:
        return _model_dtype(model)
    if method in ("fp8", "mxfp4"):
        return method
    algo = str(quant.get("quant_algo", "")).lower()
    if method == "modelopt" and algo in ("fp8", "nvfp4"):
        return algo
    # Guessing the model dtype here would overstate an int4/int8 checkpoint several-fold.
    raise CalcError(f"the config's quantization method {method!r} is not one the calculator sizes; "
                    f"pass weights_dtype explicitly", "weights_dtype")


def _bytes_per_kind(fmt: str) -> dict[str, Fraction]:
    if fmt in ("bfloat16", "float16"):
        return dict.fromkeys((LINEAR_WEIGHT, EXPERT_WEIGHT, PLAIN), BF16)
    if fmt == "mxfp4":
        return {LINEAR_WEIGHT: BF16, EXPERT_WEIGHT: MXFP4, PLAIN: BF16}
    packed = FP8 if fmt == "fp8" else NVFP4
    return {LINEAR_WEIGHT: packed, EXPERT_WEIGHT: packed, PLAIN: BF16}


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


def weights_bytes(model: ModelConfig, weights_dtype: str = "auto",
                  tensor_parallel_size: int = 1) -> WeightsBytes:
    """Weight memory as vLLM holds it, excluding the MTP module (loaded only for MTP drafts)."""
    name = _check_inputs(weights_dtype, tensor_parallel_size)
    params = count_parameters(model)
    fmt = _auto_format(model) if name == "auto" else name
    per_kind = _bytes_per_kind(fmt)
    counted = [t for t in params.terms if t.part not in params.not_in_total]
    by_size: dict[Fraction, int] = {}
    for t in counted:
        by_size[per_kind[t.kind]] = by_size.get(per_kind[t.kind], 0) + t.count
    total = ceil(sum(size * n for size, n in by_size.items()))
    per_gpu = ceil(Fraction(total, tensor_parallel_size))
    derivation = _bytes_derivation(model, fmt, per_kind, by_size, total, per_gpu, tensor_parallel_size)
    if "mtp" in params.parts:
        derivation += "; the MTP module is not counted (vLLM loads it only for MTP drafts)"
    return WeightsBytes(bytes=per_gpu, bytes_per_param=total / params.total, dtype=fmt,
                        derivation=derivation, total_bytes=total,
                        tensor_parallel_size=tensor_parallel_size)


def _bytes_derivation(model, fmt, per_kind, by_size, total, per_gpu, tp) -> str:
    plain = _model_dtype(model)
    if len(by_size) == 1:
        (size, n), = by_size.items()
        text = f"{commas(n)} params × {size} B ({fmt}) = {commas(total)} B"
    else:
        quantized = EXPERT_WEIGHT if fmt == "mxfp4" else LINEAR_WEIGHT
        what = "expert weights" if fmt == "mxfp4" else "linear-layer weights"
        size = per_kind[quantized]
        kept = "embeddings, lm_head, norms, biases, routers" + (", attention" if fmt == "mxfp4" else "")
        pieces = [f"{what} {commas(by_size[size])} × {FORMAT_NOTES[fmt]}",
                  f"the rest ({kept}) {commas(by_size[BF16])} × 2 B (kept {plain})"]
        text = " + ".join(pieces) + f" = {commas(total)} B"
    text += f" ({gib(total)})"
    if tp > 1:
        text += (f"; ÷ tensor_parallel_size {tp} = {commas(per_gpu)} B ({gib(per_gpu)}) per GPU "
                 "(ignores parts every GPU replicates, such as norms and routers)")
    return text
