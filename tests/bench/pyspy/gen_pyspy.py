#!/usr/bin/env python3
"""gen_pyspy.py: deterministic py-spy inputs for the benchmark.

  gen_pyspy.py dumps OUT [DUMPS] [REPEAT]   a #tracecat-dump sequence: DUMPS dumps
        (default 20000) of one process with 8 threads of 20-60 frames, 0.1 s apart;
        REPEAT > 1 plays the same dumps again after the first pass (same distinct
        stacks, REPEAT times the samples)
  gen_pyspy.py folded OUT [LINES]           folded stacks, LINES lines (default 1e6)

Stacks walk like a program's: each dump keeps a random root part of the thread's
previous stack and calls new functions below it, from a pool of 2,000 functions.
"""
import random
import sys

FILES = ["torch/nn/modules/module.py", "torch/autograd/__init__.py", "train.py",
         "vllm/v1/worker/gpu_model_runner.py", "threading.py", "asyncio/base_events.py",
         "deepspeed/runtime/engine.py", "transformers/models/llama/modeling_llama.py",
         "multiprocessing/connection.py", "zmq/sugar/socket.py"]


def pool(rng, n=2000):
    out = []
    for i in range(n):
        name = rng.choice(["forward", "backward", "step", "run", "wait", "_call_impl", "get",
                           "decorate_context", "__call__", "_bootstrap_inner"]) + "_%d" % i
        out.append("%s (%s:%d)" % (name, rng.choice(FILES), rng.randint(1, 3000)))
    return out


def walk(rng, funcs, prev):
    keep = rng.randint(12, min(len(prev), 50)) if prev else 0
    if rng.random() < 0.3:
        keep = len(prev)  # the thread did not move
    depth = rng.randint(max(20, keep), 60)
    stack = prev[:keep]
    while len(stack) < depth:
        stack.append(rng.choice(funcs))
    return stack


def dumps(out, n, repeat):
    rng = random.Random(20260304)
    funcs = pool(rng)
    names = ["MainThread", "Thread-1 (_read_thread)", "pt_autograd_0", "ThreadPoolExecutor-0_0",
             "Thread-2", "pin_memory", "loader 1", "watchdog"]
    seq = []
    stacks = [[] for _ in names]
    for d in range(n):
        block = []
        for k, name in enumerate(names):
            stacks[k] = walk(rng, funcs, stacks[k])
            state = rng.choice(["idle", "active", "active+gil"])
            block.append('Thread %d (%s): "%s"\n' % (4000 + k, state, name))
            block.extend("    %s\n" % f for f in reversed(stacks[k]))
        seq.append("".join(block))
    t0 = 1772607893.0
    with open(out, "w") as f:
        for r in range(repeat):
            for d, body in enumerate(seq):
                ts = t0 + (r * n + d) * 0.1
                f.write("#tracecat-dump ts=%.3f pid=4000 host=bench\n" % ts)
                f.write("Process 4000: python train.py --bench\nPython v3.12.3 (/usr/bin/python3.12)\n\n")
                f.write(body)


def folded(out, n):
    rng = random.Random(179)
    funcs = pool(rng)
    stack = []
    with open(out, "w") as f:
        for i in range(n):
            stack = walk(rng, funcs, stack)
            f.write("%s %d\n" % (";".join(stack), rng.randint(1, 500)))


if __name__ == "__main__":
    kind, out = sys.argv[1], sys.argv[2]
    if kind == "dumps":
        dumps(out, int(sys.argv[3]) if len(sys.argv) > 3 else 20000,
              int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    else:
        folded(out, int(sys.argv[3]) if len(sys.argv) > 3 else 1000000)
