"""What a startup log's rounded figures allow the KV bytes per token to be.

vLLM prints memory in GiB rounded to 2 decimals and counts its pool in whole blocks, so a
log does not give one bytes-per-token figure but an interval. Each way the log bounds it is
an :class:`Evidence`; the reading's interval is where they all hold. The block size enters
only through what whole blocks may leave over; when the log does not state it, the sizes
its own pool and concurrency figures allow are used (docs/research/vllm-kv.md §3.3, §4).
"""

from __future__ import annotations

from fractions import Fraction
from math import ceil, floor

from ..model.catalog import describe_attention, load_model
from .parse import ParsedLog
from .patterns import Gib
from .reading import Evidence, Memory, Pool, Settings

DEFAULT_BLOCK_SIZE = 16
# Block sizes vLLM's attention backends use when the log does not say (MLA backends: 64 or 128).
POSSIBLE_BLOCK_SIZES = (16, 32, 64, 128)


MEMORY_SOURCES = {  # most exact first
    "arg_kv_cache_memory_bytes": "kv_cache_memory_bytes (the pin, as given)",
    "kv_memory_exact": "Current kv cache memory in use is N bytes",
    "kv_memory_available": "Available KV cache memory",
    "kv_memory_reserved": "reserved X GiB memory for KV Cache as specified by kv_cache_memory_bytes",
    "kv_memory_in_use": "Current kv cache memory in use",
    "kv_memory_v0": "the rest of the memory reserved for KV Cache (V0's memory profile)",
}


def find_memory(parsed: ParsedLog) -> tuple[Memory | None, list[str]]:
    """The KV memory per GPU: the most exact statement, and the smallest worker's (the pool follows it)."""
    notes: list[str] = []
    for key, source in MEMORY_SOURCES.items():
        seen = parsed.all(key)
        if not seen:
            continue
        distinct = {value: line for value, line in reversed(seen)}  # each figure once, at its first line
        value = min(distinct, key=lambda v: v.value if isinstance(v, Gib) else v)
        line = distinct[value]
        if isinstance(value, Gib):
            if len(distinct) > 1:
                notes.append(f"workers logged different KV cache memory ({', '.join(sorted(v.text for v in distinct))}"
                             " GiB); vLLM sizes the pool by the smallest")
            low, high = value.bounds()
            memory = Memory(low, high, f"{value.text} GiB", line, source)
        else:
            memory = Memory(Fraction(value), Fraction(value), f"{value:,} B", line, source)
        if memory.high <= 0:
            notes.append(f"line {line}: no memory is left for the KV cache ({memory.text})")
            return None, notes
        return memory, notes
    return None, notes


def block_sizes(settings: Settings, pool: Pool, catalog_model: str | None) -> tuple[tuple[int, ...], list[str]]:
    """The block sizes the log allows: stated, the ones its own figures fit, or vLLM's defaults; with a note
    saying which when the log does not state it."""
    if settings.block_size:
        return (settings.block_size,), []
    model = load_model(catalog_model) if catalog_model else None
    standard = model is not None and not model.is_mla
    fits: tuple[int, ...] = ()
    length = settings.max_model_len
    if pool.max_concurrency_text and length and (pool.num_gpu_blocks or pool.tokens):
        fits = tuple(bs for bs in POSSIBLE_BLOCK_SIZES if _fits(pool, length, bs))
        if not fits:
            why = (f"{catalog_model} keeps several KV cache groups ({describe_attention(model)})" if model
                   else "a hybrid model, or a formula this reader does not know")
            return POSSIBLE_BLOCK_SIZES, [
                f"the pool and concurrency lines fit no single KV cache group of 16 to 128-token blocks: {why}; the "
                "implied figure is the pool's bytes per logged token, and its bounds allow any of those block sizes"]
    if standard and (not fits or DEFAULT_BLOCK_SIZE in fits):
        return (DEFAULT_BLOCK_SIZE,), []
    if fits:
        sizes = " or ".join(map(str, fits))
        return fits, [f"the log does not state the block size; {sizes} tokens "
                      f"{'is the only size that gives' if len(fits) == 1 else 'are the sizes that give'} "
                      "both its pool and its concurrency"]
    return POSSIBLE_BLOCK_SIZES, ["the log does not state the block size; the bounds allow 16 to 128 tokens per "
                                  "block (16 is vLLM's default; MLA backends use 64 or 128)"]


