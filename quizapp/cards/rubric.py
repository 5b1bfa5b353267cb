"""The interviewer's scoring scale, and what each level means for one card.

``SCALE`` is the one table of levels: the console's buttons, the report and the front-matter
check read it. A card's ``rubric:`` lists, per level, the points a candidate at that level
makes on that card; a level the card leaves out keeps only its general meaning.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    score: int
    name: str  # as a card's rubric: names it
    meaning: str  # what the level means on any card


SCALE = (
    Level(1, "missed", "Did not reach the answer, or reached it only once it was shown."),
    Level(2, "partial", "The right approach with a gap or a slip, or only with hints."),
    Level(3, "solid", "The right answer with its reasoning, without help."),
    Level(4, "beyond", "Solid, and more: a trade-off, a check of the result, or the next question answered "
                       "before it was asked."),
)
LEVEL_NAMES = tuple(level.name for level in SCALE)
SCORES = tuple(level.score for level in SCALE)


def level_of(score) -> Level | None:
    """The level with this score (1 to 4), or None."""
    return next((level for level in SCALE if level.score == score), None)


def rubric_rows(points: dict[str, list[str]] | None) -> list[dict]:
    """Each level with its general meaning and the card's own points for it (``card.rubric``)."""
    points = points or {}
    return [{"score": level.score, "name": level.name, "meaning": level.meaning,
             "points": list(points.get(level.name, []))} for level in SCALE]
