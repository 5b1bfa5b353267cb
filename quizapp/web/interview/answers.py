"""The candidate's typed answer in an interview: the boxes their screen offers for the card on it
(each step and the number, with units), and what they typed, checked in the session's scenario,
for the console and the report. The candidate's own screen never shows a verdict.
"""

from __future__ import annotations

from ...progress.answers.grading import grade_card_answer, unit_label
from ...progress.answers.steps import boxed_steps, check_steps, divergence_text, first_divergence


def _steps_typed(typed: dict | None) -> dict:
    steps = (typed or {}).get("steps")
    return steps if isinstance(steps, dict) else {}


def answer_box(card, scenario, typed: dict | None) -> dict | None:
    """The boxes of the candidate's answer to a card with an ``answer``: each step and the number,
    with their units, and what the candidate typed so far; None for a card without one."""
    if card is None or scenario is None or not card.answer:
        return None
    values = scenario.result.values
    steps = _steps_typed(typed)
    expected = values.get(card.answer["value"])
    return {"card": card.id,
            "steps": [{"field": step.field, "label": step.label, "unit": step.unit, "typed": steps.get(step.field, "")}
                      for step in boxed_steps(card.answer, values)],
            "unit": unit_label(expected) if expected else "", "typed": (typed or {}).get("answer", "")}


def checked_answer(card, scenario, typed: dict | None) -> dict | None:
    """What the candidate typed for a card, checked in the session's scenario: {"answer", "verdict",
    "message", "steps", "divergence", "at"}; None when nothing was typed."""
    if not typed or card is None or scenario is None or not card.answer:
        return None
    values = scenario.result.values
    steps = check_steps(card.answer, values, _steps_typed(typed))
    number = str(typed.get("answer") or "")
    grade = grade_card_answer(card.answer, values, number) if number else None
    if not steps and grade is None:
        return None
    diverges = first_divergence(steps)
    return {"answer": number, "verdict": grade.verdict if grade else None, "message": grade.message if grade else "",
            "steps": steps, "divergence": divergence_text(diverges) if diverges else "", "at": typed.get("at")}
