"""The question bank's page: the cards a reader's filters match, a page of them at a time.

A bank may hold thousands of cards; a page of BANK_PAGE_CARDS keeps `/` as cheap with 10,000
as with 18. The filters and the page number travel in the URL, so a page can be shared.
"""

from __future__ import annotations

from math import ceil
from urllib.parse import urlencode

from collections import Counter

from flask import request, url_for

from ...fields import optional_whole_number
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
    matching = bank.matching(role, tag, query, topic)
    pages = max(1, ceil(len(matching) / BANK_PAGE_CARDS))
    page = page_number(request.args.get("page"), pages)
    first = (page - 1) * BANK_PAGE_CARDS
    filters = {name: value for name, value in (("q", query), ("role", role), ("tag", tag), ("topic", topic)) if value}
    shown = matching[first:first + BANK_PAGE_CARDS]
    every = bank.sorted_cards()
    standing_all = standings(get_db(), learner_id(), every)
    standing = {card.id: standing_all[card.id] for card in matching}
    kinds = Counter(s["kind"] for s in standing.values())
    return {
        "cards": shown, "count_text": count_text(first, len(shown), len(matching), len(bank.cards)),
        "standing": standing, "counts": counts_text(kinds), "to_practise": kinds["due"] + kinds["new"],
        "practice_url": url_for("learner.practice", role=role or None, tag=tag or None, topic=topic or None),
        "topics": topic_rows(every, standing_all, topic), "topic": topic,
        "weakest_url": url_for("learner.practice", topics="weakest"),
        "page": page, "pages": pages, "total": len(bank.cards), "roles": bank.roles(), "tags": bank.tags(),
        "role": role, "tag": tag, "query": query, "broken": len(bank.broken()),
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
