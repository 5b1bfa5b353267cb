"""The candidate's pages: the question bank, and a card with staged reveals and a live calculator.

What a card page shows is built in ``card_page``; the views here record what the reader does.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

from flask import Blueprint, abort, flash, jsonify, redirect, render_template, request, session, url_for

from ...cards import check_reveal
from ...progress import events, learners, scheduling
from ...progress.clock import iso, now_utc, parse_iso
from . import session as practice_session
from .answer_box import checked_answer, typed_steps
from .bank import bank_context
from .card_page import card_url, fragment_json, page_for, scenario_from_request
from .review import comes_back
from ..storage import get_card, get_db, learner_id, new_event_id

bp = Blueprint("practice", __name__)


def record(card, kind: str, scenario=None, stage=None, value=None, detail=None, event_id=None,
           at: datetime | None = None) -> bool:
    """Store one event of the reader's, with the scenario they saw."""
    seen = None
    if scenario is not None:
        seen = {**scenario.inputs.given(), "variant": scenario.variant}
    event = events.Event(event_id or new_event_id(), card.id, kind, stage, value, detail, seen)
    return events.record(get_db(), learner_id(), event, at=at)


# A first look at a card by a visitor with nothing stored: the card and the time, in their session.
PENDING_OPEN = "opened"


def note_open(card, scenario) -> None:
    """The attempt starts when the card is first shown: the clock for "time to first reveal".

    A visitor who has stored nothing yet gets no row for a look (a crawler would fill the
    database): the time waits in their signed session, and is stored by ``begin_attempt``
    when they first act on the card.
    """
    if learners.get_learner(get_db(), learner_id()) is not None:
        record(card, "open", scenario)
    elif session.get(PENDING_OPEN, {}).get("card") != card.id:
        session[PENDING_OPEN] = {"card": card.id, "at": iso(now_utc())}


def begin_attempt(card, scenario) -> events.Attempt:
    """The reader's current attempt at the card, with a first look still in the session stored first."""
    pending = session.get(PENDING_OPEN)
    if pending and pending.get("card") == card.id:
        session.pop(PENDING_OPEN)
        # Its id comes from the look itself: a cookie sent again from before the pop (a second
        # tab, a replaying client) finds it stored, instead of adding an open in the past, which
        # would make the attempt be rebuilt from all its events on every request. Found stored, it
        # is not recorded again: that needs no write turn, and a replay from another scenario's
        # page is no conflicting event.
        open_id = f"open-{uuid.uuid5(uuid.NAMESPACE_URL, card.id + '|' + pending['at']).hex}"
        if not events.is_stored(get_db(), learner_id(), open_id):
            record(card, "open", scenario, at=parse_iso(pending["at"]), event_id=open_id)
    return events.current_attempt(get_db(), learner_id(), card.id)


@bp.get("/")
def index():
    return render_template("practice/bank.html", **bank_context())


@bp.get("/cards/<card_id>")
def card(card_id):
    card = get_card(card_id)
    scenario, error = scenario_from_request(card)
    attempt = events.current_attempt(get_db(), learner_id(), card.id)
    if not attempt.started:
        note_open(card, scenario)
        attempt = None  # the first look is now part of it: page_for reads it again
    page = page_for(card, scenario, error, attempt=attempt)
    return render_template("practice/card.html", page=page), (400 if error else 200)


@bp.post("/cards/<card_id>/reveal/<stage>")
def reveal(card_id, stage):
    card = get_card(card_id)
    if card.stage(stage) is None:
        abort(404, description=f"Card {card_id!r} has no stage {stage!r}; its stages are "
                               f"{', '.join(card.stage_names)}.")
    scenario, error = scenario_from_request(card)
    event_id = _form_event_id()
    # A form submitted again was stored the first time: show the page as it is now.
    if not events.is_stored(get_db(), learner_id(), event_id):
        # Out of order (a follow-up before the full answer …): 409, and nothing is stored.
        check_reveal(card, stage, events.current_attempt(get_db(), learner_id(), card.id).revealed)
        attempt = begin_attempt(card, scenario)
        if stage == "short" and "short" not in attempt.revealed:
            _record_answer(card, scenario, event_id)
        detail = {"elapsed_ms": attempt.elapsed_ms(datetime.now(timezone.utc))} if not attempt.revealed else None
        record(card, "reveal", scenario, stage=stage, detail=detail, event_id=event_id)
    if _wants_fragment():
        return jsonify(fragment_json(page_for(card, scenario, error), focus=stage))
    # Post/redirect/get: a reload shows the page instead of posting again.
    return redirect(card_url(card, scenario) + f"#stage-{stage}", code=303)


