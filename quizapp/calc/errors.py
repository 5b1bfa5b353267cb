"""Errors that name the input at fault, the calculator's own, and the one "did you mean" every
unknown name gets."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class FieldError(ValueError):
    """An error a person can act on: its message, the input at fault (``field``, or None) and the
    HTTP status a web request answers with. Every layer's input error is one, so the web layer
    has one handler and every API answers ``{"error", "field"}``."""

    status = 400

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field

    def to_json(self) -> dict:
        return {"error": self.message, "field": self.field}


class CalcError(FieldError):
    """Bad input or a combination vLLM would refuse.

    ``field`` names the input (as the API names it, e.g. ``tensor_parallel_size`` or
    ``config.num_hidden_layers``) so the CLI, the API and the card pages can point at it.
    """


def closest(name: str, choices: Iterable[str], n: int = 1, cutoff: float = 0.6) -> list[str]:
    """Up to ``n`` of ``choices`` the writer of ``name`` likely meant, likeliest first, as the choices spell them.

    First the choices ``name`` abbreviates, shortest first (kv_bytes → kv_bytes_per_token), then
    those it extends, longest first (Qwen/Qwen3-8B-Instruct → Qwen/Qwen3-8B), then those that
    contain it, then the closest by difflib's ratio (at least ``cutoff``). Case is ignored.
    """
    by_lower = {choice.lower(): choice for choice in choices}
    typed = name.lower()
    extended = sorted((c for c in by_lower if c.startswith(typed) and c != typed), key=len)
    extended += sorted((c for c in by_lower if typed.startswith(c) and c != typed), key=len, reverse=True)
    similar = difflib.get_close_matches(typed, list(by_lower), n=max(n, len(by_lower)), cutoff=cutoff)
    # Then the choices that contain what was typed ("Llama-3.1-8B" → the 8B, not the 405B).
    containing = [c for c in similar if typed and typed in c]
    picked = list(dict.fromkeys(extended + containing + similar))[:n]
    return [by_lower[c] for c in picked]


def did_you_mean(name: str, choices: Iterable[str]) -> str | None:
    """``"did you mean 'x'?"`` for the likeliest intended name (see :func:`closest`), or None."""
    close = closest(name, choices)
    return f"did you mean {close[0]!r}?" if close else None
