"""Signatures a request would otherwise compute again: the session cookie's, checked once per
cookie, and the CSRF token's, signed once per session and checked once per token posted.

Flask checks the session cookie's HMAC on every request, and Flask-WTF signs the CSRF token on
every page: together a tenth of a card page's time in a worker (py-spy under wrk). A cookie's
text and the key that signed it decide what it holds, so a cookie checked once is kept by its
text; a session's token signed once is kept by the token. The token never expires
(``WTF_CSRF_TIME_LIMIT`` is None, web/security.py), so a kept signature is as valid as a new one.
"""

from __future__ import annotations

import hmac
import time

from flask import Flask, current_app, g, request, session
from flask.sessions import SecureCookieSessionInterface
from flask_wtf.csrf import CSRFProtect, generate_csrf
from itsdangerous import BadSignature, URLSafeTimedSerializer

from ..lru import LRU

# A few hundred bytes each: the readers of the last hours.
COOKIES_KEPT = 4096
# A cookie checked once is checked again after this long (its lifetime is 400 days; settings.py).
CHECK_AGAIN_S = 3600
verified_cookies: LRU[tuple[str, float]] = LRU(COOKIES_KEPT)
signed_tokens: LRU[str] = LRU(COOKIES_KEPT)
checked_tokens: LRU[str] = LRU(COOKIES_KEPT)
CSRF_FIELD = "csrf_token"


class KeptCookieSessions(SecureCookieSessionInterface):
    """Flask's signed-cookie sessions, with each cookie's signature checked once (per
    CHECK_AGAIN_S) and the serializer made once per set of keys."""

    def get_signing_serializer(self, app: Flask) -> URLSafeTimedSerializer | None:
        if not app.secret_key:
            return None
        keys = (*(app.config.get("SECRET_KEY_FALLBACKS") or ()), app.secret_key)
        kept = getattr(self, "_serializer", None)
        if kept is None or kept[0] != keys:
            kept = (keys, super().get_signing_serializer(app))
            self._serializer = kept
        return kept[1]

    def open_session(self, app: Flask, request):
        serializer = self.get_signing_serializer(app)
        if serializer is None:
            return None
        value = request.cookies.get(self.get_cookie_name(app))
        if not value:
            return self.session_class()
        key = (value, app.secret_key)
        kept = verified_cookies.get(key)
        if kept is not None and time.monotonic() - kept[1] < CHECK_AGAIN_S:
            # A copy each time: a view may change what the session holds in place.
            return self.session_class(fresh_copy(kept[0]))
        try:
            data = serializer.loads(value, max_age=int(app.permanent_session_lifetime.total_seconds()))
        except BadSignature:
            return self.session_class()
        verified_cookies.put(key, (fresh_copy(data), time.monotonic()))
        return self.session_class(data)


def fresh_copy(value):
    """A copy of what a session cookie holds, down to every dict and list (its other values, as
    Flask's tagged JSON reads them, cannot change in place): a fifth of the time of parsing the
    cookie's JSON again."""
    if isinstance(value, dict):
        return {key: fresh_copy(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(fresh_copy(item) for item in value)
    return value


class KeptCSRFProtect(CSRFProtect):
    """Flask-WTF's check of a posted CSRF token, with each token's signature checked once (kept by
    the token's text and the key): the token it signs must still be this session's. Only while
    tokens never expire and no HTTPS referrer check applies; otherwise Flask-WTF's own, in full."""

    def protect(self, apply_exemptions=False):
        key = None if apply_exemptions else self._kept_key()
        if key is not None:
            signs = checked_tokens.get(key)
            if signs is not None and CSRF_FIELD in session and hmac.compare_digest(str(session[CSRF_FIELD]), signs):
                g.csrf_valid = True
                return
        super().protect(apply_exemptions)
        if key is not None and g.get("csrf_valid") and CSRF_FIELD in session:
            checked_tokens.put(key, str(session[CSRF_FIELD]))

    def _kept_key(self) -> tuple[str, str] | None:
        config = current_app.config
        if request.method not in config["WTF_CSRF_METHODS"] or config.get("WTF_CSRF_TIME_LIMIT") is not None \
                or config.get("WTF_CSRF_FIELD_NAME", CSRF_FIELD) != CSRF_FIELD \
                or (request.is_secure and config["WTF_CSRF_SSL_STRICT"]):
            return None
        posted = self._get_csrf_token()
        return (posted, str(config.get("WTF_CSRF_SECRET_KEY") or current_app.secret_key)) if posted else None


def csrf_token() -> str:
    """The session's CSRF token as a form or a page's script sends it (the templates' ``csrf_token()``):
    Flask-WTF's ``generate_csrf``, signed once per session and kept. Asked for only where a page
    or a state holds a token, so a request that shows none (an API call) costs nothing here."""
    key = _token_key()
    signed = signed_tokens.get(key) if key else None
    if signed is not None:
        setattr(g, CSRF_FIELD, signed)  # where generate_csrf looks first, for any other caller
        return signed
    signed = generate_csrf()
    key = _token_key()
    if key:
        signed_tokens.put(key, signed)
    return signed


def _token_key() -> tuple[str, str] | None:
    """The session's unsigned token and the key that signs it; None before the session has one."""
    raw = session.get(CSRF_FIELD)
    if not raw:
        return None
    config = current_app.config
    return str(raw), str(config.get("WTF_CSRF_SECRET_KEY") or current_app.secret_key)


def init_app(app: Flask) -> None:
    app.session_interface = KeptCookieSessions()
    # After security.init_app, whose CSRFProtect set Flask-WTF's own in both places (a template's
    # context; the globals, which the macros it imports see); later context processors win.
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.context_processor(_csrf_context)


def _csrf_context() -> dict:
    return {"csrf_token": csrf_token}
