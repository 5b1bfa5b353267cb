"""The tensor-parallel all-reduce: the activations each GPU sends per token, and their time over
the link between the GPUs, named as its own term since engines overlap it with compute differently.

Megatron-style tensor parallelism all-reduces each layer's output twice, after attention and after
the MLP (and once after the vocabulary-parallel embedding), each ``hidden`` values of the model
dtype per token; a ring all-reduce moves 2 × (TP − 1) / TP of a message through each GPU's link
each way (llm-analysis and AIConfigurator count it so). Per-message latency is not a spec-sheet
figure and is left out: at decode it is often the larger part.
"""

from __future__ import annotations

from .. import fmt
from ..hardware.specs import gpu_specs
from ..model.layout import DTYPE_BYTES, model_dtype
from ..result import Result
from .shape import Shape
from .work import Step, Work


def bytes_per_token(result: Result) -> float:
    """Bytes each GPU sends per token in the tensor-parallel all-reduces (0 at TP 1)."""
    model, tp = result.model, result.inputs.tensor_parallel_size
    width = DTYPE_BYTES.get(model_dtype(model)[0], 2)
    return (2 * model.num_layers + 1) * model.hidden_size * width * 2 * (tp - 1) / tp


def prompt_words(result: Result, tokens: int) -> str:
    """The all-reduces of a prompt's activations, in words, for the prefill bounds (nothing at TP 1)."""
    tp = result.inputs.tensor_parallel_size
    if tp == 1:
        return ""
    link = gpu_specs(result.inputs.gpu).link(tp)
    seconds = tokens * bytes_per_token(result) / link.value
    return (f"; the tensor-parallel all-reduces of its {tokens:,} tokens take {fmt.duration(seconds)} more over "
            f"{link.kind} at {fmt.bandwidth(link.value)} each way, not in it (engines overlap them differently)")


def all_reduce(result: Result, work: Work, shape: Shape, step: Step) -> None:
    inputs, model = result.inputs, result.model
    tp = inputs.tensor_parallel_size
    if tp == 1:
        result.add("tp_all_reduce_bytes_per_token", 0, "B", "0 B", "tensor_parallel_size 1: no all-reduce")
        result.add("tp_all_reduce_seconds", 0.0, "s", fmt.duration(0), "tensor_parallel_size 1: no all-reduce")
        return
    width = DTYPE_BYTES.get(model_dtype(model)[0], 2)
    per_token = bytes_per_token(result)
    link = gpu_specs(inputs.gpu).link(tp)
    result.add("tp_all_reduce_bytes_per_token", round(per_token), "B", fmt.kib(round(per_token)),
               f"({model.num_layers} layers × 2 + 1 embedding) all-reduces × {model.hidden_size:,} hidden × {width} B × "
               f"2 × ({tp} − 1) ÷ {tp} (a ring) = {per_token:,.0f} B each GPU sends per token"
               + (", over the pipeline's stages together" if len(work.stages) > 1 else ""))
    seconds = shape.batch * per_token / link.value
    share = seconds / sum(step.seconds)
    result.add("tp_all_reduce_seconds", seconds, "s", fmt.duration(seconds),
               f"{shape.batch:,} sequence{'s' if shape.batch > 1 else ''} × {per_token:,.0f} B at "
               f"{fmt.bandwidth(link.value)} each way: {fmt.duration(seconds)} per decode step, {share:.1%} of "
               f"decode_step_seconds; over {link.kind} ({link.source}); not in decode_step_seconds, since engines overlap "
               "it with compute differently, and its per-message latency is not counted")
