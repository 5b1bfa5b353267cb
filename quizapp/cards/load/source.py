"""Split a card file into front matter and sections, keeping the line of each.

python-markdown cannot map its output back to source lines, so the splitting is ours:
``## Heading`` starts a section, ``### Heading`` an item inside Follow-ups and Wrong answers.
Headings inside fenced code blocks are text. Each YAML mistake is reported at the line to
change (``yaml_errors``), and the rest of the front matter is still read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..card import key_line
from ..diagnostics import CardError, Diagnostic
from .yaml_errors import explain


@dataclass
class Block:
    """A run of Markdown lines; ``line`` is the file line of its first line of text."""

    heading: str
    heading_line: int
    text: str = ""
    line: int = 0
    items: list["Block"] = field(default_factory=list)


@dataclass
class CardSource:
    """A card file split into its parts, and the problems found in it so far.

    The checks report every problem they find (``report``, or a CardError raised inside
    ``collecting``) and go on with what is usable, so an author hears of all of them at once.
    """

    path: str
    front_matter: dict
    key_lines: dict[str, int]  # front-matter key (dotted for nested keys) -> file line
    sections: list[Block]
    end_line: int
    problems: list[Diagnostic] = field(default_factory=list)
    # Top-level keys whose YAML was broken: already reported, so no check reports them again.
    broken_keys: set[str] = field(default_factory=set)

    def line_of(self, dotted_key: str) -> int:
        """The front-matter line of a key such as 'scenario.model', or of its nearest parent."""
        return key_line(self.key_lines, dotted_key)

    def error(self, line: int, message: str, hint: str | None = None) -> CardError:
        """The error to raise for a problem at a line of this file."""
        return CardError(Diagnostic(self.path, line, "error", message, hint))

    def report(self, line: int, message: str, hint: str | None = None) -> None:
        """Keep a problem with the card's others; the check goes on."""
        self.problems.append(Diagnostic(self.path, line, "error", message, hint))

    @contextmanager
    def collecting(self) -> Iterator[None]:
        """Run one check of several: the CardError it raises is kept with the card's other problems,
        and the load goes on to the next check."""
        try:
            yield
        except CardError as error:
            self.problems.extend(error.diagnostics)


FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{2,3})\s+(.*?)\s*#*\s*$")


# A card is a few kilobytes of prose; past this it is a mistake (or an attack: a 100 MB card
# once took 54 s and 1.15 GB to load).
MAX_CARD_BYTES = 256 * 1024


def read_card(path: Path, display_path: str) -> str:
    """A card file's text: at most MAX_CARD_BYTES of UTF-8, else a CardError at line 1."""
    with open(path, "rb") as handle:
        raw = handle.read(MAX_CARD_BYTES + 1)
    if len(raw) > MAX_CARD_BYTES:
        size = path.stat().st_size
        raise CardError(Diagnostic(display_path, 1, "error", f"the card is {size // 1024:,} KiB; a card may be at most "
                                   f"{MAX_CARD_BYTES // 1024} KiB", "split it into several cards"))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CardError(Diagnostic(display_path, 1, "error", f"not UTF-8 text: {error.reason}")) from None


def split_card(path: str, text: str) -> CardSource:
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise CardError(Diagnostic(path, 1, "error", "a card starts with YAML front matter between '---' lines"))
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise CardError(Diagnostic(path, 1, "error", "front matter is not closed by a '---' line")) from None
    source = CardSource(path, {}, {}, [], len(lines))
    source.front_matter, source.key_lines = _parse_front_matter(source, lines[1:end], first_line=2)
    source.sections = _split_sections(source, lines, start=end + 1)
    return source


class FrontMatterLoader(yaml.SafeLoader):
    """YAML without anchors and aliases, nested at most MAX_YAML_DEPTH deep.

    Front matter has no use for ``&anchor`` and ``*alias``; refusing them makes the "billion
    laughs" (a 697-byte card with aliases nested 9 deep ran ``quizapp check`` out of memory)
    impossible, and the depth keeps PyYAML's recursive composer within Python's stack.
    """

    MAX_YAML_DEPTH = 20

    def __init__(self, stream):
        super().__init__(stream)
        self.depth = 0

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            kind = "an alias (*name)" if isinstance(event, yaml.AliasEvent) else "an anchor (&name)"
            raise yaml.composer.ComposerError(None, None, f"{kind} is not allowed in front matter; write the "
                                              "value out", event.start_mark)
        self.depth += 1
        try:
            if self.depth > self.MAX_YAML_DEPTH:
                raise yaml.composer.ComposerError(None, None, f"values nested more than {self.MAX_YAML_DEPTH} "
                                                  "deep", event.start_mark)
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def _load_yaml(text: str):
    """The front matter's node tree (for key lines) and its data.

    libyaml's parser is ten times faster than PyYAML's own, so a well-formed front matter is
    read by it: its events are scanned for anchors, aliases and depth first, then it composes
    the nodes. Anything it finds wrong is read again by ``FrontMatterLoader``, whose errors
    (and their marks) the messages in ``yaml_errors`` are written for.
    """
    if FAST_YAML:
        try:
            return _load_yaml_fast(text)
        except (yaml.YAMLError, _Refused):
            pass
    loader = FrontMatterLoader(text)
    try:
        node = loader.get_single_node()
        return node, (loader.construct_document(node) if node is not None else None)
    finally:
        loader.dispose()


