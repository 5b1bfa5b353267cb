"""An interview's report: per card the scenario, the stages reached and when, scores, signals heard,
notes and time; the recommendation and its reason. One set of data feeds the page and the Markdown.

In the Markdown, everything that people typed (the name, notes, the reason, the scratch box) is
escaped character by character, so it stays text: it cannot open a link, an image or HTML.
"""

from __future__ import annotations

import html
import re

from ...cards.rubric import level_of
from ...progress.clock import now_utc
from ...progress.interviews import RECOMMENDATIONS, Interview
from .clock import duration, moment_text
from .state import Entry, scenario_rows

# Every ASCII punctuation character that Markdown (CommonMark and GitHub's) gives a meaning:
# links, images, HTML, autolinks (":", "@", "www."), emphasis, code, lists, headings, tables.
# A backslash before any of them makes it plain text. (",;'\"?/%" mean nothing and stay.)
MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]<>()#+\-.!|~:&@=^$])")
# In text that authors wrote (titles, wrong answers, the scenario), only what could make a link,
# an image, HTML, emphasis or a table cell.
MARKDOWN_SYNTAX = re.compile(r"([\\`*_\[\]<>()!|#~&])")


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
    }


def md_text(text: str) -> str:
    """Text someone typed, as Markdown that shows it exactly: every punctuation character escaped,
    lines kept as hard line breaks."""
    lines = [MARKDOWN_PUNCTUATION.sub(r"\\\1", line).replace("\t", " ") for line in str(text).splitlines()]
    return "  \n".join(line.lstrip() for line in lines) or "—"


def md_authored(text: str) -> str:
    """Text from a card or the calculator, with what could be Markdown syntax escaped."""
    return MARKDOWN_SYNTAX.sub(r"\\\1", " ".join(str(text).split())) or "—"


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


def _score(stage: dict) -> str:
    return f"{stage['score']} {stage['level']}" if stage["score"] else "—"


def _card_markdown(card: dict) -> list[str]:
    out = [f"## {card['number']}. {md_authored(card['title'])}", ""]
    if card["problem"]:
        out += [f"*{md_authored(card['problem'])}*", ""]
    out += [f"- **{label}:** {md_authored(value)}" for label, value in card["scenario"]]
    out += [f"- **Time on screen:** {card['time'] if card['shown'] else 'not shown'}", ""]
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
