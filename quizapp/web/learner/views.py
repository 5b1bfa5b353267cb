"""The candidate's own pages: practice what is due, the progress dashboard, the profile."""

from __future__ import annotations

import io
import tempfile
from collections import Counter
from datetime import datetime, timezone

from flask import Blueprint, Response, abort, current_app, flash, redirect, render_template, request, session, url_for

from ...progress import learners, scheduling, transfer
from ...progress.events import history
from ...progress.summary import summary
from ...cards.topics import TOPICS
from .. import charts
from ..limits import release_memory
from ..practice import session as practice_session
from ..practice.topics import practice_pool, requested_topic, requested_topics
from ..storage import get_bank, get_db, learner_id

bp = Blueprint("learner", __name__)
# An import's JSON body stays in memory up to this size, and on disk past it; copied a chunk at a time.
SPOOL_IN_MEMORY_BYTES = 512 * 1024
COPY_CHUNK_BYTES = 64 * 1024


@bp.app_template_filter("soon")
def soon(at: str, now: datetime | None = None) -> str:
    """A due time within the hour as the page says it ("now", "in 9 minutes"); "" beyond, where
    static/localtime.js says the day and clock time in the reader's own time zone."""
    minutes = round((datetime.fromisoformat(at) - (now or datetime.now(timezone.utc))).total_seconds() / 60)
    if minutes <= 0:
        return "now"
    return f"in {minutes} minute{'s' if minutes != 1 else ''}" if minutes < 60 else ""


@bp.get("/practice")
def practice():
    """Due cards first (most overdue first), then new ones; a returning card gets another variant.

    ``role``, ``tag`` and ``topic`` filter the cards; ``topics=weakest`` draws from the reader's
    weakest topics (``practice.topics.practice_pool``). Cards skipped in this session are not
    picked again. With ``ahead=1`` and nothing due, the card due soonest is picked (practise ahead).
    """
    role, tag = request.args.get("role", "").strip(), request.args.get("tag", "").strip()
    topic, topics = requested_topic(request.args), requested_topics(request.args)
    bank = get_bank()
    cards, drawing = practice_pool(get_db(), learner_id(), bank.matching(role, tag), topic, topics)
    now = datetime.now(timezone.utc)
    skipped = practice_session.current()["skipped"]
    counts = scheduling.counts(get_db(), learner_id(), cards, now)
    choice = scheduling.pick_next(get_db(), learner_id(), cards, now, skip=skipped)
    if choice is None and request.args.get("ahead"):
        choice = scheduling.pick_ahead(get_db(), learner_id(), cards, skip=skipped)
    if choice is None:
        next_due = scheduling.next_due(get_db(), learner_id(), [c.id for c in cards])
        return render_template("learner/practice_done.html", next_due=next_due, role=role, tag=tag, total=len(cards),
                               counts=counts, skipped=len(skipped), roles=bank.roles(), tags=bank.tags(),
                               topic=topic, topics=topics, topic_choices=TOPICS, drawing=drawing)
    card, variant, why = choice
    # Practising ahead stays on for the session: after a grade, the next card due soonest.
    filters = {k: v for k, v in (("role", role), ("tag", tag), ("topic", topic), ("topics", topics),
                                 ("ahead", why == "ahead" and "1")) if v}
    practice_session.showing(card.id, counts, filters, drawing and drawing["text"])
    params = {"variant": variant} if variant is not None else {}
    return redirect(url_for("practice.card", card_id=card.id, **params), code=303)


@bp.post("/practice/skip")
def skip():
    """Move on without grading: the skipped card is not picked again in this session."""
    card_id = request.form.get("card_id", "")
    if card_id in get_bank().cards:
        practice_session.skip(card_id)
    return redirect(url_for("learner.practice", **practice_session.filters()), code=303)


@bp.post("/practice/end")
def end():
    practice_session.end()
    return redirect(url_for("learner.session_summary"), code=303)


@bp.get("/practice/summary")
def session_summary():
    """What the session that just ended did: the cards graded and how."""
    done = practice_session.last() or {"graded": [], "skipped": 0, "shown": 0}
    cards = get_bank().cards
    graded = [{"id": card_id, "title": cards[card_id].title if card_id in cards else card_id, "rating": rating}
              for card_id, rating in done["graded"]]
    ratings = Counter(g["rating"] for g in graded)
    return render_template("learner/practice_summary.html", graded=graded, skipped=done["skipped"],
                           ratings=[(r, ratings[r]) for r in scheduling.RATINGS if ratings[r]])


# The dashboard's charts are drawn as wide as a phone's screen, in 12 px text: on a phone they fit
# at about their own size, and the page caps how far a wide screen scales them (static/app.css).
PHONE_CHART = {"width": 360, "font_size": 12}


