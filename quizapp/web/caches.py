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


# The values API's answer (its JSON text) for a card's scenario: the same for every caller, and
# most of its time was writing 17 KB of JSON. A few hundred card-scenarios of author tools.
VALUES_KEPT = 512
values: LRU[str] = LRU(VALUES_KEPT)


def values_key(card, scenario) -> tuple:
    """What decides the values: the card's text (its digest) and id, and the scenario: its variant,
    inputs, what it holds fixed and the query it came from."""
    return (card.path, card.version, card.id, scenario.variant, scenario.key, tuple(scenario.held),
            urlencode(scenario.query()))


# A card stage's section, drawn with these marks where its forms' query, CSRF token and event ids
# go (card_page.stage_sections): random, so no card text can hold them. An unrevealed stage is one
# drawing for every scenario of the card. A card page draws a dozen stages, most of its time; a
# short answer holding what one reader typed is not kept.
STAGES_KEPT = 4096
stages: LRU[str] = LRU(STAGES_KEPT)
CSRF_MARK = "csrf-mark-" + secrets.token_hex(16)
EVENT_ID_MARK = "event-id-mark-" + secrets.token_hex(16)
QUERY_MARK = "query-mark-" + secrets.token_hex(16)


def stage_key(page, s) -> tuple:
    """What decides a stage's section: the card's file version and where the app is mounted (its
    forms' URLs), everything its view holds (its button, what it waits for or opens, its text
    once revealed), whether it is the next one (its key hint), the reader's mark on a follow-up,
    and, for the short answer, its answer box (a blank one: the unit and the steps' labels)."""
    card = page.card
    answer = blank_answer_key(page.answer) if s.name == "short" else None
    return (card.path, card.mtime, card.version, card.id, request.script_root, s.name, s.label,
            s.revealed, s.available, s.waits_for, s.opens, s.html, tuple(s.items), s.level, s.level_label,
            s.question_html, s.name == page.view.next_stage, page.attempt.marks.get(s.name), answer)


# A card page's every stage (card_page.kept_stages), by name, for the reader's state: the same
# drawings as ``stages`` keeps, found with one key instead of a dozen. A few hundred bytes each
# beyond the drawings it shares.
STAGE_SETS_KEPT = 2048
stage_sets: LRU[dict[str, str]] = LRU(STAGE_SETS_KEPT)


def stage_set_key(page, own_short: bool) -> tuple:
    """What decides every stage's section of a page (each as ``stage_key``): the card's view (its
    key holds the card's text, the stages open and, once a stage shows its text, the scenario:
    ``cards.caches.view_key``), the card's file and where the app
    is mounted, the reader's marks on follow-ups, and a blank answer box unless the short answer
    is drawn for the reader alone (``own_short``: then it is not in the set)."""
    card = page.card
    return (page.view.key, card.path, card.mtime, card.id, request.script_root,
            tuple(sorted(page.attempt.marks.items())), None if own_short else blank_answer_key(page.answer))


def blank_answer_key(answer: dict) -> tuple:
    """What an answer box with nothing typed shows (``answer_box.answer_view``): whether it asks
    for a number, the unit, and its steps' fields, labels and units."""
    return (answer["number"], answer["unit"], tuple((step["field"], step["label"], step["unit"])
                                                    for step in answer["steps"]))


# The card page's pieces beside the stages (card_page.CardPage): what the scenario holds fixed,
# the arithmetic of the revealed values and the scenario bar, each the same for every reader of
# a card in a scenario.
PAGE_PARTS_KEPT = 2048
page_parts: LRU[Markup] = LRU(PAGE_PARTS_KEPT)


def held_key(scenario, variant_name: str | None) -> tuple:
    return ("held", scenario.pool_rule, scenario.inputs.prompt_tokens is not None, scenario.gpu_name,
            tuple(scenario.held), variant_name, bool(scenario.overrides), scenario.own)


def derivations_key(view) -> tuple:
    return ("derivations", tuple((row["label"], row["text"], row["derivation"]) for row in view.derivations))


