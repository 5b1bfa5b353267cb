"""The interview JSON API: create a session; the interviewer's actions; the candidate's state,
event stream and scratch box.

Every POST carries a CSRF token (the ``X-CSRFToken`` header from a page's script, or the
form's field) and is refused when it comes from another site (``Origin``, ``Sec-Fetch-Site``).
The interviewer's actions take JSON and answer with the console's state, or take a plain
form (a page without JavaScript) and go back to the console. Bad input is 400 with
``{"error", "field"}``; an action the ended session no longer takes is 409.
"""

from __future__ import annotations

import json
import threading
import time

from flask import Blueprint, Response, abort, current_app, flash, jsonify, redirect, request, stream_with_context, \
    url_for

from ...cards.rubric import SCORES
from ...progress import interviews, live
from ...progress.interviews import NOTE_RULE, SCORE_RULE, InterviewError
from ...fields import MAX_STORED, optional_whole_number, whole_number
from ...cards import overrides_from_query
from .links import move_old_links, remember
from .scenario import changed_scenario, what_changed
from .state import candidate_state, console_state, entry_of, open_session, plan, stage_of
from ..signatures import csrf_token
from ..storage import get_db

bp = Blueprint("interview_api", __name__)
INTERVIEWER = "/interview/i/<token>"
CANDIDATE = "/interview/c/<token>"
RETRY_MS = 1000  # how soon a browser reconnects once a stream closes
PING_SECONDS = 10


# Cross-site requests and form posts without their CSRF token are refused for every route by
# web/security.py, these included.


@bp.before_request
def old_cookie():
    """A cookie from before the session id gives up its interviewer tokens (``links.move_old_links``)."""
    move_old_links()


@bp.after_request
def private(response):
    return private_response(response)


def private_response(response):
    """An interview's pages hold its tokens and its answers: never cached or indexed, and their
    addresses (which carry the tokens) never sent to another site as a referrer."""
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "same-origin"
    response.headers["X-Robots-Tag"] = "noindex"
    response.headers["X-Content-Type-Options"] = "nosniff"  # JSON with typed text is never read as a page
    return response


@bp.post("/api/interviews")
def create():
    """A new session: ``{"candidate", "role", "cards"}`` → 201 ``{"id", "interviewer_url", "candidate_url"}``."""
    if not request.is_json:
        abort(415, description="Send the session as JSON (Content-Type: application/json).")
    candidate, role, cards = plan(request.get_json(silent=True))
    created = interviews.create(get_db(), candidate, role, cards)
    remember(created.id, created.interviewer_token)
    return jsonify({
        "id": created.id,
        "interviewer_url": url_for("interview.console", token=created.interviewer_token, _external=True),
        "candidate_url": url_for("interview.candidate", token=created.candidate_token, _external=True),
    }), 201


# ---------------------------------------------------------------- the interviewer's side


def body() -> dict:
    """The action's fields: the JSON object a script sends, or a plain form's fields."""
    if request.is_json:
        data = request.get_json(silent=True)
        if not isinstance(data, dict):
            raise InterviewError("the request body must be a JSON object", None)
        return data
    return {key: (values if key == "signal" else values[0]) for key, values in request.form.lists()}


def done(token: str, data: dict):
    """The console's state for a script; back to the console (at the card in view) for a form."""
    if request.is_json:
        return jsonify(console_state(open_session(token, "interviewer")))
    view = data.get("view") or data.get("card")
    anchor = f"#{data['anchor']}" if isinstance(data.get("anchor"), str) and data["anchor"].isidentifier() else ""
    return redirect(url_for("interview.console", token=token, card=view or None) + anchor, code=303)


@bp.get(f"{INTERVIEWER}/state")
def interviewer_state(token):
    return jsonify(console_state(open_session(token, "interviewer")))


@bp.post(f"{INTERVIEWER}/show")
def show(token):
    """Put a card on the candidate's screen (its question only, until stages are revealed)."""
    sess, data = open_session(token, "interviewer"), body()
    live.show(get_db(), sess.id, entry_of(sess, data.get("card")).id)
    return done(token, data)


@bp.post(f"{INTERVIEWER}/reveal")
def reveal(token):
    """``{"card", "stage"}``: show that stage on the candidate's screen, with its card."""
    sess, data = open_session(token, "interviewer"), body()
    entry = entry_of(sess, data.get("card"))
    live.reveal(get_db(), sess.id, entry.id, stage_of(entry, data.get("stage")))
    return done(token, data)


@bp.post(f"{INTERVIEWER}/ask")
def ask(token):
    """``{"card", "stage": "followup-2"}``: put a follow-up's question on the candidate's screen; its
    expected answer stays on the console until it is revealed."""
    sess, data = open_session(token, "interviewer"), body()
    entry = entry_of(sess, data.get("card"))
    stage = stage_of(entry, data.get("stage"))
    if not stage.startswith("followup-"):
        follow_ups = [s for s in entry.card.stage_names if s.startswith("followup-")]
        raise InterviewError(f"only a follow-up is asked; the card's are {', '.join(follow_ups) or 'none'}", "stage")
    live.ask(get_db(), sess.id, entry.id, stage)
    return done(token, data)


