/*
** pyspy.c: py-spy output (shared/formats/pyspy.md): the probe that tells the
** shapes apart, and the `py-spy dump` text reader.
**
** The text reader takes one dump or a sequence of them: every layout from
** 0.1.x to 0.4.x (thread headers with and without names, hex or decimal ids,
** core-dump headers), --native frames, --locals blocks (args of the frame's
** sample), --subprocesses sections, error lines, and the ways sequences are
** written: "#tracecat-dump ts=..." markers (with "#tracecat-counter" lines
** for counters), or, without markers, dumps cut at "Process N:" lines, at
** banners ("=== PID N ===", "Stack dump for", "Pyspy dump for PID N:") and,
** for 0.1.x dumps, at a thread header after text.  Without markers the Nth
** dump is put at N seconds.
**
** Each thread of a dump becomes a sample of its track at the dump's time,
** its state ("idle", "active", "active+gil", "gil") an arg.  Unless
** tr_read_opts.no_stack_slices, consecutive samples of a thread also give
** slices by the open-stacks rule (lib/tr_stack_slices.h).
**
** The reader streams: it holds the thread block being read and, per thread,
** the previous stack (to find the shared root part), never the input.
*/
#include "pyspy_impl.h"

#include "scan_impl.h"
#include "tr_text.h"

#include <stdlib.h>
#include <string.h>

/* ---- the dump text reader ---- */

static const char *const ps_const_text[C_COUNT] = {
    [C_STATE] = "state",           [C_IDLE] = "idle",       [C_ACTIVE] = "active",
    [C_ACTIVE_GIL] = "active+gil", [C_GIL] = "gil",         [C_CAT_ERROR] = "pyspy.error",
    [C_PYSPY] = "py-spy",          [C_MESSAGE] = "message", [C_ELIDED] = "elided",
};

/* What the previous line was, for telling where a dump starts. */
enum { K_NONE, K_TEXT, K_BLANK, K_HEADER, K_THREAD, K_FRAME, K_SEP, K_BANNER };

/* A --locals variable of the thread being read. */
typedef struct ps_local {
    uint32_t frame; /* index in the thread's frames, innermost 0 */
    int is_arg;
    tr_str name, value;
} ps_local;

/* Per track: the previous stack, root first, to reuse its shared part. */
typedef struct ps_prev {
    tr_vec frames;   /* uint32_t */
    tr_vec stacks;   /* uint32_t: the stack id at each depth */
    uint64_t moment; /* the last moment it was sampled in, + 1 */
} ps_prev;

/* Counts and reports a warning; a strict run fails with E filled. */
int ps_warn_e(ps_rd *r, const tr_line *ln, uint64_t col, const char *what, tr_error *e)
{
    tr_loc loc = tr_input_loc(r->in, ln, col);
    r->warnings++;
    return tr_warnf(r->diag, e, &loc, "%s", what) == TR_FAIL ? TR_FAIL : TR_OK;
}

static ps_prev *ps_prev_of(ps_rd *r, uint32_t track)
{
    while (r->prev.len <= track) {
        ps_prev *p = tr_vec_push(&r->prev);
        if (!p) return NULL;
        tr_vec_init(&p->frames, sizeof(uint32_t));
        tr_vec_init(&p->stacks, sizeof(uint32_t));
    }
    return &TR_VEC_AT(&r->prev, ps_prev, track);
}

/* The stack of the thread block: frames innermost first, pushed root first. */
static uint32_t ps_stack(ps_rd *r, ps_prev *pv)
{
    size_t d = r->frames.len;
    const uint32_t *f = r->frames.data;
    if (tr_vec_reserve(&pv->frames, d) != TR_OK || tr_vec_reserve(&pv->stacks, d) != TR_OK)
        return TR_NONE;
    uint32_t *pf = pv->frames.data, *ps = pv->stacks.data;
    size_t k = 0, m = pv->frames.len < d ? pv->frames.len : d;
#ifdef __SSE2__
    /* Four frames a step, the block's order reversed: a dump's stacks keep 20 to 50 of them. */
    for (; k + 4 <= m; k += 4) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(pf + k));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(f + d - 4 - k));
        unsigned same = (unsigned)_mm_movemask_epi8(
            _mm_cmpeq_epi32(a, _mm_shuffle_epi32(b, _MM_SHUFFLE(0, 1, 2, 3))));
        if (same != 0xffff) break;
    }
#endif
    while (k < m && pf[k] == f[d - 1 - k]) k++;
    for (size_t i = k; i < d; i++) pf[i] = f[d - 1 - i];
    uint32_t stack = k ? ps[k - 1] : 0;
    if (k < d) stack = tr_stack_push_path(r->t, stack, pf + k, d - k, ps + k);
    if (stack == TR_NONE) {
        pv->frames.len = pv->stacks.len = 0;
        return TR_NONE;
    }
    pv->frames.len = pv->stacks.len = d;
    return stack;
}

/* The args of the sample: its state, its gaps, and its --locals when it has some. */
static uint32_t ps_sample_args(ps_rd *r)
{
    if (r->locals.len == 0 && r->elided == 0) return r->state_args;
    tr_trace *t = r->t;
    tr_args_begin(t);
    if (r->state_args) {
        tr_arg a;
        tr_args_at(t, r->state_args, 0, &a);
        tr_args_str(t, a.key, a.v.s);
    }
    if (r->elided) tr_args_uint(t, r->c[C_ELIDED], r->elided);
    for (size_t i = 0; i < r->locals.len; i++) {
        const ps_local *l = &TR_VEC_AT(&r->locals, ps_local, i);
        size_t n;
        const char *name = tr_str_get(t, l->name, &n);
        tr_buf_reset(&r->scratch);
        if (tr_buf_addf(&r->scratch, "%s.%u.", l->is_arg ? "args" : "locals", (unsigned)l->frame) ||
            tr_buf_add(&r->scratch, name, n))
            continue;
        tr_args_str(t, tr_str_intern(t, r->scratch.p, r->scratch.len), l->value);
    }
    return tr_args_end(t);
}

