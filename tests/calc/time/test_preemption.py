"""Swap against recompute for a preempted request, against the vendor sheets and arithmetic written out.

Qwen3-8B holds 147,456 B per token (36 × 8 × 128 × 2 × 2); a user of 3,000 + 500 tokens holds
⌈3,500 ÷ 16⌉ = 219 blocks × 16 × 147,456 B = 516,685,824 B.
"""

import pytest

from quizapp.calc import calculate

USER = {"model": "Qwen/Qwen3-8B", "pool_tokens": 24096, "max_model_len": 8192, "prompt_tokens": 3000,
        "output_tokens": 500}


def test_the_l4_copies_back_over_pcie_gen4_at_32_gb_s_each_way():
    result = calculate({**USER, "gpu": "L4"})
    # NVIDIA prints PCIe Gen4 x16 as 64 GB/s, both directions: 32 GB/s each way.
    assert result["host_link_bandwidth"] == 32e9
    assert result["user_kv_bytes"] == 219 * 16 * 147456 == 516_685_824
    assert result["swap_in_seconds"] == pytest.approx(516_685_824 / 32e9)


def test_an_sxm_board_copies_over_its_pcie_row_not_its_nvlink():
    # H100 SXM product page: 'NVIDIA NVLink: 900GB/s PCIe Gen5: 128GB/s' -> 64 GB/s each way to the host.
    result = calculate({**USER, "gpu": "H100-80GB-SXM"})
    assert result["host_link_bandwidth"] == 64e9


def test_recompute_is_the_prefill_of_every_token_the_user_had():
    result = calculate({**USER, "gpu": "L4"})
    again = calculate({**USER, "gpu": "L4", "prompt_tokens": 3500, "output_tokens": 0})
    assert result["recompute_seconds"] == pytest.approx(again["prefill_seconds"])
    # At least 2 FLOPs per weight multiplied per token: Qwen3-8B's 36 layers of 4096-wide attention
    # (q 4096×4096, k and v 4096×1024, o 4096×4096) and MLP (3 × 4096 × 12288) are 6.95e9 weights,
    # at the L4's dense BF16 121 TFLOP/s (L4 datasheet: 242 with sparsity).
    body = 36 * (4096 * 4096 * 2 + 4096 * 1024 * 2 + 3 * 4096 * 12288)
    assert result["recompute_seconds"] >= 2 * body * 3500 / 121e12
    assert result["recompute_over_swap"] == pytest.approx(result["recompute_seconds"] / result["swap_in_seconds"])


def test_a_gpu_without_a_known_host_link_has_no_swap_time():
    result = calculate({**USER, "gpu": "B200", "gpu_memory_utilization": 0.9})
    assert "host_link_bandwidth" not in result.values and "swap_in_seconds" not in result.values
    assert "recompute_seconds" in result.values
