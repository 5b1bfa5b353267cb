"""Checks the arithmetic a rendered card states: ``a × b × … = c`` must hold.

A card's prose is rendered under many scenarios; an equation written for one model can be
false for the next (MLA has no factor 2, a sliding-window hybrid counts only some layers).
The checker finds every chain of numbers joined by ×, ÷, +, − (with parentheses and the
ceiling ⌈⌉ and floor ⌊⌋ brackets) and ``=``, and checks each ``=`` to the precision the
numbers are displayed with:

- thousands separators, scientific notation (``10e9``) and unit words are read
  (``147,456 B = 144 KiB`` holds: byte units convert, other words are labels);
- a number with decimals stands for anything that rounds or cuts to it; a whole number is
  exact, in an expression (it counts layers or heads) and as a result: a floor or a rounding
  is written with its brackets (``⌊10e9 ÷ 55,011⌋ = 181,781``) or with ``≈``, never as ``=``
  (10e9 ÷ 55,011 is 181,781.8);
- a sum or difference whose terms mix decimal and binary units (GB and GiB) is refused: its
  result is in neither unit.

The scan is linear in the text: a tokenizer without nested quantifiers, then one pass.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

# Multipliers of the size units a number may carry; other words after a number are labels.
UNITS = {"b": 1, "byte": 1, "bytes": 1, "kib": 1024, "mib": 1024**2, "gib": 1024**3, "tib": 1024**4,
         "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12, "%": 0.01}

TOKEN = re.compile(
    # A number joined to a word by a hyphen ("8,192-token", "4-bit") is a word, not an operand.
    r"(?P<compound>\d[\d,.]*-[^\W\d_][\w'’-]*)"
    r"|(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)"
    r"|(?P<op>[×*÷+−]|\s-\s|\s/\s)"
    r"|(?P<eq>=)"
    r"|(?P<open>[(⌈⌊])|(?P<close>[)⌉⌋])"
    r"|(?P<stop>[,;:?!→≈≠<>≤≥\n]|\.(?!\d))"
    r"|(?P<word>%|[^\W\d][\w'’-]*(?:\.\d[\w'’-]*)*|-[\w'’-]*)"
    r"|(?P<space>\s+)"
    r"|(?P<other>.)",
    re.UNICODE,
)
DECIMAL_SCALES = frozenset((10**3, 10**6, 10**9, 10**12))
BINARY_SCALES = frozenset((1024, 1024**2, 1024**3, 1024**4))
OPERATORS = {"×": "*", "*": "*", "÷": "/", "/": "/", "+": "+", "−": "-", "-": "-"}
PAIRS = {"(": ")", "⌈": "⌉", "⌊": "⌋"}
MAX_CHAIN_TOKENS = 200
# More words than this between a number and what follows it is prose, not a unit or a label
# ("3.1 at TP 2" is not "3.1 = 2"; "2 bytes per value" is a label).
MAX_LABEL_WORDS = 4


@dataclass(frozen=True)
class Interval:
    low: float
    high: float

    def __add__(self, other):
        return Interval(self.low + other.low, self.high + other.high)

    def __sub__(self, other):
        return Interval(self.low - other.high, self.high - other.low)

    def __mul__(self, other):
        products = (self.low * other.low, self.low * other.high, self.high * other.low, self.high * other.high)
        return Interval(min(products), max(products))

    def __truediv__(self, other):
        if other.low <= 0 <= other.high:
            raise ZeroDivisionError
        return self * Interval(1 / other.high, 1 / other.low)

    def apply(self, function) -> "Interval":
        return Interval(function(self.low), function(self.high))

    def meets(self, other) -> bool:
        slack = 1e-9 * max(abs(self.low), abs(self.high), abs(other.low), abs(other.high), 1)
        return self.low <= other.high + slack and other.low <= self.high + slack


@dataclass(frozen=True)
class Number:
    value: float
    half_ulp: float  # half a unit in the last displayed place, in the number's own unit
    scale: float  # its unit's multiplier (144 KiB: 1024)
    decimals: bool

    def interval(self) -> Interval:
        """What the displayed number may stand for. A whole number is exact; one with decimals may
        be rounded or cut to its last place, so it reaches up to one unit in that place above the display."""
        if not self.decimals:
            return Interval(self.value * self.scale, self.value * self.scale)
        return Interval((self.value - self.half_ulp) * self.scale, (self.value + 2 * self.half_ulp) * self.scale)

    @property
    def family(self) -> str | None:
        """'decimal' (kB, MB, GB, TB), 'binary' (KiB … TiB), or None (bytes, or no size unit)."""
        if self.scale in DECIMAL_SCALES:
            return "decimal"
        return "binary" if self.scale in BINARY_SCALES else None


@dataclass(frozen=True)
class ChainError:
    text: str  # the chain as the card shows it
    left: float
    message: str


def check_text(text: str) -> list[ChainError]:
    """Every chain in ``text`` (plain text, not HTML) whose ``=`` does not hold."""
    errors = []
    for chain in find_chains(text):
        error = check_chain(chain)
        if error:
            errors.append(error)
    return errors


# A chain: its source text and its sides, each a list of items (Number, operator or bracket).
Chain = tuple[str, list[list]]


def find_chains(text: str) -> list[Chain]:
    """The chains of numbers and operators that contain at least one ``=``."""
    chains: list[Chain] = []
    builder = _ChainBuilder(text, chains)
    for match in TOKEN.finditer(text):
        builder.feed(match.lastgroup, match)
    builder.close()
    return chains


class _ChainBuilder:
    """One pass over the tokens: numbers with their units, operators, brackets, ``=``."""

    def __init__(self, text: str, out: list):
        self.text, self.out = text, out
        self.sides: list[list] = [[]]
        self.start: int | None = None
        self.end = 0
        self.expect_operand = True
        self.label_depth = 0  # inside a parenthesised label, e.g. "2 (K and V)"
        self.last_number: Number | None = None
        # After a chain breaks off mid-expression ("min(a, b) ÷ 16 = …"), nothing is checked
        # until the next stop: what follows is the tail of arithmetic we could not read.
        self.skipping = False
        self.labels = 0  # words since the last number

    def feed(self, kind: str, match: re.Match) -> None:
        if self.skipping:
            if kind == "stop":
                self.skipping = False
            return
        if self.label_depth:
            self._inside_label(kind, match)
            return
        if kind == "space":
            return
        if kind == "num":
            self._number(match)
        elif kind == "op":
            self._operator(OPERATORS[match.group().strip()], match)
        elif kind == "eq":
            self._equals(match)
        elif kind == "open":
            self._open(match)
        elif kind == "close":
            self._close(match)
        elif kind in ("word", "compound"):
            self._word(match)
        else:
            self.close()

    def _number(self, match: re.Match) -> None:
        if not self.expect_operand:
            self.close()
        raw = match.group().replace(",", "")
        if self.start is None:
            self.start = match.start()
        mantissa = raw.lower().split("e")[0]
        places = len(mantissa.split(".")[1]) if "." in mantissa else 0
        exponent = int(raw.lower().split("e")[1]) if "e" in raw.lower() else 0
        if abs(exponent) > 30:
            self.close()
            return
        number = Number(float(raw), 0.5 * 10.0 ** (exponent - places), 1.0, places > 0 or exponent < 0)
        self.labels = 0
        self.sides[-1].append(number)
        self.last_number = number
        self.expect_operand = False
        self.end = match.end()

    def _operator(self, op: str, match: re.Match) -> None:
        if self.expect_operand or self.start is None or self.labels > MAX_LABEL_WORDS:
            self.abort()
            return
        self.sides[-1].append(op)
        self.expect_operand = True
        self.last_number = None

    def _equals(self, match: re.Match) -> None:
        glued = match.start() > 0 and (self.text[match.start() - 1].isalpha() or self.text[match.start() - 1] == "_")
        if glued:  # "TP=2", "block_size=16": a setting, not arithmetic
            self.abort()
            return
        if self.expect_operand or self.start is None or self._depth() or self.labels > MAX_LABEL_WORDS:
            self.abort()
            return
        self.sides.append([])
        self.expect_operand = True
        self.last_number = None

    def _open(self, match: re.Match) -> None:
        if not self.expect_operand and match.group() == "(":
            self.label_depth, self.label_tokens = 1, 0  # "2 (K and V)": a label, not a product
            return
        if not self.expect_operand:
            self.close()
        if self.start is None:
            self.start = match.start()
        self.sides[-1].append(match.group())

    def _close(self, match: re.Match) -> None:
        side = self.sides[-1]
        opened = [item for item in side if isinstance(item, str) and item in PAIRS]
        closed = [item for item in side if isinstance(item, str) and item in PAIRS.values()]
        if self.expect_operand or len(opened) <= len(closed):
            self.abort()
            return
        side.append(match.group())
        self.end = match.end()
        self.last_number = None

    def _word(self, match: re.Match) -> None:
        word = match.group()
        if self.start is None or self.expect_operand:
            return  # a label before a number ("attention 187,105,280", "TP 8")
        self.labels += 1
        self.end = match.end()
        scale = UNITS.get(word.lower())
        number = self.last_number
        if scale is not None and number is not None and number.scale == 1.0:
            self.sides[-1][-1] = Number(number.value, number.half_ulp, scale, number.decimals)
        self.last_number = None  # later words are labels ("2 bytes per value")

    def _inside_label(self, kind: str, match: re.Match) -> None:
        """A parenthesised label may hold anything ("(4 ÷ TP 8, replicated)") up to its close."""
        self.label_tokens += kind != "space"
        if kind == "open":
            self.label_depth += 1
        elif kind == "close":
            self.label_depth -= 1
            self.end = match.end() if self.label_depth == 0 else self.end
        elif (kind == "stop" and match.group() == "\n") or self.label_depth > 3 or self.label_tokens > 80:
            self.label_depth = 0
            self.abort()

    def _depth(self) -> int:
        side = self.sides[-1]
        return sum(1 for i in side if i in PAIRS) - sum(1 for i in side if i in PAIRS.values())

    def abort(self) -> None:
        """Stop reading a chain that broke off mid-expression, and skip to the next stop."""
        self.close()
        self.skipping = True

    def close(self) -> None:
        sides = self.sides
        if self.expect_operand and sides[-1]:
            sides[-1] = sides[-1][:-1] if isinstance(sides[-1][-1], str) else sides[-1]
        sides = [s for s in sides if s]
        if self.start is not None and len(sides) >= 2 and sum(len(s) for s in sides) <= MAX_CHAIN_TOKENS:
            self.out.append((self.text[self.start:self.end].strip(), sides))
        self.sides, self.start, self.expect_operand = [[]], None, True
        self.label_depth, self.last_number, self.labels = 0, None, 0


def check_chain(chain: Chain) -> ChainError | None:
    """The first ``=`` of the chain that does not hold, or None."""
    text, sides = chain
    for side in sides:
        families = {item.family for item in side if isinstance(item, Number)} - {None}
        if len(families) > 1 and any(item in ("+", "-") for item in side):
            return ChainError(text, 0.0, f"{text!r} adds or subtracts GB and GiB in one chain: its result is in "
                                         "neither unit; write every term in one unit")
    try:
        values = [_evaluate(side) for side in sides]
    except (ValueError, ZeroDivisionError, OverflowError, IndexError):
        return None  # not arithmetic we can read (a stray bracket): no verdict
    for left, right in zip(values, values[1:]):
        if not left.meets(right):
            middle = (left.low + left.high) / 2
            return ChainError(text, middle, f"{text!r} does not hold: the left side is {_show(middle)}")
    return None


def _evaluate(side: list) -> Interval:
    parser = _Parser(side)
    value = parser.expression()
    if parser.position != len(side):
        raise ValueError("trailing items")
    return value


class _Parser:
    def __init__(self, items: list):
        self.items, self.position = items, 0

    def peek(self):
        return self.items[self.position] if self.position < len(self.items) else None

    def take(self):
        item = self.peek()
        self.position += 1
        return item

    def expression(self) -> Interval:
        value = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()
            other = self.term()
            value = value + other if op == "+" else value - other
        return value

    def term(self) -> Interval:
        value = self.factor()
        while self.peek() in ("*", "/"):
            op = self.take()
            other = self.factor()
            value = value * other if op == "*" else value / other
        return value

    def factor(self) -> Interval:
        item = self.take()
        if isinstance(item, Number):
            return item.interval()
        if item in PAIRS:
            inner = self.expression()
            if self.take() != PAIRS[item]:
                raise ValueError("unbalanced bracket")
            if item == "⌈":
                return inner.apply(math.ceil)
            if item == "⌊":
                return inner.apply(math.floor)
            return inner
        raise ValueError(f"unexpected {item!r}")


def _show(value: float) -> str:
    if value == int(value):
        return f"{int(value):,}"
    return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.1f}"
