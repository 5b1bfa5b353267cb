"""Who may use the author tools, which show every answer, and see interview-only cards.

The rule (``AUTHOR_TOOLS = "auto"``, the default): open to a reader at this machine, that is
a server listening on a loopback address, not behind a proxy, reached by a request that names
no forwarded client other than a loopback one; everyone else needs the author token, which
``quizapp serve`` prints at start (as a notebook server does) or ``QUIZAPP_AUTHOR_TOKEN`` sets.
A proxy normally forwards to 127.0.0.1: only the bound address deciding "loopback" had opened
every answer to the internet behind ``--behind-proxy`` (issue 21). ``?token=`` on any URL, once,
marks the reader's session. Set explicitly, the setting wins: ``True`` opens the tools whenever
the server listens on a loopback address (whatever a proxy forwards), ``"token"`` asks for the
token on any address, ``False`` turns the tools off for everyone.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from functools import lru_cache
from urllib.parse import urlencode

from flask import Flask, abort, current_app, g, redirect, request, session

SESSION_KEY = "author_token"


@lru_cache(maxsize=1024)  # asked of the client's address on every request that opens a card
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


# Headers by which a proxy names the client it forwards for, and their WSGI environ keys.
FORWARDED_HEADERS = ("X-Forwarded-For", "Forwarded", "X-Real-IP")
FORWARDED_KEYS = tuple("HTTP_" + name.upper().replace("-", "_") for name in FORWARDED_HEADERS)


def needs_token(app: Flask) -> bool:
    """Whether this server asks every reader for the author token (it prints one at start when
    it does). In "auto" mode a loopback server still asks a request forwarded for another client."""
    mode = app.config["AUTHOR_TOOLS"]
    if not mode:
        return False
    if mode == "token":
        return True
    loopback = is_loopback(app.config.get("SERVER_HOST"))
    if mode == "auto":
        return not loopback or bool(app.config.get("BEHIND_PROXY"))
    return not loopback


def forwarded_for_another_client() -> bool:
    """Whether this request names a forwarded client that is not at this machine (a proxy in
    front that the server was not told about), or comes from one."""
    if request.remote_addr and not is_loopback(request.remote_addr):
        return True
    if not any(key in request.environ for key in FORWARDED_KEYS):  # most requests: no proxy named
        return False
    for name in FORWARDED_HEADERS:
        for value in request.headers.getlist(name):
            if name == "Forwarded":
                addresses = [part.split("=", 1)[1] for field in value.split(",") for part in field.split(";")
                             if part.strip().lower().startswith("for=")]
            else:
                addresses = value.split(",")
            if any(not is_loopback(_address(address)) for address in addresses):
                return True
    return False


def _address(text: str) -> str:
    """An address as a forwarding header writes it: quoted, bracketed, with a port."""
    text = text.strip().strip('"')
    if text.startswith("["):
        return text[1:text.find("]")] if "]" in text else text
    return text.rsplit(":", 1)[0] if text.count(":") == 1 else text


def author_access() -> bool:
    """Whether the author tools (and interview-only cards) are open to this request."""
    if "author_access" not in g:
        g.author_access = _decide()
    return g.author_access


def _decide() -> bool:
    config = current_app.config
    if not config["AUTHOR_TOOLS"]:
        return False
    if not needs_token(current_app) and not (config["AUTHOR_TOOLS"] == "auto" and forwarded_for_another_client()):
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
