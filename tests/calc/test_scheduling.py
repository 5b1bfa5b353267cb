"""Async scheduling and prefix caching: what they change in vLLM's block accounting.

The first tests reproduce vLLM's own unit test of ``get_max_concurrency_for_kv_cache_config``
(vllm-project/vllm, tests/v1/core/test_kv_cache_utils.py): 32 layers of 32 KV heads × 128,
float16, block 16, max_model_len 16,384, max_num_batched_tokens 1,024, a 1,024-token window.
It asserts 1.5 for full attention, 3 for a sliding-window model and 3 for a 32 + 32 hybrid,
with one batch in flight: what vLLM computes with --no-async-scheduling.
"""

import pytest

from quizapp.calc import calculate
from quizapp.cli import main

LAYER = {"num_attention_heads": 32, "num_key_value_heads": 32, "head_dim": 128, "hidden_size": 4096,
         "torch_dtype": "float16", "max_position_embeddings": 32768, "vocab_size": 32000,
         "intermediate_size": 11008}
SLIDING = {**LAYER, "model_type": "mistral", "num_hidden_layers": 32, "sliding_window": 1024}
HYBRID = {**LAYER, "model_type": "mistral", "num_hidden_layers": 64, "sliding_window": 1024,
          "layer_types": ["full_attention"] * 32 + ["sliding_attention"] * 32}
FULL = {**LAYER, "model_type": "llama", "num_hidden_layers": 32}
PAGE = 16 * 2 * 32 * 128 * 2  # one layer's 16-token page, float16


def pool(config: dict, blocks: int, **inputs) -> dict:
    """vLLM's test sets num_blocks directly; here the pool is exactly that many blocks' bytes."""
    group_size = 32
    return {"config": config, "max_model_len": 16384, "max_num_batched_tokens": 1024,
            "kv_cache_memory_bytes": blocks * group_size * PAGE, **inputs}


@pytest.mark.parametrize("config, blocks, expected", [
    (FULL, int(1024 * 1.5), 1.5),
    (SLIDING, 129 * 3, 3.0),
    (HYBRID, (1024 + 129) * 3, 3.0),
])
def test_vllm_unit_test_of_max_concurrency_with_async_scheduling_off(config, blocks, expected):
    result = calculate(pool(config, blocks, async_scheduling=False))
    assert result["num_blocks"] == blocks
    assert result["max_concurrency"] == expected
    assert result.values["max_concurrency"].text == f"{expected:.2f}x"


def test_async_scheduling_keeps_two_batches_in_flight_and_lowers_the_sliding_concurrency():
    sliding = calculate(pool(SLIDING, 129 * 3))
    hybrid = calculate(pool(HYBRID, (1024 + 129) * 3))
    assert sliding["in_flight_tokens"] == 2048
    assert sliding["blocks_per_request"] == 193  # ⌈(1,023 + 2,048) ÷ 16⌉ + 1
    assert sliding.values["max_concurrency"].text == "2.01x"
    assert hybrid.values["max_concurrency"].text == "2.84x"
    assert calculate(pool(SLIDING, 387, async_scheduling=True))["max_concurrency"] == sliding["max_concurrency"]


def test_the_derivation_says_which_scheduling_set_the_tokens_in_flight():
    off = calculate(pool(SLIDING, 387, async_scheduling=False))
    assert off["in_flight_tokens"] == 1024
    assert "--no-async-scheduling" in off.values["in_flight_tokens"].derivation
    assert "on by default" in calculate(pool(SLIDING, 387)).values["in_flight_tokens"].derivation


def test_before_028_async_scheduling_does_not_change_the_blocks():
    on = calculate(pool(SLIDING, 387, vllm_version="0.24", async_scheduling=True))
    assert on["in_flight_tokens"] == 1024
    assert on["max_concurrency"] == 3.0


