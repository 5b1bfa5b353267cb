"""An interview's report: per card the scenario (and each change of it mid-question), the stages
reached and when, the candidate's typed answer checked, scores, signals heard, notes and time; the
recommendation and its reason. One set of data feeds the page and the Markdown.

In the Markdown, text is escaped only where Markdown would read it as syntax (``md_escape``), so
"good." and "max_model_len" stay as typed while what people typed (the name, notes, the reason,
the scratch box) still cannot open a link, an image, HTML, emphasis or a table cell.
"""

from __future__ import annotations

import html
import re

from ...cards.rubric import level_of
from ...progress.clock import now_utc
from ...progress.interviews import RECOMMENDATIONS, Interview
from .answers import checked_answer
from .clock import duration, moment_text
from .scenario import changes_text, scenario_rows
from .state import Entry

# Anywhere in a line: code spans, emphasis, links and images, table cells, and a backslash that
# would escape what follows it.
ALWAYS = re.compile(r"[`*\[\]|]|\\(?=[!-/:-@\[-`{-~])")
# An underscore that is not inside a word (inside one, Markdown reads it as a letter: max_model_len).
UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
# A tag, a comment or an autolink, and a character reference: as the entities for "<" and "&".
TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
ENTITY = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
# Links made of bare addresses (GitHub's autolinks): the text stays, it is not a link.
AUTOLINK = re.compile(r"(?<=[A-Za-z])(:)(?=//)|(?<=www)(\.)|(?<=\w)(@)(?=\w)", re.IGNORECASE)
# Only at the start of a line: a heading, a quote, a list item, a line that underlines a heading.
LINE_START = re.compile(r"^(\s*)(#{1,6}(?=\s|$)|>|[-+](?=\s|$)|=+\s*$|-+\s*$)")
ORDERED = re.compile(r"^(\s*\d{1,9})([.)])(?=\s|$)")
# Strikethrough needs two tildes on a line (or a pair): a single one ("~37 users") stays.
STRIKE = re.compile(r"~(?=.*~)|(?<=~.)~|(?<=~)~")


def md_escape(text: str) -> str:
    """One line of text as Markdown that shows it exactly: only what Markdown (CommonMark, with
    GitHub's tables, strikethrough and autolinks) would read as syntax is escaped."""
    line = ALWAYS.sub(lambda m: "\\" + m.group(), text)
    line = UNDERSCORE.sub(r"\\_", line)
    line = TAG_START.sub("&lt;", ENTITY.sub("&amp;", line))
    line = AUTOLINK.sub(lambda m: "\\" + m.group(), line)
    line = STRIKE.sub(r"\\~", line)
    line = ORDERED.sub(r"\1\\\2", line)
    return LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), line)


def plain(fragment: str) -> str:
    """The text of an HTML fragment the card rendered (for the Markdown)."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment or "")).split())


def stage_title(entry: Entry, stage: str) -> str:
    if stage.startswith("followup-"):
        number = int(stage.split("-")[1])
        follow_up = entry.card.follow_ups[number - 1]
        return f"Follow-up {number} ({follow_up.level} {follow_up.label})"
    return {"short": "Short answer", "full": "Full answer", "wrong": "Wrong answers",
            "taught": "Where it is taught"}.get(stage, stage)


def report(session: Interview, cards: list[Entry]) -> dict:
    """What the report says, as data: the page's template and ``markdown`` read the same dict."""
    now = now_utc()
    since = session.started_at
    return {
        "candidate": session.candidate, "role": session.role, "created_at": moment_text(session.created_at, None),
        "started_at": moment_text(since, None), "ended_at": moment_text(session.ended_at, since),
        "date": session.created_at[:10], "duration": duration(session.elapsed_ms(now)),
        "ended": bool(session.ended_at),
        "recommendation": RECOMMENDATIONS.get(session.recommendation or "", "Not given"),
        "recommendation_key": session.recommendation, "reason": session.reason,
        "notes": [_note(n, since) for n in session.notes if n["card_id"] is None],
        "scratch": session.scratch,
        "cards": [_card(entry, session, since, now) for entry in cards],
    }


def _note(note: dict, since: str | None) -> dict:
    return {"at": moment_text(note["at"], since), "text": note["text"]}


