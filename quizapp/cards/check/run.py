"""``quizapp check`` over many files: the files split among processes, one per core.

The outcome is the serial one (``bank.load_files`` with ``full``), in the same order: each
process checks a run of consecutive files, and a duplicate id is decided after, in file order.
A text checked before (the same text but for its id: a copy of a card) is not checked again;
its diagnostics are the first one's, at this file's path.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from ..diagnostics import Diagnostic
from ..caches import content_key
from ..load.filing import resolve_aliases

# Below this many files a pool costs more than it saves.
POOL_FROM_FILES = 40


@dataclass(frozen=True)
class Checked:
    """One file's check: the card's id and line of its id when it loads, and every diagnostic
    (its warnings too)."""

    path: str
    card_id: str | None
    id_line: int
    diagnostics: list[Diagnostic]
    replaces: tuple[str, ...] = ()  # the old ids the card takes over
    replaces_line: int = 1


def check_files(paths: list[Path], workers: int | None = None) -> tuple[dict[str, str], list[Diagnostic]]:
    """Check card files in full: the path of each card that loads, by id, and every diagnostic
    (errors and warnings) in file order."""
    workers = workers or os.cpu_count() or 1
    if workers < 2 or len(paths) < POOL_FROM_FILES:
        checked = _check_run(paths)
    else:
        size = -(-len(paths) // workers)
        runs = [paths[i:i + size] for i in range(0, len(paths), size)]
        with ProcessPoolExecutor(len(runs)) as pool:
            checked = [one for run in pool.map(_check_run, runs) for one in run]
    cards: dict[str, str] = {}
    diagnostics: list[Diagnostic] = []
    for one in checked:
        diagnostics += one.diagnostics
        if one.card_id is None:
            continue
        if one.card_id in cards:
            diagnostics.append(Diagnostic(one.path, one.id_line, "error",
                                          f"id {one.card_id!r} is already used by {cards[one.card_id]}"))
            diagnostics = [d for d in diagnostics if not (d.path == one.path and d.severity != "error")]
            continue
        cards[one.card_id] = one.path
    _, alias_errors = resolve_aliases((one.card_id, one.path, one.replaces_line, one.replaces) for one in checked
                                      if one.card_id is not None and cards.get(one.card_id) == one.path)
    return cards, diagnostics + alias_errors


def _check_run(paths: list[Path]) -> list[Checked]:
    """Check each file of a run, in order (in a worker process, or in this one)."""
    seen: dict[str, Checked] = {}
    return [_check_one(path, seen) for path in paths]


def _check_one(path: Path, seen: dict[str, Checked]) -> Checked:
    from ..bank import display_path, load_files

    shown = display_path(path)
    key = _key_of(path)
    earlier = seen.get(key) if key else None
    if earlier is not None:
        return Checked(shown, _id_of(path) if earlier.card_id else None, earlier.id_line,
                       [replace(d, path=shown, message=d.message.replace(earlier.path, shown))
                        for d in earlier.diagnostics], earlier.replaces, earlier.replaces_line)
    cards, diagnostics = load_files([path], full=True)
    card = next(iter(cards.values()), None)
    checked = Checked(shown, card.id if card else None, card.line_of("id") if card else 1,
                      diagnostics + (card.warnings if card else []), card.replaces if card else (),
                      card.line_of("replaces") if card else 1)
    if key:
        seen[key] = checked
    return checked


def _key_of(path: Path) -> str | None:
    """The file's text with its id set aside, when its id is plain; None: check it in full."""
    try:
        key, card_id = content_key(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError):
        return None
    return key if card_id is not None else None


def _id_of(path: Path) -> str:
    return content_key(path.read_bytes().decode("utf-8"))[1]
