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


class RefusedValue(ValueError):
    """A JSON value no field can take, named by its path ("candidate", "config.layer_types[3]"):
    a string that is no Unicode text (a lone surrogate, "\\ud800", which no UTF-8 file, database
    or page can hold), or an integer of more digits than any figure here (Python refuses 4,300
    digits itself, with a ValueError that is no JSONDecodeError: both were 500s)."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field, self.message = field, message


class NotText(BadRequest):
    """RefusedValue in a request body: a 400 naming the field."""

    def __init__(self, refused: RefusedValue):
        super().__init__(refused.message)
        self.field = refused.field


# No number this app reads has more digits than this (a byte count of 2**64 has 20).
MAX_INT_DIGITS = 100


class _LongInt:
    """What the parser leaves for an integer too long to read, for ``refused_value`` to name by its path."""

    def __init__(self, digits: int):
        self.digits = digits


def _bounded_int(text: str):
    digits = len(text.lstrip("-"))
    return _LongInt(digits) if digits > MAX_INT_DIGITS else int(text)


def refused_value(value, where: str = "") -> RefusedValue | None:
    """The first value of parsed JSON that no field can take (a string or key UTF-8 cannot encode,
    an integer too long), as a RefusedValue naming its path; None when all are fine. No recursion."""
    stack = [(value, where)]
    while stack:
        item, path = stack.pop()
        shown = path or "the body"
        if isinstance(item, str) and not encodable(item):
            return RefusedValue(shown, f"{shown} is not text: it holds a lone surrogate (an escape such as "
                                       "\\ud800 that stands for no character)")
        if isinstance(item, _LongInt):
            return RefusedValue(shown, f"{shown} is a number of {item.digits:,} digits; at most {MAX_INT_DIGITS}")
        if isinstance(item, dict):
            for key, child in item.items():
                if not encodable(key):
                    return RefusedValue(shown, f"a key in {shown} is not text: it holds a lone surrogate")
                stack.append((child, f"{path}.{key}" if path else str(key)))
        elif isinstance(item, list):
            stack.extend((child, f"{path}[{i}]") for i, child in enumerate(item))
    return None


def encodable(text: str) -> bool:
    """Whether UTF-8 can encode ``text`` (it cannot hold a lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def loads_checked(text: str | bytes, where: str = ""):
    """``loads``, raising the RefusedValue ``refused_value`` finds."""
    value = loads(text)
    refused = refused_value(value, where)
    if refused:
        raise refused
    return value


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


# One decoder for every body: json.loads with an argument makes a new one (and its scanner) each call.
_DECODER = json.JSONDecoder(parse_int=_bounded_int)


def loads(text: str | bytes):
    """json.loads with a nesting limit. An integer of more than MAX_INT_DIGITS digits is left as a
    marker that ``refused_value`` names (``loads_checked`` refuses it). Raises JSONTooDeep, or
    ValueError for text that is not JSON."""
    if isinstance(text, (bytes, bytearray)):
        text = text.decode(json.detect_encoding(text), "surrogatepass")  # as json.loads reads bytes
    if text.startswith("\ufeff"):
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    try:
        value = _DECODER.decode(text)
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
            value = loads(s)
        except JSONTooDeep as error:
            raise BadRequest(f"The request body's {error}.") from None
        refused = refused_value(value)
        if refused:
            raise NotText(refused)
        return value


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


def release_memory() -> None:
    """Hand the memory a large request freed back to the system (glibc keeps freed heap pages
    otherwise): after an import, a worker's resident memory returns to near where it was."""
    import ctypes
    import ctypes.util
    import gc

    gc.collect()
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: its allocator keeps what it keeps
        pass
