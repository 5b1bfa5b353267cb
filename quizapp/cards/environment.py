"""The sandboxed Jinja2 environment cards are written in: the names, filters and functions.

Numbers in a card are expressions over the calculator's result for the card's scenario;
an undefined name is an error, never an empty string.
"""

from __future__ import annotations

import html

from jinja2 import StrictUndefined
from jinja2.sandbox import ImmutableSandboxedEnvironment

from ..calc import FIELD_NAMES, VALUES, fmt

NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
                "twenty")

DTYPE_NAMES = {"bfloat16": "BF16", "float16": "FP16", "float32": "FP32", "fp8": "FP8", "fp8_e4m3": "FP8 (E4M3)",
               "fp8_e5m2": "FP8 (E5M2)", "fp8_ds_mla": "FP8 (DeepSeek MLA layout)", "auto": "the model's dtype"}


def words(n) -> str:
    """3 -> 'three'; numbers above twenty keep their digits: 37 -> '37'."""
    n = int(n)
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else fmt.commas(n)


def dtype(name: str) -> str:
    """bfloat16 -> 'BF16', fp8 -> 'FP8'."""
    return DTYPE_NAMES.get(str(name), str(name))


def measured(text) -> str:
    """An observation the calculator cannot derive: shown as measured, never recomputed."""
    return (f'<span class="measured" title="Measured, not computed: it stays the same when the scenario '
            f'changes">{html.escape(str(text))}</span>')


# Filters a card may use, beyond Jinja's built-ins (round, int, upper …). AUTHORING.md lists each.
CARD_FILTERS = {**fmt.FILTERS, "words": words, "dtype": dtype}
# Functions a card may call. calc() is bound per render, since it depends on the scenario.
CARD_FUNCTIONS = ("calc", "measured")
# Every name a card may use: calculator values, calculator inputs, functions.
CARD_NAMES = frozenset(VALUES) | frozenset(FIELD_NAMES) | frozenset(CARD_FUNCTIONS)


def make_environment(loader) -> ImmutableSandboxedEnvironment:
    env = ImmutableSandboxedEnvironment(loader=loader, undefined=StrictUndefined, autoescape=False,
                                        keep_trailing_newline=False)
    env.filters.update(CARD_FILTERS)
    env.globals["measured"] = measured
    return env
