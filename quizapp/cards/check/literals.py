"""The literal-number warning: a number typed into a card that the calculator produces.

Such a number does not follow the reader's scenario, so it should be an expression. A number
warns only when its unit agrees with the value's: the word after it ("37 users", "8 KV heads",
"2.94x") is compared with the Quantity's unit, so "128 GB" of memory is not taken for a head
size of 128. A number that only looks like a calculator value is written
``{{ literal("128 GB") }}``: it prints as it is, and the checker does not read it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..diagnostics import Diagnostic
from ..scenario import resolve_scenario

if TYPE_CHECKING:
    from ..card import Card

EXPRESSION = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)
COMMENT = re.compile(r"<!--.*?-->", re.S)
LITERAL_NUMBER = re.compile(r"(?<![\w.,])\d+(?:,\d{3})*(?:\.\d+)?(?!\w|,\d|\.\d)")
# The words right after a number: "x" and "%" may touch it ("2.94x"), a word follows a space.
WORDS_AFTER = re.compile(r"(%|x\b|[A-Za-z]+)(?:[ \t]+([A-Za-z]+))?")
LEADING_NUMBER = re.compile(r"([\d,]+(?:\.\d+)?)\s*([A-Za-z%]+)?")

# Words that name a unit, by the unit they name. Calculator units are the Quantity's
# ("B", "tokens", "users" …); the rest name units the calculator never gives, so a number
# followed by one of them is some other quantity.
UNIT_WORDS = {
    "B": ("b", "byte", "bytes"),
    "tokens": ("token", "tokens"),
    "blocks": ("block", "blocks"),
    "layers": ("layer", "layers"),
    "heads": ("head", "heads"),
    "users": ("user", "users", "request", "requests", "people", "seat", "seats", "sequence", "sequences",
              "conversation", "conversations", "chat", "chats"),
    "parameters": ("parameter", "parameters", "params"),
    "x": ("x",),
    "%": ("%", "percent"),
    "KiB": ("kib",), "MiB": ("mib",), "GiB": ("gib",), "TiB": ("tib",),
    "kB": ("kb",), "MB": ("mb",), "GB": ("gb",), "TB": ("tb",),
    "GPUs": ("gpu", "gpus", "rank", "ranks"),
    "scale": ("k", "m", "thousand", "million", "millions", "billion", "billions"),
    "time": ("s", "ms", "second", "seconds", "minute", "minutes", "hour", "hours"),
    # The time bounds' rates: named, so that their numbers are not taken for a count before any word.
    "tokens/s": ("tokens/s", "tok/s"), "B/s": ("b/s",), "FLOP/s": ("flop/s", "tflop/s"), "FLOP": ("flop", "flops"),
}
UNIT_OF_WORD = {word: unit for unit, words in UNIT_WORDS.items() for word in words}


def unit_of(word: str | None) -> str | None:
    """The unit a word names ("GB", "users" for "requests"), or None for a word that names no unit."""
    return UNIT_OF_WORD.get(word.lower()) if word else None


def agrees(unit: str, words: tuple[str | None, ...]) -> bool:
    """Whether a number followed by ``words`` may be a value of ``unit`` (a Quantity's unit, "" for
    a plain number such as a head size)."""
    units = [unit_of(word) for word in words if word]
    if unit and unit_of(unit) in units:
        return True  # "37 users", "8 KV heads"
    if units and units[0] is not None:
        return False  # another unit: "128 GB" of memory, "4 GPUs"
    return unit == "" or not units  # a bare number, or a plain number before an ordinary word


def known_values(card: Card) -> dict[float, list[tuple[str, str]]]:
    """The numbers the calculator produces for the card's own scenario: number -> [(value name, unit)].

    Each value counts as its number in its unit and as the number its text leads with in the
    text's unit ("144 KiB", "2.94x"). Numbers below 3 are too common in prose to warn about.
    """
    scenario = resolve_scenario(card, None, {})
    known: dict[float, list[tuple[str, str]]] = {}
    for name, quantity in scenario.result.values.items():
        candidates = [(quantity.value, quantity.unit)]
        leading = LEADING_NUMBER.match(quantity.text or "")
        if leading:
            candidates.append((float(leading[1].replace(",", "")), leading[2] or quantity.unit))
        for number, unit in candidates:
            if isinstance(number, (int, float)) and not isinstance(number, bool) and number >= 3:
                known.setdefault(float(number), []).append((name, unit))
    return known


def literal_number_warnings(card: Card) -> list[Diagnostic]:
    """A warning for each number typed into a piece that the calculator produces, in the same unit."""
    known = known_values(card)
    warnings = []
    for piece in card.pieces.values():
        text = COMMENT.sub(lambda m: "\n" * m[0].count("\n"), piece.source)
        for offset, line in enumerate(text.splitlines()):
            # Expressions are blanked, not removed, so a column stays the column in the file.
            line = EXPRESSION.sub(lambda m: " " * len(m[0]), line)
            for match in LITERAL_NUMBER.finditer(line):
                after = WORDS_AFTER.match(line, match.end() + (line[match.end():match.end() + 1] == " "))
                words = tuple(word for word in (after.groups() if after else ()) if word)
                name = next((name for name, unit in known.get(float(match[0].replace(",", "")), [])
                             if agrees(unit, words)), None)
                if name:
                    warnings.append(_warning(card, piece.line + offset, match, words, name))
    return warnings


def _warning(card: Card, line: int, match: re.Match, words: tuple[str, ...], name: str) -> Diagnostic:
    as_typed = " ".join((match[0], *words[:1]))
    return Diagnostic(
        card.path, line, "warning", f"literal {match[0]} is what the calculator computes for {name!r}",
        f"write {{{{ {name} }}}} so it follows the reader's scenario, {{{{ measured(\"...\", on=\"own\") }}}} "
        f"if it was measured, or {{{{ literal(\"{as_typed}\") }}}} if it is not this value",
        match.start() + 1)
