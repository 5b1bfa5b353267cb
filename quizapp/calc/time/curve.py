"""The bounds at other batches and prompt lengths, for the charts: decode tokens/s against the batch
(per sequence and for the batch, with the bandwidth and compute roofs and the knee at
critical_batch) and prefill time against the prompt's length. Computed here, drawn by the page."""

from __future__ import annotations

from dataclasses import dataclass

from ..result import Result
from .work import decode_step, prefill_step

MAX_CHART_BATCH = 16384
MAX_CHART_PROMPT = 1 << 20


@dataclass(frozen=True)
class DecodePoint:
    batch: int
    per_sequence: float  # tokens/s of one sequence (the bound)
    batch_speed: float  # tokens/s of the batch (the bound)
    bandwidth_roof: float  # the batch's tokens/s if only the memory side counted
    compute_roof: float  # ... if only the compute side counted


@dataclass(frozen=True)
class PrefillPoint:
    tokens: int
    seconds: float
    compute_seconds: float
    memory_seconds: float


def _powers(low: int, high: int) -> list[int]:
    found, n = [], low
    while n < high:
        found.append(n)
        n *= 2
    return found + [high]


def decode_curve(result: Result) -> list[DecodePoint]:
    """Powers of two from one sequence to past the knee (four times critical_batch, at least 64, at most
    16,384), and the scenario's own batch, at the scenario's context."""
    work, shape = result.time_model
    top = min(MAX_CHART_BATCH, max(64, 1 << (max(1, int(4 * result["critical_batch"]))).bit_length()))
    batches = sorted(set(_powers(1, top)) | {min(shape.batch, MAX_CHART_BATCH)})
    points = []
    for b in batches:
        step = decode_step(work, b, shape.context)
        points.append(DecodePoint(b, 1 / sum(step.seconds), b / max(step.seconds),
                                  b / max(step.memory_seconds), b / max(step.compute_seconds)))
    return points


def prefill_curve(result: Result) -> list[PrefillPoint]:
    """Prompts of 32 tokens doubling up to max_model_len (at most 2**20), and the scenario's own."""
    work, shape = result.time_model
    longest = result.get("max_model_len") or result.inputs.max_model_len or shape.prompt
    top = min(MAX_CHART_PROMPT, max(longest, shape.prompt, 64))
    points = []
    for tokens in sorted(set(_powers(32, top)) | {shape.prompt}):
        step = prefill_step(work, 1, tokens)
        points.append(PrefillPoint(tokens, sum(step.seconds), sum(step.compute_seconds), sum(step.memory_seconds)))
    return points
