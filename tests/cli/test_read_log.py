"""quizapp read-log: a startup log read from a file or standard input, as text or one JSON object,
and one-line errors with exit code 2."""

import io
import json
import sys
from pathlib import Path

import pytest

from .test_cli import run

from tests.paths import LOGS
L4_LOG = str(LOGS / "qwen3-8b-l4.log")


def test_read_log_json_has_the_figures_the_implied_bytes_and_the_prediction(capsys):
    code, out, _ = run(capsys, "read-log", L4_LOG, "--json")
    assert code == 0
    data = json.loads(out)
    assert (data["model"], data["max_model_len"], data["pool_tokens"], data["max_concurrency"]) == (
        "Qwen/Qwen3-8B", 8192, 24096, 2.94)
    assert data["vllm_version"] is None
    assert data["kv_cache_memory_bytes"] == round(3.31 * 2**30)
    assert data["implied_kv_bytes_per_token"]["low"] <= 147_456 <= data["implied_kv_bytes_per_token"]["high"]
    assert data["predicted"]["kv_bytes_per_token"] == 147_456
    assert data["unrecognised"] == []


def test_read_log_text_shows_the_arithmetic_and_the_calculator_command(capsys):
    code, out, _ = run(capsys, "read-log", L4_LOG)
    assert code == 0
    assert "Implied KV bytes per token: 147,171 – 147,719 B" in out
    assert "36 layers × 8 KV heads × 128 head size × 2 (K and V) × 2 bytes = 147,456 B = 144 KiB" in out
    assert "quizapp calc --model Qwen/Qwen3-8B --max-model-len 8192 --pool-tokens 24096" in out


def test_read_log_reads_standard_input(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((LOGS / "vllm-v0-blocks.log").read_bytes())))
    code, out, _ = run(capsys, "read-log", "-", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["num_gpu_blocks"] == 5102
    assert data["unrecognised"][0]["line"] == 2


def test_read_log_lists_a_refusal_in_vllms_words(capsys):
    code, out, _ = run(capsys, "read-log", str(LOGS / "reference-rtx5090-refusal.log"))
    assert code == 0
    assert "Free memory on device cuda:0 (30.85/31.36 GiB) on startup is less than desired" in out
    assert "gpu_memory_utilization 0.9837 is the most that starts" in out


@pytest.mark.parametrize("name, words", [
    ("sglang.log", "not recognised as a vLLM startup log"),
    ("no-such.log", "cannot read log"),
])
def test_read_log_errors_are_one_line_exit_2(capsys, name, words):
    code, out, err = run(capsys, "read-log", str(LOGS / name))
    assert code == 2 and out == ""
    assert words in err and len(err.strip().splitlines()) == 1


def test_read_log_refuses_a_huge_file_without_loading_it(capsys, tmp_path):
    path = tmp_path / "huge.log"
    path.write_bytes(b"GPU KV cache size: 1 tokens\n" * 100_000)
    code, _, err = run(capsys, "read-log", str(path))
    assert code == 2
    assert "larger than 2,000,000 bytes" in err and len(err.strip().splitlines()) == 1
