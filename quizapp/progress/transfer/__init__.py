"""A learner's progress as a file: export it (``export``), and import (merge) it on another
machine (``merge``), the file read as a stream (``stream``) and its rows checked (``rows``)."""

from .export import EXPORT_FORMAT, EXPORT_VERSION, TABLES, dumps, export
from .merge import BATCH_ROWS, MAX_IMPORT_ROWS, import_progress
from .rows import ImportRefused

__all__ = ["BATCH_ROWS", "EXPORT_FORMAT", "EXPORT_VERSION", "MAX_IMPORT_ROWS", "TABLES", "ImportRefused", "dumps",
           "export", "import_progress"]
