"""quizapp: interview and training quizzes on LLM inference engineering."""

from __future__ import annotations

import os
from pathlib import Path
from types import FunctionType

from flask import Flask

from .settings import ROOT, defaults, instance_secret


class QuizappFlask(Flask):
    """Flask, asking once per function whether a view or hook is a coroutine function.

    Flask asks on every request, of every before- and after-request hook and the view
    (``inspect.iscoroutinefunction``), and quizapp has a dozen hooks: a few microseconds each, a
    tenth of what a small JSON post costs beside a hello world. The answer cannot change for a
    plain function; anything else (a bound method, a partial) is asked each time, as before."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._sync: dict = {}

    def ensure_sync(self, func):
        if type(func) is not FunctionType:
            return super().ensure_sync(func)
        found = self._sync.get(func)
        if found is None:
            found = self._sync[func] = super().ensure_sync(func)
        return found


def create_app(overrides: dict | None = None) -> Flask:
    """The app factory: configuration, blueprints, error pages.

    Settings (``settings.SETTINGS``, each with its help), each layer over the ones before: the
    defaults, ``instance/config.py``, ``QUIZAPP_*`` environment variables
    (``QUIZAPP_AUTHOR_TOOLS=0``; values read as JSON where they parse), then ``overrides``: a
    test's settings, or ``quizapp serve --db/--questions``.
    """
    app = QuizappFlask(
        __name__,
        instance_relative_config=True,
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
    )
    app.config.from_mapping(defaults(app.instance_path))
    app.config.from_pyfile("config.py", silent=True)
    app.config.from_prefixed_env("QUIZAPP")
    app.config.update(overrides or {})
    if app.config["MAX_CONTENT_LENGTH"] is None:
        # Room for the import file and the form around it; a larger body is refused with 413.
        app.config["MAX_CONTENT_LENGTH"] = app.config["MAX_IMPORT_BYTES"] + 1024 * 1024
    os.makedirs(app.instance_path, exist_ok=True)
    secret = app.config.get("SECRET_KEY")
    if not secret:
        app.config["SECRET_KEY"] = instance_secret(app.instance_path)
    elif isinstance(secret, (int, float)):
        # QUIZAPP_SECRET_KEY is read as JSON: an all-digit key arrives as a number. Keys are text.
        app.config["SECRET_KEY"] = str(secret)

    # Imported here, not at the top: the calculator and the CLI import quizapp without the web layer.
    from .web import register

    register(app)
    return app
