"""A worker's memory after ten large imports stays within 50 MB of where it started (issue 21:
one worker grew from 66 MB to 240 MB over 11 imports of ~99,000 rows and stayed there)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# In a process of its own, so the figure is one process's resident memory, as a worker's is.
SCRIPT = r"""
import re, sys, tempfile
from io import BytesIO
sys.path.insert(0, sys.argv[1])
from quizapp import create_app
from quizapp.progress import transfer
from tests.web.conftest import QUESTIONS_DIR

def rss_mb():
    return int(re.search(r"VmRSS:\s+(\d+)", open("/proc/self/status").read()).group(1)) / 1024

folder = tempfile.mkdtemp()
app = create_app({"TESTING": True, "DATABASE": folder + "/t.sqlite", "QUESTIONS_DIR": str(QUESTIONS_DIR),
                  "WTF_CSRF_ENABLED": False})
client = app.test_client()
client.get("/cards/kv-pool-users")
start = rss_mb()
for k in range(10):
    rows = [{"event_id": f"evt-mem-{k}-{n:06d}", "card_id": "kv-pool-users", "kind": "answer", "stage": "short",
             "value": "about 1,800 users", "detail": None, "scenario": None, "at": "2026-01-01T00:00:00+00:00"}
            for n in range(int(sys.argv[2]))]
    body = transfer.dumps({"format": "quizapp-progress", "version": 1, "learner": {}, "events": rows,
                           "review_log": []}).encode()
    del rows
    client = app.test_client()  # each import into a new profile, as ten readers would
    page = client.post("/me/import", data={"file": (BytesIO(body), "x.json")}, follow_redirects=True).text
    assert "Imported " in page and "Nothing imported" not in page, page[-2000:]
    del body, page
print(start, rss_mb())
"""


def test_ten_large_imports_leave_memory_within_50_mb_of_the_start():
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT), "60000"], capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    start, end = map(float, done.stdout.split())
    assert end - start < 50, f"{start:.0f} MB at start, {end:.0f} MB after ten imports"
