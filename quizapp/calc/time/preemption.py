"""A preempted request: the least time to compute its KV again against the least time to copy it back in.

vLLM V1 preempts by recompute (v1/core/sched/scheduler.py _preempt_request frees the request's blocks and
sets num_computed_tokens to 0), so it pays a prefill of every token it had. The alternative, a KV copy kept
in host memory (an offloading connector), pays the copy of its blocks over the GPU's host link. Both are
bounds from the spec sheets: the prefill bound of prefill.py, and bytes ÷ the link's rate each way.
"""

from __future__ import annotations

from .. import fmt
from ..hardware.catalog import load_gpu
from ..result import Result
from ..sizing.blocks import held_blocks_per_user
from .decode import BOUND
from .work import prefill_step

# The host link of GPUs whose catalog interconnect is NVLink: the same vendor rows gpus.json quotes
# ('NVLink: 600GB/s PCIe Gen4: 64GB/s', 'NVIDIA NVLink: 900GB/s PCIe Gen5: 128GB/s'), printed
# bidirectionally, so each way is half.
HOST_LINKS = {
    "A100-40GB": ("PCIe Gen4 x16", 32e9), "A100-80GB": ("PCIe Gen4 x16", 32e9),
    "H100-80GB-SXM": ("PCIe Gen5 x16", 64e9), "H200": ("PCIe Gen5 x16", 64e9),
}


def host_link(gpu: dict) -> tuple[str, float] | None:
    """(the link's name, bytes/s each way) between the GPU and host memory, where the catalog knows it."""
    link = gpu.get("specs", {}).get("interconnect") or {}
    if str(link.get("kind", "")).startswith("PCIe"):
        return link["kind"], float(link["value"])
    return HOST_LINKS.get(gpu["id"])


def preemption_values(result: Result) -> None:
    """host_link_bandwidth, user_kv_bytes, swap_in_seconds, recompute_seconds, recompute_over_swap."""
    inputs, plan = result.inputs, result.plan
    kv = tokens = None
    if inputs.prompt_tokens is not None:
        tokens = inputs.prompt_tokens + (inputs.output_tokens or 0)
        held = held_blocks_per_user(plan, tokens)
        kv = held * plan.bytes_per_block
        result.add("user_kv_bytes", kv, "B", fmt.size(kv),
                   f"{held:,} blocks × {plan.bytes_per_block:,} B per block = {kv:,} B held by a user of {tokens:,} "
                   "tokens")
    if not inputs.gpu:
        return
    gpu = load_gpu(inputs.gpu)
    link = host_link(gpu)
    if link is not None:
        name, rate = link
        result.add("host_link_bandwidth", rate, "B/s", fmt.bandwidth(rate),
                   f"{gpu['display_name']}'s host link, {name}: {rate / 1e9:g} GB/s each way (the vendor prints "
                   f"{2 * rate / 1e9:g} GB/s, both ways together)")
    if kv is None:
        return
    if link is not None:
        swap = kv / link[1]
        result.add("swap_in_seconds", swap, "s", fmt.duration(swap),
                   f"{kv:,} B ÷ {link[1] / 1e9:g} GB/s = {swap:.4g} s, {fmt.duration(swap)} over {link[0]} (each way): the "
                   "least time to copy the user's blocks back from host memory")
    if result.time_model is None:
        return
    work, _shape = result.time_model
    step = prefill_step(work, 1, tokens)
    again = sum(step.seconds)
    result.add("recompute_seconds", again, "s", fmt.duration(again),
               f"the least time to prefill the user's {tokens:,} tokens again ({BOUND}): max(compute "
               f"{fmt.duration(sum(step.compute_seconds))}, memory {fmt.duration(sum(step.memory_seconds))}) = "
               f"{fmt.duration(again)}")
    if link is not None:
        ratio = again / swap
        result.add("recompute_over_swap", ratio, "", f"{ratio:.1f}",
                   f"recompute {again:.4g} s ÷ copy back in {swap:.4g} s = {ratio:.2f}")
