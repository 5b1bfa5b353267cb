"""The GPU catalog as an author reads it: each GPU's id, its memory and spec figures, and their sources.

``quizapp gpus`` prints these tables (``--sources`` the sources), and AUTHORING.md holds the same
tables in Markdown (a test compares them).
"""

from __future__ import annotations

import re

from .. import fmt
from ..model.listings import Column
from .catalog import gpu_entries, gpu_sources, load_gpu

GPU_COLUMNS = (
    Column("id", "id", code=True),
    Column("prose_name", "in prose (gpu_name)"),
    Column("memory", "memory"),
    Column("basis", "memory basis"),
    Column("unified", "unified memory"),
    Column("bandwidth", "memory bandwidth"),
    Column("bf16", "BF16 dense"),
    Column("fp8", "FP8 dense"),
    Column("fp4", "FP4 dense"),
    Column("interconnect", "interconnect (each way)"),
    Column("sources", "sources"),
)
SOURCE_COLUMNS = (
    Column("key", "source", code=True),
    Column("doc", "document"),
    Column("url", "address"),
    Column("read_via", "how it was read"),
    Column("kind", "kind"),
)


def gpu_rows() -> list[dict]:
    """One row per catalog GPU: what ``{{ gpu_name }}`` prints, its total memory and where the figure
    comes from, its dense spec figures (TFLOP/s) and the sources they were read from."""
    return [{
        "id": gpu["id"],
        "prose_name": gpu_prose_name(gpu["id"]),
        "memory": fmt.gib(gpu["total_memory_bytes"]),
        "basis": gpu["memory_basis"],
        "unified": "yes" if gpu.get("unified_memory") else "no",
        **_spec_cells(gpu["specs"]),
    } for gpu in gpu_entries()]


def _spec_cells(specs: dict) -> dict:
    def rate(dtype: str) -> str:
        return fmt.flops(specs[dtype]["value"]).removesuffix(" TFLOP/s") if dtype in specs else "—"

    link = specs["interconnect"]
    return {
        "bandwidth": fmt.bandwidth(specs["memory_bandwidth"]["value"]),
        "bf16": rate("bf16") if "bf16" in specs else (f"{rate('fp16')} (FP16)" if "fp16" in specs else "—"),
        "fp8": rate("fp8"),
        "fp4": rate("fp4"),
        "interconnect": f"{link['kind']} {fmt.bandwidth(link['value'])}",
        "sources": ", ".join(dict.fromkeys(entry["source"] for entry in specs.values())),
    }


def source_rows() -> list[dict]:
    return [{"key": key, **source} for key, source in gpu_sources().items()]


def gpu_prose_name(gpu_id: str) -> str:
    """The GPU as prose names it: 'L4', 'H100 80GB HBM3', 'RTX 4090' (never a catalog id)."""
    return re.sub(r"^NVIDIA |GeForce |\s*\(.*\)$", "", load_gpu(gpu_id)["name"]).strip()
