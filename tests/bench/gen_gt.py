#!/usr/bin/env python3
"""Write a synthetic GT instruction log for benchmarking tracecat.

    gen_gt.py [LINES] [OUTPUT]      (defaults: 1000000 lines, standard output)

The output is deterministic: a fixed seed, no clock, no environment. LINES counts every line of the file,
the 20-line dispatcher header included, so `wc -l` prints LINES. The log ends wherever LINES runs out,
possibly in the middle of a command, as a real log does when the process exits.

The workload imitates an auto-sharded training run with 4 workers (shared/testdata/gt/
gt-mlp-4workers-autoshard.log and gt-server-2workers.log): four workers register, then one client sends
CreateTensor / BinaryOp / UnaryOp / FreeTensor / GetData commands (and rarely Reshape, Slice, Compile and
GetWorkerStats). Each command is logged the way GT d6261d0's dispatcher logs it: RECV, one or more
MODIFIER_INJECT (GatherShards injections before some binary ops, one inject per shard for sharded
creations), synchronous WORKER_SEND/WORKER_RECV round trips, batch flushes logged reply first
(WORKER_RECV, then WORKER_SEND with the next seq), then SEND. Lines are formatted with GT's own format
strings (InstructionStream._format_log_entry), so every column is padded exactly as GT pads it.
"""

import random
import sys

SEED = 20251117
CLIENT = "CLIENT 006b8b456b"
# Registration order of the sample log; it is also the order in which all buffers are flushed.
WORKERS = ["auto_worker_0", "auto_worker_2", "auto_worker_1", "auto_worker_3"]
WORKER_RIDS = ["006b8b4567", "006b8b4568", "006b8b4569", "006b8b456a"]
NSHARD = len(WORKERS)

HEADER = (
    "=" * 100 + "\n"
    "GT2 Dispatcher Instruction Stream\n"
    "Started: 2026-11-22 17:58:43\n" + "=" * 100 + "\n"
    "\n"
    "This log records all instructions flowing through the dispatcher:\n"
    "  - Client commands (RECV/SEND)\n"
    "  - Worker operations (WORKER_SEND/WORKER_RECV)\n"
    "  - Connection events (CONNECT/DISCONNECT)\n"
    "\n"
    "Format: <elapsed> | #<seq> | <event_type> | <source> | <command> | <details>\n"
    "\n"
    "Column Details:\n"
    "  elapsed  = Seconds since dispatcher start (with millisecond precision)\n"
    "  seq      = Sequence number (increments for each instruction)\n"
    "  event    = Event type (CONNECT, RECV, SEND, WORKER_SEND, WORKER_RECV, DISCONNECT, ERROR)\n"
    "  source   = Source identifier (CLIENT/WORKER with ID)\n"
    "  command  = Command type (e.g., CreateTensor, BinaryOp, UnaryOp)\n"
    "  details  = Additional context (tensor IDs, operation names, etc.)\n"
    "\n"
)
HEADER_LINES = HEADER.count("\n")
assert HEADER_LINES == 20

# Per-command payload sizes in bytes, read off the sample logs (pickled dataclasses; tensors add 4 B an element).
TENSOR_PICKLE = 262
SIZE_OK = 91
FREE_RECV = 70
GETDATA_RECV = 67
BATCH = 3
WORKER_FREE = 126
WORKER_BINARY = 186
WORKER_UNARY = 198
WORKER_CREATE = 295
WORKER_SCALAR = 620

BINARY_OPS = ["add"] * 5 + ["mul"] * 5 + ["sub"] * 2 + ["matmul"] * 4 + ["gt"]
UNARY_OPS = ["relu"] * 3 + ["sigmoid"] * 2 + ["tanh", "sum", "mean", "mean", "transpose"]
CREATE_OPS = ["randn", "zeros"]
DIMS = [1, 2, 4, 8, 16, 25, 64, 100, 128, 256, 300, 512, 600, 1024]
SIGNALS = ["forward", "backward", "layer1", "attention"]


def size_str(n):
    """GT's size rendering: empty for 0, then B / KB (1 decimal) / MB (2 decimals), 1024-based."""
    if n == 0:
        return ""
    if n < 1024:
        return f"{n}B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f}KB"
    return f"{n / (1024 * 1024):.2f}MB"


def prod(shape):
    p = 1
    for d in shape:
        p *= d
    return p


