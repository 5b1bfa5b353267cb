"""Read any Hugging Face ``config.json`` into the few facts KV sizing needs.

vLLM reads configs through transformers, which fills in aliases and per-family defaults;
this module reproduces the parts of that which change KV bytes, and says which rule it
applied so a derivation can show it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import CalcError

# transformers' ``attribute_map`` aliases across model families.
ALIASES = {
    "num_hidden_layers": ("num_hidden_layers", "n_layer", "n_layers", "num_layers"),
    "num_attention_heads": ("num_attention_heads", "n_head", "n_heads", "num_heads"),
    "num_key_value_heads": (
        "num_key_value_heads",
        "num_kv_heads",
        "n_head_kv",
        "n_kv_heads",
        "multi_query_group_num",
    ),
    "hidden_size": ("hidden_size", "n_embd", "d_model", "dim"),
    "head_dim": ("head_dim", "head_size"),
    "vocab_size": ("vocab_size", "padded_vocab_size", "n_vocab"),
    "intermediate_size": ("intermediate_size", "ffn_hidden_size", "n_inner"),
    "max_position_embeddings": (
        "max_position_embeddings",
        "n_positions",
        "max_seq_len",
        "seq_length",
        "max_sequence_length",
    ),
}

# Defaults transformers supplies when a family's config.json leaves a field out
# (transformers' configuration_<family>.py). Only fields that change sizing are listed.
FAMILY_DEFAULTS = {
    "gemma3_text": {"head_dim": 256, "sliding_window_pattern": 6, "sliding_window": 4096,
                    "max_position_embeddings": 131072, "num_key_value_heads": 4,
                    "vocab_size": 262208, "tie_word_embeddings": True},
    "gemma3": {"head_dim": 256, "sliding_window_pattern": 6, "sliding_window": 4096,
               "max_position_embeddings": 131072, "num_key_value_heads": 4,
               "vocab_size": 262208, "tie_word_embeddings": True},
    "gemma2": {"head_dim": 256, "sliding_window": 4096, "tie_word_embeddings": True},
    "gemma": {"head_dim": 256, "tie_word_embeddings": True},
}

# Layers of these families alternate sliding and full attention in transformers'
# config classes even when config.json has no ``layer_types``.
ALTERNATING_SLIDING = {"gemma2"}

FULL = "full_attention"
SLIDING = "sliding_attention"
LINEAR = "linear_attention"
MLA = "mla"
KNOWN_LAYER_TYPES = {FULL, SLIDING, LINEAR}

TORCH_DTYPES = {
    "bfloat16": "bfloat16",
    "bf16": "bfloat16",
    "float16": "float16",
    "fp16": "float16",
    "half": "float16",
    "float32": "float32",
    "fp32": "float32",
    "float": "float32",
}


@dataclass(frozen=True)
class ModelConfig:
    """The sizing facts of one model, each as vLLM would resolve it."""

    name: str
    model_type: str
    num_layers: int
    num_attention_heads: int
    num_kv_heads: int
    head_dim: int
    hidden_size: int | None
    dtype: str  # as the config states it, after aliases
    layer_types: tuple[str, ...]  # one per layer: full/sliding/linear attention or mla
    sliding_window: int | None
    kv_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    max_position_embeddings: int | None = None
    num_nextn_predict_layers: int = 0
    linear: dict[str, int] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    rules: tuple[str, ...] = ()  # the defaults and conventions applied, in words

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank is not None

    def count(self, layer_type: str) -> int:
        return sum(1 for t in self.layer_types if t == layer_type)

    def get(self, key: str, default=None):
        """A raw config value (after nesting and aliases), for the weights count."""
        for alias in ALIASES.get(key, (key,)):
            if self.raw.get(alias) is not None:
                return self.raw[alias]
        return FAMILY_DEFAULTS.get(self.model_type, {}).get(key, default)


def _text_config(config: dict) -> dict:
    """Multimodal configs keep the language model in ``text_config`` (or ``llm_config``)."""
    for key in ("text_config", "llm_config", "language_config"):
        nested = config.get(key)
        if isinstance(nested, dict) and nested:
            merged = {k: v for k, v in config.items() if k != key}
            merged.update(nested)
            return merged
    return config


def _lookup(cfg: dict, key: str, model_type: str):
    for alias in ALIASES.get(key, (key,)):
        if cfg.get(alias) is not None:
            return cfg[alias], alias
    default = FAMILY_DEFAULTS.get(model_type, {}).get(key)
    if default is not None:
        return default, f"{model_type} default"
    return None, None


# No real model comes near these; a config beyond them is a typo or an attack on our memory.
MAX_LAYERS = 10_000
MAX_DIMENSION = 10**8


def _positive_int(value, name: str, minimum: int = 1) -> int:
    if (isinstance(value, bool) or not isinstance(value, (int, float)) or value != value
            or value in (float("inf"), float("-inf")) or value != int(value)):
        raise CalcError(f"config field '{name}' must be a whole number, got {value!r}", f"config.{name}")
    if value < minimum:
        raise CalcError(f"config field '{name}' must be {'positive' if minimum else 'at least 0'}, got {value!r}",
                        f"config.{name}")
    limit = MAX_LAYERS if name in ("num_hidden_layers", "num_nextn_predict_layers") else MAX_DIMENSION
    if value > limit:
        raise CalcError(f"config field '{name}' is {value:,}, more than any model has (at most {limit:,})",
                        f"config.{name}")
    return int(value)


def _required(cfg: dict, key: str, model_type: str) -> int:
    value, _ = _lookup(cfg, key, model_type)
    if value is None:
        names = " or ".join(f"'{a}'" for a in ALIASES.get(key, (key,))[:3])
        raise CalcError(f"config is missing {names} (needed to size the KV cache)", f"config.{key}")
    return _positive_int(value, key)


def parse_config(config: Any, name: str = "config") -> ModelConfig:
    """Normalise a Hugging Face config dict. Raises CalcError naming the missing field."""
    if not isinstance(config, dict):
        raise CalcError(f"{name}: a model config must be a JSON object, got {type(config).__name__}", "config")
    cfg = _text_config(config)
    model_type = str(cfg.get("model_type") or config.get("model_type") or "")
    rules: list[str] = []

    num_layers = _required(cfg, "num_hidden_layers", model_type)
    num_heads = _required(cfg, "num_attention_heads", model_type)
    kv_heads_value, kv_source = _lookup(cfg, "num_key_value_heads", model_type)
    if cfg.get("multi_query") is True and kv_heads_value is None:
        kv_heads, kv_source = 1, "multi_query"
    elif kv_heads_value is None:
        kv_heads = num_heads
        rules.append(f"num_key_value_heads missing: {num_heads} (= num_attention_heads, MHA)")
    else:
        kv_heads = _positive_int(kv_heads_value, "num_key_value_heads")
        if kv_source and kv_source.endswith("default"):
            rules.append(f"num_key_value_heads missing: {kv_heads} ({kv_source})")

    hidden_value, _ = _lookup(cfg, "hidden_size", model_type)
    hidden = _positive_int(hidden_value, "hidden_size") if hidden_value is not None else None
    head_value, head_source = _lookup(cfg, "head_dim", model_type)
    if head_value is not None:
        head_dim = _positive_int(head_value, "head_dim")
        if head_source and head_source.endswith("default"):
            rules.append(f"head_dim missing: {head_dim} ({head_source}, from transformers)")
    elif hidden is not None:
        if hidden % num_heads:
            raise CalcError(
                f"config has no 'head_dim' and hidden_size {hidden} does not divide by "
                f"num_attention_heads {num_heads}", "config.head_dim")
        head_dim = hidden // num_heads
        rules.append(f"head_dim missing: hidden_size {hidden} ÷ {num_heads} heads = {head_dim}")
    else:
        raise CalcError("config is missing 'head_dim' and 'hidden_size' (needed for the head size)",
                        "config.head_dim")

    dtype = _dtype(cfg, config, rules)
    kv_lora_rank = cfg.get("kv_lora_rank")
    rope_dim = None
    if kv_lora_rank is not None:
        kv_lora_rank = _positive_int(kv_lora_rank, "kv_lora_rank")
        if cfg.get("qk_rope_head_dim") is None:
            raise CalcError("MLA config has 'kv_lora_rank' but no 'qk_rope_head_dim'", "config.qk_rope_head_dim")
        rope_dim = _positive_int(cfg["qk_rope_head_dim"], "qk_rope_head_dim")

    window_value, _ = _lookup(cfg, "sliding_window", model_type)
    window = _positive_int(window_value, "sliding_window") if window_value not in (None, False) else None
    layer_types = _layer_types(cfg, model_type, num_layers, window, kv_lora_rank is not None, rules)
    if SLIDING in layer_types and window is None:
        raise CalcError("config marks sliding-attention layers but has no 'sliding_window' size",
                        "config.sliding_window")
    linear = _linear_attention(cfg) if LINEAR in layer_types else {}
    max_pos, _ = _lookup(cfg, "max_position_embeddings", model_type)

    return ModelConfig(
        name=name,
        model_type=model_type,
        num_layers=num_layers,
        num_attention_heads=num_heads,
        num_kv_heads=kv_heads,
        head_dim=head_dim,
        hidden_size=hidden,
        dtype=dtype,
        layer_types=tuple(layer_types),
        sliding_window=window if SLIDING in layer_types else None,
        kv_lora_rank=kv_lora_rank,
        qk_rope_head_dim=rope_dim,
        max_position_embeddings=_positive_int(max_pos, "max_position_embeddings") if max_pos else None,
        num_nextn_predict_layers=_positive_int(cfg.get("num_nextn_predict_layers") or 0, "num_nextn_predict_layers",
                                               minimum=0),
        linear=linear,
        raw=cfg,
        rules=tuple(rules),
    )


def _dtype(cfg: dict, top: dict, rules: list[str]) -> str:
    raw = cfg.get("torch_dtype") or cfg.get("dtype") or top.get("torch_dtype") or top.get("dtype")
    if raw is None:
        rules.append("no torch_dtype in config: transformers' default float32")
        return "float32"
    name = str(raw).removeprefix("torch.").lower()
    if name not in TORCH_DTYPES:
        raise CalcError(f"config torch_dtype {raw!r} is not one of {', '.join(sorted(set(TORCH_DTYPES.values())))}",
                        "config.torch_dtype")
    return TORCH_DTYPES[name]


def _layer_types(cfg, model_type, num_layers, window, is_mla, rules) -> list[str]:
    if is_mla:
        return [MLA] * num_layers
    declared = cfg.get("layer_types")
    if declared is not None:
        if not isinstance(declared, list) or len(declared) != num_layers:
            raise CalcError(f"config 'layer_types' must list one type per layer ({num_layers})",
                            "config.layer_types")
        unknown = sorted({repr(t) if not isinstance(t, str) else t for t in declared
                          if not isinstance(t, str) or t not in KNOWN_LAYER_TYPES})
        if unknown:
            raise CalcError(f"config 'layer_types' has {', '.join(map(repr, unknown))}, which the "
                            f"calculator cannot size (it knows {', '.join(sorted(KNOWN_LAYER_TYPES))})",
                            "config.layer_types")
        return list(declared)
    if cfg.get("full_attention_interval"):
        interval = _positive_int(cfg["full_attention_interval"], "full_attention_interval")
        rules.append(f"no layer_types: every {interval}th layer is full attention, the rest linear "
                     "(transformers' full_attention_interval rule)")
        return [FULL if (i + 1) % interval == 0 else LINEAR for i in range(num_layers)]
    pattern, source = _lookup(cfg, "sliding_window_pattern", model_type)
    if window and pattern:
        pattern = _positive_int(pattern, "sliding_window_pattern")
        rules.append(f"no layer_types: every {pattern}th layer is full attention, the rest slide "
                     f"over {window} tokens (sliding_window_pattern {pattern}"
                     f"{', ' + source if source and source.endswith('default') else ''})")
        return [FULL if (i + 1) % pattern == 0 else SLIDING for i in range(num_layers)]
    if window and model_type in ALTERNATING_SLIDING:
        rules.append(f"no layer_types: {model_type} alternates sliding ({window}) and full layers")
        return [SLIDING if (i + 1) % 2 else FULL for i in range(num_layers)]
    if window and cfg.get("use_sliding_window") and cfg.get("max_window_layers") is not None:
        first = _positive_int(cfg["max_window_layers"], "max_window_layers", minimum=0)
        rules.append(f"use_sliding_window: layers from {first} on slide over {window} tokens")
        return [SLIDING if i >= first else FULL for i in range(num_layers)]
    if window:
        rules.append(f"sliding_window {window} ignored: vLLM applies a window only to layers that "
                     "layer_types marks sliding, so every layer is sized as full attention")
    return [FULL] * num_layers


LINEAR_FIELDS = ("linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim",
                 "linear_value_head_dim", "linear_conv_kernel_dim")


def _linear_attention(cfg: dict) -> dict[str, int]:
    missing = [f for f in LINEAR_FIELDS if cfg.get(f) is None]
    if missing:
        raise CalcError(f"config has linear-attention layers but no {', '.join(repr(m) for m in missing)}",
                        f"config.{missing[0]}")
    return {f: _positive_int(cfg[f], f) for f in LINEAR_FIELDS}
