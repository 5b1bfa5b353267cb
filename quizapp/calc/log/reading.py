"""What a startup log states and implies, as ``read_log`` returns it: plain data.

The steps that find each part are beside this module (``read.py`` composes them): the
settings and pool lines (``read.py``), the KV memory and the bytes-per-token bounds
(``bounds.py``), the catalog model and the calculator inputs (``scenario.py``), the
prediction (``predict.py``). Whatever the log does not state is ``None``, never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from fractions import Fraction
from math import ceil, floor

from ..errors import CalcError
from ..versions import parse_version
from .parse import ParsedLog

MAX_LISTED = 200  # recognised and unrecognised lines listed in the JSON
# The pool figure a log's format (``LogReading.log_format``) cannot state: V1 prints the pool in
# tokens, V0 in blocks. A reading lists it only where the log states it all the same.
NOT_IN_FORMAT = {"V1": "num_gpu_blocks", "V0": "pool_tokens"}


@dataclass(frozen=True)
class Settings:
    """How vLLM was started, as the log states it: named as vLLM names them, None where it does not say."""

    vllm_version: str | None = None
    model: str | None = None
    architecture: str | None = None
    tensor_parallel_size: int | None = None
    pipeline_parallel_size: int | None = None
    max_model_len: int | None = None
    kv_cache_dtype: str | None = None
    dtype: str | None = None
    quantization: str | None = None
    block_size: int | None = None
    gpu_memory_utilization: float | None = None
    max_num_batched_tokens: int | None = None
    async_scheduling: bool | None = None  # None: the log does not set it (vLLM's default applies)
    enable_prefix_caching: bool | None = None
    speculative: dict | None = None
    # Not a setting but the engine the log shows: it prints the V0 engine's memory profile.
    v0_engine: bool = False

    @property
    def version(self) -> tuple[int, int] | None:
        """(major, minor) of the release; None when the log names none, or a source build ("0.1.dev…")."""
        if not self.vllm_version or self.vllm_version.startswith("0.1.dev"):
            return None
        try:
            return parse_version(self.vllm_version)
        except CalcError:
            return None

    @property
    def before_v1(self) -> bool:
        """A release before 0.11, or the V0 engine's memory-profile lines."""
        return (self.version is not None and self.version < (0, 11)) or self.v0_engine

    def to_json(self) -> dict:
        return {name: getattr(self, name) for name in SETTING_NAMES}


SETTING_NAMES = tuple(f.name for f in fields(Settings) if f.name != "v0_engine")  # as to_json writes them


@dataclass(frozen=True)
class Pool:
    """The pool lines, at the smallest worker's figures (vLLM sizes the pool by the smallest)."""

    tokens: int | None = None  # "GPU KV cache size: N tokens"
    max_concurrency_text: str | None = None  # as printed: "2.94x"
    num_gpu_blocks: int | None = None
    request_tokens: int | None = None  # the request length the concurrency line is for
    one_line: bool = False  # pool and concurrency printed on one line: vLLM 0.28 or later

    @property
    def max_concurrency(self) -> float | None:
        return float(self.max_concurrency_text[:-1]) if self.max_concurrency_text else None


@dataclass(frozen=True)
class Memory:
    """The KV cache memory per GPU the log states: exact bytes, or the range a rounded GiB figure allows."""

    low: Fraction
    high: Fraction
    text: str  # as the log states it: "3.31 GiB" or "10,000,000,000 B"
    line: int
    source: str  # the line it was read from

    @property
    def exact(self) -> bool:
        return self.low == self.high

    @property
    def bytes(self) -> int:
        return round((self.low + self.high) / 2)

    def to_json(self) -> dict:
        return {"bytes": self.bytes, "low": ceil(self.low), "high": floor(self.high), "exact": self.exact,
                "text": self.text, "line": self.line, "source": self.source}


@dataclass(frozen=True)
class Evidence:
    """One way the log bounds the KV bytes per token, with its arithmetic."""

    source: str
    low: Fraction
    high: Fraction
    derivation: str

    def to_json(self) -> dict:
        return {"source": self.source, "low": ceil(self.low), "high": floor(self.high),
                "derivation": self.derivation}


@dataclass(frozen=True)
class LogReading:
    """What a log states, what it implies, and the calculator beside it.

    ``implied`` is the bytes-per-token interval (exact fractions) where every ``evidence``
    holds; ``predicted`` the calculator's side; ``continue_inputs`` the scenario as calculator
    inputs; ``to_json()`` all of it as plain JSON, the object the API returns.
    """

    parsed: ParsedLog
    settings: Settings = Settings()
    pool: Pool = Pool()
    memory: Memory | None = None
    memory_profile: dict[str, int] = field(default_factory=dict)  # the log's other memory figures, in bytes
    refusals: list[dict] = field(default_factory=list)  # vLLM's start refusals, with their figures
    lines: dict[str, int] = field(default_factory=dict)  # where each setting and figure was read
    catalog_model: str | None = None
    catalog_match: str = ""  # how the catalog model was found, or why none was
    block_sizes: tuple[int, ...] = ()
    evidence: list[Evidence] = field(default_factory=list)
    implied: tuple[Fraction, Fraction] | None = None
    predicted: dict | None = None
    continue_inputs: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def log_format(self) -> str | None:
        """"V1" for a log in the V1 engine's format (it prints "GPU KV cache size: N tokens", never V0's
        "# GPU blocks: N"), "V0" for the V0 engine's, None where the log does not show which."""
        if self.pool.num_gpu_blocks is not None:
            return "V0"
        if "pool_tokens" in self.parsed.facts:
            return "V1"
        if self.settings.v0_engine or "v0_pool_tokens" in self.parsed.facts:
            return "V0"
        return "V1" if (self.settings.version or (0, 0)) >= (0, 11) else None

    def to_json(self) -> dict:
        implied, memory, pool = self.implied, self.memory, self.pool
        data = self.settings.to_json()
        data.update({
            "pool_tokens": pool.tokens,
            "max_concurrency": pool.max_concurrency,
            "max_concurrency_text": pool.max_concurrency_text,
            "num_gpu_blocks": pool.num_gpu_blocks,
            "log_format": self.log_format,
            "kv_cache_memory_bytes": memory.bytes if memory else None,
            "kv_cache_memory": memory.to_json() if memory else None,
            "memory_profile": self.memory_profile or None,
            "refusals": self.refusals,
            "implied_kv_bytes_per_token": {"low": ceil(implied[0]), "high": floor(implied[1])} if implied else None,
            "implied_from": [e.to_json() for e in self.evidence],
            "catalog_model": self.catalog_model,
            "catalog_match": self.catalog_match,
            "predicted": self.predicted,
            "continue_inputs": self.continue_inputs,
            "notes": self.notes,
            "lines": self.lines,
            "lines_read": self.parsed.lines_total,
            "recognised": [{"line": n, "kind": k} for n, k in self.parsed.recognised[:MAX_LISTED]],
            "unrecognised": [{"line": n, "text": t} for n, t in self.parsed.unrecognised[:MAX_LISTED]],
            "unrecognised_total": len(self.parsed.unrecognised),
        })
        return data
