"""The GPU catalog as authors read it: `quizapp gpus` and AUTHORING.md list every GPU with its
figures and sources, and the prose name is what a card's gpu_name prints."""

import pytest

from quizapp.calc import gpu_entries, parse_inputs
from quizapp.calc.hardware.listings import GPU_COLUMNS, SOURCE_COLUMNS, gpu_prose_name, gpu_rows, source_rows
from quizapp.calc.model.listings import markdown_table
from quizapp.cards import Scenario

from tests.calc.model.test_listings import doc_block


@pytest.mark.parametrize("command, table", [
    ("quizapp gpus --markdown", lambda: markdown_table(gpu_rows(), GPU_COLUMNS)),
    ("quizapp gpus --sources --markdown", lambda: markdown_table(source_rows(), SOURCE_COLUMNS)),
], ids=["gpus", "sources"])
def test_authoring_md_lists_the_gpus_as_they_are(command, table):
    assert doc_block(command) == table(), "run: python scripts/update_authoring_catalog.py"


def test_every_gpu_is_listed_and_every_source_it_names_is_too():
    assert [row["id"] for row in gpu_rows()] == [gpu["id"] for gpu in gpu_entries()]
    keys = {row["key"] for row in source_rows()}
    for row in gpu_rows():
        assert set(row["sources"].split(", ")) <= keys, row["id"]


@pytest.mark.parametrize("gpu_id", [gpu["id"] for gpu in gpu_entries()])
def test_the_prose_name_is_what_gpu_name_prints(gpu_id):
    inputs = parse_inputs({"kv_bytes_per_token": 1000, "gpu": gpu_id})
    assert gpu_prose_name(gpu_id) == Scenario(inputs, "", None).gpu_name


def test_gpu_rows_hold_memory_its_basis_and_the_dense_figures():
    spark = next(row for row in gpu_rows() if row["id"] == "DGX-Spark")
    # NVIDIA: 273 GB/s; "1 PFLOP FP4 ... using the sparsity feature" = 500 TFLOP/s dense; no BF16 or FP8 published.
    assert spark == {"id": "DGX-Spark", "prose_name": "DGX Spark", "memory": "121.63 GiB", "basis": "cuda",
                     "unified": "yes", "bandwidth": "273 GB/s", "bf16": "—", "fp8": "—", "fp4": "500",
                     "interconnect": "ConnectX-7 200GbE (between Sparks; no NVLink) 25 GB/s",
                     "sources": "spark_blog, spark_page, spark_hw"}
    h100 = next(row for row in gpu_rows() if row["id"] == "H100-80GB-SXM")
    # Hopper whitepaper: BF16 989.4 dense; product page FP8 3,958 with sparsity = 1,979 dense; NVLink 900 GB/s both ways.
    assert (h100["bandwidth"], h100["bf16"], h100["fp8"], h100["interconnect"]) == (
        "3.35 TB/s", "989.4", "1,979", "NVLink 4 (HGX H100, NVSwitch) 450 GB/s")
