#!/usr/bin/env python3
"""gen_kineto.py OUT.json [STEPS]: a deterministic Kineto-like PyTorch profiler trace.

Object form, pretty-printed as Kineto writes it, for tracecat's Chrome reader
benchmark: per step a python_function, cpu_ops with shapes, a cudaLaunchKernel
with its ac2g flow (s on the CPU thread, f on the GPU stream), the kernel with
Kineto's args, a memcpy, and a memory counter; CPU rows use a string pid as
some of Kineto's synthetic rows do.  About 1.04 M events and 230 MB by default.
"""
import sys


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return
    if not 2 <= len(sys.argv) <= 3:
        sys.stderr.write("usage: gen_kineto.py OUT.json [STEPS]\n")
        sys.exit(2)
    out = sys.argv[1]
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 115000
    cpu_pid, gpu_pid = '"trainer:0"', 0
    with open(out, "w", buffering=1 << 20) as f:
        w = f.write
        w('{\n  "schemaVersion": 1,\n  "deviceProperties": [\n    {"id": 0, "name": "NVIDIA A100", '
          '"totalGlobalMem": 42297524224, "computeMajor": 8, "computeMinor": 0, "numSms": 108}\n  ],\n'
          '  "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8},\n'
          '  "record_shapes": 1,\n  "traceEvents": [\n')
        ts = 1000000.0
        corr = 1
        first = True
        for step in range(steps):
            ev = []
            ext = step * 4 + 1
            ev.append('{"ph": "X", "cat": "python_function", "name": "nn.Module: Linear_%d", '
                      '"pid": %s, "tid": 1234, "ts": %.3f, "dur": 40.125, '
                      '"args": {"Python parent id": %d, "Python id": %d, "Python thread": 0}}'
                      % (step % 17, cpu_pid, ts, step, step + 1))
            ev.append('{"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": %s, "tid": 1234, '
                      '"ts": %.3f, "dur": 30.5, "args": {"External id": %d, "Record function id": 0, '
                      '"Sequence number": %d, "Fwd thread id": 0, "Ev Idx": %d, '
                      '"Input Dims": [[64, 1024], [4096, 1024], [4096]], '
                      '"Input type": ["float", "float", "float"]}}'
                      % (cpu_pid, ts + 1, ext, step, step * 9))
            ev.append('{"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": %s, "tid": 1234, '
                      '"ts": %.3f, "dur": 20.25, "args": {"External id": %d, "Record function id": 0, '
                      '"Sequence number": %d, "Ev Idx": %d}}' % (cpu_pid, ts + 2, ext + 1, step, step * 9 + 1))
            ev.append('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": %s, '
                      '"tid": 1234, "ts": %.3f, "dur": 6.0, "args": {"cbid": 211, "correlation": %d, '
                      '"External id": %d}}' % (cpu_pid, ts + 3, corr, ext + 1))
            ev.append('{"ph": "s", "id": %d, "pid": %s, "tid": 1234, "ts": %.3f, "cat": "ac2g", '
                      '"name": "ac2g"}' % (corr, cpu_pid, ts + 3))
            kts = ts + 12
            ev.append('{"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_tn", "pid": %d, '
                      '"tid": 7, "ts": %.3f, "dur": 25.0, "args": {"queued": 0, "device": 0, '
                      '"context": 1, "stream": 7, "correlation": %d, "registers per thread": 128, '
                      '"shared memory": 16384, "blocks per SM": 2.5, "warps per SM": 20.0, '
                      '"grid": [256, 1, 1], "block": [256, 1, 1], "est. achieved occupancy %%": 25, '
                      '"External id": %d}}' % (gpu_pid, kts, corr, ext + 1))
            ev.append('{"ph": "f", "id": %d, "pid": %d, "tid": 7, "ts": %.3f, "cat": "ac2g", '
                      '"name": "ac2g", "bp": "e"}' % (corr, gpu_pid, kts))
            ev.append('{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", '
                      '"pid": %d, "tid": 7, "ts": %.3f, "dur": 2.0, "args": {"device": 0, "context": 1, '
                      '"stream": 7, "correlation": %d, "bytes": 262144, "memory bandwidth (GB/s)": 131.072}}'
                      % (gpu_pid, kts + 26, corr + 1))
            ev.append('{"ph": "C", "name": "[memory]", "pid": %s, "tid": 1234, "ts": %.3f, '
                      '"args": {"Total Allocated": %d, "Total Reserved": %d}}'
                      % (cpu_pid, ts + 35, 1000000000 + step * 4096, 2000000000))
            corr += 2
            ts += 50.0
            for e in ev:
                w(("    " if first else ",\n    ") + e)
                first = False
        w('\n  ],\n  "traceName": "bench.pt.trace.json",\n  "displayTimeUnit": "ms",\n'
          '  "baseTimeNanoseconds": 1700000000000000000\n}\n')


if __name__ == "__main__":
    main()
