"""A GPU's spec-sheet figures for the time bounds: HBM bandwidth, dense tensor FLOP/s by dtype,
the interconnect per GPU, each with its source (``data/gpus.json`` ``specs``).

Every FLOP/s figure is dense: where the source prints a 2:4-sparsity figure, the catalog holds
half of it (``sparse: true``), and tests/calc/hardware holds each one to its source's figure.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from .. import fmt
from .catalog import gpu_sources, load_gpu

RATE_NAMES = {"bf16": "BF16", "fp16": "FP16", "fp8": "FP8", "fp4": "FP4"}
# Narrower dtypes run at least as fast on every tensor core in the catalog, so a missing rate is
# bounded from above by the next narrower one the source prints (GB10 publishes only FP4).
NARROWER = {"bf16": ("fp16", "fp8", "fp4"), "fp16": ("fp8", "fp4"), "fp8": ("fp4",), "fp4": ()}


@dataclass(frozen=True)
class Figure:
    """One spec-sheet figure: its value (dense, per direction for a link), the source's document and date."""

    value: float
    unit: str
    source: str  # the document, as the catalog's sources name it
    date_read: str
    note: str = ""
    kind: str = ""  # a link's kind (NVLink 4, PCIe Gen5 x16)


@dataclass(frozen=True)
class Peak:
    """The FLOP/s a bound computes in ``dtype`` at, and in words where the figure comes from."""

    dtype: str
    flops: float
    words: str


@dataclass(frozen=True)
class GpuSpecs:
    gpu_id: str
    name: str  # the GPU as a derivation names it
    memory_bandwidth: Figure
    rates: dict[str, Figure]  # dense tensor FLOP/s, by dtype the source publishes
    interconnect: Figure
    compute_capability: str
    platform: str
    pair_link: Figure | None = None  # an NVLink bridge that joins two boards

    def link(self, tensor_parallel_size: int) -> Figure:
        """The link a ring all-reduce over ``tensor_parallel_size`` GPUs moves its data on: a bridge
        joins only pairs, so a larger group crosses the interconnect."""
        return self.pair_link if self.pair_link is not None and tensor_parallel_size == 2 else self.interconnect

    def has_fp8(self) -> bool:
        """FP8 tensor cores: CUDA Ada/Hopper and later (8.9+), and CDNA 3."""
        return self.platform == "rocm" or _capability(self.compute_capability) >= (8, 9)

    def has_fp4(self) -> bool:
        """FP4 tensor cores: Blackwell (10.x datacenter, 12.x RTX and GB10)."""
        return self.platform == "cuda" and _capability(self.compute_capability) >= (10, 0)

    def peak(self, dtype: str) -> Peak:
        """The dense FLOP/s in ``dtype``: the source's, or else the next narrower dtype's, which bounds it."""
        if dtype in self.rates:
            figure = self.rates[dtype]
            return Peak(dtype, figure.value, f"{self.name} dense {RATE_NAMES[dtype]} {fmt.flops(figure.value)} "
                                            f"({figure.source})")
        if dtype == "bf16" and "fp16" in self.rates:  # Turing: no BF16 at all, vLLM runs such models in FP16
            figure = self.rates["fp16"]
            return Peak("fp16", figure.value, f"{self.name} has no BF16: a BF16 model runs in FP16, dense "
                                              f"{fmt.flops(figure.value)} ({figure.source})")
        for narrower in NARROWER[dtype]:
            if narrower in self.rates:
                figure = self.rates[narrower]
                return Peak(dtype, figure.value, f"{self.name} publishes no dense {RATE_NAMES[dtype]} rate: its dense "
                                                f"{RATE_NAMES[narrower]} {fmt.flops(figure.value)} ({figure.source}) "
                                                "bounds it from above, so this compute side is loose")
        raise ValueError(f"{self.gpu_id} has no tensor rate at or below {dtype}")


def _capability(text: str) -> tuple[int, int]:
    major, _, minor = str(text).partition(".")
    return int(major), int(minor or 0)


def _figure(entry: dict, sources: dict) -> Figure:
    source = sources[entry["source"]]
    return Figure(entry["value"], entry["unit"], f"{source['doc']}, read {entry['date_read']}", entry["date_read"],
                  entry.get("note", ""), entry.get("kind", ""))


@cache
def gpu_specs(name: str) -> GpuSpecs:
    """The spec figures of a catalog GPU (by id or alias)."""
    gpu = load_gpu(name)
    specs, sources = gpu["specs"], gpu_sources()
    rates = {dtype: _figure(specs[dtype], sources) for dtype in RATE_NAMES if dtype in specs}
    pair = _figure(specs["pair_link"], sources) if "pair_link" in specs else None
    return GpuSpecs(gpu["id"], gpu["display_name"], _figure(specs["memory_bandwidth"], sources), rates,
                    _figure(specs["interconnect"], sources), gpu["compute_capability"], gpu.get("platform", "cuda"),
                    pair)
