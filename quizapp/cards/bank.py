"""The question bank: every card in a folder, listed from a cheap index, loaded when opened.

The bank lists each card by its index entry (``index.py``). A card is compiled and
render-checked (``load_card``) when it is first opened, and kept in a bounded LRU, so memory
stays bounded however many cards the folder holds. Every card is also validated, by the same
load, in turn: the new and changed ones when the folder is read, for up to
``VALIDATE_WAIT_SECONDS``, the rest in a background thread. A card that fails to load is
never served: it leaves the listing as soon as it is found, and is reported with its file and
line (``broken``). Loading happens outside any lock a request waits on, and one card's load is
bounded in time (``LOAD_SECONDS``): a bad or slow card is a diagnostic, never a hung page.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from .caches import VERDICTS
from .card import Card
from .diagnostics import CardError, Diagnostic, display_path
from .index import CardEntry, learning_order, read_entry, unreadable
from .load.card_file import load_card
from .load.filing import resolve_aliases
from ..lru import LRU
from .template.limits import render_budget

log = logging.getLogger("quizapp.cards")

# One card's load: the app's renders under its scenario and variants (a card takes well under a
# second), and ``quizapp check``'s under every model of its space.
LOAD_SECONDS = 5.0
SLOW_RETRY_SECONDS = 60.0  # how long a card whose load ran out of time stays out before it is tried again
CHECK_SECONDS = 30.0
# How long a request waits for the very first load before it is served without cards.
FIRST_LOAD_WAIT_SECONDS = 60.0
# How long reading the folder validates new and changed cards before it serves the listing; the
# rest are validated in the background. A bank of a few dozen cards is validated whole.
VALIDATE_WAIT_SECONDS = 2.0
# How often a bank looks at its folder's files: each look stats every card file.
REFRESH_SECONDS = 1.0
# Fully loaded cards kept per process (a card with its compiled pieces and renders: ~200 KB).
LOADED_CARDS = 256
# Words of a search that count: a query is a few words.
MAX_SEARCH_WORDS = 20


@dataclass
class Verdict:
    """What a card's full load found: ``diagnostics`` empty when it loads."""

    mtime: float
    diagnostics: list[Diagnostic]
    retry_at: float | None = None  # a load that ran out of time (a busy machine): loaded again after it


@dataclass
class _Shared:
    """What a bank and its public copies share: the loaded cards, and the verdict of each file."""

    loaded: LRU[Card] = field(default_factory=lambda: LRU(LOADED_CARDS))
    verdicts: dict[str, Verdict] = field(default_factory=dict)  # by display path


