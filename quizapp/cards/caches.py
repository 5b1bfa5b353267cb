"""The card layer's caches, in one place: what each keeps, by which key, and how many.

Each is a bounded LRU (``quizapp/lru.py``) of a value that depends on its key alone, so copies
of a card, the app's banks and its threads share one, and memory stays bounded however many
cards and scenarios readers ask for. Each key is built by the function beside its cache, and
nowhere else. ``clear_all()`` empties every one, for a test that must see work done again.

The design names two: compute by scenario key and render by card version, scenario and stage.
The others are kept for what the benchmark measured them to save. Beside each: CPU time
in-process (``bench/profile_requests.py`` for pages) with the cache, then with it holding
nothing. A bank's loaded cards are not here: they are the bank's own, by id (``Bank.get``).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import TYPE_CHECKING

from ..lru import LRU
from .load.front_matter import ID_PATTERN

if TYPE_CHECKING:
    from ..calc import Inputs


# Calculator results (``calc.Result``) by scenario key: a card page computes its scenario, a
# pool measured in tokens is computed under the card's own model too, and calc() calls more.
# Card page 0.92 ms, 1.27 without; values API 0.41, 0.72; every stage of a new scenario 2.6, 4.9.
COMPUTED: LRU = LRU(1024)


def scenario_key(inputs: Inputs) -> str:
    """A scenario's key: canonical JSON of the inputs it gives (Scenario.key), so equal inputs
    from a URL, a card and an interview are one scenario."""
    return json.dumps(inputs.given(), sort_keys=True, default=str)


# A card's scenarios (``scenario.Scenario``) by what asks for one: resolving a scenario parses,
# normalises and keys its inputs before the result is looked up. A card page asks on every
# request, the values API (a fifth of its time) and an interviewer's reveal twice. Hundreds of
# bytes each.
SCENARIOS: LRU = LRU(2048)
PLAIN_VALUES = (str, int, float, bool, type(None))


def scenario_query_key(card_version: str, variant, overrides: dict, pool_rule) -> tuple | None:
    """A scenario depends on the card's text and what is asked: the variant, the overrides (each
    value by its type and text, so 5 and "5" stay apart) and the pool's rule. None (not kept)
    when an override is not a plain value."""
    if not all(isinstance(value, PLAIN_VALUES) for value in overrides.values()):
        return None
    asked = tuple(sorted((name, type(value).__name__, repr(value)) for name, value in overrides.items()))
    return card_version, repr(variant), asked, repr(pool_rule)


# Rendered pieces (``template.render.Rendered``): the design's render by card version, scenario
# and stage (by piece: a stage is its pieces). Card page 0.92 ms, 1.05 without; card_view of
# every stage 0.06 ms, 1.0 ms. A few kilobytes each: ~20 pieces for each of ~400
# card-scenarios, some tens of megabytes at most.
RENDERED: LRU = LRU(8192)


def card_version(text: str) -> str:
    """A card file's version: a digest of its text. What its renders are kept by, so a file
    rewritten within one tick of the file system's clock is not taken for the one before."""
    return hashlib.sha1(text.encode()).hexdigest()


def render_key(card_version: str, piece: str, scenario_key: str, variant: int | None, own: bool) -> tuple:
    """What a rendered piece depends on: the card's text, which piece, the scenario's inputs, and
    which scenario it is (measured() and own_scenario tell the card's own scenario and its
    variants from the same inputs reached otherwise)."""
    return card_version, piece, scenario_key, variant, own


# Compiled pieces (``template.compile.Compiled``): every card compiles in one environment, so a
# piece's template depends on its source alone and copies of a card compile once. A new
# scenario's card page 1.9 ms, 4.1 without (compiled again to render); opening a copy of a card
# 7 ms, 21 ms when each card compiled its own pieces (c7150c6). ~8 KB each: enough for the
# pieces of every card a bank keeps loaded (256 cards of ~15 pieces).
TEMPLATES: LRU = LRU(4096)


# What a reader may see of a card's stages (``visibility.card_view``): each stage's view and the
# derivations, for a card's text, a scenario and the stages open. Drawn for every card page,
# fragment and candidate's state; its texts are the rendered pieces' own (RENDERED), so an entry
# adds little beyond them.
VIEWS: LRU = LRU(2048)


def view_key(card_version: str, drawn_for: tuple | None, revealed: set[str], in_order: bool,
             asked: set[str] | None) -> tuple:
    """The card's text, the scenario the revealed stages are rendered for (the pieces' keys,
    ``render_key``, without the card and the piece: its key, variant and own flag; None while
    nothing is revealed or asked), and what decides which stages are open and what they show: the
    stages revealed, whether they open in order, and the follow-ups asked."""
    return (card_version, drawn_for, frozenset(revealed), in_order, None if asked is None else frozenset(asked))


def template_key(source: str) -> str:
    """A compiled piece depends on its source alone."""
    return source


# Markdown converted and sanitized (``template.render.to_html``): a piece renders to the same
# text in most scenarios, and in a card's copies. Every stage of a new scenario (an
# interviewer's console) 2.6 ms, 4.3 without; opening a copy of a card 8 ms, 24 (its load
# renders each variant; c7150c6). A rendered piece is a few kilobytes: a few megabytes at most.
HTML: LRU = LRU(2048)


def html_key(text: str, inline: bool) -> tuple:
    return text, inline


# Index entries (``index.CardEntry``) and what loading a text found (the path it was loaded
# under and its diagnostics, ``bank._known_verdict``), by content_key: copies of a card are read
# and validated once. A bank of 10,000 copies is listed in 0.7 s; 10 s without the entries (the
# target is 5 s); 2.6 s without the verdicts, then 84 s of CPU validating copies in the
# background, 122 MB resident instead of 63 (c7150c6). An entry is a few kilobytes: ten
# thousand distinct cards fit.
ENTRIES: LRU = LRU(20_000)
VERDICTS: LRU = LRU(20_000)

# The id line, top level in the front matter: its value is the one part of a card's text that
# makes a copy of a card a different card.
ID_LINE = re.compile(r"^id:[ \t]*([a-z0-9][a-z0-9-]{0,79})[ \t]*$", re.M)
ID_PLACEHOLDER = "\x00id\x00"


def content_key(text: str) -> tuple[str, str | None]:
    """A digest of the card's text with its id's value set aside, and that id (None when the
    front matter has no plain ``id: value`` line: then the whole text is the key)."""
    end = text.find("\n---", 3)
    match = ID_LINE.search(text, 0, end if end > 0 else len(text))
    if match is None or not ID_PATTERN.match(match[1]):
        return hashlib.sha1(text.encode()).hexdigest(), None
    normal = text[:match.start(1)] + ID_PLACEHOLDER + text[match.end(1):]
    return hashlib.sha1(normal.encode()).hexdigest(), match[1]


ALL = (COMPUTED, SCENARIOS, RENDERED, VIEWS, TEMPLATES, HTML, ENTRIES, VERDICTS)


def clear_all() -> None:
    """Empty every cache of the card layer."""
    for cache in ALL:
        cache.clear()
