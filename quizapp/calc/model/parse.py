"""Read any Hugging Face ``config.json`` into a :class:`~.config.ModelConfig`.

vLLM reads configs through transformers, which fills in aliases and per-family defaults;
this module reproduces the parts of that which change KV bytes, and says which rule it
applied so a derivation can show it.
"""

from __future__ import annotations

from typing import Any

from ..errors import CalcError
from .config import ALIASES, GIVEN, ModelConfig, lookup, whole_number
from .families import (
    ALTERNATING_SLIDING,
    CHUNKED,
    CHUNKED_LOCAL_TYPES,
    FAMILY_DEFAULTS,
    FULL,
    LINEAR,
    MLA,
    SLIDING,
    llama4_layers,
    minimax_layers,
    nemotron_blocks,
)
from .maxlen import length_from_keys

KNOWN_LAYER_TYPES = {FULL, SLIDING, LINEAR, CHUNKED}

TORCH_DTYPES = {"bfloat16": "bfloat16", "bf16": "bfloat16", "float16": "float16", "fp16": "float16",
                "half": "float16", "float32": "float32", "fp32": "float32", "float": "float32"}


def _text_config(config: dict) -> dict:
    """Multimodal configs keep the language model in ``text_config`` (or ``llm_config``)."""
    for key in ("text_config", "llm_config", "language_config"):
        nested = config.get(key)
        if isinstance(nested, dict) and nested:
            merged = {k: v for k, v in config.items() if k != key}
            merged.update(nested)
            return merged
    return config


def _required(cfg: dict, key: str, model_type: str, rules: list[str]) -> int:
    value, source = lookup(cfg, key, model_type)
    if value is None:
        names = " or ".join(f"'{a}'" for a in ALIASES.get(key, (key,))[:3])
        raise CalcError(f"config is missing {names} (needed to size the KV cache)", f"config.{key}")
    if source and source.endswith("default"):
        rules.append(f"{key} missing: {value} ({source}, from transformers)")
    return whole_number(value, key)


def _display_name(name: str) -> str:
    """A local path in _name_or_path names the model by its folder, not the whole path."""
    text = str(name).strip().rstrip("/")
    if text.startswith(("/", "./", "../", "~")) or "\\" in text:
        text = text.replace("\\", "/").rsplit("/", 1)[-1]
    return text or GIVEN


def parse_config(config: Any, name: str = GIVEN) -> ModelConfig:
    """Normalise a Hugging Face config dict. Raises CalcError naming the missing field."""
    if not isinstance(config, dict):
        raise CalcError(f"{name}: a model config must be a JSON object, got {type(config).__name__}", "config")
    name = _display_name(name)
    cfg = _text_config(config)
    model_type = str(cfg.get("model_type") or config.get("model_type") or "")
    rules: list[str] = []

    num_layers = _required(cfg, "num_hidden_layers", model_type, rules)
    num_heads = _required(cfg, "num_attention_heads", model_type, rules)
    kv_lora_rank, rope_dim = _mla_ranks(cfg)
    if isinstance(cfg.get("block_configs"), list):
        block_types, kv_heads = nemotron_blocks(cfg, num_heads, rules)
        if len(block_types) != num_layers:
            raise CalcError(f"config 'block_configs' has {len(block_types)} blocks for {num_layers} layers",
                            "config.block_configs")
    else:
        block_types, kv_heads = None, _kv_heads(cfg, model_type, num_heads, kv_lora_rank is not None, rules)

    hidden_value, _ = lookup(cfg, "hidden_size", model_type)
    hidden = whole_number(hidden_value, "hidden_size") if hidden_value is not None else None
    head_dim = _head_dim(cfg, model_type, hidden, num_heads, kv_lora_rank is not None, rules)
    dtype = _dtype(cfg, config, rules)

    window_value, _ = lookup(cfg, "sliding_window", model_type)
    # vLLM reads sliding_window 0 as "no sliding window" (config/model.py).
    window = whole_number(window_value, "sliding_window") if window_value not in (None, False, 0) else None
    chunk = _chunk_size(cfg, model_type)
    max_pos, max_key = length_from_keys(cfg)
    if max_pos is None and FAMILY_DEFAULTS.get(model_type, {}).get("max_position_embeddings"):
        max_pos, max_key = FAMILY_DEFAULTS[model_type]["max_position_embeddings"], "max_position_embeddings"
    if block_types is not None:
        layer_types = block_types
    else:
        layer_types = _layer_types(cfg, model_type, num_layers, window, kv_lora_rank is not None, chunk, max_pos,
                                   rules)
    if SLIDING in layer_types and window is None:
        raise CalcError("config marks sliding-attention layers but has no 'sliding_window' size",
                        "config.sliding_window")
    if CHUNKED in layer_types and chunk is None:
        raise CalcError("config marks chunked-attention layers but has no 'attention_chunk_size'",
                        "config.attention_chunk_size")
    linear_kind = None
    linear = {}
    if LINEAR in layer_types:
        linear_kind = "lightning" if "attn_type_list" in cfg else "gated_delta_net"
        linear = _linear_attention(cfg) if linear_kind == "gated_delta_net" else {}

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
        max_position_embeddings=whole_number(max_pos, max_key) if max_pos else None,
        max_len_key=max_key,
        num_nextn_predict_layers=whole_number(cfg.get("num_nextn_predict_layers") or 0, "num_nextn_predict_layers",
                                               minimum=0),
        linear=linear,
        linear_kind=linear_kind,
        attention_chunk_size=chunk if CHUNKED in layer_types else None,
        index_head_dim=_index_head_dim(cfg, kv_lora_rank is not None),
        architectures=tuple(a for a in (config.get("architectures") or cfg.get("architectures") or ())
                            if isinstance(a, str)),
        raw=cfg,
        rules=tuple(rules),
    )


