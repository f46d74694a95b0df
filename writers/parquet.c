/*
** parquet.c: the SQL schema's tables (schema.c; the io and sample_stack views
** become tables) as Hive-style partitioned Parquet files, for Spark, Trino,
** DuckDB and any engine that reads them.  Layout:
**
**   DIR/_tracecat.json                          schema version and layout
**   DIR/<table>/part-<part>.parquet             one file per table and input
**   DIR/<table>/rank=<N>/part-<part>.parquet    with partitioning by rank
**
** DIR is a dataset: each run adds its parts.  The run writes into a
** temporary directory that replaces DIR in one step at the end, with DIR's
** other files carried over (tr_output_open_dir, TR_DIR_ADD): DIR is always
** all old or all new, and a failed run changes nothing.  A part is one input (or one
** rank of one input when partitioned): its ids (slice id, arg set id,
** callsite id, ...) are unique within it, so joins match on part as well as
** id, and every file carries a `part` column.  <part> is the input's file
** name and a hash of its absolute path, so runs over different inputs never
** collide and a run over the same input again replaces its files.
**
** The values are those the SQLite writer stores: ids are the model's rows,
** "none" values (text 0, pid -1, ...) are nulls.  A trace's rows are split
** into parts once per event table by a counting sort on the part of each
** row's process (stable, so each part keeps time order and row groups get
** tight ts statistics); the tables that events point into (args, callsites,
** frames) are gathered per part from its events.  Each file streams through
** parquet_page.c a page at a time.  A stream's events go into their files
** as they come (parquet_stream.c).
*/
#include "parquet_writer_impl.h"
#include "tr_pool.h"
#include "tr_text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define PQ_SCHEMA_VERSION 2 /* bumped when a table or column changes; in _tracecat.json */

/* ---- which part a row is in ---- */

static uint32_t track_part(const pq_w *w, uint32_t track)
{
    const tr_track *k = tr_track_get(w->sc.t, track);
    return k && k->process < tr_process_count(w->sc.t) ? w->proc_part[k->process] : NO_PART;
}

/* The part of a flow end, NO_PART when it is not a kept slice or instant. */
static uint32_t ref_part(const pq_w *w, tr_ref ref)
{
    if (!tr_sc_ref_kept(&w->sc, ref)) return NO_PART;
    uint32_t row = TR_REF_ROW(ref);
    /* A stream of one input has one part, unless it is split by rank: then the track says. */
    if (w->rows) return w->rows->tracks ? track_part(w, tr_rows_track(w->rows, ref)) : 0;
    return track_part(w, TR_REF_KIND(ref) == TR_EV_SLICE ? w->sc.sl.track[row]
                                                         : tr_instant_track(&w->sc.in, row));
}

/* The part of row R of a table of ROWS (TR_SC_ROWS_*), NO_PART when it is not written. */
static uint32_t part_of(const pq_w *w, int rows, size_t r)
{
    const tr_sc_ctx *c = &w->sc;
    int kind = tr_sc_event_kind(rows);
    switch (rows) {
    case TR_SC_ROWS_PROCESS:
        return w->proc_part[r];
    case TR_SC_ROWS_THREAD:
        return tr_sc_thread_track(c, (uint32_t)r) ? track_part(w, (uint32_t)r) : NO_PART;
    case TR_SC_ROWS_TRACK:
        return track_part(w, (uint32_t)r);
    case TR_SC_ROWS_FLOW: {
        /* A flow lives in the part of its start; both ends must be written. */
        tr_flow f;
        tr_sc_flow_get(c, (uint32_t)r, &f);
        return ref_part(w, f.to) == NO_PART ? NO_PART : ref_part(w, f.from);
    }
    default:
        if (!tr_sc_kept(c, kind, r)) return NO_PART;
        return track_part(w, kind == TR_EV_SLICE     ? c->sl.track[r]
                             : kind == TR_EV_INSTANT ? tr_instant_track(&c->in, r)
                             : kind == TR_EV_COUNTER ? c->co.track[r]
                                                     : c->sa.track[r]);
    }
}

/* The rows part_of ranges over. */
static size_t row_count(const pq_w *w, int rows)
{
    const tr_sc_ctx *c = &w->sc;
    switch (rows) {
    case TR_SC_ROWS_PROCESS:
        return tr_process_count(c->t);
    case TR_SC_ROWS_THREAD:
    case TR_SC_ROWS_TRACK:
        return tr_track_count(c->t);
    case TR_SC_ROWS_FLOW:
        return tr_sc_flow_count(c);
    default: {
        size_t n[TR_EV_KIND_COUNT] = {c->sl.n, c->in.n, c->co.n, c->sa.n};
        return n[tr_sc_event_kind(rows)];
    }
    }
}

