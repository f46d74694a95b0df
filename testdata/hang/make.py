#!/usr/bin/env python3
"""make.py: the hang-diagnosis samples of this folder, each from a real trace.

Every file is built from a real sample of ../pyspy, ../gt or ../chrome (see
the SOURCES.md there) by the edits named below and in SOURCES.md, and
nothing else.  Run it from this folder to remake them.
"""
import gzip
import json
import os

SRC = os.path.join(os.path.dirname(__file__), "..", "pyspy",
                   "09_vllm17676_py314_active_no_name_deep_truncated.txt")


def dump(text, ts, host, rank):
    return f"#tracecat-dump ts={ts} pid=2403 host={host} rank={rank}\n{text.rstrip()}\n"


def gt_cut():
    """A GT log cut in the middle of a round trip: right after a WORKER_SEND WorkerGetData."""
    lines = open(os.path.join("..", "gt", "gt-server-2workers.log")).read().split("\n")
    cut = next(i for i, l in enumerate(lines) if "WORKER_SEND" in l and "WorkerGetData" in l)
    with open("gt-cut-round-trip.log", "w") as f:
        f.write("\n".join(lines[:cut + 1]) + "\n")


def kineto_one_fewer():
    """Rank 1 of a real two-rank Kineto pair, its last nccl:all_reduce CPU op removed."""
    src = os.path.join("..", "chrome", "hta", "trace_filter", "sampled_rank-1.json.gz")
    with gzip.open(src, "rt") as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    last = max(i for i, e in enumerate(events) if e.get("name") == "nccl:all_reduce")
    del events[last]
    with gzip.GzipFile("kineto-rank1-one-allreduce-fewer.json.gz", "wb", mtime=0) as f:
        f.write(json.dumps(trace).encode())


def main():
    gt_cut()
    kineto_one_fewer()
    text = open(SRC).read()
    a = text
    # Rank 1 (another node, the same pid) waits one line earlier in the same function.
    b = text.replace("_initialize_kv_caches (vllm/v1/engine/core.py:345)",
                     "_initialize_kv_caches (vllm/v1/engine/core.py:305)")
    assert a != b
    with open("vllm-two-nodes-line.txt", "w") as f:
        f.write(dump(a, "1772607893.000", "node-a", 0) + dump(b, "1772607893.010", "node-b", 1))
    # Three dumps a second apart: rank 0 moves (its innermost line changes), rank 1 does not.
    moved = text.replace("top_k_top_p_sampling_from_logits (flashinfer/sampling.py:1548)",
                         "top_k_top_p_sampling_from_logits (flashinfer/sampling.py:1561)")
    with open("vllm-progress.txt", "w") as f:
        for i, ts in enumerate(("1772607893.000", "1772607894.000", "1772607895.000")):
            f.write(dump(moved if i % 2 else a, ts, "node-a", 0))
            f.write(dump(a, ts, "node-b", 1))


if __name__ == "__main__":
    main()
