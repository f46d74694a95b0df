/*
** recorder.c (writer): the current Recorder format, VERSION 2.5.0 in local
** mode (shared/formats/recorder.md §2): recorder.mt with the 40-byte header
** and Recorder's 243 function names, and per rank a call-signature table
** (<r>.cst, 16-byte entry headers), a grammar (<r>.cfg) and the timestamp
** pairs (<r>.ts), byte for byte as Recorder's own reader expects them.  The
** bytes of each file are tr_recorder_layout.h's, which tracerecord's preload
** library shares.
**
** Records are a rank's slices in start order.  The grammar is built simply:
** runs of a repeated block of up to REC_PERIOD signatures become one rule
** applied K times (a run of one signature is a (terminal, K) pair), which
** is what Recorder's Sequitur would find for plain loops.  The time
** resolution is 100 ns unless some delta would overflow Recorder's uint32
** ticks; then it is coarsened by tens until every delta fits.
**
** The target is a directory (-o DIR/), or a file: then the directory goes
** into a tar of one folder named after the file.
*/
#include "tr_recorder_layout.h"
#include "tr_map.h"
#include "tr_text.h"
#include "tr_writer.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REC_PERIOD 8 /* longest block the grammar folds */

/* Where the files go: a directory or a tar stream. */
typedef struct rec_sink {
    int (*file)(struct rec_sink *s, const char *name, const void *p, size_t n, tr_error *e);
    const char *dir;    /* directory sink */
    struct archive *ar; /* tar sink */
    char top[256];      /* its folder */
    tr_output *out;
    tr_error *err; /* where the tar callback leaves an output error */
} rec_sink;

typedef struct wr_state {
    const tr_trace *t;
    tr_slices sl;
    int16_t *func_of; /* by string id: -1 unknown yet, else the function id (255: user) */
    int64_t res_ns;
    int64_t origin; /* ns subtracted from every time (none are negative then) */
    tr_buf key;     /* the key being built */
    tr_buf args;
} wr_state;

static int put32(tr_buf *b, uint32_t v)
{
    unsigned char c[4];
    tr_rec_put32(c, v);
    return tr_buf_add(b, c, 4);
}

static int func_id(wr_state *w, tr_str name)
{
    if (w->func_of[name] < 0) {
        size_t n;
        const char *s = tr_str_get(w->t, name, &n);
        w->func_of[name] = (int16_t)tr_rec_func_id(s, n);
    }
    return w->func_of[name];
}

/* One argument as Recorder stores it: text with no spaces, then a space. */
static int add_field(tr_buf *b, const char *s, size_t n)
{
    size_t at = b->len;
    if (tr_buf_add(b, s, n) != TR_OK) return TR_FATAL;
    tr_rec_arg_clean(b->p + at, n);
    return tr_buf_addc(b, ' ');
}

/* Slice ROW's arguments, each as text; their count. */
static size_t build_args(wr_state *w, size_t row, int *rc)
{
    const tr_trace *t = w->t;
    size_t argc = 0, n_args = tr_args_count(t, w->sl.args[row]);
    for (; argc < n_args && argc < 255; argc++) {
        tr_arg arg;
        tr_args_at(t, w->sl.args[row], argc, &arg);
        char num[64];
        int len = 0;
        const char *s = num;
        size_t n;
        switch (arg.type) {
        case TR_ARG_STR: {
            /* tracerecord's "dataset=" keeps its mark too (see "ret=" below) */
            size_t kn;
            const char *k = tr_str_get(t, arg.key, &kn);
            s = tr_str_get(t, arg.v.s, &n);
            if (kn == 7 && memcmp(k, "dataset", 7) == 0 &&
                tr_buf_add(&w->args, "dataset=", 8) != TR_OK)
                *rc = TR_FATAL;
            break;
        }
        case TR_ARG_UINT:
            len = snprintf(num, sizeof num, "%llu", (unsigned long long)arg.v.u);
            break;
        case TR_ARG_REAL:
            len = snprintf(num, sizeof num, "%.17g", arg.v.d);
            break;
        default: {
            /* tracerecord's return value keeps its "ret=" mark, so it reads back as one; the
             * HDF5 "bytes=" too */
            size_t kn;
            const char *k = tr_str_get(t, arg.key, &kn);
            const char *mark = kn == 3 && memcmp(k, "ret", 3) == 0     ? "ret="
                               : kn == 5 && memcmp(k, "bytes", 5) == 0 ? "bytes="
                                                                       : "";
            len = snprintf(num, sizeof num, "%s%lld", mark, (long long)arg.v.i);
            break;
        }
        }
        if (s == num) n = (size_t)len;
        *rc |= add_field(&w->args, s, n);
    }
    return argc;
}

