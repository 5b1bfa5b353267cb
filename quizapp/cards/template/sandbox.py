"""The sandbox card expressions run in: Jinja's immutable sandbox, with the limits of ``limits.py``.

Jinja's operators, calls, filters, loops and ``~`` go through the checks before they run and
spend from the render's budget; loops and ``~`` are rewritten to step through this
environment's own methods. What a piece may not use at all (include, extends, import,
recursive loops, ``lipsum``) is refused when it compiles.

A render raises the sandbox's errors: :class:`~.limits.LimitExceeded` and
:class:`ExpressionError` (Python refused an operation of the card's expression), both
``TemplateError``s as Jinja's own are. An error raised inside a function of ours that an
expression calls (calc(), a filter's code) is not the card's mistake and is not caught here.
"""

from __future__ import annotations

import math
import os
import types
from collections.abc import Iterable
from functools import wraps

import jinja2
from jinja2 import nodes
from jinja2.environment import Template
from jinja2.exceptions import TemplateRuntimeError, TemplateSyntaxError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from . import limits
from .limits import MAX_ARGUMENT, MAX_CALL_DEPTH, MAX_OUTPUT, SIZED, STR_METHODS_REFUSED, LimitExceeded, \
    bounded_range, check_binop, check_expected, check_filter, check_method, check_size, current_budget, \
    render_budget, spend


class ExpressionError(TemplateRuntimeError):
    """A card's expression did what Python refuses (compared a number with a text, divided by
    zero, unpacked one value into two) or gave a card function what it does not take; the
    message is Python's, or the function's."""


# What Python raises for an operation on values it cannot apply it to, and Jinja for arguments
# its functions do not take (cycler() without items, truncate(-5)). (A RecursionError, an
# expression too deep for the stack, is the card's wherever it is raised.)
PYTHON_ERRORS = (TypeError, ValueError, ArithmeticError, LookupError, NameError, AttributeError, RuntimeError,
                 AssertionError)
# Where an operation of a card's expression runs: the piece's own code (its file is the
# template's), Jinja's runtime, tests and filters, and this sandbox's steps and limits.
JINJA_FOLDER = os.path.dirname(jinja2.__file__) + os.sep
SANDBOX_FILES = (__file__, limits.__file__)


def python_message(error: Exception) -> str:
    """Python's words for an error: its own message for a wrong type or value and for arithmetic
    ("division by zero"), with the exception's name where the message alone says little
    ("KeyError: 'x'")."""
    if isinstance(error, (TypeError, ValueError, ArithmeticError)):
        return str(error)
    return f"{type(error).__name__}: {error}"


def raised_by_expression(error: BaseException, template_file: str) -> bool:
    """Whether Python raised the error in an operation of the card's expression: the innermost
    frame of Jinja's traceback (it leaves out its internal calls) is the piece's code, Jinja's
    or this sandbox's, not a function of ours that the expression called."""
    frame = error.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    file = frame.tb_frame.f_code.co_filename if frame is not None else ""
    return file == template_file or file.startswith(JINJA_FOLDER) or file in SANDBOX_FILES


def bounded_filter(name: str, function):
    """A filter with its numbers bounded, its size checked before it runs, and its result's size
    after. A filter given a value it cannot take (``'a' | gib``) is the card's mistake, whichever
    filter it is: an ExpressionError."""
    offset = 1 if getattr(function, "jinja_pass_arg", None) else 0

    @wraps(function)
    def bounded(*args, **kwargs):
        value, extra = (args[offset], args[offset + 1:]) if len(args) > offset else (None, ())
        for given in (*extra, *kwargs.values()):
            if isinstance(given, int) and not isinstance(given, bool) and abs(given) > MAX_ARGUMENT:
                raise LimitExceeded(f"the filter {name} was given {given:,}; at most {MAX_ARGUMENT:,}")
        check_filter(name, value, extra, kwargs)
        try:
            made = function(*args, **kwargs)
        except PYTHON_ERRORS as error:
            raise ExpressionError(python_message(error)) from None
        return check_size(made, f"the filter {name} made a value")

    return bounded


class BoundedTemplate(Template):
    """A template whose render runs inside a budget (its own, or the card load's), and raises
    Python's errors from the card's own expression as ExpressionErrors, at their line."""

    def render(self, *args, **kwargs) -> str:
        with render_budget():
            try:
                return super().render(*args, **kwargs)
            except (*PYTHON_ERRORS, RecursionError) as error:
                if not (isinstance(error, RecursionError) or raised_by_expression(error, self.filename)):
                    raise  # raised inside a function of ours the expression called: a bug, not the card's
                raise ExpressionError(python_message(error)).with_traceback(error.__traceback__) from None


class CardSandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox with the limits of ``limits.py``. Loops are rewritten to step through
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
        budget = current_budget()
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
        check_expected(sum(len(text) for text in texts), "~")
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
