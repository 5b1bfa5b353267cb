"""What one request may send: body size, JSON nesting, query parameters; and numbers too large to use.

Every limit is refused with a 400 (413 for a body) that says which limit, and names the field
where there is one, before any view works on the request: no input, however large or strange,
reaches a view that would spend seconds or a traceback on it.
"""

from __future__ import annotations

import json

from flask import Flask, jsonify, render_template, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import BadRequest

from ..calc import FieldError

# A request body other than a progress import: a config.json is a few kilobytes.
MAX_BODY_BYTES = 1024 * 1024
# Views that take a larger body (up to MAX_CONTENT_LENGTH): the import of a progress file.
# Bodies that may pass 1 MiB, each bounded by its own view: an import, a pasted startup log.
LARGE_BODY_ENDPOINTS = ("learner.import_progress", "calc_log.read", "calc_log.fragment",
                        "api.read_log_api")
# No JSON this app reads is nested more than a few levels; Python's parser recurses, and
# "[" × 100,000 once ended in a RecursionError (a 500).
MAX_JSON_DEPTH = 64
# A query parameter is a card's scenario value, a search or a filter: short.
MAX_QUERY_VALUE_CHARS = 1000
MAX_QUERY_NAME_CHARS = 100
# /calc/compare sends every input of up to four scenarios: 23 shared + 4 × 23.
MAX_QUERY_PARAMETERS = 200


class TooLarge(FieldError):
    """A request value over its limit. ``field`` names it; a 400 like the calculator's errors."""


class JSONTooDeep(ValueError):
    """JSON nested deeper than MAX_JSON_DEPTH."""


def json_depth_exceeds(value, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether ``value`` (parsed JSON) nests containers more than ``limit`` deep. Walks level by
    level, without recursion, and stops at the first level past the limit."""
    level, depth = [value], 0
    while level:
        depth += 1
        if depth > limit:
            return True
        children = []
        for item in level:
            if isinstance(item, dict):
                children.extend(v for v in item.values() if isinstance(v, (dict, list)))
            elif isinstance(item, list):
                children.extend(v for v in item if isinstance(v, (dict, list)))
        level = children
    return False


def loads(text: str | bytes):
    """json.loads with a nesting limit. Raises JSONTooDeep, or ValueError for text that is not JSON."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise JSONTooDeep(f"JSON nested more than {MAX_JSON_DEPTH} levels deep") from None
    if json_depth_exceeds(value):
        raise JSONTooDeep(f"JSON nested more than {MAX_JSON_DEPTH} levels deep")
    return value


class BoundedJSONProvider(DefaultJSONProvider):
    """Flask's JSON, reading request bodies with the nesting limit.

    A body nested too deep is a 400 that says so, even for ``get_json(silent=True)``, which
    would otherwise read it as "no JSON".
    """

    def loads(self, s, **kwargs):
        try:
            return loads(s)
        except JSONTooDeep as error:
            raise BadRequest(f"The request body's {error}.") from None


def check_request() -> None:
    """Bound the body and the query string before any view runs."""
    if request.endpoint not in LARGE_BODY_ENDPOINTS:
        request.max_content_length = min(request.max_content_length or MAX_BODY_BYTES, MAX_BODY_BYTES)
    args = request.args
    if len(args) > MAX_QUERY_PARAMETERS:
        raise TooLarge(f"the query string has {len(args)} parameters; at most {MAX_QUERY_PARAMETERS}", None)
    for name, values in args.lists():
        if len(name) > MAX_QUERY_NAME_CHARS:
            raise TooLarge(f"a query parameter's name is {len(name):,} characters; at most "
                           f"{MAX_QUERY_NAME_CHARS}", name[:MAX_QUERY_NAME_CHARS])
        longest = max(len(value) for value in values)
        if longest > MAX_QUERY_VALUE_CHARS:
            raise TooLarge(f"{name} is too long ({longest:,} characters; at most {MAX_QUERY_VALUE_CHARS:,})", name)


def init_app(app: Flask) -> None:
    app.json = BoundedJSONProvider(app)
    app.before_request(check_request)

    @app.errorhandler(OverflowError)
    def overflow(error: OverflowError):
        # A number too large for the arithmetic asked of it is the sender's input, not our fault.
        # Logged with its traceback: a programming error would look the same from outside.
        app.logger.warning("number too large on %s %s: %s", request.method, request.path, error, exc_info=error)
        message = "A number in the request is too large to work with."
        if request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json":
            return jsonify({"error": message, "field": None}), 400
        return render_template("error.html", code=400, title="Not calculated", message=message), 400
