"""The shipped model catalog: real model configs addressed by Hugging Face id.

They load from files inside the package (``data/models/``), never from the network; the GPUs
are in ``hardware/catalog.py``.
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache
from importlib import resources

from ..errors import CalcError, closest
from .config import ModelConfig
from .parse import parse_config

DATA = resources.files("quizapp.calc") / "data"


def _model_id(filename: str) -> str:
    return filename.removesuffix(".json").replace("--", "/", 1)


@cache
def _sources() -> dict[str, str]:
    """file name -> its source, from the table in data/models/SOURCES.md."""
    text = (DATA / "models" / "SOURCES.md").read_text(encoding="utf-8")
    sources = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].endswith(".json"):
            sources[cells[0]] = f"{cells[1]} ({cells[2]})"
    return sources


@cache
def model_files() -> dict[str, str]:
    """Hugging Face id -> file name, for every shipped config."""
    return {
        _model_id(entry.name): entry.name
        for entry in (DATA / "models").iterdir()
        if entry.name.endswith(".json")
    }


def model_ids() -> list[str]:
    return sorted(model_files(), key=str.lower)


def _find_id(model_id: str) -> str | None:
    files = model_files()
    if model_id in files:
        return model_id
    folded = {k.lower(): k for k in files}
    return folded.get(model_id.strip().lower())


def unknown_model_error(model_id: str, field: str = "model") -> CalcError:
    # cutoff 0: a catalog id always has some nearest neighbours worth listing.
    hints = ", ".join(closest(model_id, model_ids(), n=3, cutoff=0.0))
    return CalcError(f"unknown model {model_id!r}; closest catalog ids: {hints}", field)


def raw_model_config(model_id: str) -> dict:
    return _raw_config(canonical_model_id(model_id))


def load_model(model_id: str) -> ModelConfig:
    return _parsed_config(canonical_model_id(model_id))


# Cached by the catalog's own spelling of the id, so "qwen/QWEN3-8b" and every other case
# variant a client sends share one entry: the caches hold at most one per catalog model.
@cache
def _raw_config(found: str) -> dict:
    return json.loads((DATA / "models" / model_files()[found]).read_text(encoding="utf-8"))


@cache
def _parsed_config(found: str) -> ModelConfig:
    return replace(parse_config(_raw_config(found), name=found), from_catalog=True)


def canonical_model_id(model_id: str) -> str:
    found = _find_id(model_id)
    if found is None:
        raise unknown_model_error(model_id)
    return found


def model_entries() -> list[dict]:
    """The catalog as the API lists it: each model's attention and the figures that size its cache.

    ``kv_cache_layers``, ``kv_heads`` and ``head_size`` are what vLLM caches per layer at TP 1
    (MLA: one latent head of kv_lora_rank + qk_rope_head_dim); ``head_dim`` is the config's
    attention head size, None for MLA, whose cache does not use it.
    """
    from .layout import build_layout

    entries = []
    for model_id in model_ids():
        model = load_model(model_id)
        layout = build_layout(model)
        entries.append({
            "id": model_id,
            "model_type": model.model_type,
            "attention": describe_attention(model),
            "attention_kind": attention_kind(model),
            "num_hidden_layers": model.num_layers,
            "kv_cache_layers": len(layout.attention_layers),
            "num_key_value_heads": model.num_kv_heads,
            "kv_heads": layout.kv_heads_per_rank,
            "head_dim": None if model.is_mla else model.head_dim,
            "head_size": layout.head_size,
            "kv_dtype": layout.kv_dtype,
            "sliding_window": model.sliding_window,
            "attention_chunk_size": model.attention_chunk_size,
            "max_position_embeddings": model.max_position_embeddings,
            "source": _sources().get(model_files()[model_id], ""),
        })
    return entries


LAYER_LABELS = (("full_attention", "full"), ("sliding_attention", "sliding"), ("chunked_attention", "chunked"),
                ("linear_attention", "linear"))


def attention_kind(model: ModelConfig) -> str:
    """One word for the kind of cache: mla, sparse-mla, full, sliding, hybrid-sliding,
    hybrid-chunked or hybrid-linear."""
    if model.is_mla:
        return "sparse-mla" if model.index_head_dim else "mla"
    kinds = [label for kind, label in LAYER_LABELS if model.count(kind)]
    if len(kinds) == 1:
        return kinds[0]
    return "hybrid-" + next(k for k in kinds if k != "full")


def describe_attention(model: ModelConfig) -> str:
    if model.is_mla:
        return "MLA + indexer keys (sparse attention)" if model.index_head_dim else "MLA"
    parts = [f"{model.count(kind)} {label}" for kind, label in LAYER_LABELS if model.count(kind)]
    heads = ("MHA" if model.num_kv_heads == model.num_attention_heads
             else "MQA" if model.num_kv_heads == 1 else "GQA")
    text = f"{heads}, " + " + ".join(parts)
    if model.count("no_attention"):
        text += f" ({model.count('no_attention')} blocks without attention)"
    return text
