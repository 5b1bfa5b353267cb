"""The GPU catalog: ``data/gpus.json``, addressed by id or by any alias or name a reader types.

An id is a contract (cards, URLs and scenarios name it); an alias ("H100-SXM" for
"H100-80GB-SXM") finds the same GPU. The file also holds the sources its figures were read from.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources

from ..errors import CalcError, closest

DATA = resources.files("quizapp.calc") / "data"


@cache
def _catalog() -> dict:
    return json.loads((DATA / "gpus.json").read_text(encoding="utf-8"))


@cache
def _gpus() -> dict[str, dict]:
    return {gpu["id"]: gpu for gpu in _catalog()["gpus"]}


def gpu_entries() -> list[dict]:
    return list(_gpus().values())


def gpu_sources() -> dict[str, dict]:
    """Source key -> its document, URL, how it was read and what kind of source it is."""
    return _catalog()["sources"]


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower().removeprefix("nvidia"))


@cache
def _by_norm() -> dict[str, dict]:
    """Every spelling that names a GPU (id, name, aliases), folded: later entries never take an earlier one's."""
    found: dict[str, dict] = {}
    for gpu in _gpus().values():
        for spelling in (gpu["id"], gpu["name"], *gpu.get("aliases", ())):
            found.setdefault(_norm(spelling), gpu)
    return found


def load_gpu(name: str) -> dict:
    gpus = _gpus()
    if name in gpus:
        return gpus[name]
    found = _by_norm().get(_norm(name))
    if found is not None:
        return found
    hints = ", ".join(f"{gpu_id} ({gpus[gpu_id]['name']})" for gpu_id in closest_gpu_ids(name))
    raise CalcError(f"unknown GPU {name!r}; closest catalog GPUs: {hints}", "gpu")


def closest_gpu_ids(name: str, n: int = 3) -> list[str]:
    """The catalog GPUs someone who typed ``name`` likely meant: first those whose id, name or an
    alias holds it ("GB10" is in "DGX Spark (GB10, ...)"), then the closest ids."""
    typed = _norm(name)
    holding = [gpu["id"] for gpu in _gpus().values()
               if typed and any(typed in _norm(s) for s in (gpu["id"], gpu["name"], *gpu.get("aliases", ())))]
    return list(dict.fromkeys(holding + closest(name, list(_gpus()), n=n, cutoff=0.0)))[:n]