@dataclass
class Bank:
    folder: Path
    cards: dict[str, CardEntry] = field(default_factory=dict)  # the listing, by id
    drafts: dict[str, CardEntry] = field(default_factory=dict)  # cards marked draft: the author pages' only
    aliases: dict[str, str] = field(default_factory=dict)  # an old id -> the listed card that replaces it
    diagnostics: list[Diagnostic] = field(default_factory=list)
    refresh_seconds: float = REFRESH_SECONDS
    frozen: bool = False  # a copy that never reloads (``public``)
    _origin: Bank | None = None  # the bank a public copy was made from
    _entries: list[CardEntry] = field(default_factory=list)  # every entry, listed or not
    _unreadable: list[Diagnostic] = field(default_factory=list)
    _files: dict | None = None  # the files' names, times and sizes when last read; None: never read
    _looked_at: float = 0.0
    _generation: int = 0
    _shared: _Shared = field(default_factory=_Shared)
    _loading: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _loaded: threading.Event = field(default_factory=threading.Event)
    _public: tuple = (None, None)  # (the listing it was made from, the public copy)

    def refresh(self) -> Bank:
        """Read the folder again when a card file was added, removed or changed since the last look
        (a look at most every ``refresh_seconds``).

        One thread reads; the lock is held only to decide which. Meanwhile the other threads
        serve the listing read before, and the new one replaces it in one assignment when it is
        ready. Only before the first read does a request wait (FIRST_LOAD_WAIT_SECONDS).
        """
        if self.frozen:
            return self
        now = time.monotonic()
        if self._files is not None and now - self._looked_at < self.refresh_seconds:
            return self
        self._looked_at = now
        self._retry_slow(now)
        files = _files(self.folder)
        if files == self._files:
            return self
        with self._lock:
            someone_else = self._loading
            self._loading = True
        if someone_else:
            self._loaded.wait(FIRST_LOAD_WAIT_SECONDS)
            return self
        try:
            self._read(files)
        finally:
            self._loading = False
            self._loaded.set()
        return self

    def _retry_slow(self, now: float) -> None:
        """Forget the verdicts of loads that ran out of time once their wait is over (listed again)."""
        verdicts = self._shared.verdicts
        due = [path for path, v in list(verdicts.items()) if v.retry_at is not None and v.retry_at <= now]
        if due:
            for path in due:
                verdicts.pop(path, None)
            self._publish()

    def public(self) -> Bank:
        """The bank without its interview-only cards: a copy that never reloads (refresh this one, then ask again).
        One copy per listing: readers' requests ask for it each time, and copying 10,000 entries
        costs more than their page."""
        listing, copy = self._public
        if listing is not self.cards:
            listing = self.cards
            cards = {card_id: entry for card_id, entry in listing.items() if not entry.interview_only}
            copy = Bank(self.folder, cards, {}, {old: new for old, new in self.aliases.items() if new in cards},
                        self.diagnostics, frozen=True, _origin=self, _shared=self._shared)
            self._public = (listing, copy)
        return copy

    def get(self, card_id: str, drafts: bool = False) -> Card | None:
        """The card, fully loaded (the first time it is opened: outside any lock), or None when the
        bank has no such card or its file does not load (it then leaves the listing). A draft only
        with ``drafts`` (the author's preview)."""
        entry = self.cards.get(card_id) or (self.drafts.get(card_id) if drafts else None)
        if entry is None:
            return None
        card = self._shared.loaded.get(card_id)
        if card is not None and card.mtime == entry.mtime and card.path == entry.path:
            return card
        return self._settle(entry)

    def broken(self) -> dict[str, list[Diagnostic]]:
        """The diagnostics of each card file that does not load, by the file's stem: a broken card
        has no id in the bank, and its file is named by the id it would have."""
        by_stem: dict[str, list[Diagnostic]] = {}
        for diagnostic in self.diagnostics:
            by_stem.setdefault(Path(diagnostic.path).stem, []).append(diagnostic)
        return by_stem

    def sorted_cards(self) -> list[CardEntry]:
        """The cards in the order their authors set: beginner cards first, then by ``order`` within
        a level (a card without one after those with one), then by title. Practice brings new
        cards in this order."""
        return sorted(self.cards.values(), key=learning_order)

    def matching(self, role: str = "", tag: str = "", query: str = "", topic: str = "") -> list[CardEntry]:
        """Cards for a role, a tag and a topic (each may be empty) whose text holds every word of the query."""
        words = list(dict.fromkeys(query.lower().split()))[:MAX_SEARCH_WORDS]
        return [c for c in self.sorted_cards()
                if (not role or role in c.roles) and (not tag or tag in c.tags) and (not topic or c.topic == topic)
                and all(word in c.search_text() for word in words)]

    def roles(self) -> list[str]:
        return sorted({r for c in self.cards.values() for r in c.roles})

    def tags(self) -> list[str]:
        return sorted({t for c in self.cards.values() for t in c.tags})

    # --- reading the folder, and validating its cards ---------------------------------------

    def _read(self, files: dict) -> None:
        """Index the new and changed files, validate what can be within VALIDATE_WAIT_SECONDS, and
        publish the listing; the rest are validated by a background thread."""
        unchanged = {entry.file.name: entry for entry in self._entries
                     if self._files and files.get(entry.file.name) == self._files.get(entry.file.name)}
        entries, problems = [], []
        for name in sorted(files):
            entry = unchanged.get(name)
            if entry is None:
                entry, diagnostics = _read_entry(self.folder / name)
                problems += diagnostics
            if entry is not None:
                entries.append(entry)
        self._generation += 1
        self._entries, self._unreadable = entries, problems
        pending = self._validate(self._pending(), time.monotonic() + VALIDATE_WAIT_SECONDS)
        self._publish()
        self._files = files
        if pending:
            _in_background(self._validate, pending, None, self._generation)

    def _pending(self) -> list[CardEntry]:
        """The entries without a verdict for their file's version: those the index saw errors in first."""
        verdicts = self._shared.verdicts
        waiting = [e for e in self._entries if e.path not in verdicts or verdicts[e.path].mtime != e.mtime]
        return sorted(waiting, key=lambda e: not e.problems)

    def _validate(self, entries: list[CardEntry], deadline: float | None, generation: int | None = None
                  ) -> list[CardEntry]:
        """Validate each entry in turn until the deadline (None: to the end, unless the folder was
        read again); the entries left. In the background (``generation``), a card found broken
        leaves the listing within a second, and the last ones at the end."""
        published, found_broken = time.monotonic(), False
        for index, entry in enumerate(entries):
            if (deadline is not None and time.monotonic() > deadline) or \
                    (generation is not None and generation != self._generation):
                return entries[index:]
            # A bank that fits in the LRU is held loaded, so that no reader waits for a load.
            self._settle(entry, need_card=len(self._entries) <= LOADED_CARDS)
            found_broken |= bool(self._shared.verdicts[entry.path].diagnostics)
            if generation is not None and found_broken and time.monotonic() - published > 1.0:
                self._publish()
                published, found_broken = time.monotonic(), False
        if generation is not None and found_broken:
            self._publish()
        return []

    def _settle(self, entry: CardEntry, need_card: bool = True) -> Card | None:
        """Load the card (outside any lock) and keep it and its verdict; a card that does not load
        is reported. Without ``need_card``, a text already validated as another file is not loaded
        again (copies of a card): None then, with the verdict kept."""
        known = None if need_card else _known_verdict(entry)
        retry_at = None
        try:
            card, diagnostics = (None, known) if known is not None else _load(entry)
        except SlowLoad as slow:
            card, diagnostics, retry_at = None, slow.diagnostics, time.monotonic() + SLOW_RETRY_SECONDS
        self._shared.verdicts[entry.path] = Verdict(entry.mtime, diagnostics, retry_at)
        if card is not None:
            self._shared.loaded.put(card.id, card)
            return card
        if diagnostics and known is None:
            for diagnostic in diagnostics:
                log.warning("%s", diagnostic)
        if diagnostics and need_card:  # a request found it: out of the listing at once
            (self._origin or self)._publish()
            if self._origin is not None:
                self.cards = {k: v for k, v in self.cards.items() if k != entry.id}
                self.diagnostics = self._origin.diagnostics
        return None

    def _publish(self) -> None:
        """The listing, the drafts and the diagnostics from the entries and their verdicts, in one
        assignment each."""
        with self._lock:
            listing: dict[str, CardEntry] = {}
            drafts: dict[str, CardEntry] = {}
            diagnostics = list(self._unreadable)
            for entry in self._entries:
                verdict = self._shared.verdicts.get(entry.path)
                taken = listing.get(entry.id) or drafts.get(entry.id)
                if verdict is not None and verdict.mtime == entry.mtime and verdict.diagnostics:
                    diagnostics += verdict.diagnostics
                elif taken is not None:
                    diagnostics.append(Diagnostic(entry.path, entry.id_line, "error", f"id {entry.id!r} is already "
                                                  f"used by {taken.path}"))
                elif not entry.problems:
                    (drafts if entry.draft else listing)[entry.id] = entry
            aliases, problems = resolve_aliases((e.id, e.path, e.id_line, e.replaces) for e in listing.values())
            self.cards, self.drafts, self.aliases, self.diagnostics = listing, drafts, aliases, diagnostics + problems


