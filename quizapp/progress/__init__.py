"""Learners' progress in SQLite: schema and migrations, events, scheduling, export and import, summaries.

No Flask here: the CLI and the tests call these functions directly.
"""
