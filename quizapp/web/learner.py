"""The candidate's own pages: practice what is due, the progress dashboard, the profile."""

from __future__ import annotations

from datetime import datetime, timezone

from flask import Blueprint, Response, abort, current_app, flash, redirect, render_template, request, session, url_for

from ..progress import learners, scheduling, transfer
from ..progress.events import history
from ..progress.summary import summary
from . import charts, limits
from .storage import get_bank, get_db, learner_id

bp = Blueprint("learner", __name__)


@bp.get("/practice")
def practice():
    """Due cards first (most overdue first), then new ones; a returning card gets another variant."""
    role, tag = request.args.get("role", "").strip(), request.args.get("tag", "").strip()
    bank = get_bank()
    cards = bank.matching(role, tag)
    choice = scheduling.pick_next(get_db(), learner_id(), cards, datetime.now(timezone.utc))
    if choice is None:
        next_due = scheduling.next_due(get_db(), learner_id(), [c.id for c in cards])
        return render_template("practice_done.html", next_due=next_due, role=role, tag=tag, total=len(cards),
                               roles=bank.roles(), tags=bank.tags())
    card, variant, _why = choice
    params = {"variant": variant} if variant is not None else {}
    return redirect(url_for("practice.card", card_id=card.id, **params), code=303)


@bp.get("/progress")
def progress():
    bank = get_bank()
    data = summary(get_db(), learner_id(), bank.cards)
    per_day = charts.bar_chart([(day[5:], n) for day, n in data["reviews_per_day"]], "Reviews per day",
                               unit="reviews")
    by_role = charts.hbar_chart([(r["name"], round(r["accuracy"] * 100)) for r in data["accuracy_by_role"]],
                                "Known at review, by role", max_value=100)
    by_tag = charts.hbar_chart([(r["name"], round(r["accuracy"] * 100)) for r in data["accuracy_by_tag"]],
                               "Known at review, by tag", max_value=100)
    card_id = request.args.get("card", "")
    card_history = history(get_db(), learner_id(), card_id) if card_id else []
    return render_template("progress.html", data=data, per_day=per_day, by_role=by_role, by_tag=by_tag,
                           card_id=card_id, card_history=card_history, cards=bank.cards)


@bp.get("/me")
def me():
    learner = learners.get_learner(get_db(), learner_id()) or {"id": learner_id(), "display_name": None}
    return render_template("me.html", learner=learner)


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
    raw = upload.read(limit + 1) if upload else request.get_data()[: limit + 1]
    if len(raw) > limit:
        flash(f"That file is larger than {limit // 2**20} MB; it is not a progress export.")
        return redirect(url_for("learner.me"), code=303)
    try:
        data = limits.loads(raw.decode("utf-8"))
        counts = transfer.import_progress(get_db(), learner_id(), data, known_cards=get_bank().cards.keys())
    except transfer.ImportRefused as error:
        flash(f"Nothing imported: {error}.")
    except limits.JSONTooDeep as error:
        flash(f"Nothing imported: the file is not a progress export ({error}).")
    except ValueError as error:  # not UTF-8, or not JSON
        flash(f"Nothing imported: the file is not JSON ({error}).")
    except transfer.ImportInterrupted as stop:
        flash(f"Imported {stop.done:,} of {stop.total:,} rows, then stopped: {stop.reason}.")
    else:
        rows = len(data["events"]) + len(data["review_log"])
        flash(f"Imported {counts['events']} new events and {counts['reviews']} new reviews: {rows:,} of {rows:,} "
              "rows read; what was already here was skipped." + _skipped(counts["skipped"]))
    return redirect(url_for("learner.me"), code=303)


def _skipped(rows: int) -> str:
    return f" {rows:,} rows were of cards this server does not have, and were left out." if rows else ""
