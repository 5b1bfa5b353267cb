"""The machinery of bench/run.py: servers of our own, one-off HTTP requests, and wrk runs.

Everything here is bounded in time and talks to 127.0.0.1 only. A server runs in its own
process group, so stopping it stops its workers too, whatever happens to the benchmark.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


# --- one request at a time (probes, first visits, warm-ups) ---------------------------------

@dataclass
class Response:
    status: int
    headers: list[tuple[str, str]]
    body: bytes

    def header_values(self, name: str) -> list[str]:
        return [v for k, v in self.headers if k.lower() == name.lower()]

    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


def request(port: int, method: str, path: str, headers: dict | None = None, body: str | None = None,
            timeout: float = 10.0) -> Response:
    """One request on a new connection; raises OSError or HTTPException when it cannot complete."""
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request(method, path, body=body.encode() if body is not None else None,
                     headers={**(headers or {}), "Connection": "close"})
        response = conn.getresponse()
        return Response(response.status, response.getheaders(), response.read())
    finally:
        conn.close()


def cookie_from(response: Response, name: str) -> str | None:
    """The value a response sets for cookie ``name``, if it sets one."""
    for header in response.header_values("Set-Cookie"):
        match = re.match(rf"\s*{re.escape(name)}=([^;]*)", header)
        if match and match.group(1):
            return match.group(1)
    return None


# --- a server of our own ----------------------------------------------------------------------

class Server:
    """A gunicorn server started from ``command`` (which must bind to ``port``), in its own process group."""

    def __init__(self, name: str, command: list[str], port: int, workdir: Path, env: dict, cwd: Path):
        self.name, self.port = name, port
        self.log = workdir / f"{name}.log"
        self.started = time.monotonic()
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         env=env, cwd=str(cwd), start_new_session=True)

    def wait_ready(self, path: str, limit_s: float) -> float | None:
        """Seconds from the start to the first 2xx answer on ``path``; None when not within ``limit_s``."""
        deadline = self.started + limit_s
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                response = request(self.port, "GET", path, timeout=max(0.1, deadline - time.monotonic()))
                if 200 <= response.status < 300:
                    return time.monotonic() - self.started
            except (OSError, http.client.HTTPException):
                pass
            time.sleep(0.05)
        return None

    def worker_pids(self) -> list[int]:
        """The gunicorn workers: the children of the master (our process)."""
        pids = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                # Field 4 of /proc/PID/stat is the parent; the name (field 2) may hold spaces.
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == self.proc.pid:
                pids.append(int(entry.name))
        return sorted(pids)

    def worker_rss_mb(self) -> list[float]:
        """Resident memory (VmRSS) of each worker, in MB."""
        sizes = []
        for pid in self.worker_pids():
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            match = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
            if match:
                sizes.append(round(int(match.group(1)) / 1024, 1))
        return sizes

    def log_problems(self) -> list[str]:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return [m for m in ("database is locked", "Traceback", "WORKER TIMEOUT") if m in text]

    def stop(self, grace_s: float = 8) -> None:
        """SIGTERM to the whole group, SIGKILL after ``grace_s``; returns when it is gone."""
        for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5)):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + wait_s
            while time.monotonic() < deadline and _group_alive(self.proc.pid):
                self.proc.poll()
                time.sleep(0.05)
            if not _group_alive(self.proc.pid):
                break
        self.proc.poll()


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def run_bounded(command: list[str], limit_s: float, cwd: Path, env: dict, log: Path) -> tuple[float, int | None]:
    """Run a command for at most ``limit_s``: (seconds, exit code), the code None when it was stopped."""
    began = time.monotonic()
    with open(log, "wb") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                cwd=str(cwd), env=env, start_new_session=True)
    try:
        code = proc.wait(timeout=limit_s)
    except subprocess.TimeoutExpired:
        code = None
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return time.monotonic() - began, code


# --- how busy the machine was with other work -----------------------------------------------

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _machine_idle_ticks() -> int:
    """CPU time the whole machine spent idle (iowait included)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return fields[3] + fields[4]


def _machine_busy_ticks() -> int:
    """CPU time used on the whole machine, steal (other VMs on the host) included; idle and iowait not."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    return user + nice + system + irq + softirq + steal


def _group_ticks(groups: list[int]) -> int:
    """CPU time of the live processes in these process groups (our servers and their workers)."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            after_name = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(after_name[2]) in groups:  # pgrp; utime and stime follow at 11 and 12
            total += int(after_name[11]) + int(after_name[12])
    return total


def _own_ticks() -> float:
    """CPU time of this process and of the children it has waited for (wrk, quizapp check)."""
    times = os.times()
    return (times.user + times.system + times.children_user + times.children_system) * CLOCK_TICKS


