"""The ``quizapp`` command: serve the app, run the calculator, check cards."""

from __future__ import annotations

import json
import sys
from dataclasses import fields
from pathlib import Path

import click

from ..calc import FIELD_NAMES, FIELDS, CalcError, Inputs, calculate
from .errors import fail, flag as _flag, read_bounded
from .read_log import read_log_command
from .export import export as export_group

# The calculator's flags, in the order `quizapp calc --help` lists them.
ORDER = ("model", "config", "kv_bytes_per_token", "kv_cache_dtype", "tensor_parallel_size", "block_size",
         "max_model_len", "pool_tokens", "kv_cache_memory_bytes", "gpu", "gpu_memory_utilization",
         "prompt_tokens", "output_tokens")


# Switches whose default is the chosen vLLM release's: unset unless --x or --no-x is given.
TRI_STATE = tuple(f.name for f in fields(Inputs) if f.type == "bool | None")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="quizapp")
def cli():
    """quizapp: interview and training quizzes on LLM inference, with live numbers."""


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True, type=int)
@click.option("--db", "db_path", default=None, help="SQLite file (default: instance/quizapp.sqlite)")
@click.option("--questions", "questions_dir", default=None, help="folder of question cards (default: questions/)")
@click.option("--workers", default=2, show_default=True, type=int, help="worker processes")
@click.option("--threads", default=4, show_default=True, type=int, help="threads per worker")
@click.option("--dev", is_flag=True, help="Flask's reloading development server instead of gunicorn")
@click.option("--secure-cookies", is_flag=True, help="mark cookies Secure: readers reach the app over HTTPS")
@click.option("--behind-proxy", is_flag=True,
              help="trust the X-Forwarded-For/-Proto/-Host/-Port headers of one reverse proxy in front")
def serve(host, port, db_path, questions_dir, workers, threads, dev, secure_cookies, behind_proxy):
    """Serve the app (gunicorn, several workers) on HOST:PORT."""
    from .. import create_app

    overrides = {"SERVER_HOST": host}
    if db_path:
        overrides["DATABASE"] = str(Path(db_path).resolve())
    if questions_dir:
        overrides["QUESTIONS_DIR"] = str(Path(questions_dir).resolve())
    # Only when given: without the flag, instance/config.py or QUIZAPP_* may still turn them on.
    if secure_cookies:
        overrides["SESSION_COOKIE_SECURE"] = True
    if behind_proxy:
        overrides["BEHIND_PROXY"] = True
    # On top of instance/config.py and QUIZAPP_* settings, which still apply.
    app = create_app(overrides)
    click.echo(f"quizapp serving on http://{host}:{port}/ (database {app.config['DATABASE']})")
    link = _author_link(app, host, port, dev)
    if link:
        click.echo(f"Author tools and interview-only cards need the author token; open once: {link}")
    if dev:
        app.run(host=host, port=port, debug=True)
        return
    from ..server import PortInUse, run_gunicorn

    try:
        run_gunicorn(app, host, port, workers, threads)
    except PortInUse as taken:
        fail(str(taken))


def _author_link(app, host: str, port: int, dev: bool) -> str | None:
    """The author pages' link with the token, when this server asks for one (as a notebook server
    prints its link). The token is made here unless QUIZAPP_AUTHOR_TOKEN gives it."""
    import os
    import secrets
    import socket

    from ..web.access import needs_token

    if not needs_token(app):
        return None
    if not app.config.get("AUTHOR_TOKEN"):
        app.config["AUTHOR_TOKEN"] = secrets.token_urlsafe(32)
        if dev:
            # The development server's reloader runs this command again: it keeps the same token.
            os.environ["QUIZAPP_AUTHOR_TOKEN"] = app.config["AUTHOR_TOKEN"]
    shown = socket.gethostname() if host in ("0.0.0.0", "::", "") else host
    shown = f"[{shown}]" if ":" in shown else shown
    return f"http://{shown}:{port}/author/?token={app.config['AUTHOR_TOKEN']}"


@cli.command()
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


@cli.command()
@click.argument("title")
@click.option("--id", "card_id", default=None, help="the card's id and file name (default: from the title)")
@click.option("--from", "from_id", default=None, metavar="ID",
              help="copy the scenario, space and variants of the card with this id")
@click.option("--questions", "questions_dir", default="questions", show_default=True, type=click.Path(path_type=Path),
              help="folder of question cards")
def new(title, card_id, from_id, questions_dir):
    """Write a new card, QUESTIONS/ID.md, with every section in place and a comment saying what
    goes where. It passes quizapp check as it is. An existing file is never overwritten."""
    from ..cards.new_card import card_id_from_title, find_card_file, front_matter_blocks, stub_text, valid_id

    card_id = card_id or card_id_from_title(title)
    if not valid_id(card_id):
        fail(f"id {card_id!r} must be lowercase letters, digits and dashes; give one with --id")
    path = questions_dir / f"{card_id}.md"
    if path.exists():
        fail(f"{path} already exists; give another --id, or edit that card")
    copied = None
    if from_id:
        source = find_card_file(questions_dir, from_id) if questions_dir.is_dir() else None
        if source is None:
            fail(f"there is no card {from_id!r} in {questions_dir}")
        copied = front_matter_blocks(source)
    questions_dir.mkdir(parents=True, exist_ok=True)
    path.write_text(stub_text(card_id, title, str(path), copied), encoding="utf-8")
    click.echo(f"wrote {path}; check it with: quizapp check {path}")


