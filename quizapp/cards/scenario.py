"""A card's scenario: its inputs, plus a variant, plus the reader's overrides, inside its space.

The pool is sized by one of three rules (AUTHORING.md, "The pool's three rules"): measured
tokens, a pinned byte count, or a fraction of a GPU. A pool the card states in tokens was
measured under the card's own model, so when the reader changes anything else, the pool
keeps its bytes and its tokens are counted again. A reader may only change what the card's
space allows, and a scenario vLLM would refuse is refused here, beside its field, unless
the card teaches that refusal.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..calc import BY_NAME, CHECK_FIELDS, FIELD_NAMES, FIT_CHECKS, CalcError, Inputs, Result, attention_kind, calculate, fmt, \
    gpu_prose_name, parse_field, parse_inputs
from .caches import COMPUTED, SCENARIOS, scenario_key, scenario_query_key
from .space import Refused
from ..fields import optional_whole_number

if TYPE_CHECKING:
    from .card import Card

POOL_SIZERS = ("pool_tokens", "kv_cache_memory_bytes")
FRACTION_KEYS = ("gpu", "gpu_memory_utilization")
# The pool's rules, by the input that states each.
POOL_RULES = {"tokens": "pool_tokens", "bytes": "kv_cache_memory_bytes", "fraction": "gpu_memory_utilization"}
# Inputs that a cleared field unsets; for the others an empty field means "unchanged".
UNSETTABLE = POOL_SIZERS + FRACTION_KEYS + ("max_model_len", "non_kv_cache_memory_bytes", "free_memory_bytes",
                                            "total_memory_bytes", "weights_bytes", "model", "kv_bytes_per_token",
                                            "max_num_batched_tokens", "max_num_seqs")
# A cleared field on a page unsets these; a page always sends a model, so an empty one is no change.
CLEARABLE = tuple(name for name in UNSETTABLE if name not in ("model", "kv_bytes_per_token"))
DEFAULTS = vars(Inputs())
# Inputs a reader may set from the page or the URL (a whole config.json is for the API).
QUERY_FIELDS = tuple(name for name in FIELD_NAMES if name != "config")


@dataclass
class Scenario:
    inputs: Inputs
    key: str  # canonical JSON of the inputs: the cache key of everything computed from them
    result: Result
    variant: int | None = None
    overrides: dict = field(default_factory=dict)  # the reader's changes; None unsets an input
    held: list[str] = field(default_factory=list)  # what stays fixed, in words
    pool_rule_asked: str | None = None  # ?pool_rule=, kept in the URL
    stated_pool_tokens: int | None = None  # the measured pool in tokens this pool keeps the bytes of
    # Every name, worked out on the first render (a kept scenario renders every piece of its card).
    _names: dict | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def own(self) -> bool:
        """The card's own scenario: no variant, nothing changed."""
        return self.variant is None and not self.overrides

    @property
    def pool_rule(self) -> str | None:
        """Which rule sizes the pool: ``tokens``, ``bytes`` or ``fraction`` (None: no pool).

        A pool measured in tokens that keeps its bytes under another model (``held``) is
        still sized by the measured tokens."""
        inputs = self.inputs
        if inputs.pool_tokens is not None or self.held:
            return "tokens"
        if inputs.kv_cache_memory_bytes is not None:
            return "bytes"
        return "fraction" if inputs.gpu else None

    @property
    def refusal(self) -> dict | None:
        """vLLM's first refusal in this scenario: ``{"check", "message", "field", "plain"}``, or None.
        ``plain`` is what a reader is told first: the fit's verdict and what would make it fit, or
        vLLM's own words when vLLM's are the plain ones."""
        failed = next((c for c in self.result.checks if not c["ok"]), None)
        if failed is None:
            return None
        return {"check": failed["check"], "message": failed["message"], "field": CHECK_FIELDS.get(failed["check"]),
                "plain": fit_sentence(self.result) if failed.get("verdict") else failed["message"]}

    @property
    def gpu_name(self) -> str | None:
        """The GPU as prose names it: 'L4', 'H100 80GB HBM3', 'RTX 4090' (never a catalog id)."""
        return gpu_prose_name(self.inputs.gpu) if self.inputs.gpu else None

    def context(self, wanted: frozenset[str] | None = None) -> dict:
        """The names a card's expressions see: every input, every derived value, and the names
        prose branches on (AUTHORING.md, "Names for prose"); only those ``wanted`` when given (a
        piece's: Jinja copies every name it is given into each render's context)."""
        if self._names is None:
            self._names = self._all_names()
        if wanted is None:
            return dict(self._names)
        return {name: self._names[name] for name in wanted if name in self._names}

    def _all_names(self) -> dict:
        names = {k: v for k, v in vars(self.inputs).items() if v is not None}
        names.pop("config", None)
        names.update({name: q.value for name, q in self.result.values.items()})
        refusal = self.refusal
        fit = self.result.fit
        names.update({
            "fits": None if fit is None else fit.fits,
            "fit_verdict": None if fit is None else fit.verdict,
            "min_tensor_parallel_size": None if fit is None else fit.min_tensor_parallel_size,
            "min_gpu_memory_bytes": None if fit is None else fit.min_gpu_memory_bytes,
            "attention": attention_kind(self.result.model),
            "own_scenario": self.own,
            "gpu_name": self.gpu_name,
            "pool_rule": self.pool_rule,
            "refused": refusal is not None,
            "refusal_check": refusal["check"] if refusal else None,
            "refusal": refusal["message"] if refusal else None,
        })
        return names

    def query(self) -> dict:
        """The query parameters that reproduce this scenario on the card's URL."""
        params = {}
        if self.variant is not None:
            params["variant"] = self.variant
        params.update({k: "" if v is None else v for k, v in self.overrides.items()})
        if self.pool_rule_asked:
            params["pool_rule"] = self.pool_rule_asked
        return params


