"""The kind of attention a model has, as far as KV sizing is concerned.

Cards are written for a kind: the formula "layers × KV heads × head size × 2 × bytes" is true
for uniform full attention, not for MLA (one latent, no factor 2) nor for hybrids (only some
layers keep every token). A card's scenario space is a list of models or of these kinds.
"""

from __future__ import annotations

from .config import ModelConfig

ATTENTION_KINDS = {
    "uniform": "uniform full attention (GQA, MHA or MQA): every layer keeps every token",
    "mla": "multi-head latent attention (DeepSeek MLA): one compressed latent per layer",
    "sliding": "sliding-window or chunked local attention: some layers keep only a window of tokens",
    "linear": "linear-attention hybrid: some layers keep a fixed state instead of tokens",
}


def attention_kind(model: ModelConfig | None) -> str | None:
    """``uniform``, ``mla``, ``sliding`` or ``linear``; None for a measured bytes-per-token figure."""
    if model is None:
        return None
    if model.is_mla:
        return "mla"
    if model.count("linear_attention"):
        return "linear"
    if model.count("sliding_attention") or model.count("chunked_attention"):
        return "sliding"
    return "uniform"
