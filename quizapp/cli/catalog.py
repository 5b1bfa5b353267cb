"""``quizapp models`` and ``quizapp gpus``: the catalog's ids, as a card names them."""

from __future__ import annotations

import click


@click.command()
@click.option("--markdown", is_flag=True, help="a Markdown table, as AUTHORING.md lists them")
def models(markdown):
    """The catalog's models: the ids a card's scenario, variants and space may use, with the
    figures that size their KV cache (layers, KV heads and head size at TP 1) and the space kind
    (space.attention) each belongs to."""
    from ..calc.model.listings import MODEL_COLUMNS, markdown_table, model_rows, text_table

    click.echo((markdown_table if markdown else text_table)(model_rows(), MODEL_COLUMNS))


@click.command()
@click.option("--markdown", is_flag=True, help="a Markdown table, as AUTHORING.md lists them")
@click.option("--sources", is_flag=True, help="the documents the spec figures were read from, instead")
def gpus(markdown, sources):
    """The catalog's GPUs: the ids a card's gpu input takes, what {{ gpu_name }} prints for each,
    their total memory with where the figure comes from, and the dense spec figures the time
    bounds use (memory bandwidth, BF16, FP8 and FP4 TFLOP/s, the interconnect each way) with the
    sources they were read from (--sources lists those)."""
    from ..calc.hardware.listings import GPU_COLUMNS, SOURCE_COLUMNS, gpu_rows, source_rows
    from ..calc.model.listings import markdown_table, text_table

    rows, columns = (source_rows(), SOURCE_COLUMNS) if sources else (gpu_rows(), GPU_COLUMNS)
    click.echo((markdown_table if markdown else text_table)(rows, columns))
