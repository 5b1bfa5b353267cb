"""The catalog as authors read it: the tables agree with the calculator, and AUTHORING.md holds them."""

import re

import pytest

from quizapp.calc import CURRENT_VLLM_VERSION, calculate, gpu_entries, load_model, model_ids, parse_inputs
from quizapp.calc.model.listings import GPU_COLUMNS, MODEL_COLUMNS, gpu_prose_name, gpu_rows, markdown_table, model_rows, text_table
from quizapp.calc.versions import PREVIOUSLY_SUPPORTED
from quizapp.cards import Scenario

from tests.paths import AUTHORING as DOC


def doc_block(command: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    match = re.search(rf"<!-- begin: {re.escape(command)} -->\n(.*?)<!-- end: {re.escape(command)} -->", text, re.S)
    assert match, f"AUTHORING.md has no block for {command!r}"
    return match[1].rstrip("\n")


@pytest.mark.parametrize("command, table", [
    ("quizapp models --markdown", lambda: markdown_table(model_rows(), MODEL_COLUMNS)),
    ("quizapp gpus --markdown", lambda: markdown_table(gpu_rows(), GPU_COLUMNS)),
], ids=["models", "gpus"])
def test_authoring_md_lists_the_catalog_as_it_is(command, table):
    assert doc_block(command) == table(), "run: python scripts/update_authoring_catalog.py"


def test_every_catalog_id_is_listed():
    assert [row["id"] for row in model_rows()] == model_ids()
    assert [row["id"] for row in gpu_rows()] == [gpu["id"] for gpu in gpu_entries()]


def no_longer_served(model_id: str) -> bool:
    """An architecture vLLM dropped (its registry's _PREVIOUSLY_SUPPORTED_MODELS): the calculator
    refuses it at the current release, as vLLM does."""
    return any(arch in PREVIOUSLY_SUPPORTED for arch in load_model(model_id).architectures)


def test_the_only_catalog_model_vllm_no_longer_serves_is_minimax_m1():
    # MiniMaxM1ForCausalLM was served until vLLM 0.23.0 (registry.py _PREVIOUSLY_SUPPORTED_MODELS).
    assert [model_id for model_id in model_ids() if no_longer_served(model_id)] == ["MiniMaxAI/MiniMax-M1"]


@pytest.mark.parametrize("row", model_rows(), ids=lambda row: row["id"])
def test_a_model_row_gives_what_the_card_names_give(row):
    if no_longer_served(row["id"]):
        pytest.skip(f"vLLM {CURRENT_VLLM_VERSION} no longer serves {row['id']}'s architecture")
    result = calculate({"model": row["id"]})  # any other CalcError is a failure
    assert (row["layers"], row["kv_heads"], row["head_size"]) == (
        result["num_layers"], result["num_kv_heads"], result["head_size"])


def test_model_rows_hold_the_figures():
    qwen = next(row for row in model_rows() if row["id"] == "Qwen/Qwen3-8B")
    assert qwen == {"id": "Qwen/Qwen3-8B", "kind": "uniform", "attention": "GQA, 36 full", "layers": 36,
                    "kv_heads": 8, "head_size": 128, "max_length": "40,960"}
    assert next(row for row in model_rows() if row["id"] == "deepseek-ai/DeepSeek-V3")["kind"] == "mla"


@pytest.mark.parametrize("gpu_id", [gpu["id"] for gpu in gpu_entries()])
def test_the_prose_name_is_what_gpu_name_prints(gpu_id):
    inputs = parse_inputs({"kv_bytes_per_token": 1000, "gpu": gpu_id})
    assert gpu_prose_name(gpu_id) == Scenario(inputs, "", None).gpu_name


def test_gpu_rows_hold_memory_and_its_basis():
    spark = next(row for row in gpu_rows() if row["id"] == "DGX-Spark")
    assert spark == {"id": "DGX-Spark", "prose_name": "DGX Spark", "memory": "121.63 GiB", "basis": "cuda",
                     "unified": "yes"}


def test_text_table_pads_columns():
    table = text_table([{"id": "a", "kind": "long kind"}, {"id": "bbbb", "kind": "k"}], MODEL_COLUMNS[:2])
    assert table.splitlines() == ["id    space kind", "a     long kind", "bbbb  k"]