/* Ends the thread block being read: its sample, and its slices. */
static int ps_thread_end(ps_rd *r, tr_error *e)
{
    if (!r->in_thread) return TR_OK;
    r->in_thread = 0;
    ps_prev *pv = ps_prev_of(r, r->track);
    uint32_t stack = pv ? ps_stack(r, pv) : TR_NONE;
    if (stack == TR_NONE) return tr_error_nomem(e);
    tr_sample_add(r->t, r->track, r->ts, stack, ps_sample_args(r));
    if (r->slicer && tr_stack_slicer_sample(r->slicer, r->track, r->ts, stack) != TR_OK)
        return tr_error_nomem(e);
    r->frames.len = 0;
    r->locals.len = 0;
    r->elided = 0;
    return tr_trace_status(r->t, e);
}

/* Ends the current moment: threads absent from it close their frames. */
static int ps_moment_end(ps_rd *r, tr_error *e)
{
    int rc = ps_thread_end(r, e);
    if (rc != TR_OK) return rc;
    for (size_t i = 0; i < r->touched.len && r->slicer; i++)
        if (tr_stack_slicer_sweep(r->slicer, TR_VEC_AT(&r->touched, uint32_t, i), r->ts) != TR_OK)
            return tr_error_nomem(e);
    r->touched.len = 0;
    r->moment_threads = 0;
    return TR_OK;
}

/* Starts a moment at TS (markers) or at the next dump number. */
int ps_moment_start(ps_rd *r, int timed, int64_t ts, tr_error *e)
{
    int rc = ps_moment_end(r, e);
    if (rc != TR_OK) return rc;
    if (timed)
        r->ts = ts;
    else if (r->moment)
        r->ts += PS_NS_PER_S;
    r->moment++;
    r->process = TR_NONE;
    r->pending_pid = -1;
    r->pending_host = r->marker_host;
    r->pending_rank = -1;
    r->moment_fresh = 1;
    return TR_OK;
}

/* The process samples go to now, made from the pending pid when none is named. */
static uint32_t ps_process(ps_rd *r)
{
    if (r->process != TR_NONE) return r->process;
    /* A marker's host tells apart the same pid on two nodes of one file. */
    r->process = tr_process_intern_on(r->t, r->input, r->pending_host, r->pending_pid);
    tr_process *p = tr_process_at(r->t, r->process);
    if (p && r->pending_rank >= 0) p->rank = r->pending_rank;
    return r->process;
}

static void ps_touch(ps_rd *r, uint32_t process)
{
    for (size_t i = 0; i < r->touched.len; i++)
        if (TR_VEC_AT(&r->touched, uint32_t, i) == process) return;
    uint32_t *p = tr_vec_push(&r->touched);
    if (p) *p = process;
}

/* ---- line shapes ---- */

static int ps_starts(const char *p, size_t n, const char *prefix)
{
    size_t m = strlen(prefix);
    return n >= m && memcmp(p, prefix, m) == 0;
}

/* Parses a decimal pid at P (up to N bytes); returns the digits' length or 0. */
size_t ps_pid(const char *p, size_t n, int64_t *pid)
{
    size_t i = 0;
    int64_t v = 0;
    while (i < n && ps_digit(p[i])) {
        if (v > (INT64_MAX - 9) / 10) return 0;
        v = v * 10 + (p[i++] - '0');
    }
    if (i) *pid = v;
    return i;
}

static const char *ps_find(const char *p, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++)
        if (p[i] == needle[0] && memcmp(p + i, needle, m) == 0) return p + i;
    return NULL;
}

/*
** A thread header: "Thread ID[/ID][ (STATUS)][: "NAME"]".  ID is decimal or
** 0x-hex; of "0xPY/OS" the OS id counts.  Returns 1 and fills the parts.
*/
typedef struct ps_thread_hdr {
    int64_t tid;
    const char *id, *status, *name;
    size_t id_n, status_n, name_n;
} ps_thread_hdr;

static int ps_parse_id(const char *p, size_t n, int64_t *v)
{
    uint64_t x = 0;
    if (n > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        if (n - 2 > 16) return 0;
        for (size_t i = 2; i < n; i++) {
            char c = p[i];
            int d = ps_digit(c)                              ? c - '0'
                    : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10
                                                             : -1;
            if (d < 0) return 0;
            x = x << 4 | (uint64_t)d;
        }
        *v = (int64_t)(x & (uint64_t)INT64_MAX); /* pthread ids are addresses: 63 bits are plenty */
        return 1;
    }
    int64_t d = 0;
    return n > 0 && ps_pid(p, n, &d) == n ? (*v = d, 1) : 0;
}

