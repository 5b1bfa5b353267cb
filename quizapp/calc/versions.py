"""Where vLLM's KV-sizing behaviour changed between releases (docs/research/vllm-kv.md §9).

The calculator follows the current release unless a scenario names another one, so an
old startup log can be reproduced from the release that printed it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import CalcError

CURRENT = "0.33"
# Releases whose source was read for the research note; anything in between follows the
# nearest rule below it.
KNOWN = ("0.11", "0.14", "0.18", "0.20", "0.22", "0.23", "0.24", "0.28", "0.33")


@dataclass(frozen=True)
class VllmRules:
    version: str
    # "GPU KV cache size" = int(conc × max_model_len) from 0.22; before, (blocks // groups) × block.
    tokens_from_concurrency: bool
    # Sliding windows keep max_concurrent_batches × max_num_batched_tokens in flight from
    # 0.28 (config/vllm.py max_in_flight_tokens): 2 batches with async scheduling, which is on
    # by default (VllmConfig turns async_scheduling None into True), 1 with
    # --no-async-scheduling. Before 0.28, one batch whatever the scheduling.
    in_flight_batches: int
    # Hybrid group size: max bucket when max < 1.5 × min, from 0.28; before, the min bucket.
    group_size_prefers_max: bool
    default_gpu_memory_utilization: float
    # Requested memory = ceil(total × utilization) from 0.14; before, the float product.
    ceil_requested_memory: bool
    # The "enough memory for one request" check keeps one block back for the null block.
    reserve_null_block_in_check: bool
    # The refusal text names the device from 0.14 on.
    device_in_refusal: bool
    # The two pool lines are printed as one from 0.28.
    one_log_line: bool
    # The refusals mention the CPU backend and link the docs in the current planning code.
    cpu_note_in_refusal: bool
    # max_model_len of a LongRoPE model defaults to original_max_position_embeddings from 0.14.
    longrope_defaults_to_original: bool = True
    # YaRN scales original_max_position_embeddings by its factor before 0.33; from 0.33 the
    # config's max_position_embeddings stands (it is already scaled).
    yarn_scales_original: bool = False
    # 0.11's "no length key" warning lists the keys it looked for; later releases do not.
    max_len_warning_lists_keys: bool = False
    # VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE defaults to 1 from 0.14 (0 in 0.11),
    # so chunked local attention (Llama 4) keeps only its chunk from 0.14 on.
    chunked_local_in_hybrid_manager: bool = True
    # How MLA models get their block size on CUDA (docs/research/vllm-kv.md §3.3):
    # "0.11"/"0.14" force FlashMLA's 64 (Hopper) or CUTLASS MLA's 128 (Blackwell) in
    # platforms/cuda.py; from "0.18" the chosen backend's preferred size applies.
    mla_block_rule: str = "0.18"
    # Prefix caching (on by default for generative models, config/model.py
    # is_prefix_caching_supported) puts a hybrid model's mamba layers in "align" mode from 0.28
    # (model_executor/models/config.py MambaModelConfig): a request keeps 2 state blocks, not 1
    # (v1/kv_cache_interface.py MambaSpec.max_memory_usage_bytes).
    mamba_align_mode: bool = True


# A release number as vLLM prints it: 0.11, v0.11.0, 0.11.0rc1, 0.11.1.dev3+g1234abc.
VERSION = re.compile(r"v?([0-9]{1,3})\.([0-9]{1,3})(?:\.[0-9]{1,3})?[0-9A-Za-z.+_-]{0,40}")


def parse_version(text: str) -> tuple[int, int]:
    match = VERSION.fullmatch(str(text)[:100].strip())
    if not match:
        raise CalcError(f"vllm_version {str(text)[:60]!r} is not a version such as 0.11 or {CURRENT}",
                        "vllm_version")
    return int(match[1]), int(match[2])


def rules_for(version: str | None) -> VllmRules:
    version = version or CURRENT
    v = parse_version(version)
    if v < (0, 11):
        raise CalcError(f"vllm_version {version} predates the V1 engine; the calculator covers 0.11 and later",
                        "vllm_version")
    if v > parse_version(CURRENT):
        # Its rules are unknown: sizing it with the newest ones would state what no one has read.
        raise CalcError(f"vllm_version {version} is newer than the releases the calculator knows "
                        f"({', '.join(KNOWN)}); give one of them, or {CURRENT} for the newest", "vllm_version")
    return VllmRules(
        version=f"{v[0]}.{v[1]}",
        tokens_from_concurrency=v >= (0, 22),
        in_flight_batches=2 if v >= (0, 28) else 1,
        group_size_prefers_max=v >= (0, 28),
        default_gpu_memory_utilization=0.92 if v >= (0, 20) else 0.9,
        ceil_requested_memory=v >= (0, 14),
        reserve_null_block_in_check=v >= (0, 28),
        device_in_refusal=v >= (0, 14),
        one_log_line=v >= (0, 28),
        cpu_note_in_refusal=v >= (0, 28),
        longrope_defaults_to_original=v >= (0, 14),
        yarn_scales_original=v < (0, 33),
        max_len_warning_lists_keys=v < (0, 14),
        chunked_local_in_hybrid_manager=v >= (0, 14),
        mla_block_rule="0.11" if v < (0, 14) else "0.14" if v < (0, 18) else "0.18",
        mamba_align_mode=v >= (0, 28),
    )


# Architectures vLLM dropped, with the last release that served them (vLLM's
# model_executor/models/registry.py, _PREVIOUSLY_SUPPORTED_MODELS).
PREVIOUSLY_SUPPORTED = {
    "MiniMaxForCausalLM": "0.23.0",
    "MiniMaxText01ForCausalLM": "0.23.0",
    "MiniMaxM1ForCausalLM": "0.23.0",
}


def check_served(architectures: tuple[str, ...], rules: VllmRules) -> None:
    """vLLM's refusal for an architecture it no longer serves, in its own words."""
    for arch in architectures:
        last = PREVIOUSLY_SUPPORTED.get(arch)
        if last and parse_version(rules.version) > parse_version(last):
            raise CalcError(
                f"Model architecture {arch} was supported in vLLM until v{last}, and is not supported "
                "anymore. Please use an older version of vLLM if you want to use this model architecture. "
                f"(vLLM {rules.version}; give vllm_version {last.rsplit('.', 1)[0]} to size it as that "
                "release did)", "vllm_version")
