"""The card page's content, shared by every view of a card: the reader's (practice) and the
author's preview.

Every response that carries card text is built from ``card_view``: a stage that the reader
has not revealed is not rendered, so its text is in no page, fragment or JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from urllib.parse import urlencode

from flask import current_app, request, url_for
from markupsafe import Markup, escape

from ...calc import CalcError
from ...cards import Card, CardError, CardView, Refused, Scenario, card_view, resolve_scenario, scenario_from_query
from ...progress.events import Attempt, current_attempt
from ...progress.scheduling import next_variant
from .. import caches
from . import session as practice_session
from .answer_box import answer_view
from .panel import controls, message_for_people
from .review import grade_buttons
from ..signatures import csrf_token
from ..storage import get_db, learner_id, new_event_id


@dataclass(frozen=True)
class CardPage:
    """What a card page shows, and what its fragments replace: the template reads it as ``page``."""

    card: Card
    view: CardView                # the stages, only the revealed ones rendered
    scenario: Scenario            # the one shown (the card's own when the asked one failed)
    error: CalcError | None       # why the asked scenario is not the one shown
    attempt: Attempt              # the reader's current attempt at the card
    answer: dict                  # the answer box and its verdict (answer_box.answer_view)
    controls: list[dict]          # the calculator panel's rows
    controls_html: Markup         # and their HTML
    page_url: str                 # where the calculator's form goes (the page without a scenario)
    next_variant_url: str         # the card in its next variant, cycling back to its own scenario
    practice: dict | None         # where the reader is in a practice session, if this card is its current one
    grades: list[dict]            # the grade buttons, once the full answer is shown (review.grade_buttons)
    preview: bool = False         # the author's preview: every stage, nothing recorded

    @cached_property  # a page's every form carries it: worked out once (it writes __dict__, as frozen allows)
    def query(self) -> str:
        """The scenario's query string: what a reveal's form and a reload carry."""
        return urlencode(self.scenario.query())

    @property
    def stages_html(self) -> Markup:
        return stages_html(self)

    # The page's macros are called from here rather than imported by its template: Jinja's import
    # compares the two templates' globals on every render (15 µs with the app's 17, a tenth of a
    # kept page's template time).
    @property
    def error_notice(self) -> Markup:
        """Why the asked scenario is not the one shown (a hidden box the script fills when none)."""
        return _parts().scenario_error(self.error)

    @property
    def grade_html(self) -> Markup:
        """The grade step: its buttons once the full answer is shown."""
        return _parts().grade_step(self)

    @cached_property
    def csrf(self) -> str:
        """The session's CSRF token, for every form of the page."""
        return csrf_token()

    @cached_property
    def held_html(self) -> Markup:
        return _part(caches.held_key(self.scenario, self.variant_name),
                     lambda parts: parts.held(self.scenario, self.variant_name))

    @cached_property
    def derivations_html(self) -> Markup:
        return _part(caches.derivations_key(self.view), lambda parts: parts.derivations(self.view))

    @property
    def bar_rows(self) -> list[dict]:
        """The panel's rows the scenario bar is made of (it keeps the pool's rule in its hidden fields)."""
        return [row for row in self.controls if row["name"] != "pool_rule"]

    @property
    def bar_hidden(self) -> list[tuple[str, str]]:
        """The rest of the scenario, which the bar's form keeps in hidden fields."""
        shown = {row["name"] for row in self.bar_rows[:2]}
        return [(name, value) for name, value in self.scenario.query().items() if name not in shown]

    @cached_property
    def bar_html(self) -> Markup:
        """The scenario bar: its first two controls drawn as the panel draws its rows."""
        def draw(parts):
            return parts.scenario_bar(self, drawn_rows(self.bar_rows[:2], "bar_control"))
        if self.error:  # its rows hold what the reader typed
            return Markup(draw(_parts()))
        return _part(caches.scenario_bar_key(self), draw)

    @property
    def variant_name(self) -> str | None:
        return self.card.variants[self.scenario.variant].name if self.scenario.variant is not None else None


def _parts():
    """The card page's macros (templates/cards/_parts.html)."""
    return current_app.jinja_env.get_template("cards/_parts.html").module