static int ps_parse_thread(const char *p, size_t n, ps_thread_hdr *h)
{
    if (!ps_starts(p, n, "Thread ")) return 0;
    size_t i = 7, id0 = i;
    while (i < n && p[i] != ' ' && p[i] != ':') i++;
    h->id = p + id0;
    h->id_n = i - id0;
    const char *slash = memchr(h->id, '/', h->id_n);
    const char *os = slash ? slash + 1 : h->id;
    if (!ps_parse_id(os, (size_t)(h->id + h->id_n - os), &h->tid)) return 0;
    h->status = h->name = NULL;
    h->status_n = h->name_n = 0;
    if (i + 1 < n && p[i] == ' ' && p[i + 1] == '(') {
        const char *close = memchr(p + i + 2, ')', n - i - 2);
        if (!close) return 0;
        h->status = p + i + 2;
        h->status_n = (size_t)(close - h->status);
        i = (size_t)(close - p) + 1;
    }
    if (i == n) return 1;
    if (i + 1 < n && p[i] == ':' && p[i + 1] == ' ') {
        const char *nm = p + i + 2;
        size_t nm_n = n - i - 2;
        /* Quoted without escapes: the name runs to the line's last quote. */
        if (nm_n >= 2 && nm[0] == '"' && nm[nm_n - 1] == '"') {
            nm++;
            nm_n -= 2;
        }
        h->name = nm;
        h->name_n = nm_n;
        return 1;
    }
    return 0;
}

static uint32_t ps_state_args(ps_rd *r, const char *s, size_t n)
{
    static const char *const names[4] = {"idle", "active", "active+gil", "gil"};
    if (!s) return 0;
    for (int i = 0; i < 4; i++)
        if (strlen(names[i]) == n && memcmp(s, names[i], n) == 0) return r->state_set[i];
    tr_args_begin(r->t);
    tr_args_str(r->t, r->c[C_STATE], tr_str_intern(r->t, s, n));
    return tr_args_end(r->t);
}

static int ps_on_thread(ps_rd *r, const ps_thread_hdr *h, tr_error *e)
{
    int rc = ps_thread_end(r, e);
    if (rc != TR_OK) return rc;
    if (!r->markers && r->moment_threads > 0 &&
        (r->prev_kind == K_TEXT || r->prev_kind == K_BLANK)) {
        /* 0.1.x dumps have no Process line: a header after text starts one. */
        if ((rc = ps_moment_start(r, 0, 0, e)) != TR_OK) return rc;
    }
    if (r->moment == 0 && (rc = ps_moment_start(r, 0, 0, e)) != TR_OK) return rc;
    uint32_t proc = ps_process(r);
    if (proc == TR_NONE) return tr_error_nomem(e);
    uint32_t track = tr_track_intern(r->t, proc, TR_TRACK_THREAD, h->tid, 0);
    ps_prev *pv = track == TR_NONE ? NULL : ps_prev_of(r, track);
    if (!pv) return tr_error_nomem(e);
    if (pv->moment == r->moment && !r->markers) {
        /* The same thread twice: plain concatenation of dumps. */
        if ((rc = ps_moment_start(r, 0, 0, e)) != TR_OK) return rc;
        r->process = proc;
    }
    pv->moment = r->moment;
    tr_track *tk = tr_track_at(r->t, track);
    size_t had_n;
    const char *had = tr_str_get(r->t, tk->name, &had_n);
    if (h->name && h->name_n) {
        /* Each dump names the thread again, nearly always as before. */
        if (had_n != h->name_n || memcmp(had, h->name, had_n) != 0)
            tk->name = tr_str_intern(r->t, h->name, h->name_n);
    } else if (!tk->name) {
        tr_buf_reset(&r->scratch);
        if (tr_buf_adds(&r->scratch, "Thread ") || tr_buf_add(&r->scratch, h->id, h->id_n))
            return tr_error_nomem(e);
        tk->name = tr_str_intern(r->t, r->scratch.p, r->scratch.len);
    }
    r->track = track;
    r->fprev = TR_NONE;
    r->state_args = ps_state_args(r, h->status, h->status_n);
    r->in_thread = 1;
    r->locals_section = 0;
    r->orphan_warned = 0;
    r->moment_threads++;
    r->moment_fresh = 0;
    ps_touch(r, proc);
    return tr_trace_status(r->t, e);
}

/* "Process PID: CMDLINE" at column 0. */
static int ps_on_process(ps_rd *r, int64_t pid, const char *cmd, size_t cmd_n, tr_error *e)
{
    int rc = ps_thread_end(r, e);
    if (rc != TR_OK) return rc;
    /* Same moment: a --subprocesses child after its separator, or right after a banner. */
    if (!r->markers && r->prev_kind != K_SEP && !r->moment_fresh) {
        if ((rc = ps_moment_start(r, 0, 0, e)) != TR_OK) return rc;
    } else if (r->moment == 0 && (rc = ps_moment_start(r, 0, 0, e)) != TR_OK) {
        return rc;
    }
    r->moment_fresh = 0;
    r->pending_pid = pid;
    r->process = TR_NONE;
    uint32_t proc = ps_process(r);
    tr_process *p = tr_process_at(r->t, proc);
    if (!p) return tr_error_nomem(e);
    if (cmd_n && !p->name) p->name = tr_str_intern(r->t, cmd, cmd_n);
    return TR_OK;
}

/* ---- banners ---- */