/* Counting sort of a table's rows by part: stable, so each part keeps time order. */
static int bucket(pq_w *w, int rows, pq_bucket *b, tr_error *e)
{
    size_t n = row_count(w, rows);
    b->off = tr_calloc(w->n_parts + 2, sizeof *b->off);
    b->rows = tr_malloc((n ? n : 1) * sizeof *b->rows);
    if (!b->off || !b->rows) return tr_error_nomem(e);
    for (size_t r = 0; r < n; r++) {
        uint32_t p = part_of(w, rows, r);
        if (p != NO_PART) b->off[p + 2]++;
    }
    for (size_t p = 2; p < w->n_parts + 2; p++) b->off[p] += b->off[p - 1];
    /* off[p + 1] is now where part p starts; filling moves it to where p ends. */
    for (size_t r = 0; r < n; r++) {
        uint32_t p = part_of(w, rows, r);
        if (p != NO_PART) b->rows[b->off[p + 1]++] = (uint32_t)r;
    }
    return TR_OK;
}

static void bucket_free(pq_bucket *b)
{
    tr_free(b->rows);
    tr_free(b->off);
    b->rows = NULL;
    b->off = NULL;
}

/* ---- rows gathered per part ---- */

static int derive_input(pq_w *w, uint32_t p, pq_rows *out, tr_error *e)
{
    w->keys.len = 0;
    uint64_t *k = tr_vec_push(&w->keys);
    if (!k) return tr_error_nomem(e);
    *k = w->parts[p].input;
    out->r64 = w->keys.data;
    out->n = 1;
    return TR_OK;
}

/* Adds ID to the keys unless part P took it already (a stream's marks, without stamps, are each
 * taken once). */
static int take(pq_w *w, uint32_t id, uint32_t p)
{
    if (w->stamp && w->stamp[id] == p) return TR_OK;
    if (w->stamp) w->stamp[id] = p;
    uint64_t *k = tr_vec_push(&w->keys);
    if (!k) return TR_FATAL;
    *k = id;
    return TR_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/*
** The arg sets the part's events (and its input) use, in id order, stamps
** reset first, gathered from the model's rows (a stream marks them instead).
*/
static int part_sets(pq_w *w, uint32_t p)
{
    static const int kinds[] = {TR_EV_SLICE, TR_EV_INSTANT, TR_EV_SAMPLE};
    w->keys.len = 0;
    int rc = TR_OK;
    for (size_t k = 0; k < 3 && !rc; k++) {
        const pq_bucket *b = &w->ev[kinds[k]];
        const uint32_t *args = kinds[k] == TR_EV_SLICE     ? w->sc.sl.args
                               : kinds[k] == TR_EV_INSTANT ? w->sc.in.args
                                                           : w->sc.sa.args;
        for (size_t i = b->off[p]; i < b->off[p + 1] && !rc; i++) {
            uint32_t set = args[b->rows[i]];
            if (set && set <= w->sc.n_sets) rc = take(w, set, p);
        }
    }
    uint32_t meta = tr_input_get(w->sc.t, w->parts[p].input)->meta;
    if (!rc && meta && meta <= w->sc.n_sets) rc = take(w, meta, p);
    if (!rc) tr_qsort(w->keys.data, w->keys.len, sizeof(uint64_t), cmp_u64);
    return rc;
}

/* The callsites the part's samples use and their ancestors, in id order. */
static int part_stacks(pq_w *w, uint32_t p)
{
    const pq_bucket *b = &w->ev[TR_EV_SAMPLE];
    w->keys.len = 0;
    if (w->stack_marks) {
        const tr_vec *marks = &w->stack_marks[p];
        for (size_t s = 1; s < marks->len; s++)
            if (TR_VEC_AT(marks, uint8_t, s) && take(w, (uint32_t)s, p)) return TR_FATAL;
        return TR_OK;
    }
    for (size_t i = b->off[p]; i < b->off[p + 1]; i++)
        for (uint32_t s = w->sc.sa.stack[b->rows[i]]; s && w->stamp[s] != p;
             s = tr_stack_parent(w->sc.t, s))
            if (take(w, s, p)) return TR_FATAL;
    tr_qsort(w->keys.data, w->keys.len, sizeof(uint64_t), cmp_u64);
    return TR_OK;
}

static int derive_callsites(pq_w *w, uint32_t p, pq_rows *out, tr_error *e)
{
    if (part_stacks(w, p)) return tr_error_nomem(e);
    out->r64 = w->keys.data;
    out->n = w->keys.len;
    return TR_OK;
}

/* The frames of the part's callsites (stamps are per frame here). */
static int derive_frames(pq_w *w, uint32_t p, pq_rows *out, tr_error *e)
{
    if (part_stacks(w, p)) return tr_error_nomem(e);
    size_t n = w->keys.len;
    uint64_t *k = w->keys.data;
    for (size_t i = 0; i < n; i++) k[i] = tr_stack_frame(w->sc.t, (uint32_t)k[i]);
    tr_qsort(k, n, sizeof *k, cmp_u64);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || k[m - 1] != k[i]) k[m++] = k[i];
    out->r64 = k;
    out->n = m;
    return TR_OK;
}

