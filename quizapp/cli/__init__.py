"""The ``quizapp`` command: one module per command (serve, calc, check, new, models and gpus,
read-log, export), gathered here into one click group."""

from __future__ import annotations

import sys

import click

from .calc import calc
from .catalog import gpus, models
from .check import check
from .errors import CommandError
from .export import export
from .new import new
from .read_log import read_log_command
from .serve import serve


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="quizapp")
def cli():
    """quizapp: interview and training quizzes on LLM inference, with live numbers."""


for command in (serve, check, new, models, gpus, calc, export, read_log_command):
    cli.add_command(command)


# click 8.2 renamed NoArgsIsHelp; either way it is a usage "error" that should print help.
NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", None) or getattr(
    click.exceptions, "NoArgsIsHelp", click.UsageError)


def main(argv: list[str] | None = None) -> None:
    """Entry point: every error is one line on standard error, ``quizapp: error: ...``; usage
    errors and the calculator's own exit 2."""
    try:
        cli.main(args=argv, prog_name="quizapp", standalone_mode=False)
    except NO_ARGS_IS_HELP as error:
        click.echo(error.ctx.get_help() if error.ctx else error.format_message())
        sys.exit(0)
    except click.UsageError as error:
        _exit(error.format_message(), 2)
    except click.ClickException as error:  # CommandError among them
        _exit(error.format_message(), error.exit_code)
    except click.exceptions.Abort:
        _exit("aborted", 1)


def _exit(message: str, code: int):
    click.echo(f"quizapp: error: {message}", err=True)
    sys.exit(code)


__all__ = ["cli", "main", "CommandError"]
