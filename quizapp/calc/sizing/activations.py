"""The profile run's activations: the least memory vLLM's start-up forward pass must hold.

Before it sizes the KV pool, vLLM runs the model once on dummy inputs and measures its peak
(``GPUModelRunner.profile_run`` in ``vllm/v1/worker/gpu_model_runner.py``): ``_dummy_run`` with
``max_num_tokens`` (= ``max_num_batched_tokens``) tokens split over ``min(tokens, max_num_seqs)``
dummy requests, then ``_dummy_sampler_run`` on the last token of each request, which computes
their logits (``compute_logits``, all-gathered to the full vocabulary under tensor parallelism)
and samples in float32 (``vllm/v1/sample/sampler.py``). What the profile measures beyond the
weights is the non-KV memory the pool gives up (``Worker.determine_available_memory``).

The calculator cannot predict that peak (kernel workspaces, the allocator, CUDA graphs and NCCL
buffers come on top), so it gives a floor: tensors that must exist at the same moment.

- In a dense layer's MLP, the residual stream (tokens × hidden), the gate_up projection's output
  (tokens × 2 × intermediate ÷ TP) and the activation's output (tokens × intermediate ÷ TP), in
  the model's dtype: the gate_up output is still held while the SwiGLU/GeGLU writes its result.
- In the sampler, the whole batch's hidden states (tokens × hidden, still held by ``profile_run``),
  the logits in the model's dtype and their float32 copy (requests × vocabulary × (2 + 4) bytes).

The profile's activation peak is at least the larger of the two. Dense models only: a
mixture-of-experts layer's fused kernel has workspaces of its own shape.
"""

from __future__ import annotations

from .. import fmt
from ..hardware.catalog import load_gpu
from ..model.layout import model_dtype
from ..model.tensors import num_experts
from ..result import Result
from ..time.shape import max_num_seqs_default
from .memory import batched_tokens_default

FLOAT32 = 4


def profile_activations(result: Result) -> None:
    """Add profile_tokens, profile_requests, profile_mlp_bytes, profile_logits_bytes and
    profile_activation_bytes, for a dense model on a GPU (whose memory sets vLLM's defaults)."""
    model, inputs = result.model, result.inputs
    total = result.get("total_memory_bytes")
    if model is None or total is None or num_experts(model):
        return
    hidden, inner, vocab = model.hidden_size, model.get("intermediate_size"), model.get("vocab_size")
    if not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in (hidden, inner, vocab)):
        return  # a config without one of them (Nemotron's per-block MLPs) has no floor here
    gpu_name = load_gpu(inputs.gpu)["name"] if inputs.gpu else ""
    if inputs.max_num_batched_tokens is not None:
        tokens, tokens_why = inputs.max_num_batched_tokens, "given"
    else:
        tokens, tokens_why = batched_tokens_default(total, gpu_name)
    if inputs.max_num_seqs is not None:
        seqs, seqs_why = inputs.max_num_seqs, "given"
    else:
        seqs, seqs_why = max_num_seqs_default(total, gpu_name, tokens)
    requests = min(tokens, seqs)
    tp = inputs.tensor_parallel_size
    width = 2 if model_dtype(model)[0] in ("bfloat16", "float16") else FLOAT32
    result.add("profile_tokens", tokens, "tokens", fmt.commas(tokens),
               f"the profile run forwards max_num_batched_tokens {tokens:,} tokens ({tokens_why})")
    result.add("profile_requests", requests, "requests", fmt.commas(requests),
               f"min({tokens:,} tokens, max_num_seqs {seqs:,} ({seqs_why})) = {requests:,} dummy requests, one "
               "sampled token each")
    per_rank = inner // tp
    mlp = tokens * (hidden + 3 * per_rank) * width
    result.add("profile_mlp_bytes", mlp, "B", fmt.size(mlp),
               f"{tokens:,} tokens × (residual {hidden:,} + gate_up 2 × {per_rank:,} + activation {per_rank:,}) × "
               f"{width} B = {mlp:,} B = {fmt.size(mlp)}: one MLP's tensors held at once (intermediate "
               f"{inner:,} ÷ TP {tp}), a floor on the profile's activation peak")
    logits = tokens * hidden * width + requests * vocab * (width + FLOAT32)
    result.add("profile_logits_bytes", logits, "B", fmt.size(logits),
               f"hidden states {tokens:,} × {hidden:,} × {width} B + logits {requests:,} requests × {vocab:,} "
               f"vocabulary × ({width} B + {FLOAT32} B float32 copy) = {logits:,} B = {fmt.size(logits)}: the "
               "sampler's tensors held at once, a floor on the profile's activation peak")
    peak = max(mlp, logits)
    result.add("profile_activation_bytes", peak, "B", fmt.size(peak),
               f"max(MLP {fmt.size(mlp)}, sampler {fmt.size(logits)}) = {fmt.size(peak)}: the least activation "
               "memory the start-up profile run holds beyond the weights (kernel workspaces, CUDA graphs and NCCL "
               "buffers come on top; vLLM measures the whole as non-KV memory)")