/* The part's rows of an event table that TB (a view) keeps. */
static int derive_where(pq_w *w, const tr_sc_table *tb, pq_rows *out, tr_error *e)
{
    w->keys.len = 0;
    for (size_t i = 0; i < out->n; i++) {
        if (!tb->where(&w->sc, out->r32[i])) continue;
        uint64_t *k = tr_vec_push(&w->keys);
        if (!k) return tr_error_nomem(e);
        *k = out->r32[i];
    }
    out->r32 = NULL;
    out->r64 = w->keys.data;
    out->n = w->keys.len;
    return TR_OK;
}

/* Part P's rows of TB: from an event bucket, the table's own bucket B, or gathered. */
static int part_rows(pq_w *w, const tr_sc_table *tb, const pq_bucket *b, uint32_t p, pq_rows *out,
                     tr_error *e)
{
    int kind = tr_sc_event_kind(tb->rows);
    if (kind >= 0) b = &w->ev[kind];
    if (b->rows) {
        out->r32 = b->rows + b->off[p];
        out->n = b->off[p + 1] - b->off[p];
        return tb->where ? derive_where(w, tb, out, e) : TR_OK;
    }
    switch (tb->rows) {
    case TR_SC_ROWS_INPUT:
        return derive_input(w, p, out, e);
    case TR_SC_ROWS_CALLSITE:
        return derive_callsites(w, p, out, e);
    default:
        return derive_frames(w, p, out, e);
    }
}

/* ---- files ---- */

/* Makes directory PATH, whose parent exists; one that is there already will do. */
static int make_dir(const char *path, tr_error *e)
{
    struct stat st;
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return tr_error_errno(e, errno, NULL, "%s: cannot create the directory", path);
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return tr_errorf(e, TR_E_IO, NULL, "%s: not a directory", path);
    return TR_OK;
}

void pq_file_get(void *user, int col, uint64_t row, tr_pq_value *v)
{
    pq_file_ctx *c = user;
    v->key = TR_PQ_NO_KEY;
    if (c->colmap[col] < 0) {
        const pq_part *part = c->part;
        v->s = part->name;
        v->n = part->name_len;
        v->key = 0;
        return;
    }
    if (c->evs) {
        int kind = c->evs[row].rec.kind;
        c->w->sc.cur[kind] = &c->evs[row];
        c->tb->get(&c->w->sc, c->colmap[col], c->evs[row].row, v);
        c->w->sc.cur[kind] = NULL;
        return;
    }
    uint64_t key = c->rows.r32 ? c->rows.r32[row] : c->rows.r64[row];
    c->tb->get(&c->w->sc, c->colmap[col], key, v);
}

/* The file's columns: the table's (less the rank when it is in the path), then part. */
static int file_columns(const pq_dataset *ds, pq_file_ctx *ctx, tr_pq_column *cols)
{
    const tr_sc_table *tb = ctx->tb;
    int n = 0;
    for (int c = 0; c < tb->ncols; c++) {
        if ((tb->cols[c].flags & TR_SC_RANK) && ds->o->partition_rank) continue;
        cols[n] = (tr_pq_column){.name = tb->cols[c].name,
                                 .type = tb->cols[c].type,
                                 .optional = (tb->cols[c].flags & TR_SC_NULL) != 0};
        ctx->colmap[n++] = c;
    }
    cols[n] = (tr_pq_column){.name = "part", .type = TR_PQ_STRING, .optional = 0};
    ctx->colmap[n++] = -1;
    return n;
}

/* DIR/<table>[/rank=N]/part-<part>.parquet into PATH, its directories made when MAKE. */
static int file_path(pq_w *w, const tr_sc_table *tb, const pq_part *part, int make, tr_buf *path,
                     tr_error *e)
{
    const pq_dataset *ds = w->ds;
    int rc = tr_buf_addf(path, "%s/%s", ds->dir, tb->name) ? tr_error_nomem(e) : TR_OK;
    if (!rc && make) rc = make_dir(path->p, e);
    if (!rc && ds->o->partition_rank) {
        if (part->rank >= 0)
            rc = tr_buf_addf(path, "/rank=%d", (int)part->rank);
        else
            rc = tr_buf_adds(path, "/rank=__HIVE_DEFAULT_PARTITION__");
        rc = rc ? tr_error_nomem(e) : make ? make_dir(path->p, e) : TR_OK;
    }
    if (!rc && tr_buf_addf(path, "/part-%s.parquet", part->name)) rc = tr_error_nomem(e);
    return rc;
}

