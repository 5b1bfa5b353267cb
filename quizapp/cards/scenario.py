"""A card's scenario: its inputs, plus a variant, plus the reader's overrides.

A pool the card states in tokens was measured under the card's own model, so when the
reader changes anything, the pool keeps its bytes and its tokens are counted again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache

from ..calc import FIELD_NAMES, Result, calculate, fmt, parse_inputs
from ..calc.inputs import BY_NAME, Inputs, parse_field

POOL_KEYS = ("pool_tokens", "kv_cache_memory_bytes", "gpu")
# Inputs a reader may set from the page or the URL (a whole config.json is for the API).
QUERY_FIELDS = tuple(name for name in FIELD_NAMES if name != "config")


@dataclass
class Scenario:
    inputs: Inputs
    key: str  # canonical JSON of the inputs: the cache key of everything computed from them
    result: Result
    variant: int | None = None
    overrides: dict = field(default_factory=dict)
    held: list[str] = field(default_factory=list)  # what stays fixed, in words

    def context(self) -> dict:
        """The names a card's expressions see: every input, then every derived value."""
        names = {k: v for k, v in vars(self.inputs).items() if v is not None}
        names.pop("config", None)
        names.update({name: q.value for name, q in self.result.values.items()})
        return names

    def query(self) -> dict:
        """The query parameters that reproduce this scenario on the card's URL."""
        params = {}
        if self.variant is not None:
            params["variant"] = self.variant
        params.update(self.overrides)
        return params


def scenario_key(inputs: Inputs) -> str:
    return json.dumps(inputs.given(), sort_keys=True, default=str)


@lru_cache(maxsize=1024)
def _calculate_cached(key: str) -> Result:
    return calculate(json.loads(key))


def compute(inputs: Inputs) -> tuple[str, Result]:
    key = scenario_key(inputs)
    return key, _calculate_cached(key)


def overrides_from_query(args) -> dict:
    """Calculator inputs from a query string (names as the calculator names them)."""
    return {name: args[name] for name in QUERY_FIELDS if name in args and str(args[name]).strip() != ""}


def resolve_scenario(card, variant: int | None, overrides: dict) -> Scenario:
    """The card's scenario with a variant and overrides applied. Raises CalcError on bad input."""
    base = _normalised(card.scenario)
    chosen = {**base, **_normalised(card.variants[variant].inputs)} if variant is not None else dict(base)
    # Only what differs from the chosen scenario counts as the reader's change (and goes in the URL).
    overrides = {k: v for k, v in _normalised(overrides).items() if chosen.get(k) != v}
    changes = {k: v for k, v in {**chosen, **overrides}.items() if k not in base or base[k] != v}
    merged = {**base, **changes}
    held = []
    if any(name in changes for name in POOL_KEYS):
        # The reader or the variant sized the pool anew: the card's own pool no longer applies.
        # (A GPU stays: with a pool in tokens or bytes it only adds vLLM's start check.)
        for name in ("pool_tokens", "kv_cache_memory_bytes"):
            if name not in changes:
                merged.pop(name, None)
    elif changes and "pool_tokens" in base:
        # The pool was measured in tokens under the card's scenario: keep its memory.
        _, base_result = compute(parse_inputs(base))
        memory = base_result["kv_cache_memory_bytes"]
        merged.pop("pool_tokens")
        merged["kv_cache_memory_bytes"] = memory
        held.append(f"The pool keeps its {fmt.gib(memory)} ({base['pool_tokens']:,} tokens as measured with "
                    f"{base.get('model', 'the card model')}); its token count is recomputed.")
    inputs = parse_inputs(merged)
    key, result = compute(inputs)
    return Scenario(inputs, key, result, variant, dict(overrides), held)


def _normalised(inputs: dict) -> dict:
    """Inputs parsed to their types, so '8192' from a URL equals 8192 from a card."""
    return {name: parse_field(BY_NAME[name], value) for name, value in inputs.items()
            if name in BY_NAME and value is not None and value != ""}