/*
** A line that announces a dump without markers: "=== PID N ===", "== pid N
** ==", "--- Stack dump for PID N ---", "... Pyspy dump for PID N:", or ray's
** "Stack dump for <ps aux line>" (the pid is its second column).
** Returns 1 with *PID (-1 when unknown) and the process name in *NAME.
*/
static int ps_banner(const char *p, size_t n, int64_t *pid, const char **name, size_t *name_n)
{
    *pid = -1;
    *name = NULL;
    *name_n = 0;
    if (ps_starts(p, n, "Stack dump for ")) {
        const char *s = p + 15, *end = p + n;
        const char *q = ps_find(s, (size_t)(end - s), "PID ");
        if (q && s == q) {
            ps_pid(q + 4, (size_t)(end - q - 4), pid);
            return 1;
        }
        /* ps aux: USER PID %CPU %MEM VSZ RSS TTY STAT START TIME COMMAND */
        int col = 0;
        while (s < end) {
            while (s < end && *s == ' ') s++;
            const char *w = s;
            while (s < end && *s != ' ') s++;
            if (s == w) break;
            col++;
            if (col == 2) ps_pid(w, (size_t)(s - w), pid);
            if (col == 11) {
                *name = w;
                *name_n = (size_t)(end - w);
                break;
            }
        }
        return 1;
    }
    const char *q;
    if ((q = ps_find(p, n, "Pyspy dump for PID ")) != NULL ||
        (q = ps_find(p, n, "Stack dump for PID ")) != NULL) {
        ps_pid(q + 19, n - (size_t)(q + 19 - p), pid);
        return 1;
    }
    if ((ps_starts(p, n, "== ") || ps_starts(p, n, "=== ")) && n > 8 && p[n - 1] == '=') {
        const char *s = p;
        while (*s == '=') s++;
        s++;
        if (ps_starts(s, (size_t)(p + n - s), "PID ") ||
            ps_starts(s, (size_t)(p + n - s), "pid ")) {
            return ps_pid(s + 4, (size_t)(p + n - s - 4), pid) > 0;
        }
    }
    return 0;
}

/* A host name's or user name's bytes. */
static int ps_name_char(char c)
{
    return ps_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '-' || c == '_' ||
           c == '.';
}

/*
** A shell prompt before a command: "user@host:~/dir$ py-spy dump ...",
** "root@host:/# ...", "[user@host dir]$ ...", each maybe after "(venv) ".
** Returns 1 with the host in *HOST.
*/
static int ps_prompt_host(const char *p, size_t n, const char **host, size_t *host_n)
{
    size_t i = 0;
    if (n && p[0] == '(') {
        while (i < n && p[i] != ')') i++;
        if (i + 1 >= n || p[i + 1] != ' ') return 0;
        i += 2;
    }
    int bracket = i < n && p[i] == '[';
    i += (size_t)bracket;
    size_t user = i;
    while (i < n && ps_name_char(p[i])) i++;
    if (i == user || i >= n || p[i] != '@') return 0;
    size_t h = ++i;
    while (i < n && ps_name_char(p[i])) i++;
    if (i == h || i >= n) return 0;
    *host = p + h;
    *host_n = i - h;
    if (p[i] == ':' && !bracket) {
        while (i < n && p[i] != ' ' && p[i] != '$' && p[i] != '#') i++;
    } else if (bracket && (p[i] == ' ' || p[i] == ']')) {
        while (i < n && p[i] != ']') i++;
        i++;
    } else {
        return 0;
    }
    return i < n && (p[i] == '$' || p[i] == '#') && (i + 1 == n || p[i + 1] == ' ');
}

/* ---- lines ---- */

/* Drops ANSI colour sequences (ESC [ ... letter) pasted from terminals. */
static int ps_strip_ansi(ps_rd *r, tr_line *ln)
{
    tr_buf_reset(&r->clean);
    for (size_t i = 0; i < ln->len; i++) {
        if (ln->p[i] == '\x1b' && i + 1 < ln->len && ln->p[i + 1] == '[') {
            i += 2;
            while (i < ln->len && !((ln->p[i] | 0x20) >= 'a' && (ln->p[i] | 0x20) <= 'z')) i++;
            continue;
        }
        if (tr_buf_addc(&r->clean, ln->p[i]) != TR_OK) return TR_FATAL;
    }
    ln->p = r->clean.p;
    ln->len = r->clean.len;
    return TR_OK;
}

/* Whether a line at P may be a gap (tr_pyspy_is_elision): it starts, after blanks, with one of
 * these. */
static int ps_maybe_elision(char c)
{
    return c == '.' || c == '[' || c == '(' || c == '\xE2' || c == ' ' || c == '\t';
}

static int ps_on_frame(ps_rd *r, const tr_line *ln, const char *p, size_t n, tr_error *e)
{
    if (n && ps_maybe_elision(p[0]) && tr_pyspy_is_elision(p, n)) {
        /* A gap: the frames around it stay, the sample says frames are missing. */
        r->skipped++;
        r->elided += r->in_thread;
        return TR_OK;
    }
    if (!r->in_thread) {
        /* one warning for the run of them, the others counted as skipped lines */
        if (r->orphan_warned) {
            r->skipped++;
            return TR_OK;
        }
        r->orphan_warned = 1;
        return ps_warn_e(r, ln, 1,
                         "frame line outside a thread (no 'Thread' header before it): skipped, "
                         "with the frame lines after it",
                         e);
    }
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t')) n--;
    uint32_t frame = tr_pyspy_fcache_intern(&r->fcache, r->t, p, n, &r->fprev);
    if (frame == TR_NONE ||
        (r->frames.len == r->frames.cap && tr_vec_reserve(&r->frames, r->frames.len + 1) != TR_OK))
        return tr_error_nomem(e);
    ((uint32_t *)r->frames.data)[r->frames.len++] = frame;
    r->locals_section = 0;
    return TR_OK;
}

