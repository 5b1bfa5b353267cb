"""Record what the app prints and serves, so a refactor can be checked to change none of it.

    .venv/bin/python scripts/golden_outputs.py OUT_DIR

writes one file per output: `quizapp calc --json` for every catalog model alone and on each
of a few GPUs, `quizapp check questions`, `quizapp read-log --json` on every log under
`tests/`, the author preview of every card with every stage for its own scenario and each
variant, and the values API of every card. Run it before and after a change and
`diff -r BEFORE AFTER`: an empty diff means the change kept behaviour.

Pages carry a per-request CSRF token and a static file's version; those are blanked.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUIZAPP = [str(ROOT / ".venv/bin/quizapp")]
GPUS = ["L4", "H100-80GB-SXM", "DGX-Spark"]


def run(args: list[str]) -> str:
    done = subprocess.run(QUIZAPP + args, capture_output=True, text=True, cwd=ROOT)
    return f"exit {done.returncode}\n--- stdout\n{done.stdout}--- stderr\n{done.stderr}"


def safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


def blank_volatile(text: str) -> str:
    text = re.sub(r'name="csrf_token"[^>]*value="[^"]*"', 'name="csrf_token" value=""', text)
    text = re.sub(r'content="[A-Za-z0-9._-]{40,}"', 'content=""', text)
    return re.sub(r"\?v=[0-9a-f]+", "?v=", text)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT))
    from quizapp import create_app
    from quizapp.calc import model_entries

    ids = [entry["id"] for entry in model_entries()]
    for model in ids:
        (out / f"calc-{safe(model)}.txt").write_text(run(["calc", "--model", model, "--pool-tokens", "24096",
                                                          "--json"]))
        for gpu in GPUS:
            (out / f"calc-{safe(model)}-{gpu}.txt").write_text(run(["calc", "--model", model, "--gpu", gpu,
                                                                     "--json"]))
    (out / "check-questions.txt").write_text(run(["check", "questions"]))
    for log in sorted((ROOT / "tests").rglob("*.log")):
        (out / f"read-log-{safe(log.name)}.txt").write_text(run(["read-log", "--json", str(log)]))

    app = create_app({"TESTING": True, "DATABASE": str(out / "golden.sqlite"), "AUTHOR_TOOLS": True})
    client = app.test_client()
    with app.app_context():
        from quizapp.web.storage import get_bank
        cards = get_bank().sorted_cards()
    for card in cards:
        queries = [""] + [f"?variant={i}" for i in range(len(card.variants))]
        for query in queries:
            tag = safe(card.id + query)
            page = client.get(f"/author/cards/{card.id}{query}")
            (out / f"preview-{tag}.html").write_text(f"{page.status_code}\n{blank_volatile(page.text)}")
            values = client.get(f"/api/cards/{card.id}/values{query}")
            (out / f"values-{tag}.json").write_text(f"{values.status_code}\n{values.text}")
    (out / "golden.sqlite").unlink(missing_ok=True)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: golden_outputs.py OUT_DIR")
    main(Path(sys.argv[1]))
