"""What every ``quizapp`` command shares: how it fails (one line on standard error, exit code 2)
and how it names a calculator input (as a flag)."""

from __future__ import annotations

import sys

import click


class CommandError(click.ClickException):
    """A command that cannot go on: ``quizapp: error: <message>`` on standard error, exit code 2
    (1 for ``check``'s "a card has errors", given as ``exit_code``). Raised from helpers as deep
    as they are; ``main`` prints it, so a helper can be tested without catching ``SystemExit``."""

    exit_code = 2

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code


def fail(message: str, code: int = 2):
    raise CommandError(message, code)


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
