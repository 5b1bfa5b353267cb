"""Render one piece of a card for a scenario: Jinja2 → Markdown → HTML → nh3.

A rendered piece is kept by the card's version, the piece and the scenario (``caches.RENDERED``);
its template is compiled once per source (``compile.compiled``) and each scenario computed once.
"""

from __future__ import annotations

import threading
import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING

import markdown
import nh3
from jinja2 import TemplateError
from jinja2.utils import missing

from ...calc import FIELD_NAMES, VALUES, CalcError, Result, attention_kind, did_you_mean, needs_text, parse_inputs
from ..caches import HTML, RENDERED, html_key, render_key
from ..diagnostics import CardError, Diagnostic
from .compile import compiled
from .environment import UndefinedValue, measured_text
from .sandbox import ExpressionError
from ..scenario import Scenario, apply_changes, compute, normalised

if TYPE_CHECKING:
    from ..card import Card

ALLOWED_TAGS = {"p", "a", "em", "strong", "code", "pre", "ul", "ol", "li", "blockquote", "h3", "h4", "h5",
                "table", "thead", "tbody", "tr", "th", "td", "br", "hr", "span", "sub", "sup"}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "span": {"class", "title"}, "th": {"align"}, "td": {"align"}}


@dataclass(frozen=True)
class Rendered:
    html: str
    names: frozenset[str]  # card names the piece used
    others: tuple[tuple[str, str, str], ...]  # calc() calls: (label, value name, derivation)


def sanitize(html: str) -> str:
    """Only the tags Markdown produces survive: an author's <script> never reaches a browser."""
    return nh3.clean(html, tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES, url_schemes={"http", "https"},
                     link_rel="noopener noreferrer")


def to_html(text: str, inline: bool) -> str:
    """The sanitized HTML of a Markdown text: the same for the same text, so it is kept by it
    (a card's stage renders to the same text in most scenarios, and copies of a card alike)."""
    return HTML.get_or_make(html_key(text, inline), lambda: _to_html(text, inline))


def _to_html(text: str, inline: bool) -> str:
    html = _converter().reset().convert(text)
    if inline and html.startswith("<p>") and html.endswith("</p>") and html.count("<p>") == 1:
        html = html[3:-4]
    return sanitize(html)


# Making a Markdown converter (its extensions, patterns and processors) cost twice what converting
# a stage's text does; one converter per thread is reset between texts (one is not thread-safe).
# Under a gevent worker ``threading.local`` is per greenlet, that is per request: the operating
# system thread's own is kept instead (a conversion never yields, so greenlets cannot share one
# converter at once).
def _thread_local():
    try:
        from gevent import monkey
    except ImportError:
        return threading.local()
    return monkey.get_original("threading", "local")() if monkey.is_module_patched("threading") \
        else threading.local()


_converters = _thread_local()


def _converter() -> markdown.Markdown:
    if not hasattr(_converters, "markdown"):
        _converters.markdown = markdown.Markdown(extensions=["fenced_code", "tables", "sane_lists"])
    return _converters.markdown


def render_piece(card: Card, key: str, scenario: Scenario, label: str = "this scenario") -> Rendered:
    """The piece ``key`` of the card rendered for the scenario; a CardError at the piece's line
    when its expression fails (``label`` names the scenario in the message)."""
    cache_key = render_key(card.version, key, scenario.key, scenario.variant, scenario.own)
    cached = RENDERED.get(cache_key)
    if cached is not None:
        return cached
    piece = card.pieces[key]
    template = compiled(piece.source).template
    others: list[tuple[str, str, str]] = []
    context = scenario.context(piece.names)
    context["calc"] = _calc_function(scenario, others)
    context["measured"] = _measured_function(card, scenario)
    context["derivation"] = _derivation_function(scenario)
    try:
        text = template.render(context)
    except (TemplateError, CalcError) as error:  # the sandbox's, Jinja's and the calculator's: the card's mistake
        raise CardError(Diagnostic(card.path, _error_line(error, template.filename, piece.line), "error",
                                   f"{label}: {_describe(error, scenario)}")) from None
    return RENDERED.put(cache_key, Rendered(to_html(text, piece.inline), piece.names, tuple(others)))


