"""Grading the number a candidate typed against a calculator Quantity. Pure: no I/O.

``grade_answer`` reads the answer box (``answer_reading.read_number``), compares the number
with the expected Quantity and with the card's known mistakes, and says why in one sentence.
The verdicts:

- ``right``: the expected value, at the precision typed (see below), or within the card's tolerance;
- ``mistake``: not right, and the value (or its floor, ceiling or rounding) of a known mistake;
- ``close``: within 10 % (plus twice the tolerance), or the right figure before rounding to a
  whole count ("37.65" users when 37 fit);
- ``wrong``: anything else, and any unit that does not fit the answer ("37 GiB" for users);
- ``unreadable``: no number could be read; nothing is graded, and the message says why.

The answer box shows a unit beside it (``unit_label``: "users", "KiB"). A bare number for a
size reads in that unit, or in bytes when that reading is nearer the answer: beside "KiB",
"80" and "81,920" are both 80 KiB.

Precision: an answer is right when it agrees with the expected value to within half the place
value of its last typed digit, as long as that is at most 5 % of the value: a quiz about exact
arithmetic should not take "3 GiB" for 3.31 GiB or "3" for "2.94x" as right (they are close).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Iterable

from quizapp.calc import Quantity

from .reading import BYTE_FACTORS, ParsedAnswer, Unreadable, read_number

CLOSE_MARGIN = 0.10      # within 10 % (plus twice the card's tolerance) is "close"
MISTAKE_MARGIN = 0.05    # within 5 % of a mistake's value (or its floor, ceil, round) matches it
MAX_ROUNDING = 0.05      # a rounded answer counts as right only if its rounding is at most 5 %
VERDICTS = ("right", "close", "wrong", "mistake", "unreadable")
GRADED = ("right", "close", "wrong", "mistake")
WHOLE_UNITS = ("users", "tokens", "blocks", "layers", "heads")  # counted in whole numbers


@dataclass(frozen=True)
class Grade:
    verdict: str              # one of VERDICTS
    typed: ParsedAnswer | None
    expected_text: str
    derivation: str
    mistake: dict | None      # {"name", "says", "text"} of the mistake the number matches
    message: str

    def stored(self) -> dict:
        """What an answer event keeps: the expected value, its arithmetic and the mistake only
        when the answer was graded (an unreadable one says why and nothing else)."""
        if self.verdict not in GRADED:
            return {"verdict": self.verdict, "message": self.message}
        return {"verdict": self.verdict, "message": self.message, "expected": self.expected_text,
                "derivation": self.derivation, "mistake": self.mistake}


def unit_label(quantity: Quantity) -> str:
    """The unit shown beside the answer box: "users", "tokens", "x", "KiB" for a size the card
    states in KiB, "" for a plain number."""
    if quantity.unit == "B":
        unit = quantity.text.split()[-1] if quantity.text.split() else "B"
        return unit if unit.lower() in BYTE_FACTORS else "B"
    return quantity.unit


def grade_answer(text: str, expected: Quantity, tolerance: float = 0.0,
                 mistakes: Iterable[tuple[str, Quantity, str]] = ()) -> Grade:
    """Grade what the answer box holds: right, mistake, close, wrong or unreadable, with one sentence why.

    ``mistakes`` are (calculator value name, its Quantity, what the mistake is).
    """
    target = _number(expected.value)
    if tolerance < 0:
        raise ValueError(f"tolerance must be a fraction >= 0, got {tolerance}")
    reading = read_number(text, billions=expected.unit == "parameters")

    def grade(verdict: str, message: str, mistake: dict | None = None) -> Grade:
        typed = reading if isinstance(reading, ParsedAnswer) else None
        return Grade(verdict, typed, expected.text, expected.derivation, mistake, message)

    if isinstance(reading, Unreadable):
        return grade("unreadable", unreadable_message(reading, unit_label(expected)))
    reading = _in_the_shown_unit(reading, expected)
    mistake = _matching_mistake(reading, expected, list(mistakes))
    if not _unit_fits(reading.unit, expected.unit):
        if mistake:
            return grade("mistake", _mistake_message(reading, *mistake), _mistake_record(*mistake))
        return grade("wrong", f"Not quite: {reading.matched} is {_kind_of(reading.unit)}, and the answer is "
                              f"{_kind_of(expected.unit)}: {display(expected)}.")
    if _is_right(reading.value, reading.step, target, tolerance):
        return grade("right", f"Right: {display(expected)}.")
    if mistake:
        return grade("mistake", _mistake_message(reading, *mistake), _mistake_record(*mistake))
    if _unrounded(reading, expected):
        return grade("close", f"Close: {expected.unit} come in whole numbers; it is {display(expected)}, "
                              f"not {reading.matched}.")
    if abs(reading.value - target) <= (CLOSE_MARGIN + 2 * tolerance) * abs(target):
        return grade("close", f"Close: you said {reading.matched}; it is {display(expected)}.")
    return grade("wrong", f"Not quite: you said {reading.matched}; it is {display(expected)}.")


def grade_card_answer(answer: dict, values: dict[str, Quantity], text: str) -> Grade | None:
    """Grade against a card's ``answer:`` (its value, tolerance and mistakes) in one scenario's
    values; None when that scenario does not derive the value."""
    expected = values.get(answer["value"])
    if expected is None or not _is_number(expected.value):
        return None
    mistakes = [(m["value"], values[m["value"]], m["says"]) for m in answer.get("mistakes", ()) if m["value"] in values]
    return grade_answer(text, expected, answer.get("tolerance", 0.0), mistakes)


UNREADABLE = {
    "empty": "The answer box was empty, so nothing was checked.",
    "no_number": "Nothing was checked: “{text}” is not a number. Type one number{example} in the answer box; "
                 "your reasoning goes in the working box.",
    "more_than_a_number": "Nothing was checked: the answer box reads one number{example} and “{text}” is more "
                          "than that. Put your reasoning in the working box.",
    "too_large": "Nothing was checked: “{text}” is too large a number to check.",
}


def unreadable_message(reading: Unreadable, label: str) -> str:
    """Why nothing was checked, in plain words, with the unit the box shows as an example."""
    example = f", with or without its unit ({label})," if label else ""
    return UNREADABLE[reading.reason].format(text=reading.text, example=example)


def _number(value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"only numeric quantities can be graded, not {value!r}")
    return float(value)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_right(value: float, step: float, target: float, tolerance: float) -> bool:
    """Within the card's tolerance, or equal to the target at the precision the candidate typed."""
    slack = 1e-9 * max(1.0, abs(target))     # float noise, e.g. 3.3 * 2**30
    difference = abs(value - target)
    if difference <= tolerance * abs(target) + slack:
        return True
    half_step = step / 2
    return half_step <= MAX_ROUNDING * abs(target) and difference <= half_step + slack


