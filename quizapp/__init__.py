"""quizapp: interview and training quizzes on LLM inference engineering."""

from __future__ import annotations

import os
from pathlib import Path

from flask import Flask

# templates/, static/ and questions/ live at the top of the repository, beside the package.
ROOT = Path(__file__).resolve().parent.parent


def create_app(test_config: dict | None = None) -> Flask:
    """The app factory: configuration, blueprints, error pages."""
    app = Flask(
        __name__,
        instance_relative_config=True,
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
    )
    app.config.from_mapping(
        SECRET_KEY=os.environ.get("QUIZAPP_SECRET_KEY", "dev"),
        DATABASE=os.path.join(app.instance_path, "quizapp.sqlite"),
        QUESTIONS_DIR=str(ROOT / "questions"),
        JSON_SORT_KEYS=False,
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(test_config)
    os.makedirs(app.instance_path, exist_ok=True)

    from .web import register

    register(app)
    return app
