"""Where a card is filed in the bank: its ``topic`` (one of ``topics.TOPICS``), and the old ids
it ``replaces`` (cards merged into it, whose links and progress now come to it).

A published card names its topic; a draft may leave it out until it is written (``quizapp new``
leaves a blank ``topic:`` with the list in a comment when none is given). An unknown topic is an
error at its line, with the closest id.
"""

from __future__ import annotations

from ...calc import did_you_mean
from ..diagnostics import Diagnostic
from ..topics import TOPIC_IDS
from .front_matter import ID_PATTERN
from .source import CardSource

TOPIC_HINT = "topics are " + ", ".join(TOPIC_IDS) + " (AUTHORING.md, Topics)"


def check_topic(source: CardSource, draft: bool) -> str | None:
    """The card's topic id, or None (reported unless the card is a draft without one)."""
    value = source.front_matter.get("topic")
    if "topic" in source.broken_keys:
        return None
    if value in (None, ""):
        if not draft:
            source.report(source.key_lines.get("topic", source.line_of("id")), "front matter has no 'topic'",
                          TOPIC_HINT)
        return None
    if not isinstance(value, str) or value not in TOPIC_IDS:
        source.report(source.line_of("topic"), f"unknown topic {value!r}",
                      did_you_mean(str(value), TOPIC_IDS) or TOPIC_HINT)
        return None
    return value


def check_replaces(source: CardSource) -> tuple[str, ...]:
    """The old card ids this card took the content of (``replaces: [old-id, ...]``): each answers
    with a redirect to this card, and a progress file's rows for it land here. Each must be an id;
    the bank checks that none is the id of a live card (``bank.alias_problems``)."""
    raw = source.front_matter.get("replaces")
    if raw is None or "replaces" in source.broken_keys:
        return ()
    raw = [raw] if isinstance(raw, str) else raw
    if not isinstance(raw, list):
        source.report(source.line_of("replaces"), "replaces must be a list of old card ids")
        return ()
    kept = []
    for index, old in enumerate(raw):
        if not (isinstance(old, str) and ID_PATTERN.match(old)):
            source.report(source.line_of(f"replaces.{index}"), f"replaces: {old!r} is not a card id",
                          "lowercase letters, digits and dashes")
        elif old == source.front_matter.get("id"):
            source.report(source.line_of(f"replaces.{index}"), f"replaces: {old!r} is this card's own id")
        elif old not in kept:
            kept.append(old)
    return tuple(kept)


def resolve_aliases(claims) -> tuple[dict[str, str], list[Diagnostic]]:
    """The bank's old ids, each to the card that replaces it, from ``claims``: (card id, path, line of
    its ``replaces``, the old ids) of every card that loads, in file order. An old id that is a live
    card's id, or that an earlier card already claims, is an error at the claim and goes to no card."""
    claims = list(claims)
    live = {card_id: path for card_id, path, _, _ in claims}
    aliases: dict[str, str] = {}
    claimed_by: dict[str, str] = {}
    problems = []
    for card_id, path, line, old_ids in claims:
        for old in old_ids:
            if old in live:
                problems.append(Diagnostic(path, line, "error", f"replaces: {old!r} is the id of a live card, "
                                           f"{live[old]}", "an old id redirects to its successor only once "
                                           "its card is gone"))
            elif old in aliases:
                problems.append(Diagnostic(path, line, "error", f"replaces: {old!r} is already replaced by "
                                           f"{claimed_by[old]}"))
            else:
                aliases[old], claimed_by[old] = card_id, path
    return aliases, problems
