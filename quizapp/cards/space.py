"""A card's scenario space: the models and the inputs a reader may change.

A card's prose is written for a kind of model. "layers × KV heads × head size × 2" is true
for uniform attention and false for MLA, so a card about that formula offers the models of
its own kind and nothing else. Front matter states the space; without it the card offers
the models of its own scenario's attention kind and the inputs its scenario names:

    space:
      attention: [uniform]          # or models: [Qwen/Qwen3-8B, ...]
      inputs: [model, kv_cache_dtype, pool, prompt_tokens, output_tokens]
      refusals: false               # true: the card teaches vLLM's refusals, so it renders them

The page offers only the space, and the values API and query strings refuse the rest with
a 400 naming the field: one rule, ``ScenarioSpace.check``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..calc import ATTENTION_KINDS, FIELD_NAMES, CalcError, attention_kind, load_model, model_ids

# `pool` in a space's inputs lets the reader move the pool between its three rules.
POOL_INPUTS = ("pool_tokens", "kv_cache_memory_bytes", "gpu", "gpu_memory_utilization")
INPUT_GROUPS = {"pool": POOL_INPUTS}
# What a reader may never set from a page or a URL (a whole config.json is for the API).
NOT_FROM_A_PAGE = ("config",)


class Refused(CalcError):
    """The scenario a reader asked for cannot start: vLLM would refuse it (its own words), or it does
    not fit its GPU (the verdict); ``check`` names the start check, and the field is marked."""

    def __init__(self, check: str | None, message: str, field: str):
        super().__init__(message, field)
        self.check = check


@dataclass(frozen=True)
class ScenarioSpace:
    models: tuple[str, ...]  # catalog ids a reader may pick; empty for a measured bytes-per-token card
    inputs: tuple[str, ...]  # inputs a reader may change, in the calculator's order
    refusals: bool = False  # render a scenario vLLM refuses (the card teaches the refusal)
    kinds: tuple[str, ...] = ()  # the attention kinds the models were chosen by, if any
    # Models of those kinds left out because they cannot start in the card's scenario, each with why
    # (load.startable): a reader who asks for one is told why, not that the card is not written for it.
    left_out: tuple[tuple[str, str, str | None], ...] = ()  # (model, why, the start check)
    # Models kept for the variants that name them but that cannot start in the card's own scenario:
    # the panel offers each only in its variant, so no option it shows is a deployment that cannot exist.
    variant_only: tuple[str, ...] = ()

    def allows_input(self, name: str) -> bool:
        return name in self.inputs

    def check(self, overrides: dict) -> None:
        """Refuse a change outside the space, naming the field. ``overrides`` are parsed inputs."""
        for name in overrides:
            if name == "variant":
                continue
            if not self.allows_input(name):
                offered = ", ".join(self.inputs) or "nothing: its numbers are fixed"
                raise CalcError(f"this card does not let you change {name}; it lets you change {offered}", name)
        model = overrides.get("model")
        # An id the catalog does not know is the calculator's to refuse, with its close ids.
        if model is not None and model not in self.models and model in model_ids():
            left = next((entry for entry in self.left_out if entry[0] == model), None)
            if left is not None:
                message = f"{model} cannot start in this card's scenario, so the card does not offer it: {left[1]}"
                if left[2] is None:
                    raise CalcError(message, "model")
                raise Refused(left[2], message, "model")
            raise CalcError(f"this card is not written for {model}: {self.describe_models()}", "model")

    def describe_models(self) -> str:
        if self.kinds:
            names = " or ".join(kind_label(kind) for kind in self.kinds)
            return f"it is written for models with {names} ({len(self.models)} in the catalog)"
        return f"it is written for {', '.join(self.models)}"


def kind_label(kind: str) -> str:
    return ATTENTION_KINDS[kind].split(":")[0]


def models_of_kinds(kinds) -> tuple[str, ...]:
    return tuple(model for model in model_ids() if attention_kind(load_model(model)) in kinds)


def default_space(scenario: dict) -> ScenarioSpace:
    """The models of the scenario's own attention kind and the inputs the scenario names."""
    inputs = tuple(name for name in FIELD_NAMES if name in scenario and name not in NOT_FROM_A_PAGE)
    if scenario.get("model"):
        kind = attention_kind(load_model(scenario["model"]))
        return ScenarioSpace(models_of_kinds((kind,)), inputs, kinds=(kind,))
    return ScenarioSpace((), tuple(name for name in inputs if name != "model"))


def expand_inputs(names) -> tuple[str, ...]:
    """Input names with groups (``pool``) expanded, in the calculator's order."""
    wanted = set()
    for name in names:
        wanted.update(INPUT_GROUPS.get(name, (name,)))
    return tuple(name for name in FIELD_NAMES if name in wanted)