/* "        Arguments:" / "Locals:" (or the 0.2.2-0.3.8 "::"), and "            name: repr". */
static int ps_on_locals(ps_rd *r, const tr_line *ln, const char *p, size_t n, tr_error *e)
{
    if (!r->in_thread || r->frames.len == 0)
        return ps_warn_e(r, ln, 1, "--locals line outside a frame", e);
    if (ps_starts(p, n, "Arguments:")) {
        r->locals_section = 1;
        return TR_OK;
    }
    if (ps_starts(p, n, "Locals:")) {
        r->locals_section = 2;
        return TR_OK;
    }
    while (n && *p == ' ') p++, n--;
    const char *colon = ps_find(p, n, ": ");
    size_t name_n = colon ? (size_t)(colon - p) : n;
    const char *v = colon ? colon + 2 : p + n;
    ps_local *l = tr_vec_push(&r->locals);
    if (!l) return tr_error_nomem(e);
    l->frame = (uint32_t)(r->frames.len - 1);
    l->is_arg = r->locals_section == 1;
    l->name = tr_str_intern(r->t, p, name_n);
    l->value = tr_str_add(r->t, v, (size_t)(p + n - v));
    return TR_OK;
}

static int ps_on_error(ps_rd *r, const char *msg, size_t n, tr_error *e)
{
    int rc = ps_thread_end(r, e);
    if (rc != TR_OK) return rc;
    if (r->moment == 0 && (rc = ps_moment_start(r, 0, 0, e)) != TR_OK) return rc;
    uint32_t proc = ps_process(r);
    if (proc == TR_NONE) return tr_error_nomem(e);
    uint32_t track = tr_track_intern(r->t, proc, TR_TRACK_THREAD, -1, r->c[C_PYSPY]);
    tr_args_begin(r->t);
    tr_args_str(r->t, r->c[C_MESSAGE], tr_str_add(r->t, msg, n));
    uint32_t args = tr_args_end(r->t);
    tr_instant_add(r->t, track, r->ts, tr_str_internz(r->t, "py-spy error"), r->c[C_CAT_ERROR],
                   TR_SCOPE_THREAD, -1, args);
    return tr_trace_status(r->t, e);
}

static int ps_is_sep(const char *p, size_t n)
{
    if (n < 10) return 0;
    for (size_t i = 0; i < n; i++)
        if (p[i] != '-') return 0;
    return 1;
}

/* Frame and --locals lines, nearly every line: 1 when LN is one, with *RC set. */
static int ps_frame_line(ps_rd *r, tr_line *ln, int *rc, tr_error *e)
{
    const char *p = ln->p;
    size_t n = ln->len;
    r->prev_kind = K_FRAME;
    if (n > 4 && p[0] == ' ' && p[1] == ' ' && p[2] == ' ' && p[3] == ' ') {
        if (p[4] != ' ') return *rc = ps_on_frame(r, ln, p + 4, n - 4, e), 1;
        if (n > 8 && memcmp(p + 4, "    ", 4) == 0 && r->in_thread)
            return *rc = ps_on_locals(r, ln, p + 8, n - 8, e), 1;
    }
    if (n > 1 && p[0] == '\t') {
        /* 0.1.x: TAB + space */
        size_t skip = p[1] == ' ' ? 2 : 1;
        return *rc = ps_on_frame(r, ln, p + skip, n - skip, e), 1;
    }
    if (memchr(p, '\x1b', n)) {
        if (ps_strip_ansi(r, ln) != TR_OK) return *rc = tr_error_nomem(e), 1;
        p = ln->p;
        n = ln->len;
        if (n > 4 && memcmp(p, "    ", 4) == 0 && p[4] != ' ')
            return *rc = ps_on_frame(r, ln, p + 4, n - 4, e), 1;
    }
    return 0;
}

/*
** Where the line at P ends: its '\n', found 16 bytes at a time before END,
** when the line holds no NUL and no byte >= 0x80; else NULL, as for a line
** that ends within 16 bytes of END: tr_input_getline reads it, replacing a
** NUL or invalid UTF-8 (with a warning), passing valid UTF-8 unchanged.
*/
static const char *ps_clean_line(const char *p, const char *end)
{
    for (const char *b = p; end - b >= 16; b += 16) {
        uint32_t nl, bad;
        tr_scan16(b, '\n', &nl, &bad);
        if (nl) return bad & ((1u << __builtin_ctz(nl)) - 1) ? NULL : b + __builtin_ctz(nl);
        if (bad) return NULL;
    }
    return NULL;
}

/*
** The frame lines that follow a thread header, read in place in the input's
** buffer, unchecked (tr_input_span_raw): nearly every line of a dump is
** "    frame", and most are the line that followed the line before last time
** (tr_pyspy_fcache_guess), which a comparison finds with the line's end; a
** line equal to a cached one is one tr_input_getline hands out unchanged,
** since the cache holds only such lines.  The others are scanned for their
** end and checked in one pass (ps_clean_line).  Stops at the first line
** that is not a plain frame line (gaps, --locals, headers, blank lines,
** "\r\n" endings), not whole in the span or not clean: ps_line reads those
** as every other line.
*/
static int ps_frame_run(ps_rd *r, tr_error *e)
{
    const char *p;
    size_t n = tr_input_span_raw(r->in, &p);
    const char *s = p, *end = p + n;
    uint64_t lines = 0;
    int rc = TR_OK;
    /* What ps_frame_line sends to ps_on_frame, less what may be a gap. */
    while (end - s > 5 && memcmp(s, "    ", 4) == 0 && (unsigned char)s[4] > ' ' &&
           (unsigned char)s[4] < 0x80 && s[4] != '.' && s[4] != '[' && s[4] != '(') {
        const char *f = s + 4;
        size_t len;
        uint32_t frame = tr_pyspy_fcache_guess(&r->fcache, f, end, &r->fprev, &len);
        if (frame != TR_NONE) {
            s = f + len + 1;
        } else {
            const char *nl = ps_clean_line(f, end);
            if (!nl || nl[-1] == '\r') break;
            s = nl + 1;
            while (nl[-1] == ' ' || nl[-1] == '\t') nl--;
            frame = tr_pyspy_fcache_known(&r->fcache, f, (size_t)(nl - f), &r->fprev);
            if (frame == TR_NONE)
                frame = tr_pyspy_fcache_lookup(&r->fcache, r->t, f, (size_t)(nl - f), &r->fprev);
        }
        if (frame == TR_NONE || (r->frames.len == r->frames.cap &&
                                 tr_vec_reserve(&r->frames, r->frames.len + 1) != TR_OK)) {
            rc = tr_error_nomem(e);
            break;
        }
        ((uint32_t *)r->frames.data)[r->frames.len++] = frame;
        lines++;
    }
    if (lines) {
        r->prev_kind = K_FRAME;
        r->locals_section = 0;
    }
    tr_input_skip(r->in, (size_t)(s - p), lines);
    return rc;
}