/* The key of slice ROW (recorder.md §2.2): tid, func, level, argc, args. */
static int build_key(wr_state *w, size_t row, uint32_t tid_track)
{
    const tr_trace *t = w->t;
    tr_buf_reset(&w->key);
    tr_buf_reset(&w->args);
    int func = func_id(w, w->sl.name[row]);
    size_t argc;
    int rc = TR_OK;
    if (func == TR_REC_USER_FUNC) {
        /* Recorder's user functions carry their name as the second argument. */
        size_t n;
        const char *s = tr_str_get(t, w->sl.name[row], &n);
        rc |= add_field(&w->args, "???", 3) | add_field(&w->args, s, n);
        argc = 2;
    } else {
        argc = build_args(w, row, &rc);
    }
    const tr_track *tk = tr_track_get(t, tid_track);
    unsigned char head[TR_REC_KEY_HEAD];
    tr_rec_key_head(head, tk && tk->tid > 0 ? (uint64_t)tk->tid : 0, func, w->sl.depth[row],
                    (unsigned)argc, (uint32_t)w->args.len);
    rc |= tr_buf_add(&w->key, head, sizeof head);
    rc |= tr_buf_add(&w->key, w->args.p, w->args.len);
    return rc ? TR_FATAL : TR_OK;
}

/*
** Signatures of one rank: keys back to back in one buffer, found again
** through a map from the key's hash to the last signature of that hash
** (signatures of equal hashes are chained).
*/
typedef struct sig_set {
    tr_buf keys;  /* all keys back to back */
    tr_vec at;    /* size_t: where key i starts; at[n] = end */
    tr_vec count; /* uint32_t: occurrences */
    tr_vec next;  /* uint32_t: the previous signature of the same hash, UINT32_MAX: none */
    tr_map index; /* hash -> signature */
} sig_set;

static void sig_init(sig_set *s)
{
    memset(s, 0, sizeof *s);
    tr_buf_init(&s->keys, 0);
    tr_vec_init(&s->at, sizeof(size_t));
    tr_vec_init(&s->count, sizeof(uint32_t));
    tr_vec_init(&s->next, sizeof(uint32_t));
}

/* The terminal id of KEY, added when new; UINT32_MAX when out of memory. */
static uint32_t sig_find(sig_set *s, const char *key, size_t n)
{
    int is_new;
    uint32_t *slot = tr_map_slot(&s->index, tr_hash_bytes(key, n), &is_new);
    if (!slot) return UINT32_MAX;
    for (uint32_t id = *slot; id != UINT32_MAX; id = TR_VEC_AT(&s->next, uint32_t, id)) {
        size_t a = TR_VEC_AT(&s->at, size_t, id), b = TR_VEC_AT(&s->at, size_t, id + 1);
        if (b - a == n && memcmp(s->keys.p + a, key, n) == 0) {
            TR_VEC_AT(&s->count, uint32_t, id)++;
            return id;
        }
    }
    uint32_t id = (uint32_t)s->count.len;
    uint32_t *c = tr_vec_push(&s->count), *next = tr_vec_push(&s->next);
    size_t *end = tr_vec_push(&s->at);
    if (!c || !next || !end || tr_buf_add(&s->keys, key, n) != TR_OK) return UINT32_MAX;
    *c = 1;
    *next = *slot;
    *end = s->keys.len;
    *slot = id;
    return id;
}

