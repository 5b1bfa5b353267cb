"""The scripts in static/ show what the server sends: they hold no copy of a sentence the server
writes, and they compute no number.

**No server sentence in a script.** A *server sentence* is a run of text of at least two words
(space-separated parts, one with four letters in a row: "Not started", not "on the") that the
server can put on a page:

- in a template (``templates/**/*.html``): the text between tags and between Jinja tags, the
  ``title``, ``aria-label``, ``placeholder`` and ``alt`` attributes, and the string literals
  inside ``{{ … }}`` and ``{% … %}``;
- in a view (``quizapp/web/**/*.py``): every string constant and every literal part of an
  f-string, docstrings aside.

Leading and trailing punctuation is ignored and case too. A script fails when one of its string
literals contains a server sentence: "You marked this: " does, for the template's
"You marked this: {{ … }}.". Such a text belongs in the page (a data attribute, a <template>)
or in the JSON the script fetches.

**No number computed in a script.** Following where a value goes is beyond a test like this,
so the rule is stricter than "no arithmetic on what is written to the page": a script does no
arithmetic at all. Outside strings, comments and regular expressions a script has no ``*``,
``/`` or ``%``, no binary ``-``, no ``+`` beside a number or a count (``.length``, ``.size``,
``.childElementCount``), no ``++``, ``--`` or compound assignment, and none of ``Math.``,
``Number(``, ``parseInt``, ``parseFloat``, ``toFixed``, ``toPrecision``, ``padStart``,
``padEnd``, ``Date.now``, ``Date.parse``, ``getTime``, ``performance.now``. Counting and
formatting are the server's; a clock ticks with the state the server sends. ``ALLOWED`` lists
each exception with why no number it makes reaches the page as a number.
"""

from __future__ import annotations

import ast
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.paths import ROOT, STATIC

TEMPLATES = ROOT / "templates"
VIEWS = ROOT / "quizapp" / "web"
SCRIPTS = sorted(STATIC.glob("*.js"))

# (script, code on one line): why it is allowed.
ALLOWED = {
    ("localtime.js", "now.getDate() + 1"):
        "which calendar day is tomorrow in the reader's time zone (only the browser knows it), to say "
        "\"tomorrow 09:30\"; the day's number is never shown",
    ("candidate.js", "Number(root.dataset.version)"):
        "the screen's version as the page drew it, compared with each state's to drop a stale one; never shown",
}

# ------------------------------------------------------------------ sentences the server writes

JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)
JINJA_COMMENT = re.compile(r"\{#.*?#\}", re.S)
QUOTED = re.compile(r"'([^'\\]*)'|\"([^\"\\]*)\"")
SHOWN_ATTRIBUTES = ("title", "aria-label", "placeholder", "alt")
GAP = "\x00"  # stands for a Jinja tag: text on either side of one is two runs


def normalised(text: str) -> str:
    return " ".join(text.split()).strip(" .,:;!?()“”\"'").casefold()


def is_sentence(text: str) -> bool:
    words = text.split()
    return len(words) >= 2 and any(re.search(r"[a-z]{4}", word) for word in words)


class _Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.runs: list[str] = []

    def handle_data(self, data):
        self.runs += data.split(GAP)

    def handle_starttag(self, tag, attrs):
        self.runs += [value.replace(GAP, " ") for name, value in attrs if name in SHOWN_ATTRIBUTES and value]


def template_sentences(text: str) -> set[str]:
    text = JINJA_COMMENT.sub("", text)
    literals = [a or b for tag in JINJA.findall(text) for a, b in QUOTED.findall(tag)]
    parser = _Text()
    parser.feed(JINJA.sub(GAP, text))
    return {normalised(run) for run in parser.runs + literals if is_sentence(normalised(run))}


