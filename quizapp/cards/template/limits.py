"""What one render of a card's expression may cost, and the checks before each operation.

Jinja's own sandbox keeps a card away from Python's internals; it does not stop
``('a' * 10**10) | length``, ``2 ** (2 ** 36)``, ``'a' | center(10**9)`` or nested loops
over ``'x' * 100000``. Every operation that can grow a value is checked here before it runs
(text and lists at most MAX_TEXT items, integers at most MAX_INT_BITS bits), and every loop
step, call, operator and filter spends from a budget of steps, characters and time. A render
that passes a limit stops with :class:`LimitExceeded`, a ``TemplateError`` naming the limit,
which the card's loader reports at the line, and a page shows as any other render error.
``sandbox.py`` applies these checks to Jinja's operators, calls, filters and loops.

A render gets its own budget; a card's load renders inside one ``render_budget`` for the whole
card, so a slow card is a diagnostic, not a slow server.
"""

from __future__ import annotations

import gc
import math
import re
import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from jinja2.sandbox import SecurityError


MAX_TEXT = 100_000          # characters of one text, items of one list: any value an expression makes
MAX_OUTPUT = MAX_TEXT       # characters one piece renders to
MAX_ARGUMENT = MAX_TEXT     # a number given to a method or a filter (a width, a count)
MAX_INT_BITS = 4096         # an integer a card computes (vLLM's numbers need 64)
MAX_STEPS = 100_000         # loop iterations, calls, operators and filters in one budget
MAX_CHARS = 10_000_000      # characters made in one budget, all values together
MAX_CALL_DEPTH = 50         # macros calling macros
MAX_RANGE = 10_000          # items of range()
RENDER_SECONDS = 0.25       # one render at request time (a piece renders in about a millisecond)
SIZED = (str, list, tuple, dict, set, frozenset)


class LimitExceeded(SecurityError):
    """A card expression passed a limit of the sandbox; the message names it."""


class _GcClock:
    """Seconds the garbage collector has paused this process for, so far.

    A collection of the whole heap can pause a process for a few hundred milliseconds once the
    bank, its renders and their calculator results are loaded; that is not the card's cost, so a
    render's time limit does not count it (a card could once fail its 0.25 s only because a
    collection ran during its render)."""

    def __init__(self):
        self.paused = 0.0
        self._started = None
        gc.callbacks.append(self._tick)

    def _tick(self, phase, info):
        if phase == "start":
            self._started = time.monotonic()
        elif self._started is not None:
            self.paused += time.monotonic() - self._started
            self._started = None


GC_CLOCK = _GcClock()


@dataclass
class Budget:
    deadline: float
    seconds: float
    steps: int = 0
    chars: int = 0
    depth: int = 0
    gc_at_start: float = 0.0

    def spend(self, chars: int = 0) -> None:
        self.steps += 1
        self.chars += chars
        if self.steps > MAX_STEPS:
            raise LimitExceeded(f"more than {MAX_STEPS:,} steps (loop iterations, calls, operators and filters)")
        if self.chars > MAX_CHARS:
            raise LimitExceeded(f"more than {MAX_CHARS:,} characters made in one render")
        if time.monotonic() - (GC_CLOCK.paused - self.gc_at_start) > self.deadline:
            raise LimitExceeded(f"took longer than {self.seconds:g} s to render")


_budget: ContextVar[Budget | None] = ContextVar("card_render_budget", default=None)


@contextmanager
def render_budget(seconds: float = RENDER_SECONDS):
    """One budget for every render inside the block (a card's load). Inside another budget's
    block, the outer one rules."""
    if _budget.get() is not None:
        yield
        return
    token = _budget.set(Budget(time.monotonic() + seconds, seconds, gc_at_start=GC_CLOCK.paused))
    try:
        yield
    finally:
        _budget.reset(token)


def current_budget() -> Budget | None:
    """The budget the render in progress spends from (None outside any)."""
    return _budget.get()


def spend(chars: int = 0) -> None:
    """Spend from the current budget. Outside any render (Jinja folding constants while it
    compiles), only the checks before each operation apply."""
    budget = _budget.get()
    if budget is not None:
        budget.spend(chars)


def check_size(value, what: str = "a value"):
    """Refuse a text, list or integer over its limit; return the value, having spent its size."""
    if isinstance(value, SIZED):
        if len(value) > MAX_TEXT:
            raise LimitExceeded(f"{what} of {len(value):,} characters or items; at most {MAX_TEXT:,}")
        spend(len(value))
    elif isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise LimitExceeded(f"{what} is an integer of {value.bit_length():,} bits; at most {MAX_INT_BITS:,}")
    else:
        spend()
    return value


