"""A whole number from a request field, read one way everywhere: a page of the bank, a score, a
note's id, a card's variant in a new interview.

A field holds one as a JSON integer or as text of ASCII digits ("12", "03"). Anything else is
refused with the caller's error type naming the field, and so is a number outside its bounds:
a sign, a point, ``true``, ``2.0``, and digits of other scripts, which ``str.isdigit()`` takes
("²", whose ``int()`` then raises, and "٢", which ``int()`` reads as 2).
"""

from __future__ import annotations

import re

from .calc import FieldError

# SQLite's largest INTEGER: an id or a count the database can hold.
MAX_STORED = 2**63 - 1
# Text longer than this is no number a field holds (2**64 has 20 digits): refused before int().
DIGITS = re.compile(r"[0-9]{1,20}")


def whole_number(value, field: str, low: int, high: int, *, message: str | None = None,
                 error: type[FieldError] = FieldError) -> int:
    """``value`` as an int from ``low`` to ``high``; else ``error(message, field)``, by default
    "<field> must be a whole number from <low> to <high>, got <what was sent>"."""
    if isinstance(value, str) and DIGITS.fullmatch(value):
        number = int(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        number = None
    if number is None or not low <= number <= high:
        raise error(message or f"{field} must be a whole number from {low:,} to {high:,}, got {_shown(value)}",
                    field)
    return number


def optional_whole_number(value, field: str, low: int, high: int, **how) -> int | None:
    """``whole_number``, with None for a field that is absent, null or empty (a form's blank)."""
    if value is None or value == "":
        return None
    return whole_number(value, field, low, high, **how)


def _shown(value) -> str:
    return repr(value[:20]) if isinstance(value, str) else repr(value)[:20]


def encodable(text: str) -> bool:
    """Whether UTF-8 can encode ``text``: a JSON escape such as ``"\\ud800"`` (a lone surrogate)
    makes a Python string that no UTF-8 file, SQLite text or page can hold."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def unencodable_path(value, where: str = "") -> str | None:
    """The path ("candidate", "config.layer_types[3]") of the first string, key or value, in
    parsed JSON that UTF-8 cannot encode (a key names the object holding it); None when every
    string can be encoded. Walks without recursion, so any depth is safe."""
    stack = [(value, where)]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if not encodable(item):
                return path or "the body"
        elif isinstance(item, dict):
            for key, child in item.items():
                if isinstance(key, str) and not encodable(key):
                    return path or "the body"
                stack.append((child, f"{path}.{key}" if path else str(key)))
        elif isinstance(item, (list, tuple)):
            stack.extend((child, f"{path}[{i}]") for i, child in enumerate(item))
    return None


def depth(value, limit: int) -> int:
    """How deep containers nest in ``value`` (a scalar is 0, ``{}`` and ``[1]`` are 1), counted up
    to ``limit + 1`` at most, level by level without recursion."""
    level, found = [value], 0
    while found <= limit:
        level = [item for item in level if isinstance(item, (dict, list))]
        if not level:
            break
        found += 1
        level = [child for item in level for child in (item.values() if isinstance(item, dict) else item)]
    return found
