"""Write the catalog's tables into AUTHORING.md, between their marker comments.

    python scripts/update_authoring_catalog.py

Each block sits between ``<!-- begin: quizapp models --markdown -->`` and
``<!-- end: quizapp models --markdown -->`` (the same for gpus) and holds what that command
prints. tests/calc/test_listings.py fails when the document and the catalog disagree.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from quizapp.calc.hardware.listings import GPU_COLUMNS, SOURCE_COLUMNS, gpu_rows, source_rows
from quizapp.calc.model.listings import MODEL_COLUMNS, markdown_table, model_rows

BLOCKS = {
    "quizapp models --markdown": lambda: markdown_table(model_rows(), MODEL_COLUMNS),
    "quizapp gpus --markdown": lambda: markdown_table(gpu_rows(), GPU_COLUMNS),
    "quizapp gpus --sources --markdown": lambda: markdown_table(source_rows(), SOURCE_COLUMNS),
}


def fill(text: str) -> str:
    for command, table in BLOCKS.items():
        pattern = re.compile(rf"(<!-- begin: {re.escape(command)} -->\n).*?(<!-- end: {re.escape(command)} -->)",
                             re.S)
        if not pattern.search(text):
            raise SystemExit(f"AUTHORING.md has no block for {command!r}")
        text = pattern.sub(lambda m: m[1] + table() + "\n" + m[2], text)
    return text


if __name__ == "__main__":
    doc = ROOT / "AUTHORING.md"
    doc.write_text(fill(doc.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"updated {doc.relative_to(ROOT)}")
