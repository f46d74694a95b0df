/*
** follow.c: tracestat --follow LOG, GT's gt.scripts.top from a log instead
** of its monitoring socket.
**
** Every second the log's size and modification time are looked at; when
** they changed, the log is read again whole (through the same readers as
** any input, so a log being written and a capture being replayed read as
** one trace) and the screen is redrawn: the lanes with their utilisation
** bars, the ops by name, and the lanes idle over the last second of the log.
** Reading again costs time proportional to the log, so the next read waits
** at least 20 times the CPU time the last one took: a large log is redrawn
** less often and the command stays at a few per cent of a core.  A partial
** last line (the writer mid-line) is a warning of the read, not shown.
** Ctrl-C (or SIGTERM, SIGHUP) ends the loop between redraws; the exit is 0.
*/
#include "tracestat_impl.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t follow_stop;

static void on_stop(int sig)
{
    (void)sig;
    follow_stop = 1;
}

static int64_t clock_ns(clockid_t which)
{
    struct timespec ts;
    clock_gettime(which, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t now_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

/* The lanes with no slice over the log's last second: a GT worker that stopped getting work. */
static void idle_lanes(const tr_trace *t, tr_buf *b)
{
    int64_t first, last;
    if (!tr_stat_span(t, &first, &last)) return;
    size_t nt = tr_track_count(t);
    tr_slices s;
    tr_trace_slices(t, &s);
    int64_t *end = tr_calloc(nt + 1, sizeof *end);
    uint8_t *has = tr_calloc(nt + 1, 1);
    if (end && has) {
        for (size_t i = 0; i < s.n; i++) {
            int64_t e = s.ts[i] + (tr_slice_dur(&s, i) > 0 ? tr_slice_dur(&s, i) : 0);
            has[s.track[i]] = 1;
            if (e > end[s.track[i]]) end[s.track[i]] = e;
        }
        size_t n = 0;
        for (size_t k = 0; k < nt; k++) {
            if (!has[k] || end[k] >= last - 1000000000) continue;
            tr_buf_adds(b, n++ ? ", " : "\nidle over the last second: ");
            tr_buf_adds(b, tr_str_get(t, tr_track_get(t, (uint32_t)k)->name, NULL));
        }
        if (!n) tr_buf_adds(b, "\nidle over the last second: none");
        tr_buf_addc(b, '\n');
    }
    tr_free(end);
    tr_free(has);
}

/* Reads PATH and draws one screen into B: TR_EXIT_OK or the load's exit code. */
static int follow_screen(tr_cli *c, const tr_report_opts *ro, char *path, tr_buf *b)
{
    tr_trace *t = tr_trace_new();
    if (!t) return TR_EXIT_DATA;
    int verbosity = c->verbosity;
    c->verbosity = 0; /* a line cut by the writer is no news */
    int rc = tr_cli_load(c, t, &path, 1, 0);
    c->verbosity = verbosity;
    tr_report *r = NULL;
    tr_error e = {0};
    if (rc == TR_EXIT_OK && tr_report_new(t, ro, &r, &e) == TR_OK) {
        tr_report_text(r, b);
        idle_lanes(t, b);
    } else if (rc == TR_EXIT_OK) {
        rc = TR_EXIT_DATA;
    }
    tr_report_free(r);
    tr_trace_free(t);
    return rc;
}

/* Sleeps about NS, waking early when a signal came. */
static void nap(int64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
    nanosleep(&ts, NULL);
}

int ts_follow(tr_cli *c, const tr_report_opts *opts, char *path)
{
    tr_report_opts ro = *opts;
    ro.sections = (1u << TR_REPORT_LANES) | (1u << TR_REPORT_OPS);
    if (ro.top < 0) ro.top = 15;
    ro.stat.gaps = 0; /* one screen: bars and counts, not the gap lists */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    struct stat prev = {0};
    int64_t due = 0, redraws = 0;
    tr_buf b;
    tr_buf_init(&b, 0);
    while (!follow_stop) {
        struct stat st;
        int64_t now = now_ns();
        if (stat(path, &st) < 0) {
            tr_cli_errorf(c, "%s: %s", path, strerror(errno));
            tr_buf_fini(&b);
            return TR_EXIT_DATA;
        }
        int changed = st.st_size != prev.st_size || st.st_mtim.tv_sec != prev.st_mtim.tv_sec ||
                      st.st_mtim.tv_nsec != prev.st_mtim.tv_nsec;
        if ((changed || !redraws) && now >= due) {
            int64_t cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
            tr_buf_reset(&b);
            time_t wall = time(NULL);
            char hms[16];
            strftime(hms, sizeof hms, "%H:%M:%S", localtime(&wall));
            tr_buf_addf(&b, "\033[H\033[2Jtracestat --follow %s  (%lld bytes, %s; Ctrl-C ends)\n",
                        path, (long long)st.st_size, hms);
            int rc = follow_screen(c, &ro, path, &b);
            if (rc != TR_EXIT_OK) tr_buf_adds(&b, "(the log cannot be read yet)\n");
            fwrite(b.p, 1, b.len, stdout);
            fflush(stdout);
            /* CPU time, not wall: a loaded machine should not slow the redraws further. */
            int64_t took = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu;
            due = now + (took * 20 > 1000000000 ? took * 20 : 1000000000);
            prev = st;
            redraws++;
        }
        nap(due > now_ns() ? due - now_ns() : 1000000000);
    }
    tr_buf_fini(&b);
    printf("\n");
    return TR_EXIT_OK;
}
