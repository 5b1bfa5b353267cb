"""The web layer's caches, in one place: what each keeps, the function that builds its key, and
``clear`` for tests. (The card format's caches are the cards layer's; the calculator form's
catalog options are read once per process, since the catalog ships with the code.)
"""

from __future__ import annotations

import secrets
from urllib.parse import urlencode

from flask import request

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


# A card stage the reader has not revealed, drawn with these marks where its form's CSRF token
# and event id go (card_page.stage_html): random, so no card text can hold them.
STAGES_KEPT = 4096
stages: LRU[str] = LRU(STAGES_KEPT)
CSRF_MARK = "csrf-mark-" + secrets.token_hex(16)
EVENT_ID_MARK = "event-id-mark-" + secrets.token_hex(16)


def stage_key(page, s) -> tuple:
    """What decides an unrevealed stage's section: the card's file version and where the app is
    mounted (its form's URL), the scenario's query, the stage's button and what it waits for or
    opens, and whether it is the next one (its key hint)."""
    card = page.card
    return (card.path, card.mtime, card.id, request.script_root, page.query, s.name, s.label, s.available,
            s.waits_for, s.opens, s.level, s.level_label, s.question_html, s.name == page.view.next_stage)


def clear() -> None:
    """Forget everything kept (tests that count what is drawn start from nothing)."""
    panels.clear()
    stages.clear()
