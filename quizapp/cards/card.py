"""A card: its front matter checked, its sections compiled into pieces, its stages in order.

Loading a card compiles every piece and renders it for the card's scenario and for each
variant, so an author learns of a broken expression at load time, with its file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import TemplateSyntaxError, meta
from jinja2.loaders import FunctionLoader

from ..calc import FIELD_NAMES, VALUES, CalcError
from .diagnostics import CardError, Diagnostic, did_you_mean
from .environment import CARD_NAMES, make_environment
from .source import Block, CardSource, split_card

SECTIONS = ("Question", "Short answer", "Full answer", "Follow-ups", "Wrong answers", "Taught in")
REQUIRED_SECTIONS = ("Question", "Short answer", "Full answer")
FRONT_MATTER_KEYS = ("id", "title", "roles", "tags", "scenario", "variants", "answer", "taught_in")
REQUIRED_KEYS = ("id", "title", "roles", "scenario")
ANSWER_KEYS = ("value", "tolerance", "mistakes")
LEVELS = ("L1", "L2", "L3")
FOLLOW_UP_HEADING = re.compile(r"^(L\d)\s+([A-Za-z][\w -]*?)\s*:\s*(.+)$")
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,79}$")


@dataclass(frozen=True)
class Piece:
    """One compiled Markdown template: a section body, a follow-up question, a rebuttal …"""

    key: str
    line: int
    source: str
    inline: bool  # rendered without a wrapping paragraph (headings of items)
    names: frozenset[str]  # card names it uses


@dataclass(frozen=True)
class Stage:
    name: str  # as in POST /cards/<id>/reveal/<stage>
    label: str  # what the reveal button says it shows
    pieces: tuple[str, ...]


@dataclass(frozen=True)
class FollowUp:
    number: int
    level: str
    label: str
    question: str  # piece key
    answer: str  # piece key


@dataclass(frozen=True)
class Variant:
    name: str
    inputs: dict
    line: int


@dataclass
class Card:
    id: str
    path: str
    mtime: float
    title: str
    roles: list[str]
    tags: list[str]
    scenario: dict
    variants: list[Variant]
    taught_in: list[dict]
    answer: dict | None
    pieces: dict[str, Piece]
    stages: list[Stage]
    follow_ups: list[FollowUp]
    wrong_answers: list[tuple[str, str]]  # (wrong answer piece, why piece)
    key_lines: dict[str, int]
    warnings: list[Diagnostic] = field(default_factory=list)
    env: object = field(repr=False, default=None)
    render_cache: dict = field(repr=False, default_factory=dict)

    @property
    def levels(self) -> list[str]:
        return sorted({f.level for f in self.follow_ups})

    @property
    def stage_names(self) -> list[str]:
        return [s.name for s in self.stages]

    def stage(self, name: str) -> Stage | None:
        return next((s for s in self.stages if s.name == name), None)

    def line_of(self, dotted_key: str) -> int:
        return key_line(self.key_lines, dotted_key)

    def search_text(self) -> str:
        """What the bank's search looks in: never an answer's text, which the reader has not revealed."""
        return " ".join([self.title, *self.roles, *self.tags, self.pieces["question"].source]).lower()


def key_line(key_lines: dict[str, int], dotted_key: str) -> int:
    """The front-matter line of a key such as 'scenario.model', or of its nearest parent."""
    while dotted_key:
        if dotted_key in key_lines:
            return key_lines[dotted_key]
        dotted_key = dotted_key.rpartition(".")[0]
    return 1


def load_card(path: Path, display_path: str) -> Card:
    """Parse, check and compile one card file. Raises CardError on the first error."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise CardError(Diagnostic(display_path, 1, "error", f"not UTF-8 text: {error.reason}")) from None
    source = split_card(display_path, text)
    builder = _Builder(source, path.stat().st_mtime)
    return builder.build()