def test_the_cli_takes_no_async_scheduling(capsys, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(__import__("json").dumps(SLIDING))
    main(["calc", "--config", str(path), "--max-model-len", "16384", "--max-num-batched-tokens", "1024",
          "--kv-cache-memory-bytes", str(387 * 32 * PAGE), "--no-async-scheduling"])
    assert "3.00x" in capsys.readouterr().out


def test_a_users_sliding_layers_hold_only_their_window():
    # gemma-2-9b: 21 full + 21 sliding (window 4,096). A user of 8,192 tokens holds all 512 blocks
    # in the full group, and in the sliding group only the blocks of its last 4,095 tokens.
    result = calculate({"model": "google/gemma-2-9b-it", "max_model_len": 8192, "kv_cache_memory_bytes": 20 * 2**30,
                        "prompt_tokens": 8000, "output_tokens": 192})
    assert result["blocks_per_user"] == 512 + (512 - (8192 - 4096 + 1) // 16)
    assert result["users_fit"] == (result["num_blocks"] - 1) // 768
    assert "sliding layer keeps only the blocks of its window" in result.values["blocks_per_user"].derivation
    assert result["blocks_per_request"] > result["blocks_per_user"]  # vLLM reserves the in-flight tokens too


def test_a_short_users_sliding_layers_hold_every_token():
    result = calculate({"model": "google/gemma-2-9b-it", "max_model_len": 8192, "kv_cache_memory_bytes": 20 * 2**30,
                        "prompt_tokens": 512, "output_tokens": 128})
    assert result["blocks_per_user"] == 40 + 40


def test_prefix_caching_puts_mamba_layers_in_align_mode_from_028():
    base = {"model": "Qwen/Qwen3-Next-80B-A3B-Instruct", "kv_cache_memory_bytes": 20 * 2**30,
            "max_model_len": 262_144}
    on = calculate(base)
    off = calculate({**base, "enable_prefix_caching": False})
    old = calculate({**base, "vllm_version": "0.24"})
    assert on["blocks_per_request"] == off["blocks_per_request"] + 3  # 3 mamba groups, 2 blocks each, not 1
    assert any("'align' mode" in note for note in on.notes)
    assert any("not modelled" in note for note in old.notes)


def test_flashinfer_gdn_on_hopper_keeps_a_checkpoint_block_and_a_64_token_grid():
    base = {"model": "Qwen/Qwen3-Next-80B-A3B-Instruct", "kv_cache_memory_bytes": 20 * 2**30,
            "max_model_len": 262_144}
    l4 = calculate({**base, "gpu": "L4"})
    hopper = calculate({**base, "gpu": "H100-80GB-SXM"})
    assert l4.plan.block_size == 544
    assert hopper.plan.block_size == 576  # 64 × ⌈1,097,728 ÷ (64 × 2,048)⌉
    assert hopper.plan.mamba_blocks == 3


LOG = """INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version 0.33.0
INFO 05-01 10:00:00 [utils.py:1] non-default args: {{'model': 'google/gemma-2-9b-it', 'max_model_len': 8192, {args}'max_num_batched_tokens': 2048}}
INFO 05-01 10:00:05 [kv_cache_utils.py:1] GPU KV cache size: 70,232 tokens, Maximum concurrency for 8,192 tokens per request: 8.57x
"""


def test_a_log_with_no_async_scheduling_is_predicted_with_it():
    from quizapp.calc import read_log

    data = read_log(LOG.format(args="'async_scheduling': False, ")).to_json()
    assert data["async_scheduling"] is False
    assert data["predicted"]["agrees"] is True
    assert data["continue_inputs"]["async_scheduling"] is False


def test_a_log_whose_sliding_pool_reads_as_one_batch_in_flight_is_explained():
    from quizapp.calc import read_log

    # 20 GiB hold 7,801 blocks; with one batch in flight a request reserves 512 + 385 of them.
    log = "\n".join([*LOG.format(args="").splitlines()[:2],
                     "INFO 05-01 10:00:04 [gpu_worker.py:1] Available KV cache memory: 20.0 GiB",
                     "INFO 05-01 10:00:05 [kv_cache_utils.py:1] GPU KV cache size: 71,243 tokens, Maximum "
                     "concurrency for 8,192 tokens per request: 8.70x"])
    data = read_log(log).to_json()
    assert data["async_scheduling"] is None
    assert data["predicted"]["agrees"] is False
    assert any("--no-async-scheduling" in why for why in data["predicted"]["explanations"])


CARD = """\
---
id: sliding
title: A sliding card
roles: [Inference Engineering]
tags: [kv-cache]
topic: kv-cache
scenario:
  model: google/gemma-2-9b-it
  max_model_len: 8192
  kv_cache_memory_bytes: 21474836480
  max_num_batched_tokens: 2048
  async_scheduling: false
---

## Question

What does vLLM log for {{ model }}?

## Short answer

{{ max_concurrency | x }}.

## Full answer

{{ log_line }}

## Follow-ups

### L2 Working: Why?

Because.

## Wrong answers

### "Anything."

No.

## Taught in

The memory lesson.
"""


def test_a_card_scenario_takes_async_scheduling(tmp_path):
    from quizapp.cards import load_card, resolve_scenario

    path = tmp_path / "sliding.md"
    path.write_text(CARD, encoding="utf-8")
    card = load_card(path, str(path))
    result = resolve_scenario(card, None, {}).result
    assert result.values["max_concurrency"].text == "8.70x"
    assert resolve_scenario(card, None, {"async_scheduling": "true"}).result.values["max_concurrency"].text == "7.61x"
