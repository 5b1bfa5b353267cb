"""The question bank's page: the cards a reader's filters match, a page of them at a time.

A bank may hold thousands of cards; a page of BANK_PAGE_CARDS keeps `/` as cheap with 10,000
as with 18. The filters and the page number travel in the URL, so a page can be shared.

Most of the page is the same for every reader. What it derives from the listing is worked out
once per listing; each card's list item (all but the reader's standing line) once per file
version (``caches.bank_card_key``); a topic tile once per counts it shows, a filter's options
once per choice (``templates/practice/_bank_parts.html`` draws them, ``web/caches.py`` keeps
them). A request works out the reader's standings and puts the pieces together.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from math import ceil
from urllib.parse import urlencode

from flask import current_app, request, url_for
from markupsafe import Markup

from ...fields import optional_whole_number
from .. import caches
from ..learner.views import soon
from ..storage import get_bank, get_db, learner_id
from .review import counts_text, standings
from .topics import requested_topic, topic_rows

BANK_PAGE_CARDS = 50
PARTS = "practice/_bank_parts.html"


def bank_context() -> dict:
    """What bank.html shows for the request's search, role, tag, topic and page."""
    role = request.args.get("role", "").strip()
    tag = request.args.get("tag", "").strip()
    query = request.args.get("q", "").strip()
    topic = requested_topic(request.args)
    bank = get_bank()
    listing = listing_of(bank)
    matching = bank.matching(role, tag, query, topic) if role or tag or query or topic else listing.ordered
    pages = max(1, ceil(len(matching) / BANK_PAGE_CARDS))
    page = page_number(request.args.get("page"), pages)
    first = (page - 1) * BANK_PAGE_CARDS
    filters = {name: value for name, value in (("q", query), ("role", role), ("tag", tag), ("topic", topic)) if value}
    shown = matching[first:first + BANK_PAGE_CARDS]
    standing_all = standings(get_db(), learner_id(), listing.ordered)
    kinds = Counter(standing_all[card.id]["kind"] for card in matching)
    topics = topic_rows(listing.ordered, standing_all, topic)
    return {
        "cards": shown, "card_items": card_items(shown, standing_all),
        "count_text": count_text(first, len(shown), len(matching), len(bank.cards)),
        "counts": counts_text(kinds), "to_practise": kinds["due"] + kinds["new"],
        "practice_url": url_for("learner.practice", role=role or None, tag=tag or None, topic=topic or None),
        "topics": topics, "topic_tiles": topic_tiles(topics), "topic": topic,
        "weakest_url": url_for("learner.practice", topics="weakest"),
        "page": page, "pages": pages, "total": len(bank.cards), "role": role, "tag": tag, "query": query,
        "role_options": filter_options(listing.roles, role), "tag_options": filter_options(listing.tags, tag),
        "topic_options": filter_options(tuple((row["id"], row["title"]) for row in topics), topic),
        "broken": listing.broken,
        "previous_url": _page_url(filters, page - 1) if page > 1 else None,
        "next_url": _page_url(filters, page + 1) if page < pages else None,
    }


def count_text(offset: int, shown: int, matched: int, total: int) -> str:
    """"18 cards", "3 of 18 cards", "Cards 51–100 of 10,000", "Cards 1–50 of 120 matching (10,000 in all)"."""
    cards = f"{total:,} card{'s' if total != 1 else ''}"
    if shown == matched:
        return cards if matched == total else f"{matched:,} of {cards}"
    span = f"Cards {offset + 1:,}–{offset + shown:,} of {matched:,}"
    return span if matched == total else f"{span} matching ({total:,} in all)"


def page_number(text: str | None, pages: int) -> int:
    """The page the URL asks for (1 when it asks for none); a 400 naming ``page`` otherwise."""
    return optional_whole_number(text, "page", 1, pages) or 1


def _page_url(filters: dict, page: int) -> str:
    query = urlencode({**filters, **({"page": page} if page > 1 else {})})
    return "/" + (f"?{query}" if query else "")


# --- what is drawn once ------------------------------------------------------------------------

@dataclass(frozen=True)
class Listing:
    """What the page derives from a bank's listing alone. ``cards`` and ``diagnostics`` are the
    bank's own objects, held so that the identities they are kept by stay theirs."""

    cards: dict
    diagnostics: list
    ordered: list  # the cards in the authors' order (Bank.sorted_cards)
    roles: tuple[tuple[str, str], ...]  # the role filter's (value, label) pairs
    tags: tuple[tuple[str, str], ...]
    broken: int  # card files that do not load


def listing_of(bank) -> Listing:
    """The bank's Listing, worked out once per listing: with 10,000 cards, sorting them and
    counting the broken files cost more than the rest of the page."""
    cards, diagnostics = bank.cards, bank.diagnostics
    key = caches.listing_key(bank)
    kept = caches.listings.get(key)
    if kept is not None and kept.cards is cards and kept.diagnostics is diagnostics:
        return kept
    listing = Listing(cards, diagnostics, bank.sorted_cards(), tuple((r, r) for r in bank.roles()),
                      tuple((t, t) for t in bank.tags()), len(bank.broken()))
    if bank.cards is cards and bank.diagnostics is diagnostics:  # not replaced meanwhile: it is that listing's
        caches.listings.put(key, listing)
    return listing


def card_items(cards, standing: dict[str, dict]) -> Markup:
    """The cards' list items: each card's opening and closing drawn once per
    ``caches.bank_card_key``, around the reader's standing line."""
    parts = current_app.jinja_env.get_template(PARTS).module
    script_root = request.script_root
    html = []
    for card in cards:
        opening, closing = caches.bank_cards.get_or_make(
            caches.bank_card_key(card, script_root), lambda: (parts.card_opening(card), parts.card_closing(card)))
        html += (opening, standing_line(parts, standing[card.id]), closing)
    return Markup("".join(html))


def standing_line(parts, standing: dict) -> Markup:
    """The card's standing line; ``soon`` words a due time within the hour, so it is asked each time."""
    relative = soon(standing["due"]) if standing["due"] else ""
    return caches.standing_lines.get_or_make(
        caches.standing_line_key(standing, relative),
        lambda: parts.standing_line(standing["kind"], standing["label"], standing["due"], relative))


def topic_tiles(rows: list[dict]) -> Markup:
    """The topic tiles (``topics.topic_rows``), each drawn once per ``caches.topic_tile_key``."""
    parts = current_app.jinja_env.get_template(PARTS).module
    return Markup("".join(caches.topic_tiles.get_or_make(caches.topic_tile_key(row), lambda: parts.topic_tile(row))
                          for row in rows))


def filter_options(pairs: tuple[tuple[str, str], ...], selected: str) -> Markup:
    """A filter's <option>s (after its "All …" one), drawn once per ``caches.filter_options_key``."""
    key = caches.filter_options_key(pairs, selected)
    return caches.filter_options.get_or_make(
        key, lambda: current_app.jinja_env.get_template(PARTS).module.options(pairs, key[1]))