class _Builder:
    def __init__(self, source: CardSource, mtime: float):
        self.source = source
        self.path = source.path
        self.mtime = mtime
        self.pieces: dict[str, Piece] = {}

    def error(self, line: int, message: str, hint: str | None = None) -> CardError:
        return CardError(Diagnostic(self.path, line, "error", message, hint))

    def key_line(self, key: str) -> int:
        return key_line(self.source.key_lines, key)

    # Front matter ---------------------------------------------------------------------------

    def front_matter(self) -> dict:
        front = self.source.front_matter
        for key in front:
            if key not in FRONT_MATTER_KEYS:
                raise self.error(self.key_line(key), f"unknown front-matter key {key!r}",
                                 did_you_mean(key, FRONT_MATTER_KEYS) or f"keys are {', '.join(FRONT_MATTER_KEYS)}")
        for key in REQUIRED_KEYS:
            if key not in front or front[key] in (None, "", []):
                raise self.error(2, f"front matter has no {key!r}")
        card_id = front["id"]
        if not isinstance(card_id, str) or not ID_PATTERN.match(card_id):
            raise self.error(self.key_line("id"), f"id {card_id!r} must be lowercase letters, digits and dashes")
        if not isinstance(front["title"], str):
            raise self.error(self.key_line("title"), "title must be text")
        for key in ("roles", "tags"):
            value = front.get(key, [])
            if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
                raise self.error(self.key_line(key), f"{key} must be a list of names, e.g. [{key[:-1]} one, two]")
        return front

    def scenario(self, front: dict) -> dict:
        scenario = front["scenario"]
        if not isinstance(scenario, dict):
            raise self.error(self.key_line("scenario"), "scenario must map calculator inputs to values")
        self.check_input_names(scenario, "scenario")
        return scenario

    def check_input_names(self, inputs: dict, prefix: str) -> None:
        for name in inputs:
            if name not in FIELD_NAMES or name == "config":
                raise self.error(self.key_line(f"{prefix}.{name}"), f"unknown calculator input {name!r}",
                                 did_you_mean(str(name), FIELD_NAMES) or "see AUTHORING.md for the inputs")

    def variants(self, front: dict) -> list[Variant]:
        raw = front.get("variants") or []
        if not isinstance(raw, list):
            raise self.error(self.key_line("variants"), "variants must be a list of named scenarios")
        variants = []
        for index, item in enumerate(raw):
            prefix = f"variants.{index}"
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                raise self.error(self.key_line(prefix), "each variant needs a 'name' and the inputs it changes")
            inputs = {k: v for k, v in item.items() if k != "name"}
            self.check_input_names(inputs, prefix)
            variants.append(Variant(item["name"], inputs, self.key_line(prefix)))
        return variants

    def taught_in(self, front: dict) -> list[dict]:
        raw = front.get("taught_in") or []
        if not isinstance(raw, list):
            raise self.error(self.key_line("taught_in"), "taught_in must be a list of {title, link}")
        links = []
        for index, item in enumerate(raw):
            line = self.key_line(f"taught_in.{index}")
            if not isinstance(item, dict) or not isinstance(item.get("title"), str):
                raise self.error(line, "each taught_in entry needs a 'title' (and a 'link')")
            link = item.get("link", "")
            if link and not re.match(r"^(https?://|/)", str(link)):
                raise self.error(line, f"taught_in link {link!r} must start with https://, http:// or /")
            links.append({"title": item["title"], "link": str(link)})
        return links

    def answer(self, front: dict) -> dict | None:
        answer = front.get("answer")
        if answer is None:
            return None
        if not isinstance(answer, dict) or "value" not in answer:
            raise self.error(self.key_line("answer"), "answer needs 'value': the calculator value that answers it")
        for key in answer:
            if key not in ANSWER_KEYS:
                raise self.error(self.key_line(f"answer.{key}"), f"unknown answer key {key!r}",
                                 did_you_mean(str(key), ANSWER_KEYS))
        self.check_value_name(answer["value"], "answer.value")
        tolerance = answer.get("tolerance", 0)
        if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or tolerance < 0:
            raise self.error(self.key_line("answer.tolerance"), "tolerance must be a number ≥ 0 (a fraction, "
                             "0.05 = 5%)")
        mistakes = answer.get("mistakes") or []
        if not isinstance(mistakes, list):
            raise self.error(self.key_line("answer.mistakes"), "mistakes must be a list of {value, says}")
        for index, mistake in enumerate(mistakes):
            prefix = f"answer.mistakes.{index}"
            if not isinstance(mistake, dict) or not isinstance(mistake.get("says"), str) or "value" not in mistake:
                raise self.error(self.key_line(prefix), "each mistake needs 'value' (a calculator value) and 'says' "
                                 "(text)")
            self.check_value_name(mistake["value"], f"{prefix}.value")
        return {"value": answer["value"], "tolerance": float(tolerance), "mistakes": mistakes}

    def check_value_name(self, name, key: str) -> None:
        if name not in VALUES:
            raise self.error(self.key_line(key), f"unknown value {name!r}",
                             did_you_mean(str(name), VALUES) or "see AUTHORING.md for the values")

    # Sections -------------------------------------------------------------------------------

    def sections(self) -> dict[str, Block]:
        found: dict[str, Block] = {}
        for block in self.source.sections:
            name = next((s for s in SECTIONS if s.lower() == block.heading.lower()), None)
            if name is None:
                raise self.error(block.heading_line, f"unknown section '## {block.heading}'",
                                 did_you_mean(block.heading, SECTIONS) or f"sections are {', '.join(SECTIONS)}")
            if name in found:
                raise self.error(block.heading_line, f"section '## {name}' appears twice")
            found[name] = block
        for name in REQUIRED_SECTIONS:
            if name not in found:
                raise self.error(self.source.end_line, f"missing section '## {name}'")
            if not found[name].text.strip():
                raise self.error(found[name].heading_line, f"section '## {name}' is empty")
        return found

    def add_piece(self, key: str, text: str, line: int, inline: bool = False) -> str:
        self.pieces[key] = Piece(key, line, text, inline, frozenset())
        return key

    def follow_ups(self, block: Block | None) -> list[FollowUp]:
        if block is None:
            return []
        if block.text.strip() and not block.items:
            raise self.error(block.line, "Follow-ups holds '### L2 Label: question' items, then each expected answer")
        follow_ups = []
        for number, item in enumerate(block.items, start=1):
            match = FOLLOW_UP_HEADING.match(item.heading)
            if not match:
                raise self.error(item.heading_line, f"follow-up heading '### {item.heading}' must read "
                                 "'### L2 Working: the question'")
            level, label, question = match.groups()
            if level not in LEVELS:
                raise self.error(item.heading_line, f"follow-up level {level} must be one of {', '.join(LEVELS)}")
            if not item.text.strip():
                raise self.error(item.heading_line, f"follow-up {number} has no expected answer")
            q = self.add_piece(f"followup-{number}.question", question, item.heading_line, inline=True)
            a = self.add_piece(f"followup-{number}", item.text, item.line)
            follow_ups.append(FollowUp(number, level, label.strip(), q, a))
        return follow_ups

    def wrong_answers(self, block: Block | None) -> list[tuple[str, str]]:
        if block is None:
            return []
        if block.text.strip() and not block.items:
            raise self.error(block.line, "Wrong answers holds '### the wrong answer' items, each with why it is wrong")
        pairs = []
        for number, item in enumerate(block.items, start=1):
            if not item.text.strip():
                raise self.error(item.heading_line, f"wrong answer {number} does not say why it is wrong")
            wrong = item.heading.strip().strip('"“”')
            pairs.append((self.add_piece(f"wrong-{number}.answer", wrong, item.heading_line, inline=True),
                          self.add_piece(f"wrong-{number}.why", item.text, item.line)))
        return pairs

    # Compile --------------------------------------------------------------------------------

    def compile(self) -> object:
        sources = {f"{self.path}#{k}": p.source for k, p in self.pieces.items()}
        # The loader names each template's file, so a render error's traceback gives its line.
        env = make_environment(FunctionLoader(lambda name: (sources[name], name, lambda: True)
                                              if name in sources else None))
        for key, piece in list(self.pieces.items()):
            name = f"{self.path}#{key}"
            try:
                ast = env.parse(piece.source, name=name)
                env.get_template(name)
            except TemplateSyntaxError as error:
                raise self.error(piece.line + (error.lineno or 1) - 1, f"expression error: {error.message}",
                                 _filter_hint(error.message)) from None
            names = meta.find_undeclared_variables(ast)
            for unknown in sorted(names - CARD_NAMES):
                raise self.error(_line_of_name(piece, unknown), f"unknown value {unknown!r}",
                                 did_you_mean(unknown, CARD_NAMES) or "see AUTHORING.md for the values")
            self.pieces[key] = Piece(key, piece.line, piece.source, piece.inline, frozenset(names))
        return env

    def build(self) -> Card:
        front = self.front_matter()
        scenario = self.scenario(front)
        variants = self.variants(front)
        sections = self.sections()
        stages = []
        for name, stage in (("Question", "question"), ("Short answer", "short"), ("Full answer", "full")):
            block = sections[name]
            self.add_piece(stage, block.text, block.line)
            if stage != "question":
                stages.append(Stage(stage, f"Show {name.lower()}", (stage,)))
        follow_ups = self.follow_ups(sections.get("Follow-ups"))
        stages += [Stage(f"followup-{f.number}", "Show expected answer", (f.answer,)) for f in follow_ups]
        wrong = self.wrong_answers(sections.get("Wrong answers"))
        if wrong:
            stages.append(Stage("wrong", "Show the wrong answers that interviewers hear",
                                tuple(k for pair in wrong for k in pair)))
        taught_in = self.taught_in(front)
        if "Taught in" in sections or taught_in:
            block = sections.get("Taught in")
            if block is not None:
                self.add_piece("taught", block.text, block.line)
            stages.append(Stage("taught", "Show where it is taught", ("taught",) if block is not None else ()))
        card = Card(
            id=front["id"], path=self.path, mtime=self.mtime, title=front["title"].strip(),
            roles=list(front["roles"]), tags=list(front.get("tags") or []), scenario=scenario,
            variants=variants, taught_in=taught_in, answer=self.answer(front), pieces={}, stages=stages,
            follow_ups=follow_ups, wrong_answers=wrong, key_lines=self.source.key_lines,
        )
        card.env = self.compile()
        card.pieces = self.pieces
        _check_renders(card)
        card.warnings = literal_number_warnings(card)
        return card


