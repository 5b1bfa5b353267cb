"""A card's front matter: the keys it may hold, what each is when left out, and their checks.

``FRONT_MATTER`` and ``ANSWER`` are the one table of keys. The checks read each key's
requirement and default from them, and AUTHORING.md's test holds the document to them.
Each check reports every problem it finds at the line of the key it is about, and goes on with
what is usable, so an author hears of every problem of a card in one run.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass

from ...calc import FIELD_NAMES, VALUES, CalcError, canonical_model_id, did_you_mean, load_gpu, model_ids, unknown_model_error
from ..card import Variant
from ..rubric import LEVEL_NAMES
from ..space import ATTENTION_KINDS, INPUT_GROUPS, NOT_FROM_A_PAGE, ScenarioSpace, default_space, expand_inputs, models_of_kinds
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
    Key("topic", default=None),  # a topics.TOPICS id; required once the card is not a draft (load.filing)
    Key("scenario", required=True),
    Key("variants", default=[]),
    Key("answer", default=None),  # a typed answer is shown back, not checked
    Key("space", default=None),  # None: the models of the scenario's attention kind, the inputs it names
    Key("taught_in", default=[]),
    Key("interview_only", default=False),  # True: only interviewers and authors see the card
    Key("rubric", default=None),  # None: the scale's general meaning of each level
    Key("level", default="beginner"),  # where a new card comes in practice: beginner cards first
    Key("order", default=None),  # within its level, lower first; None: after the numbered ones, by title
    Key("draft", default=False),  # True: only /author/ shows the card (quizapp new writes it)
    Key("replaces", default=[]),  # old ids merged into this card: they redirect here (load.filing)
)
# The levels a card may have, in the order practice brings new cards.
LEVELS = ("beginner", "intermediate", "advanced")
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
    Key("steps", default=[]),  # the values on the way to it, each checked when given
)
FRONT_MATTER_KEYS = tuple(key.name for key in FRONT_MATTER)
ANSWER_KEYS = tuple(key.name for key in ANSWER)
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,79}$")


def default(keys: tuple[Key, ...], name: str):
    """The value a card gets for a key it leaves out (a copy: no two cards share a list)."""
    return copy.deepcopy(next(key.default for key in keys if key.name == name))


def check_listing(source: CardSource) -> dict:
    """What the bank lists a card by: its id, title, roles and tags (a placeholder for each that is
    wrong: the card is reported, not served). Every key must be known and every required key given."""
    front = source.front_matter
    for key in front:
        if key not in FRONT_MATTER_KEYS:
            source.report(source.line_of(key), f"unknown front-matter key {key!r}",
                          did_you_mean(key, FRONT_MATTER_KEYS) or f"keys are {', '.join(FRONT_MATTER_KEYS)}")
    for key in FRONT_MATTER:
        if key.required and key.name not in source.broken_keys and front.get(key.name) in (None, "", []):
            source.report(source.key_lines.get(key.name, 2), f"front matter has no {key.name!r}")
    card_id, title = front.get("id"), front.get("title")
    if card_id not in (None, "") and not (isinstance(card_id, str) and ID_PATTERN.match(card_id)):
        source.report(source.line_of("id"), f"id {card_id!r} must be lowercase letters, digits and dashes")
    if title not in (None, "") and not isinstance(title, str):
        source.report(source.line_of("title"), "title must be text", 'quote it: title: "..."')
    names = {}
    for key in ("roles", "tags"):
        value = front.get(key, default(FRONT_MATTER, key))
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            if key not in source.broken_keys and value is not None:
                source.report(source.line_of(key), f"{key} must be a list of names, e.g. [{key[:-1]} one, two]")
            value = []
        names[key] = list(value)
    return {"id": card_id if isinstance(card_id, str) else "", "title": title.strip() if isinstance(title, str) else "",
            **names}


def check_scenario(source: CardSource) -> dict | None:
    """The card's scenario, or None when it is missing or wrong (each problem reported)."""
    scenario = source.front_matter.get("scenario")
    if scenario is None or "scenario" in source.broken_keys:
        return None
    if not isinstance(scenario, dict):
        source.report(source.line_of("scenario"), "scenario must map calculator inputs to values")
        return None
    ok = _check_input_names(source, scenario, "scenario")
    ok = _check_catalog_ids(source, scenario, "scenario", "") and ok
    return scenario if ok else None


