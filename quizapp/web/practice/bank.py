"""The question bank's page: the cards a reader's filters match, a page of them at a time.

A bank may hold thousands of cards; a page of BANK_PAGE_CARDS keeps `/` as cheap with 10,000
as with 18. The filters and the page number travel in the URL, so a page can be shared.
What the page derives from the listing alone is worked out once per listing (``listing_of``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from math import ceil
from urllib.parse import urlencode

from flask import request, url_for

from ...fields import optional_whole_number
from .. import caches
from ..storage import get_bank, get_db, learner_id
from .review import counts_text, standings
from .topics import requested_topic, topic_rows

BANK_PAGE_CARDS = 50


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
    every = listing.ordered
    standing_all = standings(get_db(), learner_id(), every)
    standing = {card.id: standing_all[card.id] for card in matching}
    kinds = Counter(s["kind"] for s in standing.values())
    return {
        "cards": shown, "count_text": count_text(first, len(shown), len(matching), len(bank.cards)),
        "standing": standing, "counts": counts_text(kinds), "to_practise": kinds["due"] + kinds["new"],
        "practice_url": url_for("learner.practice", role=role or None, tag=tag or None, topic=topic or None),
        "topics": topic_rows(every, standing_all, topic), "topic": topic,
        "weakest_url": url_for("learner.practice", topics="weakest"),
        "page": page, "pages": pages, "total": len(bank.cards), "roles": listing.roles, "tags": listing.tags,
        "role": role, "tag": tag, "query": query, "broken": listing.broken,
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


@dataclass(frozen=True)
class Listing:
    """What the page derives from a bank's listing alone. ``cards`` and ``diagnostics`` are the
    bank's own objects, held so that the identities they are kept by stay theirs."""

    cards: dict
    diagnostics: list
    ordered: list  # the cards in the authors' order (Bank.sorted_cards)
    roles: list[str]
    tags: list[str]
    broken: int  # card files that do not load


def listing_of(bank) -> Listing:
    """The bank's Listing, worked out once per listing: with 10,000 cards, sorting them and
    counting the broken files cost more than the rest of the page."""
    cards, diagnostics = bank.cards, bank.diagnostics
    key = caches.listing_key(bank)
    kept = caches.listings.get(key)
    if kept is not None and kept.cards is cards and kept.diagnostics is diagnostics:
        return kept
    listing = Listing(cards, diagnostics, bank.sorted_cards(), bank.roles(), bank.tags(), len(bank.broken()))
    if bank.cards is cards and bank.diagnostics is diagnostics:  # not replaced meanwhile: it is that listing's
        caches.listings.put(key, listing)
    return listing
