"""Arbitrary input to the interview API, as tests/web/test_properties.py sends it to the values
API: never a 500, a JSON rejection of an object names its field, and no call takes a second.

Whole numbers (a score, a note's id, a variant) are drawn as digits of every script too:
``str.isdigit()`` is true of "²" and "٢", and "²" once reached ``int()`` and a 500.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from flask.testing import FlaskClient
from hypothesis import given
from hypothesis import strategies as st

from quizapp.calc import FIELD_NAMES

from ..test_properties import PROPERTY, json_values, plausible, scalars, timed

CARDS = ("kv-pool-users", "kv-bytes-per-token")
card_ids = st.sampled_from([*CARDS, "nope", ""])
# A whole number as a client may send one: ASCII digits, other scripts' digits, signs, huge, not one at all.
numberish = st.one_of(
    st.sampled_from(["²", "٢", "１", "³", "߂", " 2", "2 ", "+2", "-1", "2.0", "", "null", "0x2", "1e3", True, 2.5]),
    st.text(st.characters(categories=("Nd", "No")), min_size=1, max_size=3),  # digits of every script
    st.integers(-5, 10), st.integers(0, 12).map(str),
    st.sampled_from([2**63 - 1, 2**63, 2**70, -(2**63) - 1, "9" * 25]), st.integers(),
)
stages = st.sampled_from(["short", "full", "wrong", "taught", "followup-1", "followup-2", "followup-9", "answer", ""])
texts = st.one_of(st.text(max_size=40), st.sampled_from(["", "  ", "n" * 10_001]), scalars)


def post_json(client: FlaskClient, url: str, body, token: str):
    """``body`` as a script sends it, null included (the test client's ``json=None`` sends no body)."""
    return client.post(url, data=json.dumps(body), content_type="application/json", headers={"X-CSRFToken": token})


# ---------------------------------------------------------------- a new session

variants = st.one_of(numberish, st.sampled_from(["Qwen3-8B with an FP8 KV cache", "0", "1"]))
scenarios = st.one_of(
    st.fixed_dictionaries({"variant": variants}),
    st.dictionaries(st.sampled_from(("variant", *FIELD_NAMES)), st.one_of(variants, plausible), max_size=3),
    json_values,
)
planned_cards = st.one_of(st.fixed_dictionaries({"id": st.sampled_from(CARDS)}, optional={"scenario": scenarios}),
                          card_ids, json_values)
names = st.one_of(st.sampled_from(["", "x" * 201]), st.text(max_size=20), scalars)
sessions = st.one_of(
    # Well-formed but for the variant: each card's scenario reaches the variant's check.
    st.fixed_dictionaries({"candidate": st.just("Ada"), "cards": st.lists(
        st.fixed_dictionaries({"id": st.sampled_from(CARDS), "scenario": st.fixed_dictionaries({"variant": variants})}),
        min_size=1, max_size=2, unique_by=lambda card: card["id"])}),
    # Anything in any field.
    st.fixed_dictionaries(
        {"candidate": st.one_of(st.just("Ada"), names),
         "cards": st.one_of(st.lists(planned_cards, min_size=1, max_size=3, unique_by=str), json_values)},
        optional={"role": st.one_of(st.sampled_from(["Inference Engineering", "No such role"]), texts), "tag": texts}),
)


@PROPERTY
@given(body=st.one_of(sessions, json_values))
def test_creating_a_session_never_fails(interviewer, body):
    response = timed(lambda: post_json(interviewer.client, "/api/interviews", body, interviewer.csrf()))
    assert response.status_code in (201, 400), response.text[:300]
    if response.status_code == 400:
        data = response.get_json()
        assert data["error"], data
        assert isinstance(data["field"], str) or not isinstance(body, dict), data


# ---------------------------------------------------------------- the interviewer's actions

cards = st.one_of(st.sampled_from(CARDS), card_ids, scalars)
signals = st.one_of(st.sampled_from(["wrong-1", "wrong-3", "wrong-9", ""]), json_values)
recommendations = st.one_of(st.sampled_from(["yes", "strong_no", "no_decision", "maybe", ""]), scalars)
scored = st.fixed_dictionaries({"card": st.sampled_from(CARDS), "stage": st.sampled_from(["short", "full", "followup-1"])})
actions = st.one_of(
    # Well-formed but for the whole number: the parser of a score and of a note's id is reached.
    st.tuples(st.just("/score"), st.builds(lambda where, score: {**where, "score": score}, scored, numberish)),
    st.tuples(st.just("/note/delete"), st.fixed_dictionaries({"note": numberish})),
    # Each action with the fields it reads, any of them wrong.
    st.tuples(st.just("/show"), st.fixed_dictionaries({"card": cards})),
    st.tuples(st.just("/reveal"), st.fixed_dictionaries({"card": cards, "stage": stages})),
    st.tuples(st.just("/score"), st.fixed_dictionaries({"card": cards, "stage": stages, "score": numberish})),
    st.tuples(st.just("/signal"), st.fixed_dictionaries({"card": cards, "signal": signals,
                                                          "heard": st.one_of(st.booleans(), scalars)})),
    st.tuples(st.just("/note"), st.fixed_dictionaries({"text": texts}, optional={"card": cards})),
    st.tuples(st.just("/recommendation"), st.fixed_dictionaries({"recommendation": recommendations,
                                                                  "reason": texts})),
    # Anything.
    st.tuples(st.sampled_from(["/show", "/reveal", "/score", "/signal", "/note", "/note/delete", "/recommendation"]),
              st.one_of(json_values, st.dictionaries(st.sampled_from(["card", "stage", "score", "note", "text", "signal",
                                                                      "heard", "view", "anchor"]),
                                                     st.one_of(numberish, json_values), max_size=5))),
)


def as_form(body) -> dict:
    """An action's fields as a page without JavaScript posts them: text (a list for ticked signals)."""
    if not isinstance(body, dict):
        return {}
    return {key: [str(v) for v in value] if isinstance(value, list) else "" if value is None else str(value)
            for key, value in body.items()}


@dataclass
class Console:
    client: FlaskClient
    url: str  # the interviewer's
    candidate_url: str
    token: str  # the CSRF token, read once: a page per example would cost more than the action


@pytest.fixture
def console(interviewer) -> Console:
    """One session of both cards for all of a test's examples (the fixture runs once per test)."""
    created = interviewer.create(CARDS)
    for n in range(3):  # notes 1 to 3, for deletes to find
        interviewer.post(created["interviewer_url"] + "/note", {"text": f"note {n}"})
    return Console(interviewer.client, created["interviewer_url"], created["candidate_url"], interviewer.csrf())


@PROPERTY
@given(action=actions)
def test_an_action_as_json_never_fails(console, action):
    path, body = action
    response = timed(lambda: post_json(console.client, console.url + path, body, console.token))
    assert response.status_code in (200, 400), response.text[:300]
    if response.status_code == 400:
        data = response.get_json()
        assert data["error"], data
        assert isinstance(data["field"], str) or not isinstance(body, dict), data


@PROPERTY
@given(action=actions)
def test_an_action_as_a_form_never_fails(console, action):
    """A page without JavaScript posts the same actions as a form: back to the console, or a page
    that says what is wrong."""
    path, body = action
    response = timed(lambda: console.client.post(console.url + path, data={"csrf_token": console.token,
                                                                            **as_form(body)}))
    assert response.status_code in (303, 400), response.text[:300]


@PROPERTY
@given(body=st.one_of(st.fixed_dictionaries({"text": texts}), json_values))
def test_the_scratch_box_never_fails(console, body):
    response = timed(lambda: post_json(console.client, console.candidate_url + "/scratch", body, console.token))
    assert response.status_code in (200, 400), response.text[:300]
