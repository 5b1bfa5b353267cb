import textwrap

import pytest

from quizapp.cards import CardError, load_card

GOOD_CARD = """\
---
id: tiny
title: A tiny card
roles: [Inference Engineering]
tags: [kv-cache]
topic: kv-cache
scenario:
  model: Qwen/Qwen3-8B
  max_model_len: 8192
  pool_tokens: 24096
  prompt_tokens: 512
  output_tokens: 128
variants:
  - name: Llama
    model: meta-llama/Llama-3.1-8B-Instruct
---

## Question

How many users of {{ tokens_per_user | commas }} tokens fit in {{ model }}'s pool?

## Short answer

{{ users_fit }} users.

## Full answer

One token takes {{ kv_bytes_per_token | kib }}.

## Follow-ups

### L2 Working: Why {{ num_kv_heads }} heads?

Because the config says so.

## Wrong answers

### "Divide memory by weights."

Weights are not the pool.

## Taught in

The memory lesson.
"""


@pytest.fixture
def write_card(tmp_path):
    """Write a card file into a fresh questions folder and return its path."""
    folder = tmp_path / "questions"
    folder.mkdir()

    def write(text: str = GOOD_CARD, name: str = "tiny.md"):
        path = folder / name
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return write


def load(path):
    """Load a card file, shown under its own path."""
    return load_card(path, str(path))


def error_of(write_card, text):
    """The diagnostic of a card that must fail to load, and the card's path."""
    path = write_card(text)
    with pytest.raises(CardError) as info:
        load(path)
    return info.value.diagnostic, path


def line_of(text, needle):
    """The line number of the first line of text that holds needle."""
    return next(i for i, line in enumerate(text.splitlines(), start=1) if needle in line)