static void sig_fini(sig_set *s)
{
    tr_buf_fini(&s->keys);
    tr_vec_fini(&s->at);
    tr_vec_fini(&s->count);
    tr_vec_fini(&s->next);
    tr_map_fini(&s->index);
}

/* The longest run at SEQ[I..N): a block of *P ids repeated *K times (*P = *K = 1: none). */
static void longest_run(const uint32_t *seq, size_t i, size_t n, size_t *best_p, size_t *best_k)
{
    *best_p = *best_k = 1;
    for (size_t p = 1; p <= REC_PERIOD && i + 2 * p <= n; p++) {
        size_t k = 1;
        while (i + (k + 1) * p <= n && memcmp(seq + i, seq + i + k * p, p * sizeof *seq) == 0) k++;
        if (k >= 2 && p * k > *best_p * *best_k) {
            *best_p = p;
            *best_k = k;
        }
    }
}

/* The rules a grammar has made: rule -2 - r is the LEN[r] ids at seq + AT[r]. */
typedef struct cfg_rules {
    tr_vec at, len; /* size_t */
    tr_buf body;    /* the rules as the .cfg lists them */
} cfg_rules;

/* The rule of the P ids at SEQ + I (made when new), as a symbol; 0 when out of memory. */
static int32_t rule_of(cfg_rules *g, const uint32_t *seq, size_t i, size_t p)
{
    size_t r = 0;
    for (; r < g->at.len; r++)
        if (TR_VEC_AT(&g->len, size_t, r) == p &&
            memcmp(seq + TR_VEC_AT(&g->at, size_t, r), seq + i, p * sizeof *seq) == 0)
            return -2 - (int32_t)r;
    size_t *at = tr_vec_push(&g->at), *len = tr_vec_push(&g->len);
    if (!at || !len) return 0;
    *at = i;
    *len = p;
    unsigned char head[8];
    tr_rec_cfg_rule(head, -2 - (int32_t)r, (uint32_t)p);
    int rc = tr_buf_add(&g->body, head, sizeof head);
    for (size_t q = 0; q < p; q++) rc |= put32(&g->body, seq[i + q]) | put32(&g->body, 1);
    return rc ? 0 : -2 - (int32_t)r;
}

/*
** The grammar of SEQ (N terminal ids): rule -1 holds (symbol, repeat) pairs;
** a block of P > 1 ids repeated K >= 2 times becomes rule -2, -3, ...
** (identical blocks share their rule).
*/
static int write_cfg(const uint32_t *seq, size_t n, tr_buf *out)
{
    tr_buf main_body;
    tr_buf_init(&main_body, 0);
    cfg_rules g;
    tr_vec_init(&g.at, sizeof(size_t));
    tr_vec_init(&g.len, sizeof(size_t));
    tr_buf_init(&g.body, 0);
    int rc = TR_OK;
    uint32_t symbols = 0;
    for (size_t i = 0; i < n && rc == TR_OK; symbols++) {
        size_t p, k;
        longest_run(seq, i, n, &p, &k);
        int32_t sym = p > 1 ? rule_of(&g, seq, i, p) : (int32_t)seq[i];
        if (sym == 0 && p > 1) rc = TR_FATAL;
        rc |= put32(&main_body, (uint32_t)sym) | put32(&main_body, (uint32_t)k);
        i += p * k;
    }
    unsigned char head[8];
    tr_rec_cfg_rule(head, -1, symbols);
    rc |= put32(out, (uint32_t)(g.at.len + 1)) | tr_buf_add(out, head, sizeof head);
    rc |= tr_buf_add(out, main_body.p, main_body.len) | tr_buf_add(out, g.body.p, g.body.len);
    tr_buf_fini(&main_body);
    tr_vec_fini(&g.at);
    tr_vec_fini(&g.len);
    tr_buf_fini(&g.body);
    return rc ? TR_FATAL : TR_OK;
}

