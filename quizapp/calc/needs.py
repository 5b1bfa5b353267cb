"""What a scenario must give for each value the calculator derives.

``calculate`` leaves out a value its scenario does not determine: ``users_fit`` needs a
user's tokens and a pool. When a card uses a value its scenario leaves out, the checker says
which input to add ("users_fit needs prompt_tokens and output_tokens in the scenario"). The
table sits beside the calculator, and a test holds it to ``calculate``: with its needs given a
value is derived, and without any one of them it is not.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Need:
    """One thing a value needs: any one of ``inputs`` in the scenario, or a model of one of ``kinds``."""

    words: str  # as the checker says it
    inputs: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()  # attention kinds (calc.model.attention.ATTENTION_KINDS)

    def met(self, given: set[str], kind: str | None) -> bool:
        if self.kinds:
            return kind in self.kinds
        return bool(given & set(self.inputs))


MODEL = Need("a model (model, or a config)", ("model", "config"))
GPU = Need("gpu (or total_memory_bytes)", ("gpu", "total_memory_bytes"))
FREE = Need("free_memory_bytes", ("free_memory_bytes",))
POOL = Need("a pool (pool_tokens, kv_cache_memory_bytes, or gpu)",
            ("pool_tokens", "kv_cache_memory_bytes", "gpu", "total_memory_bytes"))
POOL_IN_BYTES = Need("a pool in bytes (kv_cache_memory_bytes, or gpu)",
                     ("kv_cache_memory_bytes", "gpu", "total_memory_bytes"))
# A model gives its own max_model_len (max_position_embeddings); a measured figure does not.
LENGTH = Need("max_model_len", ("max_model_len", "model", "config"))
# output_tokens may be left out (0), but a card about users means both.
USERS = Need("prompt_tokens and output_tokens", ("prompt_tokens",))
SLIDING = Need("a sliding-window model (gemma, gpt-oss, Phi-3; not chunked attention)", kinds=("sliding",))
HYBRID = Need("a hybrid model (sliding-window or linear attention)", kinds=("sliding", "linear"))
LINEAR = Need("a linear-attention hybrid model (Qwen3-Next)", kinds=("linear",))
# The time bounds read a catalog GPU's spec sheet: a total_memory_bytes alone has none.
SPEC_SHEET = Need("gpu (a catalog GPU, for its spec sheet)", ("gpu",))
STAGES = Need("pipeline_parallel_size", ("pipeline_parallel_size",))
TIME = (MODEL, SPEC_SHEET)
PRICE = Need("gpu_hour_price", ("gpu_hour_price",))
PREFIX = Need("cached_prefix_tokens", ("cached_prefix_tokens",))
DRAFTS = Need("num_speculative_tokens", ("num_speculative_tokens",))
ACCEPTANCE = Need("acceptance_rate", ("acceptance_rate",))

NEEDS: dict[str, tuple[Need, ...]] = {
    "num_layers": (MODEL,),
    "num_kv_heads": (MODEL,),
    "kv_heads_per_rank": (MODEL,),
    "head_size": (MODEL,),
    "kv_dtype": (MODEL,),
    "kv_dtype_bytes": (MODEL,),
    "kv_bytes_per_token": (),
    "kv_bytes_per_token_all_layers": (MODEL, HYBRID),
    "state_bytes_per_request": (MODEL, LINEAR),
    "bytes_per_block": (),
    "block_size": (MODEL, LINEAR),
    "max_model_len": (MODEL,),
    "max_num_batched_tokens": (MODEL, SLIDING),
    "in_flight_tokens": (MODEL, SLIDING),
    "total_memory_bytes": (GPU,),
    "gpu_memory_utilization": (GPU,),
    "requested_memory_bytes": (GPU,),
    "gpu_memory_utilization_ceiling": (GPU, FREE),
    "weights_bytes": (MODEL, GPU),
    "memory_over_weights": (MODEL, GPU),
    "num_parameters": (MODEL,),
    "num_blocks": (POOL,),
    "kv_cache_memory_bytes": (POOL,),
    "pool_tokens": (POOL,),
    "pool_tokens_plain": (POOL_IN_BYTES,),
    "max_concurrency": (POOL, LENGTH),
    "blocks_per_request": (POOL, LENGTH),
    "log_line": (POOL, LENGTH),
    "tokens_per_user": (USERS,),
    "blocks_per_user": (USERS, POOL),
    "users_fit": (USERS, POOL),
    "user_concurrency": (USERS, POOL),
    "max_model_len_estimate": (POOL, LENGTH),
    "stage_layers": (MODEL, STAGES),
    "stage_kv_bytes_per_token": (MODEL, STAGES),
    "stage_weights_bytes": (MODEL, STAGES, GPU),
    "stage_num_blocks": (MODEL, STAGES, POOL_IN_BYTES),
    "embeddings_bytes": (MODEL,),
    "attention_bytes": (MODEL,),
    "mlp_bytes": (MODEL,),
    "experts_bytes": (MODEL,),
    "lm_head_bytes": (MODEL,),
    "active_parameters": (MODEL,),
    **{name: TIME for name in (
        "decode_batch", "decode_context_tokens", "memory_bandwidth", "peak_flops", "compute_dtype",
        "decode_weight_bytes", "decode_kv_bytes", "decode_memory_seconds", "decode_compute_seconds",
        "decode_step_seconds", "decode_tokens_per_second", "decode_throughput", "decode_throughput_ceiling",
        "critical_batch", "prefill_flops", "prefill_seconds", "ttft_seconds", "e2e_seconds",
        "tp_all_reduce_bytes_per_token", "tp_all_reduce_seconds", "request_rate_bound", "prefill_chunk_tokens", "prefill_chunks",
        "chunked_step_seconds", "tokens_per_gpu_hour", "prefill_tokens_per_gpu_hour", "decode_over_prefill_cost")},
    "last_block_empty_slots": (USERS,),
    "fragmentation_share": (USERS,),
    "host_link_bandwidth": (SPEC_SHEET,),
    "user_kv_bytes": (USERS,),
    "swap_in_seconds": (USERS, SPEC_SHEET),
    "recompute_seconds": (USERS, *TIME),
    "recompute_over_swap": (USERS, *TIME),
    "dollars_per_million_tokens": (*TIME, PRICE),
    "tokens_per_dollar": (*TIME, PRICE),
    "prefill_dollars_per_million_tokens": (*TIME, PRICE),
    "prefix_blocks": (PREFIX,),
    "prefix_hit_tokens": (PREFIX,),
    **{name: (PREFIX, USERS, POOL) for name in ("users_fit_shared_prefix", "prefix_cache_room_blocks", "prefixes_kept")},
    "spec_tokens_per_step": (DRAFTS, ACCEPTANCE),
    **{name: (*TIME, DRAFTS, ACCEPTANCE) for name in ("spec_step_seconds", "spec_throughput", "spec_speedup_bound")},
    **{name: (MODEL, GPU) for name in (
        "profile_tokens", "profile_requests", "profile_mlp_bytes", "profile_logits_bytes", "profile_activation_bytes")},
}


def missing_needs(value: str, given: set[str], kind: str | None) -> list[Need]:
    """The needs of ``value`` that a scenario giving the inputs ``given`` (and a model of attention
    ``kind``, None for a measured figure) does not meet."""
    return [need for need in NEEDS.get(value, ()) if not need.met(given, kind)]


def needs_text(value: str, given: set[str], kind: str | None) -> str | None:
    """'users_fit needs prompt_tokens and output_tokens in the scenario', or None when the scenario
    meets every need of the value (or it is not a calculator value)."""
    missing = missing_needs(value, given, kind)
    if MODEL in missing:  # the kind of a model that is not there goes without saying
        missing = [need for need in missing if not need.kinds]
    if not missing:
        return None
    return f"{value} needs {' and '.join(need.words for need in missing)} in the scenario"
