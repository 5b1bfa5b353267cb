"""What every ``quizapp`` command shares: how it fails (one line on standard error, exit code 2)
and how it names a calculator input (as a flag)."""

from __future__ import annotations

import sys

import click


def fail(message: str, code: int = 2):
    click.echo(f"quizapp: error: {message}", err=True)
    sys.exit(code)


def flag(name: str) -> str:
    """A calculator input as the command line names it: max_model_len -> --max-model-len."""
    return "--" + name.replace("_", "-")