def view_sentences(source: str) -> set[str]:
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return {normalised(node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
            and is_sentence(normalised(node.value))}


def server_sentences() -> dict[str, str]:
    """Each server sentence, with a file that writes it."""
    found = {}
    for path in sorted(TEMPLATES.rglob("*.html")):
        found.update(dict.fromkeys(template_sentences(path.read_text(encoding="utf-8")), str(path.relative_to(ROOT))))
    for path in sorted(VIEWS.rglob("*.py")):
        found.update(dict.fromkeys(view_sentences(path.read_text(encoding="utf-8")), str(path.relative_to(ROOT))))
    return found


# ------------------------------------------------------------------ reading a script

TOKEN = re.compile(r"""
    (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`)
  | (?P<number>\b\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?\b)
  | (?P<name>[A-Za-z_$][\w$]*)
  | (?P<operator>\+\+|--|[+\-*/%]=|=>|===|!==|==|!=|<=|>=|&&|\|\||[{}()\[\];,.?:<>=!+\-*/%&|^~])
  | (?P<space>\s+)
""", re.S | re.X)
REGEX_LITERAL = re.compile(r"/(?:\\.|\[[^\]]*\]|[^/\\\n])+/[a-z]*")
COUNTS = ("length", "size", "childElementCount")
NUMBER_MAKERS = re.compile(r"\b(Math\.|Number\(|parseInt|parseFloat|toFixed|toPrecision|padStart|padEnd|Date\.now|"
                           r"Date\.parse|getTime|performance\.now)")


def tokens(source: str) -> list[tuple[str, str, int]]:
    """(kind, text, line) of a script: its strings' text unquoted, its regular expression literals
    as one "regex" token (a "/" where an operand cannot end is where one starts)."""
    found, at, line = [], 0, 1
    while at < len(source):
        previous = next((t for t in reversed(found) if t[0] != "comment"), None)
        operand_before = previous is not None and (previous[0] in ("name", "number", "string", "regex")
                                                   and previous[1] not in ("return", "typeof")
                                                   or previous[1] in (")", "]"))
        if source[at] == "/" and not operand_before and source[at:at + 2] not in ("//", "/*"):
            match = REGEX_LITERAL.match(source, at)
            kind, text = "regex", match.group(0)
        else:
            match = TOKEN.match(source, at)
            assert match, f"cannot read the script at line {line}: {source[at:at + 30]!r}"
            kind, text = match.lastgroup, match.group(0)
        if kind == "string":
            text = text[1:-1]
        if kind != "space":
            found.append((kind, text, line))
        line += match.group(0).count("\n")
        at = match.end()
    return found


def arithmetic(source: str) -> list[tuple[int, str]]:
    """(line, what) of each piece of arithmetic in a script, by the rule in this module's docstring."""
    found = []
    code = [t for t in tokens(source) if t[0] != "comment"]
    for i, (kind, text, line) in enumerate(code):
        before = code[i - 1] if i else ("", "", 0)
        after = code[i + 1] if i + 1 < len(code) else ("", "", 0)
        operand_before = before[0] in ("name", "number", "string") or before[1] in (")", "]")
        if kind != "operator":
            continue
        if text in ("*", "/", "%", "++", "--", "+=", "-=", "*=", "/=", "%="):
            found.append((line, text))
        elif text == "-" and operand_before:
            found.append((line, "binary -"))
        elif text == "+" and ("number" in (before[0], after[0]) or before[1] in COUNTS
                              or _name_after(code, i) in COUNTS):
            found.append((line, "+ beside a number or a count"))
    for number, text in enumerate(_code_lines(source), start=1):
        found += [(number, match.group(1)) for match in NUMBER_MAKERS.finditer(text)]
    return found


def _name_after(code: list[tuple[str, str, int]], at: int) -> str:
    """The last name of the chain after ``at`` ("length" of ``+ s.notes.length``)."""
    last = ""
    for kind, text, _ in code[at + 1:]:
        if kind != "name" and text != ".":
            break
        last = text if kind == "name" else last
    return last


def _code_lines(source: str) -> list[str]:
    """The script's lines without strings, comments and regular expressions (a word in a message is no call)."""
    lines = [""] * (source.count("\n") + 2)
    for kind, text, line in tokens(source):
        if kind in ("string", "comment", "regex"):
            lines[line - 1] += " "
        else:
            lines[line - 1] += (" " if kind in ("name", "number") else "") + text
    return lines


def allowed(script: Path, line: int) -> bool:
    text = script.read_text(encoding="utf-8").splitlines()[line - 1]
    return any(name == script.name and code in text for name, code in ALLOWED)


# ------------------------------------------------------------------ the tests


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_a_script_holds_no_sentence_of_the_server(script):
    sentences = server_sentences()
    literals = [(normalised(text), line) for kind, text, line in tokens(script.read_text(encoding="utf-8"))
                if kind == "string"]
    copies = sorted({(line, sentence, sentences[sentence]) for literal, line in literals
                     for sentence in sentences if sentence in literal})
    assert not copies, "\n".join(f"{script.name}:{line}: {sentence!r} is the server's ({where})"
                                 for line, sentence, where in copies)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_a_script_computes_no_number(script):
    found = [(line, what) for line, what in arithmetic(script.read_text(encoding="utf-8"))
             if not allowed(script, line)]
    assert not found, "\n".join(f"{script.name}:{line}: {what}" for line, what in found)


def test_every_allowed_exception_is_still_in_its_script():
    for name, code in ALLOWED:
        assert code in (STATIC / name).read_text(encoding="utf-8"), (name, code)


# ------------------------------------------------------------------ the rules catch what they are for


@pytest.mark.parametrize("source, found", [
    ('el.textContent = Math.floor(ms / 1000) + " s";', {(1, "/"), (1, "Math.")}),
    ('var following = current + 1;', {(1, "+ beside a number or a count")}),
    ('count.textContent = scored.length + " scored";', {(1, "+ beside a number or a count")}),
    ('say("Notes: " + s.notes.length);', {(1, "+ beside a number or a count")}),
    ('text += " (+" + String(seconds % 60).padStart(2, "0") + ")";', {(1, "+="), (1, "%"), (1, "padStart")}),
    ('pending -= 1;', {(1, "-=")}),
    ('var spent = end - start;', {(1, "binary -")}),
    ('var s = at.slice(-1); if (/CSRF/i.test(error)) say("10 / 2 - 1");', set()),
    ('label = "card " + note.number; id = "err-" + field;', set()),
])
def test_the_arithmetic_rule(source, found):
    assert set(arithmetic(source)) == found


def test_the_sentence_rule():
    template = ('<p>You marked this: {{ "knew it" if mark else "did not know it" }}.</p>'
                '<button aria-label="Delete this note">Delete</button>{# a comment sentence #}')
    assert template_sentences(template) == {"you marked this", "knew it", "did not know it", "delete this note"}
    assert view_sentences('"""A docstring sentence."""\nSTATUS = {"waiting": "Not started"}\nf"{n} scored now"') == {
        "not started", "scored now"}
