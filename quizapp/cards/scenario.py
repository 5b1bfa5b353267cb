"""A card's scenario: its inputs, plus a variant, plus the reader's overrides.

A pool the card states in tokens was measured under the card's own model, so when the
reader changes anything, the pool keeps its bytes and its tokens are counted again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from ..calc import BY_NAME, FIELD_NAMES, CalcError, Inputs, Result, calculate, fmt, parse_field, parse_inputs

if TYPE_CHECKING:
    from .card import Card

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


def resolve_scenario(card: Card, variant: int | None, overrides: dict) -> Scenario:
    """The card's scenario with a variant and overrides applied. Raises CalcError on bad input."""
    base = normalised(card.scenario)
    chosen, held = base, []
    if variant is not None:
        chosen, held = apply_changes(base, normalised(card.variants[variant].inputs))
    # Only what differs from the chosen scenario counts as the reader's change (and goes in the URL).
    overrides = {k: v for k, v in normalised(overrides).items() if chosen.get(k) != v}
    merged, reader_held = apply_changes(chosen, overrides)
    inputs = parse_inputs(merged)
    key, result = compute(inputs)
    return Scenario(inputs, key, result, variant, overrides, (reader_held or held))


def apply_changes(scenario: dict, changes: dict) -> tuple[dict, list[str]]:
    """A scenario with some inputs changed, and what was held fixed, in words.

    A pool stated in tokens was measured under the scenario's model and dtype: when anything
    else changes, it keeps its bytes and its tokens are counted again. Changes that size the
    pool themselves replace it. The card pages and a card's calc() both go through here.
    """
    changes = {k: v for k, v in changes.items() if scenario.get(k) != v}
    merged = {**scenario, **changes}
    if not changes:
        return merged, []
    if any(name in changes for name in POOL_KEYS):
        # (A GPU stays: beside a pool in tokens or bytes it only adds vLLM's start check.)
        for name in ("pool_tokens", "kv_cache_memory_bytes"):
            if name not in changes:
                merged.pop(name, None)
        return merged, []
    if "pool_tokens" not in scenario:
        return merged, []
    _, measured = compute(parse_inputs(scenario))
    memory = measured["kv_cache_memory_bytes"]
    merged.pop("pool_tokens")
    merged["kv_cache_memory_bytes"] = memory
    return merged, [f"The pool keeps its {fmt.gib(memory)} ({scenario['pool_tokens']:,} tokens as measured with "
                    f"{scenario.get('model', 'the card model')}); its token count is recomputed."]


def normalised(inputs: dict) -> dict:
    """Inputs parsed to their types, so '8192' from a URL equals 8192 from a card."""
    parsed = {}
    for name, value in inputs.items():
        if name not in BY_NAME or name == "config":
            raise CalcError(f"unknown input {name!r}", name)
        if value is not None and value != "":
            parsed[name] = parse_field(BY_NAME[name], value)
    return parsed
