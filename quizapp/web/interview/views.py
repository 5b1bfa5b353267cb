"""Interviewers' pages: the sessions this browser made, a new session, the console, the candidate's
screen and the report. The actions they post to are in ``interview_api``.

The interviewer's link is the credential: no accounts. The candidate's screen is built from the
candidate's state alone (``interview_views.candidate_state``), so it carries no unrevealed text.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, get_flashed_messages, jsonify, redirect, render_template, request, \
    url_for

from ...calc import KV_CACHE_DTYPES, BY_NAME, gpu_entries
from ...cards.rubric import SCALE
from ...progress import interviews
from ...progress.interviews import MAX_NAME, MAX_NOTE, MAX_SCRATCH, RECOMMENDATIONS, InterviewError, PlannedCard
from ..access import author_access
from .api import private_response
from .links import move_old_links, remember, remembered
from .report import markdown, report as report_data
from .clock import moment_text
from .scenario import scenario_controls, scenario_rows
from .state import candidate_state, checked_scenario, console_state, entries, open_session, plan, preview_entries, \
    variant_choice
from ..storage import get_bank, get_db

bp = Blueprint("interview", __name__, url_prefix="/interview")
bp.after_request(private_response)


@bp.before_request
def _old_cookie():
    """A cookie that still lists interviewer tokens (from before the session id) gives them up on
    any interview page (the interview API's too): not on every request, since reading the session
    there would add ``Vary: Cookie`` to static files and public JSON."""
    move_old_links()


# How the new-session form labels the inputs a card's space lets the interviewer change.
INPUT_LABELS = {"model": "Model", "kv_cache_dtype": "KV cache dtype", "tensor_parallel_size": "Tensor parallel size",
                "max_model_len": "Max model length (tokens)", "pool_tokens": "Pool as logged (tokens)",
                "kv_cache_memory_bytes": "KV pool pinned (bytes, e.g. 8 GiB)", "gpu": "GPU",
                "gpu_memory_utilization": "GPU memory utilization (0 to 1)",
                "prompt_tokens": "Prompt tokens per user", "output_tokens": "Output tokens per user"}


@bp.get("")
def index():
    """The sessions this browser created, newest first, each with its console and report."""
    sessions = interviews.listing(get_db(), remembered())
    for item in sessions:
        item["when"] = moment_text(item["created_at"], None)
        item["recommendation"] = RECOMMENDATIONS.get(item["recommendation"] or "", "")
    return render_template("interview/index.html", sessions=sessions)


@bp.get("/new")
def new():
    return _new_form(request.args, None)


@bp.post("/new")
def create():
    """The form's session: the ticked cards (every card listed with the "all" button). With "check",
    the form again, each card's scenario shown with what the chosen variant and inputs change."""
    if request.form.get("check"):
        return _new_form(request.form, None)
    try:
        listed = request.form.get("all") == "1"
        if not listed and not request.form.getlist("card"):
            raise InterviewError("tick at least one card to ask (or create the interview with every card listed)",
                                 "cards")
        candidate, role, cards = plan(_form_plan(request.form, listed))
        created = interviews.create(get_db(), candidate, role, cards)
    except InterviewError as error:
        return _new_form(request.form, error)
    remember(created.id, created.interviewer_token)
    return redirect(url_for("interview.console", token=created.interviewer_token), code=303)


@bp.post("/new/scenario")
def scenario_preview():
    """``{"card", "scenario": {"variant", <inputs>}}``: what that scenario is, row by row with where
    each figure comes from, for the new-session form's script; a 400 names the field outside the space."""
    data = request.get_json(silent=True) if request.is_json else None
    if not isinstance(data, dict):
        raise InterviewError("send the card and its scenario as a JSON object", None)
    summary = _summary(get_bank(), data.get("card"), data.get("scenario") or {})
    html = str(current_app.jinja_env.get_template("interview/_console.html").module.scenario_list(
        summary["rows"], summary["error"]))
    body = {"summary": summary["text"], "html": html}
    if summary["error"]:
        return jsonify({**body, **summary["error"].to_json()}), 400
    return jsonify(body)


def _form_plan(form, listed: bool = False) -> dict:
    """The form's fields in the API's shape: per ticked card (with ``listed``, per card listed), a
    variant and the inputs typed."""
    cards = []
    for card_id in form.getlist("listed" if listed else "card")[:100]:
        cards.append({"id": card_id, "scenario": _card_scenario(form, card_id)})
    return {"candidate": form.get("candidate", ""), "role": form.get("role", ""), "cards": cards}


def _card_scenario(form, card_id: str) -> dict:
    """A card's scenario on the form: its variant and the inputs typed."""
    scenario = {}
    if form.get(f"variant.{card_id}", ""):
        scenario["variant"] = form[f"variant.{card_id}"]
    prefix = f"input.{card_id}."
    scenario.update({key[len(prefix):]: value.strip() for key, value in form.items()
                     if key.startswith(prefix) and value.strip()})
    return scenario


def _summary(bank, card_id, wanted: dict) -> dict:
    """A card's scenario as the form shows it: {"text", "rows", "error"}."""
    card = bank.get(card_id) if isinstance(card_id, str) else None
    try:
        if card is None:
            raise InterviewError(f"there is no card {str(card_id)[:100]!r}", "card")
        if not isinstance(wanted, dict):
            raise InterviewError("scenario must be an object: a variant and the inputs to change", "scenario")
        changes = dict(wanted)
        variant = variant_choice(card, changes.pop("variant", None), "scenario.variant")
        scenario = checked_scenario(card, variant, changes, "scenario")
    except InterviewError as error:
        return {"text": "Scenario: not possible", "rows": [], "error": error}
    [entry] = preview_entries(bank, [PlannedCard(card.id, scenario.variant, scenario.overrides)])
    rows = scenario_rows(entry)
    return {"text": f"Scenario: {rows[0]['value']}" if rows else "Scenario", "rows": rows[1:], "error": None}


def _new_form(values, error: InterviewError | None):
    bank = get_bank()
    role, tag = values.get("role", "").strip(), values.get("tag", "").strip()
    shown = bank.matching(role if role in bank.roles() else "", tag)
    # A card's scenario is worked out when the form chose one for it (a card loads to be checked).
    ticked = set(values.getlist("card")) if hasattr(values, "getlist") else set()
    summaries = {card.id: _summary(bank, card.id, _card_scenario(values, card.id)) for card in shown
                 if card.id in ticked or _card_scenario(values, card.id)}
    return render_template("interview/new.html", cards=shown, roles=bank.roles(), tags=bank.tags(), values=values,
                           error=error, fields={card.id: _scenario_fields(card) for card in shown},
                           summaries=summaries, author=author_access(), max_name=MAX_NAME), (400 if error else 200)


def _scenario_fields(card) -> list[dict]:
    """The inputs the card's space lets the interviewer change, with the card's own value as a hint."""
    names = card.space.inputs if card.space else ()
    fields = []
    for name in names:
        options = {"model": list(card.space.models), "kv_cache_dtype": list(KV_CACHE_DTYPES),
                   "gpu": [gpu["id"] for gpu in gpu_entries()]}.get(name)
        fields.append({"name": name, "label": INPUT_LABELS.get(name, BY_NAME[name].help), "options": options,
                       "own": card.scenario.get(name, "")})
    return fields


@bp.get("/i/<token>")
def console(token):
    """The interviewer's console: the card in view, whole, under the session's scenario. The
    browser that opens it lists the session on /interview from then on."""
    sess = open_session(token, "interviewer")
    remember(sess.id, token)
    cards = entries(sess)
    wanted = request.args.get("card") or sess.current
    selected = next((e for e in cards if e.id == wanted), cards[0])
    view = selected.view(selected.card.stage_names) if selected.card else None
    changing = get_flashed_messages(category_filter=["scenario"])
    return render_template(
        "interview/console.html", session=sess, cards=cards, selected=selected, view=view,
        state=console_state(sess, cards), scenario=scenario_rows(selected), rubric=selected.rubric(), scale=SCALE,
        scenario_controls=scenario_controls(selected) if sess.ended_at is None else None, changing=changing,
        recommendations=RECOMMENDATIONS, token=token,
        candidate_url=url_for("interview.candidate", token=interviews.candidate_token(token), _external=True),
        max_note=MAX_NOTE)


@bp.get("/c/<token>")
def candidate(token):
    """The candidate's screen: the question and what the interviewer revealed, and a scratch box."""
    sess = open_session(token, "candidate")
    return render_template("interview/candidate.html", state=candidate_state(sess, token), session=sess, token=token,
                           max_scratch=MAX_SCRATCH)


@bp.get("/i/<token>/report")
def report(token):
    sess = open_session(token, "interviewer")
    return render_template("interview/report.html", report=report_data(sess, entries(sess)), token=token,
                           scale=SCALE)


@bp.get("/i/<token>/report.md")
def report_md(token):
    sess = open_session(token, "interviewer")
    data = report_data(sess, entries(sess))
    name = "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in sess.candidate.lower())
    name = name[:40].strip("-") or "candidate"
    return Response(markdown(data), mimetype="text/markdown",
                    headers={"Content-Disposition": f'attachment; filename="interview-{name}-{data["date"]}.md"'})
