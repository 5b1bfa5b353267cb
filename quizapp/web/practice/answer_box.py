"""A typed answer on the card page: what the answer event stores, and how the verdict reads.

The verdict always names the scenario it was checked for; when the reader has changed the
scenario since, the page says so and gives this scenario's answer.
"""

from __future__ import annotations

from ...cards.template.environment import dtype
from ...progress.answers.grading import GRADED, VERDICTS, display, grade_card_answer, unit_label


def scenario_label(scenario) -> str:
    """A scenario as a verdict names it: "Qwen3-8B on the L4", "Llama-3.1-8B-Instruct with the KV
    cache in FP8 on the L4", "Llama-3.1-70B-Instruct at tensor parallel size 4"."""
    inputs = scenario.inputs
    words = [(inputs.model or "the card's model").rpartition("/")[2]]
    if inputs.kv_cache_dtype and inputs.kv_cache_dtype != "auto":
        words.append(f"with the KV cache in {dtype(inputs.kv_cache_dtype)}")
    if inputs.tensor_parallel_size and inputs.tensor_parallel_size > 1:
        words.append(f"at tensor parallel size {inputs.tensor_parallel_size}")
    if scenario.gpu_name:
        words.append(f"on the {scenario.gpu_name}")
    return " ".join(words)


def checked_answer(card, scenario, typed: str, working: str) -> dict:
    """What an answer event stores, typed before the short answer is seen: the verdict and why,
    and when it was graded the expected value, its arithmetic, the mistake it matches and the
    scenario it was checked for (its label and key). ``working`` is kept, never graded."""
    detail = _checked_number(card, scenario, typed) if card.answer else {}
    if working.strip():
        detail["working"] = working
    return detail


def _checked_number(card, scenario, typed: str) -> dict:
    if not typed.strip():
        return {"message": "No number in the answer box, so nothing was checked."}
    grade = grade_card_answer(card.answer, scenario.result.values, typed)
    if grade is None:
        return {"message": f"Not checked: the answer cannot be worked out for {scenario_label(scenario)}."}
    detail = grade.stored()
    if grade.verdict in GRADED:
        detail.update(checked_for=scenario_label(scenario), scenario_key=scenario.key)
    return detail


# How the page says each verdict after "checked for …:".
VERDICT_WORDS = {"right": "right", "close": "close", "wrong": "wrong", "mistake": "a known mistake"}


def answer_view(card, scenario, attempt) -> dict:
    """The answer box and the verdict as the page shows them: the unit beside the box, what was
    typed, and the verdict named with the scenario it was checked for, plus this scenario's
    answer when the reader has changed the scenario since."""
    values = scenario.result.values
    expected = values.get(card.answer["value"]) if card.answer else None
    feedback = attempt.feedback
    feedback = feedback if isinstance(feedback, dict) else {}
    view = {"number": card.answer is not None, "unit": unit_label(expected) if expected else "",
            "typed": attempt.answer or "", "working": feedback.get("working") or "", "verdict": None}
    verdict = feedback.get("verdict")
    if not feedback.get("message") or not isinstance(verdict, (str, type(None))):  # an imported file's oddity
        return view
    view.update(verdict=verdict if verdict in VERDICTS else "none", message=feedback["message"],
                derivation=feedback.get("derivation"))
    if verdict in VERDICT_WORDS and feedback.get("checked_for"):
        headline = f"Checked for {feedback['checked_for']}: {VERDICT_WORDS[verdict]}"
        if feedback.get("scenario_key") != scenario.key:
            headline += _for_this_scenario(feedback["checked_for"], scenario, expected)
        view["headline"] = headline + "."
    elif verdict not in VERDICT_WORDS:
        view["headline"] = "Not checked"
    return view


def _for_this_scenario(checked_for: str, scenario, expected) -> str:
    now = scenario_label(scenario)
    named = "this scenario" if now == checked_for else f"this scenario ({now})"
    if expected is None:
        return f"; {named} has no answer to compare"
    return f"; for {named} the answer is {display(expected)}"
