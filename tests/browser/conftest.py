"""Fixtures for the browser tests: a live quizapp server and Debian's Chromium.

The tests drive /usr/bin/chromium through pytest-playwright. Playwright must never download
a browser: when Chromium is missing the tests fail (scripts/test installs it).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext, expect
from werkzeug.serving import make_server

from quizapp import create_app

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# Fail fast: a broken page should fail in seconds, not after Playwright's 30 s default.
ACTION_TIMEOUT_MS = 10_000
expect.set_options(timeout=5_000)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    """pytest-playwright's launch options, pointed at Debian's Chromium."""
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        pytest.fail(
            f"The browser tests need Chromium at {CHROMIUM}, and it is missing or not executable. "
            "Install it with `apt-get install chromium` (scripts/test does this). "
            "Do not run `playwright install`: these tests never use a downloaded browser.",
            pytrace=False,
        )
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": [*browser_type_launch_args.get("args", []), *CHROMIUM_ARGS],
    }


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app served over HTTP on a free local port, for the whole session; yields its base URL.

    Reader state (revealed stages, typed answer) lives in the session cookie, so one server
    serves every test; each test's fresh browser context starts with no cookie.
    """
    db = tmp_path_factory.mktemp("browser-db") / "db.sqlite"
    app = create_app({"TESTING": True, "DATABASE": str(db)})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="quizapp-live-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(scope="session")
def base_url(live_server: str) -> str:
    """pytest-playwright passes this to every new context, so page.goto("/cards/...") works."""
    return live_server


@pytest.fixture
def context(new_context) -> BrowserContext:
    """A fresh context (no cookies, so nothing revealed) per test, with short timeouts."""
    ctx = new_context()
    ctx.set_default_timeout(ACTION_TIMEOUT_MS)
    return ctx
