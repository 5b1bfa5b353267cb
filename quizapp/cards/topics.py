"""The bank's topics: the one list a card's ``topic:`` names (issue 20).

Each card teaches one topic of an inference-engineering interview. The bank shows each topic
with its card count and the reader's progress in it, and filters by it; practice draws from
one topic, or from the reader's weakest. AUTHORING.md documents this list, and its test holds
the document to it; ``quizapp check`` refuses a topic that is not here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Topic:
    id: str  # what a card's front matter writes, and /?topic=<id>
    title: str  # how the bank heads it
    blurb: str  # what it covers, in one line


TOPICS = (
    Topic("kv-cache", "KV cache sizing",
          "bytes per token, the pool, users that fit, pins and fractions, reading startup lines"),
    Topic("prefill-decode", "Prefill and decode",
          "compute- vs bandwidth-bound phases; TTFT, TPOT, ITL, end-to-end latency"),
    Topic("roofline", "Roofline arithmetic",
          "tokens/s at batch 1, critical batch, how the weights dtype moves it"),
    Topic("weights-quantization", "Weights and quantization",
          "BF16/FP8/INT4 group scales/NVFP4 weight bytes, MoE total vs active, what stays unquantized"),
    Topic("non-kv-memory", "Memory beside the cache",
          "profile-run activations, CUDA graphs, NCCL buffers, max_num_batched_tokens"),
    Topic("batching-scheduling", "Batching and scheduling",
          "continuous batching, chunked prefill, tail latency, max_num_seqs against the pool"),
    Topic("prefix-caching", "Prefix caching",
          "what the pool keeps, LRU eviction of free blocks, hit rate against free blocks"),
    Topic("speculative-decoding", "Speculative decoding",
          "why quality is kept, when it does not help, drafter memory and time"),
    Topic("parallelism", "Parallelism",
          "TP, PP, DP, EP and combining them; KV per rank under each"),
    Topic("hybrid-attention", "Sliding-window and linear attention",
          "state that does not grow with length, the blocks a window keeps"),
    Topic("paged-attention", "PagedAttention's blocks",
          "internal fragmentation per request, block sizes by backend (MLA 64/128)"),
    Topic("offload-preemption", "Offload and preemption",
          "recompute vs swap, the bandwidth of the tier"),
    Topic("cost", "Cost",
          "tokens per GPU-hour and per dollar from the bounds and a price"),
    Topic("incidents", "Reading an incident",
          "diagnosing production symptoms from numbers"),
)
TOPIC_IDS = tuple(topic.id for topic in TOPICS)
BY_ID = {topic.id: topic for topic in TOPICS}


def topic_of(topic_id: str) -> Topic | None:
    """The topic with this id, or None."""
    return BY_ID.get(topic_id) if isinstance(topic_id, str) else None
