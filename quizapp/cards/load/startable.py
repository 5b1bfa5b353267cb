"""The space offers only scenarios that can exist: the models that can start in the card's scenario.

A model whose weights, non-KV memory and pool do not fit the card's GPU (``calc.sizing.fit``), or
that vLLM refuses there, is left out of a space chosen by attention kind (the default, or
``space.attention``); one that an author lists in ``space.models`` is the card's error, naming the
model and why. A card that teaches refusals (``space.refusals``) keeps a model vLLM refuses, but
not one that does not fit: its prose is about vLLM's start checks, not about a model too big for
the GPU. A variant is checked as the author wrote it (``check.renders``).
"""

from __future__ import annotations

from dataclasses import replace

from ..scenario import cannot_start
from ..space import ScenarioSpace
from .source import CardSource


def startable_space(source: CardSource, scenario: dict | None, space: ScenarioSpace | None,
                    variants) -> ScenarioSpace | None:
    """``space`` (``front_matter.check_space``'s) with only the models that can start in ``scenario``;
    each one that ``space.models`` lists and cannot is reported. The models the variants name stay
    (their own scenarios are checked as variants); those that cannot start in ``scenario`` are
    marked ``variant_only``, for the panel to offer in their variant alone."""
    if scenario is None or space is None:
        return space
    raw = source.front_matter.get("space")
    explicit = isinstance(raw, dict) and "models" in raw
    keep = tuple(v.inputs.get("model") for v in variants)
    own = scenario.get("model")
    kept, left_out = [], []
    variant_only = tuple(model for model in dict.fromkeys(keep)
                         if model and model != own and cannot_start(scenario, {"model": model}, space.refusals))
    for index, model in enumerate(space.models):
        found = None if model == own or model in keep else cannot_start(scenario, {"model": model}, space.refusals)
        if found is None:
            kept.append(model)
            continue
        why, check = found
        left_out.append((model, why, check))
        if explicit:
            source.report(source.line_of(f"space.models.{index}"),
                          f"space.models lists {model}, which cannot start in the card's scenario: {why}",
                          "leave it out of space.models, or change the scenario so it fits (a GPU, "
                          "tensor_parallel_size, the pool)")
    return replace(space, models=tuple(kept), left_out=tuple(left_out), variant_only=variant_only)
