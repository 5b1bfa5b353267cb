"""A worked answer checked step by step. Pure: no I/O.

A card's ``answer`` may list ``steps``: the calculator values on the way to the answer, in order
(``kv_bytes_per_token``, then ``num_blocks`` or ``pool_tokens``, then ``users_fit``). A step may
name several values, any of which a reader may give ("the pool, in blocks or in tokens"): the
one whose unit the reader typed is checked, the first when no unit is typed. The step that is
the answer's own value is the answer box itself.

Each given step is graded as the answer is (``grading.grade_answer``, the card's tolerance,
no known mistakes), in the reader's scenario; the verdict names the first step that diverges,
what it should be, and the calculator's arithmetic for it.
"""

from __future__ import annotations

from dataclasses import dataclass

from quizapp.calc import Quantity

from .grading import MISTAKE_LABELS, display, grade_answer, unit_label
from .reading import ParsedAnswer, read_number

FIELD_PREFIX = "step-"  # a step's form field: step-<its first value's name>


@dataclass(frozen=True)
class Step:
    """One step of a card's answer, as its box shows it in a scenario."""

    field: str          # the form field: step-kv_bytes_per_token
    names: tuple[str, ...]
    label: str          # "The KV bytes per token"
    unit: str           # "KiB", "blocks or tokens"


def value_label(name: str) -> str:
    """How a sentence names a calculator value: "the KV bytes per token" (grading's table)."""
    return MISTAKE_LABELS.get(name, "the " + name.replace("_", " "))


def boxed_steps(answer: dict | None, values: dict[str, Quantity]) -> list[Step]:
    """The steps that get a box of their own in this scenario: each but the answer's own value,
    with the alternatives the scenario derives."""
    steps = []
    for names in (answer or {}).get("steps", ()):
        derived = tuple(name for name in names if name in values)
        if not derived or answer["value"] in names:
            continue
        units = list(dict.fromkeys(unit_label(values[name]) for name in derived))
        label = " or ".join(value_label(name) for name in derived)
        steps.append(Step(FIELD_PREFIX + names[0], derived, label[:1].upper() + label[1:], " or ".join(units)))
    return steps


def check_steps(answer: dict | None, values: dict[str, Quantity], typed: dict[str, str]) -> list[dict]:
    """Each step the reader gave (``typed`` by field), graded: {"number", "field", "name", "label",
    "typed", "verdict", "message", "expected", "derivation"}, in the card's order. Steps left empty
    are left out."""
    checked = []
    for number, step in enumerate(boxed_steps(answer, values), start=1):
        text = (typed.get(step.field) or "").strip()
        if not text:
            continue
        name = _alternative(step, values, text)
        grade = grade_answer(text, values[name], answer.get("tolerance", 0.0))
        checked.append({"number": number, "field": step.field, "name": name, "label": value_label(name),
                        "typed": text, "verdict": grade.verdict, "message": grade.message,
                        "expected": display(values[name]), "derivation": values[name].derivation})
    return checked


def first_divergence(checked: list[dict]) -> dict | None:
    """The first step that is not right (an unreadable one is not checked, so it does not diverge)."""
    return next((step for step in checked if step["verdict"] in ("close", "wrong", "mistake")), None)


def divergence_text(step: dict) -> str:
    """What the verdict says of the first diverging step: what was typed, what it should be, and the
    calculator's arithmetic for it."""
    return (f"The first step that diverges is step {step['number']}, {step['label']}: you wrote {step['typed']}, "
            f"and it is {step['expected']} ({step['derivation']}).")


def _alternative(step: Step, values: dict[str, Quantity], text: str) -> str:
    """The value of the step the typed unit names ("24,096 tokens": pool_tokens); the first otherwise."""
    reading = read_number(text)
    if isinstance(reading, ParsedAnswer) and reading.unit is not None:
        for name in step.names:
            if values[name].unit == reading.unit:
                return name
    return step.names[0]
