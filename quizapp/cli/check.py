"""``quizapp check``: every error and warning of every card, as ``path:line: message``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .errors import fail


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--format", "output", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: one path:line: message per problem; json: one object")
def check(paths, output):
    """Check question cards: every error and warning of every card, as path:line: message.

    PATHS are card files or folders (default: questions/). Exits 1 when a card has an error.
    With --format json: one object with cards (path, id, errors, warnings), errors and
    warnings (path, line, column, severity, message, hint).
    """
    from ..cards.bank import display_path
    from ..cards.check.run import check_files

    files = []
    for path in paths or (Path("questions"),):
        if path.is_dir():
            files += sorted(path.glob("*.md"))
        elif path.exists():
            files.append(path)
        else:
            fail(f"{path}: no such file or folder")
    cards, diagnostics = check_files(files)
    diagnostics = sorted(diagnostics, key=lambda d: (d.path, d.line, d.column or 0))
    errors = [d for d in diagnostics if d.severity == "error"]
    warnings = [d for d in diagnostics if d.severity != "error"]
    if output == "json":
        ids = {path: card_id for card_id, path in cards.items()}
        shown = [display_path(file) for file in files]
        report = {"cards": [{"path": path, "id": ids.get(path),
                             "errors": sum(d.path == path for d in errors),
                             "warnings": sum(d.path == path for d in warnings)} for path in shown],
                  "errors": [d.to_json() for d in errors], "warnings": [d.to_json() for d in warnings]}
        click.echo(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        for diagnostic in diagnostics:
            click.echo(str(diagnostic))
        click.echo(_check_summary(len(files), errors, warnings), err=True)
    if errors:
        sys.exit(1)


def _check_summary(files: int, errors: list, warnings: list) -> str:
    broken = len({d.path for d in errors})
    counted = f" ({len(errors)} error{'s' if len(errors) != 1 else ''})" if errors else ""
    return (f"{files} card{'s' if files != 1 else ''}: {broken} with errors{counted}, {len(warnings)} "
            f"warning{'s' if len(warnings) != 1 else ''}")