def scenario_bar_key(page) -> tuple:
    """The bar's rows are the panel's (only a panel without an error is kept: ``panel_key``)."""
    return ("bar", panel_key(page.card, page.scenario), page.card.version, page.page_url, page.variant_name,
            page.scenario.own)


# A row of a card's calculator panel or scenario bar (card_page.drawn_rows), by what it holds: a
# few per input of each card's space, the model's select of every model the costly one.
CONTROL_ROWS_KEPT = 4096
control_rows: LRU[str] = LRU(CONTROL_ROWS_KEPT)


def control_row_key(macro: str, row: dict) -> tuple:
    """The macro and every field of the row (``panel.controls``), lists and maps as tuples."""
    return (macro, *((name, _hashable(value)) for name, value in sorted(row.items())))


def _hashable(value):
    if isinstance(value, list):
        return tuple(value)
    if isinstance(value, dict):
        return tuple(sorted(value.items()))
    return value


# A card's list item on the bank page, before and after the reader's standing line (its title
# link, badge, meta line and tags): the same for every reader, and most of what drawing `/` cost
# (escaping, url_for, urlencode). A page shows 50 cards; this keeps 40 pages' worth, ~1 KB a card.
BANK_CARDS_KEPT = 2048
bank_cards: LRU[tuple[Markup, Markup]] = LRU(BANK_CARDS_KEPT)


def bank_card_key(card, script_root: str) -> tuple:
    """What decides a card's listing: its file version (path and time, and the digest of its text,
    which an edit changes even within the time's resolution), its id (the digest sets the id line
    aside), and the prefix its link carries (``request.script_root``)."""
    return (card.path, card.mtime, card.content, card.id, script_root)


# A card's standing line ("New", "Due now", "Learned · next review <time>"): one per standing
# without a time, one per reader's card and wording of its time otherwise.
STANDING_LINES_KEPT = 4096
standing_lines: LRU[Markup] = LRU(STANDING_LINES_KEPT)


def standing_line_key(standing: dict, relative: str) -> tuple:
    """What decides a standing line: its kind, label and due time, and how the time is worded now."""
    return (standing["kind"], standing["label"], standing["due"], relative)


# A topic tile of the bank, by the reader's counts in it: a few per topic for most readers.
TOPIC_TILES_KEPT = 1024
topic_tiles: LRU[Markup] = LRU(TOPIC_TILES_KEPT)


def topic_tile_key(row: dict) -> tuple:
    """What decides a tile (``topics.topic_rows``' row): the topic (its title and blurb are the
    code's), its card count, the reader's counts and whether the page filters by it."""
    return (row["id"], row["count"], tuple(row["counts"]), row["current"])


# The options of the bank's role, tag and topic filters, by the values offered and the one chosen.
FILTER_OPTIONS_KEPT = 1024
filter_options: LRU[Markup] = LRU(FILTER_OPTIONS_KEPT)


def filter_options_key(pairs: tuple[tuple[str, str], ...], selected: str) -> tuple:
    """What decides a filter's options: its (value, label) pairs and the value selected, or None
    when the value chosen is none of them (so an odd value in the URL is no new entry)."""
    return (pairs, selected if any(value == selected for value, _ in pairs) else None)


# What the bank page derives from a listing alone (its order, roles, tags, broken files): a
# listing is replaced, never changed in place, so it is kept by the objects' identity.
LISTINGS_KEPT = 8
listings: LRU[tuple] = LRU(LISTINGS_KEPT)


def listing_key(bank) -> tuple:
    """The listing's and its diagnostics' identities (the kept value holds both, so neither id is
    reused while it is kept)."""
    return (id(bank.cards), id(bank.diagnostics))


ALL = (panels, values, stages, stage_sets, page_parts, control_rows, bank_cards, standing_lines, topic_tiles, filter_options, listings)


def clear() -> None:
    """Forget everything kept (tests that count what is drawn start from nothing)."""
    for cache in ALL:
        cache.clear()
