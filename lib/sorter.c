/*
** sorter.c: the external merge sort (tr_sorter.h): a buffer of records
** within the budget, sorted runs spilled to files, a k-way merge through a
** heap; a run may be sorted and written on a thread beside the pushing.
*/
#include "tr_sorter.h"
#include "tr_mem.h"
#include "tr_output.h"
#include "tr_pool.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define SORTER_RUN_BUF ((size_t)64 * 1024) /* bytes each run is read through */
#define SORTER_BIG     ((size_t)32 << 20)  /* a buffer past this takes the whole budget's worth */

/* ---- run files ---- */

typedef struct run {
    uint64_t id; /* the file is "<dir>/r<id>" */
    uint64_t n;  /* records */
} run;

/* One run being merged: its file and a buffer of its next records. */
typedef struct run_reader {
    FILE *f;
    unsigned char *buf;
    size_t n, pos; /* records in buf, and the next one */
    uint64_t left; /* records still in the file */
} run_reader;

/* A k-way merge: the readers and a heap of their indexes, smallest record on top. */
typedef struct merger {
    run_reader *rd;
    size_t k;
    size_t *heap;
    size_t heap_n;
    int started;
} merger;

struct tr_sorter {
    tr_sorter_opts o;
    unsigned char *buf;   /* records pushed and not yet spilled */
    size_t n, alloc, cap; /* records held, allocated, and the most the budget allows */
    int ordered;          /* the records in buf arrived in order */
    size_t pos;           /* reading buf back, when nothing was spilled */
    int reading;

    tr_output *tmp; /* the temporary directory, made on the first spill */
    tr_vec runs;    /* run */
    uint64_t next_id, spilled;
    merger m;

    /*
    ** The job on a thread of its own (tr_sorter_spill_behind, tr_sorter_end):
    ** a full buffer, BEHIND, sorted and written to run file BEHIND_F while
    ** pushing goes on into another; or, with no file, BUF itself sorted and
    ** nothing pushed meanwhile.  The thread touches only these, and the
    ** owner reads them only after joining it.
    */
    tr_pool_task task;
    int busy;
    unsigned char *behind;
    size_t behind_n;
    int behind_ordered;
    FILE *behind_f;
    uint64_t behind_id;
    int behind_err; /* errno of a failed write (the thread's) */
};

static int sorter_ioerr(tr_sorter *s, int err, const char *what, tr_error *e)
{
    tr_loc loc = {s->tmp ? tr_output_dir(s->tmp) : s->o.tmpdir, 0, 0, 0};
    return tr_error_errno(e, err, &loc, "%s", what);
}

static void run_path(const tr_sorter *s, uint64_t id, char *path, size_t n)
{
    snprintf(path, n, "%s/r%llu", tr_output_dir(s->tmp), (unsigned long long)id);
}

static int sorter_make_dir(tr_sorter *s, tr_error *e)
{
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/tracecat-spill-%ld", s->o.tmpdir, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof path) return sorter_ioerr(s, ENAMETOOLONG, "spill", e);
    return tr_output_open_dir(&s->tmp, path, TR_DIR_REPLACE, e);
}

/* The file system must hold BYTES more: checked before a run is written, not found out midway. */
static int sorter_check_room(tr_sorter *s, uint64_t bytes, tr_error *e)
{
    uint64_t avail = s->o.free_bytes;
    if (!avail) {
        struct statvfs st;
        if (statvfs(tr_output_dir(s->tmp), &st) != 0)
            return sorter_ioerr(s, errno, "cannot ask for free space", e);
        avail = (uint64_t)st.f_bavail * st.f_frsize;
    }
    if (avail >= bytes) return TR_OK;
    tr_loc loc = {tr_output_dir(s->tmp), 0, 0, 0};
    return tr_errorf(e, TR_E_IO, &loc,
                     "no room to spill %llu bytes (%llu free): name another place with --tmpdir "
                     "or give more --memory",
                     (unsigned long long)bytes, (unsigned long long)avail);
}

