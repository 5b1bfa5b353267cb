#!/usr/bin/env python3
"""Milliseconds per request in-process (Flask's test client, no server), for bench/run's requests.

Not a test and not bench/run: a quick look while changing a page or the write path, with the
bodies and headers bench/run sends (``bench/readers.py``), beside Flask's hello world under the
same client. Optionally a pyinstrument profile of one kind.

    .venv/bin/python bench/profile_requests.py                   # every kind, 300 requests each
    .venv/bin/python bench/profile_requests.py --profile event   # and pyinstrument's tree of one
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from readers import graded_attempts, one_long_attempt, seed_learner  # noqa: E402

from quizapp import create_app  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CARD = "kv-pool-users"
PAGE = f"/cards/{CARD}"
ORIGIN = "http://localhost"
CSRF_META = re.compile(r'<meta name="csrf-token" content="([^"]+)">')
SEEDED_EVENTS = 10_000


def new_client(app, learner: str | None = None):
    """A reader's browser: its cookie (a seeded learner's when given), and the CSRF token of the card page."""
    client = app.test_client()
    if learner:
        with client.session_transaction() as session:
            session["learner_id"] = learner
            session.permanent = True
    token = CSRF_META.search(client.get(PAGE).text).group(1)
    return client, token


def json_post_headers(token: str) -> dict:
    return {"Origin": ORIGIN, "Referer": ORIGIN + PAGE, "Sec-Fetch-Site": "same-origin", "X-CSRFToken": token}


def requests_of(app, kind: str, learners: dict):
    """A function that makes request number n of this kind (as bench/run.py makes it)."""
    if kind == "hello":
        client = app.test_client()
        return lambda n: client.get("/")
    if kind == "event":
        client, token = new_client(app)
        return lambda n: client.post("/api/progress/events", headers=json_post_headers(token), data=json.dumps(
            {"event_id": f"profile-event-{n:06d}", "card_id": CARD, "kind": "reveal", "stage": "short"}),
            content_type="application/json")
    if kind == "reveal":
        client, token = new_client(app)
        return lambda n: client.post(f"{PAGE}/reveal/short", headers={**json_post_headers(token),
                                                                      "Accept": "application/json"},
                                     data={"event_id": f"profile-reveal-{n:06d}"})
    if kind == "first_visit":
        return lambda n: app.test_client().get(PAGE)
    client, _ = new_client(app, learners.get(kind))
    if kind in PAGES:
        # A never-seen pool size counts up from bench/run's first (16,384 tokens, a valid pool).
        return lambda n: client.get(PAGES[kind].format(n=16_384 + n))
    if kind == "revealed":
        client.post(f"{PAGE}/reveal/short", headers=json_post_headers(_), data={"event_id": "profile-rev-once"})
    return lambda n: client.get(PAGE)


# Pages read by a returning reader; {n} is the request's number.
PAGES = {"bank": "/", "card": PAGE, "scenario": PAGE + "?pool_tokens={n}", "values": f"/api/cards/{CARD}/values"}
KINDS = ("hello", *PAGES, "first_visit", "event", "reveal", "revealed", "long_attempt", "history")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--profile", choices=KINDS, help="print pyinstrument's profile of this kind")
    parser.add_argument("--only", choices=KINDS, action="append", help="time only these kinds")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db_path = Path(folder) / "profile.sqlite"
        app = create_app({"DATABASE": str(db_path), "QUESTIONS_DIR": str(ROOT / "questions")})
        from hello import app as hello_app
        card_ids = sorted(m.group(1) for p in (ROOT / "questions").glob("*.md")
                          if (m := re.search(r"^id:\s*(\S+)", p.read_text(encoding="utf-8"), re.MULTILINE)))
        kinds = args.only or ([args.profile] if args.profile else KINDS)
        learners = {}
        if "history" in kinds:
            learners["history"] = seed_learner(db_path, graded_attempts(card_ids, SEEDED_EVENTS), timedelta(days=400))
        if "long_attempt" in kinds:
            learners["long_attempt"] = seed_learner(db_path, one_long_attempt(CARD, ["short"], SEEDED_EVENTS),
                                                    timedelta(hours=1))
        for kind in kinds:
            make = requests_of(hello_app if kind == "hello" else app, kind, learners)
            make(0)  # warm the caches: the card's render, the scenario
            profiler = None
            if kind == args.profile:
                from pyinstrument import Profiler
                profiler = Profiler(interval=0.0002)
                profiler.start()
            began = time.process_time()
            for n in range(1, args.requests + 1):
                response = make(n)
                assert response.status_code < 400, (kind, response.status_code, response.text[:300])
            elapsed = time.process_time() - began
            if profiler:
                profiler.stop()
            print(f"{kind:14} {1000 * elapsed / args.requests:7.2f} ms of CPU per request")
            if profiler:
                print(profiler.output_text(unicode=True, color=False, show_all=False))


if __name__ == "__main__":
    main()
