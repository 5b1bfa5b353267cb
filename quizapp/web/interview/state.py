"""What an interview's pages and JSON are made of: the session behind a token, each of its cards
with the scenario the interviewer chose, the candidate's state and the interviewer's.

The candidate's state is built from ``card_view`` with the session's revealed set and nothing
else, so a stage the interviewer has not revealed is in no response to the candidate's token.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass

from flask import abort, current_app, url_for

from ...calc import CalcError, did_you_mean
from ...cards import Card, CardError, CardView, Scenario, card_view, resolve_scenario
from ...cards.rubric import rubric_rows
from ...progress import interviews
from ...progress.clock import iso, now_utc
from ...progress.interviews import MAX_CARDS, MAX_NAME, Interview, InterviewError, PlannedCard, SessionCard
from ...fields import whole_number
from .answers import answer_box, checked_answer
from .clock import clock_text, moment_text
from ..signatures import csrf_token
from ..storage import get_bank, get_db, loaded_bank

log = logging.getLogger("quizapp.interview")
# Stages the interviewer scores: the answers and each follow-up (the wrong answers are signals).
SCORED = ("short", "full")


def open_session(token: str, holder: str) -> Interview:
    """The session this token opens for ``holder`` ("interviewer" or "candidate").

    An unknown token gets the same 404 as any unknown address; the candidate's token on the
    interviewer's side gets 403; the interviewer's token on the candidate's side is unknown there.
    """
    found = interviews.find(get_db(), token)
    if found is None or (found[1] != holder and holder == "candidate"):
        abort(404)
    if found[1] != holder:
        abort(403, description="This is the candidate's link: it cannot see the answers or change the session.")
    session = interviews.load(get_db(), found[0])
    if session is None:
        abort(404)
    return session


@dataclass
class Entry:
    """One card of a session, as the bank holds it now, in the scenario the interviewer chose."""

    number: int
    entry: SessionCard
    card: Card | None
    scenario: Scenario | None
    problem: str | None = None  # why it cannot be shown: it left the bank, or its scenario no longer fits

    @property
    def id(self) -> str:
        return self.entry.card_id

    @property
    def title(self) -> str:
        return self.card.title if self.card else self.entry.card_id

    @property
    def variant_name(self) -> str | None:
        variant = self.entry.variant
        return self.card.variants[variant].name if self.card and variant is not None else None

    def view(self, revealed, asked=None) -> CardView | None:
        """The card with ``revealed`` stages rendered, and with ``asked`` (the candidate's screen) the
        follow-up questions asked only; None (and the problem noted) when it cannot render."""
        if self.card is None or self.scenario is None:
            return None
        try:
            return card_view(self.card, self.scenario, set(revealed), in_order=False,
                             asked=None if asked is None else set(asked))
        except CardError as error:
            log.warning("%s", error.diagnostic)
            self.problem = f"the card cannot be shown in this scenario: {error.diagnostic.message}"
            return None

    def scored_stages(self) -> list[str]:
        return [s for s in self.card.stage_names if s in SCORED or s.startswith("followup-")] if self.card else []

    def rubric(self) -> list[dict]:
        return rubric_rows(self.card.rubric if self.card else None)


def preview_entries(bank, planned: list[PlannedCard]) -> list[Entry]:
    """Cards planned for a new session, as a session will hold them (its setup page shows their scenarios)."""
    found = []
    for number, card in enumerate(planned, start=1):
        loaded = bank.get(card.card_id)
        found.append(Entry(number, SessionCard(card.card_id, number - 1, card.variant, card.overrides), loaded,
                           resolve_scenario(loaded, card.variant, card.overrides)))
    return found


def entries(session: Interview, only: str | None = None) -> list[Entry]:
    """Each card of the session (or ``only`` that one) with its scenario; interview-only cards
    included: the token is the credential."""
    bank = loaded_bank()
    loaded = []
    for number, entry in enumerate(session.cards, start=1):
        if only is not None and entry.card_id != only:
            continue
        card = bank.get(entry.card_id)
        if card is None:
            loaded.append(Entry(number, entry, None, None, "this card is no longer in the question bank"))
            continue
        try:
            if entry.variant is not None and entry.variant >= len(card.variants):
                raise CalcError("the card no longer has the variant this session uses", "variant")
            loaded.append(Entry(number, entry, card, resolve_scenario(card, entry.variant, entry.overrides)))
        except CalcError as error:
            loaded.append(Entry(number, entry, card, None, f"its scenario no longer fits the card: {error.message}"))
    return loaded


def candidate_state(session: Interview, token: str | None = None) -> dict:
    """The candidate's screen now: the card on it, with its question, the revealed stages and the
    follow-ups asked only, and the boxes of the candidate's answer. ``token`` (the candidate's) gives
    the answer form its address; the page's script posts to it without one."""
    status = "ended" if session.ended_at else ("live" if session.current else "waiting")
    state = {"status": status, "version": session.candidate_version, "of": len(session.cards), "number": None,
             "revealed": []}
    view, taught_in, entry = None, [], None
    state["asked"] = []
    if status == "live":
        [entry] = entries(session, only=session.current)
        view = entry.view(entry.entry.reveals, asked=entry.entry.asked)
        state["number"] = entry.number
        if view is not None:
            state["revealed"] = [s.name for s in view.stages if s.revealed]
            state["asked"] = [s.name for s in view.stages if s.level and s.question_html and not s.revealed]
            taught_in = entry.card.taught_in if "taught" in state["revealed"] else []
    parts = current_app.jinja_env.get_template("interview/_candidate.html").module
    state["html"] = str(parts.screen(status, view, state["number"], state["of"], taught_in))
    # The candidate's answer box for the card on the screen: drawn again only when the card or its
    # scenario changes (``answer_key``), so what the candidate types stays.
    # (A digest: the scenario's key names its inputs, which the screen may not have shown yet.)
    state["answer_key"] = hashlib.sha256(f"{entry.id}|{entry.scenario.key}".encode()).hexdigest()[:16] \
        if view is not None else ""
    action = url_for("interview_api.candidate_answer", token=token) if token else ""
    state["answer_html"] = str(parts.answer_form(answer_box(entry.card, entry.scenario, entry.entry.typed),
                                                 action)) if view else ""
    # What a screen reader hears when the screen changes: the script picks, the server words it.
    state["announce"] = {"card": f"Question {state['number']} is on the screen." if state["number"] else "",
                         "ended": "The interview has ended.",
                         "stages": {stage: f"The interviewer showed {_spoken(stage)}." for stage in state["revealed"]},
                         "asked": {stage: f"The interviewer asks follow-up {stage.removeprefix('followup-')}."
                                   for stage in state["asked"]}}
    return state



