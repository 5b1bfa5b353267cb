"""The tensors of one decoder layer, per family, as transformers' and vLLM's model files shape them.

Each tensor kind becomes a ``Term``: a part of the model (attention, MLP, experts…), a name,
a parameter count and what quantization does to it. ``weights.py`` sums them over the model.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..errors import CalcError
from ..fmt import commas
from .config import CHUNKED, FULL, LINEAR, MAX_DIMENSION, MLA, NO_ATTENTION, SLIDING, ModelConfig, whole_number

# What a tensor is, for quantization: vLLM's quantization methods (fp8, ModelOpt nvfp4)
# convert the weights of linear layers, and mxfp4 (gpt-oss) only the routed experts';
# embeddings, lm_head, norms, biases, routers and convolutions stay in the model dtype.
LINEAR_WEIGHT = "linear"
EXPERT_WEIGHT = "expert"
PLAIN = "plain"

QK_NORM_TYPES = {"qwen3", "qwen3_moe", "qwen3_next", "gemma3", "gemma3_text"}
# Gemma 2/3 add a norm before and after the MLP to the usual two.
FOUR_NORM_TYPES = {"gemma2", "gemma3", "gemma3_text"}
# Qwen2's q/k/v always carry a bias (no config flag) and o_proj never does.
QKV_BIAS_TYPES = {"qwen2", "qwen2_moe", "qwen2_vl"}
# gpt-oss experts and router have biases, and every attention head a learned sink.
GPT_OSS_TYPES = {"gpt_oss"}
# Qwen3-Next's full attention projects a sigmoid output gate alongside q.
GATED_ATTENTION_TYPES = {"qwen3_next"}
# Llama 4's MoE layers add one shared expert of intermediate_size; its dense layers use
# intermediate_size_mlp.
LLAMA4_TYPES = {"llama4", "llama4_text"}


@dataclass(frozen=True)
class Term:
    """One kind of tensor, summed over every layer that has it."""

    part: str  # the key of ParamCount.parts it adds to
    name: str
    count: int
    kind: str = LINEAR_WEIGHT


# --- per-layer tensors --------------------------------------------------------------------

def hidden(model: ModelConfig) -> int:
    if model.hidden_size is None:
        raise CalcError("config has no 'hidden_size' (needed to count parameters)", "config.hidden_size")
    return model.hidden_size


def required_int(model: ModelConfig, key: str) -> int:
    """A field the count needs: a positive whole number (CalcError naming it when missing or not one)."""
    value = model.get(key)
    if value is None:
        raise CalcError(f"config is missing '{key}' (needed to count parameters)", f"config.{key}")
    return whole_number(value, key)


def optional_int(model: ModelConfig, key: str, default: int = 0, minimum: int = 0) -> int:
    """A field the count can do without: ``default`` when the config has none, else a whole number
    of at least ``minimum`` (CalcError naming it when not one)."""
    value = model.get(key)
    return default if value is None else whole_number(value, key, minimum)


def _attention(model: ModelConfig) -> list[Term]:
    h, hd = hidden(model), model.head_dim
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
    h, heads = hidden(model), model.num_attention_heads
    rank, rope = model.kv_lora_rank, model.qk_rope_head_dim
    nope, v = required_int(model, "qk_nope_head_dim"), required_int(model, "v_head_dim")
    q_lora = optional_int(model, "q_lora_rank")
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


def _indexer(model: ModelConfig) -> list[Term]:
    """DeepSeek-V3.2's sparse-attention indexer, as vLLM's deepseek_v2.py Indexer shapes it:
    wq_b (q_lora_rank → heads × head_dim), wk and weights_proj (kept unquantized), k_norm."""
    h, dim, heads = hidden(model), model.index_head_dim, required_int(model, "index_n_heads")
    return [Term("attention", "indexer wq_b", required_int(model, "q_lora_rank") * heads * dim),
            Term("attention", "indexer wk, weights_proj", h * (dim + heads), PLAIN),
            Term("norms", "indexer k_norm", 2 * dim, PLAIN)]


def _lightning(model: ModelConfig) -> list[Term]:
    """MiniMax's lightning (linear) attention, as vLLM 0.23's minimax_linear_attn.py shapes it."""
    h, inner = hidden(model), model.num_attention_heads * model.head_dim
    part = "linear_attention"
    return [Term(part, "qkv_proj", h * 3 * inner), Term(part, "output_gate", h * inner),
            Term(part, "out_proj", inner * h), Term("norms", "norm", inner, PLAIN)]


def _gated_delta_net(model: ModelConfig) -> list[Term]:
    """Qwen3-Next's linear attention, as transformers' Qwen3NextGatedDeltaNet shapes it."""
    h, lin = hidden(model), model.linear
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
    h = hidden(model)
    terms = [Term(part, "gate_proj, up_proj, down_proj", 3 * h * inner, kind)]
    if model.get("mlp_bias", False):
        terms.append(Term(part, "mlp bias", 2 * inner + h, PLAIN))
    return terms


EXPERT_KEYS = ("n_routed_experts", "num_experts", "num_local_experts")  # DeepSeek, Qwen, Mixtral


def num_experts(model: ModelConfig) -> int:
    """Routed experts: the first of EXPERT_KEYS the config sets to something other than 0 or null."""
    for key in EXPERT_KEYS:
        if model.get(key):
            return whole_number(model.get(key), key, minimum=0)
    return 0


def _moe(model: ModelConfig) -> list[Term]:
    h, experts = hidden(model), num_experts(model)
    inner = optional_int(model, "moe_intermediate_size") or required_int(model, "intermediate_size")
    terms = [Term("experts", f"{experts} experts × 3 × {h:,} × {inner:,}", experts * 3 * h * inner,
                  EXPERT_WEIGHT),
             Term("router", "router", experts * h, PLAIN)]
    if model.model_type in GPT_OSS_TYPES:
        terms += [Term("experts", "expert biases", experts * (2 * inner + h), PLAIN),
                  Term("router", "router bias", experts, PLAIN)]
    if model.get("topk_method") == "noaux_tc":  # DeepSeek-V3's e_score_correction_bias
        terms.append(Term("router", "e_score_correction_bias", experts, PLAIN))
    shared = optional_int(model, "n_shared_experts")
    if shared:
        terms += _mlp(model, "shared_experts", shared * inner)
    if model.model_type in LLAMA4_TYPES:
        terms += _mlp(model, "shared_experts", inner)
    shared_inner = optional_int(model, "shared_expert_intermediate_size")
    if shared_inner:
        terms += _mlp(model, "shared_experts", shared_inner)
        terms.append(Term("router", "shared_expert_gate", h, PLAIN))
    return terms


def is_moe_layer(model: ModelConfig, i: int) -> bool:
    if not num_experts(model):
        return False
    if model.get("n_routed_experts"):  # DeepSeek: dense first layers, then every freq-th
        first_dense = optional_int(model, "first_k_dense_replace")
        freq = optional_int(model, "moe_layer_freq", default=1, minimum=1)
        return i >= first_dense and i % freq == 0
    dense_layers = model.get("mlp_only_layers") or []  # Qwen MoE
    if not isinstance(dense_layers, list):
        raise CalcError(f"config field 'mlp_only_layers' must be a list of layer numbers, got {dense_layers!r}",
                        "config.mlp_only_layers")
    if i in dense_layers:
        return False
    return (i + 1) % optional_int(model, "decoder_sparse_step", default=1, minimum=1) == 0


def _layer_norms(model: ModelConfig) -> list[Term]:
    count = 4 if model.model_type in FOUR_NORM_TYPES else 2
    return [Term("norms", f"{count} layer norms", count * hidden(model), PLAIN)]


def layer_terms(model: ModelConfig, layer_type: str, moe: bool) -> tuple[Term, ...]:
    if layer_type == MLA:
        mixer = _mla(model) + (_indexer(model) if model.index_head_dim else [])
    elif layer_type == LINEAR:
        mixer = _lightning(model) if model.linear_kind == "lightning" else _gated_delta_net(model)
    else:
        mixer = _attention(model)
    dense = "intermediate_size_mlp" if model.model_type in LLAMA4_TYPES else "intermediate_size"
    mlp = _moe(model) if moe else _mlp(model, "mlp", required_int(model, dense))
    return tuple(mixer + mlp + _layer_norms(model))


def _nemotron_intermediate(ffn_mult: float, hidden: int) -> int:
    """vLLM nemotron_nas.py _ffn_mult_to_intermediate_size: 2/3 × ffn_mult × hidden, rounded up to 256."""
    size = int(2 * ffn_mult * hidden / 3)
    return size if size % 256 == 0 else size + 256 - size % 256


def _nemotron_mlp(ffn, hidden: int) -> int:
    """A Nemotron block's MLP size (0 for a no-op), from its ``ffn`` object; CalcError (field
    config.block_configs) for one that is not an object or gives no size."""
    ffn = ffn or {}
    if not isinstance(ffn, dict):
        raise CalcError(f"a Nemotron block's 'ffn' must be an object, got {ffn!r}", "config.block_configs")
    if ffn.get("replace_with_linear"):
        raise CalcError("a Nemotron block replaces its MLP with a linear layer; not counted", "config.block_configs")
    if ffn.get("no_op"):
        return 0
    mult = ffn.get("ffn_mult")
    if mult:
        # NaN and infinity fail the comparison too.
        if (isinstance(mult, bool) or not isinstance(mult, (int, float))
                or not 0 < 2 * mult * hidden / 3 <= MAX_DIMENSION):
            raise CalcError(f"a Nemotron block's ffn_mult must be a positive number that gives an MLP of at most "
                            f"{MAX_DIMENSION:,}, got {mult!r}", "config.block_configs")
        return _nemotron_intermediate(mult, hidden)
    size = ffn.get("intermediate_size")
    if size is None:
        raise CalcError("a Nemotron block's 'ffn' has neither 'ffn_mult' nor 'intermediate_size' (needed to count "
                        "parameters)", "config.block_configs")
    if (isinstance(size, bool) or not isinstance(size, (int, float)) or not 0 <= size <= MAX_DIMENSION
            or size != int(size)):
        raise CalcError(f"a Nemotron block's ffn intermediate_size must be a whole number from 0 to "
                        f"{MAX_DIMENSION:,}, got {size!r}", "config.block_configs")
    return int(size)


def _nemotron_shapes(model: ModelConfig) -> list[tuple[bool, int]]:
    """(has attention, MLP size) of each Nemotron-NAS block, in order."""
    blocks = model.raw["block_configs"]
    if not isinstance(blocks, list):  # parse_config reads a list; anything else is no blocks at all
        raise CalcError("config 'block_configs' must be a list of block objects", "config.block_configs")
    return [(kind != NO_ATTENTION, _nemotron_mlp(block.get("ffn"), hidden(model)))
            for kind, block in zip(model.layer_types, blocks)]


def _nemotron_terms(model: ModelConfig, has_attention: bool, inner: int) -> tuple[Term, ...]:
    h = hidden(model)
    terms = (_attention(model) + [Term("norms", "input_layernorm", h, PLAIN)]) if has_attention else []
    if inner:
        terms += _mlp(model, "mlp", inner) + [Term("norms", "post_attention_layernorm", h, PLAIN)]
    return tuple(terms)


def nemotron_groups(model: ModelConfig) -> list[tuple[int, str, tuple[Term, ...]]]:
    """Nemotron-NAS blocks: attention and its norm unless a no-op, an MLP sized by ffn_mult and
    its norm unless a no-op (vLLM's DeciLMDecoderLayer)."""
    shapes = _nemotron_shapes(model)
    counts = Counter(shapes)
    groups = []
    for has_attention, inner in dict.fromkeys(shapes):
        label = f"{'attention' if has_attention else 'no-attention'} {f'and MLP (intermediate {commas(inner)})' if inner else 'without MLP'}"
        groups.append((counts[(has_attention, inner)], label, _nemotron_terms(model, has_attention, inner)))
    return groups


def decoder_layers(model: ModelConfig) -> tuple[tuple[Term, ...], ...]:
    """Each decoder layer's terms, in layer order, for sums over a pipeline stage's layers.
    Counted once per model object, as count_parameters is."""
    layers = model.__dict__.get("_decoder_layers")
    if layers is None:
        if model.raw.get("block_configs"):
            layers = tuple(_nemotron_terms(model, *shape) for shape in _nemotron_shapes(model))
        else:
            by_shape: dict[tuple[str, bool], tuple[Term, ...]] = {}
            for i, kind in enumerate(model.layer_types):
                shape = (FULL if kind in (SLIDING, CHUNKED) else kind, is_moe_layer(model, i))
                if shape not in by_shape:
                    by_shape[shape] = layer_terms(model, *shape)
            layers = tuple(by_shape[(FULL if kind in (SLIDING, CHUNKED) else kind, is_moe_layer(model, i))]
                           for i, kind in enumerate(model.layer_types))
        model.__dict__["_decoder_layers"] = layers  # a frozen dataclass's own cache slot
    return layers
