"""Reading the number a candidate typed in a card's answer box. Pure: no I/O.

The reasoning goes in the working box beside the answer box, which is never graded, so the
answer box reads one number and nothing else: an approximation in front, the number, then a
scale and a unit, each optional.

- Digits, with thousands grouped by ",", "_", "'" or a (thin, no-break) space ("147,456",
  "147 456"); a decimal point, or a decimal comma that no group of three follows ("2,94").
- Scientific notation: "1.47e3", "1.47 × 10^3", "1.47·10³".
- Number words: "thirty-seven", "one hundred and five", "twenty-four thousand".
- In front: "~", "≈", "about", "around", "roughly", "approximately", "approx.", "circa", "ca.".
- After it: a scale ("k", "thousand", "M", "million", "bn", "billion") and a unit: bytes ("B",
  "KiB", "KB", "MiB" … "TiB", or in words), "tokens", "users" or "requests", "x" (concurrency),
  "blocks", "layers", "heads", "parameters". A bare "B" is bytes, and billions only when the
  caller reads a parameter count ("8.19B").
- Up to three words between the number and its unit ("37 simultaneous users", "1,506 whole
  blocks"), and what the unit is counted per after it ("144 KiB per token", "144 KiB/token").

Anything else is ``Unreadable``, with its reason: no number at all ("lots"), more than a number
and its unit ("3 is wrong, it is 37", "Qwen3-8B fits 37", "37 apples", "37 users fit"), or a
number too long or too large to check.

Precision: a number keeps ``step``, the place value of its last typed digit in the number's own
units ("3.3 GiB" -> 0.1 GiB, "144 KiB" -> 1 KiB, "1.5M" -> 100,000, "37" -> 1), so grading can
tell a rounded answer from a wrong one.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Iterable

MAX_CHARS = 80           # longer than any number with its unit: words belong in the working box
MAX_VALUE = 1e30         # beyond any figure a card asks for (the largest are byte counts, ~1e13)

BYTE_FACTORS = {
    "b": 1, "byte": 1, "bytes": 1,
    "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
    "kilobytes": 10**3, "megabytes": 10**6, "gigabytes": 10**9, "terabytes": 10**12,
    "kibibytes": 2**10, "mebibytes": 2**20, "gibibytes": 2**30, "tebibytes": 2**40,
}
# Times, in seconds (the calculator's time bounds), and dollars (its cost values): "17.3 ms", "$0.17".
TIME_FACTORS = {"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1, "ms": 1e-3, "millisecond": 1e-3,
                "milliseconds": 1e-3, "µs": 1e-6, "μs": 1e-6, "us": 1e-6, "microsecond": 1e-6, "microseconds": 1e-6}
DOLLAR_WORDS = ("dollar", "dollars", "usd")
SCALE_FACTORS = {"k": 10**3, "thousand": 10**3, "m": 10**6, "mn": 10**6, "million": 10**6,
                 "bn": 10**9, "billion": 10**9}
# Units as the calculator names them. Requests are what it counts as users; "x" is vLLM's
# concurrency figure.
COUNT_UNITS = {"token": "tokens", "tokens": "tokens", "user": "users", "users": "users",
               "request": "users", "requests": "users", "x": "x", "×": "x",
               "block": "blocks", "blocks": "blocks", "layer": "layers", "layers": "layers",
               "head": "heads", "heads": "heads", "parameter": "parameters", "parameters": "parameters",
               "params": "parameters"}

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


APPROXIMATELY = re.compile(r"(?:~|≈|(?:about|around|roughly|approximately|circa)\b|approx\b\.?|ca\.)\s*",
                           re.IGNORECASE)
_GROUP_SEPARATOR = "[,_' \u00a0\u2009\u202f]"
# Every repeat here is delimited (a separator, a point, the end of the digits), so matching is
# linear in the length of the text.
NUMERAL = re.compile(
    r"(?P<sign>[+\-\u2212])?"
    rf"(?P<digits>[0-9]{{1,3}}(?P<sep>{_GROUP_SEPARATOR})[0-9]{{3}}(?:(?P=sep)[0-9]{{3}})*(?![0-9])(?:\.[0-9]+)?"
    r"|[0-9]+,[0-9]{1,2}(?![0-9])|[0-9]+,[0-9]{4,}|[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
    r"(?:[eE](?P<exp>[+\-]?[0-9]{1,3})|[ \t]*[×x*·][ \t]*10[ \t]*(?:\^|\*\*)[ \t]*(?P<exp10>[+\-\u2212]?[0-9]{1,3}))?"
)
_WORD = _alternatives(NUMBER_WORDS)
# "and" only after a scale word, so "one hundred and five" is one number but "three and four" is not.
NUMBER_PHRASE = re.compile(
    rf"(?:{_WORD})\b(?:(?:[ \t-]+|(?:(?<=hundred)|(?<=thousand)|(?<=million)|(?<=billion))"
    rf"[ \t]+and[ \t]+)(?:{_WORD})\b)*",
    re.IGNORECASE,
)
_WORD_END = r"(?![a-z0-9])"
SCALE_AND_UNIT = re.compile(
    rf"[ \t]*(?:(?P<bytes>{_alternatives(BYTE_FACTORS)}){_WORD_END}"
    rf"|(?P<scale>{_alternatives(SCALE_FACTORS)}){_WORD_END}"
    rf"(?:[ \t]*(?P<scaled>{_alternatives(COUNT_UNITS)}|bytes|byte){_WORD_END})?"
    rf"|(?P<count>{_alternatives(COUNT_UNITS)}){_WORD_END}"
    rf"|(?P<time>{_alternatives(TIME_FACTORS)}){_WORD_END}"
    rf"|(?P<dollars>{_alternatives(DOLLAR_WORDS)}){_WORD_END})",
    re.IGNORECASE,
)
# Words between a number and its unit: letters only, never a number word ("three and four users").
_NOT_A_NUMBER_WORD = rf"(?!(?:{_WORD}|and|or|per)\b)"
WORDS_BEFORE_UNIT = re.compile(rf"(?:[ \t]+{_NOT_A_NUMBER_WORD}[a-z][a-z-]*){{1,3}}(?=[ \t])", re.IGNORECASE)
# What the unit is counted per, after it: "per token", "a user", "/token".
PER = re.compile(r"[ \t]*(?:(?:per|a|an|each)[ \t]+|/[ \t]*)(?:token|user|request|block|layer|gpu|rank|sequence)s?",
                 re.IGNORECASE)
SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
ANY_NUMBER = re.compile(rf"[0-9]|\b(?:{_WORD})\b", re.IGNORECASE)


@dataclass(frozen=True)
class ParsedAnswer:
    """The number read from an answer: value in base units (bytes for sizes), unit, and the text read."""

    value: float
    unit: str | None          # "B", "tokens", "users", "x", … or None when none was typed
    matched: str
    step: float = 1.0         # place value of the last typed digit, in the units of value


@dataclass(frozen=True)
class Unreadable:
    """Why no number could be read: "empty", "no_number", "more_than_a_number" or "too_large"."""

    reason: str
    text: str


def read_number(text: str | None, billions: bool = False) -> ParsedAnswer | Unreadable:
    """The one number in an answer box, or why there is none (see the module doc).

    ``billions``: a bare "B" after the number means billions (the answer counts parameters).
    """
    shown = (text or "").strip()
    if not shown:
        return Unreadable("empty", "")
    if len(shown) > MAX_CHARS:
        return Unreadable("more_than_a_number", shown[:MAX_CHARS] + "…")
    # "10³" reads as 10^3; NFKC then turns full-width digits and no-break spaces into plain ones.
    plain = re.sub(r"[⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+", lambda m: "^" + m.group().translate(SUPERSCRIPTS), shown)
    plain = unicodedata.normalize("NFKC", plain).rstrip(". \t")
    start = APPROXIMATELY.match(plain)
    body = plain[start.end():] if start else plain
    dollar = body.startswith("$")
    if dollar:  # "$0.17", "~$0.17": a price
        body = body[1:].lstrip()
    reading = _numeral(body) or _words(body)
    if reading is None:
        return Unreadable("more_than_a_number" if ANY_NUMBER.search(plain) else "no_number", shown)
    value, step, end = reading
    multiplier, unit, end = _scale_and_unit(body, end, billions)
    if unit is None and multiplier == 1:
        multiplier, unit, end = _unit_after_words(body, end, billions)
    if unit is not None and (per := PER.match(body, end)):
        end = per.end()
    if body[end:].strip() or (dollar and unit not in (None, "$")):
        return Unreadable("more_than_a_number", shown)
    if dollar:
        unit = "$"
    value, step = value * multiplier, step * multiplier
    if not math.isfinite(value) or abs(value) > MAX_VALUE:
        return Unreadable("too_large", shown)
    return ParsedAnswer(value, unit, body.strip(), step)


def _numeral(text: str) -> tuple[float, float, int] | None:
    """(value, step, end) of the digits at the start of ``text``."""
    match = NUMERAL.match(text)
    if match is None:
        return None
    digits = match.group("digits")
    if match.group("sep"):
        digits = digits.replace(match.group("sep"), "")
    elif "," in digits:   # no group of three after it: a decimal comma
        digits = digits.replace(",", ".")
    decimals = len(digits.partition(".")[2])
    exponent = int((match.group("exp") or match.group("exp10") or "0").replace("\u2212", "-"))
    sign = -1 if match.group("sign") in ("-", "\u2212") else 1
    try:
        return sign * float(digits) * 10.0**exponent, 10.0 ** (exponent - decimals), match.end()
    except OverflowError:   # "1e999": read_number refuses it as too large
        return math.inf, 1.0, match.end()


def _words(text: str) -> tuple[float, float, int] | None:
    """(value, step, end) of the number in words at the start of ``text``."""
    match = NUMBER_PHRASE.match(text)
    if match is None:
        return None
    value, step = _words_value(match.group())
    return float(value), float(step), match.end()


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


def _unit_after_words(text: str, pos: int, billions: bool) -> tuple[float, str | None, int]:
    """The unit after a few words ("37 simultaneous users"); (1, None, pos) when no unit ends them."""
    words = WORDS_BEFORE_UNIT.match(text, pos)
    if words is None:
        return 1, None, pos
    multiplier, unit, end = _scale_and_unit(text, words.end(), billions)
    return (multiplier, unit, end) if unit is not None else (1, None, pos)


def _scale_and_unit(text: str, pos: int, billions: bool) -> tuple[float, str | None, int]:
    """(multiplier, unit, end) of the scale and unit written right after a number; end == pos when none."""
    match = SCALE_AND_UNIT.match(text, pos)
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
    if match.group("time"):
        return TIME_FACTORS[match.group("time").lower()], "s", match.end()
    if match.group("dollars"):
        return 1, "$", match.end()
    return 1, COUNT_UNITS[match.group("count").lower()], match.end()