/* Starts run file number ID for writing. */
static int run_create(tr_sorter *s, uint64_t id, uint64_t bytes, FILE **f, tr_error *e)
{
    int rc = s->tmp ? TR_OK : sorter_make_dir(s, e);
    if (rc == TR_OK) rc = sorter_check_room(s, bytes, e);
    if (rc != TR_OK) return rc;
    char path[4200];
    run_path(s, id, path, sizeof path);
    *f = fopen(path, "wb");
    return *f ? TR_OK : sorter_ioerr(s, errno, "cannot create a spill file", e);
}

static int run_finish(tr_sorter *s, FILE *f, uint64_t id, uint64_t n, tr_error *e)
{
    int bad = ferror(f);
    int err = errno;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    if (bad) return sorter_ioerr(s, err ? err : EIO, "cannot write a spill file", e);
    run *r = tr_vec_push(&s->runs);
    if (!r) return tr_error_nomem(e);
    *r = (run){id, n};
    s->spilled++;
    return TR_OK;
}

static void run_remove(const tr_sorter *s, uint64_t id)
{
    char path[4200];
    run_path(s, id, path, sizeof path);
    unlink(path);
}

/* ---- the buffer ---- */

/*
** Bytes a record held takes: itself and the scratch qsort takes to sort
** the buffer (glibc's merge sort: two pointers a record past 32 bytes,
** else a copy), so that a full buffer being sorted stays in the budget.
*/
static size_t rec_bytes(const tr_sorter *s)
{
    size_t size = s->o.rec_size;
    return size + (size > 32 ? 2 * sizeof(void *) : size);
}

static void sorter_sort_buf(tr_sorter *s)
{
    if (!s->ordered) tr_qsort(s->buf, s->n, s->o.rec_size, s->o.cmp);
    s->ordered = 1;
}

/* ---- the job behind ---- */

static int behind_job(void *user, size_t job)
{
    (void)job;
    tr_sorter *s = user;
    if (!s->behind_f) {
        sorter_sort_buf(s);
        return TR_OK;
    }
    if (!s->behind_ordered) tr_qsort(s->behind, s->behind_n, s->o.rec_size, s->o.cmp);
    errno = 0;
    if (fwrite(s->behind, s->o.rec_size, s->behind_n, s->behind_f) != s->behind_n)
        s->behind_err = errno ? errno : EIO;
    return TR_OK;
}

static void behind_start(tr_sorter *s)
{
    s->behind_err = 0;
    s->busy = 1;
    tr_pool_spawn(&s->task, behind_job, s);
}

/* Waits for the job behind; a spill's run is added to the runs (in the order spilled). */
static int behind_wait(tr_sorter *s, tr_error *e)
{
    if (!s->busy) return TR_OK;
    tr_pool_join(&s->task);
    s->busy = 0;
    if (!s->behind_f) return TR_OK;
    FILE *f = s->behind_f;
    size_t n = s->behind_n;
    s->behind_f = NULL;
    tr_free(s->behind);
    s->behind = NULL;
    s->behind_n = 0;
    if (s->behind_err) {
        fclose(f);
        return sorter_ioerr(s, s->behind_err, "cannot write a spill file", e);
    }
    return run_finish(s, f, s->behind_id, n, e);
}

static int sorter_spill(tr_sorter *s, tr_error *e)
{
    sorter_sort_buf(s);
    uint64_t id = s->next_id++;
    FILE *f;
    int rc = run_create(s, id, (uint64_t)s->n * s->o.rec_size, &f, e);
    if (rc != TR_OK) return rc;
    fwrite(s->buf, s->o.rec_size, s->n, f);
    rc = run_finish(s, f, id, s->n, e);
    s->n = 0;
    return rc;
}

