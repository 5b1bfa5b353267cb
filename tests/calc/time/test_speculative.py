"""time/speculative.py: the tokens a target step yields and the verification step's bound.

Rejection sampling (vllm/v1/sample/rejection_sampler.py) keeps proposals up to the first rejected
one and adds one target token; with each proposal accepted with probability α the expected tokens
are 1 + α + … + α^k (Leviathan et al. 2023).
"""

import pytest

from quizapp.calc import calculate
from quizapp.calc.time.speculative import tokens_per_step

BASE = {"model": "Qwen/Qwen3-8B", "gpu": "H100-80GB-SXM", "prompt_tokens": 1000, "output_tokens": 200,
        "num_speculative_tokens": 3, "acceptance_rate": 0.7}


@pytest.mark.parametrize("k, alpha, expected", [
    (3, 0.7, 1 + 0.7 + 0.49 + 0.343),
    (5, 0.0, 1.0),  # every proposal rejected: the target's own token only
    (4, 1.0, 5.0),  # every proposal accepted, and the bonus token
    (1, 0.5, 1.5),
])
def test_tokens_per_step(k, alpha, expected):
    assert tokens_per_step(k, alpha) == pytest.approx(expected)


def test_without_a_gpu_only_the_tokens_per_step():
    result = calculate({"model": "Qwen/Qwen3-8B", "num_speculative_tokens": 3, "acceptance_rate": 0.7})
    assert result["spec_tokens_per_step"] == pytest.approx(2.533)
    assert "spec_step_seconds" not in result.values


def test_at_batch_one_verifying_four_tokens_reads_what_a_decode_step_reads():
    # Memory-bound at batch 1: the same weights and the same KV are read once, so the two steps'
    # bounds are equal and the ceilings' ratio is the tokens a step yields.
    result = calculate(BASE)
    assert result["spec_step_seconds"] == pytest.approx(result["decode_step_seconds"])
    assert result["spec_speedup_bound"] == pytest.approx(2.533)


def test_past_the_knee_the_extra_positions_cost_compute():
    # At a batch far past critical_batch both steps are compute-bound; the verification step does
    # k + 1 = 4 tokens' matrix work per sequence, so the ratio falls below 1 for 2.533 tokens a step.
    result = calculate({**BASE, "batch_size": 1024, "prompt_tokens": 100, "output_tokens": 20})
    assert result["spec_speedup_bound"] < 1
    assert result["spec_speedup_bound"] > 2.533 / 4 - 0.01


def test_acceptance_rate_outside_zero_one_is_refused():
    from quizapp.calc import CalcError
    with pytest.raises(CalcError) as refused:
        calculate({**BASE, "acceptance_rate": 1.5})
    assert refused.value.field == "acceptance_rate"