def check_expected(size: int, what: str) -> None:
    if size > MAX_TEXT:
        raise LimitExceeded(f"{what} would make {size:,} characters or items; at most {MAX_TEXT:,}")


# --- operators --------------------------------------------------------------------------------

PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?[a-zA-Z%]")


def percent_size(template: str, args) -> int:
    """An upper bound on the length of ``template % args``: the text, each field's width or
    precision, and each argument's own text."""
    fields = PERCENT_SPEC.findall(template)
    if any(width == "*" or precision == "*" for width, precision in fields):
        raise LimitExceeded("a '*' width in a % format is not allowed in cards")
    widths = sum(int(width or 0) + int(precision or 0) for width, precision in fields)
    if isinstance(args, dict):  # named fields may each quote the longest value
        own = len(fields) * max((len(str(check_size(v, "a % argument"))) for v in args.values()), default=0)
    else:
        values = args if isinstance(args, tuple) else (args,)
        own = sum(len(str(check_size(v, "a % argument"))) for v in values)
    return len(template) + widths + own


def check_binop(operator: str, left, right) -> None:
    """Refuse an operation whose result would pass a limit, before it runs."""
    if operator == "*":
        for seq, times in ((left, right), (right, left)):
            if isinstance(seq, (str, list, tuple)) and isinstance(times, int) and not isinstance(times, bool):
                check_expected(len(seq) * max(times, 0), "repeating a text or list")
    elif operator == "**" and isinstance(left, int) and isinstance(right, int) and abs(left) > 1 and right > 0:
        bits = math.log2(abs(left)) * right
        if bits > MAX_INT_BITS:
            raise LimitExceeded(f"{left} ** {right} has about {bits:,.0f} bits; at most {MAX_INT_BITS:,}")
    elif operator == "%" and isinstance(left, str):
        check_expected(percent_size(left, right), "the % format")


# --- methods and filters ----------------------------------------------------------------------

# str methods a card may call, and what each can make at most (None: no more than the text).
STR_METHODS_GROWING = {"center", "ljust", "rjust", "zfill"}  # pad to a width (bounded by MAX_ARGUMENT)
STR_METHODS_REFUSED = {"format", "format_map", "expandtabs", "translate", "encode"}


def check_method(method, args, kwargs) -> None:
    """Check a call of a built-in method before it runs: numbers within MAX_ARGUMENT, and the
    str methods that can multiply a text (replace, join) within MAX_TEXT."""
    for value in (*args, *kwargs.values()):
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_ARGUMENT:
            raise LimitExceeded(f"{method.__name__}() was given {value:,}; a card's numbers for methods are at "
                                f"most {MAX_ARGUMENT:,}")
    owner = getattr(method, "__self__", None)
    if not isinstance(owner, str):
        return
    name = method.__name__
    if name in STR_METHODS_REFUSED:
        raise LimitExceeded(f"the str method {name}() is not allowed in cards; use the filters")
    if name == "replace" and len(args) >= 2:
        check_expected(_replace_size(owner, *args[:2]), "replace()")
    elif name == "join" and args:
        check_expected(_join_size(owner, args[0]), "join()")


def _replace_size(text: str, old, new) -> int:
    if not isinstance(old, str) or not isinstance(new, str):
        return len(text)
    matches = text.count(old) if old else len(text) + 1
    return len(text) + matches * max(len(new) - len(old), 0)


def _join_size(separator: str, items) -> int:
    items = list(items) if not isinstance(items, (list, tuple)) else items
    check_expected(len(items), "join()")
    return sum(len(str(item)) for item in items) + len(separator) * len(items)


def check_filter(name: str, value, args, kwargs) -> None:
    """The size a built-in filter would make, checked before it runs."""
    if name == "indent" and isinstance(value, str):
        width = args[0] if args else kwargs.get("width", 4)
        pad = len(width) if isinstance(width, str) else width if isinstance(width, int) else 0
        check_expected(len(value) + (value.count("\n") + 1) * pad, "indent")
    elif name == "replace" and isinstance(value, str) and len(args) >= 2:
        check_expected(_replace_size(value, *args[:2]), "replace")
    elif name == "join" and isinstance(value, (list, tuple)):
        separator = args[0] if args else kwargs.get("d", "")
        check_expected(_join_size(str(separator), value), "join")
    elif name == "format" and isinstance(value, str):
        check_expected(percent_size(value, tuple(args) or kwargs), "format")


def bounded_range(*args) -> range:
    numbers = range(*args)
    if len(numbers) > MAX_RANGE:
        raise LimitExceeded(f"range() of {len(numbers):,} items; at most {MAX_RANGE:,}")
    return numbers
