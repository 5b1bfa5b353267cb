"""Stages open in interview order: short, then full, then the follow-ups, wrong answers and lessons."""

import pytest

from quizapp.cards import OutOfOrder, available_stages, card_view, check_reveal, resolve_scenario, shown_stages
from quizapp.cards.stage_order import needs

from .conftest import load

AFTER_FULL = ["followup-1", "wrong", "taught"]


@pytest.fixture
def card(write_card):
    return load(write_card())


def test_the_tiny_card_has_every_kind_of_stage(card):
    assert card.stage_names == ["short", "full", *AFTER_FULL]


@pytest.mark.parametrize("stage, first", [("short", None), ("full", "short"), ("followup-1", "full"),
                                          ("followup-12", "full"), ("wrong", "full"), ("taught", "full"),
                                          ("a-stage-of-the-future", "full")])
def test_what_each_stage_needs(stage, first):
    assert needs(stage) == first


@pytest.mark.parametrize("revealed, available", [
    ([], ["short"]),
    (["short"], ["full"]),
    (["short", "full"], AFTER_FULL),
    (["short", "full", "wrong"], ["followup-1", "taught"]),
    (["full", "wrong"], ["short"]),          # recorded out of order: nothing counts before short
])
def test_available_stages(card, revealed, available):
    assert available_stages(card, revealed) == available


def test_a_stage_recorded_out_of_order_is_not_shown_until_its_prerequisite_is(card):
    assert shown_stages(card, ["followup-1", "full"]) == set()
    assert shown_stages(card, ["followup-1", "full", "short"]) == {"short", "full", "followup-1"}


@pytest.mark.parametrize("stage, revealed, message", [
    ("full", [], "Reveal the short answer first: the full answer opens once the short answer is shown, "
                 "as in an interview."),
    ("followup-1", ["short"], "Reveal the full answer first: follow-up questions and their expected answers "
                              "open once the full answer is shown, as in an interview."),
    ("wrong", [], "Reveal the full answer first: the wrong answers open once the full answer is shown, "
                  "as in an interview."),
    ("taught", ["short"], "Reveal the full answer first: where it is taught opens once the full answer is "
                          "shown, as in an interview."),
])
def test_an_out_of_order_reveal_is_refused_with_what_to_open_first(card, stage, revealed, message):
    with pytest.raises(OutOfOrder) as refused:
        check_reveal(card, stage, revealed)
    assert refused.value.status == 409
    assert refused.value.to_json() == {"error": message, "field": "stage"}


def test_revealing_a_shown_stage_again_is_allowed(card):
    check_reveal(card, "short", ["short", "full"])
    check_reveal(card, "full", ["short", "full"])


def test_the_card_view_shows_follow_up_questions_and_buttons_only_when_they_may_open(card):
    scenario = resolve_scenario(card, None, {})
    before = card_view(card, scenario, {"short", "followup-1"})
    follow_up = before.stage("followup-1")
    assert follow_up.question_html is None and follow_up.html is None and not follow_up.revealed
    assert not follow_up.available and follow_up.waits_for == "the full answer"
    assert [s.name for s in before.stages if s.available] == ["full"]

    after = card_view(card, scenario, {"short", "full", "followup-1"})
    assert after.stage("followup-1").revealed and "config says so" in after.stage("followup-1").html
    assert [s.name for s in after.stages if s.available] == ["wrong", "taught"]
