"""The bank's topics on its pages: the filter a URL asks for, each topic's counts and the reader's
standing in it, and which cards practice draws from (one topic, or the reader's weakest).

``/?topic=<id>`` and ``/practice?topic=<id>`` filter by one topic; ``/practice?topics=weakest``
draws from the reader's weakest topics (``progress.weakness.RULE``, said on the page). A topic
that is not on the list is a 400 naming the field: JSON for a script, an error page for a browser.
"""

from __future__ import annotations

from collections import Counter

from ...calc import FieldError, did_you_mean
from ...cards.topics import TOPIC_IDS, TOPICS, topic_of
from ...progress import weakness
from .review import counts_text

# What ``topics=`` may ask for.
TOPIC_CHOICES = ("weakest",)


def requested_topic(args) -> str:
    """The ``topic`` the URL filters by ("" for none); a FieldError for an id not on the list."""
    value = args.get("topic", "").strip()
    if value and value not in TOPIC_IDS:
        raise FieldError(f"topic {value[:80]!r} is not one of the bank's topics: "
                         + (did_you_mean(value, TOPIC_IDS) or f"the topics are {', '.join(TOPIC_IDS)}"), "topic")
    return value


def requested_topics(args) -> str:
    """``topics`` ("" or "weakest"); a FieldError for anything else."""
    value = args.get("topics", "").strip()
    if value and value not in TOPIC_CHOICES:
        raise FieldError(f"topics must be {' or '.join(TOPIC_CHOICES)}, got {value[:80]!r}", "topics")
    return value


def topic_rows(cards, standing: dict[str, dict], current: str = "") -> list[dict]:
    """The bank's topics that hold cards, in the list's order: {"id", "title", "blurb", "count",
    "counts" (the reader's standings, as the bank's counts word them), "current"}."""
    # Counted as pairs first: a Counter made per card (setdefault's default) cost most of this with 10,000.
    by_topic: dict[str, Counter] = {}
    for (topic, kind), count in Counter((card.topic, standing[card.id]["kind"]) for card in cards).items():
        by_topic.setdefault(topic, Counter())[kind] = count
    return [{"id": t.id, "title": t.title, "blurb": t.blurb, "count": sum(by_topic[t.id].values()),
             "counts": counts_text(by_topic[t.id]), "current": t.id == current}
            for t in TOPICS if t.id in by_topic]


def practice_pool(db, learner_id: str, cards: list, topic: str, topics: str) -> tuple[list, dict | None]:
    """The cards a practice session draws from, and what the page says of it (None: every topic).

    ``topic``: that topic's cards. ``topics="weakest"``: the cards of the reader's weakest topics;
    with none yet (no Again or Hard grade in the recent reviews), every card, and the page says so."""
    if topic:
        return [c for c in cards if c.topic == topic], {"kind": "topic", "text": f"Topic: {topic_of(topic).title}"}
    if topics != "weakest":
        return cards, None
    weakest = weakness.weakest_topics(db, learner_id, {c.id: c.topic for c in cards}, TOPIC_IDS)
    if not weakest:
        return cards, {"kind": "weakest", "topics": [], "rule": weakness.RULE,
                       "text": "Your weakest topics: none yet, so every topic. The weakest are " + weakness.RULE + "."}
    titles = [topic_of(t).title for t in weakest]
    return [c for c in cards if c.topic in weakest], {
        "kind": "weakest", "topics": weakest, "rule": weakness.RULE,
        "text": f"Your weakest topics: {', '.join(titles)}. The weakest are {weakness.RULE}."}
