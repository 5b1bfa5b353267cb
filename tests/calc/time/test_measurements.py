"""Published measurements never beat the calculator's bound for them (DESIGN.md's last invariant).

Each entry of calc/data/measurements/measurements.json is a published figure (model, GPU, engine,
batch, lengths, the figure and its source) and the scenario that bounds it. Runs with speculative
decoding, and those whose bytes the scenario cannot state, are listed with the reason they are
left out. ``python -m tests.calc.time.test_measurements`` prints the table: each measurement, its
bound and their ratio (the share of the spec sheet's speed the run reached).
"""

import pytest

from quizapp.calc.time.measured import TIMES, bound, measurements, runs, runs_on

TESTED = [m for m in measurements() if "excluded" not in m]


@pytest.mark.parametrize("run", runs(), ids=lambda run: run.id)
def test_no_published_measurement_beats_its_bound(run):
    assert 0 < run.ratio < 1, (run.id, run.measured, run.bound)


def test_every_measurement_names_its_source_and_what_it_measured():
    for entry in measurements():
        assert entry["source"] and entry["quote"] and entry["figure"], entry["id"]
        assert entry["engine"] and entry["gpu"] and entry["model"], entry["id"]
        if entry["speculative_decoding"]:
            assert "excluded" in entry, f"{entry['id']}: speculative decoding beats a per-token bound"


def test_the_set_covers_decode_prefill_and_throughput_on_many_gpus():
    assert {m["compare"] for m in TESTED} >= {"decode_tokens_per_second", "ttft_seconds", "decode_step_seconds",
                                              "e2e_seconds", "throughput_per_gpu_with_prefill"}
    assert len({m["scenario"]["gpu"] for m in TESTED}) >= 8 and len(TESTED) >= 20


def test_a_gpu_lists_its_runs():
    assert {run.id for run in runs_on("DGX-Spark")} == {"llamacpp-spark-qwen25-7b-q8-b1", "llamacpp-spark-qwen25-7b-q8-b32",
                                                        "spark-vllm-llama33-70b-nvfp4"}


def table() -> str:
    lines = ["| measurement | held to | measured | bound | ratio |", "|---|---|---|---|---|"]
    for entry in measurements():
        if "excluded" in entry:
            lines.append(f"| {entry['id']} | left out | {entry['measured']:g} | {entry['excluded']} | |")
            continue
        unit = "s" if entry["compare"] in TIMES else "tok/s"
        limit = bound(entry)
        share = limit / entry["measured"] if entry["compare"] in TIMES else entry["measured"] / limit
        lines.append(f"| {entry['id']} | {entry['compare']} | {entry['measured']:.4g} {unit} | {limit:.4g} {unit} | "
                     f"{share:.0%} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table())
