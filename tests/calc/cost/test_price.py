"""Tokens per GPU-hour and per dollar, against the decode bound and arithmetic written out."""

import pytest

from quizapp.calc import CalcError, calculate

SCENARIO = {"model": "Qwen/Qwen3-8B", "gpu": "H100-80GB-SXM", "gpu_memory_utilization": 0.9,
            "prompt_tokens": 1000, "output_tokens": 200, "gpu_hour_price": 2.5}


def test_an_hour_of_the_decode_bound_and_its_price():
    result = calculate(SCENARIO)
    out = result["decode_throughput"] * 3600
    assert result["tokens_per_gpu_hour"] == pytest.approx(out)
    assert result["dollars_per_million_tokens"] == pytest.approx(2.5 / out * 1e6)
    assert result["tokens_per_dollar"] == pytest.approx(out / 2.5)
    # Batch 1 reads at least the 16.4 GB of BF16 weights every token (8.19e9 parameters less the
    # 0.62e9 of the embedding table, × 2 B) at the H100's 3.35 TB/s (product page).
    most = 3.35e12 / ((8.19e9 - 0.62e9) * 2) * 3600
    assert result["tokens_per_gpu_hour"] <= most * 1.01
    assert result["dollars_per_million_tokens"] >= 2.5 / (most * 1.01) * 1e6


def test_prompt_tokens_come_from_the_first_token_bound():
    result = calculate(SCENARIO)
    inp = 1000 / result["ttft_seconds"] * 3600
    assert result["prefill_tokens_per_gpu_hour"] == pytest.approx(inp)
    assert result["prefill_dollars_per_million_tokens"] == pytest.approx(2.5 / inp * 1e6)
    assert result["decode_over_prefill_cost"] == pytest.approx(inp / result["tokens_per_gpu_hour"])


def test_a_replica_of_two_gpus_shares_its_tokens_over_two_gpu_hours():
    result = calculate({**SCENARIO, "tensor_parallel_size": 2})
    assert result["tokens_per_gpu_hour"] == pytest.approx(result["decode_throughput"] * 3600 / 2)


def test_without_a_price_there_are_tokens_but_no_dollars():
    result = calculate({k: v for k, v in SCENARIO.items() if k != "gpu_hour_price"})
    assert "tokens_per_gpu_hour" in result.values and "dollars_per_million_tokens" not in result.values


@pytest.mark.parametrize("price", [0, -1, 1e9, "nan", "abc"])
def test_a_price_out_of_range_is_refused_naming_the_field(price):
    with pytest.raises(CalcError) as error:
        calculate({**SCENARIO, "gpu_hour_price": price})
    assert error.value.field == "gpu_hour_price"
