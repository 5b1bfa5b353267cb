"""The sizing facts of one model, as vLLM resolves them from its ``config.json``.

:class:`ModelConfig` is the data every stage of the calculator reads; ``parse.py`` builds it.
A field is read under any of its transformers aliases, else the family's default
(:func:`lookup`), and a field that counts something is checked where it is read
(:func:`whole_number`), so an error names the field at fault.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import CalcError
from .families import CHUNKED, FAMILY_DEFAULTS, FULL, LINEAR, MLA, NO_ATTENTION, SLIDING

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
}

__all__ = ["FULL", "SLIDING", "LINEAR", "CHUNKED", "MLA", "NO_ATTENTION", "ModelConfig", "lookup", "whole_number"]

# What vLLM calls the config it was given when it has no _name_or_path.
GIVEN = "config"


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
    layer_types: tuple[str, ...]  # one per layer: full/sliding/chunked/linear attention, mla or none
    sliding_window: int | None
    kv_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    # the smallest length key the config sets (vLLM's derived max length), and which key
    max_position_embeddings: int | None = None
    max_len_key: str | None = None
    num_nextn_predict_layers: int = 0
    linear: dict[str, int] = field(default_factory=dict)  # Gated DeltaNet dimensions (Qwen3-Next)
    linear_kind: str | None = None  # "gated_delta_net" or "lightning" (MiniMax)
    attention_chunk_size: int | None = None  # Llama 4's chunked local attention
    index_head_dim: int | None = None  # DeepSeek-V3.2's sparse-attention indexer (a key cache per layer)
    architectures: tuple[str, ...] = ()
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    rules: tuple[str, ...] = ()  # the defaults and conventions applied, in words
    # Set by the catalog only: one object per catalog model per process (see ``kept_model``).
    from_catalog: bool = field(default=False, compare=False, repr=False)

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank is not None

    @property
    def config_source(self) -> str:
        """Where a derivation's config facts come from, e.g. "Qwen/Qwen3-8B's config.json"."""
        return "the given config.json" if self.name == GIVEN else f"{self.name}'s config.json"

    def count(self, layer_type: str) -> int:
        return sum(1 for t in self.layer_types if t == layer_type)

    def get(self, key: str, default=None):
        """A raw config value (after nesting and aliases), for the weights count."""
        value, _ = lookup(self.raw, key, self.model_type)
        return default if value is None else value


def kept_model(model: ModelConfig) -> bool:
    """Whether values derived from a model may be kept (``quizapp.lru.per_object``): a catalog
    model, of which there are a few dozen. A given config.json is one reader's, a new object on
    each request and up to a megabyte of JSON: kept, 512 of them would hold a worker's memory."""
    return model.from_catalog


def lookup(cfg: dict, key: str, model_type: str) -> tuple[Any, str | None]:
    """A field under any of its aliases, else the family's transformers default; with where it came
    from (the alias, or "<model_type> default"). (None, None) when neither has it."""
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


def whole_number(value, name: str, minimum: int = 1) -> int:
    """A config field that counts something (layers, heads, dimensions): a whole number from
    ``minimum`` up to what any model has. Raises CalcError naming the field (``config.<name>``)."""
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