int tr_sorter_open(tr_sorter **sp, const tr_sorter_opts *o, tr_error *e)
{
    tr_sorter *s = tr_calloc(1, sizeof *s);
    *sp = s;
    if (!s) return tr_error_nomem(e);
    s->o = *o;
    if (s->o.budget < TR_SORTER_MIN_BUDGET) s->o.budget = TR_SORTER_MIN_BUDGET;
    s->cap = s->o.budget / rec_bytes(s);
    s->ordered = 1;
    tr_vec_init(&s->runs, sizeof(run));
    return TR_OK;
}

/*
** Room for one more record: the buffer doubles, and once past SORTER_BIG
** takes the budget's worth at once.  A new block and a copy, not realloc:
** realloc's copy would fault its pages in 4 KiB at a time, before
** tr_realloc could advise huge pages; and old and new together would be
** twice a big block.  A block that big is mapped: its pages come in as
** records fill them.  A budget past what the system will map (--memory
** 64G on a 24 GiB machine) is refused: the buffer then keeps doubling, and
** once not even that is given, the budget is what it holds and it spills.
*/
static int sorter_room(tr_sorter *s, tr_error *e)
{
    if (s->n == s->cap) return sorter_spill(s, e);
    if (s->n < s->alloc) return TR_OK;
    size_t doubled = s->alloc ? s->alloc * 2 : 1024;
    size_t want = doubled;
    if (want > s->cap || want * s->o.rec_size >= SORTER_BIG) want = s->cap;
    unsigned char *p = tr_malloc(want * s->o.rec_size);
    if (!p && doubled < want) p = tr_malloc((want = doubled) * s->o.rec_size);
    if (!p && s->n) {
        s->cap = s->n;
        return sorter_spill(s, e);
    }
    if (!p) return tr_error_nomem(e);
    if (s->n) memcpy(p, s->buf, s->n * s->o.rec_size);
    tr_free(s->buf);
    s->buf = p;
    s->alloc = want;
    return TR_OK;
}

int tr_sorter_push(tr_sorter *s, const void *rec, tr_error *e)
{
    size_t size = s->o.rec_size;
    /* BUF being sorted (tr_sorter_end) waits for its sort, not for a spill behind */
    int rc = s->busy && !s->behind_f ? behind_wait(s, e) : TR_OK;
    if (rc == TR_OK) rc = sorter_room(s, e);
    if (rc != TR_OK) return rc;
    unsigned char *at = s->buf + s->n * size;
    memcpy(at, rec, size);
    if (s->n && s->ordered && s->o.cmp(at - size, at) > 0) s->ordered = 0;
    s->n++;
    return TR_OK;
}

/* ---- merging ---- */

/* Refills reader R's buffer; its records must be whole. */
static int reader_fill(tr_sorter *s, run_reader *r, size_t cap, tr_error *e)
{
    size_t want = r->left < cap ? (size_t)r->left : cap;
    size_t got = fread(r->buf, s->o.rec_size, want, r->f);
    if (got != want)
        return sorter_ioerr(s, ferror(r->f) ? errno : EIO, "cannot read a spill file", e);
    r->n = got;
    r->pos = 0;
    r->left -= got;
    return TR_OK;
}

static const void *reader_rec(const tr_sorter *s, const run_reader *r)
{
    return r->buf + r->pos * s->o.rec_size;
}

static int heap_less(const tr_sorter *s, const merger *m, size_t a, size_t b)
{
    return s->o.cmp(reader_rec(s, &m->rd[a]), reader_rec(s, &m->rd[b])) < 0;
}

static void heap_down(const tr_sorter *s, merger *m, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, best = i;
        if (l < m->heap_n && heap_less(s, m, m->heap[l], m->heap[best])) best = l;
        if (l + 1 < m->heap_n && heap_less(s, m, m->heap[l + 1], m->heap[best])) best = l + 1;
        if (best == i) return;
        size_t tmp = m->heap[i];
        m->heap[i] = m->heap[best];
        m->heap[best] = tmp;
        i = best;
    }
}

