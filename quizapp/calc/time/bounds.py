"""The time stage of ``calculate``: from the scenario's model, weights and GPU, every time bound.

It needs a model (its weights and layers) and a catalog GPU (its spec sheet); without either it
adds nothing. Each bound is added with its arithmetic, and says it is a bound.
"""

from __future__ import annotations

from ...lru import per_object
from ..errors import CalcError
from ..hardware.catalog import load_gpu
from ..hardware.specs import gpu_specs
from ..model.config import kept_model
from ..model.formats import model_format
from ..model.layout import Layout, model_dtype
from ..model.parts import expert_ranks, top_k
from ..model.tensors import num_experts
from ..result import Result
from ..sizing.pipeline import stages
from .all_reduce import all_reduce
from .breakdown import weight_parts
from .decode import decode_values
from .prefill import chunked_values, prefill_values
from .rates import rates_for
from .shape import request_shape
from .speculative import speculative_values
from .work import Work, head_dims, sparse_attention, stage_work


def time_bounds(result: Result, layout: Layout) -> None:
    """The weights by part (with a model), then, with a catalog GPU too, every time bound.

    ``layout`` is the whole model's on one tensor-parallel rank (with pipeline stages, ``result.layout``
    is the stage that sets the pool)."""
    if result.model is None or not weight_parts(result):
        return
    if not result.inputs.gpu:
        return
    work = build_work(result, layout)
    gpu = load_gpu(result.inputs.gpu)
    total = result.get("total_memory_bytes") or gpu["total_memory_bytes"]
    shape = request_shape(result, gpu, total)
    result.time_model = (work, shape)
    step = decode_values(result, work, shape)
    prefill_values(result, work, shape, step)
    all_reduce(result, work, shape, step)
    chunked_values(result, work, shape, gpu, total)
    speculative_values(result, work, shape)


def build_work(result: Result, layout: Layout) -> Work:
    """The scenario's steps on one GPU of each pipeline stage, at the GPU's peaks."""
    inputs = result.inputs
    return _work(result.model, layout, inputs.gpu, inputs.weights_dtype, inputs.tensor_parallel_size,
                 inputs.data_parallel_size, inputs.pipeline_parallel_size, inputs.weights_bytes)


# Kept per model and layout (a kept layout is one object per model, KV dtype and TP): a new pool,
# context or batch of the same model on the same GPU does the same work per step.
@per_object(512, objects=2, keep=kept_model)
def _work(model, layout: Layout, gpu: str, weights_dtype: str, tp: int, dp: int, pp: int, weights_bytes) -> Work:
    specs = gpu_specs(gpu)
    weight_format = model_format(model, weights_dtype)
    rates = rates_for(specs, weight_format, model_dtype(model)[0], layout.kv_dtype)
    experts, k = num_experts(model), top_k(model)
    spread = expert_ranks(model, tp, dp)
    found = stages(model, layout, weights_dtype, pp)
    if model.num_attention_heads % tp:
        raise CalcError(f"{model.num_attention_heads} attention heads do not divide by TP {tp}", "tensor_parallel_size")
    given = weights_bytes or None
    return Work(tuple(stage_work(s, tp, spread, rates, experts, k, given) for s in found), specs.memory_bandwidth.value,
                rates, experts, k, dp if experts else 1, model.num_attention_heads // tp,
                head_dims(model), sparse_attention(model), weight_format.name)
