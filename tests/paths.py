"""Where the tests' files are, named once: tests move between folders, these files do not."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
LOGS = TESTS / "calc" / "data" / "logs"
STATIC = ROOT / "static"
QUESTIONS = ROOT / "questions"
AUTHORING = ROOT / "AUTHORING.md"