/*
** After a failed add: the files written for W's parts are removed, so the
** new tree holds whole parts only (the run keeps those of earlier inputs).
*/
void pq_remove_parts(pq_w *w)
{
    tr_buf path;
    tr_buf_init(&path, 0);
    for (size_t i = 0; i < tr_sc_n_tables; i++) {
        if (!tr_sc_tables[i].get) continue;
        for (uint32_t p = 0; p < w->n_parts; p++) {
            tr_buf_reset(&path);
            if (file_path(w, &tr_sc_tables[i], &w->parts[p], 0, &path, NULL) == TR_OK)
                unlink(path.p);
        }
    }
    tr_buf_fini(&path);
}

/* Starts table TB's file for PART at PATH (its directories made), with the columns COLS. */
int pq_file_start(pq_w *w, pq_file_ctx *ctx, tr_pq_column *cols, tr_buf *path, tr_output **out,
                  tr_pq_file **f, tr_error *e)
{
    int rc = file_path(w, ctx->tb, ctx->part, 1, path, e);
    int ncols = file_columns(w->ds, ctx, cols);
    if (!rc) rc = tr_output_open(out, path->p, e);
    if (!rc) rc = tr_pq_file_open(f, *out, cols, ncols, &w->ds->lim, e);
    return rc;
}

/* Ends a file: its footer and metadata, then the commit; or, after a failure, nothing is left. */
int pq_file_finish(const tr_sc_table *tb, tr_output *out, tr_pq_file *f, const tr_buf *path, int rc,
                   tr_error *e)
{
    char version[16];
    snprintf(version, sizeof version, "%d", PQ_SCHEMA_VERSION);
    if (!rc) rc = tr_pq_file_meta(f, "tracecat.schema_version", version, e);
    if (!rc) rc = tr_pq_file_meta(f, "tracecat.table", tb->name, e);
    if (!rc) {
        rc = tr_pq_file_finish(f, e);
        f = NULL;
    }
    tr_pq_file_free(f);
    if (!rc) {
        rc = tr_output_commit(out, e);
        out = NULL;
    }
    tr_output_abort(out);
    if (rc && e && !e->file[0]) snprintf(e->file, sizeof e->file, "%s", path->p);
    return rc;
}

/* Part P's file of table TB: each through its own tr_output, so each is atomic. */
int pq_write_file(pq_w *w, const tr_sc_table *tb, uint32_t p, pq_rows rows, tr_error *e)
{
    tr_buf path;
    tr_buf_init(&path, 0);
    pq_file_ctx ctx = {.w = w, .tb = tb, .part = &w->parts[p], .rows = rows};
    tr_pq_column cols[MAX_COLS];
    tr_output *out = NULL;
    tr_pq_file *f = NULL;
    int rc = pq_file_start(w, &ctx, cols, &path, &out, &f, e);
    if (!rc) rc = tr_pq_file_rows(f, rows.n, pq_file_get, &ctx, e);
    rc = pq_file_finish(tb, out, f, &path, rc, e);
    tr_buf_fini(&path);
    return rc;
}

/* Writes the N keys at GROUP as one row group of F. */
static int args_group(tr_pq_file *f, pq_file_ctx *ctx, tr_vec *group, tr_error *e)
{
    ctx->rows = (pq_rows){.r64 = group->data, .n = group->len};
    int rc = group->len ? tr_pq_file_rows(f, group->len, pq_file_get, ctx, e) : TR_OK;
    group->len = 0;
    return rc;
}

/* Adds SET's args to GROUP, one key each (the set in the high 32 bits, the arg's place in the
 * low), writing each full row group. */
static int args_of_set(pq_w *w, tr_pq_file *f, pq_file_ctx *ctx, tr_vec *group, uint64_t set,
                       tr_error *e)
{
    size_t n = tr_args_count(w->sc.t, (uint32_t)set);
    int rc = TR_OK;
    for (size_t j = 0; j < n && !rc; j++) {
        uint64_t *k = tr_vec_push(group);
        if (!k) return tr_error_nomem(e);
        *k = set << 32 | j;
        if (group->len == w->ds->lim.row_group_rows) rc = args_group(f, ctx, group, e);
    }
    return rc;
}

