"""``quizapp calc``: the calculator's inputs as flags (built from ``FIELDS``), its values as a table."""

from __future__ import annotations

import json
from dataclasses import fields

import click

from ..calc import FIELD_NAMES, FIELDS, CalcError, Inputs, calculate
from .errors import fail, flag as _flag, read_bounded

# The calculator's flags, in the order `quizapp calc --help` lists them.
ORDER = ("model", "config", "kv_bytes_per_token", "kv_cache_dtype", "tensor_parallel_size", "block_size",
         "max_model_len", "pool_tokens", "kv_cache_memory_bytes", "gpu", "gpu_memory_utilization",
         "prompt_tokens", "output_tokens")

# Switches whose default is the chosen vLLM release's: unset unless --x or --no-x is given.
TRI_STATE = tuple(f.name for f in fields(Inputs) if f.type == "bool | None")


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


@click.command()
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
    fit = result.fit
    if fit is not None:  # the verdict first, then what would make it fit; vLLM's words are with its refusals
        lines += [fit.verdict[0].upper() + fit.verdict[1:] + "."] + ([fit.suggestion()] if not fit.fits else []) + [""]
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
