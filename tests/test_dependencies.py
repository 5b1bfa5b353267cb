"""What the app imports to serve is declared in pyproject.toml's dependencies: the README's
install command (``pip install -e .``, no extras) gives a machine everything `quizapp serve` needs.

gunicorn's gevent worker imports ``packaging``, which gunicorn does not declare: the test extras
brought it in, so every test passed while `quizapp serve` on a fresh install stopped with
"class uri 'gevent' invalid or not found"."""

import json
import re
import subprocess
import sys
from importlib.metadata import packages_distributions, requires

from packaging.requirements import Requirement

# What `quizapp serve` loads: the app, its command and both worker classes gunicorn can run.
SERVED = ("quizapp", "quizapp.cli", "quizapp.server", "gunicorn.workers.ggevent", "gunicorn.workers.gthread")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def installed_without_extras(top: str = "quizapp") -> set[str]:
    """The distributions `pip install top` brings, by the requirements each one declares."""
    seen, todo = set(), [(top, frozenset())]
    while todo:
        name, extras = todo.pop()
        if (canonical(name), extras) in seen:
            continue
        seen.add((canonical(name), extras))
        for line in requires(name) or []:
            requirement = Requirement(line)
            marker = requirement.marker
            if marker is None or any(marker.evaluate({"extra": extra}) for extra in extras | {""}):
                todo.append((requirement.name, frozenset(requirement.extras)))
    return {name for name, _ in seen}


def top_modules_loaded(modules: tuple[str, ...]) -> set[str]:
    """The top-level modules a fresh interpreter holds after importing ``modules``."""
    code = f"import importlib, json, sys; [importlib.import_module(m) for m in {modules!r}]; " \
           "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    return set(json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                         check=True, timeout=120).stdout))


def test_every_distribution_the_server_imports_is_a_declared_dependency():
    # Less what the interpreter loads before any import (a venv's setuptools hook, say).
    loaded = top_modules_loaded(SERVED) - top_modules_loaded(())
    owners = packages_distributions()
    declared = installed_without_extras()
    # A module some distribution installs, none of them declared (a module of several: any one will do).
    missing = sorted({owners[module][0] for module in loaded - set(sys.stdlib_module_names) if module in owners
                      and not any(canonical(dist) in declared for dist in owners[module])})
    assert not missing, f"imported to serve but not a dependency in pyproject.toml: {', '.join(missing)}"