class Log:
    """Formats events exactly like InstructionStream._format_log_entry and stops after a line budget."""

    def __init__(self, out, budget):
        self.out = out
        self.budget = budget
        self.buf = []
        self.seq = 0
        self.ms = 107  # the sample's first event time
        self.rng = random.Random(SEED)

    def full(self):
        return self.seq >= self.budget

    def tick(self):
        # Consecutive events mostly share a millisecond; now and then the dispatcher waits a little longer.
        r = self.rng.random()
        if r < 0.75:
            return
        if r < 0.98:
            self.ms += 1
        else:
            self.ms += self.rng.randint(2, 12)

    def emit(self, event, client, command, details="", size=0):
        if self.seq >= self.budget:
            return
        self.tick()
        self.seq += 1
        source_type = "WORKER" if "WORKER" in event else "CLIENT"
        s = size_str(size)
        head = f"{self.ms / 1000:7.3f}s | #{self.seq:04d} | {event:12s} | {source_type} {client:20s} | {command:15s}"
        if s:
            line = f"{head} | {s:>10s} | {details}" if details else f"{head} | {s:>10s}"
        else:
            line = f"{head} | {details}" if details else head
        self.buf.append(line)
        if len(self.buf) >= 8192:
            self.flush()

    def flush(self):
        if self.buf:
            self.out.write("\n".join(self.buf))
            self.out.write("\n")
            self.buf = []


