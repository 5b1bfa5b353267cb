"""Lines read in their true order: excerpts pasted as people paste them (the lines of two
processes one after the other, a grep over a compose log or over two files) read like the whole
log, by vLLM's timestamps; a pool line the reader does not read is listed with why.

The whole logs are the reader's test logs (tests/calc/data/logs, README there); each excerpt
is one of them rearranged here, so the expected reading is the whole log's, not a typed figure.
"""

import re
import time

import pytest

from quizapp.calc.log.parse import MAX_LOG_LINES, full_timestamp, time_order, timestamp
from quizapp.calc.log.read import read_log

from tests.paths import LOGS

PROCESS = re.compile(r"^\((\w+) pid=\d+\)")
# Logs whose every pool and settings line carries vLLM's timestamp, printed by two processes.
TIMED = ["qwen3-8b-l4.log", "reference-deepseek-v4-flash.log", "reference-deepseek-v4-flash-gen234.log",
         "reference-qwen38-flash-next.log", "reference-qwen38-flash-next-restarts.log",
         "vllm-qwen3-8b-fp8-debug.log", "vllm-26646-qwen3-next.log"]
REORDER_NOTE = "the lines are not in the order vLLM printed them"


def whole(name: str) -> list[str]:
    return (LOGS / name).read_text(encoding="utf-8").splitlines()


def figures(text: str) -> dict:
    """The reading without where each figure was read (an excerpt's line numbers are its own)."""
    data = read_log(text).to_json()
    for key in ("lines", "recognised", "unrecognised", "kv_cache_memory", "refusals"):
        data.pop(key)
    data["notes"] = [n for n in data["notes"] if not n.startswith(REORDER_NOTE) and "from line" not in n
                     and not n.startswith("not read")]
    data["implied_from"] = [{k: v for k, v in e.items() if k != "derivation"} for e in data["implied_from"]]
    return data


def by_process(lines: list[str]) -> list[str]:
    """The engine's lines, then the API server's (and lines of no process last): two `docker logs` pasted."""
    def process(line: str) -> int:
        found = PROCESS.match(line)
        return 0 if found and found[1] != "APIServer" else 1 if found else 2
    return sorted(lines, key=process)


@pytest.mark.parametrize("name", TIMED)
def test_the_lines_of_two_processes_one_after_the_other_read_like_the_whole_log(name):
    lines = whole(name)
    excerpt = by_process(lines)
    assert excerpt != lines  # the pool lines come before the args line
    assert figures("\n".join(excerpt)) == figures("\n".join(lines))
    assert read_log("\n".join(excerpt)).to_json()["pool_tokens"] is not None


def test_the_engine_lines_first_of_a_log_of_three_starts_read_its_last_start():
    log = read_log("\n".join(by_process(whole("reference-qwen38-flash-next-restarts.log"))))
    assert log.parsed.runs == 3
    assert log.pool.tokens == 1_791_558 and log.settings.speculative["num_speculative_tokens"] == 2
    assert any(n.startswith(REORDER_NOTE) for n in log.notes)


@pytest.mark.parametrize("prefix", ["vllm-1  | ", "engine.log:", "12:", "\x1b[36mvllm-engine-1  |\x1b[0m "])
def test_a_grep_over_a_compose_log_or_two_files_reads_like_the_whole_log(prefix):
    lines = whole("reference-deepseek-v4-flash.log")  # args, pool, concurrency
    grep = [prefix + line for line in lines[1:]] + [prefix.replace("engine", "api") + lines[0]]
    assert figures("\n".join(grep)) == figures("\n".join(lines))
    log = read_log("\n".join(grep))
    assert (log.pool.tokens, log.lines["pool_tokens"], log.lines["model"]) == (181_777, 1, 3)


def test_a_log_in_order_is_read_as_before_and_not_said_to_be_reordered():
    for name in TIMED + ["vllm-v0-blocks.log", "vllm-10517-v0-refusal.log"]:
        assert not read_log("\n".join(whole(name))).parsed.reordered, name


def test_without_timestamps_a_pool_line_before_the_args_line_is_listed_as_not_read():
    lines = [PROCESS.sub("", line).split("] ", 1)[1] for line in whole("reference-deepseek-v4-flash.log")]
    log = read_log("\n".join(lines[1:] + lines[:1]))  # no timestamps: the text's order is all there is
    assert log.pool.tokens is None
    [note] = [n for n in log.notes if n.startswith("not read")]
    assert "line 1: 'GPU KV cache size: 181,777 tokens'" in note
    assert "line 2: 'Maximum concurrency for 131,072 tokens per request: 1.39x'" in note


def test_a_line_without_a_timestamp_follows_the_line_before_it():
    stamps = [None, (1, 2, 10, 0, 5, 0), None, (1, 2, 10, 0, 1, 0), None]
    assert time_order(stamps) == [0, 3, 4, 1, 2]
    assert time_order([None, None, None]) == [0, 1, 2]


def test_timestamps_are_read_with_fractions_and_a_log_over_new_year_puts_january_last():
    assert timestamp("(EngineCore_DP0 pid=7) INFO 12-31 23:59:59.25 [core.py:1] x") == (12, 31, 23, 59, 59, 250000)
    assert timestamp("WARNING 01-01 00:00:01 [core.py:1] x") == (1, 1, 0, 0, 1, 0)
    assert timestamp("GPU KV cache size: 12-01 10:00:03 tokens") is None  # no level before it
    assert time_order([(1, 1, 0, 0, 1, 0), (12, 31, 23, 59, 59, 0)]) == [1, 0]


