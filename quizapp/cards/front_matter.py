"""A card's front matter: the keys it may hold, what each is when left out, and their checks.

``FRONT_MATTER`` and ``ANSWER`` are the one table of keys. The checks read each key's
requirement and default from them, and AUTHORING.md's test holds the document to them.
Each check raises CardError at the line of the key it is about.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass

from ..calc import FIELD_NAMES, VALUES, CalcError, did_you_mean, model_ids
from .card import Variant
from .space import ATTENTION_KINDS, INPUT_GROUPS, NOT_FROM_A_PAGE, ScenarioSpace, default_space, expand_inputs, \
    models_of_kinds
from .source import CardSource


@dataclass(frozen=True)
class Key:
    """A key an author may write: required, or optional with the value a card gets without it."""

    name: str
    required: bool = False
    default: object = None


FRONT_MATTER = (
    Key("id", required=True),
    Key("title", required=True),
    Key("roles", required=True),
    Key("tags", default=[]),
    Key("scenario", required=True),
    Key("variants", default=[]),
    Key("answer", default=None),  # a typed answer is shown back, not checked
    Key("space", default=None),  # None: the models of the scenario's attention kind, the inputs it names
    Key("taught_in", default=[]),
)
# The keys of the space block.
SPACE = (
    Key("models", default=None),  # None: chosen by attention kind
    Key("attention", default=None),  # None: the kind of the scenario's model
    Key("inputs", default=None),  # None: the inputs the scenario names
    Key("refusals", default=False),
)
SPACE_KEYS = tuple(key.name for key in SPACE)
# The keys of the answer block.
ANSWER = (
    Key("value", required=True),
    Key("tolerance", default=0),
    Key("mistakes", default=[]),
)
FRONT_MATTER_KEYS = tuple(key.name for key in FRONT_MATTER)
ANSWER_KEYS = tuple(key.name for key in ANSWER)
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,79}$")


def default(keys: tuple[Key, ...], name: str):
    """The value a card gets for a key it leaves out (a copy: no two cards share a list)."""
    return copy.deepcopy(next(key.default for key in keys if key.name == name))


def check_listing(source: CardSource) -> dict:
    """What the bank lists a card by: its id, title, roles and tags.

    First every key must be known and every required key given, so this check comes first.
    """
    front = source.front_matter
    for key in front:
        if key not in FRONT_MATTER_KEYS:
            raise source.error(source.line_of(key), f"unknown front-matter key {key!r}",
                               did_you_mean(key, FRONT_MATTER_KEYS) or f"keys are {', '.join(FRONT_MATTER_KEYS)}")
    for key in FRONT_MATTER:
        if key.required and front.get(key.name) in (None, "", []):
            raise source.error(2, f"front matter has no {key.name!r}")
    card_id = front["id"]
    if not isinstance(card_id, str) or not ID_PATTERN.match(card_id):
        raise source.error(source.line_of("id"), f"id {card_id!r} must be lowercase letters, digits and dashes")
    if not isinstance(front["title"], str):
        raise source.error(source.line_of("title"), "title must be text")
    for key in ("roles", "tags"):
        value = front.get(key, default(FRONT_MATTER, key))
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise source.error(source.line_of(key), f"{key} must be a list of names, e.g. [{key[:-1]} one, two]")
    return {"id": card_id, "title": front["title"].strip(), "roles": list(front["roles"]),
            "tags": list(front.get("tags", default(FRONT_MATTER, "tags")))}


def check_scenario(source: CardSource) -> dict:
    scenario = source.front_matter["scenario"]
    if not isinstance(scenario, dict):
        raise source.error(source.line_of("scenario"), "scenario must map calculator inputs to values")
    _check_input_names(source, scenario, "scenario")
    return scenario


def check_variants(source: CardSource) -> list[Variant]:
    # An empty 'variants:' is no variants.
    raw = source.front_matter.get("variants") or default(FRONT_MATTER, "variants")
    if not isinstance(raw, list):
        raise source.error(source.line_of("variants"), "variants must be a list of named scenarios")
    variants = []
    for index, item in enumerate(raw):
        prefix = f"variants.{index}"
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise source.error(source.line_of(prefix), "each variant needs a 'name' and the inputs it changes")
        inputs = {k: v for k, v in item.items() if k != "name"}
        _check_input_names(source, inputs, prefix)
        variants.append(Variant(item["name"], inputs, source.line_of(prefix)))
    return variants


def check_taught_in(source: CardSource) -> list[dict]:
    raw = source.front_matter.get("taught_in") or default(FRONT_MATTER, "taught_in")
    if not isinstance(raw, list):
        raise source.error(source.line_of("taught_in"), "taught_in must be a list of {title, link}")
    links = []
    for index, item in enumerate(raw):
        line = source.line_of(f"taught_in.{index}")
        if not isinstance(item, dict) or not isinstance(item.get("title"), str):
            raise source.error(line, "each taught_in entry needs a 'title' (and a 'link')")
        link = item.get("link", "")
        # "/" for a path on this site, but not "//host" or "/\host": browsers read both as another host.
        if link and not re.match(r"^(https?://|/(?![/\\]))", str(link)):
            raise source.error(line, f"taught_in link {link!r} must start with https://, http:// or a single /",
                               "a link to another site starts with https://")
        links.append({"title": item["title"], "link": str(link)})
    return links


def check_answer(source: CardSource) -> dict | None:
    """The answer block with its defaults applied, or None when the card has none."""
    answer = source.front_matter.get("answer", default(FRONT_MATTER, "answer"))
    if answer is None:
        return None
    if not isinstance(answer, dict) or "value" not in answer:
        raise source.error(source.line_of("answer"), "answer needs 'value': the calculator value that answers it")
    for key in answer:
        if key not in ANSWER_KEYS:
            raise source.error(source.line_of(f"answer.{key}"), f"unknown answer key {key!r}",
                               did_you_mean(str(key), ANSWER_KEYS))
    _check_value_name(source, answer["value"], "answer.value")
    tolerance = answer.get("tolerance", default(ANSWER, "tolerance"))
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or tolerance < 0:
        raise source.error(source.line_of("answer.tolerance"), "tolerance must be a number ≥ 0 (a fraction, "
                           "0.05 = 5%)")
    mistakes = answer.get("mistakes") or default(ANSWER, "mistakes")
    if not isinstance(mistakes, list):
        raise source.error(source.line_of("answer.mistakes"), "mistakes must be a list of {value, says}")
    for index, mistake in enumerate(mistakes):
        prefix = f"answer.mistakes.{index}"
        if not isinstance(mistake, dict) or not isinstance(mistake.get("says"), str) or "value" not in mistake:
            raise source.error(source.line_of(prefix), "each mistake needs 'value' (a calculator value) and 'says' "
                               "(text)")
        _check_value_name(source, mistake["value"], f"{prefix}.value")
    return {"value": answer["value"], "tolerance": float(tolerance), "mistakes": mistakes}


def _check_input_names(source: CardSource, inputs: dict, prefix: str) -> None:
    for name in inputs:
        if name not in FIELD_NAMES or name == "config":
            raise source.error(source.line_of(f"{prefix}.{name}"), f"unknown calculator input {name!r}",
                               did_you_mean(str(name), FIELD_NAMES) or "see AUTHORING.md for the inputs")


def _check_value_name(source: CardSource, name, key: str) -> None:
    if name not in VALUES:
        raise source.error(source.line_of(key), f"unknown value {name!r}",
                           did_you_mean(str(name), VALUES) or "see AUTHORING.md for the values")


def check_space(source: CardSource, scenario: dict, variants: list[Variant]) -> ScenarioSpace:
    """The scenario space: what a reader may change. Variants' models must lie inside it."""
    raw = source.front_matter.get("space", default(FRONT_MATTER, "space"))
    try:
        base = default_space(scenario)
    except CalcError as error:  # the scenario's model is not in the catalog
        raise source.error(source.line_of(f"scenario.{error.field}"), error.message) from None
    if raw is None:
        space = base
    else:
        if not isinstance(raw, dict):
            raise source.error(source.line_of("space"), "space must map models/attention, inputs and refusals")
        for key in raw:
            if key not in SPACE_KEYS:
                raise source.error(source.line_of(f"space.{key}"), f"unknown space key {key!r}",
                                   did_you_mean(str(key), SPACE_KEYS) or f"keys are {', '.join(SPACE_KEYS)}")
        models, kinds = _space_models(source, raw, base)
        space = ScenarioSpace(models, _space_inputs(source, raw, base), _space_refusals(source, raw), kinds)
    known = model_ids()
    for index, variant in enumerate(variants):
        model = variant.inputs.get("model")
        # (an unknown id is reported by the render check, with the catalog's close ids)
        if model in known and model not in space.models:
            raise source.error(source.line_of(f"variants.{index}.model"), f"variant {variant.name!r} uses {model}, outside the card's space "
                               f"({space.describe_models()})", "add it to space.models, or space.attention")
    return space


