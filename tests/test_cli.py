"""The quizapp command: calc's table and JSON, and one-line errors with exit code 2."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from quizapp.cli import main

ISSUE_COMMAND = ["calc", "--model", "Qwen/Qwen3-8B", "--max-model-len", "8192", "--pool-tokens", "24096",
                 "--prompt-tokens", "512", "--output-tokens", "128"]


def run(capsys, *args):
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
        raise SystemExit(0)
    out = capsys.readouterr()
    return exit_info.value.code or 0, out.out, out.err


def test_calc_json_from_the_issue(capsys):
    code, out, _ = run(capsys, *ISSUE_COMMAND, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["kv_bytes_per_token"] == 147456
    assert data["num_blocks"] == 1506
    assert data["max_concurrency_text"] == "2.94x"
    assert data["users_fit"] == 37


def test_calc_table_shows_the_arithmetic(capsys):
    code, out, _ = run(capsys, *ISSUE_COMMAND)
    assert code == 0
    assert "36 layers × 8 KV heads × 128 head size × 2 (K and V) × 2 bytes = 147,456 B = 144 KiB" in out
    assert "GPU KV cache size: 24,096 tokens, Maximum concurrency for 8,192 tokens per request: 2.94x" in out


def test_calc_reads_a_config_file(capsys, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"n_layer": 24, "n_head": 16, "n_embd": 2048, "torch_dtype": "float16"}))
    code, out, _ = run(capsys, "calc", "--config", str(path), "--json")
    assert code == 0
    assert json.loads(out)["kv_bytes_per_token"] == 24 * 16 * 128 * 2 * 2


@pytest.mark.parametrize("args, words", [
    (["calc", "--model", "Llama-3.1-8B"], "closest catalog ids: meta-llama/Llama-3.1-8B-Instruct"),
    (["calc", "--model", "Qwen/Qwen3-8B", "--tensor-parallel-size", "0"], "tensor_parallel_size must be positive"),
    (["calc", "--model", "Qwen/Qwen3-8B", "--max-model-len", "1.5"], "max_model_len must be a whole number"),
    (["calc", "--model", "Qwen/Qwen3-8B", "--no-such-flag"], "No such option"),
    (["calc", "--config", "/nonexistent/config.json"], "cannot read config"),
])
def test_calc_errors_are_one_line_exit_2(capsys, args, words):
    code, out, err = run(capsys, *args)
    assert code == 2
    assert words in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_calc_errors_name_the_flag_as_typed(capsys, tmp_path):
    _, _, err = run(capsys, "calc", "--model", "Qwen/Qwen3-8B", "--tensor-parallel-size", "0")
    assert err.strip().endswith("[--tensor-parallel-size]")
    # A key inside the config file is not a flag: it is named as the file spells it.
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 256,
                                "layer_types": ["full_attention", "made_up_attention"]}))
    _, _, err = run(capsys, "calc", "--config", str(path))
    assert err.strip().endswith("[config.layer_types]")


def test_broken_config_json_names_file_and_line(capsys, tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{\n  "num_hidden_layers": 4,\n  oops\n}')
    code, _, err = run(capsys, "calc", "--config", str(path))
    assert code == 2
    assert f"{path}:3:" in err


def test_console_script_is_installed():
    bin_dir = Path(sys.executable).parent
    out = subprocess.run([str(bin_dir / "quizapp"), *ISSUE_COMMAND, "--json"], capture_output=True, text=True,
                         check=True).stdout
    assert json.loads(out)["users_fit"] == 37


def test_check_passes_on_the_shipped_bank(capsys):
    code, out, err = run(capsys, "check", "questions")
    assert code == 0
    assert out == "" and "cards: 0 with errors, 0 warnings" in err


def test_check_reports_file_line_and_exits_1(capsys, tmp_path):
    seed = Path("questions/kv-pool-users.md").read_text(encoding="utf-8")
    broken = tmp_path / "broken.md"
    broken.write_text(seed.replace("{{ kv_bytes_per_token | kib }}", "{{ kv_bytes | kib }}"), encoding="utf-8")
    line = next(i for i, l in enumerate(broken.read_text().splitlines(), 1) if "kv_bytes |" in l)
    code, out, _ = run(capsys, "check", str(broken))
    assert code == 1
    assert out.strip() == (f"{broken}:{line}: error: unknown value 'kv_bytes' "
                           "(hint: did you mean 'kv_bytes_per_token'?)")