/* The rows of each process, each in start order (the trace is frozen). */
typedef struct rank_rows {
    uint32_t *row;
    size_t *first;     /* rows of rank r: row[first[r] .. first[r + 1]) */
    uint32_t *rank_of; /* process -> rank */
    size_t n_ranks;
} rank_rows;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int by_rank(const tr_trace *t, const tr_slices *sl, rank_rows *rr)
{
    size_t np = tr_process_count(t);
    rr->n_ranks = np;
    rr->rank_of = tr_malloc((np ? np : 1) * sizeof *rr->rank_of);
    rr->first = tr_calloc(np + 2, sizeof *rr->first);
    rr->row = tr_malloc((sl->n ? sl->n : 1) * sizeof *rr->row);
    if (!rr->rank_of || !rr->first || !rr->row) return TR_FATAL;
    /* Ranks as the processes state them, then the rest in trace order. */
    uint64_t *order = tr_malloc((np ? np : 1) * sizeof *order);
    if (!order) return TR_FATAL;
    for (size_t p = 0; p < np; p++) {
        int32_t r = tr_process_get(t, (uint32_t)p)->rank;
        uint64_t key = r >= 0 ? (uint64_t)r : (uint64_t)1 << 31;
        order[p] = key << 32 | p;
    }
    tr_qsort(order, np, sizeof *order, cmp_u64);
    for (size_t i = 0; i < np; i++) rr->rank_of[(uint32_t)order[i]] = (uint32_t)i;
    tr_free(order);
    for (size_t i = 0; i < sl->n; i++) {
        const tr_track *tk = tr_track_get(t, sl->track[i]);
        rr->first[rr->rank_of[tk->process] + 2]++;
    }
    for (size_t r = 0; r < np; r++) rr->first[r + 2] += rr->first[r + 1];
    for (size_t i = 0; i < sl->n; i++) {
        const tr_track *tk = tr_track_get(t, sl->track[i]);
        rr->row[rr->first[rr->rank_of[tk->process] + 1]++] = (uint32_t)i;
    }
    return TR_OK;
}

static void rank_rows_fini(rank_rows *rr)
{
    tr_free(rr->row);
    tr_free(rr->first);
    tr_free(rr->rank_of);
}

/* A rank's timestamps into TS and its signatures into S, SEQ[i] the terminal of record i. */
static int encode_rank(wr_state *w, const uint32_t *rows, size_t n, sig_set *s, uint32_t *seq,
                       tr_buf *ts)
{
    int64_t prev = 0;
    int rc = TR_OK;
    for (size_t i = 0; i < n && rc == TR_OK; i++) {
        size_t row = rows[i];
        int64_t st = (w->sl.ts[row] - w->origin) / w->res_ns;
        int64_t en =
            (tr_time_add(w->sl.ts[row], tr_slice_dur(&w->sl, row)) - w->origin) / w->res_ns;
        rc |= put32(ts, (uint32_t)(st - prev)) | put32(ts, (uint32_t)(en - prev));
        prev = st;
        rc |= build_key(w, row, w->sl.track[row]);
        if (rc == TR_OK) {
            seq[i] = sig_find(s, w->key.p, w->key.len);
            if (seq[i] == UINT32_MAX) rc = TR_FATAL;
        }
    }
    return rc;
}

/* The .cst of rank R: its signatures in terminal order. */
static int write_cst(const sig_set *s, uint32_t r, tr_buf *cst)
{
    uint32_t n_sig = (uint32_t)s->count.len;
    int rc = put32(cst, n_sig);
    for (uint32_t i = 0; i < n_sig && rc == TR_OK; i++) {
        size_t a = TR_VEC_AT(&s->at, size_t, i), b = TR_VEC_AT(&s->at, size_t, i + 1);
        unsigned char head[TR_REC_CST_HEAD];
        tr_rec_cst_head(head, i, r, (uint32_t)(b - a), TR_VEC_AT(&s->count, uint32_t, i));
        rc |= tr_buf_add(cst, head, sizeof head) | tr_buf_add(cst, s->keys.p + a, b - a);
    }
    return rc;
}

