# Benchmark target: 8 threads, each 50 Python frames deep, sleeping at the
# bottom (so the sampler, not the target, is what is measured).
import sys
import threading
import time

DEPTH = 50


def rec(n, stop):
    if n == 0:
        while not stop.is_set():
            time.sleep(0.01)
        return
    rec(n - 1, stop)


def main():
    stop = threading.Event()
    # The thread's own frames (_bootstrap, _bootstrap_inner, run) count toward the 50.
    ts = [threading.Thread(target=rec, args=(DEPTH - 4, stop), name="deep-%d" % i) for i in range(8)]
    for t in ts:
        t.start()
    print("ready", flush=True)
    time.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 30)
    stop.set()


if __name__ == "__main__":
    main()
