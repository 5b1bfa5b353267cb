"""Every figure in the two seed documents (docs/seeds/) that the calculator can derive."""

import pytest

from quizapp.calc import calculate, fmt

QWEN3_8B = "Qwen/Qwen3-8B"
QWEN3_30B = "Qwen/Qwen3-30B-A3B-Instruct-2507"


def test_qwen3_8b_bf16_is_144_kib():
    result = calculate({"model": QWEN3_8B})
    assert result["kv_bytes_per_token"] == 147_456
    assert fmt.kib(result["kv_bytes_per_token"]) == "144 KiB"
    assert result.values["kv_bytes_per_token"].derivation == (
        "36 layers × 8 KV heads × 128 head size × 2 (K and V) × 2 bytes = 147,456 B = 144 KiB")


def test_qwen3_30b_a3b_is_96_kib():
    result = calculate({"model": QWEN3_30B})
    assert result["kv_bytes_per_token"] == 98_304
    assert result.values["kv_bytes_per_token"].text == "96 KiB"


@pytest.mark.parametrize("model, bf16", [(QWEN3_8B, 147_456), (QWEN3_30B, 98_304)])
@pytest.mark.parametrize("fp8", ["fp8", "fp8_e4m3", "fp8_e5m2"])
def test_fp8_halves_bytes_per_token(model, bf16, fp8):
    assert calculate({"model": model, "kv_cache_dtype": fp8})["kv_bytes_per_token"] == bf16 // 2


def test_l4_pool_of_24096_tokens():
    result = calculate({"model": QWEN3_8B, "max_model_len": 8192, "pool_tokens": 24_096,
                        "prompt_tokens": 512, "output_tokens": 128})
    assert result["num_blocks"] == 1_506
    assert result["max_concurrency"] == pytest.approx(2.94140625)
    assert result.values["max_concurrency"].text == "2.94x"
    assert result["tokens_per_user"] == 640
    assert result["users_fit"] == 37
    assert result["kv_cache_memory_bytes"] == 1_506 * 16 * 147_456 == 3_553_099_776
    assert result["log_line"] == ("GPU KV cache size: 24,096 tokens, Maximum concurrency for 8,192 tokens "
                                  "per request: 2.94x")


@pytest.mark.parametrize("pool_tokens, max_model_len, text", [
    (181_777, 131_072, "1.39x"),
    (290_858, 131_072, "2.22x"),
    (1_708_119, 262_144, "6.52x"),
])
def test_logged_pools_give_logged_concurrency(pool_tokens, max_model_len, text):
    result = calculate({"kv_bytes_per_token": 55_011, "pool_tokens": pool_tokens, "max_model_len": max_model_len})
    assert result.values["max_concurrency"].text == text


def test_rtx_5090_utilization_ceiling():
    result = calculate({"model": QWEN3_8B, "total_memory_bytes": "31.36 GiB", "free_memory_bytes": "30.85 GiB"})
    assert result["gpu_memory_utilization_ceiling"] == 0.9837


@pytest.mark.parametrize("utilization", [0.99, 1.0])
def test_rtx_5090_refuses_099_and_1(utilization):
    result = calculate({"model": QWEN3_8B, "gpu": "RTX-5090", "free_memory_bytes": "30.85 GiB",
                        "gpu_memory_utilization": utilization, "kv_cache_memory_bytes": 8_501_810_176})
    check = next(c for c in result.checks if c["check"] == "free_memory")
    assert not check["ok"]
    assert check["message"].startswith("Free memory on device cuda:0 (30.85/31.36 GiB) on startup is less than "
                                       f"desired GPU memory utilization ({utilization}, ")


def test_rtx_5090_starts_at_the_ceiling():
    result = calculate({"model": QWEN3_8B, "gpu": "RTX-5090", "free_memory_bytes": "30.85 GiB",
                        "gpu_memory_utilization": 0.9837, "kv_cache_memory_bytes": 8_501_810_176})
    assert next(c for c in result.checks if c["check"] == "free_memory")["ok"]
    assert result.values["kv_cache_memory_bytes"].text == "7.92 GiB"


@pytest.mark.parametrize("n, text", [(16e9, "14.90 GiB"), (10e9, "9.31 GiB"), (8_501_810_176, "7.92 GiB")])
def test_pins_in_gib(n, text):
    assert fmt.gib(n) == text
    result = calculate({"kv_bytes_per_token": 55_011, "kv_cache_memory_bytes": n})
    assert result.values["kv_cache_memory_bytes"].text == text


def test_planned_13952_bytes_per_token_in_16e9_pin():
    result = calculate({"kv_bytes_per_token": 13_952, "kv_cache_memory_bytes": 16e9, "max_model_len": 131_072,
                        "prompt_tokens": 131_072})
    assert fmt.millions(result["pool_tokens"]) == "1.15 M"
    assert result["users_fit"] >= 8  # all 8 seats at full length


def test_modeled_5987_bytes_per_token_in_10e9_pin():
    result = calculate({"kv_bytes_per_token": 5_987, "kv_cache_memory_bytes": 10e9, "max_model_len": 131_072})
    assert fmt.millions(result["pool_tokens"]) == "1.67 M"
    assert fmt.fixed(result["max_concurrency"], 1) == "12.7"


def test_55011_bytes_per_token_in_10e9_plain_and_in_blocks():
    result = calculate({"kv_bytes_per_token": 55_011, "kv_cache_memory_bytes": 10e9, "max_model_len": 131_072})
    assert result["pool_tokens_plain"] == 181_781
    assert result["pool_tokens"] == 181_776
    assert result["num_blocks"] == 11_361
    # The seed's logged 181,777 is the measured figure: 10e9 ÷ 181,777 = 55,012.4 B/token.

