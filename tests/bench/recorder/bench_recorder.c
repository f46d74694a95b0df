/*
** bench_recorder.c: the Recorder benchmark's two halves.
**
**   bench_recorder gen DIR [RANKS RECORDS_PER_RANK]
**       writes a deterministic trace with the Recorder writer (default 64
**       ranks x 81920 records = 5.2 M records): per rank a loop of POSIX
**       calls (open, writes, lseek, pwrites at cycling offsets, close) and
**       MPI-IO collective writes with their nested pwrite, times from a
**       fixed LCG.
**   bench_recorder read DIR THREADS
**       reads it with THREADS threads and prints the phases: read (files,
**       inflate, grammar, expansion, the merge and the model's fill; the
**       records arrive as one batch, so there is no finer cut) and freeze,
**       with the process's CPU time beside each.
*/
#include "tr_load.h"
#include "tr_readers.h"
#include "tr_writers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t lcg = 88172645463325252ULL;

static int64_t next_gap(int64_t base)
{
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return base + (int64_t)((lcg >> 33) % (uint64_t)base);
}

static uint32_t args3(tr_trace *t, tr_str k[], tr_str path, tr_str p, int64_t n)
{
    tr_args_begin(t);
    tr_args_str(t, k[0], path);
    tr_args_str(t, k[1], p);
    tr_args_int(t, k[2], n);
    return tr_args_end(t);
}

