"""A new card's file: every part of the format in place, each with a comment saying what goes there.

``quizapp new`` writes it as a draft (``draft: true``): it passes ``quizapp check`` as it is,
with the draft's warning, so an author starts from a card that loads and changes one part at a
time, and no reader meets its TODOs; removing the line publishes it once no TODO is left. With ``--from``, the scenario, space
and variants are copied from another card's front matter, comments and all.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

from .load.front_matter import ID_PATTERN
from .load.sections import SECTIONS
from .topics import TOPIC_IDS

# The keys --from copies, in the order the stub writes them.
COPIED_KEYS = ("scenario", "space", "variants")

HEADER = """\
---
# A new card. Replace each TODO, then remove draft: true and run: quizapp check {path}
# AUTHORING.md describes every key and section; quizapp models and quizapp gpus list the ids.
id: {id}
title: {title}
# A draft is on the /author/ page only: not in the bank, practice, print or the Anki export.
draft: true
# Who the card is for, and what it is about.
roles: [Inference Engineering]
tags: []
# The card's topic, one of: {topics} (AUTHORING.md, Topics).
# A draft may leave it blank; a published card must name one.
topic: {topic}
# Where practice brings the card among new ones: beginner, intermediate or advanced (then order: 1, 2 …).
level: beginner
"""

# The stub's own scenario, space and variants: a uniform-attention model with a pinned pool.
OWN_SCENARIO = {
    "scenario": """\
# The calculator inputs the card's numbers come from (AUTHORING.md, Inputs).
scenario:
  model: Qwen/Qwen3-8B
  max_model_len: 8192
  kv_cache_memory_bytes: 10e9
""",
    "space": """\
# What a reader may change: the models (or attention kinds) and inputs the prose is true for.
space:
  attention: [uniform]
  inputs: [model, kv_cache_dtype, max_model_len, pool]
""",
    "variants": """\
# Named alternative scenarios: a name, then the inputs that change.
variants:
  - name: Llama 3.1 8B
    model: meta-llama/Llama-3.1-8B-Instruct
""",
}

FOOTER = """\
# The calculator value a typed answer is checked against (AUTHORING.md, Answer), e.g.
# answer:
#   value: pool_tokens
#   tolerance: 0.01
# Where the topic is taught: a title and a link (https://, http:// or /).
taught_in: []
---
"""

# What goes in each section, by heading (the SECTIONS table), and its stub text.
SECTION_STUBS = {
    "Question": ("The question, as an interviewer asks it. Write every number the calculator "
                 "produces as an expression (AUTHORING.md, Expressions), so it follows the reader's scenario.",
                 "TODO: the question. A number is an expression: one token takes {{ kv_bytes_per_token | kib }} "
                 "in this scenario."),
    "Short answer": ("The answer in a few sentences: what a candidate should say first.",
                     "TODO: the short answer."),
    "Full answer": ("The whole answer, with its arithmetic. ### headings inside it are subheadings.",
                    "TODO: the full answer."),
    "Follow-ups": ("One '### L2 Label: the question?' heading per follow-up (level L1, L2 or L3), "
                   "then the answer the interviewer expects.",
                   "### L2 Working: TODO a follow-up question?\n\nTODO: the expected answer.\n\n"
                   "### L3 Senior: TODO a harder follow-up?\n\nTODO: the expected answer."),
    "Wrong answers": ("One '### the wrong answer' heading per answer interviewers hear, then why it is wrong.",
                      "### TODO a wrong answer\n\nTODO: why it is wrong.\n\n"
                      "### TODO another wrong answer\n\nTODO: why it is wrong."),
    "Taught in": ("Where the topic is taught; the taught_in links of the front matter are listed after it.",
                  "TODO: where it is taught."),
}


def card_id_from_title(title: str) -> str:
    """'Pin vs fraction: which one?' → 'pin-vs-fraction-which-one' (may be empty)."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:80].strip("-")


def valid_id(card_id: str) -> bool:
    return bool(ID_PATTERN.match(card_id))


def stub_text(card_id: str, title: str, shown_path: str, copied: dict[str, str] | None = None,
              topic: str | None = None) -> str:
    """The new card's text. ``copied`` holds the front-matter blocks taken from another card (by
    key); without it the stub has a scenario, space and variants of its own. ``topic``: a
    topics.TOPICS id, or None for a blank ``topic:`` line."""
    blocks = OWN_SCENARIO if copied is None else copied
    front = HEADER.format(path=shown_path, id=card_id, title=json.dumps(title, ensure_ascii=False),
                          topics=", ".join(TOPIC_IDS), topic=topic or "")
    front += "".join(blocks[key] for key in COPIED_KEYS if key in blocks) + FOOTER
    sections = []
    for section in SECTIONS:
        comment, stub = SECTION_STUBS[section.heading]
        comment = textwrap.fill(comment, width=100, initial_indent="<!-- ", subsequent_indent="     ")
        sections.append(f"## {section.heading}\n\n{comment} -->\n{stub}\n")
    return front + "\n" + "\n".join(sections)


def topic_of_file(path: Path) -> str | None:
    """The ``topic:`` a card file's front matter writes, as text (None without one)."""
    found = re.search(r"^topic:[ \t]*['\"]?([a-z0-9-]+)['\"]?[ \t]*$", path.read_text(encoding="utf-8"), re.M)
    return found[1] if found else None


def front_matter_blocks(path: Path, keys=COPIED_KEYS) -> dict[str, str]:
    """The text of each top-level front-matter key of a card file, with the comment lines just
    above it: 'scenario:' and its indented lines, as the author wrote them."""
    lines = path.read_text(encoding="utf-8").splitlines()
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), len(lines))
    front = lines[1:end]
    blocks = {}
    for index, line in enumerate(front):
        key = re.match(r"^([A-Za-z_][\w-]*)\s*:", line)
        if not key or key[1] not in keys:
            continue
        start = index
        while start > 0 and front[start - 1].startswith("#"):
            start -= 1
        stop = index + 1
        while stop < len(front) and (not front[stop].strip() or front[stop][0] in " \t-"):
            stop += 1
        blocks[key[1]] = "\n".join(front[start:stop]).rstrip() + "\n"
    return blocks


def find_card_file(folder: Path, card_id: str) -> Path | None:
    """The file of the card with this id: <id>.md, else the file whose front matter says id: <id>."""
    named = folder / f"{card_id}.md"
    if named.is_file():
        return named
    pattern = re.compile(rf"^id:\s*['\"]?{re.escape(card_id)}['\"]?\s*$", re.M)
    return next((path for path in sorted(folder.glob("*.md"))
                 if pattern.search(path.read_text(encoding="utf-8", errors="replace"))), None)
