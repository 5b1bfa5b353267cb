"""What transformers' config classes and vLLM's model files decide per family, beyond config.json.

Each rule names where it comes from, so a derivation can show it. Only what changes the
KV cache (or the weights count) is reproduced.
"""

from __future__ import annotations

from ..errors import CalcError

FULL = "full_attention"
SLIDING = "sliding_attention"
LINEAR = "linear_attention"
CHUNKED = "chunked_attention"  # Llama 4's chunked local attention (transformers' name)
MLA = "mla"
NO_ATTENTION = "no_attention"  # a Nemotron-NAS block whose attention is a no-op: no KV cache

# Defaults transformers supplies when a family's config.json leaves a field out
# (transformers' configuration_<family>.py). Only fields that change sizing are listed.
_GEMMA3 = {"head_dim": 256, "sliding_window_pattern": 6, "sliding_window": 4096,
           "max_position_embeddings": 131072, "num_attention_heads": 8, "num_key_value_heads": 4,
           "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 26,
           "vocab_size": 262208, "tie_word_embeddings": True}
FAMILY_DEFAULTS = {
    "gemma3_text": _GEMMA3,
    "gemma3": _GEMMA3,
    "gemma2": {"head_dim": 256, "sliding_window": 4096, "tie_word_embeddings": True},
    "gemma": {"head_dim": 256, "tie_word_embeddings": True},
}

# Layers of these families alternate sliding and full attention in transformers'
# config classes even when config.json has no ``layer_types``.
ALTERNATING_SLIDING = {"gemma2"}

# vLLM's llama4.py uses ChunkedLocalAttention on the layers that use RoPE.
CHUNKED_LOCAL_TYPES = {"llama4", "llama4_text"}


def nemotron_blocks(cfg: dict, num_heads: int, rules: list[str]) -> tuple[list[str], int]:
    """Nemotron-NAS (DeciLM): per-block attention, as vLLM's nemotron_nas.py builds it.

    A block whose ``attention.no_op`` is true has no attention layer (no KV cache); the others
    have num_attention_heads // n_heads_in_group KV heads. Returns the layer types and the KV
    heads, which must be the same in every attention block for the calculator to size it.
    """
    blocks = cfg["block_configs"]
    if not isinstance(blocks, list) or not all(isinstance(b, dict) for b in blocks):
        raise CalcError("config 'block_configs' must be a list of block objects", "config.block_configs")
    types, heads = [], set()
    for block in blocks:
        attention = block.get("attention") or {}
        if not isinstance(attention, dict):
            raise CalcError("a Nemotron block's 'attention' must be an object", "config.block_configs")
        if attention.get("no_op"):
            types.append(NO_ATTENTION)
            continue
        if attention.get("replace_with_linear") or attention.get("window_length"):
            raise CalcError("a Nemotron block replaces attention with a linear layer or a window; the calculator "
                            "sizes only full-attention and no-op blocks", "config.block_configs")
        group = attention.get("n_heads_in_group")
        if not isinstance(group, int) or isinstance(group, bool) or group < 1 or num_heads % group:
            raise CalcError(f"a Nemotron block's n_heads_in_group {group!r} does not divide the {num_heads} heads",
                            "config.block_configs")
        heads.add(num_heads // group)
        types.append(FULL)
    if len(heads) > 1:
        raise CalcError(f"Nemotron blocks have different KV heads ({', '.join(map(str, sorted(heads)))}); the "
                        "calculator sizes blocks of one KV-head count only", "config.block_configs")
    if not heads:
        raise CalcError("every Nemotron block is a no-op attention block: no KV cache to size", "config.block_configs")
    kv_heads = heads.pop()
    attention_blocks = types.count(FULL)
    rules.append(f"num_key_value_heads is null: each attention block has {num_heads} heads ÷ n_heads_in_group "
                 f"{num_heads // kv_heads} = {kv_heads} KV heads; {attention_blocks} of {len(types)} blocks have "
                 f"attention, {len(types) - attention_blocks} are no-op attention blocks without a KV cache "
                 "(vLLM's nemotron_nas.py)")
    return types, kv_heads


def minimax_layers(cfg: dict, num_layers: int, rules: list[str]) -> list[str]:
    """MiniMax-Text-01/M1: ``attn_type_list`` 1 = softmax attention (KV cache), 0 = lightning
    attention (a fixed state per request), as vLLM's minimax_text_01.py reads it."""
    kinds = cfg["attn_type_list"]
    if not isinstance(kinds, list) or len(kinds) != num_layers or any(k not in (0, 1) for k in kinds):
        raise CalcError(f"config 'attn_type_list' must list 0 or 1 for each of the {num_layers} layers",
                        "config.attn_type_list")
    full = sum(kinds)
    rules.append(f"attn_type_list: {full} softmax-attention layers keep a KV cache; the other {num_layers - full} "
                 "are lightning (linear) attention with a fixed state per request")
    return [FULL if k == 1 else LINEAR for k in kinds]


def llama4_layers(cfg: dict, num_layers: int, chunk: int, rules: list[str]) -> list[str]:
    """Llama 4: RoPE layers use chunked local attention, NoPE layers global attention.

    transformers' Llama4TextConfig fills an empty ``no_rope_layers`` with 1 (RoPE) for every
    layer but each ``no_rope_layer_interval``-th (default 4); vLLM's llama4.py makes a layer
    chunked when it uses RoPE and ``attention_chunk_size`` is set.
    """
    given = cfg.get("no_rope_layers")
    if given:
        if not isinstance(given, list) or len(given) != num_layers:
            raise CalcError(f"config 'no_rope_layers' must list one entry per layer ({num_layers})",
                            "config.no_rope_layers")
        uses_rope = [bool(x) for x in given]
        source = "no_rope_layers"
    else:
        interval = cfg.get("no_rope_layer_interval") or 4
        if not isinstance(interval, int) or isinstance(interval, bool) or interval < 1:
            raise CalcError(f"config 'no_rope_layer_interval' must be a positive whole number, got {interval!r}",
                            "config.no_rope_layer_interval")
        uses_rope = [(i + 1) % interval != 0 for i in range(num_layers)]
        source = f"no_rope_layers empty: every {interval}th layer is NoPE (transformers' Llama4TextConfig default)"
    types = [CHUNKED if rope else FULL for rope in uses_rope]
    rules.append(f"{source}; the {types.count(CHUNKED)} RoPE layers use chunked local attention over "
                 f"{chunk:,}-token chunks, the {types.count(FULL)} NoPE layers global attention (vLLM's llama4.py)")
    return types
