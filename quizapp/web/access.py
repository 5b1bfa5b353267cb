"""Who may use the author tools, which show every answer, and see interview-only cards.

The rule: open to everyone when the server listens on a loopback address, where every reader
sits at this machine; on any other address a reader needs the author token, which
``quizapp serve`` prints at start (as a notebook server does) or ``QUIZAPP_AUTHOR_TOKEN`` sets.
``?token=`` on any URL, once, marks the reader's session. ``AUTHOR_TOOLS = False`` turns the
tools off for everyone; ``AUTHOR_TOOLS = "token"`` asks for the token on any address (a
server behind a proxy on the same machine sees every reader as local).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from urllib.parse import urlencode

from flask import Flask, abort, current_app, g, redirect, request, session

SESSION_KEY = "author_token"


def is_loopback(host: str | None) -> bool:
    """Whether a server bound to ``host`` is reachable from this machine only."""
    if not host:
        return False
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def needs_token(app: Flask) -> bool:
    """Whether this server asks readers for the author token (it prints one at start when it does)."""
    mode = app.config["AUTHOR_TOOLS"]
    return bool(mode) and (mode == "token" or not is_loopback(app.config.get("SERVER_HOST")))


def author_access() -> bool:
    """Whether the author tools (and interview-only cards) are open to this request."""
    if "author_access" not in g:
        g.author_access = _decide()
    return g.author_access


def _decide() -> bool:
    config = current_app.config
    if not config["AUTHOR_TOOLS"]:
        return False
    if not needs_token(current_app):
        return True
    token = config.get("AUTHOR_TOKEN")
    marked = session.get(SESSION_KEY)
    # A token that changes (a restart without QUIZAPP_AUTHOR_TOKEN) ends every old session's access.
    return bool(token) and isinstance(marked, str) and hmac.compare_digest(marked, token_digest(str(token)))


def require_author_tools() -> None:
    """Abort unless the author tools are open to this request: 404 when they are off, 403 when a token is missing."""
    if not current_app.config["AUTHOR_TOOLS"]:
        abort(404, description="Author tools are turned off on this server.")
    if not author_access():
        abort(403, description="The author tools on this server need the author token: open the link that "
                               "quizapp serve printed at start (…/?token=…).")


def accept_token():
    """``?token=`` with the right author token marks the session; a page is then shown again without it,
    so the token does not stay in the address bar or the history."""
    given = request.args.get("token")
    token = current_app.config.get("AUTHOR_TOKEN")
    if not given or not token or not current_app.config["AUTHOR_TOOLS"]:
        return None
    if not hmac.compare_digest(token_digest(given), token_digest(str(token))):
        return None
    session[SESSION_KEY] = token_digest(str(token))
    session.permanent = True
    g.pop("author_access", None)
    if request.method == "GET" and not request.path.startswith("/api/"):
        rest = [(k, v) for k, v in request.args.items(multi=True) if k != "token"]
        return redirect(request.path + (f"?{urlencode(rest)}" if rest else ""), code=303)
    return None


def init_app(app: Flask) -> None:
    app.before_request(accept_token)