def _files(folder: Path) -> dict[str, tuple[int, int]]:
    """Each card file's name, modification time and size: one ``stat`` per file."""
    files = {}
    try:
        with os.scandir(folder) as found:
            for item in found:
                if item.name.endswith(".md") and item.is_file():
                    stat = item.stat()
                    files[item.name] = (stat.st_mtime_ns, stat.st_size)
    except OSError:
        return {}
    return files


def _read_entry(file: Path) -> tuple[CardEntry | None, list[Diagnostic]]:
    shown = display_path(file)
    try:
        return read_entry(file, shown), []
    except (CardError, OSError) as error:
        return None, unreadable(shown, error)
    except Exception as error:  # noqa: BLE001 — one card's surprise must not take the bank down
        log.exception("unexpected error reading %s", shown)
        return None, unreadable(shown, error)


def _load(entry: CardEntry) -> tuple[Card | None, list[Diagnostic]]:
    """The card of an entry, fully loaded, or the diagnostics of why it does not load. A load that ran
    out of time raises ``SlowLoad``, whose verdict is not kept by the card's text."""
    try:
        card = _timed_load(entry.file, entry.path, full=False)
    except SlowLoad:
        raise
    except Exception as error:  # noqa: BLE001 — one card's surprise must not take the bank down
        if not isinstance(error, (CardError, OSError)):
            log.exception("unexpected error loading %s", entry.path)
        diagnostics = unreadable(entry.path, error)
        if isinstance(error, CardError):
            VERDICTS.put(entry.content, (entry.path, diagnostics))
        return None, diagnostics
    if card.id != entry.id:  # the file changed since it was indexed: the next look reads it again
        return None, [Diagnostic(entry.path, 1, "error", "the file changed while it was loaded; reload the page")]
    VERDICTS.put(entry.content, (entry.path, []))
    return replace(card, mtime=entry.mtime), []


