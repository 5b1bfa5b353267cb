"""Cross-site request protection: CSRF tokens for the pages' POST forms, and a same-site check for
the JSON API that takes a body a form could not send.

``csrf`` is Flask-WTF's CSRFProtect. Until every POST form carries a token, the check runs only in
the views that call ``csrf.protect()`` (``WTF_CSRF_CHECK_DEFAULT`` is off); templates put
``<input type="hidden" name="csrf_token" value="{{ csrf_token() }}">`` in their forms.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, abort, request
from flask_wtf.csrf import CSRFProtect

csrf = CSRFProtect()

# A pasted log may be 2,000,000 characters (calc.logparse.MAX_LOG_CHARS); a form field holds it.
FORM_FIELD_BYTES = 2 * 1024 * 1024 + 64 * 1024


def init_app(app: Flask) -> None:
    app.config.setdefault("WTF_CSRF_CHECK_DEFAULT", False)
    if (app.config.get("MAX_FORM_MEMORY_SIZE") or 0) < FORM_FIELD_BYTES:
        app.config["MAX_FORM_MEMORY_SIZE"] = FORM_FIELD_BYTES
    csrf.init_app(app)


def refuse_cross_site_json() -> None:
    """Abort unless the request is JSON from this site (or from no site: curl, a script).

    A cross-site form can send text/plain or a form encoding but not application/json without a
    CORS preflight, which this app never grants; Sec-Fetch-Site and Origin name the sender where
    the browser states them.
    """
    if request.mimetype != "application/json":
        abort(415, description="send the body as JSON, with Content-Type: application/json")
    site = request.headers.get("Sec-Fetch-Site")
    if site and site not in ("same-origin", "none"):
        abort(403, description=f"cross-site request refused (Sec-Fetch-Site: {site})")
    origin = request.headers.get("Origin")
    if origin and urlsplit(origin).netloc != request.host:
        abort(403, description="cross-site request refused (its Origin is another site)")


def limit_body(max_bytes: int) -> None:
    """Refuse a body larger than ``max_bytes`` before any of it is parsed (413)."""
    request.max_content_length = max_bytes
    if request.content_length is not None and request.content_length > max_bytes:
        abort(413, description=f"the request is larger than {max_bytes:,} bytes")