def _mla_ranks(cfg: dict) -> tuple[int | None, int | None]:
    kv_lora_rank = cfg.get("kv_lora_rank")
    if kv_lora_rank is None:
        return None, None
    kv_lora_rank = whole_number(kv_lora_rank, "kv_lora_rank")
    if cfg.get("qk_rope_head_dim") is None:
        raise CalcError("MLA config has 'kv_lora_rank' but no 'qk_rope_head_dim'", "config.qk_rope_head_dim")
    return kv_lora_rank, whole_number(cfg["qk_rope_head_dim"], "qk_rope_head_dim")


def _kv_heads(cfg: dict, model_type: str, num_heads: int, is_mla: bool, rules: list[str]) -> int:
    value, source = lookup(cfg, "num_key_value_heads", model_type)
    if cfg.get("multi_query") is True and value is None:
        return 1
    if value is None:
        if not is_mla:  # MLA caches one latent head whatever the config says
            rules.append(f"num_key_value_heads missing: {num_heads} (= num_attention_heads, MHA)")
        return num_heads
    heads = whole_number(value, "num_key_value_heads")
    if source and source.endswith("default"):
        rules.append(f"num_key_value_heads missing: {heads} ({source}, from transformers)")
    return heads


def _head_dim(cfg: dict, model_type: str, hidden: int | None, num_heads: int, is_mla: bool,
              rules: list[str]) -> int:
    """head_dim, else hidden_size ÷ heads. MLA caches kv_lora_rank + qk_rope_head_dim instead,
    so for MLA the fallback is neither checked nor noted."""
    value, source = lookup(cfg, "head_dim", model_type)
    if value is not None:
        head_dim = whole_number(value, "head_dim")
        if source and source.endswith("default"):
            rules.append(f"head_dim missing: {head_dim} ({source}, from transformers)")
        return head_dim
    if hidden is None:
        if is_mla:
            return 0
        raise CalcError("config is missing 'head_dim' and 'hidden_size' (needed for the head size)",
                        "config.head_dim")
    if is_mla:
        return hidden // num_heads
    if hidden % num_heads:
        raise CalcError(f"config has no 'head_dim' and hidden_size {hidden} does not divide by "
                        f"num_attention_heads {num_heads}", "config.head_dim")
    head_dim = hidden // num_heads
    rules.append(f"head_dim missing: hidden_size {hidden} ÷ {num_heads} heads = {head_dim}")
    return head_dim