def _in_the_shown_unit(typed: ParsedAnswer, expected: Quantity) -> ParsedAnswer:
    """A bare number for a size, in the unit shown beside the box or in bytes, whichever is nearer."""
    factor = BYTE_FACTORS.get(unit_label(expected).lower(), 1)
    if typed.unit is not None or expected.unit != "B" or factor == 1:
        return typed
    scaled = replace(typed, value=typed.value * factor, step=typed.step * factor)
    return min((scaled, typed), key=lambda reading: _distance(reading.value, float(expected.value)))


def _distance(value: float, target: float) -> float:
    """How far apart two numbers are as a ratio (1 and 1024 are as far as 1024 and 1)."""
    if value <= 0 or target <= 0:
        return math.inf if value != target else 0.0
    return abs(math.log(value / target))


def _unrounded(typed: ParsedAnswer, expected: Quantity) -> bool:
    """A whole count typed with a fraction that rounds (any way) to it: "37.65" for 37 users."""
    target = float(expected.value)
    return (expected.unit in WHOLE_UNITS and target.is_integer() and not typed.value.is_integer()
            and target in (math.floor(typed.value), math.ceil(typed.value)))


# Units a typed unit may stand for; concurrency "x" counts users at once, so the two fit each other.
FITTING_UNITS = {"B": {"B"}, "tokens": {"tokens"}, "users": {"users", "x"}, "x": {"x", "users"},
                 "blocks": {"blocks"}, "layers": {"layers"}, "heads": {"heads"}, "parameters": {"parameters"},
                 "s": {"s"}, "$": {"$"}}