@cli.command()
@click.option("--markdown", is_flag=True, help="a Markdown table, as AUTHORING.md lists them")
def models(markdown):
    """The catalog's models: the ids a card's scenario, variants and space may use, with the
    figures that size their KV cache (layers, KV heads and head size at TP 1) and the space kind
    (space.attention) each belongs to."""
    from ..calc.model.listings import MODEL_COLUMNS, markdown_table, model_rows, text_table

    click.echo((markdown_table if markdown else text_table)(model_rows(), MODEL_COLUMNS))


@cli.command()
@click.option("--markdown", is_flag=True, help="a Markdown table, as AUTHORING.md lists them")
def gpus(markdown):
    """The catalog's GPUs: the ids a card's gpu input takes, what {{ gpu_name }} prints for each,
    and their total memory with where the figure comes from."""
    from ..calc.model.listings import GPU_COLUMNS, gpu_rows, markdown_table, text_table

    click.echo((markdown_table if markdown else text_table)(gpu_rows(), GPU_COLUMNS))


def _calc_options(command):
    by_name = {f.name: f for f in FIELDS}
    names = list(ORDER) + [f.name for f in FIELDS if f.name not in ORDER]
    for name in reversed(names):
        field = by_name[name]
        flag = _flag(name)
        if field.kind == "bool" and name in TRI_STATE:
            # --x/--no-x, and neither for "as the vLLM release has it".
            command = click.option(f"{flag}/--no-{flag[2:]}", name, default=None, help=field.help)(command)
        elif field.kind == "bool":
            command = click.option(flag, name, is_flag=True, default=None, help=field.help)(command)
        elif name == "config":
            command = click.option(flag, name, metavar="PATH", help="a Hugging Face config.json file")(command)
        else:
            extra = ("--kv-cache-memory",) if name == "kv_cache_memory_bytes" else ()
            command = click.option(flag, *extra, name, metavar=_metavar(field), help=field.help)(command)
    return command


def _as_typed(field: str) -> str:
    """The input an error names, as the user gave it: a calculator field is a flag; a config key stays as it is."""
    return _flag(field) if field in FIELD_NAMES else field


def _metavar(field) -> str:
    if field.kind == "choice":
        return "|".join(map(str, field.choices))
    return {"int": "N", "bytes": "BYTES", "float": "F", "str": "TEXT"}.get(field.kind, "VALUE")


@cli.command()
@_calc_options
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def calc(as_json, **options):
    """Size vLLM's KV cache for a model and a pool, with the arithmetic shown.

    Give the model as --model (a catalog id), --config (a config.json) or
    --kv-bytes-per-token (a measured figure), and the pool as --pool-tokens,
    --kv-cache-memory-bytes or --gpu with --gpu-memory-utilization.
    """
    data = {k: v for k, v in options.items() if v is not None}
    if "config" in data:
        data["config"] = _read_config(data["config"])
    try:
        result = calculate(data)
    except CalcError as error:
        fail(f"{error.message}" + (f" [{_as_typed(error.field)}]" if error.field else ""))
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        click.echo(render_table(result))


# A real config.json is a few kilobytes; a file this big is something else.
MAX_CONFIG_FILE_BYTES = 1024 * 1024


def _read_config(path: str) -> dict:
    raw = read_bounded(path, MAX_CONFIG_FILE_BYTES, "config")
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        fail(f"{path}: config is not UTF-8 text ({error.reason})")
    except json.JSONDecodeError as error:
        fail(f"{path}:{error.lineno}: config is not valid JSON: {error.msg}")
    except RecursionError:
        fail(f"{path}: config is nested too deeply to be a config.json")
    except ValueError as error:  # e.g. an integer of over 4,300 digits
        fail(f"{path}: config is not a config.json: {error}")


def render_table(result) -> str:
    summary = result.layout_summary()
    lines = [f"{summary['model']} · {summary['attention']} · KV {summary['kv_dtype']} · vLLM {result.rules.version}",
             ""]
    width = max(len(name) for name in result.values)
    for name, quantity in result.values.items():
        if name == "log_line":
            continue
        text = quantity.text or str(quantity.value)
        lines.append(f"{name:<{width}}  {text:>14}  {quantity.derivation}")
    if "log_line" in result.values:
        lines += ["", "vLLM would log:", *("  " + line for line in result["log_line"].splitlines())]
    for check in result.checks:
        if not check["ok"]:
            lines += ["", f"vLLM refuses to start ({check['check']}):", "  " + check["message"]]
    if result.notes:
        lines += ["", "Notes:", *(f"  - {note}" for note in result.notes)]
    return "\n".join(lines)


cli.add_command(export_group)
cli.add_command(read_log_command)


# click 8.2 renamed NoArgsIsHelp; either way it is a usage "error" that should print help.
NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", None) or getattr(
    click.exceptions, "NoArgsIsHelp", click.UsageError)


def main(argv: list[str] | None = None) -> None:
    """Entry point: usage errors are one line and exit 2, like the calculator's own errors."""
    try:
        cli.main(args=argv, prog_name="quizapp", standalone_mode=False)
    except NO_ARGS_IS_HELP as error:
        click.echo(error.ctx.get_help() if error.ctx else error.format_message())
        sys.exit(0)
    except click.UsageError as error:
        fail(error.format_message())
    except click.ClickException as error:
        fail(error.format_message(), error.exit_code)
    except click.exceptions.Abort:
        fail("aborted", 1)

