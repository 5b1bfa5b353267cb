"""The arithmetic check: every ``=`` a rendered card shows must hold to its displayed precision."""

import time

import pytest

from quizapp.cards.check.arithmetic import check_text, find_chains


@pytest.mark.parametrize("text", [
    "36 layers × 8 KV heads × 128 head size × 2 (K and V) × 2 bytes = 147,456 B = 144 KiB",
    "⌊24,096 tokens ÷ 16 tokens per block⌋ = 1,506 blocks (whole blocks)",
    "⌊(1,506 blocks − 1 null block) ÷ 40 blocks per user⌋ = 37 users",
    "⌊10e9 ÷ 55,011⌋ = 181,781 tokens",  # floored, as vLLM counts tokens, and written as a floor
    "⌊120,000,000,000 B ÷ 327,680 B⌋ = 366,210 tokens",
    "0.6 GiB = 0.64 GB, and 10 GB − 0.64 GB = 9.36 GB",  # one unit per sum; = converts between units
    "16e9 B = 14.90 GiB",
    "9.31 GiB ÷ 144 KiB = 67,795 tokens",  # 9.31 stands for anything from 9.305 to 9.315
    "1,506 ÷ 512 = 2.94x",
    "147456 B = 144 KiB = 0.140625 MiB",
    "512 + 128 = 640 tokens, and 2 × 320 = 640.",
    "99.5% of 24,096 is more than 40 × 512 = 20,480 tokens.",
])
def test_true_chains_pass(text):
    assert find_chains(text), "the chain was not found at all"
    assert check_text(text) == []


@pytest.mark.parametrize("text, left", [
    ("24 layers × 8 × 64 × 2 × 2 = 24 KiB", 49_152),  # gpt-oss counts only its 12 full layers
    ("27 layers × 16 KV heads × 576 × 2 × 2 = 30.375 KiB", 995_328),  # MLA has no factor 2
    ("The page says 10e9 ÷ 55,011 = 181,777, which is off.", 181_781.8),
    # A floor printed as "=": 10e9 ÷ 55,011 is 181,781.8 (issue 17), and 120e9 ÷ 327,680 is 366,210.94.
    ("10e9 ÷ 55,011 = 181,781 tokens", 181_781.8),
    ("120,000,000,000 B ÷ 327,680 B = 366,210 tokens", 366_210.94),
    ("240,000,000,000 B ÷ 562,176 B = 426,912 tokens", 426_912.57),
    ("42 layers × 8 × 256 × 2 × 2 = 168 KiB", 344_064),  # gemma-2-9b: the product is 336 KiB
    ("1,506 ÷ 512 = 2.95", 2.941),
])
def test_false_chains_fail_with_the_left_side(text, left):
    errors = check_text(text)
    assert len(errors) == 1
    assert errors[0].left == pytest.approx(left, rel=1e-3)
    assert "does not hold" in errors[0].message


@pytest.mark.parametrize("text", [
    "Qwen3-8B has 36 layers, 8 KV heads and a head size of 128.",
    "Llama 3.1 8B on the L4, a pool of 24,096 tokens at 2.94x.",
    "the 8,192-token request",
    "H100-80GB = the GPU",
])
def test_prose_without_arithmetic_is_left_alone(text):
    assert check_text(text) == []


@pytest.mark.parametrize("text", [
    "10 GB − (115.1 GiB − 114.5 GiB) = 9.36 GB",  # unified-memory-pin-from-warm-up, before issue 17
    "1 GiB + 1 GB = 2.07 GiB",
])
def test_a_sum_that_mixes_gb_and_gib_is_refused(text):
    errors = check_text(text)
    assert len(errors) == 1
    assert "GB and GiB" in errors[0].message


def test_each_false_equality_of_a_chain_is_reported_once():
    errors = check_text("2 × 2 = 5 and 3 × 3 = 10.")
    assert [e.left for e in errors] == [4, 9]


def test_a_huge_text_is_checked_in_linear_time():
    text = ("1,506 × 2 = 3,012; " * 5_000) + "(" * 20_000 + "1" * 20_000
    started = time.perf_counter()
    check_text(text)
    assert time.perf_counter() - started < 2


@pytest.mark.parametrize("extra", [
    {}, {"gpu": "B200"}, {"pool_tokens": 100_000, "prompt_tokens": 512, "output_tokens": 128},
    {"kv_cache_dtype": "fp8", "tensor_parallel_size": 2},
    {"gpu": "L4", "gpu_memory_utilization": 0.5, "free_memory_bytes": "10 GiB"},
    {"gpu": "L4", "max_model_len": 8192}, {"gpu": "L4", "kv_cache_memory_bytes": 10e9, "max_model_len": 8192},
    {"gpu": "H100-80GB-SXM", "prompt_tokens": 2000, "output_tokens": 300, "batch_size": 8,
     "cached_prefix_tokens": 1500, "num_speculative_tokens": 3, "acceptance_rate": 0.7},
], ids=["plain", "B200", "pool", "fp8-tp2", "start-check", "L4-fit", "L4-pin-fit", "prefix-spec-chunks"])
def test_every_derivation_of_the_calculator_holds(extra):
    """A card may print derivation(name): the checker must find the calculator's own arithmetic true."""
    from quizapp.calc import CalcError, calculate, model_ids

    for model in model_ids():
        try:
            result = calculate({"model": model, **extra})
        except CalcError:
            continue  # vLLM would not start this model here: no derivations to print
        for name, quantity in result.values.items():
            assert check_text(quantity.derivation) == [], (model, name, quantity.derivation)
        if result.fit is not None:  # the verdict a page prints first, and what would make it fit
            for text in (result.fit.verdict, result.fit.suggestion() or ""):
                assert check_text(text) == [], (model, text)