static int gen(const char *dir, int ranks, int per_rank)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, dir, "bench");
    tr_str k[8];
    const char *keys[] = {"path", "buf", "count", "offset", "flags", "fh", "datatype", "status"};
    for (int i = 0; i < 8; i++) k[i] = tr_str_internz(t, keys[i]);
    tr_str f_open = tr_str_internz(t, "open"), f_write = tr_str_internz(t, "write");
    tr_str f_pwrite = tr_str_internz(t, "pwrite"), f_close = tr_str_internz(t, "close");
    tr_str f_lseek = tr_str_internz(t, "lseek"), f_mpi = tr_str_internz(t, "MPI_File_write_at_all");
    tr_str ptr = tr_str_internz(t, "%p"), shared = tr_str_internz(t, "/scratch/run/shared.dat");
    for (int r = 0; r < ranks; r++) {
        uint32_t p = tr_process_intern(t, in, r);
        tr_process_at(t, p)->rank = r;
        uint32_t tk = tr_track_intern(t, p, TR_TRACK_THREAD, -1, tr_str_internz(t, "main"));
        char name[64];
        snprintf(name, sizeof name, "/scratch/run/out.%d", r);
        tr_str path = tr_str_internz(t, name);
        int64_t now = 1000;
        for (int i = 0; i < per_rank;) {
            /* 16 records a round: open, 8 writes, lseek, 2 pwrites, close, MPI write + pwrite,
             * close */
            int64_t d;
            tr_args_begin(t);
            tr_args_str(t, k[0], path);
            tr_args_int(t, k[4], 66);
            uint32_t a_open = tr_args_end(t);
            d = next_gap(2000);
            tr_slice_add(t, tk, now, d, f_open, 0, -1, a_open), now += d + next_gap(300), i++;
            uint32_t a_w = args3(t, k, path, ptr, 4096);
            for (int w = 0; w < 8 && i < per_rank; w++, i++) {
                d = next_gap(800);
                tr_slice_add(t, tk, now, d, f_write, 0, 4096, a_w);
                now += d + next_gap(100);
            }
            tr_args_begin(t);
            tr_args_str(t, k[0], path);
            tr_args_int(t, k[3], 0);
            tr_args_int(t, tr_str_internz(t, "whence"), 0);
            d = next_gap(200);
            if (i < per_rank)
                tr_slice_add(t, tk, now, d, f_lseek, 0, -1, tr_args_end(t)), i++;
            else
                tr_args_end(t);
            now += d + next_gap(100);
            for (int w = 0; w < 2 && i < per_rank; w++, i++) {
                tr_args_begin(t);
                tr_args_str(t, k[0], path);
                tr_args_str(t, k[1], ptr);
                tr_args_int(t, k[2], 65536);
                tr_args_int(t, k[3], (int64_t)((i / 16) % 64) * 65536);
                d = next_gap(3000);
                tr_slice_add(t, tk, now, d, f_pwrite, 0, 65536, tr_args_end(t));
                now += d + next_gap(100);
            }
            tr_args_begin(t);
            tr_args_str(t, k[0], path);
            uint32_t a_close = tr_args_end(t);
            if (i < per_rank) tr_slice_add(t, tk, now, 500, f_close, 0, -1, a_close), i++;
            now += 600;
            if (i + 2 <= per_rank) {
                tr_args_begin(t);
                tr_args_str(t, k[5], tr_str_internz(t, "0-0"));
                tr_args_int(t, k[3], (int64_t)r * 131072);
                tr_args_str(t, k[1], ptr);
                tr_args_int(t, k[2], 131072);
                tr_args_str(t, k[6], tr_str_internz(t, "MPI_BYTE"));
                tr_args_str(t, k[7], tr_str_internz(t, "MPI_STATUS_IGNORE"));
                d = next_gap(20000);
                tr_slice_add(t, tk, now, d, f_mpi, 0, 131072, tr_args_end(t));
                tr_args_begin(t);
                tr_args_str(t, k[0], shared);
                tr_args_str(t, k[1], ptr);
                tr_args_int(t, k[2], 131072);
                tr_args_int(t, k[3], (int64_t)r * 131072);
                tr_slice_add(t, tk, now + 1000, d - 2000, f_pwrite, 0, 131072, tr_args_end(t));
                now += d + next_gap(500);
                i += 2;
            }
            if (i < per_rank) tr_slice_add(t, tk, now, 400, f_close, 0, -1, a_close), i++;
            now += 500;
        }
    }
    tr_error e = {0};
    int rc = tr_trace_freeze(t, &e);
    char target[4096];
    snprintf(target, sizeof target, "%s/", dir); /* a directory, not a tar */
    if (rc == TR_OK) rc = tr_write_trace(tr_writer_find("recorder"), t, target, NULL, &e);
    if (rc != TR_OK) fprintf(stderr, "bench_recorder: %s: %s\n", e.file, e.msg);
    tr_trace_free(t);
    return rc == TR_OK ? 0 : 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench_read(const char *dir, int threads)
{
    tr_error e = {0};
    tr_trace *t = tr_trace_new();
    if (!t) return 1;
    double t0 = now_s(), c0 = cpu_s();
    tr_load_opts o = {.readers = tr_readers, .threads = threads};
    int rc = tr_load(t, dir, &o, &e);
    double t1 = now_s(), c1 = cpu_s();
    if (rc == TR_OK) rc = tr_trace_freeze(t, &e);
    double freeze = now_s() - t1, cfreeze = cpu_s() - c1;
    if (rc != TR_OK) {
        fprintf(stderr, "bench_recorder: %s: %s\n", e.file, e.msg);
        return 1;
    }
    tr_slices sl;
    tr_trace_slices(t, &sl);
    double read = t1 - t0;
    printf("threads %d: %zu records; read %.3f s (cpu %.3f s, %.2f M records/s); "
           "freeze %.3f s (cpu %.3f s); %.2f M records/s in all\n",
           threads, sl.n, read, c1 - c0, (double)sl.n / read / 1e6, freeze, cfreeze,
           (double)sl.n / (read + freeze) / 1e6);
    tr_trace_free(t);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "gen") == 0)
        return gen(argv[2], argc > 3 ? atoi(argv[3]) : 64, argc > 4 ? atoi(argv[4]) : 81920);
    if (argc == 4 && strcmp(argv[1], "read") == 0) return bench_read(argv[2], atoi(argv[3]));
    fprintf(stderr, "usage: bench_recorder gen DIR [RANKS RECORDS] | read DIR THREADS\n");
    return 2;
}