def compute(inputs: Inputs) -> tuple[str, Result]:
    """The scenario key of the inputs and the calculator's result, computed once per key (from
    the key itself, so the result depends on nothing else)."""
    key = scenario_key(inputs)
    return key, COMPUTED.get_or_make(key, lambda: calculate(json.loads(key)))


def overrides_from_query(args) -> dict:
    """Calculator inputs from a query string (names as the calculator names them).

    A cleared field of an input that can be unset (a pool, a GPU fraction) is None: unset.
    """
    overrides = {}
    for name in QUERY_FIELDS:
        if name not in args:
            continue
        value = str(args[name]).strip()
        if value:
            overrides[name] = args[name]
        elif name in CLEARABLE:
            overrides[name] = None
    return overrides


def scenario_from_query(card: Card, args) -> Scenario:
    """The scenario a card URL's query asks for: ``variant``, ``pool_rule`` and calculator inputs."""
    rule = str(args.get("pool_rule", "")).strip() or None
    return resolve_scenario(card, variant_index(card, str(args.get("variant", ""))), overrides_from_query(args), rule)


def variant_index(card: Card, raw: str) -> int | None:
    """The ?variant= of a card's URL: empty for the card's own scenario, else 0, 1, …"""
    choices = f"from 0 to {len(card.variants) - 1}" if card.variants else "absent: this card has no variants"
    return optional_whole_number(raw.strip(), "variant", 0, len(card.variants) - 1,
                                 message=f"variant must be {choices}", error=CalcError)


def resolve_scenario(card: Card, variant: int | None, overrides: dict, pool_rule: str | None = None) -> Scenario:
    """The card's scenario with a variant and the reader's overrides applied, inside the card's space.

    Raises CalcError on bad input, naming the field: an input the space does not offer, a
    model the card is not written for, and (unless the card teaches it) a scenario that vLLM
    would refuse to start (``Refused``, with vLLM's own message). Resolved once per card text
    and what is asked (``caches.SCENARIOS``); what it refuses is refused every time.
    """
    key = scenario_query_key(card.version, variant, overrides, pool_rule)
    if key is None:
        return _resolve(card, variant, overrides, pool_rule)
    return SCENARIOS.get_or_make(key, lambda: _resolve(card, variant, overrides, pool_rule))


def _resolve(card: Card, variant: int | None, overrides: dict, pool_rule: str | None) -> Scenario:
    base = normalised(card.scenario)
    chosen, held = base, []
    if variant is not None:
        chosen, held = apply_changes(base, normalised(card.variants[variant].inputs))
    # Only what differs from the chosen scenario counts as the reader's change (and goes in the URL).
    changes = {k: v for k, v in normalised(overrides).items() if _differs(chosen, k, v)}
    if card.space is not None:
        card.space.check(changes)
    if pool_rule:
        if card.space is not None and POOL_RULES.get(pool_rule) and not card.space.allows_input(POOL_RULES[pool_rule]):
            raise CalcError("this card does not let you change how its pool is sized", "pool_rule")
        changes = with_pool_rule(chosen, changes, pool_rule,
                                 lambda: compute(parse_inputs(apply_changes(chosen, changes)[0]))[1])
    merged, reader_held = apply_changes(chosen, changes)
    inputs = parse_inputs(merged)
    key, result = compute(inputs)
    stated = changes["pool_tokens"] if "pool_tokens" in changes else chosen.get("pool_tokens")
    scenario = Scenario(inputs, key, result, variant, changes, (reader_held or held), pool_rule, stated)
    refusal = scenario.refusal
    if refusal and changes and not (card.space and card.space.refusals):
        raise Refused(refusal["check"], refusal["plain"], _refusal_field(refusal, changes, card.space))
    return scenario


