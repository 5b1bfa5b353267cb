"""``quizapp export``: the question bank in other tools' formats."""

from __future__ import annotations

from pathlib import Path

import click

from ..cards import load_bank
from ..exports.anki import write_deck


@click.group()
def export():
    """Write the question bank in another tool's format."""


@export.command("anki")
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--questions", "questions_dir", default="questions", show_default=True,
              type=click.Path(file_okay=False, path_type=Path), help="folder of question cards")
def export_anki(out, questions_dir):
    """Write the public cards as an Anki deck (OUT.apkg): one note per card, each stage a field."""
    from .errors import fail

    if not questions_dir.is_dir():
        fail(f"there is no folder {questions_dir}")
    try:
        count = write_deck(load_bank(questions_dir), out)
    except OSError as error:
        fail(f"cannot write {out}: {error.strerror or error}")
    click.echo(f"wrote {out}: {count} cards")
