"""One diagnostic type for everything that can be wrong with a card.

The parser, ``quizapp check``, the author pages and the logs all print it the same way:
``questions/x.md:12: error: unknown value 'kv_bytes' (hint: did you mean 'kv_bytes_per_token'?)``.
"""

from __future__ import annotations

from dataclasses import dataclass



@dataclass(frozen=True)
class Diagnostic:
    path: str
    line: int
    severity: str  # "error" or "warning"
    message: str
    hint: str | None = None

    def __str__(self) -> str:
        hint = f" (hint: {self.hint})" if self.hint else ""
        return f"{self.path}:{self.line}: {self.severity}: {self.message}{hint}"

    def to_json(self) -> dict:
        return {"path": self.path, "line": self.line, "severity": self.severity, "message": self.message,
                "hint": self.hint}


class CardError(Exception):
    """Raised while loading a card; carries every diagnostic found (the first is ``diagnostic``)."""

    def __init__(self, diagnostic: Diagnostic | list[Diagnostic]):
        self.diagnostics = list(diagnostic) if isinstance(diagnostic, list) else [diagnostic]
        super().__init__("\n".join(str(d) for d in self.diagnostics))
        self.diagnostic = self.diagnostics[0]

