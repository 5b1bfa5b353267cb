"""quizapp calc refuses oversized or hostile input in one line, never with a traceback (issue 12)."""

import json
import time

import pytest

from .test_cli import run


def test_weights_given_with_a_gpu_are_used(capsys):
    # H3: a traceback (KeyError: 'weights_bytes') once.
    code, out, err = run(capsys, "calc", "--model", "Qwen/Qwen3-8B", "--gpu", "L4", "--weights-bytes", "10 GiB",
                         "--json")
    assert code == 0, err
    assert json.loads(out)["kv_cache_memory_bytes"] == 22_220_667_618 - 10 * 2**30


@pytest.mark.parametrize("length", [4_000, 40_000])
def test_a_long_byte_size_is_one_line_at_once(capsys, length):
    start = time.perf_counter()
    code, _, err = run(capsys, "calc", "--model", "Qwen/Qwen3-8B", "--kv-cache-memory", "1" * length + "!")
    assert time.perf_counter() - start < 1
    assert code == 2 and "too long" in err and "--kv-cache-memory-bytes" in err


def test_draft_layers_beyond_the_ceiling_are_refused(capsys):
    code, _, err = run(capsys, "calc", "--model", "Qwen/Qwen3-8B", "--num-draft-layers", "100000000")
    assert code == 2 and "at most 1,000" in err and "--num-draft-layers" in err


@pytest.mark.parametrize("text", ["[" * 100_000, '{"a":' * 100_000, "1" * 5000])
def test_a_hostile_config_file_is_one_line(capsys, tmp_path, text):
    path = tmp_path / "config.json"
    path.write_text(text)
    code, _, err = run(capsys, "calc", "--config", str(path))
    assert code == 2 and err.startswith("quizapp: error:") and "Traceback" not in err


def test_a_config_file_over_a_mebibyte_is_refused(capsys, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"num_hidden_layers": 2, "pad": "x" * 2_000_000}))
    code, _, err = run(capsys, "calc", "--config", str(path))
    assert code == 2 and "KiB" in err
