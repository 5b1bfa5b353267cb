"""Flask blueprints, one per kind of user, plus the JSON API."""

from __future__ import annotations

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, SecurityError

from ..calc import CalcError, FieldError
from ..cards import OutOfOrder
from ..cards.topics import TOPICS
from ..progress.events import EventError
from ..progress.interviews import InterviewError
from ..progress.quota import ProfileFull
from ..progress.scheduling import RATINGS
from . import access, api, limits, security, signatures, storage
from .author import views as author
from .calc import compare as calc_compare, log as calc_log, views as calc_page
from .interview import views as interview, api as interview_api
from .learner import views as learner
from .practice import views as practice, printing as print_pages

# Errors that name the input at fault (each has .message, .field and .to_json()), with the title
# of the page a browser gets. An error type may set .status (409 for a reused event id or a
# stage revealed out of order, 413 for a full profile); else 400.
INPUT_ERRORS = {CalcError: "Not calculated", EventError: "Not stored", OutOfOrder: "Not yet",
                InterviewError: "Not saved", limits.TooLarge: "Too large", ProfileFull: "Profile full",
                FieldError: "Not understood"}  # any other input error: after its subclasses


def wants_json() -> bool:
    """The API, a script that asks for JSON, and a request that sends JSON get their errors as JSON."""
    return (request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json"
            or request.is_json)


def register(app: Flask) -> None:
    # First: a request over a limit, or refused, stops before any view or storage works on it.
    limits.init_app(app)
    security.init_app(app)
    signatures.init_app(app)
    access.init_app(app)
    storage.init_app(app)
    interview_api.init_app(app)
    # Macros that templates import see the globals, not a view's context: the grade form loops over this.
    app.jinja_env.globals["RATINGS"] = RATINGS
    app.jinja_env.globals["TOPIC_TITLES"] = {topic.id: topic.title for topic in TOPICS}
    app.register_blueprint(api.bp)
    app.register_blueprint(learner.bp)
    app.register_blueprint(practice.bp)
    app.register_blueprint(author.bp)
    app.register_blueprint(interview.bp)
    app.register_blueprint(interview_api.bp)
    app.register_blueprint(calc_page.bp)
    app.register_blueprint(calc_compare.bp)
    app.register_blueprint(calc_log.bp)
    app.register_blueprint(print_pages.bp)

    def input_error(error):
        status = getattr(error, "status", 400)
        if wants_json():
            return jsonify(error.to_json()), status
        title = next(title for kind, title in INPUT_ERRORS.items() if isinstance(error, kind))
        return render_template("error.html", code=status, title=title, message=error.message), status

    for kind in INPUT_ERRORS:
        app.register_error_handler(kind, input_error)

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException):
        if isinstance(error, SecurityError):
            # A Host outside TRUSTED_HOSTS: no URL can be built for it, so no page is rendered.
            return Response("Bad request: this Host header names another server.\n", 400, mimetype="text/plain")
        if isinstance(error, storage.BrokenCard) and not wants_json():
            return author.broken_card_page(error), error.code
        if wants_json():
            return jsonify({"error": error.description, "field": getattr(error, "field", None)}), error.code
        return render_template("error.html", code=error.code, title=error.name,
                               message=error.description), error.code

    @app.errorhandler(Exception)
    def unexpected_error(error: Exception):
        # Never a traceback in front of a user: log it, answer plainly.
        app.logger.exception("unhandled error on %s %s", request.method, security.mask_tokens(request.path))
        message = "Something went wrong on our side; the error has been logged."
        if wants_json():
            return jsonify({"error": message, "field": None}), 500
        return render_template("error.html", code=500, title="Server error", message=message), 500
