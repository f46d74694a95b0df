/*
** pyspy_folded.c: folded stacks, "frame;frame;...;frame COUNT" a line, root
** first (py-spy record -f raw, inferno, flamegraph.pl's stackcollapse-*).
**
** The count is after the line's last space.  py-spy's root frames
** 'process PID:"CMDLINE"' (--subprocesses; the innermost one counts) and
** "thread (TID)" / "thread (TID): NAME" (--threads) name the process and the
** thread; lines without them go to one track, "all threads".  Each line is
** one sample at time 0 with its count as the arg "count" when it is not 1.
** A frame that is an elision ("...", "[...more user code...]": a hand cut,
** as in dumps) is a gap, not a frame: the sample gets the arg "elided".
** The lines carry no time, so no slices are derived from them.
**
** Consecutive lines share most of their root part, so the previous line's
** text and stack ids are kept: only the frames after the shared part are
** looked up and pushed.
*/
#include "pyspy_impl.h"

#include <string.h>

#define FD_COUNT_CACHE 1024 /* arg sets of small counts, made once */

typedef struct fd_rd {
    tr_trace *t;
    tr_input *in;
    tr_diag *diag;
    uint32_t input;
    uint64_t skipped, warnings;
    tr_pyspy_fcache fcache;
    tr_str k_count, k_elided, all_threads;
    uint32_t count_set[FD_COUNT_CACHE]; /* 0: not made yet (count 1 needs none) */
    uint32_t default_track;
    tr_buf prev;     /* the previous line's frames part */
    tr_vec ends;     /* size_t: where each of its frames ends in prev */
    tr_vec stacks;   /* uint32_t: the stack id after each of its frames */
    tr_vec gaps;     /* uint32_t: the elisions up to each of its frames */
    uint32_t elided; /* elisions in the line's frames */
    tr_buf scratch;
} fd_rd;

static int fd_digit(char c)
{
    return (unsigned)(c - '0') < 10;
}

static int fd_starts(const char *p, size_t n, const char *prefix)
{
    size_t m = strlen(prefix);
    return n >= m && memcmp(p, prefix, m) == 0;
}

/* A decimal or 0x-hex id of N bytes at P. */
static int fd_id(const char *p, size_t n, int64_t *v)
{
    uint64_t x = 0;
    if (n > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        if (n > 18) return 0;
        for (size_t i = 2; i < n; i++) {
            char c = (char)(p[i] | 0x20);
            int d = fd_digit(p[i]) ? p[i] - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (d < 0) return 0;
            x = x << 4 | (uint64_t)d;
        }
        *v = (int64_t)(x & (uint64_t)INT64_MAX);
        return 1;
    }
    if (n == 0 || n > 18) return 0;
    for (size_t i = 0; i < n; i++) {
        if (!fd_digit(p[i])) return 0;
        x = x * 10 + (uint64_t)(p[i] - '0');
    }
    *v = (int64_t)x;
    return 1;
}

static uint32_t fd_count_args(fd_rd *r, uint64_t count)
{
    if (r->elided) {
        tr_args_begin(r->t);
        if (count != 1) tr_args_uint(r->t, r->k_count, count);
        tr_args_uint(r->t, r->k_elided, r->elided);
        return tr_args_end(r->t);
    }
    if (count == 1) return 0;
    if (count < FD_COUNT_CACHE && r->count_set[count]) return r->count_set[count];
    tr_args_begin(r->t);
    tr_args_uint(r->t, r->k_count, count);
    uint32_t set = tr_args_end(r->t);
    if (count < FD_COUNT_CACHE) r->count_set[count] = set;
    return set;
}

