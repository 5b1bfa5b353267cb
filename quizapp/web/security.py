"""What the app tells browsers to refuse, and what it refuses itself.

- A request that changes state (POST, PUT, PATCH, DELETE) from another site is refused with
  403: the browser says so (``Sec-Fetch-Site``), or its ``Origin`` is not this server's.
- A form post must carry the CSRF token (Flask-WTF's ``CSRFProtect``): each
  ``<form method="post">`` holds ``<input type="hidden" name="csrf_token" value="{{ csrf_token() }}">``
  and a script may send it as the ``X-CSRFToken`` header (``<meta name="csrf-token">``). Missing
  or wrong, the post is a 400 and nothing is done.
- JSON endpoints (``/api/...``) need no token: their body must be ``application/json``,
  which no form on another site can send, and the origin check above still applies.
- Behind a reverse proxy (``BEHIND_PROXY``, ``serve --behind-proxy``) the scheme, host and
  client address are the proxy's ``X-Forwarded-*``: the origin check compares with the
  address the reader used, and Flask-WTF checks the Referer of an HTTPS post.
- The Host header must name this server (Flask's ``TRUSTED_HOSTS``), or a page on another
  name that resolves to this machine (DNS rebinding) could read and post as a local reader:
  by default the bound address and ``localhost`` on a loopback address, the bound address on
  another one (any name on a wildcard address such as 0.0.0.0 or ::), and behind a proxy the
  host the proxy forwards (``X-Forwarded-Host``), a request reaching the server directly being
  held to the bound address. An IPv6 address, which ``TRUSTED_HOSTS`` cannot hold, is checked
  here (``[::1]:5000``, in any spelling of the address). A foreign Host is a 400.
- Every response carries a Content-Security-Policy with no inline script or style (so
  templates keep script and style in ``static/``), cannot be framed, is not sniffed, and
  sends no address to other sites.
"""

from __future__ import annotations

import ipaddress
import logging
import re
from functools import lru_cache
from urllib.parse import urlsplit

from flask import Flask, Request, abort, current_app, request
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import SecurityError
from werkzeug.middleware.proxy_fix import ProxyFix
from werkzeug.sansio.utils import host_is_trusted

from .access import is_loopback
from .signatures import KeptCSRFProtect

csrf = KeptCSRFProtect()  # Flask-WTF's, each posted token's signature checked once

# A pasted log may be 2,000,000 characters (calc.log.parse.MAX_LOG_CHARS); a form field holds it.
FORM_FIELD_BYTES = 2 * 1024 * 1024 + 64 * 1024

# Requests that may change state; GET and HEAD never do here.
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# What Sec-Fetch-Site says when the request comes from this origin, or from the user (typed, bookmarked).
OWN_SITES = frozenset({"same-origin", "none"})
DEFAULT_PORTS = {"http": 80, "https": 443}

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


# A link's token is its credential: an interviewer's or candidate's path, the author token's query.
TOKEN_IN_PATH = re.compile(r"(/interview/[ic]/)[^/?#\s\"]+")
TOKEN_IN_QUERY = re.compile(r"((?:^|[?&])token=)[^&#\s\"]+")
MASK = "***"


def mask_tokens(text: str) -> str:
    """``text`` (a path, a query, a log line) with every link token replaced by ***."""
    return TOKEN_IN_QUERY.sub(r"\1" + MASK, TOKEN_IN_PATH.sub(r"\1" + MASK, text))