FAST_YAML = yaml.__with_libyaml__


class _Refused(Exception):
    """What ``FrontMatterLoader`` refuses (an anchor, an alias, nesting too deep): it says so at the line."""


def _load_yaml_fast(text: str):
    depth = 0
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise _Refused()
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth >= FrontMatterLoader.MAX_YAML_DEPTH:
                raise _Refused()
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
    loader = yaml.CSafeLoader(text)
    try:
        node = loader.get_single_node()
        return node, (loader.construct_document(node) if node is not None else None)
    finally:
        loader.dispose()


# A file with more YAML mistakes than this is reported up to here: the rest are likely echoes.
MAX_YAML_MISTAKES = 10


def _parse_front_matter(source: CardSource, lines: list[str], first_line: int) -> tuple[dict, dict[str, int]]:
    """The front matter's keys and their lines. Each YAML mistake is reported at its own line,
    then its lines are set aside and the rest is read again, so every mistake is found."""
    lines = list(lines)
    for _ in range(MAX_YAML_MISTAKES):
        text = "\n".join(lines)
        try:
            node, data = _load_yaml(text)
            break
        except (ValueError, RecursionError) as error:  # a 5,000-digit number, a value nested too deep
            source.report(first_line, f"front matter is not valid YAML: {str(error).split(';')[0]}")
            return _unreadable(source, lines)
        except yaml.YAMLError as error:
            mistake = explain(error, lines, first_line)
            source.problems.append(Diagnostic(source.path, first_line + mistake.line, "error",
                                              f"front matter is not valid YAML: {mistake.message}", mistake.hint,
                                              mistake.column))
            if not _set_aside(lines, mistake.line, source.broken_keys):
                return _unreadable(source, lines)
    else:
        return _unreadable(source, lines)
    if data is None and source.broken_keys:
        return {}, {}
    if not isinstance(data, dict):
        source.report(first_line, "front matter must be a mapping of keys to values")
        return {}, {}
    key_lines: dict[str, int] = {}
    _collect_lines(source, node, "", first_line, key_lines)
    return data, key_lines


def _unreadable(source: CardSource, lines: list[str]) -> tuple[dict, dict[str, int]]:
    """Front matter that could not be read past its mistakes: every key it names is broken (already
    reported), so none is reported missing."""
    source.broken_keys.update(m[1] for line in lines if (m := TOP_LEVEL_KEY.match(line)))
    return {}, {}


def _set_aside(lines: list[str], index: int, broken_keys: set[str]) -> bool:
    """Blank the line of a mistake and the lines indented under it (the line numbers stay), and
    note the top-level key they belong to. False when there is nothing left to set aside."""
    if index >= len(lines) or not lines[index].strip():
        return False
    indent = len(lines[index]) - len(lines[index].lstrip())
    owner = next((m[1] for line in reversed(lines[: index + 1]) if (m := TOP_LEVEL_KEY.match(line))), None)
    if owner:
        broken_keys.add(owner)
    lines[index] = ""
    for below in range(index + 1, len(lines)):
        text = lines[below]
        if text.strip() and len(text) - len(text.lstrip()) <= indent:
            break
        lines[below] = ""
    return True


TOP_LEVEL_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:")


def _collect_lines(source: CardSource, node, prefix: str, first_line: int, out: dict[str, int]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            name = f"{prefix}{key.value}"
            line = first_line + key.start_mark.line
            if name in out:
                source.report(line, f"key {key.value!r} appears twice (first on line {out[name]}); the second "
                                    "one wins", "keep one of them")
            out[name] = line
            _collect_lines(source, value, name + ".", first_line, out)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            name = f"{prefix}{index}"
            out[name] = first_line + item.start_mark.line
            _collect_lines(source, item, name + ".", first_line, out)


def _split_sections(source: CardSource, lines: list[str], start: int) -> list[Block]:
    sections: list[Block] = []
    reported_stray = False
    current: Block | None = None
    target: Block | None = None
    body: list[str] = []
    in_fence = False

    def flush():
        if target is not None:
            _set_text(target, body)

    for index in range(start, len(lines)):
        raw = lines[index]
        number = index + 1
        if FENCE.match(raw):
            in_fence = not in_fence
        match = None if in_fence else HEADING.match(raw)
        if match and len(match[1]) == 2:
            flush()
            current = Block(match[2], number)
            sections.append(current)
            target, body = current, []
            continue
        if match and current is not None and current.heading.lower() in ITEM_SECTIONS:
            flush()
            item = Block(match[2], number)
            current.items.append(item)
            target, body = item, []
            continue
        if current is None:
            if raw.strip() and not reported_stray:
                source.report(number, "text before the first '## ' section heading", "start the card with '## Question'")
                reported_stray = True
            continue
        body.append((number, raw))
    flush()
    return sections


# Sections whose '### ' headings are items (one follow-up, one wrong answer), not subheadings.
ITEM_SECTIONS = {"follow-ups", "wrong answers"}


def _set_text(block: Block, body: list[tuple[int, str]]) -> None:
    while body and not body[0][1].strip():
        body.pop(0)
    while body and not body[-1][1].strip():
        body.pop()
    block.text = "\n".join(raw for _, raw in body)
    block.line = body[0][0] if body else block.heading_line