class CpuWatch:
    """The share of the machine's CPU that went to other work between start and ``others_share()``.

    Ours: this process, the children it waited for, and the live processes of ``groups``. Do not
    stop one of those servers inside the window: its time would be counted twice.
    """

    def __init__(self, groups: list[int]):
        self.groups = groups
        self.began = time.monotonic()
        self.busy, self.ours = _machine_busy_ticks(), _group_ticks(groups) + _own_ticks()
        self.idle = _machine_idle_ticks()

    def _capacity(self) -> float:
        return (time.monotonic() - self.began) * (os.cpu_count() or 1) * CLOCK_TICKS

    def idle_share(self) -> float:
        """The share of the CPUs that sat idle: high while wrk keeps 10 connections busy means the
        server left a core unused (its workers are one Python process each, one core at most, and
        wrk's keep-alive connections fall between them as the kernel hands them out)."""
        capacity = self._capacity()
        return max(0.0, _machine_idle_ticks() - self.idle) / capacity if capacity else 0.0

    def others_share(self) -> float:
        busy, ours = _machine_busy_ticks(), _group_ticks(self.groups) + _own_ticks()
        capacity = self._capacity()
        return max(0.0, (busy - self.busy) - (ours - self.ours)) / capacity if capacity else 0.0


# --- wrk --------------------------------------------------------------------------------------

@dataclass
class Load:
    """One request shape for wrk. ``{n}`` in the path or the body becomes a number unique to each request."""

    method: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    body: str | None = None
    first_n: int = 1  # the number the first request gets
    count_statuses: bool = False  # count 2xx and 201 answers (costs wrk a body parse per response)

    def with_n(self, n: int) -> tuple[str, str | None]:
        """The path and body of the request numbered ``n`` (for a probe before the run)."""
        body = self.body.replace("{n}", str(n)) if self.body is not None else None
        return self.path.replace("{n}", str(n)), body


@dataclass
class Figure:
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    errors: dict[str, int]  # connect, read, write, timeout, and "status": answers other than 2xx/3xx
    answered_2xx: int | None = None
    answered_201: int | None = None
    others_cpu: float = 0.0  # share of the machine's CPU that other work took during the run
    idle_cpu: float = 0.0  # share of the machine's CPU left idle during the run

    @property
    def per_second(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())


def lua_string(text: str) -> str:
    if not text.isascii():
        raise ValueError(f"wrk scripts here are ASCII only: {text[:60]!r}")
    return json.dumps(text)  # an ASCII JSON string is a valid Lua string


def lua_script(load: Load) -> str:
    """A wrk script: the request (numbered when it holds ``{n}``) and one JSON line of results."""
    headers = ", ".join(f"[{lua_string(k)}] = {lua_string(v)}" for k, v in load.headers.items())
    body = lua_string(load.body) if load.body is not None else "nil"
    counting = """
ok, created = 0, 0
function response(status, headers, body)
  if status >= 200 and status < 300 then ok = ok + 1 end
  if status == 201 then created = created + 1 end
end
""" if load.count_statuses else ""
    return f"""-- written by bench/harness.py for one run
local method, path, body = {lua_string(load.method)}, {lua_string(load.path)}, {body}
local headers = {{{headers}}}
local n = {load.first_n - 1}

function request()
  n = n + 1
  local number = tostring(n)
  return wrk.format(method, (path:gsub("{{n}}", number)), headers, body and (body:gsub("{{n}}", number)))
end
{counting}
local threads = {{}}
function setup(thread) table.insert(threads, thread) end

function done(summary, latency, requests)
  local answered_2xx, answered_201 = 0, 0
  for _, thread in ipairs(threads) do
    answered_2xx = answered_2xx + (thread:get("ok") or 0)
    answered_201 = answered_201 + (thread:get("created") or 0)
  end
  local e = summary.errors
  io.write(string.format('BENCH {{"requests": %d, "duration_us": %.0f, "p50_us": %.0f, "p99_us": %.0f, ' ..
    '"connect": %d, "read": %d, "write": %d, "status": %d, "timeout": %d, "answered_2xx": %d, "answered_201": %d}}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect, e.read, e.write, e.status, e.timeout, answered_2xx, answered_201))
end
"""


def run_wrk(port: int, load: Load, seconds: float, workdir: Path, tag: str, groups: list[int]) -> Figure:
    """``wrk -t1 -c10`` for ``seconds`` against our server; the figures from the script's JSON line.

    ``groups``: the process groups of our servers, so that other work on the machine can be told apart.
    """
    script = workdir / f"{tag}.lua"
    script.write_text(lua_script(load))
    command = ["wrk", "-t1", "-c10", f"-d{seconds:g}s", "--timeout", "10s", "--latency", "-s", str(script),
               f"http://{HOST}:{port}"]
    watch = CpuWatch(groups)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 30)
    except subprocess.TimeoutExpired as error:
        raise RuntimeError(f"wrk did not finish within {seconds + 30:g} s") from error
    (workdir / f"{tag}.wrk.txt").write_text(done.stdout + done.stderr)
    line = next((l for l in done.stdout.splitlines() if l.startswith("BENCH ")), None)
    if done.returncode != 0 or line is None:
        raise RuntimeError(f"wrk failed ({done.returncode}): {(done.stderr or done.stdout)[-500:]}")
    data = json.loads(line[len("BENCH "):])
    counted = load.count_statuses
    return Figure(
        requests=data["requests"], seconds=data["duration_us"] / 1e6,
        p50_ms=data["p50_us"] / 1000, p99_ms=data["p99_us"] / 1000,
        errors={k: data[k] for k in ("connect", "read", "write", "timeout", "status") if data[k]},
        answered_2xx=data["answered_2xx"] if counted else None,
        answered_201=data["answered_201"] if counted else None,
        others_cpu=watch.others_share(),
        idle_cpu=watch.idle_share(),
    )