class MaskTokens(logging.Filter):
    """Set on a logger, masks every record it logs before any handler sees it: the message
    formatted with its arguments, the traceback and the stack, each through ``mask_tokens``.
    On the logger rather than on one method or one handler, so every level and every handler
    (a file, a stream, syslog, an operator's logging config, pytest's capture) gets the masked
    text. A token reaches a log as an argument (gunicorn's "Error handling request %s") or in
    an exception's message, as well as in the format string."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # arguments that do not fit the format: the handler reports it, as logging does
            return True
        record.msg, record.args = mask_tokens(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            # Formatters print exc_text when set; one that formatted exc_info itself would print the token.
            record.exc_text, record.exc_info = mask_tokens(record.exc_text), None
        if record.stack_info:
            record.stack_info = mask_tokens(record.stack_info)
        return True


MASK_TOKENS = MaskTokens()  # one instance, so adding it again (a config reload, another app) adds nothing


_LOWERED_HEADERS = tuple((name.lower(), (name, value)) for name, value in SECURITY_HEADERS.items())


def with_security_headers(wsgi_app):
    """``wsgi_app`` with each of SECURITY_HEADERS on every response that has not set its own.

    At the WSGI layer, as plain pairs: every response gets them, whatever made it (a view, an
    error page, a redirect werkzeug raised, a static file), and werkzeug does not check each
    value again on every request, as an ``after_request`` adding them to ``response.headers``
    made it do (a fortieth of a small JSON post)."""

    def app(environ, start_response):
        def start(status, headers, exc_info=None):
            present = {name.lower() for name, _ in headers}
            return start_response(status, [*headers, *(pair for name, pair in _LOWERED_HEADERS
                                                       if name not in present)], exc_info)

        return wsgi_app(environ, start)

    return app


def check_request() -> None:
    """Refuse a state-changing request from another site, and a form post without its token."""
    req = request._get_current_object()  # once: each use of the proxy looks the request up again
    if req.method not in UNSAFE_METHODS or req.endpoint is None:
        return  # nothing to protect, or a 404/405 on its way
    refuse_other_sites(req)
    if req.path.startswith("/api/"):
        require_json_body(req)
    elif current_app.config["WTF_CSRF_ENABLED"]:
        try:
            csrf.protect()
        except CSRFError as error:
            error.description = f"{error.description} Reload the page and send the form again."
            raise


def refuse_other_sites(req: Request) -> None:
    headers = req.headers
    site = headers.get("Sec-Fetch-Site")
    if site is not None and site not in OWN_SITES:
        abort(403, description=f"Refused: this request came from another site (Sec-Fetch-Site: {site}).")
    origin = headers.get("Origin")
    # The scheme and Host (checked against TRUSTED_HOSTS, or set by the trusted proxy) are what
    # host_url is built from; building host_url itself (werkzeug's get_current_url) was a tenth
    # of a small JSON post.
    if origin is not None and _origin(origin) != _origin(f"{req.scheme}://{req.host}"):
        # Behind a proxy whose X-Forwarded-Proto and -Host are not trusted, every origin looks
        # foreign: the operator who sees this needs the hint.
        abort(403, description=f"Refused: this request came from another site ({origin}), "
                               f"not from {req.host_url.rstrip('/')}. (Is this server behind a "
                               f"reverse proxy? Then serve it with --behind-proxy.)")


def require_json_body(req: Request) -> None:
    """A body a cross-site form can send (text/plain, a form) is not JSON here, whatever it holds."""
    has_body = bool(req.content_length) or "chunked" in req.headers.get("Transfer-Encoding", "")
    if has_body and not req.is_json:
        abort(400, description=f"the request body must be a JSON object sent as application/json, "
                               f"not {req.mimetype or 'untyped'}")


def limit_body(max_bytes: int) -> None:
    """Refuse a body larger than ``max_bytes`` before any of it is parsed (413)."""
    request.max_content_length = max_bytes
    if request.content_length is not None and request.content_length > max_bytes:
        abort(413, description=f"the request is larger than {max_bytes:,} bytes")


# Kept by the text: a server sees the same few origins over and over. Bounded, as a header is hostile.
@lru_cache(maxsize=1024)
def _origin(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) with the default port filled in; None for "null" or anything unparsable."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port or DEFAULT_PORTS.get(parts.scheme.lower())
    except ValueError:
        return None
    if not parts.scheme or not parts.hostname:
        return None
    return parts.scheme.lower(), parts.hostname.lower(), port


# An IPv6 address as a Host header gives it (RFC 3986 3.2.2): in brackets, then an optional port.
IPV6_HOST = re.compile(r"\[([0-9A-Fa-f:.]+)\](?::([1-9][0-9]{0,4}))?")


def own_hosts(bound: str | None) -> list[str] | None:
    """The names Flask's ``TRUSTED_HOSTS`` may hold for a server bound to ``bound``: the address
    and, on a loopback one, ``localhost`` and 127.0.0.1; None (any) for a wildcard address, which
    answers on names it cannot know. Never an IPv6 literal: werkzeug's check compares the part
    of a trusted name before its first colon, so ``names_this_server`` matches those itself."""
    bound = (bound or "").strip("[]")
    if bound in ("", "0.0.0.0", "::"):
        return None
    names = [] if ":" in bound else [bound]
    if is_loopback(bound):
        names += [name for name in ("localhost", "127.0.0.1") if name not in names]
    return names


def bound_ipv6(bound: str | None) -> ipaddress.IPv6Address | None:
    """The address of a server bound to one IPv6 address; None for IPv4, a name or the wildcard ::."""
    try:
        address = ipaddress.ip_address((bound or "").strip("[]"))
    except ValueError:
        return None
    return address if address.version == 6 and not address.is_unspecified else None


def names_this_server(host: str | None, bound: str | None) -> bool:
    """Whether the Host header ``host`` names a server bound to ``bound``: one of ``own_hosts``
    (any port), or on an IPv6 address that address in brackets, however it is spelled, with an
    optional port from 1 to 65535."""
    names = own_hosts(bound)
    if names is None:
        return True
    if names and host_is_trusted(host, names):  # an empty list would trust every name
        return True
    address = bound_ipv6(bound)
    match = IPV6_HOST.fullmatch(host or "") if address else None
    if match is None or (match[2] and int(match[2]) > 65535):
        return False
    try:
        return ipaddress.IPv6Address(match[1]) == address
    except ValueError:
        return False


def check_host() -> None:
    """Behind a proxy without TRUSTED_HOSTS: the host the proxy forwards is its to decide; a
    request that reaches the server without one (directly, not through the proxy) must name
    the bound address."""
    original = request.environ.get("werkzeug.proxy_fix.orig", {})
    if request.headers.get("X-Forwarded-Host") or not original:
        return
    if not names_this_server(original.get("HTTP_HOST"), current_app.config.get("SERVER_HOST")):
        abort(400, description="Refused: this request's Host header names another server.")


def check_ipv6_host() -> None:
    """On an IPv6 address without TRUSTED_HOSTS, which cannot hold it: the Host must name this
    server, and another is refused as Flask refuses one outside TRUSTED_HOSTS (the same 400).
    A request without a Host header (HTTP/1.0) is held to the address werkzeug takes from the
    server instead, as Flask's check does."""
    host = request.headers.get("Host", request.host)
    if not names_this_server(host, current_app.config.get("SERVER_HOST")):
        raise SecurityError(f"Host {host!r} is not trusted.")


