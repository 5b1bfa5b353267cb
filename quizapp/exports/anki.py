"""The question bank as an Anki deck (.apkg, written by genanki): one note per public card.

Each stage is a field, so an Anki user can style or hide any of them; the numbers are those of the
card's own scenario. Notes keep their identity across exports (the guid is the card id), so
importing a newer deck updates the notes instead of adding copies.
"""

from __future__ import annotations

import re
from pathlib import Path

import genanki

from ..cards import Bank, Card, CardView
from . import full_view

# Fixed ids: Anki recognises the same note type and deck on every import of a newer export.
MODEL_ID = 1_733_120_001
DECK_ID = 1_733_120_002
FIELDS = ["Question", "Short answer", "Full answer", "Follow-ups", "Wrong answers", "Taught in", "Card id"]
STYLE = ".card { font-family: sans-serif; max-width: 42em; margin: auto; text-align: left; }"
BACK = ("{{FrontSide}}<hr id=answer><h3>Short answer</h3>{{Short answer}}<h3>Full answer</h3>{{Full answer}}"
        "{{#Follow-ups}}<h3>Follow-ups</h3>{{Follow-ups}}{{/Follow-ups}}"
        "{{#Wrong answers}}<h3>Wrong answers</h3>{{Wrong answers}}{{/Wrong answers}}"
        "{{#Taught in}}<h3>Taught in</h3>{{Taught in}}{{/Taught in}}")

MODEL = genanki.Model(MODEL_ID, "quizapp card", fields=[{"name": name} for name in FIELDS],
                      templates=[{"name": "Card", "qfmt": "{{Question}}", "afmt": BACK}], css=STYLE)


def card_fields(view: CardView) -> list[str]:
    """The note's fields, in FIELDS order, from a fully revealed view of the card."""
    by_name = {s.name: s for s in view.stages}
    follow_ups = "".join(
        f"<h4>{s.level_label or s.level or 'Follow-up'}</h4>{s.question_html or ''}<p><b>Expected answer:</b></p>{s.html or ''}"
        for s in view.stages if s.name.startswith("followup-"))
    wrong = by_name.get("wrong")
    wrong_html = "".join(f"<li>{answer}<br><i>Why it is wrong:</i> {why}</li>" for answer, why in wrong.items) if wrong else ""
    return [view.question_html, _html(by_name.get("short")), _html(by_name.get("full")), follow_ups,
            f"<ul>{wrong_html}</ul>" if wrong_html else "", _html(by_name.get("taught")), view.card.id]


def _html(stage) -> str:
    return (stage.html or "") if stage else ""


def tags(card: Card) -> list[str]:
    """Anki tags from the card's roles and tags: one word each, spaces as underscores."""
    return [re.sub(r"\s+", "_", name.strip()) for name in [*card.roles, *card.tags] if name.strip()]


def note(card: Card) -> genanki.Note:
    return genanki.Note(model=MODEL, fields=card_fields(full_view(card)), tags=tags(card),
                        guid=genanki.guid_for("quizapp", card.id))


def write_deck(bank: Bank, out: Path, name: str = "quizapp: LLM inference") -> int:
    """Write the bank's public cards (not interview-only) to ``out`` as an .apkg; returns the note count."""
    deck = genanki.Deck(DECK_ID, name)
    public = bank.public()
    # The bank lists cards by their index entries; each is loaded (and checked) to be exported.
    cards = [card for card in (public.get(entry.id) for entry in public.sorted_cards()) if card is not None]
    for card in cards:
        deck.add_note(note(card))
    genanki.Package(deck).write_to_file(str(out))
    return len(cards)
