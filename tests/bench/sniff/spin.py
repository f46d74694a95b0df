# Benchmark target: a CPU-bound loop; prints the wall-clock and the CPU
# seconds its fixed work took.
import sys
import time


def work(n):
    x = 0
    for i in range(n):
        x += i % 7
    return x


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000_000
    t0, c0 = time.perf_counter(), time.process_time()
    work(n)
    print("%.6f %.6f" % (time.perf_counter() - t0, time.process_time() - c0), flush=True)


if __name__ == "__main__":
    main()