/*
** Part P's args file, a row group at a time: the sets its events (and its
** input) use, in id order (a stream's marks, else gathered), one row per
** arg.  The list of every arg would take 8 bytes an arg (about 190 M of them
** in a 10 GB Kineto trace); a row group's keys take 1 MiB.
*/
static int write_args(pq_w *w, const tr_sc_table *tb, uint32_t p, tr_error *e)
{
    const tr_vec *marks = w->set_marks ? &w->set_marks[p] : NULL;
    tr_vec group;
    tr_vec_init(&group, sizeof(uint64_t));
    tr_buf path;
    tr_buf_init(&path, 0);
    pq_file_ctx ctx = {.w = w, .tb = tb, .part = &w->parts[p]};
    tr_pq_column cols[MAX_COLS];
    tr_output *out = NULL;
    tr_pq_file *f = NULL;
    int rc = !marks && part_sets(w, p) ? tr_error_nomem(e) : TR_OK;
    if (!rc) rc = pq_file_start(w, &ctx, cols, &path, &out, &f, e);
    if (marks) {
        /* The marks are in id order; the input's own set joins them there. */
        uint32_t meta = tr_input_get(w->sc.t, w->parts[p].input)->meta;
        size_t last = marks->len ? marks->len - 1 : 0;
        if (meta > last) last = meta;
        if (last > w->sc.n_sets) last = w->sc.n_sets;
        for (size_t set = 1; set <= last && !rc; set++)
            if (set == meta || (set < marks->len && TR_VEC_AT(marks, uint8_t, set)))
                rc = args_of_set(w, f, &ctx, &group, set, e);
    }
    for (size_t i = 0; !marks && i < w->keys.len && !rc; i++)
        rc = args_of_set(w, f, &ctx, &group, TR_VEC_AT(&w->keys, uint64_t, i), e);
    if (!rc) rc = args_group(f, &ctx, &group, e);
    rc = pq_file_finish(tb, out, f, &path, rc, e);
    tr_buf_fini(&path);
    tr_vec_fini(&group);
    return rc;
}

static void reset_stamps(pq_w *w)
{
    for (size_t i = 0; i < w->n_stamp; i++) w->stamp[i] = NO_PART;
}

/* Whether a table's rows are bucketed by their own part (the events' once, in pq_prepare). */
static int own_bucket(int rows)
{
    return rows == TR_SC_ROWS_PROCESS || rows == TR_SC_ROWS_THREAD || rows == TR_SC_ROWS_TRACK ||
           rows == TR_SC_ROWS_FLOW;
}

int pq_write_table(pq_w *w, const tr_sc_table *tb, tr_error *e)
{
    pq_bucket own = {0};
    int rc = TR_OK;
    reset_stamps(w);
    if (own_bucket(tb->rows)) rc = bucket(w, tb->rows, &own, e);
    /* Each part gets a file, empty or not, so every table exists for every part. */
    for (uint32_t p = 0; p < w->n_parts && !rc; p++) {
        pq_rows rows = {0};
        if (tb->rows == TR_SC_ROWS_ARG) {
            rc = write_args(w, tb, p, e);
            continue;
        }
        rc = part_rows(w, tb, &own, p, &rows, e);
        if (!rc) rc = pq_write_file(w, tb, p, rows, e);
    }
    bucket_free(&own);
    return rc;
}

/*
** The tables on the pool's threads (--threads), each file through its own
** output and zstd context, so the bytes are those of one thread.  A job
** reads the shared W (the trace, parts and event buckets, fixed by pq_prepare)
** and has its own scratch: stamps, keys and the getters' text buffer.
*/
typedef struct pq_tables {
    const pq_w *w;
    const tr_sc_table **tb; /* the tables that have rows to get */
    size_t n;
    int *rc; /* each job's */
    tr_error *err;
} pq_tables;

static int table_job(void *user, size_t i)
{
    pq_tables *j = user;
    pq_w own = *j->w;
    own.stamp = own.n_stamp ? tr_malloc(own.n_stamp * sizeof *own.stamp) : NULL;
    tr_vec_init(&own.keys, sizeof(uint64_t));
    tr_sc_copy(&own.sc, &j->w->sc);
    int rc = own.stamp || !own.n_stamp ? pq_write_table(&own, j->tb[i], &j->err[i])
                                       : tr_error_nomem(&j->err[i]);
    rc = tr_sc_check(&own.sc, rc, &j->err[i]);
    tr_free(own.stamp);
    tr_vec_fini(&own.keys);
    tr_sc_copy_end(&own.sc, &j->w->sc);
    return j->rc[i] = rc;
}

/* Every table of W's trace; the first failure in table order is the one reported. */
static int write_tables(pq_w *w, tr_error *e)
{
    int threads = tr_pool_threads(w->ds->o->threads, tr_sc_n_tables);
    int rc = TR_OK;
    for (size_t i = 0; threads <= 1 && i < tr_sc_n_tables && !rc; i++)
        if (tr_sc_tables[i].get) rc = pq_write_table(w, &tr_sc_tables[i], e);
    if (threads <= 1) return rc;
    pq_tables j = {.w = w,
                   .tb = tr_calloc(tr_sc_n_tables, sizeof *j.tb),
                   .rc = tr_calloc(tr_sc_n_tables, sizeof *j.rc),
                   .err = tr_calloc(tr_sc_n_tables, sizeof *j.err)};
    if (!j.tb || !j.rc || !j.err) rc = tr_error_nomem(e);
    for (size_t i = 0; !rc && i < tr_sc_n_tables; i++)
        if (tr_sc_tables[i].get) j.tb[j.n++] = &tr_sc_tables[i];
    if (!rc) tr_pool_run(threads, j.n, table_job, &j);
    for (size_t i = 0; !rc && i < j.n; i++)
        if (j.rc[i]) *e = j.err[i], rc = j.rc[i];
    tr_free(j.tb);
    tr_free(j.rc);
    tr_free(j.err);
    return rc;
}