/* Hands the three files of rank R to SINK. */
static int put_rank_files(rec_sink *sink, size_t r, const tr_buf *files, tr_error *e)
{
    static const char *const ext[] = {"cst", "cfg", "ts"};
    int rc = TR_OK;
    for (int i = 0; i < 3 && rc == TR_OK; i++) {
        char name[32];
        snprintf(name, sizeof name, "%zu.%s", r, ext[i]);
        rc = sink->file(sink, name, files[i].p, files[i].len, e);
    }
    return rc;
}

/* A rank's three files. */
static int write_rank(wr_state *w, rec_sink *sink, const rank_rows *rr, size_t r, tr_error *e)
{
    const uint32_t *rows = rr->row + rr->first[r];
    size_t n = rr->first[r + 1] - rr->first[r];
    sig_set s;
    sig_init(&s);
    tr_buf files[3]; /* .cst, .cfg, .ts */
    for (int i = 0; i < 3; i++) tr_buf_init(&files[i], 0);
    uint32_t *seq = tr_malloc((n ? n : 1) * sizeof *seq);
    size_t *start = tr_vec_push(&s.at);
    int rc = seq && start ? TR_OK : TR_FATAL;
    if (start) *start = 0;
    if (rc == TR_OK) rc = encode_rank(w, rows, n, &s, seq, &files[2]);
    if (rc == TR_OK) rc = write_cst(&s, (uint32_t)r, &files[0]);
    if (rc == TR_OK) rc = write_cfg(seq, n, &files[1]);
    rc = rc != TR_OK ? tr_error_nomem(e) : put_rank_files(sink, r, files, e);
    tr_free(seq);
    sig_fini(&s);
    for (int i = 0; i < 3; i++) tr_buf_fini(&files[i]);
    return rc;
}

/*
** 100 ns (or the resolution a Recorder input had, FROM_NS), coarsened until
** every (end - previous start) fits in uint32 ticks.
*/
static int64_t pick_resolution(const wr_state *w, const rank_rows *rr, int64_t from_ns)
{
    int64_t worst = 0;
    for (size_t r = 0; r < rr->n_ranks; r++) {
        int64_t prev = w->origin;
        for (size_t i = rr->first[r]; i < rr->first[r + 1]; i++) {
            size_t row = rr->row[i];
            int64_t d = tr_time_add(w->sl.ts[row], tr_slice_dur(&w->sl, row)) - prev;
            if (d > worst) worst = d;
            prev = w->sl.ts[row];
        }
    }
    int64_t res = from_ns > 0 ? from_ns : 100;
    while (worst / res > (int64_t)UINT32_MAX - 1 && res < INT64_MAX / 10) res *= 10;
    return res;
}

/* What recorder.mt states: a Recorder input's start_ts and resolution are kept bit for bit. */
typedef struct mt_times {
    double start, res;
} mt_times;

static mt_times pick_times(wr_state *w, const rank_rows *rr)
{
    const tr_trace *t = w->t;
    const tr_input_info *in = tr_input_count(t) ? tr_input_get(t, 0) : NULL;
    tr_arg start_arg, res_arg;
    int has_start = in && w->origin == 0 && tr_args_find(t, in->meta, "start_ts", &start_arg) &&
                    start_arg.type == TR_ARG_REAL;
    int64_t from_ns = 0;
    if (in && tr_args_find(t, in->meta, "time_resolution", &res_arg) &&
        res_arg.type == TR_ARG_REAL && res_arg.v.d >= 1e-9 && res_arg.v.d <= 1) {
        double ns = res_arg.v.d * 1e9;
        if (ns - (double)(int64_t)(ns + 0.5) < 1e-6 && (double)(int64_t)(ns + 0.5) - ns < 1e-6)
            from_ns = (int64_t)(ns + 0.5);
    }
    w->res_ns = pick_resolution(w, rr, from_ns);
    mt_times m = {0, 0};
    if (in && in->origin_unix_ns != INT64_MIN) m.start = (double)in->origin_unix_ns / 1e9;
    m.start += (double)w->origin / 1e9;
    if (has_start) m.start = start_arg.v.d;
    m.res = w->res_ns == from_ns ? res_arg.v.d : (double)w->res_ns / 1e9;
    return m;
}

