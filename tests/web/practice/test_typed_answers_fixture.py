"""Every case of tests/fixtures/typed-answers.json gets its verdict through the real web flow: the
card page in the case's scenario, the typed number sent with the short answer's reveal, the verdict
read back from what is stored.

The fixture is a copy of ../shared/fixtures/typed-answers.json. It names the shipped cards, so
these tests run on questions/: the verdicts are what a reader of the shipped bank gets.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.paths import ROOT
FIXTURE = json.loads((ROOT / "tests" / "fixtures" / "typed-answers.json").read_text(encoding="utf-8"))
CASES = FIXTURE["cases"]
SHIPPED = ROOT / "questions"


@pytest.fixture
def questions_dir() -> Path:
    return SHIPPED


def case_id(case: dict) -> str:
    return f"{case['card']}?{case['query']}:{case['input']}"


def test_the_fixture_names_cards_of_the_shipped_bank_and_every_verdict():
    assert {case["card"] for case in CASES} <= {path.stem for path in SHIPPED.glob("*.md")}
    assert {case["verdict"] for case in CASES} == {"right", "close", "wrong", "mistake", "unreadable"}


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_every_fixture_case_gets_its_verdict(reader, case):
    query = f"?{case['query']}" if case["query"] else ""
    assert reader.open(query, card=case["card"]).status_code == 200
    page = reader.reveal("short", query, card=case["card"], answer=case["input"]).text

    [stored] = reader.stored_answers()
    assert stored["value"] == case["input"]
    assert stored["detail"]["verdict"] == case["verdict"], stored["detail"]["message"]
    assert (stored["detail"].get("mistake") or {}).get("name") == case.get("mistake")
    shown = reader.feedback(page)
    assert shown["verdict"] == case["verdict"]
    if case["verdict"] == "unreadable":
        assert "nothing was checked" in shown["message"].lower()
        assert "expected" not in stored["detail"] and "derivation" not in stored["detail"]
    else:
        assert shown["headline"].startswith("Checked for ")
