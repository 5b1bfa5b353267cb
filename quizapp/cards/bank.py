"""The question bank: every card in a folder, reloaded when a file changes.

A card that fails to load is left out and reported with its file and line; the rest serve.
Loading happens outside any lock a request waits on, and one card's load is bounded in time
(``LOAD_SECONDS``): a bad or slow card is a diagnostic, never a hung page.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from .card import Card
from .diagnostics import CardError, Diagnostic
from .loader import load_card
from .sandbox import render_budget

log = logging.getLogger("quizapp.cards")

# One card's load: the app's renders under its scenario and variants (a card takes well under a
# second), and ``quizapp check``'s under every model of its space.
LOAD_SECONDS = 5.0
CHECK_SECONDS = 30.0
# How long a request waits for the very first load before it is served without cards.
FIRST_LOAD_WAIT_SECONDS = 60.0
# Words of a search that count: a query is a few words.
MAX_SEARCH_WORDS = 20


@dataclass
class Bank:
    folder: Path
    cards: dict[str, Card] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    _stamp: tuple | None = None  # the files' names, times and sizes when last loaded; None: never loaded
    _loading: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)
    frozen: bool = False  # a copy that never reloads (``public``)
    _loaded: threading.Event = field(default_factory=threading.Event)

    def refresh(self) -> "Bank":
        """Reload when any card file was added, removed or changed since the last look.

        One thread loads; the lock is held only to decide which. Meanwhile the other threads
        serve the cards loaded before, and the new cards replace them in one assignment when
        they are ready. Only before the first load does a request wait (FIRST_LOAD_WAIT_SECONDS).
        """
        if self.frozen:
            return self
        stamp = _stamp(self.folder)
        if stamp == self._stamp:
            return self
        with self._lock:
            someone_else = self._loading
            self._loading = True
        if someone_else:
            self._loaded.wait(FIRST_LOAD_WAIT_SECONDS)
            return self
        try:
            cards, diagnostics = _load_folder(self.folder, self.cards)
            self.diagnostics = diagnostics
            self.cards = cards
            self._stamp = stamp
            for diagnostic in diagnostics:
                log.warning("%s", diagnostic)
        finally:
            self._loading = False
            self._loaded.set()
        return self

    def public(self) -> "Bank":
        """The bank without its interview-only cards: a copy that never reloads (refresh this one, then ask again)."""
        cards = {card_id: card for card_id, card in self.cards.items() if not card.interview_only}
        return Bank(self.folder, cards, self.diagnostics, self._stamp, frozen=True)

    def get(self, card_id: str) -> Card | None:
        return self.cards.get(card_id)

    def broken(self) -> dict[str, list[Diagnostic]]:
        """The diagnostics of each card file that does not load, by the file's stem: a broken card
        has no id in the bank, and its file is named by the id it would have."""
        by_stem: dict[str, list[Diagnostic]] = {}
        for diagnostic in self.diagnostics:
            by_stem.setdefault(Path(diagnostic.path).stem, []).append(diagnostic)
        return by_stem

    def sorted_cards(self) -> list[Card]:
        return sorted(self.cards.values(), key=lambda c: c.title.lower())

    def matching(self, role: str = "", tag: str = "", query: str = "") -> list[Card]:
        """Cards for a role and a tag (either may be empty) whose text holds every word of the query."""
        words = list(dict.fromkeys(query.lower().split()))[:MAX_SEARCH_WORDS]
        return [c for c in self.sorted_cards()
                if (not role or role in c.roles) and (not tag or tag in c.tags)
                and all(word in c.search_text() for word in words)]

    def roles(self) -> list[str]:
        return sorted({r for c in self.cards.values() for r in c.roles})

    def tags(self) -> list[str]:
        return sorted({t for c in self.cards.values() for t in c.tags})


def display_path(path: Path) -> str:
    """questions/x.md when the card is under the working folder, else the full path."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _stamp(folder: Path) -> tuple:
    try:
        return tuple(sorted((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in folder.glob("*.md")))
    except OSError:
        return ()


def _load_folder(folder: Path, previous: dict[str, Card]) -> tuple[dict[str, Card], list[Diagnostic]]:
    return load_files(sorted(folder.glob("*.md")), previous)


def load_files(paths, previous: dict[str, Card] | None = None, full: bool = False
               ) -> tuple[dict[str, Card], list[Diagnostic]]:
    """Load card files: the cards that load, by id, and the diagnostics of each that does not.

    A card unchanged since ``previous`` was loaded is reused, not parsed again. ``full``
    checks every scenario of each card's space (``quizapp check``).
    """
    cards: dict[str, Card] = {}
    diagnostics: list[Diagnostic] = []
    by_path = {card.path: card for card in (previous or {}).values()}
    for path in paths:
        shown = display_path(path)
        old = by_path.get(shown)
        try:
            card = old if old and old.mtime == path.stat().st_mtime else _timed_load(path, shown, full)
        except CardError as error:
            diagnostics.extend(error.diagnostics)
            continue
        except OSError as error:
            diagnostics.append(Diagnostic(shown, 1, "error", f"cannot read: {error.strerror}"))
            continue
        except Exception as error:  # noqa: BLE001 — one card's surprise must not take the bank down
            log.exception("unexpected error loading %s", shown)
            diagnostics.append(Diagnostic(shown, 1, "error", f"could not be loaded: {type(error).__name__}: {error}"))
            continue
        if card.id in cards:
            diagnostics.append(Diagnostic(shown, card.line_of("id"), "error",
                                          f"id {card.id!r} is already used by {cards[card.id].path}"))
            continue
        cards[card.id] = card
    return cards, diagnostics


def _timed_load(path: Path, shown: str, full: bool) -> Card:
    """load_card inside one render budget for the whole card; a card that takes longer is an error."""
    seconds = CHECK_SECONDS if full else LOAD_SECONDS
    start = time.monotonic()
    with render_budget(seconds):
        card = load_card(path, shown, full)
    took = time.monotonic() - start
    if took > seconds:
        raise CardError(Diagnostic(shown, 1, "error", f"the card took {took:.1f} s to load; the most is {seconds:g} s",
                                   "look for loops or calc() calls that run many times"))
    return card


def load_bank(folder) -> Bank:
    return Bank(Path(folder)).refresh()