def _card(entry: Entry, session: Interview, since: str | None, now) -> dict:
    record = entry.entry
    view = entry.view(entry.card.stage_names) if entry.card else None
    wrong = view.stage("wrong") if view else None
    signals = [{"name": f"wrong-{i}", "html": answer, "text": plain(answer), "at": moment_text(record.signals[
        f"wrong-{i}"], since)} for i, (answer, _why) in enumerate(wrong.items if wrong else [], start=1)
        if f"wrong-{i}" in record.signals]
    stages = []
    for stage in (entry.card.stage_names if entry.card else []):
        level = level_of(record.scores.get(stage))
        if stage in record.reveals or level:
            stages.append({"name": stage, "title": stage_title(entry, stage),
                           "reached": moment_text(record.reveals.get(stage), since),
                           "score": level.score if level else None, "level": level.name if level else None})
    return {
        "number": entry.number, "id": entry.id, "title": entry.title, "problem": entry.problem,
        "scenario": scenario_rows(entry), "time": duration(record.time_ms(now)), "stages": stages,
        "signals": signals, "notes": [_note(n, since) for n in session.notes if n["card_id"] == entry.id],
        "shown": bool(record.visits),
        "changes": [{"at": moment_text(change["at"], since), "text": changes_text(change["sent"])}
                    for change in record.changes],
        "typed": checked_answer(entry.card, entry.scenario, record.typed),
    }


def md_text(text: str) -> str:
    """Text someone typed, as Markdown that shows it exactly, its lines kept as hard line breaks."""
    lines = [md_escape(line.replace("\t", " ").strip()) for line in str(text).splitlines()]
    return "  \n".join(line for line in lines if line) or "—"


def md_authored(text: str) -> str:
    """Text from a card or the calculator, on one line, as Markdown that shows it exactly."""
    return md_escape(" ".join(str(text).split())) or "—"


def md_code(text: str) -> str:
    """A block of text shown as it was typed: an indented code block, each line indented, so no line
    can end it."""
    return "\n".join("    " + line for line in str(text).splitlines()) or "    (empty)"


def markdown(data: dict) -> str:
    """The report as a Markdown document to download."""
    out = [f"# Interview: {md_text(data['candidate'])}", ""]
    out += [f"- **Role:** {md_text(data['role'] or '—')}", f"- **Date:** {data['date']}",
            f"- **Started:** {data['started_at'] or 'not started'}", f"- **Ended:** {data['ended_at'] or 'not ended'}",
            f"- **Duration:** {data['duration']}"]
    out += ["", "## Recommendation", "", f"**{data['recommendation']}**", ""]
    if data["reason"]:
        out += [md_text(data["reason"]), ""]
    if data["notes"]:
        out += ["## Notes on the whole interview", ""]
        out += [f"- {note['at']}: {md_text(note['text'])}" for note in data["notes"]] + [""]
    for card in data["cards"]:
        out += _card_markdown(card)
    out += ["## The candidate's scratch box", "", md_code(data["scratch"]), ""]
    return "\n".join(out)


def _typed_markdown(typed: dict) -> list[str]:
    out = ["**The candidate's answer, checked:**", ""]
    if typed["divergence"]:
        out += [md_authored(typed["divergence"]), ""]
    out += [f"- Step {step['number']}, {md_authored(step['label'])}: {md_text(step['typed'])}. "
            f"{md_authored(step['message'])}" for step in typed["steps"]]
    if typed["answer"]:
        out.append(f"- The number: {md_text(typed['answer'])}. {md_authored(typed['message'])}")
    return out + [""]


def _score(stage: dict) -> str:
    return f"{stage['score']} {stage['level']}" if stage["score"] else "—"


def _card_markdown(card: dict) -> list[str]:
    out = [f"## {card['number']}. {md_authored(card['title'])}", ""]
    if card["problem"]:
        out += [f"*{md_authored(card['problem'])}*", ""]
    out += [f"- **{row['label']}:** {md_authored(row['value'])}" + (f" ({md_authored(row['source'])})"
                                                                     if row["source"] else "")
            for row in card["scenario"]]
    out += [f"- **Time on screen:** {card['time'] if card['shown'] else 'not shown'}", ""]
    if card["changes"]:
        out += ["**Scenario changed during the interview:**", ""]
        out += [f"- {change['at']}: {md_authored(change['text'])}" for change in card["changes"]] + [""]
    if card["typed"]:
        out += _typed_markdown(card["typed"])
    if card["stages"]:
        out += ["| Stage | Shown to the candidate | Score |", "|---|---|---|"]
        out += [f"| {md_authored(s['title'])} | {s['reached'] or 'not shown'} | {_score(s)} |" for s in card["stages"]]
        out.append("")
    out += ["**Wrong answers heard:**", ""]
    out += [f"- {md_authored(s['text'])} ({s['at']})" for s in card["signals"]] or ["- none ticked"]
    out.append("")
    if card["notes"]:
        out += ["**Notes:**", ""] + [f"- {n['at']}: {md_text(n['text'])}" for n in card["notes"]] + [""]
    return out
