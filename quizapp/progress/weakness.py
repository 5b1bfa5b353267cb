"""Where a reader is weakest: their topics ranked by their recent grades and lapses (issue 20).

Practice can draw from the weakest topics (``/practice?topics=weakest``). The rule is ``RULE``,
and the practice page says it: over the reader's last ``RECENT_REVIEWS`` reviews, each topic's
share of Again and Hard grades, highest first; a tie goes to the topic whose cards have lapsed
more (FSRS's lapses: a card in review graded Again). The weakest are the first ``WEAKEST`` with
at least one Again or Hard grade: a topic never graded, or graded only Good and Easy, is not
among them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlite_utils import Database

from .scheduling import RATINGS, states

RECENT_REVIEWS = 50
WEAKEST = 3
MISSED = {int(RATINGS["again"]), int(RATINGS["hard"])}
RULE = (f"the topics with the largest share of Again and Hard grades in your last {RECENT_REVIEWS} reviews "
        f"(a tie goes to the one whose cards lapsed more), at most {WEAKEST}, each with one such grade at least")


def ranked_topics(db: Database, learner_id: str, topic_of: Mapping[str, str],
                  order: Sequence[str] = ()) -> list[dict]:
    """Each topic the reader's last reviews touch: {"topic", "reviews", "missed", "share", "lapses"},
    weakest first. ``topic_of`` maps the bank's card ids to their topics (a review of a card the
    bank no longer has is left out); ``order`` breaks the last ties (the topics' list order)."""
    rows = db.execute("SELECT card_id, rating FROM review_log WHERE learner_id = ? ORDER BY reviewed_at DESC, "
                      "id DESC LIMIT ?", [learner_id, RECENT_REVIEWS]).fetchall()
    tally: dict[str, dict] = {}
    for card_id, rating in rows:
        topic = topic_of.get(card_id)
        if topic is None:
            continue
        entry = tally.setdefault(topic, {"topic": topic, "reviews": 0, "missed": 0, "lapses": 0, "cards": set()})
        entry["reviews"] += 1
        entry["missed"] += rating in MISSED
        entry["cards"].add(card_id)
    known = states(db, learner_id)
    for entry in tally.values():
        entry["lapses"] = sum(known[c]["lapses"] for c in entry.pop("cards") if c in known)
        entry["share"] = entry["missed"] / entry["reviews"]
    rank = {topic: index for index, topic in enumerate(order)}
    return sorted(tally.values(), key=lambda e: (-e["share"], -e["lapses"], rank.get(e["topic"], len(rank)),
                                                 e["topic"]))


def weakest_topics(db: Database, learner_id: str, topic_of: Mapping[str, str], order: Sequence[str] = ()
                   ) -> list[str]:
    """The reader's weakest topics by ``RULE``: [] when no recent review was graded Again or Hard."""
    return [e["topic"] for e in ranked_topics(db, learner_id, topic_of, order) if e["missed"]][:WEAKEST]