def _filter_hint(message: str) -> str | None:
    match = re.search(r"No filter named '([^']+)'", message)
    if match:
        from .environment import CARD_FILTERS

        return did_you_mean(match[1], CARD_FILTERS) or f"filters are {', '.join(sorted(CARD_FILTERS))}"
    return None


def _line_of_name(piece: Piece, name: str) -> int:
    for offset, text in enumerate(piece.source.splitlines()):
        if re.search(rf"\b{re.escape(name)}\b", text) and "{" in text:
            return piece.line + offset
    return piece.line


def _check_renders(card: Card) -> None:
    """Render every piece for the card's scenario and each variant: errors surface at load."""
    from .render import render_piece
    from .scenario import resolve_scenario

    choices = [(None, "scenario", card.line_of("scenario"))] + [
        (i, f"variants.{i}", v.line) for i, v in enumerate(card.variants)]
    for variant, prefix, line in choices:
        label = "the card's scenario" if variant is None else f"variant {card.variants[variant].name!r}"
        try:
            scenario = resolve_scenario(card, variant, {})
        except CalcError as error:
            key_line = card.line_of(f"{prefix}.{error.field}") if error.field else line
            raise CardError(Diagnostic(card.path, key_line, "error", f"{label}: {error.message}")) from None
        if card.answer and not isinstance(scenario.result.get(card.answer["value"]), (int, float)):
            raise CardError(Diagnostic(card.path, card.line_of("answer.value"), "error",
                                       f"{label}: answer value {card.answer['value']!r} is not a number the "
                                       "calculator derives here"))
        for check in scenario.result.checks:
            if not check["ok"]:
                raise CardError(Diagnostic(card.path, line, "error", f"{label}: vLLM would refuse to start: "
                                           f"{check['message']}"))
        for key in card.pieces:
            render_piece(card, key, scenario, label=label)


