"""The sandbox card expressions run in: Jinja's, with a bound on what one render may cost.

Jinja's own sandbox keeps a card away from Python's internals; it does not stop
``('a' * 10**10) | length``, ``2 ** (2 ** 36)``, ``'a' | center(10**9)`` or nested loops
over ``'x' * 100000``. Here every operation that can grow a value is checked before it runs
(text and lists at most MAX_TEXT items, integers at most MAX_INT_BITS bits), and every loop
step, call, operator and filter spends from a budget of steps, characters and time. A render
that passes a limit stops with :class:`LimitExceeded`, a ``TemplateError`` naming the limit,
which the card's loader reports at the line, and a page shows as any other render error.

A render gets its own budget; a card's load renders inside one ``render_budget`` for the whole
card, so a slow card is a diagnostic, not a slow server.
"""

from __future__ import annotations

import math
import re
import time
import types
from collections.abc import Iterable
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import wraps

from jinja2 import nodes
from jinja2.environment import Template
from jinja2.exceptions import TemplateRuntimeError, TemplateSyntaxError
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError


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


@dataclass
class Budget:
    deadline: float
    seconds: float
    steps: int = 0
    chars: int = 0
    depth: int = 0

    def spend(self, chars: int = 0) -> None:
        self.steps += 1
        self.chars += chars
        if self.steps > MAX_STEPS:
            raise LimitExceeded(f"more than {MAX_STEPS:,} steps (loop iterations, calls, operators and filters)")
        if self.chars > MAX_CHARS:
            raise LimitExceeded(f"more than {MAX_CHARS:,} characters made in one render")
        if time.monotonic() > self.deadline:
            raise LimitExceeded(f"took longer than {self.seconds:g} s to render")


_budget: ContextVar[Budget | None] = ContextVar("card_render_budget", default=None)


@contextmanager
def render_budget(seconds: float = RENDER_SECONDS):
    """One budget for every render inside the block (a card's load). Inside another budget's
    block, the outer one rules."""
    if _budget.get() is not None:
        yield
        return
    token = _budget.set(Budget(time.monotonic() + seconds, seconds))
    try:
        yield
    finally:
        _budget.reset(token)


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


def _expected(size: int, what: str) -> None:
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
                _expected(len(seq) * max(times, 0), "repeating a text or list")
    elif operator == "**" and isinstance(left, int) and isinstance(right, int) and abs(left) > 1 and right > 0:
        bits = math.log2(abs(left)) * right
        if bits > MAX_INT_BITS:
            raise LimitExceeded(f"{left} ** {right} has about {bits:,.0f} bits; at most {MAX_INT_BITS:,}")
    elif operator == "%" and isinstance(left, str):
        _expected(percent_size(left, right), "the % format")


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
        _expected(_replace_size(owner, *args[:2]), "replace()")
    elif name == "join" and args:
        _expected(_join_size(owner, args[0]), "join()")


def _replace_size(text: str, old, new) -> int:
    if not isinstance(old, str) or not isinstance(new, str):
        return len(text)
    matches = text.count(old) if old else len(text) + 1
    return len(text) + matches * max(len(new) - len(old), 0)


def _join_size(separator: str, items) -> int:
    items = list(items) if not isinstance(items, (list, tuple)) else items
    _expected(len(items), "join()")
    return sum(len(str(item)) for item in items) + len(separator) * len(items)


def _filter_check(name: str, value, args, kwargs) -> None:
    """The size a built-in filter would make, checked before it runs."""
    if name == "indent" and isinstance(value, str):
        width = args[0] if args else kwargs.get("width", 4)
        pad = len(width) if isinstance(width, str) else width if isinstance(width, int) else 0
        _expected(len(value) + (value.count("\n") + 1) * pad, "indent")
    elif name == "replace" and isinstance(value, str) and len(args) >= 2:
        _expected(_replace_size(value, *args[:2]), "replace")
    elif name == "join" and isinstance(value, (list, tuple)):
        separator = args[0] if args else kwargs.get("d", "")
        _expected(_join_size(str(separator), value), "join")
    elif name == "format" and isinstance(value, str):
        _expected(percent_size(value, tuple(args) or kwargs), "format")


def bounded_filter(name: str, function):
    """A built-in filter with its numbers bounded, its size checked before it runs, and its
    result's size after."""
    offset = 1 if getattr(function, "jinja_pass_arg", None) else 0

    @wraps(function)
    def bounded(*args, **kwargs):
        value, extra = (args[offset], args[offset + 1:]) if len(args) > offset else (None, ())
        for given in (*extra, *kwargs.values()):
            if isinstance(given, int) and not isinstance(given, bool) and abs(given) > MAX_ARGUMENT:
                raise LimitExceeded(f"the filter {name} was given {given:,}; at most {MAX_ARGUMENT:,}")
        _filter_check(name, value, extra, kwargs)
        return check_size(function(*args, **kwargs), f"the filter {name} made a value")

    return bounded


def bounded_range(*args) -> range:
    numbers = range(*args)
    if len(numbers) > MAX_RANGE:
        raise LimitExceeded(f"range() of {len(numbers):,} items; at most {MAX_RANGE:,}")
    return numbers


# --- the environment --------------------------------------------------------------------------


class BoundedTemplate(Template):
    """A template whose render runs inside a budget (its own, or the card load's)."""

    def render(self, *args, **kwargs) -> str:
        with render_budget():
            try:
                return super().render(*args, **kwargs)
            except (LookupError, NameError, AttributeError, RecursionError) as error:
                # Python's own errors from a card's expression: a template error at its line, like the rest.
                raise TemplateRuntimeError(f"{type(error).__name__}: {error}").with_traceback(
                    error.__traceback__) from None


class CardSandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox with the limits above. Loops are rewritten to step through
    :meth:`bounded_loop`, ``~`` through :meth:`bounded_concat`; recursive loops and ``lipsum``
    are not available."""

    template_class = BoundedTemplate
    # Every arithmetic operator: checked here, and never folded while compiling (a folded 1e308 + 1e308
    # would be written into the template's code as "inf", a NameError).
    intercepted_binops = frozenset({"*", "**", "%", "+", "-", "/", "//"})

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.globals.pop("lipsum", None)
        self.globals["range"] = bounded_range
        self.filters = {name: bounded_filter(name, function) for name, function in self.filters.items()}

    # Every piece of output, and every buffered block (a macro's body, a {% set %} block).
    def concat(self, chunks: Iterable[str]) -> str:
        parts, size = [], 0
        for chunk in chunks:
            size += len(chunk)
            if size > MAX_OUTPUT:
                raise LimitExceeded(f"renders to more than {MAX_OUTPUT:,} characters")
            spend(len(chunk))
            parts.append(chunk)
        return "".join(parts)

    def call_binop(self, context, operator: str, left, right):
        spend()
        check_binop(operator, left, right)
        return check_size(super().call_binop(context, operator, left, right), f"the result of {operator}")

    def call(__self, __context, __obj, *args, **kwargs):  # noqa: N805 (Jinja's own signature)
        if isinstance(__obj, types.MethodType) and __obj.__self__ is __self and __obj.__func__ in _OWN_STEPS:
            return __obj(*args)  # Jinja adds _loop_vars/_block_vars to calls inside blocks: ours need none
        if isinstance(__obj, types.BuiltinMethodType):
            check_method(__obj, args, kwargs)
        budget = _budget.get()
        spend()
        if budget is not None:
            budget.depth += 1
            if budget.depth > MAX_CALL_DEPTH:
                raise LimitExceeded(f"calls nested more than {MAX_CALL_DEPTH} deep")
        try:
            result = super().call(__context, __obj, *args, **kwargs)
        finally:
            if budget is not None:
                budget.depth -= 1
        return check_size(result, f"{getattr(__obj, '__name__', 'a call')}() made a value")

    def is_safe_callable(self, obj) -> bool:
        owner = getattr(obj, "__self__", None)
        if isinstance(owner, str) and getattr(obj, "__name__", "") in STR_METHODS_REFUSED:
            return False
        return super().is_safe_callable(obj)

    def wrap_str_format(self, value):
        # str.format bypasses the operator checks; cards format with filters instead.
        return None

    def bounded_loop(self, items, weight: int):
        """Step through a loop's items, spending one step and the body's literal text per item."""
        if isinstance(items, SIZED):
            check_size(items, "a loop's items")
        for item in items:
            spend(weight)
            yield item

    def bounded_concat(self, *values) -> str:
        texts = [str(value) for value in values]
        _expected(sum(len(text) for text in texts), "~")
        return check_size("".join(texts), "~")

    def _parse(self, source, name, filename):
        try:
            template = super()._parse(source, name, filename)
            _check_nodes(template, name, filename)
        except RecursionError:
            raise TemplateSyntaxError("expression nested too deeply", 1, name, filename) from None
        for loop in template.find_all(nodes.For):
            weight = 1 + sum(len(data.data) for data in loop.find_all(nodes.TemplateData))
            loop.iter = nodes.Call(nodes.EnvironmentAttribute("bounded_loop"), [loop.iter, nodes.Const(weight)],
                                   [], None, None, lineno=loop.lineno)
        for concat in template.find_all(nodes.Concat):
            concat.nodes = [nodes.Call(nodes.EnvironmentAttribute("bounded_concat"), concat.nodes, [], None, None,
                                       lineno=concat.lineno)]
        return template

    def compile(self, source, name=None, filename=None, raw=False, defer_init=False):
        try:
            return super().compile(source, name, filename, raw, defer_init)
        except RecursionError:
            raise TemplateSyntaxError("expression nested too deeply", 1, name, filename) from None


_OWN_STEPS = (CardSandbox.bounded_loop, CardSandbox.bounded_concat)
# Each piece is a template of its own: it includes, extends and imports nothing.
NOT_IN_CARDS = {nodes.Include: "{% include %}", nodes.Extends: "{% extends %}", nodes.Import: "{% import %}",
                nodes.FromImport: "{% from ... import %}"}
MAX_NESTING = 100  # of expressions and blocks, far beyond what prose needs; Jinja's compiler recurses


def _check_nodes(template: nodes.Template, name, filename) -> None:
    """Refuse what a card may not use, and nesting deep enough to exhaust Python's stack, without
    recursing."""
    stack = [(template, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            raise TemplateSyntaxError(f"expressions nested more than {MAX_NESTING} deep", node.lineno or 1, name,
                                      filename)
        if type(node) in NOT_IN_CARDS:
            raise TemplateSyntaxError(f"{NOT_IN_CARDS[type(node)]} is not available in cards", node.lineno, name,
                                      filename)
        if isinstance(node, nodes.Const) and isinstance(node.value, float) and not math.isfinite(node.value):
            raise TemplateSyntaxError("a number literal too large for a float", node.lineno or 1, name, filename)
        if isinstance(node, nodes.For) and node.recursive:
            raise TemplateSyntaxError("recursive loops are not available in cards", node.lineno, name, filename)
        stack.extend((child, depth + 1) for child in node.iter_child_nodes())
