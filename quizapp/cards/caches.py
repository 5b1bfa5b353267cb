"""The card layer's caches, in one place: what each keeps, by which key, and how many.

Each is a bounded LRU (``quizapp/lru.py``) of a value that depends on its key alone, so copies
of a card, the app's banks and its threads share one, and memory stays bounded however many
cards and scenarios readers ask for. Each key is built by the function beside its cache, and
nowhere else. ``clear_all()`` empties every one, for a test that must see work done again.

(A bank's loaded cards are not here: they are the bank's own, by id, ``Bank.get``.)
"""

from __future__ import annotations

import hashlib

from ..lru import LRU


def card_version(text: str) -> str:
    """A card file's version: a digest of its text. What a card's renders are kept by, so a file
    changed within the file system's timestamp resolution is not taken for the one before."""
    return hashlib.sha1(text.encode()).hexdigest()


# Rendered pieces (``template.render.Rendered``), the design's "render by card version, scenario
# and stage" (by piece: a stage is its pieces). A piece renders in about a millisecond and is a
# few kilobytes: ~20 pieces for each of ~400 card-scenarios, some tens of megabytes at most.
RENDERED: LRU = LRU(8192)


def render_key(card_version: str, piece: str, scenario_key: str, variant: int | None, own: bool) -> tuple:
    """What a rendered piece depends on: the card's text, which piece, the scenario's inputs, and
    which scenario it is (measured() and own_scenario tell the card's own scenario and its
    variants from the same inputs reached otherwise)."""
    return card_version, piece, scenario_key, variant, own


# Compiled pieces (``template.compile.Compiled``): every card compiles in one environment, so a
# piece's template depends on its source alone and copies of a card compile once. ~8 KB each;
# enough for the pieces of every card a bank keeps loaded (256 cards of ~15 pieces).
TEMPLATES: LRU = LRU(4096)


def template_key(source: str) -> str:
    """A compiled piece depends on its source alone."""
    return source


ALL = (RENDERED, TEMPLATES)


def clear_all() -> None:
    """Empty every cache of the card layer."""
    for cache in ALL:
        cache.clear()