EXPRESSION = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)
LITERAL_NUMBER = re.compile(r"(?<![\w.,])\d+(?:,\d{3})*(?:\.\d+)?(?!\w|,\d|\.\d)")


def literal_number_warnings(card: Card) -> list[Diagnostic]:
    """A number typed into a card that the calculator produces for its scenario should be an
    expression, or it will not follow the reader's scenario."""
    from .scenario import resolve_scenario

    scenario = resolve_scenario(card, None, {})
    known: dict[float, str] = {}
    for name, quantity in scenario.result.values.items():
        for candidate in (quantity.value, _leading_number(quantity.text)):
            if isinstance(candidate, (int, float)) and not isinstance(candidate, bool) and candidate >= 3:
                known.setdefault(float(candidate), name)
    warnings = []
    for piece in card.pieces.values():
        for offset, line in enumerate(piece.source.splitlines()):
            for match in LITERAL_NUMBER.finditer(EXPRESSION.sub(" ", line)):
                number = float(match[0].replace(",", ""))
                if number in known:
                    warnings.append(Diagnostic(
                        card.path, piece.line + offset, "warning",
                        f"literal {match[0]} is what the calculator computes for {known[number]!r}",
                        f"write {{{{ {known[number]} }}}} so it follows the reader's scenario, or "
                        f"{{{{ measured(\"...\") }}}} if it was measured"))
    return warnings


def _leading_number(text: str):
    match = re.match(r"[\d,]+(?:\.\d+)?", text or "")
    return float(match[0].replace(",", "")) if match else None