def _unit_fits(typed_unit: str | None, quantity_unit: str) -> bool:
    return typed_unit is None or typed_unit in FITTING_UNITS.get(quantity_unit, ())


def _matching_mistake(typed: ParsedAnswer, expected: Quantity, mistakes: list) -> tuple | None:
    """The first (name, quantity, says) whose value the typed number reproduces."""
    for name, quantity, says in mistakes:
        if not _is_number(quantity.value):
            continue
        unit_fits = _unit_fits(typed.unit, quantity.unit) or _unit_fits(typed.unit, expected.unit)
        if unit_fits and _reproduces(typed.value, float(quantity.value)):
            return name, quantity, says
    return None


def _reproduces(value: float, mistake_value: float) -> bool:
    near = abs(value - mistake_value) <= MISTAKE_MARGIN * abs(mistake_value)
    return near or value in _roundings(mistake_value).values()


def _roundings(value: float) -> dict[str, int]:
    # Half up, as people round, not Python's half-to-even.
    return {"rounded": math.floor(value + 0.5), "rounded down": math.floor(value), "rounded up": math.ceil(value)}


# How a mistake's name reads in a sentence; other names read with their underscores as spaces.
MISTAKE_LABELS = {
    "max_concurrency": "the startup concurrency",
    "memory_over_weights": "the GPU memory divided by the model size",
    "user_concurrency": "the concurrency at your users' length",
    "pool_tokens": "the pool in tokens",
    "num_blocks": "the number of blocks",
    "tokens_per_user": "the tokens per user",
    "blocks_per_user": "the blocks per user",
    "kv_bytes_per_token": "the KV bytes per token",
    "bytes_per_block": "the bytes per block",
    "kv_cache_memory_bytes": "the KV pool in bytes",
    "weights_bytes": "the weights in bytes",
    "num_parameters": "the parameter count",
    "users_fit": "the users that fit",
    "max_model_len": "the maximum model length",
}


def _mistake_message(typed: ParsedAnswer, name: str, quantity: Quantity, says: str) -> str:
    label = f"{MISTAKE_LABELS.get(name, 'the ' + name.replace('_', ' '))} ({quantity.text})"
    value = float(quantity.value)
    if _is_right(typed.value, typed.step, value, 0.0):   # "2.94x" is 2.94140625 as far as typed
        relation = f"is {label}"
    else:
        how = next((how for how, rounded in _roundings(value).items() if typed.value == rounded), None)
        relation = f"is {label} {how}" if how else f"is near {label}"
    says = says.strip()
    return f"Not quite: {typed.matched} {relation} — {says}{'' if says.endswith('.') else '.'}"


def _mistake_record(name: str, quantity: Quantity, says: str) -> dict:
    return {"name": name, "says": says, "text": quantity.text}


def display(quantity: Quantity) -> str:
    """A value as the candidate should read it: "37 users", "144 KiB", "2.94x"."""
    if len(quantity.unit) <= 1 or quantity.text.endswith(quantity.unit):
        return quantity.text
    unit = quantity.unit[:-1] if quantity.value == 1 and quantity.unit.endswith("s") else quantity.unit
    return f"{quantity.text} {unit}"


KINDS = {"B": "a size in bytes", "x": "a concurrency (x)", "": "a plain number", None: "a plain number"}


def _kind_of(unit: str | None) -> str:
    return KINDS.get(unit, f"a count of {unit}")
