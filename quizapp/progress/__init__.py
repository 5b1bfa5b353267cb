"""Learners' progress in SQLite: schema and migrations, events, scheduling, summaries.

No Flask here: the CLI and the tests call these functions directly.
"""