/* VERSION, recorder.mt and every rank's files. */
static int write_files(wr_state *w, rec_sink *sink, const rank_rows *rr, tr_error *e)
{
    mt_times m = pick_times(w, rr);
    unsigned char *mt = tr_malloc(TR_REC_MT_SIZE);
    if (!mt) return tr_error_nomem(e);
    tr_rec_mt(mt, (uint32_t)rr->n_ranks, m.start, m.res);
    int rc = sink->file(sink, "VERSION", TR_REC_VERSION, TR_REC_VERSION_LEN, e);
    if (rc == TR_OK) rc = sink->file(sink, "recorder.mt", mt, TR_REC_MT_SIZE, e);
    tr_free(mt);
    for (size_t r = 0; r < rr->n_ranks && rc == TR_OK; r++) rc = write_rank(w, sink, rr, r, e);
    return rc;
}

static int write_all(const tr_trace *t, rec_sink *sink, tr_error *e)
{
    if (!tr_trace_frozen(t))
        return tr_errorf(e, TR_E_USAGE, NULL, "the Recorder writer needs a frozen trace");
    wr_state w;
    memset(&w, 0, sizeof w);
    w.t = t;
    tr_trace_slices(t, &w.sl);
    tr_buf_init(&w.key, 0);
    tr_buf_init(&w.args, 0);
    rank_rows rr;
    memset(&rr, 0, sizeof rr);
    size_t n_str = tr_str_count(t);
    w.func_of = tr_malloc((n_str ? n_str : 1) * sizeof *w.func_of);
    int rc = w.func_of && by_rank(t, &w.sl, &rr) == TR_OK ? TR_OK : tr_error_nomem(e);
    if (rc == TR_OK && rr.n_ranks == 0)
        rc = tr_errorf(e, TR_E_FORMAT, NULL, "nothing to write: the trace has no processes");
    if (rc == TR_OK) {
        memset(w.func_of, 0xff, n_str * sizeof *w.func_of);
        for (size_t i = 0; i < w.sl.n; i++)
            if (w.sl.ts[i] < w.origin) w.origin = w.sl.ts[i];
        rc = write_files(&w, sink, &rr, e);
    }
    tr_buf_fini(&w.key);
    tr_buf_fini(&w.args);
    tr_free(w.func_of);
    rank_rows_fini(&rr);
    return rc;
}

/* ---- a directory ---- */

/* A file of the (temporary) directory, synced: the directory is renamed into place next. */
static int dir_file(rec_sink *s, const char *name, const void *p, size_t n, tr_error *e)
{
    tr_buf path;
    tr_buf_init(&path, 0);
    if (tr_buf_addf(&path, "%s/%s", s->dir, name) != TR_OK) {
        tr_buf_fini(&path);
        return tr_error_nomem(e);
    }
    tr_loc loc = {path.p, 0, 0, 0};
    int rc = TR_OK;
    int fd = open(path.p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) rc = tr_error_errno(e, errno, &loc, "cannot create");
    for (size_t done = 0; rc == TR_OK && done < n;) {
        ssize_t w = write(fd, (const char *)p + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) rc = tr_error_errno(e, errno, &loc, "cannot write");
        done += w > 0 ? (size_t)w : 0;
    }
    if (rc == TR_OK && fd >= 0 && fsync(fd) != 0)
        rc = tr_error_errno(e, errno, &loc, "cannot sync");
    if (fd >= 0 && close(fd) != 0 && rc == TR_OK)
        rc = tr_error_errno(e, errno, &loc, "cannot write");
    tr_buf_fini(&path);
    return rc;
}

/* ---- a tar through tr_output ---- */

static la_ssize_t tar_write(struct archive *a, void *user, const void *p, size_t n)
{
    rec_sink *s = user;
    if (tr_output_write(s->out, p, n, s->err) != TR_OK) {
        archive_set_error(a, EIO, "output failed");
        return -1;
    }
    return (la_ssize_t)n;
}

