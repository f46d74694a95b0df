#!/usr/bin/env python3
"""make.py: the hang-diagnosis samples of this folder, from a real py-spy dump.

Every file is built from ../pyspy/09_vllm17676_py314_active_no_name_deep_truncated.txt
(a real `py-spy dump` of a vLLM engine, see ../pyspy/SOURCES.md) by the edits
named below, and nothing else.  Run it from this folder to remake them.
"""
import os

SRC = os.path.join(os.path.dirname(__file__), "..", "pyspy",
                   "09_vllm17676_py314_active_no_name_deep_truncated.txt")


def dump(text, ts, host, rank):
    return f"#tracecat-dump ts={ts} pid=2403 host={host} rank={rank}\n{text.rstrip()}\n"


def main():
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