/* "Python v3.x (path)": the process's label. */
static void ps_on_python(ps_rd *r, const char *p, size_t n)
{
    if (p[1] != 'y' || r->process == TR_NONE) return;
    tr_process *pr = tr_process_at(r->t, r->process);
    const char *sp = memchr(p, ' ', n);
    size_t vn = (size_t)(p + n - sp - 1);
    const char *paren = memchr(sp + 1, ' ', vn);
    tr_buf_reset(&r->scratch);
    if (pr && !tr_buf_adds(&r->scratch, "Python ") &&
        !tr_buf_add(&r->scratch, sp + 2, (size_t)((paren ? paren : p + n) - sp - 2)))
        pr->labels = tr_str_intern(r->t, r->scratch.p, r->scratch.len);
}

/* A banner: a new dump (without markers) of process PID, named NAME when it says. */
static int ps_on_banner(ps_rd *r, int64_t pid, const char *name, size_t name_n, tr_error *e)
{
    int rc;
    if (r->markers) {
        if ((rc = ps_thread_end(r, e)) != TR_OK) return rc;
        r->process = TR_NONE;
    } else if ((rc = ps_moment_start(r, 0, 0, e)) != TR_OK) {
        return rc;
    }
    r->pending_pid = pid;
    if (name_n) {
        uint32_t proc = ps_process(r);
        tr_process *pr = tr_process_at(r->t, proc);
        if (pr && !pr->name) pr->name = tr_str_intern(r->t, name, name_n);
    }
    r->skipped++;
    return TR_OK;
}

/* "#..." lines: markers, counters, comments. */
static int ps_on_hash(ps_rd *r, const tr_line *ln, int *kind, tr_error *e)
{
    const char *p = ln->p;
    size_t n = ln->len;
    *kind = r->prev_kind; /* a comment or counter changes nothing */
    if (ps_starts(p, n, "#tracecat-dump ") || (n == 14 && ps_starts(p, n, "#tracecat-dump"))) {
        *kind = K_BANNER;
        return ps_on_marker(r, ln, e);
    }
    if (ps_starts(p, n, "#tracecat-counter ")) return ps_on_counter(r, ln, e);
    r->skipped++;
    return TR_OK;
}

static int ps_line(ps_rd *r, tr_line *ln, tr_error *e)
{
    int rc = TR_OK, kind = K_TEXT, prev = r->prev_kind;
    if (ps_frame_line(r, ln, &rc, e)) return rc;
    r->prev_kind = prev;
    const char *p = ln->p, *name;
    size_t n = ln->len, name_n, blank = 0;
    ps_thread_hdr th;
    int64_t pid;
    while (blank < n && (p[blank] == ' ' || p[blank] == '\t')) blank++;
    if (blank == n) {
        /* A blank line ends a thread's frames. */
        if ((rc = ps_thread_end(r, e)) != TR_OK) return rc;
        if (r->prev_kind != K_HEADER && r->prev_kind != K_SEP && r->prev_kind != K_BANNER)
            r->prev_kind = K_BLANK;
        return TR_OK;
    } else if (p[0] == 'T' && ps_parse_thread(p, n, &th)) {
        rc = ps_on_thread(r, &th, e);
        kind = K_THREAD;
    } else if (ps_starts(p, n, "Process ") && ps_pid(p + 8, n - 8, &pid) > 0 &&
               p[8 + ps_pid(p + 8, n - 8, &pid)] == ':') {
        const char *cmd = ps_find(p, n, ":") + 1;
        if (cmd < p + n && *cmd == ' ') cmd++;
        rc = ps_on_process(r, pid, cmd, (size_t)(p + n - cmd), e);
        kind = K_HEADER;
    } else if (ps_starts(p, n, "Python v") || ps_starts(p, n, "Parent Process ")) {
        ps_on_python(r, p, n);
        r->skipped++;
        kind = r->prev_kind == K_SEP ? K_SEP : K_HEADER;
    } else if (p[0] == '#') {
        rc = ps_on_hash(r, ln, &kind, e);
    } else if (ps_starts(p, n, "Error: ")) {
        rc = ps_on_error(r, p + 7, n - 7, e);
    } else if (ps_is_sep(p, n)) {
        if ((rc = ps_thread_end(r, e)) == TR_OK) r->skipped++;
        kind = K_SEP;
    } else if (r->in_thread && tr_pyspy_is_elision(p, n)) {
        rc = ps_on_frame(r, ln, p, n, e);
        kind = K_FRAME;
    } else if (ps_prompt_host(p, n, &name, &name_n)) {
        /* The shell the dumps were run in names the host of what follows. */
        if ((rc = ps_thread_end(r, e)) == TR_OK) r->skipped++;
        r->marker_host = r->pending_host = tr_str_intern(r->t, name, name_n);
        r->process = TR_NONE;
    } else if (ps_banner(p, n, &pid, &name, &name_n)) {
        if ((rc = ps_on_banner(r, pid, name, name_n, e)) != TR_OK) return rc;
        kind = K_BANNER;
    } else {
        /* Anything else (prompts, log lines, "Caused by:") is not py-spy's. */
        if ((rc = ps_thread_end(r, e)) == TR_OK) r->skipped++;
    }
    r->prev_kind = kind;
    return rc;
}

