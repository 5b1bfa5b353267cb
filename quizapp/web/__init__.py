"""Flask blueprints, one per kind of user, plus the JSON API."""

from __future__ import annotations

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException


def wants_json() -> bool:
    return request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json"


def register(app: Flask) -> None:
    from . import api, author, learner, practice, storage

    storage.init_app(app)
    app.register_blueprint(api.bp)
    app.register_blueprint(learner.bp)
    app.register_blueprint(practice.bp)
    app.register_blueprint(author.bp)

    from ..progress.events import EventError

    @app.errorhandler(EventError)
    def event_error(error: EventError):
        if wants_json():
            return jsonify(error.to_json()), error.status
        return render_template("error.html", code=error.status, title="Not stored", message=error.message), \
            error.status

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException):
        if wants_json():
            return jsonify({"error": error.description, "field": None}), error.code
        return render_template("error.html", code=error.code, title=error.name,
                               message=error.description), error.code

    @app.errorhandler(Exception)
    def unexpected_error(error: Exception):
        # Never a traceback in front of a user: log it, answer plainly.
        app.logger.exception("unhandled error on %s %s", request.method, request.path)
        message = "Something went wrong on our side; the error has been logged."
        if wants_json():
            return jsonify({"error": message, "field": None}), 500
        return render_template("error.html", code=500, title="Server error", message=message), 500
