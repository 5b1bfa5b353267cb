"""Split a card file into front matter and sections, keeping the line of each.

python-markdown cannot map its output back to source lines, so the splitting is ours:
``## Heading`` starts a section, ``### Heading`` an item inside Follow-ups and Wrong answers.
Headings inside fenced code blocks are text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .card import key_line
from .diagnostics import CardError, Diagnostic


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
    path: str
    front_matter: dict
    key_lines: dict[str, int]  # front-matter key (dotted for nested keys) -> file line
    sections: list[Block]
    end_line: int

    def line_of(self, dotted_key: str) -> int:
        """The front-matter line of a key such as 'scenario.model', or of its nearest parent."""
        return key_line(self.key_lines, dotted_key)

    def error(self, line: int, message: str, hint: str | None = None) -> CardError:
        """The error to raise for a problem at a line of this file."""
        return CardError(Diagnostic(self.path, line, "error", message, hint))


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
    front_text = "\n".join(lines[1:end])
    front, key_lines = _parse_front_matter(path, front_text, first_line=2)
    sections = _split_sections(path, lines, start=end + 1)
    return CardSource(path, front, key_lines, sections, len(lines))


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
    """The front matter's node tree (for key lines) and its data, from one parse."""
    loader = FrontMatterLoader(text)
    try:
        node = loader.get_single_node()
        return node, (loader.construct_document(node) if node is not None else None)
    finally:
        loader.dispose()


def _parse_front_matter(path: str, text: str, first_line: int) -> tuple[dict, dict[str, int]]:
    try:
        node, data = _load_yaml(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
        line = first_line + (mark.line if mark else 0)
        problem = getattr(error, "problem", None) or str(error)
        raise CardError(Diagnostic(path, line, "error", f"front matter is not valid YAML: {problem}")) from None
    except (ValueError, RecursionError) as error:  # an integer of over 4,300 digits, a deep flow sequence
        raise CardError(Diagnostic(path, first_line, "error", f"front matter is not valid YAML: {error}")) from None
    if not isinstance(data, dict):
        raise CardError(Diagnostic(path, first_line, "error", "front matter must be a mapping of keys to values"))
    key_lines: dict[str, int] = {}
    _collect_lines(node, "", first_line, key_lines)
    return data, key_lines


def _collect_lines(node, prefix: str, first_line: int, out: dict[str, int]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            name = f"{prefix}{key.value}"
            out[name] = first_line + key.start_mark.line
            _collect_lines(value, name + ".", first_line, out)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            name = f"{prefix}{index}"
            out[name] = first_line + item.start_mark.line
            _collect_lines(item, name + ".", first_line, out)


def _split_sections(path: str, lines: list[str], start: int) -> list[Block]:
    sections: list[Block] = []
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
            if raw.strip():
                raise CardError(Diagnostic(path, number, "error", "text before the first '## ' section heading",
                                           "start the card with '## Question'"))
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
