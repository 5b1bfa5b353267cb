"""Tokens per GPU-hour and per dollar, from the time bounds and a price per GPU-hour.

The bounds are the most tokens/s a GPU's spec sheet allows (time/decode.py, time/prefill.py), so these
are ceilings on tokens per GPU-hour and floors on the price of a million tokens: a real engine makes
fewer tokens and costs more. A replica of tensor_parallel_size × pipeline_parallel_size GPUs decodes
the batch together, so its tokens are shared by that many GPU-hours.

    output tokens per GPU-hour = decode_throughput × 3,600 s ÷ GPUs per replica
    input tokens per GPU-hour  = batch × prompt_tokens ÷ ttft_seconds × 3,600 s ÷ GPUs per replica
    $ per million tokens       = gpu_hour_price ÷ tokens per GPU-hour × 1,000,000
"""

from __future__ import annotations

from .. import fmt
from ..result import Result

SECONDS_PER_HOUR = 3600
MILLION = 1_000_000


def _gpus(result: Result) -> int:
    return result.inputs.tensor_parallel_size * result.inputs.pipeline_parallel_size


def cost_values(result: Result) -> None:
    """tokens_per_gpu_hour, prefill_tokens_per_gpu_hour, and with gpu_hour_price the dollar values.
    A figure rounded to a whole number is written after "≈": the arithmetic check reads "=" as exact."""
    if result.time_model is None or "decode_throughput" not in result.values:
        return
    gpus = _gpus(result)
    per_replica = f" ÷ {gpus} GPUs per replica" if gpus > 1 else ""
    rate = result["decode_throughput"]
    out = rate * SECONDS_PER_HOUR / gpus
    result.add("tokens_per_gpu_hour", out, "tokens", fmt.millions(out),
               f"{rate:,.1f} tokens/s × {SECONDS_PER_HOUR:,} s{per_replica} ≈ {out:,.0f} output tokens per GPU-hour "
               "at most (the decode bound: a real engine makes fewer)")
    batch, prompt = result["decode_batch"], result.time_model[1].prompt
    ttft = result["ttft_seconds"]
    inp = batch * prompt / ttft * SECONDS_PER_HOUR / gpus
    result.add("prefill_tokens_per_gpu_hour", inp, "tokens", fmt.millions(inp),
               f"{batch:,} × {prompt:,} prompt tokens ÷ {ttft:.6g} s (ttft_seconds) × {SECONDS_PER_HOUR:,} s{per_replica} ≈ "
               f"{inp:,.0f} prompt tokens per GPU-hour at most (the prefill bound: a real engine makes fewer)")
    ratio = inp / out
    result.add("decode_over_prefill_cost", ratio, "", f"{ratio:.1f}",
               f"{inp:,.0f} prompt ÷ {out:,.0f} output tokens per GPU-hour ≈ {ratio:.2f}: at the bounds an output "
               "token costs this many prompt tokens' GPU time")
    price = result.inputs.gpu_hour_price
    if price is None:
        return
    dollars = price / out * MILLION
    result.add("dollars_per_million_tokens", dollars, "$", f"${dollars:,.4g}",
               f"${price:g} per GPU-hour ÷ {out:,.0f} output tokens per GPU-hour × {MILLION:,} ≈ ${dollars:,.4g} per "
               "million output tokens at the least (a real engine costs more)")
    per_dollar = out / price
    result.add("tokens_per_dollar", per_dollar, "tokens", fmt.commas(round(per_dollar)),
               f"{out:,.0f} output tokens per GPU-hour ÷ ${price:g} ≈ {per_dollar:,.0f} output tokens per dollar at most")
    in_dollars = price / inp * MILLION
    result.add("prefill_dollars_per_million_tokens", in_dollars, "$", f"${in_dollars:,.4g}",
               f"${price:g} per GPU-hour ÷ {inp:,.0f} prompt tokens per GPU-hour × {MILLION:,} ≈ ${in_dollars:,.4g} per "
               "million prompt tokens at the least")
