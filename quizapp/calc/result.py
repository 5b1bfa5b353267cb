"""What the calculator returns: quantities with their arithmetic, and the table of their names.

A :class:`Result` is filled stage by stage (``compute.calculate``); each stage adds the
values it can derive and leaves out the ones the scenario does not determine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .sizing.blocks import BlockPlan
from .model.catalog import describe_attention
from .inputs import Inputs
from .model.layout import Layout
from .model.config import ModelConfig
from .versions import VllmRules


@dataclass(frozen=True)
class Quantity:
    """A derived value: the number, its unit, how it reads, and the arithmetic behind it."""

    value: Any
    unit: str
    text: str
    derivation: str


@dataclass
class Result:
    """Everything derived for one scenario.

    ``values`` holds a :class:`Quantity` for each name in :data:`VALUES` the scenario
    determines; ``result[name]`` is its number. ``checks`` are vLLM's start checks
    (``{"check", "ok", "message", ...}``, message ``None`` when it passes); ``notes`` are
    caveats a reader should see beside the numbers.
    """

    inputs: Inputs
    model: ModelConfig | None
    layout: Layout
    plan: BlockPlan
    rules: VllmRules
    values: dict[str, Quantity] = field(default_factory=dict)
    checks: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # The time stage's model of the steps (time/bounds.py: its Work and Shape), kept so the charts
    # redraw the bounds at other batches and prompt lengths; None without time bounds.
    time_model: Any = None
    # Whether the weights, the non-KV memory and the pool fit the GPU (sizing/fit.py's Fit); None
    # without a GPU or without the weights.
    fit: Any = None

    def __getitem__(self, name: str) -> Any:
        return self.values[name].value

    def get(self, name: str, default=None) -> Any:
        quantity = self.values.get(name)
        return default if quantity is None else quantity.value

    def add(self, name: str, value, unit: str, text: str, derivation: str) -> None:
        self.values[name] = Quantity(value, unit, text, derivation)

    def to_json(self) -> dict:
        data: dict[str, Any] = {name: None for name in ALWAYS_PRESENT}
        data.update({name: q.value for name, q in self.values.items()})
        data["max_concurrency_text"] = self.values["max_concurrency"].text if "max_concurrency" in self.values else None
        data["texts"] = {name: q.text for name, q in self.values.items()}
        data["units"] = {name: q.unit for name, q in self.values.items()}
        data["derivations"] = {name: q.derivation for name, q in self.values.items()}
        data["inputs"] = {k: v for k, v in self.inputs.given().items() if k != "config"}
        data["layout"] = self.layout_summary()
        data["vllm_version"] = self.rules.version
        data["checks"] = self.checks
        data["fit"] = self.fit.to_json() if self.fit is not None else None
        data["notes"] = self.notes
        return data

    def layout_summary(self) -> dict:
        return {
            "model": self.layout.model,
            "attention": describe_attention(self.model) if self.model else "measured bytes per token",
            "kv_dtype": self.layout.kv_dtype,
            "kv_heads_per_rank": self.layout.kv_heads_per_rank,
            "head_size": self.layout.head_size,
            "groups": self.plan.describe(),
            "group_size": self.plan.group_size,
            "block_size": self.plan.block_size,
            "bytes_per_block": self.plan.bytes_per_block,
        }


# Every value the calculator can derive, with what it means. Cards may use any of these
# names; AUTHORING.md documents each one (a test holds the two together).
VALUES = {
    "num_layers": "attention layers of the model (without draft layers)",
    "num_kv_heads": "KV heads in the config (num_key_value_heads)",
    "kv_heads_per_rank": "KV heads each tensor-parallel rank keeps (divided, or replicated when fewer than TP)",
    "head_size": "head size of one KV head (MLA: kv_lora_rank + qk_rope_head_dim)",
    "kv_dtype": "the KV cache dtype after 'auto' is resolved, e.g. bfloat16",
    "kv_dtype_bytes": "bytes per cached value in that dtype",
    "kv_bytes_per_token": "KV bytes per token per rank, as the pool charges it",
    "kv_bytes_per_token_all_layers": "bytes per token if every layer kept every token (hybrid models)",
    "state_bytes_per_request": "linear-attention (mamba) state per request, whatever its length",
    "bytes_per_block": "bytes of one block id across the layers of a group",
    "block_size": "tokens per block, when vLLM or the attention backend sets it (hybrid mamba, MLA backends)",
    "max_model_len": "the model's max_position_embeddings, when max_model_len is not given",
    "max_num_batched_tokens": "tokens per scheduler step (sliding-window models)",
    "in_flight_tokens": "tokens a sliding window keeps beyond its size (batches in flight × batched tokens)",
    "total_memory_bytes": "the GPU's total memory",
    "gpu_memory_utilization": "the fraction of the GPU vLLM may use",
    "requested_memory_bytes": "total × gpu_memory_utilization, as vLLM requests it",
    "gpu_memory_utilization_ceiling": "the largest gpu_memory_utilization that starts with the given free memory",
    "weights_bytes": "weights per GPU, counted from the config",
    "memory_over_weights": "GPU memory ÷ weights: the answer of the 'divide memory by model size' mistake",
    "num_parameters": "parameters counted from the config",
    "num_blocks": "KV blocks in the pool",
    "kv_cache_memory_bytes": "KV pool in bytes",
    "pool_tokens": "the pool as vLLM logs it: 'GPU KV cache size: N tokens'",
    "pool_tokens_plain": "pool bytes ÷ bytes per token, without whole blocks",
    "blocks_per_request": "blocks vLLM reserves for one request of max_model_len (what max_concurrency divides by)",
    "max_concurrency": "the 'Maximum concurrency' figure vLLM logs (a number; its text is '2.94x')",
    "log_line": "the startup log line(s) with the pool and the concurrency",
    "tokens_per_user": "prompt_tokens + output_tokens",
    "blocks_per_user": "blocks one user of tokens_per_user holds (sliding layers: only their window's)",
    "users_fit": "users of tokens_per_user that fit, in whole blocks, without the null block",
    "user_concurrency": "concurrency vLLM would log if max_model_len were tokens_per_user",
    "max_model_len_estimate": "the longest request the KV memory fits (vLLM's estimate)",
    "stage_layers": "layers on each pipeline stage, as vLLM's get_pp_indices splits them (a list)",
    "stage_kv_bytes_per_token": "KV bytes per token per rank on each pipeline stage (a list)",
    "stage_weights_bytes": "weights on one GPU of each pipeline stage (a list)",
    "stage_num_blocks": "each pipeline stage's own pool in blocks; vLLM gives every stage the fewest (a list)",
    "embeddings_bytes": "embed_tokens on one GPU, in the weights' format",
    "attention_bytes": "attention projections on one GPU (linear attention's too)",
    "mlp_bytes": "dense MLPs and shared experts on one GPU",
    "experts_bytes": "routed experts on one GPU (spread over TP × DP GPUs)",
    "lm_head_bytes": "lm_head on one GPU (0 when tied to the embeddings)",
    "active_parameters": "parameters one token computes with: all but the routed experts, and top-k of those",
    "decode_batch": "sequences decoded together: batch_size, capped at max_num_seqs",
    "decode_context_tokens": "the mean context of the request's decode steps: prompt + output ÷ 2",
    "memory_bandwidth": "the GPU's memory bandwidth, from its spec sheet (bytes/s)",
    "peak_flops": "the dense tensor FLOP/s the linear layers compute at, from the spec sheet",
    "compute_dtype": "the dtype the linear layers compute in on this GPU (bf16, fp16, fp8, fp4)",
    "decode_weight_bytes": "weights one decode step reads on one GPU (MoE: the experts the batch touches)",
    "decode_kv_bytes": "KV cache one decode step of the batch reads on one GPU",
    "decode_memory_seconds": "the decode step's bytes over the memory bandwidth",
    "decode_compute_seconds": "the decode step's FLOPs over the dense peaks",
    "decode_step_seconds": "the least time one decode step can take: the larger of its memory and compute times",
    "decode_tokens_per_second": "the most tokens/s one sequence can decode (1 ÷ decode_step_seconds)",
    "decode_throughput": "the most tokens/s the batch can decode together",
    "decode_throughput_ceiling": "the most tokens/s any batch can decode at this context (its KV and compute roofs)",
    "critical_batch": "the batch where decode's matrix work takes as long as its weight reads (the roofline's knee)",
    "prefill_flops": "FLOPs of one prompt's prefill on one GPU",
    "prefill_seconds": "the least time one prompt's prefill can take (its FLOPs, or one read of the weights)",
    "ttft_seconds": "the least time to the first token of every sequence of the batch",
    "e2e_seconds": "the least time for a whole request: ttft + (output − 1) decode steps",
    "tp_all_reduce_bytes_per_token": "bytes each GPU sends per token in tensor-parallel all-reduces",
    "tp_all_reduce_seconds": "the all-reduces' time per decode step over the GPUs' link (not in decode_step_seconds)",
    "last_block_empty_slots": "token slots a user's last block leaves empty (PagedAttention's internal fragmentation)",
    "fragmentation_share": "the share of a user's block bytes its last blocks leave empty",
    "host_link_bandwidth": "the GPU's link to host memory (PCIe), bytes/s each way",
    "user_kv_bytes": "bytes of the blocks one user of tokens_per_user holds",
    "swap_in_seconds": "the least time to copy a user's blocks back in from host memory over the host link",
    "recompute_seconds": "the least time to prefill a preempted user's tokens again (vLLM V1 preempts by recompute)",
    "recompute_over_swap": "recompute_seconds ÷ swap_in_seconds",
    "tokens_per_gpu_hour": "the most output tokens one GPU-hour can decode (decode_throughput × 3,600 ÷ GPUs per replica)",
    "prefill_tokens_per_gpu_hour": "the most prompt tokens one GPU-hour can prefill (from ttft_seconds)",
    "decode_over_prefill_cost": "GPU time of an output token over a prompt token's, at the bounds",
    "dollars_per_million_tokens": "the least price of a million output tokens at gpu_hour_price",
    "tokens_per_dollar": "the most output tokens a dollar buys at gpu_hour_price",
    "prefill_dollars_per_million_tokens": "the least price of a million prompt tokens at gpu_hour_price",
    "request_rate_bound": "the most requests/s a batch kept full completes (Little's law: batch ÷ least time per request)",
    "prefill_chunk_tokens": "prompt tokens one step prefills beside the running decodes (max_num_batched_tokens − decodes)",
    "prefill_chunks": "steps a prompt's chunked prefill takes beside decode_batch decoding sequences",
    "chunked_step_seconds": "the least time of one step that decodes the batch and prefills one chunk",
    "prefix_blocks": "full blocks of cached_prefix_tokens a later request hits (the last prompt token is recomputed)",
    "prefix_hit_tokens": "prompt tokens a prefix-cache hit skips in prefill (prefix_blocks × block_size)",
    "users_fit_shared_prefix": "users that fit when all start with the cached prefix, its blocks held once",
    "prefix_cache_room_blocks": "blocks no running request (batch_size of them) holds: where cached blocks wait, LRU",
    "prefixes_kept": "distinct cached prefixes of cached_prefix_tokens the free blocks can keep at most",
    "spec_tokens_per_step": "tokens one target step yields with speculative decoding: (1 − α^(k+1)) ÷ (1 − α)",
    "spec_step_seconds": "the least time of one verification step: k + 1 tokens per sequence, the drafter not counted",
    "spec_throughput": "the most tokens/s the batch can decode with speculative decoding (the drafter not counted)",
    "spec_speedup_bound": "spec_throughput ÷ decode_throughput: the two ceilings' ratio at the same batch",
    "profile_tokens": "tokens the start-up profile run forwards: max_num_batched_tokens (dense models)",
    "profile_requests": "dummy requests of the profile run, each sampled once: min(tokens, max_num_seqs)",
    "profile_mlp_bytes": "one dense MLP's tensors held at once in the profile run (a floor on its peak)",
    "profile_logits_bytes": "the profile's sampler tensors: hidden states, logits and their float32 copy (a floor)",
    "profile_activation_bytes": "the least activation memory the profile run holds: the larger of the two floors",
}

# Keys the JSON result always carries (null when the scenario does not determine them).
ALWAYS_PRESENT = ("kv_bytes_per_token", "num_blocks", "pool_tokens", "kv_cache_memory_bytes", "max_concurrency",
                  "tokens_per_user", "users_fit")
