"""The web layer's caches, in one place: what each keeps, the function that builds its key, and
``clear`` for tests. (The card format's caches are the cards layer's; the calculator form's
catalog options are read once per process, since the catalog ships with the code.)
"""

from __future__ import annotations

from urllib.parse import urlencode

from markupsafe import Markup

from ..lru import LRU

# A card's calculator panel (its rows and their HTML) for a scenario: the same for every reader,
# and as costly to draw as the rest of the page (a select of every model in the card's space).
PANELS_KEPT = 1024
panels: LRU[tuple[list[dict], Markup]] = LRU(PANELS_KEPT)


def panel_key(card, scenario) -> tuple:
    """What decides a panel: the card's file version, the variant and the scenario's query (the
    inputs the reader changed, and the pool's rule)."""
    return (card.path, card.mtime, scenario.variant, urlencode(scenario.query()))


# What the bank page derives from a listing alone (its order, roles, tags, broken files): a
# listing is replaced, never changed in place, so it is kept by the objects' identity.
LISTINGS_KEPT = 8
listings: LRU[tuple] = LRU(LISTINGS_KEPT)


def listing_key(bank) -> tuple:
    """The listing's and its diagnostics' identities (the kept value holds both, so neither id is
    reused while it is kept)."""
    return (id(bank.cards), id(bank.diagnostics))


ALL = (panels, listings)


def clear() -> None:
    """Forget everything kept (tests that count what is drawn start from nothing)."""
    for cache in ALL:
        cache.clear()
