"""``quizapp new``: a new card's file with every section in place."""

from __future__ import annotations

from pathlib import Path

import click

from .errors import fail


@click.command()
@click.argument("title")
@click.option("--id", "card_id", default=None, help="the card's id and file name (default: from the title)")
@click.option("--from", "from_id", default=None, metavar="ID",
              help="copy the scenario, space and variants of the card with this id")
@click.option("--topic", default=None, metavar="TOPIC",
              help="the card's topic id (AUTHORING.md, Topics; default: that of --from, else left blank)")
@click.option("--questions", "questions_dir", default="questions", show_default=True, type=click.Path(path_type=Path),
              help="folder of question cards")
def new(title, card_id, from_id, topic, questions_dir):
    """Write a new card, QUESTIONS/ID.md, with every section in place and a comment saying what
    goes where. It passes quizapp check as it is. An existing file is never overwritten."""
    from ..calc import did_you_mean
    from ..cards.new_card import card_id_from_title, find_card_file, front_matter_blocks, stub_text, topic_of_file, \
        valid_id
    from ..cards.topics import TOPIC_IDS

    card_id = card_id or card_id_from_title(title)
    if not valid_id(card_id):
        fail(f"id {card_id!r} must be lowercase letters, digits and dashes; give one with --id")
    if topic is not None and topic not in TOPIC_IDS:
        fail(f"unknown topic {topic!r}; " + (did_you_mean(topic, TOPIC_IDS) or f"topics are {', '.join(TOPIC_IDS)}"))
    path = questions_dir / f"{card_id}.md"
    if path.exists():
        fail(f"{path} already exists; give another --id, or edit that card")
    copied = None
    if from_id:
        source = find_card_file(questions_dir, from_id) if questions_dir.is_dir() else None
        if source is None:
            fail(f"there is no card {from_id!r} in {questions_dir}")
        copied = front_matter_blocks(source)
        topic = topic or topic_of_file(source)
    questions_dir.mkdir(parents=True, exist_ok=True)
    path.write_text(stub_text(card_id, title, str(path), copied, topic), encoding="utf-8")
    click.echo(f"wrote {path}; check it with: quizapp check {path}")