static size_t merge_rec_cap(const tr_sorter *s)
{
    size_t n = SORTER_RUN_BUF / s->o.rec_size;
    return n ? n : 1;
}

static void merge_close(merger *m)
{
    for (size_t i = 0; m->rd && i < m->k; i++) {
        if (m->rd[i].f) fclose(m->rd[i].f);
        tr_free(m->rd[i].buf);
    }
    tr_free(m->rd);
    tr_free(m->heap);
    *m = (merger){0};
}

/* Opens the merge of runs [FIRST, FIRST + K). */
static int merge_open(tr_sorter *s, merger *m, size_t first, size_t k, tr_error *e)
{
    size_t cap = merge_rec_cap(s);
    *m = (merger){.rd = tr_calloc(k, sizeof *m->rd), .k = k, .heap = tr_calloc(k, sizeof(size_t))};
    if (!m->rd || !m->heap) return tr_error_nomem(e);
    for (size_t i = 0; i < k; i++) {
        const run *r = &TR_VEC_AT(&s->runs, run, first + i);
        char path[4200];
        run_path(s, r->id, path, sizeof path);
        run_reader *rd = &m->rd[i];
        rd->left = r->n;
        rd->buf = tr_malloc(cap * s->o.rec_size);
        if (!rd->buf) return tr_error_nomem(e);
        rd->f = fopen(path, "rb");
        if (!rd->f) return sorter_ioerr(s, errno, "cannot open a spill file", e);
        int rc = reader_fill(s, rd, cap, e);
        if (rc != TR_OK) return rc;
        if (rd->n) m->heap[m->heap_n++] = i;
    }
    for (size_t i = m->heap_n / 2; i-- > 0;) heap_down(s, m, i);
    return TR_OK;
}

/* The next record of merge M: TR_OK with *REC set, or TR_END. */
static int merge_next(tr_sorter *s, merger *m, const void **rec, tr_error *e)
{
    if (m->started && m->heap_n) {
        /* Step past the record handed out last time, now that the caller is done with it. */
        run_reader *top = &m->rd[m->heap[0]];
        if (++top->pos == top->n) {
            int rc = top->left ? reader_fill(s, top, merge_rec_cap(s), e) : TR_OK;
            if (rc != TR_OK) return rc;
            if (top->pos == top->n) m->heap[0] = m->heap[--m->heap_n];
        }
        heap_down(s, m, 0);
    }
    m->started = 1;
    if (!m->heap_n) return TR_END;
    *rec = reader_rec(s, &m->rd[m->heap[0]]);
    return TR_OK;
}

/* Merges the first K runs into one new run at the end of the list. */
static int merge_pass(tr_sorter *s, size_t k, tr_error *e)
{
    uint64_t total = 0;
    for (size_t i = 0; i < k; i++) total += TR_VEC_AT(&s->runs, run, i).n;
    merger m;
    uint64_t id = s->next_id++;
    FILE *f = NULL;
    int rc = merge_open(s, &m, 0, k, e);
    if (rc == TR_OK) rc = run_create(s, id, total * s->o.rec_size, &f, e);
    const void *rec;
    while (rc == TR_OK && (rc = merge_next(s, &m, &rec, e)) == TR_OK)
        fwrite(rec, s->o.rec_size, 1, f);
    merge_close(&m);
    if (rc == TR_END) rc = TR_OK;
    if (f) {
        int done = run_finish(s, f, id, total, e);
        if (rc == TR_OK) rc = done;
    }
    if (rc != TR_OK) return rc;
    run *r = s->runs.data;
    for (size_t i = 0; i < k; i++) run_remove(s, r[i].id);
    memmove(r, r + k, (s->runs.len - k) * sizeof *r);
    s->runs.len -= k;
    return TR_OK;
}

