"""vLLM's start checks and its refusals, worded as the chosen release prints them.

The wording changes with vLLM releases (the flags live in ``versions.py``), so it is kept
here in one place: a card or a reader comparing it with a real startup log should find
vLLM's own sentence, numbers included.
"""

from __future__ import annotations

from .. import fmt
from .blocks import BlockPlan, blocks_per_request, estimate_max_model_len
from ..result import Result
from ..versions import VllmRules

DOCS_LINK = " See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."

# The input each start check is about, so a page can show vLLM's refusal beside it.
CHECK_FIELDS = {"max_model_len_within_model": "max_model_len", "one_request_fits": "max_model_len",
                "free_memory": "gpu_memory_utilization", "weights_fit": "tensor_parallel_size",
                "budget_fits": "gpu_memory_utilization", "pool_fits": "kv_cache_memory_bytes"}


def start_checks(result: Result, max_model_len: int | None, in_flight: int, memory: int | None) -> None:
    """vLLM's check that one request of max_model_len fits in the pool's KV ``memory`` (None: no pool sized)."""
    if max_model_len is None or memory is None:
        return
    plan, rules = result.plan, result.rules
    available = memory - plan.bytes_per_block if rules.reserve_null_block_in_check else memory
    needed = blocks_per_request(plan, max_model_len, in_flight) * plan.bytes_per_block
    estimate = estimate_max_model_len(max(available, 0), plan, max_model_len, in_flight)
    result.add("max_model_len_estimate", estimate, "tokens", fmt.commas(estimate),
               f"longest request whose {_blocks_word(plan)} fit in {available:,} B "
               f"({'KV memory − one null block' if rules.reserve_null_block_in_check else 'KV memory'}), "
               f"capped at max_model_len {max_model_len:,}: {estimate:,} tokens")
    message = None
    if available <= 0:
        message = no_memory_text(rules)
    elif needed > available:
        message = _one_request_text(max_model_len, needed, available, estimate, rules)
    result.checks.append({"check": "one_request_fits", "ok": message is None, "message": message,
                          "needed_bytes": needed, "available_bytes": available})


def one_request_bytes(result: Result, max_model_len: int | None, in_flight: int) -> int | None:
    """The least KV memory that starts: one request of max_model_len, and the null block where the
    release counts it; None without a max_model_len."""
    if max_model_len is None:
        return None
    plan = result.plan
    blocks = blocks_per_request(plan, max_model_len, in_flight) + (1 if result.rules.reserve_null_block_in_check else 0)
    return blocks * plan.bytes_per_block


def model_length_check(result: Result, max_model_len: int, derived: int) -> None:
    """vLLM's check that max_model_len is within the model's own length (vllm/config/model.py,
    ``get_and_verify_max_len``); VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 turns the refusal into a warning.
    Recorded only when it fails: a length within the model's is the ordinary case."""
    if max_model_len <= derived:
        return
    message = (
        f"User-specified max_model_len ({max_model_len}) is greater than the derived max_model_len "
        f"(max_position_embeddings={float(derived)} or model_max_length=None in model's config.json). To allow "
        "overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. VLLM_ALLOW_LONG_MAX_MODEL_LEN "
        "must be used with extreme caution. If the model uses relative position encoding (RoPE), positions "
        "exceeding derived_max_model_len lead to nan. If the model uses absolute position encoding, positions "
        "exceeding derived_max_model_len will cause a CUDA array out-of-bounds error.")
    result.checks.append({"check": "max_model_len_within_model", "ok": False, "message": message})


def _one_request_text(max_model_len: int, needed: int, available: int, estimate: int, rules: VllmRules) -> str:
    """vLLM's refusal when one request of max_model_len needs more KV memory than there is."""
    estimated = (f"Based on the available memory, the estimated maximum model length is {estimate}. "
                 if estimate > 0 else "")
    cpu_note = " (which also controls CPU memory on the CPU backend)" if rules.cpu_note_in_refusal else ""
    return (f"To serve at least one request with the model's max seq len ({max_model_len}), "
            f"({_format_gib(needed)} GiB KV cache is needed, which is larger than the available KV cache "
            f"memory ({_format_gib(available)} GiB). {estimated}Try increasing `gpu_memory_utilization`"
            f"{cpu_note} or decreasing `max_model_len` when initializing the engine."
            f"{DOCS_LINK if rules.cpu_note_in_refusal else ''}")


def no_memory_text(rules: VllmRules) -> str:
    """vLLM's refusal when nothing is left for the KV cache, as the chosen release words it."""
    if rules.cpu_note_in_refusal:
        return ("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
                "initializing the engine (this flag also controls CPU memory reservation on the CPU backend, "
                "despite its name)." + DOCS_LINK)
    return ("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
            "initializing the engine.")


def free_memory_text(free: int, total: int, util: float, requested: float, rules: VllmRules) -> str:
    """vLLM's refusal when the GPU has less free memory than gpu_memory_utilization asks for."""
    device = " cuda:0" if rules.device_in_refusal else ""
    return (f"Free memory on device{device} ({_format_gib(free)}/{_format_gib(total)} GiB) on startup is less "
            f"than desired GPU memory utilization ({util}, {_format_gib(requested)} GiB). Decrease GPU memory "
            "utilization or reduce GPU memory used by other processes.")


def _format_gib(n: float) -> str:
    """vLLM's utils.mem_utils.format_gib: round(bytes / GiB, 2), printed as Python prints a float."""
    return f"{round(n / fmt.GIB, 2)}"


def _blocks_word(plan: BlockPlan) -> str:
    return "blocks" if plan.is_uniform else "blocks in every group"