def _spoken(stage: str) -> str:
    if stage.startswith("followup-"):
        return f"the expected answer to follow-up {stage.removeprefix('followup-')}"
    return {"short": "the short answer", "full": "the full answer", "wrong": "the wrong answers",
            "taught": "where it is taught"}.get(stage, stage)


def console_state(session: Interview, cards: list[Entry] | None = None) -> dict:
    """Everything the console shows that changes: what both of the interviewer's tabs are kept to.

    Each ``*_text`` is the words the console shows for the value beside it; the page draws them
    and the script puts them in place, so the two never differ.
    """
    now = now_utc()
    cards = entries(session) if cards is None else cards
    numbers = {e.id: e.number for e in cards}
    status, since = _status(session), session.started_at
    elapsed = session.elapsed_ms(now)
    return {
        "id": session.id, "status": status, "status_text": STATUS_TEXTS[status], "version": session.version,
        "server_time": iso(now), "server_clock": moment_text(iso(now), None),
        "started_at": since, "ended_at": session.ended_at, "elapsed_ms": elapsed, "elapsed_text": clock_text(elapsed),
        "current": session.current,
        "cards": [_card_state(e, since, now) for e in cards],
        "notes": [{"id": n["id"], "card": n["card_id"], "text": n["text"], "at": n["at"],
                   "at_text": moment_text(n["at"], since),
                   "card_text": f"card {numbers.get(n['card_id'], '?')}" if n["card_id"] else ""}
                  for n in session.notes],
        "recommendation": session.recommendation, "reason": session.reason,
        "scratch": session.scratch, "scratch_at": session.scratch_at,
        "scratch_at_text": f"Updated {moment_text(session.scratch_at, since)}" if session.scratch_at
        else "Nothing typed yet.",
        "csrf_token": csrf_token(),
    }


# The session's status as the console's badge says it.
STATUS_TEXTS = {"waiting": "Not started", "live": "Live", "ended": "Ended"}


def _status(session: Interview) -> str:
    return "ended" if session.ended_at else ("live" if session.started_at else "waiting")


def _card_state(entry: Entry, since: str | None, now) -> dict:
    time_ms, scores = entry.entry.time_ms(now), entry.entry.scores
    parts = current_app.jinja_env.get_template("interview/_console.html").module
    return {"id": entry.id, "number": entry.number, "title": entry.title, "time_ms": time_ms,
            "time_text": clock_text(time_ms), "reveals": entry.entry.reveals,
            "shown_text": {stage: f"On the candidate's screen since {moment_text(at, since)}"
                           for stage, at in entry.entry.reveals.items()},
            "asked": entry.entry.asked,
            "asked_text": {stage: f"Asked on the candidate's screen since {moment_text(at, since)}"
                           for stage, at in entry.entry.asked.items()},
            "scores": scores, "scored_text": f"{len(scores)} scored" if scores else "",
            "signals": sorted(entry.entry.signals), "problem": entry.problem,
            # The console draws its card again when this changes: a scenario changed (in another tab too).
            "scenario_key": entry.scenario.key if entry.scenario else "",
            "answer_html": str(parts.typed_answer(typed_answer(entry, since)))}