/* The end of the input: the last moment, the slices still open, the input's info. */
static int ps_finish(ps_rd *r, tr_error *e)
{
    int rc = ps_moment_end(r, e);
    if (rc == TR_OK && r->slicer && tr_stack_slicer_finish(r->slicer) != TR_OK)
        rc = tr_error_nomem(e);
    tr_input_info *info = tr_input_at(r->t, r->input);
    if (info) {
        info->lines_skipped += r->skipped;
        info->warnings += r->warnings;
        info->clock = tr_str_internz(
            r->t, r->markers
                      ? "wall clock of the #tracecat-dump markers"
                      : "dump number: the Nth dump of the input at N seconds (no times given)");
    }
    return rc == TR_OK ? tr_trace_status(r->t, e) : rc;
}

/* RC, unless a label or name built in the scratch was lost for want of memory: the read fails. */
static int ps_kept(const ps_rd *r, int rc, tr_error *e)
{
    return r->scratch.nomem ? tr_error_nomem(e) : rc;
}

static int ps_text_next(void *rd, tr_error *e)
{
    ps_rd *r = rd;
    tr_line ln;
    for (int k = 0; k < TR_READ_BATCH; k++) {
        int rc = r->in_thread ? ps_frame_run(r, e) : TR_OK;
        if (rc == TR_OK) rc = tr_input_getline(r->in, &ln, e);
        if (rc == TR_END) return (rc = ps_finish(r, e)) == TR_OK ? ps_kept(r, TR_END, e) : rc;
        if (rc == TR_OK) rc = ps_line(r, &ln, e);
        if (rc != TR_OK) return rc;
    }
    return ps_kept(r, TR_OK, e);
}

static void ps_text_close(void *rd)
{
    ps_rd *r = rd;
    if (!r) return;
    tr_stack_slicer_free(r->slicer);
    tr_pyspy_fcache_fini(&r->fcache);
    tr_buf_fini(&r->scratch);
    tr_buf_fini(&r->clean);
    tr_vec_fini(&r->touched);
    tr_vec_fini(&r->frames);
    tr_vec_fini(&r->locals);
    for (size_t i = 0; i < r->prev.len; i++) {
        tr_vec_fini(&TR_VEC_AT(&r->prev, ps_prev, i).frames);
        tr_vec_fini(&TR_VEC_AT(&r->prev, ps_prev, i).stacks);
    }
    tr_vec_fini(&r->prev);
    tr_free(r);
}

/*
** Input bytes a sample and a stack take: a sample (a thread's stack in a
** dump) 1.5 to 3 KB, and dumps whose stacks keep changing make a new stack
** node every 150 to 200 bytes (a hint too small costs a copy of the nodes
** when they outgrow it); repetitive dumps make far fewer, which leaves part
** of the stack index unused.  It sizes the model (tr_sink_expect).
*/
static const tr_expect ps_bytes_per = {{0, 0, 0, 1500}, 0, 0, 150, 0, 0, 0};

static int ps_text_open(void **rd, const tr_read_ctx *c, tr_error *e)
{
    tr_sink_expect(c->sink, tr_input_size(c->in), &ps_bytes_per);
    ps_rd *r = tr_calloc(1, sizeof *r);
    *rd = r;
    if (!r) return tr_error_nomem(e);
    tr_trace *t = tr_sink_trace(c->sink);
    r->t = t;
    r->in = c->in;
    r->input = c->input;
    r->diag = c->opts ? c->opts->diag : NULL;
    r->process = TR_NONE;
    r->pending_pid = -1;
    r->pending_rank = -1;
    tr_pyspy_fcache_init(&r->fcache);
    tr_buf_init(&r->scratch, 0);
    tr_buf_init(&r->clean, 0);
    tr_vec_init(&r->touched, sizeof(uint32_t));
    tr_vec_init(&r->frames, sizeof(uint32_t));
    tr_vec_init(&r->locals, sizeof(ps_local));
    tr_vec_init(&r->prev, sizeof(ps_prev));
    for (int i = 0; i < C_COUNT; i++) r->c[i] = tr_str_internz(t, ps_const_text[i]);
    for (int i = 0; i < 4; i++) {
        tr_args_begin(t);
        tr_args_str(t, r->c[C_STATE], r->c[C_IDLE + i]);
        r->state_set[i] = tr_args_end(t);
    }
    int rc = tr_trace_status(t, e);
    if (rc == TR_OK && !(c->opts && c->opts->no_stack_slices)) {
        r->slicer = tr_stack_slicer_new(t);
        if (!r->slicer) rc = tr_error_nomem(e);
    }
    return rc;
}

static const tr_reader ps_text = {
    .abi = TR_READER_ABI,
    .name = "pyspy",
    .open = ps_text_open,
    .next = ps_text_next,
    .close = ps_text_close,
};

