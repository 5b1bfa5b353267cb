"""The model catalog as authors read it: the tables agree with the calculator, and AUTHORING.md holds them
(the GPUs: tests/calc/hardware/test_listings.py)."""

import re

import pytest

from quizapp.calc import CURRENT_VLLM_VERSION, calculate, load_model, model_ids
from quizapp.calc.model.listings import MODEL_COLUMNS, markdown_table, model_rows, text_table
from quizapp.calc.versions import PREVIOUSLY_SUPPORTED
from tests.paths import AUTHORING as DOC


def doc_block(command: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    match = re.search(rf"<!-- begin: {re.escape(command)} -->\n(.*?)<!-- end: {re.escape(command)} -->", text, re.S)
    assert match, f"AUTHORING.md has no block for {command!r}"
    return match[1].rstrip("\n")


def test_authoring_md_lists_the_catalog_as_it_is():
    assert doc_block("quizapp models --markdown") == markdown_table(model_rows(), MODEL_COLUMNS), \
        "run: python scripts/update_authoring_catalog.py"


def test_every_catalog_id_is_listed():
    assert [row["id"] for row in model_rows()] == model_ids()


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


def test_text_table_pads_columns():
    table = text_table([{"id": "a", "kind": "long kind"}, {"id": "bbbb", "kind": "k"}], MODEL_COLUMNS[:2])
    assert table.splitlines() == ["id    space kind", "a     long kind", "bbbb  k"]