def _part(key: tuple, draw) -> Markup:
    """A piece of the page that is the same for every reader with this key: drawn once."""
    return caches.page_parts.get_or_make(key, lambda: Markup(draw(_parts())))


def scenario_from_request(card):
    """The scenario the URL asks for, or the card's own with the error that prevented it."""
    try:
        return scenario_from_query(card, request.args), None
    except CalcError as error:
        return resolve_scenario(card, None, {}), error


def card_url(card, scenario) -> str:
    """The card's page for this scenario: the URL a reload or a shared link shows it again with."""
    query = urlencode(scenario.query())
    return url_for("practice.card", card_id=card.id) + (f"?{query}" if query else "")


def next_variant_url(card, scenario, endpoint: str) -> str:
    """``endpoint``'s page of the card in the variant after this scenario's (its own scenario after the last)."""
    return url_for(endpoint, card_id=card.id, variant=next_variant(scenario.variant, len(card.variants)))


def page_for(card, scenario, error, revealed: list[str] | None = None, attempt=None, *,
             endpoint: str = "practice.card", preview: bool = False) -> CardPage:
    """The card page at ``endpoint`` (the reader's, or the author's preview); ``revealed``
    defaults to the reader's own stages, ``attempt`` to the reader's current attempt at the card."""
    if attempt is None:
        attempt = current_attempt(get_db(), learner_id(), card.id)
    if revealed is None:
        revealed = attempt.revealed
    try:
        view = card_view(card, scenario, set(revealed))
    except CardError as failure:
        # The reader's scenario computes but the card cannot use it (a value it needs is not
        # derived there): say so, and show the card's own scenario.
        current_app.logger.warning("%s", failure.diagnostic)
        error = CalcError(f"this card cannot be shown for that scenario: {failure.diagnostic.message}", None)
        scenario = resolve_scenario(card, None, {})
        view = card_view(card, scenario, set(revealed))
    rows, rows_html = panel(card, scenario, error)
    grades = grade_buttons(get_db(), learner_id(), card.id) if view.answered and not preview else []
    return CardPage(card=card, view=view, scenario=scenario, error=error, attempt=attempt,
                    answer=answer_view(card, scenario, attempt), controls=rows, controls_html=rows_html,
                    page_url=url_for(endpoint, card_id=card.id),
                    next_variant_url=next_variant_url(card, scenario, endpoint),
                    practice=practice_session.position(card.id), grades=grades, preview=preview)


def stage_sections(page: CardPage) -> dict[str, Markup]:
    """Every stage's section, by name. A section is the same for every reader of the card in that
    scenario who has the same stages open (and the same mark on a follow-up), but for its forms'
    tokens: it is drawn once with marks in their place (``kept_stages``), and each request puts in
    its own. The short answer holding what the reader typed, or its verdict, is drawn for them
    alone, and so is the author's preview."""
    kept = kept_stages(page)
    return {s.name: _own_stage(page, s) if _own_drawing(page, s) else with_tokens(kept[s.name], page.csrf, page.query)
            for s in page.view.stages}


def _own_stage(page: CardPage, s) -> Markup:
    return _parts().stage(page.card, s, page.query, page.attempt, page.preview, page.answer, page.view.next_stage)


def stages_html(page: CardPage) -> Markup:
    """Every stage's section as the card page shows them, the follow-ups under their heading: a
    card page draws a dozen stages, most of its time, so the kept drawings take their tokens at once."""
    if page.preview or not _blank(page.answer):
        return Markup("".join(_placed(name, section) for name, section in stage_sections(page).items()))
    kept = kept_stages(page)
    return with_tokens("".join(_placed(s.name, kept[s.name]) for s in page.view.stages), page.csrf, page.query)


def _placed(name: str, section: str) -> str:
    heading = '<h2 id="followups-heading" class="stage-title">Follow-ups</h2>' if name == "followup-1" else ""
    return f"{heading}\n        {section}"


def _own_drawing(page: CardPage, s) -> bool:
    return page.preview or (s.name == "short" and not _blank(page.answer))


