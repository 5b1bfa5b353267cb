"""time/prefill.py chunked_values: a prompt prefilled beside running decodes.

vllm/v1/core/sched/scheduler.py Scheduler.schedule: token_budget = max_num_batched_tokens; the
RUNNING requests go first (a decode takes one token), and a prompt gets min(num_new_tokens,
token_budget) of what is left.
"""

from quizapp.calc import calculate

BASE = {"model": "Qwen/Qwen3-8B", "gpu": "L4", "prompt_tokens": 8000, "output_tokens": 100, "batch_size": 64}


def test_the_decodes_take_their_tokens_first():
    result = calculate(BASE)
    # L4 (22.49 GiB, under 70 GiB): vLLM's server default is 2,048 tokens a step.
    assert result["prefill_chunk_tokens"] == 2048 - 64
    assert result["prefill_chunks"] == 5  # ⌈8,000 ÷ 1,984⌉: 4 × 1,984 = 7,936 < 8,000


def test_a_given_budget():
    result = calculate({**BASE, "max_num_batched_tokens": 512, "batch_size": 16})
    assert result["prefill_chunk_tokens"] == 496
    assert result["prefill_chunks"] == 17  # ⌈8,000 ÷ 496⌉ = ⌈16.13⌉


def test_a_mixed_step_is_no_shorter_than_the_decode_step():
    result = calculate(BASE)
    assert result["chunked_step_seconds"] > result["decode_step_seconds"]


def test_decodes_that_fill_the_budget_leave_no_chunk():
    result = calculate({**BASE, "max_num_batched_tokens": 64, "max_num_seqs": 64})
    assert "prefill_chunks" not in result.values


def test_the_request_rate_by_littles_law():
    # 64 requests in flight, each at least its prefill and 99 decode steps long: rate ≤ 64 ÷ that.
    result = calculate(BASE)
    least = result["prefill_seconds"] + 99 * result["decode_step_seconds"]
    assert result["request_rate_bound"] == __import__("pytest").approx(64 / least)
