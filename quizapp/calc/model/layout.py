"""Each layer's KV cache on one tensor-parallel rank: what it stores per token or per request.

Follows vLLM's ``AttentionSpec`` / ``MLAAttentionSpec`` / ``MambaSpec`` (docs/research/vllm-kv.md §1).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...lru import per_object
from ..errors import CalcError
from .config import CHUNKED, FULL, LINEAR, MLA, NO_ATTENTION, SLIDING, ModelConfig, kept_model

KV_CACHE_DTYPES = ("auto", "bfloat16", "float16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_ds_mla")
DTYPE_BYTES = {"bfloat16": 2, "float16": 2, "float32": 4, "fp8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1}
# fp8_ds_mla stores 512 fp8 latent values, 4 fp32 scales and 64 bf16 RoPE values per token.
FP8_DS_MLA_BYTES = 656
# DeepSeek-V3.2's indexer keeps its keys in fp8 with one fp32 scale per 128 values
# (vLLM deepseek_v2.py Indexer: head_dim + head_dim // quant_block_size * 4, dtype uint8).
INDEXER_QUANT_BLOCK = 128


@dataclass(frozen=True)
class LayerSpec:
    kind: str  # "full", "sliding", "chunked", "mla" or "mamba"
    bytes_per_token: int = 0  # attention kinds: one layer, one token, this rank
    window: int | None = None  # sliding: the window; chunked: the chunk size
    state_bytes: int = 0  # mamba: one layer, one request, this rank


@dataclass(frozen=True)
class Layout:
    model: str
    layers: tuple[LayerSpec, ...]  # target layers, then draft layers
    draft_layers: int
    kv_cache_dtype: str  # as asked
    kv_dtype: str  # resolved
    kv_dtype_bytes: int
    kv_heads_per_rank: int
    head_size: int
    tensor_parallel_size: int
    derivation: str  # bytes per token per layer, in words and numbers
    notes: tuple[str, ...] = ()

    @property
    def attention_layers(self) -> list[LayerSpec]:
        return [spec for spec in self.layers if spec.kind != "mamba"]

    @property
    def kv_bytes_all_layers(self) -> int:
        """Bytes per token if every attention layer kept every token (no hybrid manager)."""
        return sum(spec.bytes_per_token for spec in self.attention_layers)


def model_dtype(model: ModelConfig) -> tuple[str, str | None]:
    """vLLM's dtype="auto": the config's dtype, but float32 checkpoints run in bfloat16."""
    if model.dtype == "float32":
        return "bfloat16", "model dtype float32 runs as bfloat16 (vLLM downcasts float32 checkpoints)"
    return model.dtype, None


def check_tensor_parallel(model: ModelConfig, tp: int) -> None:
    """vLLM's rules: heads divide by TP; KV heads divide by TP or TP by KV heads."""
    heads = model.num_attention_heads
    if heads % tp:
        raise CalcError(
            f"Total number of attention heads ({heads}) must be divisible by tensor parallel "
            f"size ({tp}).", "tensor_parallel_size")
    if model.is_mla:
        return  # MLA caches one latent head, replicated on every rank
    kv = model.num_kv_heads
    if kv >= tp and kv % tp:
        raise CalcError(
            f"{kv} KV heads cannot be split over tensor parallel size {tp}: vLLM needs the KV heads "
            f"to divide by the TP size, or the TP size to divide by the KV heads (replication).",
            "tensor_parallel_size")
    if kv < tp and tp % kv:
        raise CalcError(
            f"tensor parallel size {tp} is not a multiple of the {kv} KV heads: vLLM replicates KV "
            f"heads only when the TP size divides by them.", "tensor_parallel_size")
    for key in ("linear_num_key_heads", "linear_num_value_heads"):
        if model.linear and model.linear[key] % tp:
            raise CalcError(f"{key} ({model.linear[key]}) must be divisible by tensor parallel size ({tp})",
                            "tensor_parallel_size")


def kv_cache_dtypes_for(model: ModelConfig | None) -> tuple[str, ...]:
    """The KV cache dtypes vLLM accepts for a model: fp8_ds_mla only for MLA models."""
    if model is None:
        return ("auto",)
    return tuple(d for d in KV_CACHE_DTYPES if d != "fp8_ds_mla" or model.is_mla)


