"""How an interview's pages say a time: a moment (the clock time, and how far into the session),
a running clock (the console's), and a duration in words (the report's).

The console's script shows these texts as the state sends them, so a clock reads the same with
and without JavaScript and the browser works nothing out.
"""

from __future__ import annotations

from datetime import datetime


def moment_text(at: str | None, since: str | None) -> str:
    """A stored time as the console and the report show it: the clock time, and minutes into the
    session ("14:03:07 UTC (+12:40)")."""
    if not at:
        return ""
    moment = datetime.fromisoformat(at)
    shown = moment.strftime("%H:%M:%S UTC")
    if since:
        seconds = max(0, int((moment - datetime.fromisoformat(since)).total_seconds()))
        shown += f" (+{seconds // 60}:{seconds % 60:02d})"
    return shown


def clock_text(ms: int) -> str:
    """A running clock: "4:05", "59:59", then "1:00:00"."""
    minutes, seconds = divmod(ms // 1000, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


def duration(ms: int) -> str:
    """A duration in words, for the report: "42 s", "12 min 05 s", "1 h 05 min"."""
    seconds = ms // 1000
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"