@bp.post(f"{INTERVIEWER}/scenario")
def scenario(token):
    """``{"card", "scenario": {<inputs>, "variant"}}``: change the card's scenario mid-question, within
    its space (a 400 names the field outside it); both screens show it from the next state on. A
    plain form sends the console's calculator fields, as a card page's URL carries them."""
    sess, data = open_session(token, "interviewer"), body()
    entry = entry_of(sess, data.get("card"))
    if request.is_json:
        changed = changed_scenario(entry, data.get("scenario"))
    else:
        sent = {**overrides_from_query(data), **({"variant": data["variant"]} if "variant" in data else {})}
        try:
            changed = changed_scenario(entry, sent, str(data.get("pool_rule") or "").strip() or None)
        except InterviewError as error:  # the console says why, beside its fields
            field = f" (field {error.field})" if error.field else ""
            flash(f"Not changed: {error.message}{field}.", "scenario")
            return done(token, {**data, "anchor": "scenario"})
    change = what_changed(entry, changed)
    if change:  # a form sent again unchanged changes nothing, and the report lists nothing
        live.change_scenario(get_db(), sess.id, entry.id, change, changed.variant, changed.overrides)
    return done(token, {**data, "anchor": "scenario"})


@bp.post(f"{INTERVIEWER}/score")
def score(token):
    """``{"card", "stage", "score"}``: 1 missed, 2 partial, 3 solid, 4 beyond; null clears it."""
    sess, data = open_session(token, "interviewer"), body()
    entry = entry_of(sess, data.get("card"))
    stage = stage_of(entry, data.get("stage"))
    if stage not in entry.scored_stages():
        raise InterviewError(f"scored stages are {', '.join(entry.scored_stages())}", "stage")
    score = optional_whole_number(data.get("score"), "score", min(SCORES), max(SCORES), message=SCORE_RULE,
                                  error=InterviewError)
    live.score(get_db(), sess.id, entry.id, stage, score)
    return done(token, data)


@bp.post(f"{INTERVIEWER}/signal")
def signal(token):
    """``{"card", "signal": "wrong-2", "heard": true}``; a form sends every ticked signal of the card."""
    sess, data = open_session(token, "interviewer"), body()
    entry = entry_of(sess, data.get("card"))
    signals = [f"wrong-{n}" for n in range(1, len(entry.card.wrong_answers) + 1)] if entry.card else []
    if request.is_json:
        if data.get("signal") not in signals:
            raise InterviewError(f"the card's signals are {', '.join(signals) or 'none'}", "signal")
        if not isinstance(data.get("heard"), bool):
            raise InterviewError("heard must be true or false", "heard")
        live.signal(get_db(), sess.id, entry.id, data["signal"], data["heard"])
    else:
        ticked = set(data.get("signal") or [])
        for name in signals:
            live.signal(get_db(), sess.id, entry.id, name, name in ticked)
    return done(token, data)


@bp.post(f"{INTERVIEWER}/note")
def note(token):
    """``{"text", "card"}``: a note with the time; without a card it is about the whole session."""
    sess, data = open_session(token, "interviewer"), body()
    card = data.get("card") or None
    if card is not None:
        card = entry_of(sess, card).id
    live.add_note(get_db(), sess.id, data.get("text"), card)
    return done(token, {**data, "anchor": "notes"})


@bp.post(f"{INTERVIEWER}/note/delete")
def delete_note(token):
    sess, data = open_session(token, "interviewer"), body()
    note = whole_number(data.get("note"), "note", 1, MAX_STORED, message=NOTE_RULE, error=InterviewError)
    live.delete_note(get_db(), sess.id, note)
    return done(token, {**data, "anchor": "notes"})


@bp.post(f"{INTERVIEWER}/recommendation")
def recommendation(token):
    """``{"recommendation": "strong_no" | "no" | "yes" | "strong_yes" | "no_decision", "reason"}``."""
    sess, data = open_session(token, "interviewer"), body()
    live.recommend(get_db(), sess.id, data.get("recommendation") or None, data.get("reason") or "")
    return done(token, {**data, "anchor": "recommendation"})


@bp.post(f"{INTERVIEWER}/end")
def end(token):
    """End the session (with the recommendation, when given); the report is then complete."""
    sess, data = open_session(token, "interviewer"), body()
    if "recommendation" in data or "reason" in data:
        live.recommend(get_db(), sess.id, data.get("recommendation") or None, data.get("reason") or "")
    live.end(get_db(), sess.id)
    if request.is_json:
        return jsonify(console_state(open_session(token, "interviewer")))
    return redirect(url_for("interview.report", token=token), code=303)


# ---------------------------------------------------------------- the candidate's side