def resolve_kv_dtype(model: ModelConfig, kv_cache_dtype: str) -> tuple[str, int, list[str]]:
    notes = []
    if kv_cache_dtype not in KV_CACHE_DTYPES:
        raise CalcError(f"kv_cache_dtype {kv_cache_dtype!r} is not one of {', '.join(KV_CACHE_DTYPES)}",
                        "kv_cache_dtype")
    if kv_cache_dtype == "fp8_ds_mla":
        if not model.is_mla:
            raise CalcError(
                "kv_cache_dtype fp8_ds_mla is the DeepSeek sparse-MLA cache layout; vLLM uses it only "
                f"for MLA models, and {model.name} has no MLA (no kv_lora_rank)", "kv_cache_dtype")
        return "fp8_ds_mla", 1, notes
    if kv_cache_dtype == "auto":
        dtype, note = model_dtype(model)
        notes.append(f"kv_cache_dtype auto = the model dtype, {dtype}")
        if note:
            notes.append(note)
        return dtype, DTYPE_BYTES[dtype], notes
    return kv_cache_dtype, DTYPE_BYTES[kv_cache_dtype], notes


# Kept per model: every scenario of a model with the same KV dtype, TP and drafts shares it.
@per_object(512, keep=kept_model)
def build_layout(model: ModelConfig, kv_cache_dtype: str = "auto", tensor_parallel_size: int = 1,
                 num_draft_layers: int = 0) -> Layout:
    tp = tensor_parallel_size
    check_tensor_parallel(model, tp)
    kv_dtype, b, notes = resolve_kv_dtype(model, kv_cache_dtype)
    notes = list(model.rules) + notes

    if model.is_mla:
        head_size = model.kv_lora_rank + model.qk_rope_head_dim
        kv_heads = 1
        if kv_dtype == "fp8_ds_mla":
            per_token = FP8_DS_MLA_BYTES
            derivation = "656 B (fp8_ds_mla: 512 fp8 latent + 16 B scales + 128 B RoPE)"
        else:
            per_token = head_size * b
            derivation = (f"({model.kv_lora_rank} KV LoRA rank + {model.qk_rope_head_dim} RoPE dims) "
                          f"× {b} {_bytes(b)} (MLA: one latent head, no separate V)")
        if model.index_head_dim:
            per_token, derivation = _with_indexer(model, per_token, derivation, kv_cache_dtype, notes)
        if tp > 1:
            notes.append(f"MLA keeps its one latent head on every rank: bytes per rank do not shrink at TP {tp}")
    else:
        head_size = model.head_dim
        kv_heads = max(1, model.num_kv_heads // tp)
        per_token = 2 * kv_heads * head_size * b
        heads_text = (f"{kv_heads} KV heads" if tp == 1 else
                      f"{kv_heads} KV heads per rank ({model.num_kv_heads} ÷ TP {tp}"
                      f"{', replicated' if model.num_kv_heads < tp else ''})")
        derivation = f"{heads_text} × {head_size} head size × 2 (K and V) × {b} {_bytes(b)}"
        if model.num_kv_heads < tp:
            notes.append(f"{model.num_kv_heads} KV heads at TP {tp}: each rank keeps 1 head, "
                         f"replicated {tp // model.num_kv_heads}×")

    layers = [_layer_spec(kind, per_token, model, tp) for kind in model.layer_types if kind != NO_ATTENTION]
    if num_draft_layers:
        target_kinds = {spec.kind for spec in layers}
        if target_kinds not in ({"full"}, {"mla"}):
            raise CalcError("draft layers for speculative decoding are sized only for models whose layers are "
                            "all full attention or all MLA", "num_draft_layers")
        layers += [layers[0]] * num_draft_layers
        notes.append(f"{num_draft_layers} draft layer(s) share the pool: every block costs them too")
    return Layout(
        model=model.name,
        layers=tuple(layers),
        draft_layers=num_draft_layers,
        kv_cache_dtype=kv_cache_dtype,
        kv_dtype=kv_dtype,
        kv_dtype_bytes=b,
        kv_heads_per_rank=kv_heads,
        head_size=head_size,
        tensor_parallel_size=tp,
        derivation=derivation,
        notes=tuple(notes),
    )


def uniform_layout(kv_bytes_per_token: int, name: str = "measured") -> Layout:
    """A model known only by its measured bytes per token: one layer that holds them all."""
    return Layout(
        model=name,
        layers=(LayerSpec("full", kv_bytes_per_token),),
        draft_layers=0,
        kv_cache_dtype="given",
        kv_dtype="given",
        kv_dtype_bytes=0,
        kv_heads_per_rank=0,
        head_size=0,
        tensor_parallel_size=1,
        derivation=f"{kv_bytes_per_token:,} B per token (given)",
    )


def _layer_spec(kind: str, per_token: int, model: ModelConfig, tp: int) -> LayerSpec:
    if kind == MLA:
        return LayerSpec("mla", per_token)
    if kind == FULL:
        return LayerSpec("full", per_token)
    if kind == SLIDING:
        return LayerSpec("sliding", per_token, window=model.sliding_window)
    if kind == CHUNKED:
        return LayerSpec("chunked", per_token, window=model.attention_chunk_size)
    if kind == LINEAR and model.linear_kind == "lightning":
        return LayerSpec("mamba", state_bytes=lightning_state_bytes(model, tp))
    if kind == LINEAR:
        return LayerSpec("mamba", state_bytes=gated_delta_net_state_bytes(model, tp))
    raise CalcError(f"layer type {kind!r} cannot be sized", "config.layer_types")


def gated_delta_net_state_bytes(model: ModelConfig, tp: int) -> int:
    """One linear-attention layer's state for one request (vLLM's MambaStateShapeCalculator)."""
    lin = model.linear
    b = DTYPE_BYTES[model_dtype(model)[0]]
    conv_dim = (lin["linear_key_head_dim"] * lin["linear_num_key_heads"] * 2
                + lin["linear_value_head_dim"] * lin["linear_num_value_heads"])
    conv = conv_dim // tp * (lin["linear_conv_kernel_dim"] - 1)
    recurrent = lin["linear_num_value_heads"] // tp * lin["linear_value_head_dim"] * lin["linear_key_head_dim"]
    return (conv + recurrent) * b


def lightning_state_bytes(model: ModelConfig, tp: int) -> int:
    """One lightning-attention layer's state for one request (MiniMax; vLLM 0.23's
    MambaStateShapeCalculator.linear_attention_state_shape: heads / TP × head_dim × head_dim,
    in the model dtype)."""
    b = DTYPE_BYTES[model_dtype(model)[0]]
    return model.num_attention_heads // tp * model.head_dim * model.head_dim * b


def _with_indexer(model: ModelConfig, per_token: int, derivation: str, asked: str,
                  notes: list[str]) -> tuple[int, str]:
    """Sparse MLA (DeepSeek-V3.2): each layer also caches the indexer's keys, in the same
    block group as the latent (vLLM sums the two pages: UniformTypeKVCacheSpecs)."""
    dim = model.index_head_dim
    indexer = dim + dim // INDEXER_QUANT_BLOCK * 4
    if asked in ("fp8", "fp8_e4m3", "fp8_e5m2"):
        notes.append("sparse MLA with an fp8 KV cache: vLLM's FLASHMLA_SPARSE backend (Hopper, and every GPU in "
                     "vLLM 0.11-0.14) stores it as fp8_ds_mla, 656 B per layer per token; FLASHINFER_MLA_SPARSE "
                     "(Blackwell, from vLLM 0.18) keeps plain fp8, 576 B. Give kv_cache_dtype fp8_ds_mla to size "
                     "the first")
    return (per_token + indexer,
            f"({derivation} = {per_token:,} B latent + {indexer} B indexer key ({dim} fp8 values + "
            f"{dim // INDEXER_QUANT_BLOCK} × 4 B scale))")


def _bytes(n: int) -> str:
    return "byte" if n == 1 else "bytes"