@bp.post("/cards/<card_id>/followup/<int:number>")
def followup(card_id, number):
    """The candidate says whether they knew a follow-up's expected answer."""
    card = get_card(card_id)
    stage = f"followup-{number}"
    value = request.form.get("value")
    if card.stage(stage) is None:
        abort(404, description=f"Card {card_id!r} has no follow-up {number}.")
    if value not in events.FOLLOWUP_VALUES:
        abort(400, description="value must be knew or missed")
    scenario, _ = scenario_from_request(card)
    begin_attempt(card, scenario)
    record(card, "followup", scenario, stage=stage, value=value, event_id=_form_event_id())
    return redirect(card_url(card, scenario) + f"#stage-{stage}", code=303)


@bp.post("/cards/<card_id>/grade")
def grade(card_id):
    """Self-grade after the full answer: FSRS schedules the card's next review."""
    card = get_card(card_id)
    rating = request.form.get("rating", "")
    if rating not in scheduling.RATINGS:
        *others, last = scheduling.RATINGS
        abort(400, description=f"rating must be {', '.join(others)} or {last}")
    scenario, _ = scenario_from_request(card)
    begin_attempt(card, scenario)
    record(card, "grade", scenario, value=rating, detail={"variant": scenario.variant}, event_id=_form_event_id())
    # A card of a practice session goes on to the session's next card; one opened from the bank
    # (or a link) goes back to the bank, at the card, where its new standing shows.
    in_session = practice_session.position(card.id) is not None
    filters = _practice_filters() or practice_session.filters()
    practice_session.graded(card.id, rating)
    flash(f"Graded “{rating.title()}”: {card.title} comes back {comes_back(scheduled_state(card.id).get('due'))}.")
    if in_session:
        return redirect(url_for("learner.practice", **filters), code=303)
    return redirect(url_for("practice.index") + f"#card-{card.id}", code=303)


@bp.post("/cards/<card_id>/reset")
def reset(card_id):
    """Hide every stage again: start the card over."""
    card = get_card(card_id)
    scenario, _ = scenario_from_request(card)
    begin_attempt(card, scenario)
    record(card, "reset", scenario, event_id=_form_event_id())
    return redirect(card_url(card, scenario), code=303)


@bp.get("/cards/<card_id>/fragment")
def fragment(card_id):
    """The revealed parts of the card for another scenario, for in-place recalculation."""
    card = get_card(card_id)
    scenario, error = scenario_from_request(card)
    return jsonify(fragment_json(page_for(card, scenario, error))), (400 if error else 200)


def scheduled_state(card_id: str) -> dict:
    return scheduling.states(get_db(), learner_id()).get(card_id) or {}


def _practice_filters() -> dict:
    return {k: v for k in ("role", "tag", "topic", "topics") if (v := request.form.get(k) or request.args.get(k))}


def _form_event_id() -> str:
    raw = request.form.get("event_id", "")
    return raw if events.EVENT_ID.fullmatch(raw) else new_event_id()


def _record_answer(card, scenario, event_id: str) -> None:
    """The number and the working typed before the short answer is seen, checked now, with its
    reveal: no other reveal grades or stores an answer, so nothing of the answer is stored
    before the reader has seen it."""
    typed = request.form.get("answer", "")[: events.MAX_TEXT].strip()
    working = request.form.get("working", "")[: events.MAX_TEXT]
    steps = typed_steps(request.form)
    if typed or working.strip() or steps:
        record(card, "answer", scenario, value=typed, detail=checked_answer(card, scenario, typed, working, steps),
               event_id=f"{event_id}-answer")


def _wants_fragment() -> bool:
    return request.accept_mimetypes.best == "application/json" or request.headers.get("X-Fragment") == "1"