def _fits(pool: Pool, length: int, block_size: int) -> bool:
    """Whether one KV cache group of this block size gives the log's pool and concurrency together.

    Blocks are logged (V0 and early V1, whose concurrency is tokens ÷ max_model_len), or the
    pool is blocks × block size (up to 0.20) or int(concurrency × max_model_len) (0.22 on),
    with concurrency blocks ÷ blocks per request.
    """
    per_request = -(-length // block_size)
    if pool.num_gpu_blocks:
        blocks = pool.num_gpu_blocks
        return any(f"{c:.2f}x" == pool.max_concurrency_text
                   for c in (blocks / per_request, blocks * block_size / length))
    tokens = pool.tokens
    counts = [tokens // block_size] if tokens % block_size == 0 else []
    near = tokens * per_request // length
    counts += [n for n in range(max(near - 1, 1), near + 3) if int(n / per_request * length) == tokens]
    return any(f"{n / per_request:.2f}x" == pool.max_concurrency_text for n in counts)


def pool_evidence(memory: Memory | None, pool: Pool, settings: Settings, sizes: tuple[int, ...]) -> Evidence | None:
    """Pool bytes ÷ the tokens its blocks hold, widened by the less-than-a-block that whole blocks leave over."""
    if memory is None or not (pool.num_gpu_blocks or pool.tokens):
        return None
    if pool.num_gpu_blocks:
        held = [(bs, Fraction(pool.num_gpu_blocks * bs), Fraction(pool.num_gpu_blocks * bs)) for bs in sizes]
        what = f"{pool.num_gpu_blocks:,} blocks"
    else:
        held = [(bs, *_tokens_held(pool.tokens, settings, bs)) for bs in sizes]
        what = f"{pool.tokens:,} logged tokens"
    low = min(memory.low / (most + bs) for bs, _, most in held)
    high = max(memory.high / least for _, least, _ in held)
    largest = max(sizes)
    least, most = ceil(min(h[1] for h in held)), floor(max(h[2] for h in held))
    # The figure the log printed, once; what its blocks may hold beyond it is said in words.
    beyond = "" if most <= least else (
        f" (vLLM may print int(concurrency × max_model_len), up to {most - least:,} short of the tokens its "
        "blocks hold)")
    return Evidence("pool", low, high, (
        f"{_memory_words(memory)} ÷ {what}{beyond}, and whole blocks leave less than one block ({largest} tokens) "
        f"of memory over, so {_range(low, high)} B per token"))


def _tokens_held(tokens: int, settings: Settings, block_size: int) -> tuple[Fraction, Fraction]:
    """The tokens the pool's blocks hold, from the logged count (docs/research/vllm-kv.md §4.2).

    Up to vLLM 0.20 the log prints blocks × block size; from 0.22 it prints int(concurrency ×
    max_model_len), short of the blocks' tokens by a request's last partial block (and by one
    token of float rounding). A log that does not say which gets the wider bound.
    """
    length, version = settings.max_model_len, settings.version
    old_formula = (version is not None and version < (0, 22)) or settings.before_v1
    if old_formula or not length:
        return Fraction(tokens), Fraction(tokens + (0 if old_formula else 1))
    per_request = -(-length // block_size) * block_size
    return Fraction(tokens), Fraction((tokens + 1) * per_request, length)


def refusal_evidence(refusals: list[dict], sizes: tuple[int, ...]) -> list[Evidence]:
    """"X GiB KV cache is needed" for one request of max_model_len: X ÷ its tokens in whole blocks."""
    found = []
    for refusal in refusals:
        if refusal["kind"] != "one_request_fits":
            continue
        length = refusal["max_model_len"]
        needed = Gib(refusal["needed_text"].removesuffix(" GiB"))
        low_bytes, high_bytes = needed.bounds()
        if length <= 0 or low_bytes <= 0:
            continue  # not figures vLLM prints
        tokens = max(-(-length // bs) * bs for bs in sizes)
        low, high = low_bytes / tokens, high_bytes / length
        found.append(Evidence("refusal", low, high, (
            f"{needed.text} GiB needed (±0.{'0' * needed.decimals}5 GiB as rounded) for one request of {length:,} "
            f"tokens, held in whole blocks ({_range(length, tokens)} tokens): {_range(low, high)} B per token")))
    return found


def implied_interval(evidence: list[Evidence]) -> tuple[Fraction, Fraction] | None:
    """The KV bytes per token every way the log bounds it allows (None if it does not, or they conflict)."""
    if not evidence:
        return None
    low, high = max(e.low for e in evidence), min(e.high for e in evidence)
    return (low, high) if low <= high else None


def _memory_words(memory: Memory) -> str:
    if memory.exact:
        return f"{memory.bytes:,} B"
    return f"{memory.text} ({_range(memory.low, memory.high)} B, as rounded)"


def _range(low: Fraction, high: Fraction) -> str:
    low, high = ceil(low), floor(high)
    return f"{low:,}" if low >= high else f"{low:,} – {high:,}"
