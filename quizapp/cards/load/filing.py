"""Where a card is filed in the bank: its ``topic`` (one of ``topics.TOPICS``).

A published card names its topic; a draft may leave it out until it is written (``quizapp new``
leaves a blank ``topic:`` with the list in a comment when none is given). An unknown topic is an
error at its line, with the closest id.
"""

from __future__ import annotations

from ...calc import did_you_mean
from ..topics import TOPIC_IDS
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
