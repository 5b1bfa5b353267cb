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