def fit_sentence(result: Result) -> str:
    """A scenario that does not fit, for a reader: the verdict, what would make it fit, and vLLM's words once."""
    fit = result.fit
    text = fit.verdict[0].upper() + fit.verdict[1:] + ". " + (fit.suggestion() or "")
    return f"{text} vLLM says: \u201c{fit.vllm}\u201d" if fit.vllm else text


def cannot_start(scenario: dict, changes: dict, refusals: bool = False) -> tuple[str, str | None] | None:
    """Why the scenario with ``changes`` applied cannot start, and the start check that says so (None for
    the calculator's own error): the fit's verdict, or, unless ``refusals``, vLLM's refusal. None when it can."""
    try:
        merged, _ = apply_changes(normalised(scenario), normalised(changes))
        _, result = compute(parse_inputs(merged))
    except CalcError as error:
        return error.message, None
    if result.fit is not None and not result.fit.fits:
        return result.fit.verdict, result.fit.check
    failed = next((c for c in result.checks if not c["ok"]), None)
    if failed is not None and not refusals:
        return f"vLLM would refuse to start: {failed['message']}", failed["check"]
    return None


def _differs(scenario: dict, name: str, value) -> bool:
    """Whether ``value`` changes ``name``: an input a scenario leaves out has its default."""
    return scenario.get(name, DEFAULTS.get(name)) != value


def _refusal_field(refusal: dict, changes: dict, space) -> str:
    """The field to show vLLM's refusal beside: the check's own when the reader changed it, or when the
    panel offers it and the reader changed nothing it offers; else the reader's last change."""
    own = refusal["field"]
    if own in changes or not changes:
        return own
    offered = own is not None and (space is None or space.allows_input(own))
    return own if offered and refusal["check"] not in FIT_CHECKS else list(changes)[-1]


def with_pool_rule(chosen: dict, changes: dict, rule: str, in_force: Callable[[], Result]) -> dict:
    """The reader's changes with the pool moved to ``rule`` (the page's "pool sized by" control).

    The rule's own input stays; the other rules' inputs are unset. A rule whose input the
    reader has not given starts from the pool in force, so switching rules keeps the memory.
    """
    if rule not in POOL_RULES:
        raise CalcError(f"pool_rule must be one of {', '.join(POOL_RULES)}", "pool_rule")
    own = POOL_RULES[rule]
    changes = dict(changes)
    for name in POOL_SIZERS + ("gpu_memory_utilization",):
        if name != own:
            # Another rule's field the form still carries is not a change of this pool.
            changes.pop(name, None)
            if name in chosen and name in POOL_SIZERS:
                changes[name] = None
    if rule == "fraction":
        if not (changes.get("gpu") or chosen.get("gpu")):
            raise CalcError("give a GPU for the fraction-of-a-GPU rule", "gpu")
    elif changes.get(own) is None and own not in chosen:
        current = in_force().get(own)
        if current is None:
            raise CalcError(f"give {own} for the {rule} rule", own)
        changes[own] = current
    return changes


def apply_changes(scenario: dict, changes: dict) -> tuple[dict, list[str]]:
    """A scenario with some inputs changed, and what was held fixed, in words.

    A pool stated in tokens was measured under the scenario's model and dtype: when anything
    else changes, it keeps its bytes and its tokens are counted again. A change that sizes the
    pool (tokens, bytes, a GPU or its fraction) replaces it; None unsets an input. The card
    pages, a variant and a card's calc() all go through here.
    """
    unset = [k for k, v in changes.items() if v is None and k in scenario]
    # A pool sizer given again beside a new GPU keeps the pool on its rule ("gpu: B200" with the
    # card's own pin), even though its value does not differ.
    restated = {k for k, v in changes.items() if v is not None and k in POOL_SIZERS}
    changes = {k: v for k, v in changes.items() if v is not None and _differs(scenario, k, v)}
    merged = {k: v for k, v in scenario.items() if k not in unset} | changes
    if not changes and not unset:
        return merged, []
    if any(name in changes for name in POOL_SIZERS + FRACTION_KEYS) or any(name in POOL_SIZERS for name in unset):
        # The change sizes the pool by its own rule. (A GPU stays: beside a pool in tokens
        # or bytes it only adds vLLM's start check.)
        for name in POOL_SIZERS:
            if name not in changes and name not in restated:
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
    """Inputs parsed to their types, so '8192' from a URL equals 8192 from a card. None (or
    an empty value) of an input that can be unset stays None: it unsets it."""
    parsed = {}
    for name, value in inputs.items():
        if name not in BY_NAME or name == "config":
            raise CalcError(f"unknown input {name!r}", name)
        if value is not None and value != "":
            parsed[name] = parse_field(BY_NAME[name], value)
        elif name in UNSETTABLE:
            parsed[name] = None
    return parsed
