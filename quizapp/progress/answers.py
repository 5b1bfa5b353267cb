"""Reading a candidate's typed answer and grading it against a calculator Quantity. Pure: no I/O.

``parse_answer`` reads one number, with its scale and unit, from free text: "about 37 users",
"144KiB", "1.5 million tokens", "2.94x", "thirty-seven users". ``grade_answer`` compares it with
the expected Quantity and with the card's known mistakes, and says why in one sentence.

Which number is read, when the text holds several:

- Digits that are part of a name are skipped: glued to a letter or digit before them ("Qwen3",
  "H100"), joined to one by "-", ".", "/" or "_" ("Qwen3-8B", "Llama-3.1-8B", "v0.3"), followed
  by letters that are no unit ("3rd"), or followed by a glued unit and a joiner ("8B-Instruct").
- Of the numbers left, the last one that carries a unit wins, since candidates work towards their
  answer ("Qwen3-8B takes 144 KiB a token, so 37 users" -> 37 users); else the first one
  ("37, maybe 40" -> 37).
- A bare "B" reads as bytes, so "Llama 3.1 8B fits 37" (no hyphen in the name) reads 8 B.
  Only when the expected value counts parameters does grading read "8.19B" as 8.19 billion.

Precision: each parsed number keeps ``step``, the place value of its last typed digit in the
number's own units ("3.3 GiB" -> 0.1 GiB, "144 KiB" -> 1 KiB, "1.5M" -> 100,000, "37" -> 1). An
answer is right when it agrees with the expected value to within half a step, as long as half a
step is at most 5 % of the value: a quiz about exact arithmetic should not take "3 GiB" for
3.31 GiB or "3" for "2.94x" as right (they are close).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Iterable

from quizapp.calc import Quantity

CLOSE_MARGIN = 0.10      # within 10 % (plus twice the card's tolerance) is "close"
MISTAKE_MARGIN = 0.05    # within 5 % of a mistake's value (or its floor, ceil, round) matches it
MAX_ROUNDING = 0.05      # a rounded answer counts as right only if its rounding is at most 5 %

BYTE_FACTORS = {
    "b": 1, "byte": 1, "bytes": 1,
    "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
    "kilobytes": 10**3, "megabytes": 10**6, "gigabytes": 10**9, "terabytes": 10**12,
    "kibibytes": 2**10, "mebibytes": 2**20, "gibibytes": 2**30, "tebibytes": 2**40,
}
SCALE_FACTORS = {"k": 10**3, "thousand": 10**3, "m": 10**6, "mn": 10**6, "million": 10**6,
                 "bn": 10**9, "billion": 10**9}
# Requests are what the calculator counts as users; "x" is vLLM's concurrency figure.
COUNT_UNITS = {"token": "tokens", "tokens": "tokens", "user": "users", "users": "users",
               "request": "users", "requests": "users", "x": "x", "×": "x"}

SMALL_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}
LARGE_NUMBER_WORDS = {"thousand": 10**3, "million": 10**6, "billion": 10**9}
NUMBER_WORDS = {**SMALL_NUMBER_WORDS, "hundred": 100, **LARGE_NUMBER_WORDS}


def _alternatives(words: Iterable[str]) -> str:
    # Longest first, so "kib" is tried before "kb" and "b".
    return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))


_WORD_END = r"(?![a-z0-9])"
NUMERAL = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+")
UNIT_AFTER_NUMBER = re.compile(
    rf"[ \t]*(?:(?P<bytes>{_alternatives(BYTE_FACTORS)}){_WORD_END}"
    rf"|(?P<scale>{_alternatives(SCALE_FACTORS)}){_WORD_END}"
    rf"(?:[ \t]*(?P<scaled>{_alternatives(COUNT_UNITS)}|bytes|byte){_WORD_END})?"
    rf"|(?P<count>{_alternatives(COUNT_UNITS)}){_WORD_END})",
    re.IGNORECASE,
)
_WORD = _alternatives(NUMBER_WORDS)
# "and" only after a scale word, so "one hundred and five" is one number but "three and four" is two.
NUMBER_PHRASE = re.compile(
    rf"\b(?:{_WORD})\b(?:(?:[ \t-]+|(?:(?<=hundred)|(?<=thousand)|(?<=million)|(?<=billion))"
    rf"[ \t]+and[ \t]+)(?:{_WORD})\b)*",
    re.IGNORECASE,
)
NAME_JOINERS = ("-", ".", "/", "_")


@dataclass(frozen=True)
class ParsedAnswer:
    """The number read from an answer: value in base units (bytes for sizes), unit, and the fragment read."""

    value: float
    unit: str | None          # "B", "tokens", "users", "x", or None when none was typed
    matched: str
    step: float = 1.0         # place value of the last typed digit, in the units of value


@dataclass(frozen=True)
class Grade:
    verdict: str              # "right" | "close" | "wrong" | "unparsed"
    typed: ParsedAnswer | None
    expected_text: str
    derivation: str
    mistake: dict | None      # {"name", "says", "text"} of the mistake the number matches
    message: str


# ---------------------------------------------------------------- reading


def parse_answer(text: str) -> ParsedAnswer | None:
    """The number a candidate typed, or None when there is none (see the module doc for which one)."""
    return _parse(text, billions=False)


def _parse(text: str, billions: bool) -> ParsedAnswer | None:
    text = text or ""
    numerals, taken = _numeral_readings(text, billions)
    readings = sorted(numerals + _word_readings(text, taken, billions))
    if not readings:
        return None
    with_unit = [answer for _, answer in readings if answer.unit is not None]
    return with_unit[-1] if with_unit else readings[0][1]


def _numeral_readings(text: str, billions: bool) -> tuple[list, list[range]]:
    """(start, answer) for each standalone numeral, and the spans of all numerals with their units."""
    readings, taken = [], []
    for match in NUMERAL.finditer(text):
        multiplier, unit, end = _unit_after(text, match.end(), billions)
        taken.append(range(match.start(), end))
        if _part_of_name(text, match.start(), match.end(), end):
            continue
        digits = match.group().replace(",", "")
        decimals = len(digits.partition(".")[2])
        answer = ParsedAnswer(float(digits) * multiplier, unit, text[match.start():end],
                              10.0**-decimals * multiplier)
        readings.append((match.start(), answer))
    return readings, taken


def _word_readings(text: str, taken: list[range], billions: bool) -> list:
    """(start, answer) for each number in words; skips "million" in "1.5 million", read already."""
    readings = []
    for match in NUMBER_PHRASE.finditer(text):
        if any(match.start() in span for span in taken):
            continue
        value, step = _words_value(match.group())
        multiplier, unit, end = _unit_after(text, match.end(), billions)
        answer = ParsedAnswer(float(value * multiplier), unit, text[match.start():end], float(step * multiplier))
        readings.append((match.start(), answer))
    return readings


def _words_value(phrase: str) -> tuple[int, int]:
    """("thirty-seven" -> 37, step 1); ("twenty-four thousand" -> 24000, step 1000)."""
    words = [word for word in re.findall(r"[a-z]+", phrase.lower()) if word != "and"]
    total = current = 0
    for word in words:
        if word == "hundred":
            current = max(current, 1) * 100
        elif word in LARGE_NUMBER_WORDS:
            total += max(current, 1) * LARGE_NUMBER_WORDS[word]
            current = 0
        else:
            current += SMALL_NUMBER_WORDS[word]
    # "twenty-four thousand" is a rounded figure, precise to the thousand.
    return total + current, LARGE_NUMBER_WORDS.get(words[-1], 1)


def _unit_after(text: str, pos: int, billions: bool) -> tuple[float, str | None, int]:
    """(multiplier, unit, end) of the scale and unit written right after a number; end == pos when none."""
    match = UNIT_AFTER_NUMBER.match(text, pos)
    if match is None:
        return 1, None, pos
    if match.group("bytes"):
        word = match.group("bytes").lower()
        if billions and word == "b":
            return 10**9, None, match.end()
        return BYTE_FACTORS[word], "B", match.end()
    if match.group("scale"):
        unit_word = (match.group("scaled") or "").lower()
        unit = "B" if unit_word.startswith("byte") else COUNT_UNITS.get(unit_word)
        return SCALE_FACTORS[match.group("scale").lower()], unit, match.end()
    return 1, COUNT_UNITS[match.group("count").lower()], match.end()


def _part_of_name(text: str, start: int, number_end: int, end: int) -> bool:
    """True for the digits of "Qwen3-8B", "H100", "v0.3", "3rd", "8B-Instruct"."""
    before = text[start - 1] if start else ""
    if before.isalnum() or (before in NAME_JOINERS and start >= 2 and text[start - 2].isalnum()):
        return True
    if end == number_end:
        return text[end:end + 1].isalpha()
    unit_glued = not text[number_end].isspace()
    return unit_glued and text[end:end + 1] in NAME_JOINERS and text[end + 1:end + 2].isalnum()


# ---------------------------------------------------------------- grading


def grade_answer(text: str, expected: Quantity, tolerance: float = 0.0,
                 mistakes: Iterable[tuple[str, Quantity, str]] = ()) -> Grade:
    """Grade a typed answer: right, close, wrong (maybe a known mistake) or unparsed, with one sentence why."""
    target = _number(expected.value)
    if tolerance < 0:
        raise ValueError(f"tolerance must be a fraction >= 0, got {tolerance}")
    typed = _parse(text, billions=expected.unit == "parameters")

    def grade(verdict: str, message: str, mistake: dict | None = None) -> Grade:
        return Grade(verdict, typed, expected.text, expected.derivation, mistake, message)

    if typed is None:
        return grade("unparsed", "No number found: type a number, with its unit if it has one.")
    mistake = _matching_mistake(typed, expected, list(mistakes))
    if not _unit_fits(typed.unit, expected.unit):
        if mistake:
            return grade("wrong", _mistake_message(typed, *mistake), _mistake_record(*mistake))
        return grade("wrong", f"Not quite: the unit in {typed.matched} does not fit "
                              f"{_kind_of(expected.unit)}; it is {_display(expected)}.")
    if _is_right(typed.value, typed.step, target, tolerance):
        return grade("right", f"Right: {_display(expected)}.")
    missing_unit = _unit_that_makes_it_right(typed, expected, tolerance)
    if missing_unit:
        return grade("close", f"Close: {typed.matched} {missing_unit} would be right, but a number "
                              f"without a unit reads as bytes, so give the unit ({_display(expected)}).")
    if mistake:
        return grade("wrong", _mistake_message(typed, *mistake), _mistake_record(*mistake))
    if abs(typed.value - target) <= (CLOSE_MARGIN + 2 * tolerance) * abs(target):
        return grade("close", f"Close: you said {typed.matched}; it is {_display(expected)}.")
    return grade("wrong", f"Not quite: you said {typed.matched}; it is {_display(expected)}.")


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


# Units a typed unit may stand for; concurrency "x" counts users at once, so the two fit each other.
FITTING_UNITS = {"B": {"B"}, "tokens": {"tokens"}, "users": {"users", "x"}, "x": {"x", "users"}}


def _unit_fits(typed_unit: str | None, quantity_unit: str) -> bool:
    return typed_unit is None or typed_unit in FITTING_UNITS.get(quantity_unit, ())


HINT_UNITS = (("KiB", 2**10), ("MiB", 2**20), ("GiB", 2**30), ("TiB", 2**40),
              ("KB", 10**3), ("MB", 10**6), ("GB", 10**9), ("TB", 10**12))


def _unit_that_makes_it_right(typed: ParsedAnswer, expected: Quantity, tolerance: float) -> str | None:
    """For a bare number against a byte count: the unit in which it would be right ("144" -> "KiB")."""
    if typed.unit is not None or expected.unit != "B":
        return None
    target = float(expected.value)
    for name, factor in HINT_UNITS:
        if _is_right(typed.value * factor, typed.step * factor, target, tolerance):
            return name
    return None


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


def _display(quantity: Quantity) -> str:
    """The expected value as the candidate should read it: "37 users", "144 KiB", "2.94x"."""
    if len(quantity.unit) <= 1 or quantity.text.endswith(quantity.unit):
        return quantity.text
    unit = quantity.unit[:-1] if quantity.value == 1 and quantity.unit.endswith("s") else quantity.unit
    return f"{quantity.text} {unit}"


KINDS = {"B": "a size in bytes", "x": "a concurrency (x)", "": "a plain number"}


def _kind_of(unit: str) -> str:
    return KINDS.get(unit, f"a count of {unit}")
