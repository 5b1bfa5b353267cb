"""How a JSON object is stored in a text column (an event's detail and scenario, an interview's
overrides). Its own module, below ``db``: the migrations read stored events, and ``db`` imports them."""

from __future__ import annotations

import json


def dump_object(value: dict | None) -> str | None:
    """A JSON column's text: keys sorted, so the same object is always stored as the same text."""
    return None if value is None else json.dumps(value, sort_keys=True)


def load_object(text) -> dict:
    """A stored JSON object; anything else (an old or imported row) reads as empty."""
    try:
        value = json.loads(text) if text else {}
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}
