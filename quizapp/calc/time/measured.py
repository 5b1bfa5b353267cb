"""Published measurements beside their bounds: what real engines reached on a GPU, with the source.

``data/measurements/measurements.json`` holds each published figure (model, GPU, engine, batch,
lengths, the figure, its source and quote) and the scenario whose bound it is held to. The ratio
is the share of the spec sheet's speed the run reached; tests hold every one below 1. A page
shows the runs on its GPU, so a bound is never read as a prediction.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

from ..compute import calculate

DATA = resources.files("quizapp.calc") / "data" / "measurements"
TIMES = ("decode_step_seconds", "ttft_seconds", "e2e_seconds")


@dataclass(frozen=True)
class Run:
    id: str
    gpu: str  # the catalog id of the scenario's GPU
    model: str
    engine: str
    figure: str
    compare: str  # the bound it is held to
    measured: float
    bound: float
    ratio: float  # measured speed ÷ bound speed, or bound time ÷ measured time
    source: str

    @property
    def url(self) -> str | None:
        """The source's address (a source may add words after it: "… (and PR #91)")."""
        first = self.source.split()[0]
        return first if first.startswith("https://") else None


@cache
def measurements() -> tuple[dict, ...]:
    return tuple(json.loads((DATA / "measurements.json").read_text(encoding="utf-8"))["measurements"])


def scenario(entry: dict) -> dict:
    inputs = dict(entry["scenario"])
    if "config" in entry:
        inputs["config"] = json.loads((DATA / entry["config"]).read_text(encoding="utf-8"))
    return inputs


def bound(entry: dict) -> float:
    """The calculator's bound in the figure's own terms: seconds for a time, tokens/s for a speed."""
    result = calculate(scenario(entry))
    compare, tp = entry["compare"], entry["scenario"].get("tensor_parallel_size", 1)
    if compare == "throughput_ceiling_per_gpu":
        return result["decode_throughput_ceiling"] / tp
    if compare == "throughput_per_gpu_with_prefill":
        # At any batch an output token costs at least its KV read, or its decode compute plus its share of
        # its prompt's prefill compute (prefill_flops at the fastest peak): the weights' read is shared.
        kv_read = result["decode_kv_bytes"] / result["memory_bandwidth"]
        compute = result["decode_compute_seconds"] + result["prefill_flops"] / result["peak_flops"] / \
            entry["scenario"]["output_tokens"]
        return 1 / max(kv_read, compute) / tp
    return result[compare]


@cache
def runs() -> tuple[Run, ...]:
    """Every measurement held to a bound, with its ratio (computed once per process)."""
    found = []
    for entry in measurements():
        if "excluded" in entry:
            continue
        limit = bound(entry)
        share = limit / entry["measured"] if entry["compare"] in TIMES else entry["measured"] / limit
        found.append(Run(entry["id"], entry["scenario"]["gpu"], entry["model"], entry["engine"], entry["figure"],
                         entry["compare"], entry["measured"], limit, share, entry["source"]))
    return tuple(found)


def runs_on(gpu_id: str) -> list[Run]:
    return [run for run in runs() if run.gpu == gpu_id]