/*
** The process and thread root frames at the start of *P..*P+*N; moves past
** them and sets *TRACK (the default track when there are none).
*/
static int fd_prefix(fd_rd *r, const char **pp, size_t *np, uint32_t *track)
{
    const char *p = *pp;
    size_t n = *np;
    uint32_t proc = TR_NONE;
    *track = TR_NONE;
    while (fd_starts(p, n, "process ")) {
        const char *semi = memchr(p, ';', n);
        size_t seg = semi ? (size_t)(semi - p) : n;
        const char *colon = memchr(p, ':', seg);
        int64_t pid;
        if (!colon || !fd_id(p + 8, (size_t)(colon - p - 8), &pid)) break;
        const char *name = colon + 1;
        size_t name_n = (size_t)(p + seg - name);
        if (name_n >= 2 && name[0] == '"' && name[name_n - 1] == '"') name++, name_n -= 2;
        proc = tr_process_intern(r->t, r->input, pid);
        tr_process *pr = tr_process_at(r->t, proc);
        if (!pr) return TR_FATAL;
        if (name_n && !pr->name) pr->name = tr_str_intern(r->t, name, name_n);
        p += seg + (semi != NULL);
        n -= seg + (semi != NULL);
    }
    if (fd_starts(p, n, "thread (")) {
        const char *semi = memchr(p, ';', n);
        size_t seg = semi ? (size_t)(semi - p) : n;
        const char *close = memchr(p, ')', seg);
        int64_t tid;
        if (close && fd_id(p + 8, (size_t)(close - p - 8), &tid) &&
            (close + 1 == p + seg || (close + 2 < p + seg && close[1] == ':' && close[2] == ' '))) {
            if (proc == TR_NONE) proc = tr_process_intern(r->t, r->input, -1);
            *track = tr_track_intern(r->t, proc, TR_TRACK_THREAD, tid, 0);
            tr_track *tk = tr_track_at(r->t, *track);
            if (!tk) return TR_FATAL;
            if (close + 1 < p + seg) {
                tk->name = tr_str_intern(r->t, close + 3, (size_t)(p + seg - close - 3));
            } else if (!tk->name) {
                tr_buf_reset(&r->scratch);
                if (tr_buf_adds(&r->scratch, "Thread ") ||
                    tr_buf_add(&r->scratch, p + 8, (size_t)(close - p - 8)))
                    return TR_FATAL;
                tk->name = tr_str_intern(r->t, r->scratch.p, r->scratch.len);
            }
            p += seg + (semi != NULL);
            n -= seg + (semi != NULL);
        }
    } else if (proc != TR_NONE) {
        *track = tr_track_intern(r->t, proc, TR_TRACK_THREAD, -1, r->all_threads);
    }
    if (*track == TR_NONE) {
        if (r->default_track == TR_NONE)
            r->default_track = tr_track_intern(r->t, tr_process_intern(r->t, r->input, -1),
                                               TR_TRACK_THREAD, -1, r->all_threads);
        *track = r->default_track;
    }
    *pp = p;
    *np = n;
    return TR_OK;
}

/*
** The stack of the frames at P (root first, ';'-separated), reusing the
** previous line's; elisions are counted in r->elided, not pushed.
*/
static uint32_t fd_stack(fd_rd *r, const char *p, size_t n)
{
    size_t common = 0, lim = n < r->prev.len ? n : r->prev.len;
    while (common < lim && p[common] == r->prev.p[common]) common++;
    const size_t *ends = r->ends.data;
    const uint32_t *stacks = r->stacks.data;
    size_t keep = 0;
    while (keep < r->ends.len && ends[keep] <= common && (ends[keep] == n || p[ends[keep]] == ';'))
        keep++;
    uint32_t stack = keep ? stacks[keep - 1] : 0;
    r->ends.len = r->stacks.len = r->gaps.len = keep;
    r->elided = keep ? TR_VEC_AT(&r->gaps, uint32_t, keep - 1) : 0;
    size_t pos = keep ? ends[keep - 1] + 1 : 0;
    uint32_t last = TR_NONE; /* the frame cache's entry of the frame before */
    while (pos <= n && n > 0) {
        const char *semi = memchr(p + pos, ';', n - pos);
        size_t end = semi ? (size_t)(semi - p) : n;
        if (tr_pyspy_is_elision(p + pos, end - pos)) {
            r->elided++;
        } else {
            uint32_t frame = tr_pyspy_fcache_intern(&r->fcache, r->t, p + pos, end - pos, &last);
            if (frame == TR_NONE) return TR_NONE;
            stack = tr_stack_push(r->t, stack, frame);
        }
        size_t *e = tr_vec_push(&r->ends);
        uint32_t *s = tr_vec_push(&r->stacks), *g = tr_vec_push(&r->gaps);
        if (stack == TR_NONE || !e || !s || !g) return TR_NONE;
        *e = end;
        *s = stack;
        *g = r->elided;
        pos = end + 1;
    }
    tr_buf_reset(&r->prev);
    if (tr_buf_add(&r->prev, p, n) != TR_OK) {
        r->ends.len = r->stacks.len = r->gaps.len = 0;
        return TR_NONE;
    }
    return stack;
}

