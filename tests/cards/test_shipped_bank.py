"""The shipped bank (questions/) as a whole, issue 20: each idea taught once.

No two cards answer with the same calculator value under the same scenario (their own, or any of
their variants'), the four groups the issue names are merged (their old ids are ``replaces`` of
the cards that took their content, none a live id), and every figure of seed 000 that the bank
taught before the merge is still taught. The figures are the seed's text, not the calculator's:
the test reads the rendered cards (every stage, every variant) for them."""

from __future__ import annotations

import html
import re
from itertools import combinations

import pytest

from quizapp import create_app
from quizapp.cards.bank import load_files
from quizapp.cards.check.run import check_files
from quizapp.cards.scenario import resolve_scenario

from tests.paths import QUESTIONS

# The four groups of cards that repeated each other, and the card each now lives in.
MERGED = {
    "kv-heads-tensor-parallel": "kv-log-figures-under-tensor-parallelism",
    "kv-mla-vs-gqa": "kv-log-figures-under-tensor-parallelism",
    "kv-bytes-per-token-sets-the-pool": "measured-vs-published-bytes-per-token",
    "kv-pool-tokens-for-seats": "kv-pool-users",
    "reading-the-kv-startup-lines": "kv-pool-users",
    "kv-pool-pin-or-fraction": "kv-pin-start-check",
    "unified-memory-pin-from-warm-up": "deepseek-v4-flash-spark-pins",
}
# Seed 000's figures (/work/shared/seeds/000_0d66b2ca2e932d5e.txt, copied here as text) that a
# rendered card of the bank showed before the merge (main at f66cea3).
SEED_000_FIGURES = [
    "5,987", "55,011", "181,777", "36,860", "21,502", "16,392", "6,973", "465,073", "13,952", "290,858",
    "1.39", "2.22", "3.9", "12.7", "7.9", "4.8", "115.1", "114.5", "10e9", "16e9", "30.85", "31.36", "0.9837",
    "0.98", "0.99", "7.92", "8,501,810,176", "1,708,119", "1,752,822", "1,791,558", "6.52", "262,144",
    "131,072", "14.90", "9.31",
]


@pytest.fixture(scope="module")
def bank():
    cards, diagnostics = load_files(sorted(QUESTIONS.glob("*.md")))
    assert not [d for d in diagnostics if d.severity == "error"]
    return cards


def answered(card):
    """(answer value, scenario key, where) for the card's own scenario and each variant."""
    for variant in [None, *range(len(card.variants))]:
        scenario = resolve_scenario(card, variant, {})
        yield card.answer["value"], scenario.key, "own scenario" if variant is None else card.variants[variant].name


def clashes(cards) -> list[str]:
    """Each pair of cards that answer with one value under one scenario."""
    seen: dict[tuple[str, str], str] = {}
    found = []
    for card in cards.values():
        if card.answer is None:
            continue
        for value, key, where in answered(card):
            other = seen.get((value, key))
            if other is not None and not other.startswith(card.id + " "):
                found.append(f"{card.id} ({where}) and {other}: {value} under {key}")
            seen.setdefault((value, key), f"{card.id} ({where})")
    return found


def test_no_two_cards_answer_with_the_same_value_under_the_same_scenario(bank):
    assert clashes(bank) == []


def test_a_card_that_asks_what_another_asks_is_found(tmp_path):
    # The DGX Spark card's own scenario is the 10e9 B pin; a copy whose own scenario is the same
    # and whose answer is the same value clashes with it, whatever its words.
    text = (QUESTIONS / "deepseek-v4-flash-spark-pins.md").read_text(encoding="utf-8")
    copy = tmp_path / "copy.md"
    copy.write_text(text.replace("\nid: deepseek-v4-flash-spark-pins\n", "\nid: copy\n", 1)
                    .replace("\nreplaces: [unified-memory-pin-from-warm-up]\n", "\n", 1), encoding="utf-8")
    cards, _ = load_files([QUESTIONS / "deepseek-v4-flash-spark-pins.md", copy])
    assert len(cards) == 2 and len(clashes(cards)) == 2  # the own scenario and the variant


def test_the_merged_groups_live_in_their_successors(bank):
    for old, successor in MERGED.items():
        assert old not in bank, f"{old} is still a card"
        assert old in bank[successor].replaces, f"{successor} does not replace {old}"
    aliases = {old for card in bank.values() for old in card.replaces}
    assert not aliases & set(bank)
    _, diagnostics = check_files(sorted(QUESTIONS.glob("*.md")), workers=1)
    assert [d for d in diagnostics if "replaces" in d.message] == []


def test_every_card_that_stayed_has_a_rubric(bank):
    stayed = ["bytes-per-token-from-a-log", "deepseek-v4-flash-spark-pins", "kv-bytes-per-token", "kv-fp8-cache",
              "kv-log-figures-under-tensor-parallelism", "kv-max-model-len-refusal", "kv-pin-start-check",
              "kv-pool-users", "kv-sliding-window-concurrency", "measured-vs-published-bytes-per-token",
              "speculative-decoding-shares-the-pool"]
    assert [card_id for card_id in stayed if not bank[card_id].rubric] == []


def test_every_figure_of_seed_000_the_bank_taught_is_still_taught(tmp_path, bank):
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "db.sqlite"), "QUESTIONS_DIR": str(QUESTIONS)})
    client = app.test_client()
    text = []
    for card in bank.values():
        for variant in [None, *range(len(card.variants))]:
            page = client.get(f"/author/cards/{card.id}" + ("" if variant is None else f"?variant={variant}"))
            assert page.status_code == 200, (card.id, variant)
            text.append(html.unescape(re.sub(r"<[^>]+>", " ", page.text)))
    taught = " ".join(" ".join(text).split())
    missing = [f for f in SEED_000_FIGURES
               if not re.search(r"(?<![\d.,])" + re.escape(f) + r"(?![\d]|[.,]\d)", taught)]
    assert missing == []