def check_variants(source: CardSource) -> list[Variant]:
    """The variants that are well formed; each problem of the others is reported."""
    # An empty 'variants:' is no variants.
    raw = source.front_matter.get("variants") or default(FRONT_MATTER, "variants")
    if not isinstance(raw, list):
        source.report(source.line_of("variants"), "variants must be a list of named scenarios")
        return []
    variants = []
    for index, item in enumerate(raw):
        prefix = f"variants.{index}"
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            source.report(source.line_of(prefix), "each variant needs a 'name' and the inputs it changes")
            continue
        inputs = {k: v for k, v in item.items() if k != "name"}
        ok = _check_input_names(source, inputs, prefix)
        if ok and _check_catalog_ids(source, inputs, prefix, f"variant {item['name']!r}: "):
            variants.append(Variant(item["name"], inputs, source.line_of(prefix)))
    return variants


def check_taught_in(source: CardSource) -> list[dict]:
    """The taught_in links that are well formed; each problem of the others is reported."""
    raw = source.front_matter.get("taught_in") or default(FRONT_MATTER, "taught_in")
    if not isinstance(raw, list):
        source.report(source.line_of("taught_in"), "taught_in must be a list of {title, link}")
        return []
    links = []
    for index, item in enumerate(raw):
        line = source.line_of(f"taught_in.{index}")
        if not isinstance(item, dict) or not isinstance(item.get("title"), str):
            source.report(line, "each taught_in entry needs a 'title' (and a 'link')")
            continue
        link = item.get("link", "")
        # "/" for a path on this site, but not "//host" or "/\host": browsers read both as another host.
        if link and not re.match(r"^(https?://|/(?![/\\]))", str(link)):
            source.report(line, f"taught_in link {link!r} must start with https://, http:// or a single /",
                          "a link to another site starts with https://")
            continue
        links.append({"title": item["title"], "link": str(link)})
    return links


def check_answer(source: CardSource) -> dict | None:
    """The answer block with its defaults applied, or None when the card has none (or a wrong one:
    each problem is reported)."""
    answer = source.front_matter.get("answer", default(FRONT_MATTER, "answer"))
    if answer is None:
        return None
    with source.collecting():
        return _checked_answer(source, answer)
    return None


def _checked_answer(source: CardSource, answer) -> dict:
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
    return {"value": answer["value"], "tolerance": float(tolerance), "mistakes": mistakes,
            "steps": _checked_steps(source, answer.get("steps") or default(ANSWER, "steps"))}


def _checked_steps(source: CardSource, steps) -> list[list[str]]:
    """The steps, each a list of the values a reader may give for it ("num_blocks" or "pool_tokens")."""
    example = "e.g. steps: [kv_bytes_per_token, [num_blocks, pool_tokens], users_fit]"
    if not isinstance(steps, list):
        raise source.error(source.line_of("answer.steps"), "steps must be a list of calculator values", example)
    checked = []
    for index, step in enumerate(steps):
        names = step if isinstance(step, list) else [step]
        if not names or not all(isinstance(name, str) for name in names):
            raise source.error(source.line_of(f"answer.steps.{index}"), "each step is a calculator value, or a "
                               "list of values a reader may give for it", example)
        for name in names:
            _check_value_name(source, name, f"answer.steps.{index}")
        checked.append(list(names))
    return checked


def check_interview_only(source: CardSource) -> bool:
    value = source.front_matter.get("interview_only", default(FRONT_MATTER, "interview_only"))
    if not isinstance(value, bool):
        raise source.error(source.line_of("interview_only"), "interview_only must be true or false")
    return value


def check_ordering(source: CardSource) -> dict:
    """Where a new card comes in practice and in the bank: its ``level`` and its ``order`` within it."""
    level = source.front_matter.get("level", default(FRONT_MATTER, "level"))
    if level not in LEVELS:
        source.report(source.line_of("level"), f"level must be one of {', '.join(LEVELS)}",
                      did_you_mean(str(level), LEVELS) or "beginner cards come first in practice")
        level = default(FRONT_MATTER, "level")
    order = source.front_matter.get("order", default(FRONT_MATTER, "order"))
    if order is not None and (isinstance(order, bool) or not isinstance(order, int) or abs(order) > 10**6):
        source.report(source.line_of("order"), "order must be a whole number (lower comes first within the level)")
        order = None
    return {"level": level, "order": order}


def check_draft(source: CardSource) -> bool:
    value = source.front_matter.get("draft", default(FRONT_MATTER, "draft"))
    if not isinstance(value, bool):
        source.report(source.line_of("draft"), "draft must be true or false")
        return True  # kept out of the bank until the author says which
    return value