def typed_answer(entry: Entry, since: str | None) -> dict | None:
    """What the candidate typed for the card, checked in the session's scenario, with when it was typed."""
    typed = checked_answer(entry.card, entry.scenario, entry.entry.typed)
    if typed is not None:
        typed["at_text"] = f"Last typed {moment_text(typed['at'], since)}" if typed.get("at") else ""
    return typed


# ---------------------------------------------------------------- a new session


def plan(data) -> tuple[str, str, list[PlannedCard]]:
    """A new session from the API's body (or the form, made into the same shape).

    ``cards`` lists card ids or ``{"id", "scenario": {"variant", <inputs>...}}``; without it the
    cards of ``role`` (and ``tag``) are picked. Interview-only cards only for readers the author
    tools are open to. Raises InterviewError naming the field, e.g. ``cards.1.scenario.model``.
    """
    if not isinstance(data, dict):
        raise InterviewError("the request body must be a JSON object", None)
    candidate = interviews.text(data.get("candidate"), "candidate", MAX_NAME, required=True)
    role = interviews.text(data.get("role"), "role", MAX_NAME).strip()
    tag = interviews.text(data.get("tag"), "tag", MAX_NAME).strip()
    bank = get_bank()
    raw = data.get("cards")
    if raw is None or raw == []:
        if not role and not tag:
            raise InterviewError("pick cards, or give a role or a tag to pick them by", "cards")
        raw = [card.id for card in bank.matching(role, tag)][:MAX_CARDS]
        if not raw:
            raise InterviewError("no card matches that role and tag; pick cards by hand", "cards")
    if not isinstance(raw, list):
        raise InterviewError("cards must be a list of card ids, or of {id, scenario}", "cards")
    if len(raw) > MAX_CARDS:
        raise InterviewError(f"a session holds at most {MAX_CARDS} cards", "cards")
    return candidate, role, [planned_card(bank, item, f"cards.{i}") for i, item in enumerate(raw)]


def planned_card(bank, item, where: str) -> PlannedCard:
    """One card of a new session with its scenario, checked: it renders every stage in that scenario."""
    if isinstance(item, str):
        item = {"id": item}
    if not isinstance(item, dict) or not isinstance(item.get("id"), str):
        raise InterviewError("each card is a card id, or {id, scenario}", where)
    card = bank.get(bank.aliases.get(item["id"], item["id"]))  # an old id plans its successor
    if card is None:
        hint = did_you_mean(item["id"][:100], list(bank.cards))
        raise InterviewError(f"there is no card {item['id'][:100]!r}" + (f"; {hint}" if hint else ""), where)
    wanted = item.get("scenario") or {}
    if not isinstance(wanted, dict):
        raise InterviewError("scenario must be an object: a variant and the inputs to change", f"{where}.scenario")
    overrides = dict(wanted)
    variant = variant_choice(card, overrides.pop("variant", None), f"{where}.scenario.variant")
    scenario = checked_scenario(card, variant, overrides, f"{where}.scenario")
    return PlannedCard(card.id, scenario.variant, scenario.overrides)


def checked_scenario(card: Card, variant: int | None, overrides: dict, where: str,
                     pool_rule: str | None = None) -> Scenario:
    """The card's scenario with a variant and changes, checked as an interview needs it: inside the
    card's space, one vLLM would start, and every stage renders in it. Else an InterviewError
    naming ``<where>.<field>``."""
    try:
        scenario = resolve_scenario(card, variant, overrides, pool_rule)
        card_view(card, scenario, set(card.stage_names), in_order=False)
    except CalcError as error:
        raise InterviewError(error.message, where + (f".{error.field}" if error.field else "")) from None
    except CardError as error:
        raise InterviewError(f"this card cannot be shown in that scenario: {error.diagnostic.message}",
                             where) from None
    return scenario


def variant_choice(card: Card, raw, field: str) -> int | None:
    """A variant by its index or its name; None or "" is the card's own scenario."""
    if raw is None or raw == "":
        return None
    names = [v.name for v in card.variants]
    if isinstance(raw, str) and raw in names:
        return names.index(raw)
    choices = f"0 to {len(names) - 1} or a variant's name" if names else "absent: the card has no variants"
    return whole_number(raw, field, 0, len(names) - 1, message=f"variant must be {choices}", error=InterviewError)


def stage_of(entry: Entry | None, stage) -> str:
    """A stage the card has, or InterviewError naming the field."""
    if entry is None or entry.card is None:
        raise InterviewError("that card cannot be used now", "card")
    if not isinstance(stage, str) or stage not in entry.card.stage_names:
        raise InterviewError(f"the card's stages are {', '.join(entry.card.stage_names)}", "stage")
    return stage


def entry_of(session: Interview, card_id) -> Entry:
    entry = next((e for e in entries(session) if e.id == card_id), None)
    if entry is None:
        raise InterviewError(f"this session has no card {str(card_id)[:100]!r}", "card")
    return entry


def interview_urls(token: str) -> dict:
    """The interviewer's links for a session (its token is the credential)."""
    return {"console": url_for("interview.console", token=token),
            "report": url_for("interview.report", token=token),
            "report_md": url_for("interview.report_md", token=token)}