@bp.get(f"{CANDIDATE}/state")
def candidate_state_json(token):
    """The question and the revealed stages of the card on the candidate's screen: nothing else."""
    state = candidate_state(open_session(token, "candidate"), token)
    state["csrf_token"] = csrf_token()  # the page's script renews its token here
    return jsonify(state)


@bp.post(f"{CANDIDATE}/scratch")
def scratch(token):
    """``{"text"}``: the candidate's scratch box, which the interviewer's console shows as it changes."""
    sess = open_session(token, "candidate")
    data = request.get_json(silent=True) if request.is_json else request.form.to_dict()
    if not isinstance(data, dict):
        raise InterviewError("the request body must be a JSON object", None)
    live.set_scratch(get_db(), sess.id, data.get("text") or "")
    if request.is_json:
        return jsonify({"saved": True})
    return redirect(url_for("interview.candidate", token=token), code=303)


@bp.post(f"{CANDIDATE}/answer")
def candidate_answer(token):
    """``{"answer", "steps": {"step-<value>": text}}``: the candidate's typed answer to the card on
    their screen, which the console checks as it is typed."""
    sess = open_session(token, "candidate")
    data = request.get_json(silent=True) if request.is_json else request.form.to_dict()
    if not isinstance(data, dict):
        raise InterviewError("the request body must be a JSON object", None)
    if not sess.current or sess.ended_at:
        raise InterviewError("no question is on the screen to answer" if not sess.ended_at else
                             "the interview has ended", None, 409)
    steps = data.get("steps") if request.is_json else {k: v for k, v in data.items() if k.startswith("step-")}
    live.set_answer(get_db(), sess.id, sess.current, data.get("answer"), steps)
    if request.is_json:
        return jsonify({"saved": True})
    return redirect(url_for("interview.candidate", token=token), code=303)


@bp.get(f"{CANDIDATE}/events")
def candidate_events(token):
    """Server-Sent Events: the candidate's state now, then again on each change the candidate sees.

    A stream lasts INTERVIEW_STREAM_SECONDS and then closes (the browser reconnects after
    ``retry``). Each process keeps at most INTERVIEW_STREAMS_PER_LINK open for one candidate
    link, so one visitor's forty streams cannot take another interview's place (issue 21), and
    INTERVIEW_STREAMS in all; past either a stream sends the state once and closes, and the page
    also polls ``/state``.
    """
    interview_id = open_session(token, "candidate").id
    return Response(stream_with_context(_stream(interview_id)), mimetype="text/event-stream",
                    headers={"X-Accel-Buffering": "no"})


def _stream(interview_id: str):
    slots = _stream_slots()
    held = slots.take(interview_id)
    try:
        seconds = current_app.config["INTERVIEW_STREAM_SECONDS"] if held else 0
        deadline = time.monotonic() + seconds
        quiet_since, sent = time.monotonic(), None
        changed = live.watch(get_db(), interview_id)  # before the first read: no change falls between
        yield f"retry: {RETRY_MS}\n\n"
        while True:
            version = interviews.candidate_version(get_db(), interview_id)
            if version != sent:
                sent, quiet_since = version, time.monotonic()
                state = candidate_state(interviews.load(get_db(), interview_id))
                yield f"id: {version}\nevent: state\ndata: {json.dumps(state)}\n\n"
                if state["status"] == "ended":
                    return
            if time.monotonic() >= deadline:
                return
            if time.monotonic() - quiet_since > PING_SECONDS:
                quiet_since = time.monotonic()
                yield ": ping\n\n"  # a closed connection fails here, and the stream ends
            changed.wait()
    finally:
        if held:
            slots.give_back(interview_id)


class StreamSlots:
    """How many event streams this process holds open, in all and per interview."""

    def __init__(self, ceiling: int, per_link: int):
        self.ceiling, self.per_link = ceiling, per_link
        self.open: dict[str, int] = {}
        self.lock = threading.Lock()

    def take(self, interview_id: str) -> bool:
        with self.lock:
            if sum(self.open.values()) >= self.ceiling or self.open.get(interview_id, 0) >= self.per_link:
                return False
            self.open[interview_id] = self.open.get(interview_id, 0) + 1
            return True

    def give_back(self, interview_id: str) -> None:
        with self.lock:
            left = self.open.get(interview_id, 0) - 1
            if left > 0:
                self.open[interview_id] = left
            else:
                self.open.pop(interview_id, None)


# Under gthread workers a stream holds a thread: at most this many, so streams never take them all.
THREAD_STREAMS = 2


def _stream_slots() -> StreamSlots:
    return current_app.extensions["quizapp.interview_streams"]


def init_app(app) -> None:
    # One count per process: gunicorn forks its workers from the app made here, and each has its own.
    ceiling = app.config["INTERVIEW_STREAMS"]
    if app.config.get("WORKER_CLASS") == "gthread":
        ceiling = min(ceiling, THREAD_STREAMS)
    app.extensions["quizapp.interview_streams"] = StreamSlots(ceiling, app.config["INTERVIEW_STREAMS_PER_LINK"])