/* ---- parts ---- */

/*
** FNV-1a, not the tree's tr_hash_bytes: the hash is part of file names that
** later runs must find again, so it can never change.
*/
static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

/*
** An input's part name: its file name (letters, digits, '.', '_', '-'; at
** most 48 of them) and 12 hex digits of a hash of its absolute path.
*/
static int input_part_name(const tr_trace *t, uint32_t input, tr_buf *b)
{
    size_t n;
    const char *path = tr_str_get(t, tr_input_get(t, input)->path, &n);
    uint64_t h = 0xcbf29ce484222325ull;
    if (n == 0 || path[0] != '/') {
        char *cwd = getcwd(NULL, 0);
        if (cwd) {
            h = fnv1a(h, cwd, strlen(cwd));
            h = fnv1a(h, "/", 1);
        }
        free(cwd);
    }
    h = fnv1a(h, path, n);
    size_t end = n;
    while (end > 1 && path[end - 1] == '/') end--;
    size_t start = end;
    while (start > 0 && path[start - 1] != '/') start--;
    size_t kept = 0;
    int rc = TR_OK;
    for (size_t i = start; i < end && kept < 48 && !rc; i++, kept++) {
        char c = path[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
        rc = tr_buf_addc(b, ok ? c : '_');
    }
    if (!rc && kept == 0) rc = tr_buf_adds(b, "stdin");
    if (!rc) rc = tr_buf_addf(b, "-%012llx", (unsigned long long)(h >> 16));
    return rc;
}

/* Names part P: input INPUT, of rank RANK when the dataset is partitioned. */
int pq_part_fill(const pq_w *w, pq_part *p, uint32_t input, int32_t rank)
{
    tr_buf name;
    tr_buf_init(&name, 0);
    int rc = input_part_name(w->sc.t, input, &name);
    if (!rc && w->ds->o->partition_rank && rank >= 0) rc = tr_buf_addf(&name, "-r%d", (int)rank);
    if (rc) {
        tr_buf_fini(&name);
        return TR_FATAL;
    }
    p->input = input;
    p->rank = rank;
    p->name = name.p; /* the buffer's text is ours to keep */
    p->name_len = name.len;
    return TR_OK;
}

static int add_part(pq_w *w, uint32_t input, int32_t rank, size_t *cap)
{
    if (w->n_parts == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        pq_part *parts = tr_realloc(w->parts, c * sizeof *parts);
        if (!parts) return TR_FATAL;
        w->parts = parts;
        *cap = c;
    }
    if (pq_part_fill(w, &w->parts[w->n_parts], input, rank)) return TR_FATAL;
    w->n_parts++;
    return TR_OK;
}

typedef struct proc_key {
    uint32_t input, proc;
    int32_t rank;
} proc_key;

static int by_input_rank(const void *a, const void *b)
{
    const proc_key *x = a, *y = b;
    if (x->input != y->input) return x->input < y->input ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return x->proc < y->proc ? -1 : x->proc > y->proc;
}

/*
** One part per input, or per (input, rank) when partitioned; an input with
** no process still gets one, so each of its tables has a file.
*/
static int make_parts(pq_w *w, tr_error *e)
{
    const tr_trace *t = w->sc.t;
    size_t n_proc = tr_process_count(t), n_in = tr_input_count(t), cap = 0;
    w->proc_part = tr_malloc((n_proc ? n_proc : 1) * sizeof *w->proc_part);
    proc_key *keys = tr_malloc((n_proc ? n_proc : 1) * sizeof *keys);
    uint8_t *has = tr_calloc(n_in ? n_in : 1, 1);
    int rc = !w->proc_part || !keys || !has ? TR_FATAL : TR_OK;
    for (size_t i = 0; i < n_proc && !rc; i++) {
        const tr_process *p = tr_process_get(t, (uint32_t)i);
        keys[i] = (proc_key){.input = p->input,
                             .proc = (uint32_t)i,
                             .rank = w->ds->o->partition_rank ? p->rank : -1};
        w->proc_part[i] = NO_PART;
    }
    if (!rc) tr_qsort(keys, n_proc, sizeof *keys, by_input_rank);
    for (size_t i = 0; i < n_proc && !rc; i++) {
        const proc_key *k = &keys[i];
        if (k->input >= n_in) continue;
        if (i == 0 || k->input != keys[i - 1].input || k->rank != keys[i - 1].rank)
            rc = add_part(w, k->input, k->rank, &cap);
        w->proc_part[k->proc] = (uint32_t)w->n_parts - 1;
        has[k->input] = 1;
    }
    for (size_t i = 0; i < n_in && !rc; i++)
        if (!has[i]) rc = add_part(w, (uint32_t)i, tr_input_get(t, (uint32_t)i)->rank, &cap);
    tr_free(keys);
    tr_free(has);
    return rc ? tr_error_nomem(e) : TR_OK;
}

/* Parts, event buckets and stamps for one trace. */
int pq_prepare(pq_w *w, tr_error *e)
{
    const tr_trace *t = w->sc.t;
    tr_vec_init(&w->keys, sizeof(uint64_t));
    /*
    ** One stamp array serves sets and stacks in turn (the larger of them); a
    ** stream marks what each part used instead (4 bytes a set less).
    */
    size_t n_stamp = w->sc.n_sets + 1;
    if (tr_stack_count(t) > n_stamp) n_stamp = tr_stack_count(t);
    if (w->rows) n_stamp = 0;
    w->stamp = n_stamp ? tr_malloc(n_stamp * sizeof *w->stamp) : NULL;
    if (n_stamp && !w->stamp) return tr_error_nomem(e);
    w->n_stamp = n_stamp;
    int rc = make_parts(w, e);
    static const int rows[TR_EV_KIND_COUNT] = {TR_SC_ROWS_SLICE, TR_SC_ROWS_INSTANT,
                                               TR_SC_ROWS_COUNTER, TR_SC_ROWS_SAMPLE};
    for (int k = 0; k < TR_EV_KIND_COUNT && !rc; k++) rc = bucket(w, rows[k], &w->ev[k], e);
    return rc;
}

void pq_finish(pq_w *w)
{
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) bucket_free(&w->ev[k]);
    for (size_t p = 0; p < w->n_parts; p++) tr_free(w->parts[p].name);
    tr_free(w->parts);
    tr_free(w->proc_part);
    tr_free(w->stamp);
    tr_vec_fini(&w->keys);
    tr_sc_close(&w->sc);
}