def kept_stages(page: CardPage) -> dict[str, str]:
    """The page's stages drawn with marks where their forms' query, CSRF token and event ids go,
    by name, but for those drawn for the reader alone (``_own_drawing``). Kept for the page's
    state (``caches.stage_set_key``), each stage kept on its own too (``caches.stage_key``): a
    scenario new to the page changes only its revealed stages."""
    def draw(s) -> str:
        return caches.stages.get_or_make(caches.stage_key(page, s), lambda: str(_parts().stage(
            page.card, s, caches.QUERY_MARK, page.attempt, False, page.answer, page.view.next_stage,
            csrf=caches.CSRF_MARK, event_id=caches.EVENT_ID_MARK)))
    own_short = not _blank(page.answer)
    return caches.stage_sets.get_or_make(caches.stage_set_key(page, own_short), lambda: {
        s.name: draw(s) for s in page.view.stages if not _own_drawing(page, s)})


def _blank(answer: dict) -> bool:
    """An answer box with nothing of the reader's in it: nothing typed, nothing checked."""
    return not (answer["typed"] or answer["working"] or answer["verdict"] or answer["checked_steps"]
                or any(step["typed"] for step in answer["steps"]))


def with_tokens(drawn: str, csrf: str, query: str) -> Markup:
    """A kept drawing with the scenario's query on its forms' URLs, the session's CSRF token, and
    a new event id in each of its forms."""
    drawn = drawn.replace("?" + caches.QUERY_MARK, f"?{escape(query)}" if query else "")
    first, *rest = drawn.replace(caches.CSRF_MARK, csrf).split(caches.EVENT_ID_MARK)
    return Markup(first + "".join(new_event_id() + part for part in rest))


def panel(card, scenario, error) -> tuple[list[dict], Markup]:
    """The panel's rows and their HTML. After an error they hold what the reader typed, so they
    are drawn for this request; otherwise they are drawn once per ``caches.panel_key``."""
    if error:
        return _drawn(controls(card, scenario, error, request.args))
    return caches.panels.get_or_make(caches.panel_key(card, scenario), lambda: _drawn(controls(card, scenario)))


def _drawn(rows: list[dict]) -> tuple[list[dict], Markup]:
    return rows, _draw_panel(rows)


def _draw_panel(rows) -> Markup:
    return drawn_rows(rows, "control")


def drawn_rows(rows: list[dict], macro: str) -> Markup:
    """Calculator rows drawn with ``macro`` (the panel's or the bar's), each once per what it holds:
    a scenario new to the page changes a row or two, and the model's select is the costly one. A
    row marked with an error holds what the reader typed, and is drawn for them alone."""
    draw = getattr(_parts(), macro)
    return Markup("".join(draw(row) if row.get("error") else
                          caches.control_rows.get_or_make(caches.control_row_key(macro, row), lambda: str(draw(row)))
                          for row in rows))


def fragment_json(page: CardPage, focus: str | None = None) -> dict:
    """The parts of the page that change, for the script to put in place: the same macros render
    them as render the page."""
    view, card = page.view, page.card
    return {
        "url": card_url(card, page.scenario),
        "query": page.query,
        "question": view.question_html,
        "stages": stage_sections(page),
        "grade": page.grade_html,
        "revealed": [s.name for s in view.stages if s.revealed],
        "derivations": page.derivations_html,
        "held": page.held_html,
        "controls": page.controls_html,
        "bar": page.bar_html,
        "variant": page.scenario.variant,  # what the calculator's form keeps (None: the card's own)
        "next_variant_url": page.next_variant_url,
        "error": error_json(page.error),
        "notice": page.error_notice,
        "focus": focus,
        "announce": _announcement(page),
    }


def error_json(error: CalcError | None) -> dict | None:
    """The scenario error for the script: vLLM's or the calculator's words, in a reader's words too."""
    if error is None:
        return None
    return {"error": error.message, "field": error.field, "message": message_for_people(error),
            "refused": isinstance(error, Refused), "check": getattr(error, "check", None)}


def _announcement(page: CardPage) -> str:
    if page.error:
        return f"Not recalculated: {page.error.message}"
    return f"Recalculated for {page.scenario.inputs.model or 'the card'}" + (
        f", variant {page.variant_name}" if page.variant_name else "") + "."