@bp.get("/progress")
def progress():
    bank = get_bank()
    data = summary(get_db(), learner_id(), bank.cards)
    per_day = charts.bar_chart([(day[5:], n) for day, n in data["reviews_per_day"]], "Reviews per day",
                               unit="reviews", **PHONE_CHART)
    by_role = charts.hbar_chart([(r["name"], round(r["accuracy"] * 100)) for r in data["accuracy_by_role"]],
                                "Known at review, by role", max_value=100, **PHONE_CHART, label_share=0.42)
    by_tag = charts.hbar_chart([(r["name"], round(r["accuracy"] * 100)) for r in data["accuracy_by_tag"]],
                               "Known at review, by tag", max_value=100, **PHONE_CHART, label_share=0.42)
    seen_by_role = charts.hbar_chart(_seen_by_role(bank, data["cards"]), "By role: % of cards seen", max_value=100,
                                     **PHONE_CHART, label_share=0.42)
    card_id = request.args.get("card", "")
    card_history = history(get_db(), learner_id(), card_id) if card_id else []
    return render_template("learner/progress.html", data=data, per_day=per_day, by_role=by_role, by_tag=by_tag,
                           card_id=card_id, card_history=card_history, cards=bank.cards,
                           seen_by_role=seen_by_role)


def _seen_by_role(bank, per_card: dict) -> list[tuple[str, int]]:
    """(role, % of the role's cards that the reader has worked on), for the coverage chart."""
    rows = []
    for role in bank.roles():
        ids = [card.id for card in bank.matching(role, "")]
        rows.append((role, round(100 * sum(1 for i in ids if i in per_card) / len(ids)) if ids else 0))
    return rows


@bp.get("/me")
def me():
    learner = learners.get_learner(get_db(), learner_id()) or {"id": learner_id(), "display_name": None}
    return render_template("learner/me.html", learner=learner)


@bp.post("/me/name")
def rename():
    learners.set_display_name(get_db(), learner_id(), request.form.get("display_name", ""))
    flash("Name saved.")
    return redirect(url_for("learner.me"), code=303)


@bp.post("/me/switch")
def switch():
    """Use another profile: paste its id (shown on its own profile page)."""
    other = request.form.get("learner_id", "").strip().lower()
    if not learners.LEARNER_ID.fullmatch(other) or learners.get_learner(get_db(), other) is None:
        flash("No profile has that id. Copy the id from the profile page of the profile you want.")
        return redirect(url_for("learner.me"), code=303)
    session["learner_id"] = other
    flash("Switched profile.")
    return redirect(url_for("learner.me"), code=303)


@bp.get("/me/new")
def confirm_new_profile():
    """Ask before leaving this profile, and show its id: the only way back to it."""
    return render_template("learner/me_new.html", learner_id=learner_id())


@bp.post("/me/new")
def new_profile():
    session.pop("learner_id", None)
    learner_id()
    flash("Started a new profile.")
    return redirect(url_for("learner.me"), code=303)


@bp.post("/me/forget")
def forget():
    """Delete everything stored about this learner, and the cookie that names them."""
    if request.form.get("confirm") != "forget":
        abort(400, description="Tick the box to confirm that everything should be deleted.")
    learners.forget(get_db(), learner_id())
    session.clear()
    flash("Everything about that profile is deleted. This is a new, empty profile.")
    return redirect(url_for("learner.me"), code=303)


@bp.get("/me/export")
def export():
    data = transfer.export(get_db(), learner_id())
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d")
    return Response(transfer.dumps(data), mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="quizapp-progress-{stamp}.json"'})


@bp.post("/me/import")
def import_progress():
    limit = current_app.config["MAX_IMPORT_BYTES"]
    upload = request.files.get("file")
    if upload is None and not request.is_json:
        # A text/plain body is what another site's form can send; an export is a file or JSON.
        abort(415, description="Send the export as the form's file, or as an application/json body.")
    # The file stays on disk (a temporary file) and is read as a stream, pass after pass.
    file = upload.stream if upload else _spooled(request.stream, limit + 1)
    if _size(file) > limit:
        flash(f"That file is larger than {limit // 2**20} MB; it is not a progress export.")
        return redirect(url_for("learner.me"), code=303)
    try:
        bank = get_bank()
        counts = transfer.import_progress(get_db(), learner_id(), file, known_cards=bank.cards.keys(),
                                          renamed=bank.aliases)
    except transfer.ImportRefused as error:
        flash(_plain_refusal(error))
    else:
        rows = counts["read"]
        flash(f"Imported {counts['events']:,} new events and {counts['reviews']:,} new reviews: {rows:,} of "
              f"{rows:,} rows read; what was already here was skipped." + _skipped(counts["skipped"]))
    finally:
        file.close()
        release_memory()
    return redirect(url_for("learner.me"), code=303)


def _spooled(stream, most: int):
    """A JSON body copied into a temporary file (in memory while small), at most ``most`` bytes of it."""
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY_BYTES)
    while spool.tell() < most:
        chunk = stream.read(min(COPY_CHUNK_BYTES, most - spool.tell()))
        if not chunk:
            break
        spool.write(chunk)
    return spool


def _size(file) -> int:
    file.seek(0, io.SEEK_END)
    size = file.tell()
    file.seek(0)
    return size


def _skipped(rows: int) -> str:
    return f" {rows:,} rows were of cards this server does not have, and were left out." if rows else ""


def _plain_refusal(error: Exception) -> str:
    """An import refusal in words for the reader (ImportRefused's messages are written for readers)."""
    choose = "Choose the file that “Export my progress” saved."
    if "not a quizapp progress export" in str(error):
        return f"Nothing imported: this file is not a quizapp export. {choose}"
    if str(error).startswith("the file is "):  # not UTF-8, not JSON, or nested far too deep
        why = str(error).removeprefix("the file ")
        return f"Nothing imported: this file is not a quizapp export (it {why}). {choose}"
    return f"Nothing imported: {error}."
