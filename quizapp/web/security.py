"""What the app tells browsers to refuse, and what it refuses itself.

- Every response carries a Content-Security-Policy with no inline script or style (so
  templates keep script and style in ``static/``), cannot be framed, is not sniffed, and
  sends no address to other sites.
"""

from __future__ import annotations

from flask import Flask, Response

# Scripts and styles from static/ only; data: for the empty favicon; forms post to this app only.
CONTENT_SECURITY_POLICY = "; ".join((
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
))

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    # frame-ancestors for browsers that predate it.
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    # A card's URL holds the reader's scenario; other sites need not see it.
    "Referrer-Policy": "same-origin",
}


def add_security_headers(response: Response) -> Response:
    """Each header unless the view set its own."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def init_app(app: Flask) -> None:
    app.after_request(add_security_headers)