# The values that describe a pool, which a scenario that does not fit its GPU cannot have.
POOL_VALUES = frozenset(("pool_tokens", "pool_tokens_plain", "num_blocks", "kv_cache_memory_bytes", "users_fit",
                         "max_concurrency", "user_concurrency", "max_model_len_estimate", "log_line",
                         "stage_num_blocks"))


class CalcValues:
    """What calc(...) returns: another scenario's values, read as attributes.

    Each value read is recorded, so the calculator panel can show its derivation too.
    """

    def __init__(self, result: Result, label: str, record: list):
        self._result, self._label, self._record = result, label, record

    def __getattr__(self, name: str):
        if name in ("fits", "fit_verdict"):  # whether that scenario fits its GPU (None without a GPU)
            fit = self._result.fit
            return None if fit is None else (fit.fits if name == "fits" else fit.verdict)
        quantity = self._result.values.get(name)
        if quantity is None:
            raise AttributeError(f"calc({self._label}) has no value {name!r}")
        fit = self._result.fit
        if name in POOL_VALUES and fit is not None and not fit.fits:
            # A pool on a GPU its model does not fit is a deployment that cannot exist: no sentence states it.
            raise CalcError(f"calc({self._label}).{name}: that scenario {fit.verdict}", None)
        self._record.append((self._label, name, quantity.derivation))
        return quantity.value


def _calc_function(scenario: Scenario, record: list):
    def calc(**changes):
        # The same rule as a reader's change: a pool measured in tokens keeps its bytes.
        merged, _ = apply_changes(scenario.inputs.given(), normalised(changes))
        _, result = compute(parse_inputs(merged))
        return CalcValues(result, ", ".join(f"{k}={v}" for k, v in changes.items()), record)

    return calc


def _measured_function(card: Card, scenario: Scenario):
    """measured(text, on="own" | a variant's name, otherwise=""): the observation where it was
    measured, else what the author wrote for that case (nothing, by default)."""

    def measured(text, on: str = "own", otherwise: str = ""):
        if on != "own" and on not in [variant.name for variant in card.variants]:
            raise ExpressionError(f"measured(on={on!r}): on must be 'own' or a variant's name")
        here = scenario.own if on == "own" else (
            scenario.variant is not None and not scenario.overrides and card.variants[scenario.variant].name == on)
        if not here:
            return otherwise
        return measured_text(text, "the card's own scenario" if on == "own" else f"the variant {on!r}")

    return measured


def _derivation_function(scenario: Scenario):
    """derivation(name): the calculator's arithmetic for a value in this scenario, so a formula
    line is right for MLA and hybrids too."""

    def derivation(name: str) -> str:
        quantity = scenario.result.values.get(name) if isinstance(name, str) else None
        if quantity is None:
            hint = did_you_mean(str(name), VALUES)
            raise ExpressionError(f"derivation({name!r}): the calculator does not derive {name!r} here"
                                  + (f" ({hint})" if hint else ""))
        return quantity.derivation

    return derivation


def _error_line(error: Exception, template_file: str, first_line: int) -> int:
    """The file line of a render error: the line of the piece's template that Jinja's traceback
    ends in (the innermost, within a macro), from the piece's first line."""
    lineno = getattr(error, "lineno", None)
    if lineno is None:
        frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == template_file]
        lineno = frames[-1].lineno if frames else 1
    return first_line + lineno - 1


def _describe(error: TemplateError | CalcError, scenario: Scenario) -> str:
    if isinstance(error, CalcError):
        return f"calc(): {error.message}"
    message = error.message or str(error)
    if isinstance(error, UndefinedValue) and isinstance(error.name, str):
        if isinstance(error.owner, CalcValues):
            hint = did_you_mean(error.name, VALUES)
            return f"calc() has no value {error.name!r}" + (f" ({hint})" if hint else "")
        if error.owner is missing and error.hint is None:
            return f"{message} in this scenario: {_what_would_define(error.name, scenario)}"
    return message


def _what_would_define(name: str, scenario: Scenario) -> str:
    """What the scenario lacks for a name: the inputs a value needs, or the input itself."""
    if name in VALUES:
        given = set(scenario.inputs.given())
        return needs_text(name, given, attention_kind(scenario.result.model)) or \
            "the calculator does not derive it here"
    if name in FIELD_NAMES:
        return f"{name} is an input this scenario does not give: add it to the scenario"
    return "it has no value here"
