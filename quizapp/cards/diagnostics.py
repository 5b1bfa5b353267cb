"""One diagnostic type for everything that can be wrong with a card.

The parser, ``quizapp check``, the author pages and the logs all print it the same way:
``questions/x.md:12: error: unknown value 'kv_bytes' (hint: did you mean 'kv_bytes_per_token'?)``,
with the column after the line when it is known (``questions/x.md:12:7: error: ...``), as
compilers print it, so an editor can jump there.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Diagnostic:
    path: str
    line: int
    severity: str  # "error" or "warning"
    message: str
    hint: str | None = None
    column: int | None = None  # 1-based, when the check knows it

    def __str__(self) -> str:
        hint = f" (hint: {self.hint})" if self.hint else ""
        column = f":{self.column}" if self.column else ""
        return f"{self.path}:{self.line}{column}: {self.severity}: {self.message}{hint}"

    def to_json(self) -> dict:
        return {"path": self.path, "line": self.line, "column": self.column, "severity": self.severity,
                "message": self.message, "hint": self.hint}


class CardError(Exception):
    """Raised while loading a card; carries every diagnostic found (the first is ``diagnostic``).

    A card that fails to load may carry warnings too (severity "warning"), so that an author
    hears of every problem at once; ``errors`` are the ones that keep it out of the bank.
    """

    def __init__(self, diagnostic: Diagnostic | list[Diagnostic]):
        self.diagnostics = list(diagnostic) if isinstance(diagnostic, list) else [diagnostic]
        super().__init__("\n".join(str(d) for d in self.diagnostics))
        self.diagnostic = next((d for d in self.diagnostics if d.severity == "error"), self.diagnostics[0])

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]


def display_path(path: Path) -> str:
    """questions/x.md when the card is under the working folder, else the full path."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