def fastest(text: str, times: int = 2) -> float:
    """The least time of a few readings: the machine's other work only ever adds time."""
    spent = []
    for _ in range(times):
        start = time.perf_counter()
        read_log(text)
        spent.append(time.perf_counter() - start)
    return min(spent)


def test_many_lines_in_reverse_time_order_cost_little_more_than_in_order():
    lines = [f"(EngineCore_DP0 pid=1) INFO 12-01 {h:02}:{m:02}:{s:02} [x.py:1] GPU KV cache size: 24,096 tokens"
             for h in range(6) for m in range(60) for s in range(60)][:MAX_LOG_LINES]
    # The sort is O(n log n) over at most MAX_LOG_LINES keys; the reading of each line dominates.
    assert fastest("\n".join(reversed(lines))) < 2 * fastest("\n".join(lines)) + 0.3
    log = read_log("\n".join(reversed(lines)))
    assert log.pool.tokens == 24_096 and log.parsed.reordered


def test_pool_lines_of_one_start_that_are_not_read_are_listed_with_why():
    log = read_log("(Worker_TP0 pid=1) INFO 09-04 11:00:12 [x.py:1] # GPU blocks: 5102, # CPU blocks: 4681\n"
                   "(Worker_TP1 pid=2) INFO 09-04 11:00:12 [x.py:1] # GPU blocks: 5100, # CPU blocks: 4681\n"
                   "(Worker_TP0 pid=1) INFO 09-04 11:00:12 [x.py:1] Maximum concurrency for 8192 tokens per "
                   "request: 9.96x\n"
                   "(Worker_TP1 pid=2) INFO 09-04 11:00:12 [x.py:1] Maximum concurrency for 8192 tokens per "
                   "request: 9.95x\n")
    assert (log.pool.num_gpu_blocks, log.pool.max_concurrency_text) == (5100, "9.95x")
    assert any("'# GPU blocks'" in n and "5,100, 5,102" in n for n in log.notes)
    assert any("'Maximum concurrency for 8,192 tokens per request: 9.96x'" in n and "line 4" in n for n in log.notes)


def test_a_v0_refusal_beside_a_v1_pool_line_is_listed_as_not_read():
    log = read_log("GPU KV cache size: 24,096 tokens\nValueError: The model's max seq len (32768) is larger than the "
                   "maximum number of tokens that can be stored in KV cache (23648). Try increasing ...\n")
    assert log.pool.tokens == 24_096
    assert "line 2: '... stored in KV cache (23,648)' is not read: line 1's 'GPU KV cache size' states the pool" \
        in log.notes


def docker_t(lines: list[str], strip_vllm_stamps: bool) -> list[str]:
    """As `docker logs -t` prints them: each line after the time Docker received it, a
    millisecond apart (and, to be sure only Docker's stamps can order them, without vLLM's)."""
    out = []
    for n, line in enumerate(lines):
        if strip_vllm_stamps and "] " in line:
            line = PROCESS.sub("", line).split("] ", 1)[1]
        out.append(f"2026-11-30T10:{n // 60000:02}:{n // 1000 % 60:02}.{n % 1000:03}123456Z {line}")
    return out


@pytest.mark.parametrize("name", TIMED)
def test_docker_s_timestamps_order_lines_that_have_no_vllm_timestamp(name):
    lines = whole(name)
    stamped = docker_t(lines, strip_vllm_stamps=True)
    excerpt = by_process(lines)
    pasted = [stamped[lines.index(line)] for line in excerpt]  # two `docker logs -t`, one after the other
    assert figures("\n".join(pasted)) == figures("\n".join(lines))
    assert read_log("\n".join(pasted)).parsed.reordered


def test_full_timestamps_are_read_in_utc_to_the_nanosecond():
    assert full_timestamp("2026-11-30T10:00:01.123456789Z INFO 11-30 10:00:01 [x.py:1] y") == \
        (2026, 11, 30, 10, 0, 1, 123456789)
    assert full_timestamp("vllm-1  | 2026-11-30T11:00:01+01:00 GPU KV cache size: 1 tokens") == \
        (2026, 11, 30, 10, 0, 1, 0)
    assert full_timestamp("2026-01-01T00:30:00.5-01:00 x") == (2026, 1, 1, 1, 30, 0, 500000000)
    assert full_timestamp("2026-02-30T10:00:01Z x") is None  # no such day
    assert full_timestamp("GPU KV cache size: 2026-11-30T10:00:01Z") is None  # not in front
    # Over New Year the year orders them: no December-before-January guess.
    assert time_order([(2027, 1, 1, 0, 0, 1, 0), (2026, 12, 31, 23, 59, 59, 0)]) == [1, 0]


def test_a_paste_where_only_some_lines_have_docker_s_timestamps_is_ordered_by_vllm_s():
    lines = whole("reference-deepseek-v4-flash.log")  # args, pool, concurrency
    # The pool lines from `docker logs -t` with made-up early times, the args line from a file.
    pasted = [f"2020-01-01T00:00:0{n}Z {line}" for n, line in enumerate(lines[1:])] + lines[:1]
    assert figures("\n".join(pasted)) == figures("\n".join(lines))
