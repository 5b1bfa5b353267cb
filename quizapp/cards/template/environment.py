"""The sandboxed Jinja2 environment cards are written in: the names, filters and functions.

Numbers in a card are expressions over the calculator's result for the card's scenario;
an undefined name is an error, never an empty string.
"""

from __future__ import annotations

import html
from functools import partial

from jinja2 import StrictUndefined, UndefinedError
from jinja2.utils import missing

from ...calc import FIELD_NAMES, VALUES, fmt
from .sandbox import CardSandbox, bounded_filter

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


def plural(n, noun: str, plural_noun: str | None = None, spelled: bool = False) -> str:
    """37 -> '37 users', 1 -> '1 user', 1506 -> '1,506 blocks' (``plural("user")``);
    with ``spelled=True`` small counts are words: 'three users', 'one user'."""
    many = plural_noun or f"{noun}s"
    count = words(n) if spelled else fmt.commas(n)
    return f"{count} {noun if n == 1 else many}"


def literal(text) -> str:
    """A number that only looks like a calculator value ("128 GB" of machine memory): shown as
    written, and never read by the literal-number check."""
    return str(text)


def measured_text(text, where: str) -> str:
    """An observation shown as measured: marked in the page, never recomputed."""
    return (f'<span class="measured" title="Measured on {html.escape(where, quote=True)}, not computed">'
            f'{html.escape(str(text))}</span>')


# Filters a card may use, beyond Jinja's built-ins (round, int, upper …). AUTHORING.md lists each.
CARD_FILTERS = {**fmt.FILTERS, "words": words, "dtype": dtype, "plural": plural}
# Functions a card may call. calc, measured and derivation depend on the scenario, so each is
# bound per render; literal does not, so it is one of the environment's globals.
CARD_FUNCTIONS = ("calc", "measured", "derivation", "literal")
# Names for prose that branches on the scenario (Scenario.context gives their values).
PROSE_NAMES = {
    "attention": "the model's attention kind: uniform, mla, sliding or linear (none for a measured figure)",
    "own_scenario": "true in the card's own scenario: no variant, nothing changed by the reader",
    "gpu_name": "the GPU as prose names it (L4, H100 80GB HBM3, RTX 4090), never its catalog id",
    "pool_rule": "the rule that sizes the pool: tokens (measured), bytes (a pin) or fraction (of a GPU)",
    "refused": "true when vLLM would refuse to start in this scenario (cards with space.refusals)",
    "refusal_check": "which check refuses: weights_fit, budget_fits or pool_fits (the fit), "
                     "max_model_len_within_model, one_request_fits or free_memory",
    "refusal": "vLLM's own refusal message",
    "fits": "true when the weights, the non-KV memory and the pool fit the scenario's GPU; false when they do "
            "not; none without a GPU",
    "fit_verdict": "the fit as a sentence: 'does not fit: 755.96 GiB of weights on one 22.49 GiB L4', or 'fits: …'",
    "min_tensor_parallel_size": "when it does not fit: the smallest tensor_parallel_size the model's heads allow "
                                "that fits (none if no size does)",
    "min_gpu_memory_bytes": "when it does not fit: the GPU memory that would hold it at this tensor parallel size",
}
# Every name a card may use: calculator values, calculator inputs, prose names, functions.
CARD_NAMES = frozenset(VALUES) | frozenset(FIELD_NAMES) | frozenset(PROSE_NAMES) | frozenset(CARD_FUNCTIONS)


class UndefinedValue(UndefinedError):
    """A card's expression used a name that has no value: which name, and what it was read on
    (``owner``: ``missing`` for a plain name, else the object, such as a calc(...) result)."""

    def __init__(self, message: str, name, owner, hint: str | None):
        super().__init__(message)
        self.name, self.owner, self.hint = name, owner, hint


class CardUndefined(StrictUndefined):
    """Jinja's strict undefined, raising an UndefinedValue: a message about a name is made from
    the name and its owner, not read back from Jinja's words."""

    __slots__ = ()

    def __init__(self, hint=None, obj=missing, name=None, exc=UndefinedError):
        if exc is UndefinedError:  # Jinja passes its own for an unsafe attribute (a SecurityError)
            exc = partial(UndefinedValue, name=name, owner=obj, hint=hint)
        super().__init__(hint, obj, name, exc)


def make_environment() -> CardSandbox:
    """The sandbox a card's pieces compile in: bounded in time, size and steps (``sandbox.py``).
    Every card's is the same: a piece includes, extends and imports nothing, so it needs no loader."""
    env = CardSandbox(undefined=CardUndefined, autoescape=False, keep_trailing_newline=False)
    # Bounded as Jinja's own are: 1 | fixed(10**9) would make a text of a billion characters.
    env.filters.update({name: bounded_filter(name, function) for name, function in CARD_FILTERS.items()})
    env.globals["literal"] = literal
    return env