def _space_models(source: CardSource, raw: dict, base: ScenarioSpace) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if "models" in raw and "attention" in raw:
        raise source.error(source.line_of("space.attention"), "give space.models or space.attention, not both")
    if "models" in raw:
        models = raw["models"]
        if not isinstance(models, list) or not all(isinstance(m, str) for m in models):
            raise source.error(source.line_of("space.models"), "space.models must be a list of catalog model ids")
        known = model_ids()
        for index, model in enumerate(models):
            if model not in known:
                raise source.error(source.line_of(f"space.models.{index}"), f"unknown model {model!r}",
                                   did_you_mean(model, known) or "quizapp models lists the catalog ids")
        return tuple(models), ()
    if "attention" in raw:
        kinds = raw["attention"]
        if isinstance(kinds, str):
            kinds = [kinds]
        if not isinstance(kinds, list) or not kinds or any(k not in ATTENTION_KINDS for k in kinds):
            raise source.error(source.line_of("space.attention"), f"space.attention must list kinds from "
                               f"{', '.join(ATTENTION_KINDS)}")
        return models_of_kinds(kinds), tuple(kinds)
    return base.models, base.kinds


def _space_inputs(source: CardSource, raw: dict, base: ScenarioSpace) -> tuple[str, ...]:
    names = raw.get("inputs")
    if names is None:
        return base.inputs
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise source.error(source.line_of("space.inputs"), "space.inputs must be a list of calculator inputs")
    allowed = [n for n in FIELD_NAMES if n not in NOT_FROM_A_PAGE] + list(INPUT_GROUPS)
    for index, name in enumerate(names):
        if name not in allowed:
            raise source.error(source.line_of(f"space.inputs.{index}"), f"unknown calculator input {name!r}",
                               did_you_mean(name, allowed) or "see AUTHORING.md for the inputs")
    return expand_inputs(names)


def _space_refusals(source: CardSource, raw: dict) -> bool:
    refusals = raw.get("refusals", default(SPACE, "refusals"))
    if not isinstance(refusals, bool):
        raise source.error(source.line_of("space.refusals"), "space.refusals must be true or false")
    return refusals