def _known_verdict(entry: CardEntry) -> list[Diagnostic] | None:
    """The diagnostics of a text loaded before (under another file name), as this file's: None when
    it was not."""
    known = VERDICTS.get(entry.content)
    if known is None:
        return None
    path, diagnostics = known
    return [replace(d, path=entry.path, message=d.message.replace(path, entry.path)) for d in diagnostics]


def load_files(paths, full: bool = False) -> tuple[dict[str, Card], list[Diagnostic]]:
    """Load card files: the cards that load, by id, and the diagnostics of each that does not.
    ``full`` checks every scenario of each card's space (``quizapp check``)."""
    cards: dict[str, Card] = {}
    diagnostics: list[Diagnostic] = []
    for path in paths:
        shown = display_path(path)
        try:
            card = _timed_load(path, shown, full)
        except (CardError, OSError) as error:
            diagnostics.extend(unreadable(shown, error))
            continue
        except Exception as error:  # noqa: BLE001 — one card's surprise must not take the bank down
            log.exception("unexpected error loading %s", shown)
            diagnostics.extend(unreadable(shown, error))
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
    try:
        with render_budget(seconds):
            card = load_card(path, shown, full)
    except CardError as error:
        if time.monotonic() - start >= seconds:  # its renders ran out of the budget: a busy machine's verdict
            raise SlowLoad(error.diagnostics) from error
        raise
    took = time.monotonic() - start
    if took > seconds:
        raise SlowLoad(Diagnostic(shown, 1, "error", f"the card took {took:.1f} s to load; the most is {seconds:g} s",
                                   "look for loops or calc() calls that run many times"))
    return card


class SlowLoad(CardError):
    """A load past its time budget: ``check``'s error; for a server, a reason to try again later."""


def load_bank(folder) -> Bank:
    return Bank(Path(folder)).refresh()


def _in_background(function, *args) -> None:
    """Run ``function`` in an operating-system thread. Under a gevent worker (quizapp serve's) a
    ``threading.Thread`` is a greenlet, and validating the bank in one held the worker's every
    request for the whole bank (14 s on a busy machine): gevent's thread pool runs it in a real
    thread instead, which shares the interpreter as gthread's threads did."""
    try:
        from gevent import monkey
    except ImportError:
        monkey = None
    if monkey is not None and monkey.is_module_patched("threading"):
        import gevent

        gevent.get_hub().threadpool.spawn(function, *args)
        return
    threading.Thread(target=function, args=args, daemon=True, name="quizapp-bank-validate").start()