static int fd_line(fd_rd *r, const tr_line *ln, tr_error *e)
{
    const char *p = ln->p;
    size_t n = ln->len;
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t')) n--;
    if (n == 0 || p[0] == '#') {
        r->skipped++;
        return TR_OK;
    }
    size_t sp = n;
    while (sp > 0 && p[sp - 1] != ' ') sp--;
    uint64_t count = 0;
    int ok = sp > 1 && sp < n && n - sp <= 19;
    for (size_t i = sp; ok && i < n; i++) {
        if (!fd_digit(p[i]))
            ok = 0;
        else
            count = count * 10 + (uint64_t)(p[i] - '0');
    }
    if (!ok) {
        tr_loc loc = tr_input_loc(r->in, ln, sp < n ? sp + 1 : n);
        r->warnings++;
        return tr_warnf(r->diag, e, &loc,
                        "folded line: the count after the last space is not a number") == TR_FAIL
                   ? TR_FAIL
                   : TR_OK;
    }
    const char *stk = p;
    size_t stk_n = sp - 1;
    uint32_t track;
    if (fd_prefix(r, &stk, &stk_n, &track) != TR_OK || track == TR_NONE) return tr_error_nomem(e);
    uint32_t stack = fd_stack(r, stk, stk_n);
    if (stack == TR_NONE) return tr_error_nomem(e);
    tr_sample_add(r->t, track, 0, stack, fd_count_args(r, count));
    return tr_trace_status(r->t, e);
}

static int fd_open(void **rd, const tr_read_ctx *c, tr_error *e)
{
    fd_rd *r = tr_calloc(1, sizeof *r);
    *rd = r;
    if (!r) return tr_error_nomem(e);
    tr_trace *t = tr_sink_trace(c->sink);
    r->t = t;
    r->in = c->in;
    r->input = c->input;
    r->diag = c->opts ? c->opts->diag : NULL;
    tr_pyspy_fcache_init(&r->fcache);
    tr_buf_init(&r->prev, 0);
    tr_buf_init(&r->scratch, 0);
    tr_vec_init(&r->ends, sizeof(size_t));
    tr_vec_init(&r->stacks, sizeof(uint32_t));
    tr_vec_init(&r->gaps, sizeof(uint32_t));
    r->k_count = tr_str_internz(t, "count");
    r->k_elided = tr_str_internz(t, "elided");
    r->all_threads = tr_str_internz(t, "all threads");
    r->default_track = TR_NONE; /* made when a line has no prefix */
    return tr_trace_status(t, e);
}

static int fd_finish(fd_rd *r, tr_error *e)
{
    tr_input_info *info = tr_input_at(r->t, r->input);
    if (info) {
        info->lines_skipped += r->skipped;
        info->warnings += r->warnings;
        info->clock = tr_str_internz(r->t, "none: folded stacks carry no time (every sample at 0)");
    }
    return tr_trace_status(r->t, e);
}

static int fd_next(void *rd, tr_error *e)
{
    fd_rd *r = rd;
    tr_line ln;
    for (int k = 0; k < TR_READ_BATCH; k++) {
        int rc = tr_input_getline(r->in, &ln, e);
        if (rc == TR_END) return (rc = fd_finish(r, e)) == TR_OK ? TR_END : rc;
        if (rc == TR_OK) rc = fd_line(r, &ln, e);
        if (rc != TR_OK) return rc;
    }
    return TR_OK;
}

static void fd_close(void *rd)
{
    fd_rd *r = rd;
    if (!r) return;
    tr_pyspy_fcache_fini(&r->fcache);
    tr_buf_fini(&r->prev);
    tr_buf_fini(&r->scratch);
    tr_vec_fini(&r->ends);
    tr_vec_fini(&r->stacks);
    tr_vec_fini(&r->gaps);
    tr_free(r);
}

/* --from folded: folded stacks from any profiler, whatever the head looks like. */
const tr_reader tr_reader_folded = {
    .abi = TR_READER_ABI,
    .name = "folded",
    .description =
        "folded stacks 'frame;frame;frame COUNT' (py-spy record -f raw, inferno, flamegraph.pl)",
    .extensions = "folded,txt",
    .open = fd_open,
    .next = fd_next,
    .close = fd_close,
    .streams = 1,
};
