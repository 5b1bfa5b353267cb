"""The quizapp command: calc's table and JSON, and one-line errors with exit code 2."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from quizapp.calc import model_ids
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


# A card with each fault an author hit (issue 10, item 2): every one is reported in one run.
FAULTY_CARD = """\
---
id: faulty
title: Pin vs fraction: which one?
roles: [Inference Engineering]
tags: [kv-cache
scenario:
  model: Qwen/Qwen3-8B
  max_model_len: 8192
  pool_tokens: 24096
variants:
  - name: Llama
    model: meta-llama/Llama-3.1-8B
  - name: On a Spark
    gpu: GB10
bogus: 1
topic: kv-cache
---

## Question

How many users fit in {{ model }}'s pool on a machine with 128 GB of memory, and
{{ literal("128 GB") }} of swap? Each KV head has a head size of 128.

## Short answer

{{ users_fit }} users.

## Full answer

One token takes {{ kv_bytes_per_token | kib, and
the pool holds {{ pool_tokens }} tokens.

## Follow-ups

### Working: no level

An answer.
"""


def faulty_line(needle: str) -> int:
    return next(i for i, line in enumerate(FAULTY_CARD.splitlines(), 1) if needle in line)


# The column of the head size typed as a number.
HEAD_SIZE_COLUMN = FAULTY_CARD.splitlines()[faulty_line("head size of 128") - 1].index("128.") + 1


def test_check_reports_each_fault_of_a_card_in_one_run(capsys, tmp_path):
    card = tmp_path / "faulty.md"
    card.write_text(FAULTY_CARD, encoding="utf-8")
    code, out, err = run(capsys, "check", str(card))
    assert code == 1
    expected = [
        f"{card}:{faulty_line('title:')}:23: error: front matter is not valid YAML: a colon inside a value "
        "(mapping values are not allowed here) (hint: quote a value that holds a colon: "
        "title: \"Pin vs fraction: which one?\")",
        f"{card}:{faulty_line('tags:')}:7: error: front matter is not valid YAML: the '[' on line 5 is never "
        "closed (hint: close the bracket opened on line 5 with ']')",
        f"{card}:{faulty_line('model: meta-llama')}: error: variant 'Llama': unknown model "
        "'meta-llama/Llama-3.1-8B'; closest catalog ids: meta-llama/Llama-3.1-8B-Instruct",
        f"{card}:{faulty_line('gpu: GB10')}: error: variant 'On a Spark': unknown GPU 'GB10'; closest catalog "
        "GPUs: DGX-Spark (NVIDIA DGX Spark (GB10, 128 GB unified))",
        f"{card}:{faulty_line('bogus')}: error: unknown front-matter key 'bogus'",
        f"{card}:{faulty_line('head size of 128')}:{HEAD_SIZE_COLUMN}: warning: literal 128 is what the calculator computes "
        "for 'head_size'",
        f"{card}:{faulty_line('{{ users_fit }}')}: error: under the card's scenario",
        f"{card}:{faulty_line('One token takes')}:17: error: expression error: `{{{{` on line "
        f"{faulty_line('One token takes')} is never closed with `}}}}` (hint: close it with }}}})",
        f"{card}:{faulty_line('### Working')}: error: follow-up heading '### Working: no level' must read "
        "'### L2 Working: the question'",
    ]
    lines = out.splitlines()
    assert len(lines) == len(expected)
    for line, start in zip(lines, expected):
        assert line.startswith(start), (line, start)
    assert lines[6].endswith(": 'users_fit' is undefined in this scenario: users_fit needs prompt_tokens and "
                             "output_tokens in the scenario")
    # 128 GB of memory is not the head size, and literal() is never read.
    assert not [line for line in lines if line.startswith(f"{card}:{faulty_line('128 GB of memory')}:")]
    assert len([line for line in lines if line.startswith(f"{card}:{faulty_line('head size of 128')}:")]) == 1
    assert err.strip() == "1 card: 1 with errors (8 errors), 1 warning"


def test_check_json_is_one_object_with_each_diagnostic(capsys, tmp_path):
    card = tmp_path / "faulty.md"
    card.write_text(FAULTY_CARD, encoding="utf-8")
    good = Path("questions/kv-pool-users.md")
    code, out, _ = run(capsys, "check", "--format", "json", str(card), str(good))
    assert code == 1
    report = json.loads(out)
    assert report["cards"] == [{"path": str(card), "id": None, "errors": 8, "warnings": 1},
                               {"path": str(good), "id": "kv-pool-users", "errors": 0, "warnings": 0}]
    assert report["errors"][0] == {
        "path": str(card), "line": 3, "column": 23, "severity": "error",
        "message": "front matter is not valid YAML: a colon inside a value (mapping values are not allowed here)",
        "hint": "quote a value that holds a colon: title: \"Pin vs fraction: which one?\""}
    [warning] = report["warnings"]
    assert (warning["line"], warning["column"], warning["severity"]) == (faulty_line("head size of 128"),
                                                                         HEAD_SIZE_COLUMN, "warning")
    assert len(report["errors"]) == 8 and all(e["severity"] == "error" for e in report["errors"])


def test_check_json_on_a_clean_bank(capsys):
    code, out, _ = run(capsys, "check", "--format", "json", "questions")
    report = json.loads(out)
    assert code == 0 and report["errors"] == [] and report["warnings"] == []
    assert {card["id"] for card in report["cards"]} >= {"kv-pool-users", "kv-bytes-per-token"}


def test_models_lists_ids_with_their_figures(capsys):
    code, out, _ = run(capsys, "models")
    assert code == 0
    header, *rows = out.splitlines()
    assert header.split() == ["id", "space", "kind", "attention", "layers", "KV", "heads", "head", "size", "max",
                              "length"]
    assert "Qwen/Qwen3-8B  " in out and len(rows) == len(model_ids())
    qwen = next(row for row in rows if row.startswith("Qwen/Qwen3-8B "))
    assert qwen.split() == ["Qwen/Qwen3-8B", "uniform", "GQA,", "36", "full", "36", "8", "128", "40,960"]


def test_gpus_lists_ids_memory_and_prose_names(capsys):
    code, out, _ = run(capsys, "gpus")
    assert code == 0
    spark = next(row for row in out.splitlines() if row.startswith("DGX-Spark "))
    # NVIDIA: 273 GB/s; "1 PFLOP FP4 ... using the sparsity feature" = 500 TFLOP/s dense; no BF16 or FP8 figure.
    assert spark.split()[:13] == ["DGX-Spark", "DGX", "Spark", "121.63", "GiB", "cuda", "yes", "273", "GB/s", "—", "—",
                                  "500", "ConnectX-7"]


def test_gpus_sources_lists_each_document(capsys):
    code, out, _ = run(capsys, "gpus", "--sources")
    assert code == 0
    assert next(row for row in out.splitlines() if row.startswith("hopper_wp ")).split()[1:4] == [
        "NVIDIA", "H100", "Tensor"]


@pytest.mark.parametrize("command", ["models", "gpus", "gpus --sources"])
def test_the_markdown_lists_are_the_ones_in_authoring_md(capsys, command):
    code, out, _ = run(capsys, *command.split(), "--markdown")
    text = Path("AUTHORING.md").read_text(encoding="utf-8")
    assert code == 0
    assert f"<!-- begin: quizapp {command} --markdown -->\n{out}<!-- end: quizapp {command} --markdown -->" in text


def test_new_writes_a_card_that_passes_check(capsys, tmp_path):
    folder = tmp_path / "questions"
    code, out, _ = run(capsys, "new", "Pin vs fraction: which one?", "--questions", str(folder))
    path = folder / "pin-vs-fraction-which-one.md"
    assert code == 0 and out.strip() == f"wrote {path}; check it with: quizapp check {path}"
    code, out, err = run(capsys, "check", str(folder))
    assert code == 0 and "1 card: 0 with errors, 1 warning" in err
    draft_line = path.read_text(encoding="utf-8").splitlines().index("draft: true") + 1
    assert out == f"{path}:{draft_line}: warning: draft: the card is kept out of the bank, practice, print and the Anki " \
                  "export (hint: replace each TODO, then remove draft: true to publish it)\n"
    # Published with its topic blank and its TODOs left, it is an error at each (the blank topic first).
    path.write_text(path.read_text(encoding="utf-8").replace("draft: true\n", ""), encoding="utf-8")
    code, out, err = run(capsys, "check", str(folder))
    first, second = out.splitlines()[:2]
    assert code == 1 and "error: front matter has no 'topic' (hint: topics are kv-cache, prefill-decode" in first
    assert "leftover TODO text in a card that is not a draft" in second


def test_new_writes_the_topic_it_is_given_or_the_one_of_from(capsys, tmp_path):
    folder = tmp_path / "questions"
    code, _, _ = run(capsys, "new", "A roofline", "--topic", "roofline", "--questions", str(folder))
    assert code == 0 and "\ntopic: roofline\n" in (folder / "a-roofline.md").read_text(encoding="utf-8")
    code, _, _ = run(capsys, "new", "Another", "--from", "a-roofline", "--questions", str(folder))
    assert code == 0 and "\ntopic: roofline\n" in (folder / "another.md").read_text(encoding="utf-8")
    code, out, err = run(capsys, "new", "Third", "--topic", "rooflin", "--questions", str(folder))
    assert code == 2 and out == "" and err.strip() == "quizapp: error: unknown topic 'rooflin'; did you mean 'roofline'?"


def test_new_from_another_card_passes_check(capsys, tmp_path):
    folder = tmp_path / "questions"
    folder.mkdir()
    seed = Path("questions/kv-pool-users.md").read_text(encoding="utf-8")
    (folder / "kv-pool-users.md").write_text(seed, encoding="utf-8")
    code, _, _ = run(capsys, "new", "Users again", "--id", "users-again", "--from", "kv-pool-users",
                     "--questions", str(folder))
    assert code == 0
    assert "  pool_tokens: 24096\n" in (folder / "users-again.md").read_text(encoding="utf-8")
    code, _, err = run(capsys, "check", str(folder))
    assert code == 0 and "2 cards: 0 with errors, 1 warning" in err  # the new card is a draft


@pytest.mark.parametrize("args, words", [
    (["--id", "Bad Id"], "id 'Bad Id' must be lowercase letters, digits and dashes; give one with --id"),
    (["--from", "nowhere"], "there is no card 'nowhere' in"),
])
def test_new_refuses_bad_ids_in_one_line(capsys, tmp_path, args, words):
    code, out, err = run(capsys, "new", "A title", *args, "--questions", str(tmp_path))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and words in err


def test_new_never_overwrites_a_card(capsys, tmp_path):
    path = tmp_path / "a-title.md"
    path.write_text("mine", encoding="utf-8")
    code, out, err = run(capsys, "new", "A title", "--questions", str(tmp_path))
    assert code == 2 and out == ""
    assert err.strip() == f"quizapp: error: {path} already exists; give another --id, or edit that card"
    assert path.read_text(encoding="utf-8") == "mine"