static int tar_file(rec_sink *s, const char *name, const void *p, size_t n, tr_error *e)
{
    struct archive_entry *en = archive_entry_new();
    if (!en) return tr_error_nomem(e);
    tr_buf path;
    tr_buf_init(&path, 0);
    int rc = tr_buf_addf(&path, "%s/%s", s->top, name) == TR_OK ? TR_OK : tr_error_nomem(e);
    if (rc == TR_OK) {
        archive_entry_set_pathname(en, path.p);
        archive_entry_set_filetype(en, AE_IFREG);
        archive_entry_set_perm(en, 0644);
        archive_entry_set_size(en, (la_int64_t)n);
        if (archive_write_header(s->ar, en) != ARCHIVE_OK ||
            (n && archive_write_data(s->ar, p, n) != (la_ssize_t)n))
            rc = e->code ? TR_FAIL
                         : tr_errorf(e, TR_E_IO, NULL, "tar: %s", archive_error_string(s->ar));
    }
    tr_buf_fini(&path);
    archive_entry_free(en);
    return rc;
}

/* The folder in the tar: the output's name without its extensions. */
static void tar_top(rec_sink *s, const char *path)
{
    const char *base = path ? strrchr(path, '/') : NULL;
    base = base ? base + 1 : path;
    snprintf(s->top, sizeof s->top, "recorder");
    if (base && *base && strcmp(base, "-") != 0) {
        size_t n = strcspn(base, ".");
        if (n && n < sizeof s->top) {
            memcpy(s->top, base, n);
            s->top[n] = '\0';
        }
    }
}

static int tar_open(rec_sink *s, tr_error *e)
{
    tar_top(s, tr_output_path(s->out));
    s->file = tar_file;
    s->ar = archive_write_new();
    if (!s->ar) return tr_error_nomem(e);
    if (archive_write_set_format_pax_restricted(s->ar) != ARCHIVE_OK ||
        archive_write_set_bytes_in_last_block(s->ar, 1) != ARCHIVE_OK ||
        archive_write_open(s->ar, s, NULL, tar_write, NULL) != ARCHIVE_OK)
        return tr_errorf(e, TR_E_IO, NULL, "tar: %s", archive_error_string(s->ar));
    return TR_OK;
}

/* ---- the writer ---- */

static int recorder_begin(tr_write *run, tr_error *e)
{
    rec_sink *s = tr_calloc(1, sizeof *s);
    if (!s) return tr_error_nomem(e);
    run->state = s;
    s->out = run->out;
    s->err = e;
    s->dir = tr_output_dir(run->out);
    if (s->dir) {
        s->file = dir_file;
        return TR_OK;
    }
    int rc = tar_open(s, e);
    if (rc != TR_OK) {
        if (s->ar) archive_write_free(s->ar);
        tr_free(s);
        run->state = NULL;
    }
    return rc;
}

/* Records are whole ranks: filters do not apply to a Recorder directory. */
static int recorder_add(tr_write *run, const tr_trace *t, tr_error *e)
{
    rec_sink *s = run->state;
    s->err = e;
    return write_all(t, s, e);
}

static int recorder_end(tr_write *run, int rc, tr_error *e)
{
    rec_sink *s = run->state;
    if (s->ar) {
        s->err = e;
        if (rc == TR_OK && archive_write_close(s->ar) != ARCHIVE_OK)
            rc = e->code ? TR_FAIL
                         : tr_errorf(e, TR_E_IO, NULL, "tar: %s", archive_error_string(s->ar));
        archive_write_free(s->ar);
    }
    tr_free(s);
    return rc;
}

const tr_writer tr_writer_recorder = {
    .abi = TR_WRITER_ABI,
    .name = "recorder",
    .description = "Recorder 2.5.0 trace directory (-o DIR/), or a tar of one folder",
    .extensions = "",
    .binary = 1,
    .flags = TR_WRITE_DIR_OR_FILE,
    .begin = recorder_begin,
    .add = recorder_add,
    .end = recorder_end,
};
