"""Times are UTC, stored as ISO 8601 with microseconds, so stored times sort as text."""

from __future__ import annotations

from datetime import datetime, timezone


def now_utc() -> datetime:
    return datetime.now(timezone.utc)


def iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")


def parse_iso(text: str) -> datetime:
    """An ISO 8601 time with a timezone, as UTC. Raises ValueError otherwise."""
    moment = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError(f"time without a timezone: {text!r}")
    return moment.astimezone(timezone.utc)