/* ---- free space ---- */

/*
** What a trace's files take at most, judged from the model: zstd'd columns
** come to a fraction of the model's bytes (about 1/6 to 1/10 in
** tests/bench/parquet); half is a margin that still catches a nearly full disk.
*/
static uint64_t estimate_bytes(const tr_trace *t)
{
    size_t files = 0;
    for (size_t i = 0; i < tr_sc_n_tables; i++) files += tr_sc_tables[i].get != NULL;
    return (uint64_t)tr_trace_memory(t) / 2 + (64u << 10) * files;
}

/* Fails before anything is written when the disk cannot hold T's files (o->free_bytes: tests). */
int pq_check_space(const pq_dataset *ds, const tr_trace *t, tr_error *e)
{
    uint64_t need = estimate_bytes(t), avail = ds->o->free_bytes;
    if (!avail) {
        struct statvfs st;
        if (statvfs(ds->dir, &st) != 0) return TR_OK; /* cannot tell: the writes will */
        avail = (uint64_t)st.f_bavail * st.f_frsize;
    }
    if (avail >= need) return TR_OK;
    size_t n;
    const char *path = tr_input_count(t) ? tr_str_get(t, tr_input_get(t, 0)->path, &n) : "";
    return tr_errorf(e, TR_E_IO, NULL,
                     "%s: not enough free space: %llu MB free, about %llu MB needed for %s",
                     ds->dir, (unsigned long long)(avail >> 20),
                     (unsigned long long)((need + (1 << 20) - 1) >> 20), path);
}

/* ---- the layout file ---- */

/* _tracecat.json: what engines and later runs need to know about the directory. */
static int layout_json(const pq_dataset *ds, tr_buf *b)
{
    int ranked = ds->o->partition_rank;
    int rc = tr_buf_addf(b,
                         "{\"tool\":\"tracecat\",\"tool_version\":\"%s\",\"format\":\"parquet\","
                         "\"schema_version\":%d,\"partition\":%s,\"tables\":{",
                         TRACECAT_VERSION, PQ_SCHEMA_VERSION, ranked ? "\"rank\"" : "null");
    int first_table = 1;
    for (size_t i = 0; i < tr_sc_n_tables && !rc; i++) {
        const tr_sc_table *tb = &tr_sc_tables[i];
        if (!tb->get) continue;
        rc = tr_buf_addf(b, "%s\n\"%s\":[", first_table ? "" : ",", tb->name);
        first_table = 0;
        for (int c = 0; c < tb->ncols && !rc; c++)
            if (!((tb->cols[c].flags & TR_SC_RANK) && ranked))
                rc = tr_buf_addf(b, "\"%s\",", tb->cols[c].name);
        if (!rc) rc = tr_buf_adds(b, "\"part\"]");
    }
    if (!rc) rc = tr_buf_adds(b, "}}\n");
    return rc;
}