/* ---- probing and dispatch ---- */

enum { SHAPE_NONE, SHAPE_TEXT, SHAPE_FOLDED, SHAPE_JSON };

static int ps_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* "stack;stack... COUNT": text, then a space and digits at the end. */
static int ps_folded_line(const char *p, size_t n)
{
    size_t i = n;
    while (i > 0 && ps_digit(p[i - 1])) i--;
    return i < n && i >= 2 && p[i - 1] == ' ' && p[0] != ' ' && p[0] != '\t';
}

/* The shape of the head and how sure it is (0..100). */
static int ps_shape(const tr_peek *pk, int *shape)
{
    *shape = SHAPE_NONE;
    if (!pk->head) return 0;
    const char *p = (const char *)pk->head;
    size_t n = pk->head_len, i = 0;
    if (n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) i = 3;
    while (i < n && ps_space(p[i])) i++;
    if (i < n && (p[i] == '{' || p[i] == '[')) {
        *shape = SHAPE_JSON;
        if (ps_find(p, n, "speedscope.app/file-format-schema") ||
            (ps_find(p, n, "\"exporter\"") && ps_find(p, n, "py-spy@")))
            return 95;
        if (p[i] == '[' && ps_find(p, n, "\"thread_id\"") && ps_find(p, n, "\"frames\"") &&
            !ps_find(p, n, "\"ph\""))
            return 90;
        return 0;
    }
    int threads = 0, frames = 0, folded = 0, other = 0, semis = 0, after_thread = 0;
    for (size_t b = i; b < n;) {
        const char *nl = memchr(p + b, '\n', n - b);
        if (!nl && !pk->at_end && b > i) break; /* a cut line says nothing */
        size_t e = nl ? (size_t)(nl - p) : n, len = e - b;
        const char *l = p + b;
        if (len && l[len - 1] == '\r') len--;
        ps_thread_hdr th;
        int64_t pid;
        if (ps_starts(l, len, "#tracecat-dump")) {
            *shape = SHAPE_TEXT;
            return 100;
        }
        if (len == 0) {
            /* blank */
        } else if (ps_parse_thread(l, len, &th) && (th.status || th.name)) {
            threads++;
            after_thread = 1;
        } else if (ps_starts(l, len, "Process ") && ps_pid(l + 8, len - 8, &pid) > 0) {
            const char *nx = nl ? nl + 1 : p + n;
            if (ps_starts(nx, (size_t)(p + n - nx), "Python v")) {
                *shape = SHAPE_TEXT;
                return 95;
            }
        } else if (after_thread && ((len > 4 && memcmp(l, "    ", 4) == 0) || l[0] == '\t')) {
            frames++;
        } else if (ps_folded_line(l, len)) {
            folded++;
            if (memchr(l, ';', len)) semis++;
        } else {
            other++;
        }
        if (!nl) break;
        b = e + 1;
    }
    if (threads && frames) {
        *shape = SHAPE_TEXT;
        return 90;
    }
    if (threads) {
        *shape = SHAPE_TEXT;
        return 70;
    }
    /*
    ** Mostly "stack;stack COUNT" lines: a bad line or two does not make it
    ** text.  Without any ';' it is more likely a table of counts (Recorder's
    ** recorder_summary.txt) than one-frame stacks: --from folded reads those.
    */
    if (semis && folded >= 3 * other && !frames) {
        *shape = SHAPE_FOLDED;
        return 70;
    }
    /* One line longer than the head: a deep folded stack. */
    if (!pk->at_end && !memchr(p + i, '\n', n - i) && memchr(p + i, ';', n - i)) {
        *shape = SHAPE_FOLDED;
        return 40;
    }
    return 0;
}

static int ps_probe(const tr_peek *pk)
{
    int shape;
    return ps_shape(pk, &shape);
}

/* The py-spy reader: the shape of the head picks the text, JSON or folded reader. */
typedef struct ps_any {
    const tr_reader *sub;
    void *rd;
} ps_any;

static int ps_open(void **rd, const tr_read_ctx *c, tr_error *e)
{
    ps_any *a = tr_calloc(1, sizeof *a);
    *rd = a;
    if (!a) return tr_error_nomem(e);
    const unsigned char *head;
    size_t n;
    int rc = tr_input_peek(c->in, &head, &n, TR_PEEK_SIZE, e);
    if (rc < 0) return rc;
    tr_peek pk = {tr_input_name(c->in), head, n, n < TR_PEEK_SIZE, NULL, 0};
    int shape;
    ps_shape(&pk, &shape);
    a->sub = shape == SHAPE_JSON     ? &tr_pyspy_json
             : shape == SHAPE_FOLDED ? &tr_reader_folded
                                     : &ps_text;
    return a->sub->open(&a->rd, c, e);
}

static int ps_next(void *rd, tr_error *e)
{
    ps_any *a = rd;
    return a->sub->next(a->rd, e);
}

static void ps_close(void *rd)
{
    ps_any *a = rd;
    if (!a) return;
    if (a->sub) a->sub->close(a->rd);
    tr_free(a);
}

const tr_reader tr_reader_pyspy = {
    .abi = TR_READER_ABI,
    .name = "pyspy",
    .description =
        "py-spy dump text (one or a sequence; --native, --locals, --json), folded stacks, "
        "speedscope",
    .extensions = "txt,log,json,folded",
    .probe = ps_probe,
    .open = ps_open,
    .next = ps_next,
    .close = ps_close,
    .streams = 1,
};
