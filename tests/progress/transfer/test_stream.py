"""An export file read as a stream (issue 21, point 9): the same header and rows as the
standard library's json.loads reads from the whole text, whatever the layout, and a bounded
amount of memory however many rows the file holds."""

import json
import tracemalloc
from io import BytesIO

import pytest

from quizapp.progress import transfer
from quizapp.progress.transfer import stream
from quizapp.progress.transfer.stream import ExportFile, NotAnExport

TABLES = ("events", "review_log")


def export(rows: int = 3) -> dict:
    events = [{"event_id": f"evt-{n:07d}", "card_id": "kv-pool-users", "kind": "answer", "stage": "short",
               "value": f"about {n:,} users, é and 🙂", "detail": {"a": [n, {"b": None}]}, "scenario": None,
               "at": "2026-01-01T00:00:00+00:00"} for n in range(rows)]
    reviews = [{"event_id": "evt-r", "card_id": "kv-pool-users", "rating": 3, "reviewed_at": "2026-01-01T00:00:00Z",
                "duration_ms": 12345678}]
    return {"format": "quizapp-progress", "version": 1, "learner": {"display_name": "Ada \"A\" Lovelace"},
            "events": events, "review_log": reviews}


LAYOUTS = {
    "as exported": transfer.dumps,
    "minified": lambda data: json.dumps(data, separators=(",", ":")),
    "pretty": lambda data: json.dumps(data, indent=2),
    "tabs and CRLF": lambda data: json.dumps(data, indent="\t").replace("\n", "\r\n"),
    "ASCII escapes": lambda data: json.dumps(data),
    "tables first": lambda data: json.dumps({"review_log": data["review_log"], "events": data["events"],
                                             "learner": data["learner"], "version": 1, "format": data["format"]}),
}


def read(text: str | bytes):
    """The header's members and each table's rows, as the file holds them."""
    header, rows = {}, {table: [] for table in TABLES}
    for key, value in ExportFile(BytesIO(text if isinstance(text, bytes) else text.encode("utf-8")), TABLES).items():
        if key in TABLES:
            rows[key].append(value)
        else:
            header[key] = value
    return header, rows


@pytest.mark.parametrize("chunk", [1, 7, 64 * 1024])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_layout_reads_as_json_loads_reads_it_with_chunks_cut_anywhere(monkeypatch, layout, chunk):
    # A chunk of 1 byte cuts every number, escape and multi-byte character somewhere.
    monkeypatch.setattr(stream, "CHUNK_CHARS", chunk)
    text = LAYOUTS[layout](export())
    whole = json.loads(text)
    header, rows = read(text)
    assert header == {key: value for key, value in whole.items() if key not in TABLES}
    assert rows == {table: whole[table] for table in TABLES}


def test_a_number_cut_at_a_chunk_s_end_is_read_whole(monkeypatch):
    text = '{"format": "quizapp-progress", "version": 123456789, "events": [], "review_log": []}'
    for chunk in range(1, len(text) + 1):
        monkeypatch.setattr(stream, "CHUNK_CHARS", chunk)
        assert read(text)[0]["version"] == 123456789, chunk


def test_every_pass_reads_the_file_again_from_its_start():
    file = ExportFile(BytesIO(transfer.dumps(export(5)).encode()), TABLES)
    first = list(file.items())
    assert len(first) == 3 + 5 + 1 and list(file.items()) == first


@pytest.mark.parametrize("text, words", [
    (b'{"format": "\xff"}', "the file is not UTF-8 text"),
    ('[1, 2]', "the file is not JSON: an export is one object, in braces"),
    (' \n', "the file is empty"),
    ('{"events": [], "review_log": []} {"more": 1}', "the file is not JSON: text follows the end of its object"),
    ('{"events": [], "events": [], "review_log": []}', "the file names 'events' twice"),
    ('{"events": []}', "the export has no 'review_log' list"),
    ('{"events": {}, "review_log": []}', "the export's 'events' must be a list"),
    ('{"events": [{"a": 1}, {"a": 2}, {"a": }], "review_log": []}', "events[2] is not JSON"),
    ('{"events": [{"a": 1} {"a": 2}], "review_log": []}', "events[0] is not JSON: no ',' or ']' after it"),
    ('{"events": [{"a": 1}], "review_log": [' + "[" * 100_000 + "]" * 100_000 + ']}',
     "review_log[0] is nested far deeper than an export's"),
    ('{"events": [{"a": ' + "9" * 5000 + '}], "review_log": []}', "events[0] holds a number of thousands of digits"),
    ('{"events": [{"a": "' + "x" * 300_000 + '"}], "review_log": []}', "events[0] is longer than any export's"),
    ('{"format": "quizapp-progress", "version": 1', "the file is not JSON: no ',' or '}' after 'version'"),
    ('{"format" "quizapp-progress"}', "the file is not JSON: no ':' after 'format'"),
    ('{1: 2}', "the file is not JSON: a key of its object is not text"),
    ('{"format": 1, ]', "the file is not JSON where a key of its object should be"),
])
def test_a_file_that_is_not_an_export_is_refused_with_where_and_why(text, words):
    with pytest.raises(NotAnExport) as refused:
        read(text)
    assert str(refused.value).startswith(words)


def test_a_lone_surrogate_escape_is_read_as_json_reads_it_so_the_import_can_name_it():
    # ijson's C backend turned "\ud800" into "?"; the import must see it to refuse it by name.
    header, rows = read('{"learner": {"display_name": "\\ud800"}, "events": [{"v": "\\udfff"}], "review_log": []}')
    assert header["learner"]["display_name"] == "\ud800" and rows["events"] == [{"v": "\udfff"}]


def test_memory_holds_a_chunk_and_a_row_not_the_file():
    text = transfer.dumps(export(20_000)).encode()  # 5 MB
    file = ExportFile(BytesIO(text), TABLES)
    tracemalloc.start()
    try:
        rows = sum(key == "events" for key, _ in file.items())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert rows == 20_000
    # json.loads of the same text peaks at about 40 MB; one chunk of text is 64 K characters.
    assert peak < 1024 * 1024, f"{peak:,} bytes at the peak for a file of {len(text):,}"
