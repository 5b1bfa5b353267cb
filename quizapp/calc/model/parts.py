"""The weights by part (embeddings, attention, MLP, routed experts, lm_head), and the parameters one
token computes with: what a decode step must read and what it multiplies by.

Per GPU, as vLLM shards them: routed experts over tensor_parallel_size × data_parallel_size
(FusedMoEParallelConfig.make), everything else over tensor_parallel_size, as weights_bytes divides.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..errors import CalcError
from .config import ModelConfig
from .formats import Format
from .tensors import PLAIN, Term, decoder_layers, hidden, num_experts, required_int
from .weights import count_parameters

# The parts a card names, and the count parts (weights.PART_LABELS) each gathers.
PARTS = {
    "embeddings": ("embeddings",),
    "attention": ("attention", "linear_attention"),
    "mlp": ("mlp", "shared_experts"),
    "experts": ("experts",),
    "lm_head": ("lm_head",),
    "other": ("norms", "router"),
}
PART_OF = {count_part: part for part, count_parts in PARTS.items() for count_part in count_parts}


@dataclass(frozen=True)
class Tensors:
    """A set of tensors by what a step does with them: their parameters and bytes, over all GPUs.

    ``matmul`` are the parameters a token multiplies by, by compute kind (linear, expert, plain);
    norms, biases and embedding lookups do no matrix work and are left out of it.
    """

    params: int = 0
    bytes: Fraction = Fraction(0)
    expert_params: int = 0
    expert_bytes: Fraction = Fraction(0)
    matmul: tuple[tuple[str, int], ...] = ()

    def __add__(self, other: "Tensors") -> "Tensors":
        matmul = dict(self.matmul)
        for kind, n in other.matmul:
            matmul[kind] = matmul.get(kind, 0) + n
        return Tensors(self.params + other.params, self.bytes + other.bytes, self.expert_params + other.expert_params,
                       self.expert_bytes + other.expert_bytes, tuple(matmul.items()))

    def times(self, n: int) -> "Tensors":
        return Tensors(self.params * n, self.bytes * n, self.expert_params * n, self.expert_bytes * n,
                       tuple((kind, count * n) for kind, count in self.matmul))


def _matmul_kind(term: Term) -> str | None:
    if term.part in ("norms",) or term.part == "embeddings":
        return None
    if term.kind == PLAIN and term.part not in ("router", "lm_head"):
        return None  # biases, sinks, convolutions, gates' scalars
    return term.kind


def tensors_of(terms, fmt: Format) -> Tensors:
    """The sum of ``terms`` (MTP excluded) in the weight format ``fmt``."""
    total = Tensors()
    for t in terms:
        if t.part == "mtp":
            continue
        size = fmt.per_kind[t.kind] * t.count
        kind = _matmul_kind(t)
        routed = t.part == "experts"
        total = total + Tensors(t.count, size, t.count if routed else 0, size if routed else Fraction(0),
                                ((kind, t.count),) if kind else ())
    return total


def layer_tensors(model: ModelConfig, fmt: Format) -> tuple[tuple[Tensors, ...], tuple[int, ...]]:
    """The decoder layers' distinct tensor sets, and each layer's index into them, in layer order.
    Counted once per model object and format: a model has a few distinct layer shapes at most."""
    key = format_key(fmt)
    cached = model.__dict__.setdefault("_layer_tensors", {})  # a frozen dataclass's own cache slot
    if key not in cached:
        shapes: dict[int, int] = {}
        distinct: list[Tensors] = []
        index = []
        for terms in decoder_layers(model):
            if id(terms) not in shapes:  # decoder_layers hands the same tuple to layers of one shape
                shapes[id(terms)] = len(distinct)
                distinct.append(tensors_of(terms, fmt))
            index.append(shapes[id(terms)])
        cached[key] = (tuple(distinct), tuple(index))
    return cached[key]


def head_tensors(model: ModelConfig, fmt: Format) -> tuple[Tensors, Tensors, Tensors]:
    """(embed_tokens, the final norm, lm_head). A tied lm_head is the embedding matrix: it
    multiplies every token all the same, and a last pipeline stage that is not the first holds a
    copy (vLLM's last rank keeps embed_tokens when tie_word_embeddings)."""
    h, vocab = hidden(model), required_int(model, "vocab_size")
    return (tensors_of([Term("embeddings", "embed_tokens", vocab * h, PLAIN)], fmt),
            tensors_of([Term("norms", "final norm", h, PLAIN)], fmt),
            tensors_of([Term("lm_head", "lm_head", vocab * h, PLAIN)], fmt))


def expert_ranks(model: ModelConfig, tp: int, dp: int) -> int:
    """GPUs that share a model's routed experts: TP × DP for a mixture of experts, else TP."""
    return tp * dp if num_experts(model) else tp


def tied(model: ModelConfig) -> bool:
    return bool(model.get("tie_word_embeddings", False))


def format_key(fmt: Format) -> tuple:
    """What a per-model cache keys a weight format by: its name and its bytes per kind."""
    return fmt.name, tuple(sorted(fmt.per_kind.items()))


def part_bytes(model: ModelConfig, fmt: Format) -> dict[str, tuple[int, Fraction]]:
    """Part -> (parameters, bytes) over all GPUs, the MTP module left out (as weights_bytes leaves it).
    Counted once per model object and format."""
    cached = model.__dict__.setdefault("_part_bytes", {})  # a frozen dataclass's own cache slot
    key = format_key(fmt)
    if key not in cached:
        cached[key] = _part_bytes(model, fmt)
    return cached[key]


def _part_bytes(model: ModelConfig, fmt: Format) -> dict[str, tuple[int, Fraction]]:
    found = {part: (0, Fraction(0)) for part in PARTS}
    for t in count_parameters(model).terms:
        if t.part == "mtp":
            continue
        part = PART_OF[t.part]
        params, size = found[part]
        found[part] = (params + t.count, size + fmt.per_kind[t.kind] * t.count)
    return found


def top_k(model: ModelConfig) -> int:
    """Routed experts each token goes to (num_experts_per_tok); 0 for a dense model."""
    experts = num_experts(model)
    if not experts:
        return 0
    k = required_int(model, "num_experts_per_tok")
    if k > experts:
        raise CalcError(f"num_experts_per_tok {k} is more than the {experts} routed experts",
                        "config.num_experts_per_tok")
    return k


def active_parameters(model: ModelConfig) -> int:
    """Parameters one token computes with, counted as model cards count them (embeddings included):
    every weight but the routed experts, and top-k of those."""
    params = count_parameters(model)
    experts = params.parts.get("experts", 0)
    share = Fraction(top_k(model), num_experts(model)) if experts else Fraction(0)
    return params.total - experts + round(experts * share)


def touched_share(experts: int, k: int, tokens: float) -> float:
    """The expected share of a layer's routed experts that ``tokens`` tokens touch, each routed to k of
    ``experts`` uniformly and independently: 1 − (1 − k/E)^T (k/E at one token, toward 1 for many)."""
    if not experts:
        return 0.0
    return 1.0 - (1.0 - k / experts) ** tokens
