"""The catalog as an author reads it: each model's id with the figures a card quotes, and the
table layouts the GPU listing (``hardware/listings.py``) shares.

``quizapp models`` prints these tables, and AUTHORING.md holds the same tables in Markdown (a
test compares them), so the ids a card's scenario, variants and space may use are written down
where an author looks.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import fmt
from .attention import attention_kind
from .catalog import load_model, model_entries


@dataclass(frozen=True)
class Column:
    key: str
    heading: str
    code: bool = False  # shown as `code` in Markdown (an id a card writes as it is)


MODEL_COLUMNS = (
    Column("id", "id", code=True),
    Column("kind", "space kind"),
    Column("attention", "attention"),
    Column("layers", "layers"),
    Column("kv_heads", "KV heads"),
    Column("head_size", "head size"),
    Column("max_length", "max length"),
)


def model_rows() -> list[dict]:
    """One row per catalog model: its space kind (``space.attention``), attention layout, and what
    ``num_layers``, ``num_kv_heads``, ``head_size`` and ``max_model_len`` give for it at TP 1."""
    return [{
        "id": entry["id"],
        "kind": attention_kind(load_model(entry["id"])),
        "attention": entry["attention"],
        "layers": entry["kv_cache_layers"],
        "kv_heads": entry["num_key_value_heads"],
        "head_size": entry["head_size"],
        "max_length": fmt.commas(entry["max_position_embeddings"]) if entry["max_position_embeddings"] else "",
    } for entry in model_entries()]


def markdown_table(rows: list[dict], columns: tuple[Column, ...]) -> str:
    lines = ["| " + " | ".join(c.heading for c in columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        cells = [f"`{row[c.key]}`" if c.code else str(row[c.key]) for c in columns]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


def text_table(rows: list[dict], columns: tuple[Column, ...]) -> str:
    """Columns padded to their widest cell, for a terminal."""
    cells = [[c.heading for c in columns]] + [[str(row[c.key]) for c in columns] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in cells)
