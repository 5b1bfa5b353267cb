"""README.md's lists of commands, serve options and API routes, held to the code that has them."""

import re
from pathlib import Path

from quizapp import create_app
from quizapp.cli import cli

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def paragraph(start: str) -> str:
    """The README paragraph that begins with ``start``."""
    return next(p for p in README.split("\n\n") if p.startswith(start))


def options(command) -> set[str]:
    return {opt for param in command.params for opt in param.opts if opt.startswith("--")}


def test_the_readme_names_every_command_and_no_other():
    assert set(re.findall(r"\bquizapp ([a-z][a-z-]*)", README)) == set(cli.commands)


def test_the_readme_lists_every_serve_option_and_no_other():
    listed = set(re.findall(r"--[a-z][a-z-]*", paragraph("`quizapp serve`")))
    assert listed == options(cli.commands["serve"])


def test_every_option_the_readme_mentions_exists():
    known = {"--help"}.union(*(options(command) for command in cli.commands.values()))
    assert set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", README)) <= known


def route_shape(path: str) -> str:
    """/api/cards/<card_id>/values and /api/cards/<id>/values are the same route."""
    return re.sub(r"<[^>]*>", "<>", path)


def test_the_readme_lists_every_api_route_and_no_other(tmp_path):
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "db.sqlite")})
    routes = {(method, route_shape(rule.rule)) for rule in app.url_map.iter_rules()
              if rule.rule.startswith("/api/") for method in rule.methods - {"HEAD", "OPTIONS"}}
    listed = {(method, route_shape(path)) for method, path in re.findall(r"`([A-Z]+) (/api/[^`\s]*)`", README)}
    assert listed == routes


def test_the_readme_lists_every_setting_and_no_other():
    from quizapp.settings import SETTINGS

    listed = re.findall(r"^- `([A-Z][A-Z_]+)`: ", paragraph("- `DATABASE`"), re.MULTILINE)
    assert listed == [setting.name for setting in SETTINGS]