def init_app(app: Flask) -> None:
    proxies = int(app.config["BEHIND_PROXY"])
    if proxies:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies, x_port=proxies)
        if app.config.get("TRUSTED_HOSTS") is None:
            app.before_request(check_host)
    elif app.config.get("TRUSTED_HOSTS") is None and bound_ipv6(app.config.get("SERVER_HOST")):
        app.before_request(check_ipv6_host)
    elif app.config.get("TRUSTED_HOSTS") is None:
        app.config["TRUSTED_HOSTS"] = own_hosts(app.config.get("SERVER_HOST"))
    # The token never expires within a session: a card page left open for a day still reveals.
    app.config.setdefault("WTF_CSRF_TIME_LIMIT", None)
    # Checked in check_request, which exempts /api/ by path, so an API added later is covered too.
    app.config["WTF_CSRF_CHECK_DEFAULT"] = False
    if (app.config.get("MAX_FORM_MEMORY_SIZE") or 0) < FORM_FIELD_BYTES:
        app.config["MAX_FORM_MEMORY_SIZE"] = FORM_FIELD_BYTES
    csrf.init_app(app)
    app.before_request(check_request)
    app.wsgi_app = with_security_headers(app.wsgi_app)
    # The app logs request paths and tracebacks; its modules' own loggers (quizapp.cards, ...) log card files only.
    app.logger.addFilter(MASK_TOKENS)
