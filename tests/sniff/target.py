# A sampling target for tracesniff's tests: known nested functions in two
# named threads (one sleeping, one busy) and a main thread waiting on them.
# Lines marked "# at:NAME" are where the sampled stacks must point.
import sys
import threading
import time


def sleeper_inner():
    while True:
        time.sleep(0.05)  # at:sleep


def sleeper_outer():
    sleeper_inner()  # at:sleeper_outer


def busy_inner():
    x = 0
    while True:
        x += 1  # at:spin


def busy_middle():
    busy_inner()  # at:busy_middle


def busy_outer():
    busy_middle()  # at:busy_outer


def main():
    a = threading.Thread(target=sleeper_outer, name="sleeper-thread", daemon=True)
    b = threading.Thread(target=busy_outer, name="busy-thread", daemon=True)
    a.start()
    b.start()
    print("ready", flush=True)
    limit = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
    end = time.time() + limit
    while time.time() < end:
        time.sleep(0.1)  # at:main_sleep


if __name__ == "__main__":
    main()  # at:module