def check_rubric(source: CardSource) -> dict[str, list[str]] | None:
    """The card's rubric: for each level it names, the points a candidate at that level makes."""
    raw = source.front_matter.get("rubric", default(FRONT_MATTER, "rubric"))
    if raw is None:
        return None
    example = "e.g. solid: [names the KV heads as what sets the bytes per token]"
    if not isinstance(raw, dict) or not raw:
        raise source.error(source.line_of("rubric"), f"rubric must map levels ({', '.join(LEVEL_NAMES)}) to "
                           "the points a candidate at that level makes", example)
    rubric = {}
    for name, points in raw.items():
        line = source.line_of(f"rubric.{name}")
        if name not in LEVEL_NAMES:
            raise source.error(line, f"unknown rubric level {name!r}",
                               did_you_mean(str(name), LEVEL_NAMES) or f"levels are {', '.join(LEVEL_NAMES)}")
        points = [points] if isinstance(points, str) else points
        if not isinstance(points, list) or not points or not all(isinstance(p, str) and p.strip() for p in points):
            raise source.error(line, f"rubric.{name} must be a point or a list of points", example)
        rubric[name] = [" ".join(point.split()) for point in points]
    return rubric


def _check_input_names(source: CardSource, inputs: dict, prefix: str) -> bool:
    """Whether every name is a calculator input; each that is not is reported."""
    ok = True
    for name in inputs:
        if name not in FIELD_NAMES or name == "config":
            source.report(source.line_of(f"{prefix}.{name}"), f"unknown calculator input {name!r}",
                          did_you_mean(str(name), FIELD_NAMES) or "see AUTHORING.md for the inputs")
            ok = False
    return ok


# The catalog inputs, how the calculator looks each one up, and where an author finds the ids.
CATALOG_INPUTS = {"model": (canonical_model_id, "quizapp models lists the catalog's models"),
                  "gpu": (load_gpu, "quizapp gpus lists the catalog's GPUs")}


def _check_catalog_ids(source: CardSource, inputs: dict, prefix: str, label: str) -> bool:
    """Whether the model and GPU are catalog ids; each that is not is reported with the closest ids."""
    ok = True
    for name, (look_up, hint) in CATALOG_INPUTS.items():
        if not isinstance(inputs.get(name), str):
            continue
        try:
            look_up(inputs[name])
        except CalcError as error:
            source.report(source.line_of(f"{prefix}.{name}"), f"{label}{error.message}", hint)
            ok = False
    return ok


def _check_value_name(source: CardSource, name, key: str) -> None:
    if name not in VALUES:
        raise source.error(source.line_of(key), f"unknown value {name!r}",
                           did_you_mean(str(name), VALUES) or "see AUTHORING.md for the values")


def check_space(source: CardSource, scenario: dict | None, variants: list[Variant]) -> ScenarioSpace | None:
    """The scenario space: what a reader may change (None without a usable scenario). A wrong key
    is reported and the default taken for it; a variant whose model lies outside is reported."""
    raw = source.front_matter.get("space", default(FRONT_MATTER, "space"))
    if scenario is None:
        return None
    base = default_space(scenario)
    space = base
    if raw is not None and "space" not in source.broken_keys:
        with source.collecting():
            space = _checked_space(source, raw, base)
    for index, variant in enumerate(variants):
        model = variant.inputs.get("model")
        if model in model_ids() and model not in space.models:
            source.report(source.line_of(f"variants.{index}.model"), f"variant {variant.name!r} uses {model}, "
                          f"outside the card's space ({space.describe_models()})",
                          "add it to space.models, or space.attention")
    return space


def _checked_space(source: CardSource, raw, base: ScenarioSpace) -> ScenarioSpace:
    if not isinstance(raw, dict):
        raise source.error(source.line_of("space"), "space must map models/attention, inputs and refusals")
    for key in raw:
        if key not in SPACE_KEYS:
            source.report(source.line_of(f"space.{key}"), f"unknown space key {key!r}",
                          did_you_mean(str(key), SPACE_KEYS) or f"keys are {', '.join(SPACE_KEYS)}")
    models, kinds = base.models, base.kinds
    with source.collecting():
        models, kinds = _space_models(source, raw, base)
    inputs = base.inputs
    with source.collecting():
        inputs = _space_inputs(source, raw, base)
    refusals = False
    with source.collecting():
        refusals = _space_refusals(source, raw)
    return ScenarioSpace(models, inputs, refusals, kinds)


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
                source.report(source.line_of(f"space.models.{index}"), unknown_model_error(model).message,
                              "quizapp models lists the catalog's models")
        return tuple(model for model in models if model in known), ()
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
            source.report(source.line_of(f"space.inputs.{index}"), f"unknown calculator input {name!r}",
                          did_you_mean(name, allowed) or "see AUTHORING.md for the inputs")
    return expand_inputs(name for name in names if name in allowed)


def _space_refusals(source: CardSource, raw: dict) -> bool:
    refusals = raw.get("refusals", default(SPACE, "refusals"))
    if not isinstance(refusals, bool):
        raise source.error(source.line_of("space.refusals"), "space.refusals must be true or false")
    return refusals
