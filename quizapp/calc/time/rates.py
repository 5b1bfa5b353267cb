"""The dtype each kind of matrix work computes in on a GPU, and the dense peak it runs at there.

A bound must not be beaten, so each kind takes the fastest rate an engine can use for it: FP8
weights multiply in FP8 where the GPU has FP8 tensor cores (Ada, Hopper, Blackwell, CDNA 3),
NVFP4 and MXFP4 weights in FP4 on Blackwell; elsewhere, and for int4 (AWQ, GPTQ: weight-only
kernels that dequantize to 16 bits), in the model dtype. Tensors kept unquantized (lm_head,
routers) and attention compute in the model dtype, attention over an fp8 KV cache in FP8 where
the GPU has it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..hardware.specs import GpuSpecs, Peak
from ..model.formats import Format
from ..model.tensors import EXPERT_WEIGHT, LINEAR_WEIGHT, PLAIN

SIXTEEN_BIT = {"bfloat16": "bf16", "float16": "fp16"}


@dataclass(frozen=True)
class Rates:
    """The peak each kind of matmul runs at: linear layers, routed experts, unquantized tensors, attention."""

    by_kind: dict[str, Peak]
    attention: Peak

    @property
    def linear(self) -> Peak:
        return self.by_kind[LINEAR_WEIGHT]


def _quantized_dtype(fmt: Format, specs: GpuSpecs, plain: str, kind: str) -> str:
    if fmt.name in SIXTEEN_BIT or fmt.per_kind[kind] >= 2:
        return plain
    if fmt.name == "fp8":
        return "fp8" if specs.has_fp8() else plain
    if fmt.name in ("nvfp4", "mxfp4"):
        return "fp4" if specs.has_fp4() else plain
    return plain  # awq, gptq, int4: weight-only kernels


def rates_for(specs: GpuSpecs, fmt: Format, model_dtype: str, kv_dtype: str) -> Rates:
    plain = SIXTEEN_BIT.get(model_dtype, "bf16")
    by_kind = {kind: specs.peak(_quantized_dtype(fmt, specs, plain, kind)) for kind in (LINEAR_WEIGHT, EXPERT_WEIGHT)}
    by_kind[PLAIN] = specs.peak(plain)
    attention = "fp8" if kv_dtype.startswith("fp8") and specs.has_fp8() else plain
    return Rates(by_kind, specs.peak(attention))
