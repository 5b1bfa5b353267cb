"""Published measurements never beat the calculator's bound for them (DESIGN.md's last invariant).

Each entry of data/measurements.json is a published figure (model, GPU, engine, batch, lengths, the
figure and its source) and the scenario that bounds it. Runs with speculative decoding, and those
whose bytes the scenario cannot state, are listed with the reason they are left out.
``python -m tests.calc.time.test_measurements`` prints the table: each measurement, its bound and
their ratio (the share of the spec sheet's speed the run reached).
"""

import json
from pathlib import Path

import pytest

from quizapp.calc import calculate

DATA = Path(__file__).parent / "data"
MEASUREMENTS = json.loads((DATA / "measurements.json").read_text(encoding="utf-8"))["measurements"]
TIMES = ("decode_step_seconds", "ttft_seconds", "e2e_seconds")


def scenario(entry: dict) -> dict:
    inputs = dict(entry["scenario"])
    if "config" in entry:
        inputs["config"] = json.loads((DATA / entry["config"]).read_text(encoding="utf-8"))
    return inputs


def bound(entry: dict) -> float:
    """The calculator's bound in the figure's own terms: seconds for a time, tokens/s for a speed."""
    result = calculate(scenario(entry))
    compare = entry["compare"]
    tp = entry["scenario"].get("tensor_parallel_size", 1)
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


def ratio(entry: dict) -> float:
    """The share of the bound the run reached: measured speed ÷ bound, or bound time ÷ measured time."""
    limit = bound(entry)
    return limit / entry["measured"] if entry["compare"] in TIMES else entry["measured"] / limit


TESTED = [m for m in MEASUREMENTS if "excluded" not in m]


@pytest.mark.parametrize("entry", TESTED, ids=lambda m: m["id"])
def test_no_published_measurement_beats_its_bound(entry):
    assert 0 < ratio(entry) < 1, (entry["id"], ratio(entry))


def test_every_measurement_names_its_source_and_what_it_measured():
    for entry in MEASUREMENTS:
        assert entry["source"] and entry["quote"] and entry["figure"], entry["id"]
        assert entry["engine"] and entry["gpu"] and entry["model"], entry["id"]
        if entry["speculative_decoding"]:
            assert "excluded" in entry, f"{entry['id']}: speculative decoding beats a per-token bound"
        if "excluded" not in entry:
            assert entry["compare"] in TIMES or entry["measured"] > 0


def test_the_set_covers_decode_prefill_and_throughput_on_many_gpus():
    assert {m["compare"] for m in TESTED} >= {"decode_tokens_per_second", "ttft_seconds", "decode_step_seconds",
                                              "e2e_seconds", "throughput_per_gpu_with_prefill"}
    assert len({m["gpu"] for m in TESTED}) >= 8 and len(TESTED) >= 20


def table() -> str:
    lines = ["| measurement | figure | measured | bound | ratio |", "|---|---|---|---|---|"]
    for entry in MEASUREMENTS:
        if "excluded" in entry:
            lines.append(f"| {entry['id']} | {entry['figure']} | {entry['measured']:g} | left out: "
                         f"{entry['excluded']} | |")
            continue
        unit = "s" if entry["compare"] in TIMES else "tok/s"
        lines.append(f"| {entry['id']} | {entry['compare']} | {entry['measured']:.4g} {unit} | "
                     f"{bound(entry):.4g} {unit} | {ratio(entry):.0%} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table())
