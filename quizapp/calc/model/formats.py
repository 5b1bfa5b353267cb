"""Weight formats: the bytes one parameter of each tensor kind takes, scales included.

Quantized formats convert the weights of linear layers (mxfp4 only the routed experts');
embeddings, lm_head, norms, biases and routers stay in the model dtype (``tensors.PLAIN``).
Group-wise integer formats carry one fp16 scale per group of weights, and AWQ and GPTQ a
packed zero point beside it (vLLM's AWQ and GPTQ linear methods load ``scales`` and
``qzeros`` for every group; ``g_idx``, one int32 per input row, is under 0.1% and not counted).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..errors import CalcError
from .config import ModelConfig
from .layout import model_dtype
from .tensors import EXPERT_WEIGHT, LINEAR_WEIGHT, PLAIN

BF16 = Fraction(2)
FP8 = Fraction(1)  # per-tensor/per-block scales are < 0.1% and not counted
NVFP4 = Fraction(9, 16)  # 4-bit values + one fp8 scale per 16 values = 4.5 bits
MXFP4 = Fraction(17, 32)  # 4-bit values + one 8-bit (E8M0) scale per 32 values = 4.25 bits
GROUP = 128  # the group size of the int4 checkpoints the named formats stand for

WEIGHTS_DTYPES = ("auto", "bfloat16", "float16", "fp8", "nvfp4", "mxfp4", "awq", "gptq", "int4")
FORMAT_NOTES = {
    "fp8": "fp8 1 B (scales, < 0.1%, not counted)",
    "nvfp4": "nvfp4 0.5625 B = 4-bit values + one fp8 scale per 16 values (4.5 bits)",
    "mxfp4": "mxfp4 0.53125 B = 4-bit values + one 8-bit scale per 32 values (4.25 bits)",
}


@dataclass(frozen=True)
class Format:
    """A weight format: its name, the bytes per parameter of each tensor kind, and those of a
    quantized parameter in words."""

    name: str
    per_kind: dict[str, Fraction]
    note: str = ""  # the quantized bytes in words ("" for an unquantized dtype)

    @property
    def quantized_kind(self) -> str:
        return EXPERT_WEIGHT if self.name == "mxfp4" else LINEAR_WEIGHT


def group_quantized(bits: int, group: int, zeros: bool) -> Fraction:
    """Bytes per weight of a group-wise integer format: the values, then per group an fp16 scale and,
    with zero points, one packed zero of ``bits`` bits (group -1: one scale per output row, none here)."""
    if group <= 0:
        return Fraction(bits, 8)
    return Fraction(bits, 8) + (2 + (Fraction(bits, 8) if zeros else 0)) / group


def _group_note(name: str, bits: int, group: int, zeros: bool, size: Fraction) -> str:
    zero = f" and one {bits}-bit zero" if zeros else ""
    per_group = f"one fp16 scale{zero} per {group} values" if group > 0 else "one scale per output row"
    return f"{name} {float(size):.6g} B = {bits}-bit values + {per_group} ({float(size * 8):.6g} bits)"


def _group_format(name: str, bits: int = 4, group: int = GROUP, zeros: bool = True) -> Format:
    size = group_quantized(bits, group, zeros)
    return Format(name, {LINEAR_WEIGHT: size, EXPERT_WEIGHT: size, PLAIN: BF16}, _group_note(name, bits, group,
                                                                                            zeros, size))


def named_format(name: str) -> Format:
    """A format given by name: a dtype, fp8, nvfp4, mxfp4, or int4 at group 128 (awq and gptq with zeros,
    int4 symmetric as compressed-tensors' W4A16 stores it)."""
    if name in ("bfloat16", "float16"):
        return Format(name, dict.fromkeys((LINEAR_WEIGHT, EXPERT_WEIGHT, PLAIN), BF16))
    if name == "mxfp4":
        return Format(name, {LINEAR_WEIGHT: BF16, EXPERT_WEIGHT: MXFP4, PLAIN: BF16}, FORMAT_NOTES[name])
    if name in ("fp8", "nvfp4"):
        packed = FP8 if name == "fp8" else NVFP4
        return Format(name, {LINEAR_WEIGHT: packed, EXPERT_WEIGHT: packed, PLAIN: BF16}, FORMAT_NOTES[name])
    return _group_format(name, zeros=name != "int4")


def model_format(model: ModelConfig, weights_dtype: str) -> Format:
    """The format of the weights: the one named, or for 'auto' the config's quantization_config's,
    else its torch_dtype."""
    if weights_dtype != "auto":
        return named_format(weights_dtype)
    quant = model.get("quantization_config") or {}
    if not isinstance(quant, dict):
        raise CalcError(f"config field 'quantization_config' must be an object, got {quant!r}",
                        "config.quantization_config")
    method = quant.get("quant_method")
    if method is None:
        return named_format(model_dtype(model)[0])
    if method in ("fp8", "mxfp4"):
        return named_format(method)
    algo = str(quant.get("quant_algo", "")).lower()
    if method == "modelopt" and algo in ("fp8", "nvfp4"):
        return named_format(algo)
    if method in ("awq", "gptq"):
        return _group_format(method, *_group_fields(quant, method))
    # Guessing the model dtype here would overstate an int4/int8 checkpoint several-fold.
    raise CalcError(f"the config's quantization method {method!r} is not one the calculator sizes; "
                    f"pass weights_dtype explicitly", "weights_dtype")


def _group_fields(quant: dict, method: str) -> tuple[int, int, bool]:
    """(bits, group size, zero points) of an AWQ or GPTQ quantization_config, each checked where it is read."""
    bits = quant.get("bits", quant.get("w_bit", 4))
    group = quant.get("group_size", quant.get("q_group_size", GROUP))
    if bits not in (2, 3, 4, 8) or isinstance(bits, bool):
        raise CalcError(f"quantization_config bits must be 2, 3, 4 or 8, got {bits!r}", "config.quantization_config")
    if isinstance(group, bool) or not isinstance(group, int) or not (group == -1 or 1 <= group <= 1 << 20):
        raise CalcError(f"quantization_config group_size must be -1 or a positive whole number, got {group!r}",
                        "config.quantization_config")
    # GPTQ checkpoints store qzeros even when symmetric; AWQ only with zero_point.
    zeros = True if method == "gptq" else bool(quant.get("zero_point", True))
    return bits, group, zeros