def _chunk_size(cfg: dict, model_type: str) -> int | None:
    value = cfg.get("attention_chunk_size")
    if model_type not in CHUNKED_LOCAL_TYPES and cfg.get("layer_types") is None:
        return None
    return whole_number(value, "attention_chunk_size") if value else None


def _index_head_dim(cfg: dict, is_mla: bool) -> int | None:
    """DeepSeek-V3.2 (sparse MLA, ``index_topk``) keeps an indexer key cache of this head size."""
    if not is_mla or cfg.get("index_topk") is None or cfg.get("index_head_dim") is None:
        return None
    return whole_number(cfg["index_head_dim"], "index_head_dim")


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


def _layer_types(cfg, model_type, num_layers, window, is_mla, chunk, max_pos, rules) -> list[str]:
    if is_mla:
        return [MLA] * num_layers
    if cfg.get("attn_type_list") is not None:
        return minimax_layers(cfg, num_layers, rules)
    declared = cfg.get("layer_types")
    if declared is not None:
        return _declared_layer_types(declared, num_layers)
    if cfg.get("full_attention_interval"):
        interval = whole_number(cfg["full_attention_interval"], "full_attention_interval")
        rules.append(f"no layer_types: every {interval}th layer is full attention, the rest linear "
                     "(transformers' full_attention_interval rule)")
        return [FULL if (i + 1) % interval == 0 else LINEAR for i in range(num_layers)]
    if chunk and model_type in CHUNKED_LOCAL_TYPES:
        return llama4_layers(cfg, num_layers, chunk, rules)
    pattern, source = lookup(cfg, "sliding_window_pattern", model_type)
    if window and pattern:
        pattern = whole_number(pattern, "sliding_window_pattern")
        rules.append(f"no layer_types: every {pattern}th layer is full attention, the rest slide "
                     f"over {window} tokens (sliding_window_pattern {pattern}"
                     f"{', ' + source if source and source.endswith('default') else ''})")
        return [FULL if (i + 1) % pattern == 0 else SLIDING for i in range(num_layers)]
    if window and model_type in ALTERNATING_SLIDING:
        rules.append(f"no layer_types: {model_type} alternates sliding ({window}) and full layers")
        return [SLIDING if (i + 1) % 2 else FULL for i in range(num_layers)]
    if window and cfg.get("use_sliding_window") is False:
        # transformers' Qwen2/Qwen3 configs set sliding_window to None in this case.
        rules.append(f"use_sliding_window is false: sliding_window {window:,} is dropped (transformers' "
                     "Qwen2/Qwen3 configs), so every layer is full attention")
        return [FULL] * num_layers
    if window and cfg.get("use_sliding_window") and cfg.get("max_window_layers") is not None:
        first = whole_number(cfg["max_window_layers"], "max_window_layers", minimum=0)
        rules.append(f"use_sliding_window: layers from {first} on slide over {window} tokens")
        return [SLIDING if i >= first else FULL for i in range(num_layers)]
    if window:
        rules.append(_every_layer_slides(window, max_pos))
        return [SLIDING] * num_layers
    return [FULL] * num_layers


def _every_layer_slides(window: int, max_pos: int | None) -> str:
    """Without layer_types, vLLM copies the config's sliding_window into CacheConfig and every
    attention layer without a per-layer window takes it (docs/research/vllm-kv.md §6)."""
    text = (f"no layer_types: vLLM sets the cache's sliding_window to {window:,} (engine/arg_utils.py), so every "
            "layer slides")
    if max_pos and window >= max_pos:
        text += (f"; the window is not shorter than max_position_embeddings {max_pos:,}, so it never drops a "
                 "token, yet each request still holds one block more than full attention would")
    return text


def _declared_layer_types(declared, num_layers: int) -> list[str]:
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


LINEAR_FIELDS = ("linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim",
                 "linear_value_head_dim", "linear_conv_kernel_dim")


def _linear_attention(cfg: dict) -> dict[str, int]:
    missing = [f for f in LINEAR_FIELDS if cfg.get(f) is None]
    if missing:
        raise CalcError(f"config has linear-attention layers but no {', '.join(repr(m) for m in missing)}",
                        f"config.{missing[0]}")
    return {f: whole_number(cfg[f], f) for f in LINEAR_FIELDS}
