/*
** bench_record.c: the calls tests/bench/record/run.sh times with and
** without tracerecord.  MODE write: N write(2)s of 8 bytes to /dev/null;
** MODE pread: N pread(2)s of 64 bytes at offset 0 of a cached 4 KiB file.
** Prints the median nanoseconds per call over batches of 1000 calls.
*/
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BATCH 1000

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: bench_record write|pread N FILE\n");
        return 2;
    }
    int pread_mode = strcmp(argv[1], "pread") == 0;
    long n = atol(argv[2]);
    static char buf[4096];
    int fd = open(pread_mode ? argv[3] : "/dev/null", pread_mode ? O_RDONLY : O_WRONLY);
    if (fd < 0) {
        perror(argv[3]);
        return 1;
    }
    long batches = n / BATCH;
    double *ns = malloc((size_t)batches * sizeof *ns);
    if (!ns) return 1;
    for (long b = 0; b < batches; b++) {
        double t0 = now();
        for (int i = 0; i < BATCH; i++) {
            ssize_t r = pread_mode ? pread(fd, buf, 64, 0) : write(fd, buf, 8);
            if (r < 0) return 1;
        }
        ns[b] = (now() - t0) / BATCH;
    }
    close(fd);
    qsort(ns, (size_t)batches, sizeof *ns, cmp);
    printf("%.1f\n", ns[batches / 2]);
    free(ns);
    return 0;
}
