"""An export file read as a stream: its header, and each table's rows one at a time.

An export is one JSON object: a few small header values (format, version, the learner) and two
arrays of rows (``events``, ``review_log``) that may hold 100,000 rows between them. Parsing
it whole holds every row as Python objects at once (about six times the file's size), and a
worker's heap does not shrink back after it. This reader walks the object's top level itself
and hands each value, and each row of an array, to the standard library's JSON decoder, so
memory holds one chunk of the file and one row, whatever the file's layout (the export's one
row per line, minified, or pretty-printed). Every pass reads the file again from its start.

ijson would do the walking, but its C backend crashed the process (SIGSEGV) on a number of
5,000 digits and turned a lone surrogate escape into "?", both inputs an import must refuse
with a message.
"""

from __future__ import annotations

import codecs
import json

CHUNK_CHARS = 64 * 1024
# The longest row or header value an export can hold, with room for JSON's escapes: an
# event's detail and scenario are at most 20,000 characters, and an escape takes up to 6.
MAX_VALUE_CHARS = 256 * 1024
WHITESPACE = " \t\n\r"
DECODER = json.JSONDecoder()


class NotAnExport(ValueError):
    """The file is not one JSON object of an export's shape; the message says where and why,
    beginning with what is wrong ("the file is not JSON: ...", "events[3] is not JSON")."""


class ExportFile:
    """A binary file (seekable: a temporary file of an upload) read as an export, pass after pass.

    ``items()`` yields the top level's members in the file's order, except that each row of a
    table comes by itself, as (table, row). It raises NotAnExport.
    """

    def __init__(self, binary, tables: tuple[str, ...]):
        self.binary, self.tables = binary, tables

    def items(self):
        reader = _Reader(self.binary)
        if reader.peek() == "":
            raise NotAnExport("the file is empty")
        reader.expect("{", "the file is not JSON: an export is one object, in braces")
        seen: set[str] = set()
        if reader.peek() == "}":
            reader.take()
        else:
            while True:
                key = reader.value("the file", "the file is not JSON where a key of its object should be")
                if not isinstance(key, str):
                    raise NotAnExport("the file is not JSON: a key of its object is not text")
                if key in seen:
                    raise NotAnExport(f"the file names {key!r} twice")
                seen.add(key)
                reader.expect(":", f"the file is not JSON: no ':' after {key!r}")
                if key in self.tables:
                    for row in self._table(reader, key):
                        yield key, row
                else:
                    yield key, reader.value(f"the file's {key!r}")
                if reader.peek() == ",":
                    reader.take()
                    continue
                reader.expect("}", f"the file is not JSON: no ',' or '}}' after {key!r}")
                break
        if reader.peek() != "":
            raise NotAnExport("the file is not JSON: text follows the end of its object")
        for table in self.tables:
            if table not in seen:
                raise NotAnExport(f"the export has no {table!r} list")

    @staticmethod
    def _table(reader: "_Reader", table: str):
        if reader.peek() != "[":
            raise NotAnExport(f"the export's {table!r} must be a list")
        reader.take()
        if reader.peek() == "]":
            reader.take()
            return
        index = 0
        while True:
            yield reader.value(f"{table}[{index}]")
            index += 1
            if reader.peek() == ",":
                reader.take()
                continue
            reader.expect("]", f"{table}[{index - 1}] is not JSON: no ',' or ']' after it")
            return


class _Reader:
    """Text decoded from the file a chunk at a time (strict UTF-8), with a position in it."""

    def __init__(self, binary):
        binary.seek(0)
        self.binary, self.decoder = binary, codecs.getincrementaldecoder("utf-8")("strict")
        self.text, self.position, self.ended = "", 0, False

    def _more(self) -> bool:
        """Read the next chunk after what is left; False at the end of the file."""
        if self.ended:
            return False
        data = self.binary.read(CHUNK_CHARS)
        try:
            fresh = self.decoder.decode(data, final=not data)
        except UnicodeDecodeError:
            raise NotAnExport("the file is not UTF-8 text") from None
        self.text, self.position = self.text[self.position:] + fresh, 0
        self.ended = not data
        return True

    def peek(self) -> str:
        """The next character that is not whitespace ('' at the end of the file), not taken."""
        while True:
            while self.position < len(self.text) and self.text[self.position] in WHITESPACE:
                self.position += 1
            if self.position < len(self.text):
                return self.text[self.position]
            if not self._more():
                return ""

    def take(self) -> None:
        self.position += 1

    def expect(self, char: str, message: str) -> None:
        if self.peek() != char:
            raise NotAnExport(message)
        self.take()

    def value(self, subject: str, message: str | None = None):
        """The JSON value that starts here, reading more of the file while it may be cut off at
        the chunk's end. A value that ends exactly there is taken only at the file's end: ``12``
        may be the start of ``123``. ``subject`` names it in a refusal ("events[3]"); ``message``
        is the refusal when it is not JSON (by default "<subject> is not JSON")."""
        message = message or f"{subject} is not JSON"
        self.peek()
        while True:
            try:
                value, end = DECODER.raw_decode(self.text, self.position)
            except RecursionError:
                raise NotAnExport(f"{subject} is nested far deeper than an export's") from None
            except json.JSONDecodeError as error:
                if self.ended or not _cut_off(error, self.text):
                    raise NotAnExport(message) from None
            except ValueError:  # Python's own limit: an integer of over 4,300 digits
                raise NotAnExport(f"{subject} holds a number of thousands of digits; an export's "
                                  "are short") from None
            else:
                if end - self.position > MAX_VALUE_CHARS:
                    break
                if end < len(self.text) or self.ended:
                    self.position = end
                    return value
            if len(self.text) - self.position > MAX_VALUE_CHARS:
                break
            self._more()
        raise NotAnExport(f"{subject} is longer than any export's ({MAX_VALUE_CHARS:,} characters)")


def _cut_off(error: json.JSONDecodeError, text: str) -> bool:
    """Whether the decoder may have failed only because the text stops mid-value: inside a
    string, or within a few characters of its end (``tru`` of ``true``, ``\\u12`` of an escape)."""
    return error.msg.startswith("Unterminated string") or error.pos >= len(text) - 8