/* Refuses a directory written with the other layout or a newer schema. */
static int check_existing(const pq_dataset *ds, const char *path, tr_error *e)
{
    FILE *fp = fopen(path, "r");
    if (!fp) return TR_OK;
    char head[512];
    size_t n = fread(head, 1, sizeof head - 1, fp);
    fclose(fp);
    head[n] = '\0';
    const char *v = strstr(head, "\"schema_version\":");
    if (v && atoi(v + 17) > PQ_SCHEMA_VERSION)
        return tr_errorf(e, TR_E_USAGE, NULL, "%s: written by a newer tracecat (schema %d)", path,
                         atoi(v + 17));
    int was_rank = strstr(head, "\"partition\":\"rank\"") != NULL;
    if (was_rank != (ds->o->partition_rank != 0))
        return tr_errorf(e, TR_E_USAGE, NULL, "%s: the directory was written %s --partition rank",
                         path, was_rank ? "with" : "without");
    return TR_OK;
}

/* Checks the layout of what TARGET holds and writes _tracecat.json into the new tree. */
static int write_layout(const pq_dataset *ds, const char *target, tr_error *e)
{
    tr_buf path, json;
    tr_buf_init(&path, 0);
    tr_buf_init(&json, 0);
    int rc = TR_OK;
    if (tr_buf_addf(&path, "%s/_tracecat.json", target) || layout_json(ds, &json))
        rc = tr_error_nomem(e);
    if (!rc) rc = check_existing(ds, path.p, e);
    tr_buf_reset(&path);
    if (!rc && tr_buf_addf(&path, "%s/_tracecat.json", ds->dir)) rc = tr_error_nomem(e);
    tr_output *out = NULL;
    if (!rc) rc = tr_output_open(&out, path.p, e);
    if (!rc) rc = tr_output_write(out, json.p, json.len, e);
    if (!rc) {
        rc = tr_output_commit(out, e);
        out = NULL;
    }
    tr_output_abort(out);
    tr_buf_fini(&path);
    tr_buf_fini(&json);
    return rc;
}

/* ---- the writer ---- */

static int parquet_begin(tr_write *run, tr_error *e)
{
    pq_dataset *ds = tr_calloc(1, sizeof *ds);
    if (!ds) return tr_error_nomem(e);
    ds->dir = tr_output_dir(run->out);
    ds->o = run->opts;
    tr_pq_limits_default(&ds->lim);
    if (ds->o->row_group_rows) ds->lim.row_group_rows = ds->o->row_group_rows;
    int rc = write_layout(ds, tr_output_path(run->out), e);
    if (rc != TR_OK) {
        tr_free(ds);
        return rc;
    }
    run->state = ds;
    return TR_OK;
}

/* Every part of frozen trace T, after checking the disk can hold them. */
static int parquet_add(tr_write *run, const tr_trace *t, tr_error *e)
{
    pq_dataset *ds = run->state;
    if (!tr_trace_frozen(t)) return tr_errorf(e, TR_E_USAGE, NULL, "the trace is not frozen");
    int rc = pq_check_space(ds, t, e);
    if (rc) return rc;
    pq_w w;
    memset(&w, 0, sizeof w);
    w.ds = ds;
    rc = tr_sc_open(&w.sc, t, ds->o->filter, e);
    if (!rc) rc = pq_prepare(&w, e);
    if (!rc) rc = tr_sc_check(&w.sc, write_tables(&w, e), e);
    if (rc) pq_remove_parts(&w);
    run->keep |= rc == TR_OK;
    pq_finish(&w);
    return rc;
}

/*
** A part written whole whose earlier part then failed (adds run two at once,
** TR_WRITE_PARTS_AT_ONCE): its files go, as after its own failure.
*/
static void parquet_drop(tr_write *run, const tr_trace *t)
{
    pq_w w;
    memset(&w, 0, sizeof w);
    w.ds = run->state;
    w.sc.t = t;
    if (make_parts(&w, NULL) == TR_OK) pq_remove_parts(&w);
    for (size_t p = 0; p < w.n_parts; p++) tr_free(w.parts[p].name);
    tr_free(w.parts);
    tr_free(w.proc_part);
}

static int parquet_end(tr_write *run, int rc, tr_error *e)
{
    pq_dataset *ds = run->state;
    pq_stream *st = ds ? ds->stream : NULL;
    if (st && rc == TR_OK && st->streaming) rc = pq_stream_finish(st, e);
    if (st) pq_stream_free(st);
    tr_free(ds);
    return rc;
}

const tr_writer tr_writer_parquet = {
    .abi = TR_WRITER_ABI,
    .name = "parquet",
    .description = "Parquet files, Hive-partitioned (-o DIR/; Spark, Trino, DuckDB)",
    .extensions = "",
    .binary = 1,
    .flags = TR_WRITE_PER_INPUT | TR_WRITE_DIR | TR_WRITE_DATASET | TR_WRITE_PARTS_AT_ONCE,
    .begin = parquet_begin,
    .add = parquet_add,
    .end = parquet_end,
    .event = pq_event,
    .flows = pq_flows,
    .part_end = pq_part_end,
    .drop = parquet_drop,
};