/* Ends the pushing: everything in memory, or the runs merged down to what the budget can read. */
static int sorter_start(tr_sorter *s, tr_error *e)
{
    s->reading = 1;
    if (!s->runs.len) {
        sorter_sort_buf(s);
        return TR_OK;
    }
    int rc = s->n ? sorter_spill(s, e) : TR_OK;
    tr_free(s->buf);
    s->buf = NULL;
    s->alloc = 0;
    size_t fan_in = s->o.budget / SORTER_RUN_BUF;
    if (fan_in < 2) fan_in = 2;
    if (fan_in > TR_SORTER_FAN_IN) fan_in = TR_SORTER_FAN_IN;
    while (rc == TR_OK && s->runs.len > fan_in) rc = merge_pass(s, fan_in, e);
    if (rc == TR_OK) rc = merge_open(s, &s->m, 0, s->runs.len, e);
    return rc;
}

int tr_sorter_next(tr_sorter *s, const void **rec, tr_error *e)
{
    if (!s->reading) {
        int rc = behind_wait(s, e);
        if (rc == TR_OK) rc = sorter_start(s, e);
        if (rc != TR_OK) return rc;
    }
    if (s->runs.len) return merge_next(s, &s->m, rec, e);
    if (s->pos == s->n) return TR_END;
    *rec = s->buf + s->pos++ * s->o.rec_size;
    return TR_OK;
}

size_t tr_sorter_held(const tr_sorter *s)
{
    return s->reading ? 0 : (s->n + s->behind_n) * rec_bytes(s);
}

size_t tr_sorter_behind(const tr_sorter *s)
{
    return s->behind_n * rec_bytes(s);
}

int tr_sorter_spill_behind(tr_sorter *s, tr_error *e)
{
    int rc = behind_wait(s, e);
    if (rc != TR_OK || s->reading || !s->n) return rc;
    uint64_t id = s->next_id++;
    FILE *f;
    rc = run_create(s, id, (uint64_t)s->n * s->o.rec_size, &f, e);
    if (rc != TR_OK) return rc;
    s->behind = s->buf;
    s->behind_n = s->n;
    s->behind_ordered = s->ordered;
    s->behind_f = f;
    s->behind_id = id;
    s->buf = NULL;
    s->n = s->alloc = 0;
    s->ordered = 1;
    behind_start(s);
    return TR_OK;
}

int tr_sorter_wait(tr_sorter *s, tr_error *e)
{
    return behind_wait(s, e);
}

int tr_sorter_end(tr_sorter *s, tr_error *e)
{
    if (s->reading || s->busy) return TR_OK;
    if (s->runs.len) return tr_sorter_spill_behind(s, e);
    if (!s->ordered) behind_start(s);
    return TR_OK;
}

int tr_sorter_spill(tr_sorter *s, size_t room, tr_error *e)
{
    if (s->reading) return TR_OK;
    int rc = behind_wait(s, e);
    if (rc == TR_OK && s->n) rc = sorter_spill(s, e);
    size_t cap = (room < TR_SORTER_MIN_BUDGET ? TR_SORTER_MIN_BUDGET : room) / rec_bytes(s);
    if (cap >= s->cap) return rc;
    s->cap = cap;
    if (s->alloc > cap) {
        /* a mapped block shrinks in place (mremap), its pages past CAP given back */
        unsigned char *p = tr_realloc(s->buf, cap * s->o.rec_size);
        if (p) {
            s->buf = p;
            s->alloc = cap;
        } else {
            tr_free(s->buf);
            s->buf = NULL;
            s->alloc = 0;
        }
    }
    return rc;
}

uint64_t tr_sorter_runs(const tr_sorter *s)
{
    return s->spilled;
}

void tr_sorter_close(tr_sorter *s)
{
    if (!s) return;
    tr_error ignored;
    (void)behind_wait(s, &ignored);
    merge_close(&s->m);
    if (s->tmp) tr_output_abort(s->tmp);
    tr_vec_fini(&s->runs);
    tr_free(s->buf);
    tr_free(s);
}
