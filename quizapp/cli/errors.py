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


def read_bounded(source: str, limit: int, what: str) -> bytes:
    """At most ``limit`` bytes of a file (or of standard input for ``-``): a larger one is refused
    after reading ``limit + 1`` bytes, never loaded whole. ``what`` names it in errors."""
    try:
        if source == "-":
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with open(source, "rb") as handle:
                data = handle.read(limit + 1)
    except OSError as error:
        fail(f"cannot read {what} {source}: {error.strerror}")
    if len(data) > limit:
        fail(f"{source}: the {what} is larger than {limit:,} bytes ({limit // 1024:,} KiB)")
    return data
