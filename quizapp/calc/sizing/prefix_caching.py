"""What prefix caching changes for a model with mamba (linear-attention) layers.

With prefix caching on (vLLM's default for generative models, ``config/model.py
is_prefix_caching_supported``), vLLM 0.28 and later run a hybrid model's mamba layers in
"align" mode (``model_executor/models/config.py MambaModelConfig``): a request keeps 2 state
blocks per mamba group, not 1 (``v1/kv_cache_interface.py MambaSpec.max_memory_usage_bytes``).
vLLM 0.33 adds a prefill checkpoint block where the layer's kernel exports one, and then keeps
the block size on the checkpoint grid (``platforms/interface.py _align_hybrid_block_size``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..hardware.catalog import load_gpu
from ..versions import VllmRules, parse_version

if TYPE_CHECKING:
    from ..inputs import Inputs
    from ..model.config import ModelConfig

BLOCK_ALIGNMENT = 16  # the attention backends' smallest kernel block, which a raised block size is a multiple of
FLASHINFER_GDN_ALIGNMENT = 64  # v1/attention/backends/gdn_attn.py FLASHINFER_GDN_CHECKPOINT_ALIGNMENT (0.33)


@dataclass(frozen=True)
class MambaCache:
    """How vLLM caches a request's mamba state: ``blocks`` per mamba group, a raised block size
    that is a multiple of ``alignment`` tokens, and what the reader should know about it."""

    blocks: int = 1
    alignment: int = BLOCK_ALIGNMENT
    notes: tuple[str, ...] = ()


def mamba_cache(model: ModelConfig | None, inputs: Inputs, rules: VllmRules) -> MambaCache:
    """The mamba cache mode for this scenario; the default (1 block) for a model without mamba layers."""
    if model is None or not model.linear_kind:
        return MambaCache()
    version = rules.version
    if inputs.enable_prefix_caching is False:
        return MambaCache(notes=("--no-enable-prefix-caching: the mamba layers keep one state block per request "
                                 "(mamba_cache_mode 'none')",))
    said = "on, vLLM's default" if inputs.enable_prefix_caching is None else "--enable-prefix-caching"
    if not rules.mamba_align_mode:
        return MambaCache(notes=(f"prefix caching ({said}) for mamba layers in vLLM {version} is not modelled: "
                                 "the calculator keeps one state block per request, as vLLM does without it",))
    note = (f"prefix caching ({said}): vLLM {version} runs the mamba layers in 'align' mode, so a request keeps "
            "2 state blocks in each mamba group, not 1; --no-enable-prefix-caching keeps 1")
    if parse_version(version) < (0, 33) or model.linear_kind != "gated_delta_net":
        return MambaCache(blocks=2, notes=(note,))
    return _gdn_checkpoints(inputs, note)


def _gdn_checkpoints(inputs: Inputs, note: str) -> MambaCache:
    """vLLM 0.33's gated delta net layers export a prefill checkpoint with FlashInfer's prefill
    kernel, chosen on Hopper (qwen_gdn_linear_attn.py _resolve_gdn_prefill_backend): one block more
    per request, and a block size on FlashInfer's 64-token checkpoint grid."""
    gpu = load_gpu(inputs.gpu) if inputs.gpu else None
    on_cuda = gpu and gpu.get("compute_capability") and gpu.get("platform", "cuda") == "cuda"
    major = int(str(gpu["compute_capability"]).split(".")[0]) if on_cuda else None
    if major == 9:
        return MambaCache(blocks=3, alignment=FLASHINFER_GDN_ALIGNMENT, notes=(
            note.replace("2 state blocks", "3 state blocks"),
            f"on {gpu['display_name']} (Hopper) vLLM 0.33 runs the gated delta net prefill with FlashInfer, which "
            "keeps one more block per request for a prefill checkpoint and puts the block size on a 64-token grid",))
    where = f"on {gpu['display_name']}" if gpu else "without a GPU given"
    return MambaCache(blocks=2, notes=(
        note,
        f"{where} the calculator assumes the Triton prefill kernel for the gated delta net layers; on Hopper (and "
        "on Blackwell with CUDA 13) vLLM 0.33 uses FlashInfer's, which keeps a third block per request and puts "
        "the block size on a 64-token grid",))