class Workload:
    """A client driving tensors through the sharding dispatcher; tracks live tensors and worker buffers."""

    def __init__(self, log):
        self.log = log
        self.rng = log.rng
        self.next_id = 0
        self.live = {}  # tensor id -> (worker index, or None when sharded over all workers; shape)
        self.buffers = [[] for _ in WORKERS]  # per worker: [(command type, payload bytes)]
        self.defer = 0  # commands left in a stretch without end-of-command flushes

    def new_id(self):
        tid = self.next_id
        self.next_id += 1
        return tid

    def pick_live(self):
        if not self.live:
            return self.create_small()
        # Recent tensors are used far more often than old ones, as in a training step.
        return self.rng.choice(list(self.live)[-64:])

    def create_small(self):
        """A tensor that exists without a logged command (the sharded paths do not log their traffic)."""
        tid = self.new_id()
        self.live[tid] = (self.rng.randrange(NSHARD), (self.rng.choice(DIMS),))
        return tid

    def shape(self):
        r = self.rng.random()
        if r < 0.15:
            return ()
        if r < 0.35:
            return (self.rng.choice(DIMS),)
        return (self.rng.choice(DIMS), self.rng.choice(DIMS))

    def buffer(self, w, cmd_type, nbytes):
        self.buffers[w].append((cmd_type, nbytes))
        if len(self.buffers[w]) >= 50:  # GT flushes a worker's buffer at 50 commands
            self.flush(w)

    def flush(self, w):
        cmds = self.buffers[w]
        if not cmds:
            return
        self.buffers[w] = []
        types = ", ".join(c for c, _ in cmds[:5])
        if len(cmds) > 5:
            types += f", ... (+{len(cmds) - 5} more)"
        sent = BATCH + sum(n for _, n in cmds)
        # Logged after the round trip, reply first.
        self.log.emit("WORKER_RECV", WORKERS[w], "WorkerBatch", "success=True", SIZE_OK)
        self.log.emit("WORKER_SEND", WORKERS[w], "WorkerBatch", f"[{len(cmds)} cmds: {types}]", sent)

    def flush_all(self):
        for w in range(NSHARD):
            self.flush(w)

    def maybe_flush_all(self):
        # Usually every command ends with a flush; a few leave work buffered for a later, bigger batch.
        # Rare longer stretches build batches past 5 commands (the "(+k more)" form) and up to the
        # 50-command limit.
        if self.defer:
            self.defer -= 1
        elif self.rng.random() < 0.001:
            self.defer = self.rng.randint(6, 120)
        elif self.rng.random() < 0.93:
            self.flush_all()

    def client(self, event, command, details="", size=0):
        self.log.emit(event, CLIENT, command, details, size)

    def register_workers(self):
        for wid, rid in zip(WORKERS, WORKER_RIDS):
            self.log.emit("RECV", "CLIENT " + rid, "RegisterWorker", f"worker_id={wid}", 77 + len(wid))
            self.log.emit("SEND", "CLIENT " + rid, "RegisterWorker", "success=True", SIZE_OK)

    # ---- client commands ----

    def create_tensor(self):
        tid = self.new_id()
        shape = self.shape()
        d = f"tensor_id={tid} shape={shape}"
        self.client("RECV", "CreateTensor", d, TENSOR_PICKLE + 4 * prod(shape))
        if shape and shape[0] % NSHARD == 0 and self.rng.random() < 0.6:
            part = (shape[0] // NSHARD,) + shape[1:]
            for _ in range(NSHARD):
                self.client("MODIFIER_INJECT", "CreateTensor", f"tensor_id={tid} shape={part}")
            for w in range(NSHARD):
                self.buffer(w, "WorkerCreateTensor", WORKER_CREATE + 4 * prod(part))
            self.live[tid] = (None, shape)
        else:
            self.client("MODIFIER_INJECT", "CreateTensor", d)
            w = self.rng.randrange(NSHARD)
            self.buffer(w, "WorkerCreateTensor", WORKER_CREATE + 4 * prod(shape))
            self.live[tid] = (w, shape)
        self.maybe_flush_all()
        self.client("SEND", "CreateTensor", "success=True", SIZE_OK)

    def binary_op(self):
        op = self.rng.choice(BINARY_OPS)
        left, right = self.pick_live(), self.pick_live()
        res = self.new_id()
        d = f"result={res} op={op} left={left} right={right}"
        self.client("RECV", "BinaryOp", d, 100 + len(op) + len(d) // 8)
        w = self.rng.randrange(NSHARD)
        if self.rng.random() < 0.3:
            # Operands live elsewhere: GatherShards are injected first, and their traffic is not logged,
            # so it only shows as a time gap.
            gathers = self.rng.randint(1, 2)
            ids = []
            for src in (left, right) if gathers == 2 else (right,):
                gid = self.rng.randint(1_500_000, 3_000_000)
                ids.append(gid)
                self.client(
                    "MODIFIER_INJECT", "GatherShards", f"result={gid} source={src} target_worker={WORKERS[w]}"
                )
                self.log.ms += self.rng.randint(1, 3)
            if gathers == 2:
                left, right = ids
            else:
                right = ids[0]
        self.client("MODIFIER_INJECT", "BinaryOp", f"result={res} op={op} left={left} right={right}")
        r = self.rng.random()
        if r < 0.05:
            self.log.ms += self.rng.randint(1, 4)  # a sharded path that talks to workers unlogged
        else:
            if r < 0.25:  # a scalar operand is created implicitly, in the same batch
                self.buffer(w, "WorkerCreateTensor", WORKER_SCALAR)
            self.buffer(w, "WorkerBinaryOp", WORKER_BINARY + len(str(res)) + len(op))
        self.live[res] = (w, ())
        self.maybe_flush_all()
        self.client("SEND", "BinaryOp", "success=True", SIZE_OK)

    def unary_op(self):
        res = self.new_id()
        if self.rng.random() < 0.15:
            op = self.rng.choice(CREATE_OPS)
            shape = (self.rng.choice(DIMS), self.rng.choice(DIMS))
            self.client("RECV", "UnaryOp", f"result={res} op={op} shape={shape}", 160 + len(str(shape)))
            if shape[0] % NSHARD == 0:
                part = (shape[0] // NSHARD, shape[1])
                for _ in range(NSHARD):
                    self.client("MODIFIER_INJECT", "UnaryOp", f"result={res} op={op} shape={part}")
                for w in range(NSHARD):
                    self.buffer(w, "WorkerUnaryOp", WORKER_UNARY + len(str(part)))
                self.live[res] = (None, shape)
            else:
                self.client("MODIFIER_INJECT", "UnaryOp", f"result={res} op={op} shape={shape}")
                w = self.rng.randrange(NSHARD)
                self.buffer(w, "WorkerUnaryOp", WORKER_UNARY + len(str(shape)))
                self.live[res] = (w, shape)
        else:
            op = self.rng.choice(UNARY_OPS)
            src = self.pick_live()
            d = f"result={res} op={op} input={src}"
            self.client("RECV", "UnaryOp", d, 150 + len(d) // 4)
            self.client("MODIFIER_INJECT", "UnaryOp", d)
            w = self.live[src][0]
            w = self.rng.randrange(NSHARD) if w is None else w
            self.buffer(w, "WorkerUnaryOp", WORKER_UNARY + len(op))
            self.live[res] = (w, ())
        self.maybe_flush_all()
        self.client("SEND", "UnaryOp", "success=True", SIZE_OK)

    def free_tensor(self):
        if not self.live:
            self.create_tensor()
            return
        # Frees mostly hit recent temporaries; keep a few hundred tensors alive like model weights.
        keys = list(self.live)
        tid = keys[-1 - self.rng.randrange(min(len(keys), 8))] if len(keys) > 200 else self.rng.choice(keys)
        w, _ = self.live.pop(tid)
        d = f"tensor_id={tid}"
        self.client("RECV", "FreeTensor", d, FREE_RECV + len(str(tid)))
        self.client("MODIFIER_INJECT", "FreeTensor", d)
        for target in range(NSHARD) if w is None else (w,):
            self.buffer(target, "WorkerFreeTensor", WORKER_FREE + len(str(tid)))
        self.maybe_flush_all()
        self.client("SEND", "FreeTensor", "success=True", SIZE_OK)

    def get_data(self):
        tid = self.pick_live()
        w, shape = self.live[tid]
        w = self.rng.randrange(NSHARD) if w is None else w
        d = f"tensor_id={tid}"
        self.client("RECV", "GetData", d, GETDATA_RECV + len(str(tid)))
        self.client("MODIFIER_INJECT", "GetData", d)
        self.flush_all()  # pending work must land before the data is read
        data = 150 + 4 * prod(shape)
        self.log.emit("WORKER_SEND", WORKERS[w], "WorkerGetData", f"tensor={CLIENT[7:]}_{tid}", 87 + len(str(tid)))
        self.log.ms += self.rng.randint(0, 3)
        self.log.emit("WORKER_RECV", WORKERS[w], "WorkerGetData", "success=True", data)
        self.client("SEND", "GetData", "success=True", data)

    def reshape_or_slice(self):
        # No details: the RECV is the "size, no details" shape, the inject the "neither" shape.
        cmd = self.rng.choice(["ReshapeOp", "SliceOp"])
        src = self.pick_live()
        self.client("RECV", cmd, "", 140)
        self.client("MODIFIER_INJECT", cmd)
        w = self.live[src][0]
        self.buffer(self.rng.randrange(NSHARD) if w is None else w, "Worker" + cmd, 210)
        self.live[self.new_id()] = self.live[src]
        self.maybe_flush_all()
        self.client("SEND", cmd, "success=True", SIZE_OK)

    def compile_signal(self):
        sig = self.rng.choice(SIGNALS)
        cmd = self.rng.choice(["CompileStart", "CompileEnd"])
        self.client("RECV", cmd, f"signal={sig}", 80 + len(sig))
        self.client("MODIFIER_INJECT", cmd, f"signal={sig}")
        self.flush_all()
        for w in range(NSHARD):
            self.log.emit("WORKER_SEND", WORKERS[w], "Worker" + cmd, f"signal={sig}", 86 + len(sig))
            self.log.emit("WORKER_RECV", WORKERS[w], "Worker" + cmd, "success=True", SIZE_OK)
        self.client("SEND", cmd, "success=True", SIZE_OK)

    def worker_stats(self):
        self.client("RECV", "GetWorkerStats", "", 58)
        self.client("MODIFIER_INJECT", "GetWorkerStats")
        self.flush_all()
        for w in range(NSHARD):
            self.log.emit("WORKER_SEND", WORKERS[w], "WorkerGetStats", "", 62)
            self.log.emit("WORKER_RECV", WORKERS[w], "WorkerGetStats", "success=True", 1400 + 37 * w)
        self.client("SEND", "GetWorkerStats", "success=True", 5900)

    def run(self):
        self.register_workers()
        self.log.ms += 100  # the client connects after the workers
        table = [
            (0.38, self.free_tensor),
            (0.62, self.binary_op),
            (0.78, self.unary_op),
            (0.90, self.create_tensor),
            (0.96, self.get_data),
            (0.985, self.reshape_or_slice),
            (0.997, self.compile_signal),
            (1.0, self.worker_stats),
        ]
        step = 0
        while not self.log.full():
            r = self.rng.random()
            if len(self.live) > 300:
                r = 0.0  # free temporaries so the working set stays the size of a model's
            for bound, fn in table:
                if r < bound:
                    fn()
                    break
            step += 1
            if step % 3000 == 0:
                self.log.ms += self.rng.randint(20, 400)  # an epoch boundary: evaluation, data loading


def main(argv):
    if len(argv) > 3 or (len(argv) > 1 and argv[1] in ("-h", "--help")):
        sys.stderr.write("usage: gen_gt.py [LINES] [OUTPUT]\n")
        return 2
    lines = int(argv[1]) if len(argv) > 1 else 1_000_000
    if lines < 0:
        sys.stderr.write("gen_gt.py: LINES must be >= 0\n")
        return 2
    out = open(argv[2], "w", encoding="ascii", newline="\n") if len(argv) > 2 else sys.stdout
    try:
        if lines <= HEADER_LINES:
            out.write("".join(HEADER.splitlines(keepends=True)[:lines]))
        else:
            out.write(HEADER)
            log = Log(out, lines - HEADER_LINES)
            Workload(log).run()
            log.flush()
    finally:
        if out is not sys.stdout:
            out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
