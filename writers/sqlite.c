/*
** sqlite.c: the trace as a SQLite database, for tracesql and any SQLite client.
**
** Tables follow Perfetto's trace processor where the concept is the same, so
** queries written for it keep working; README "SQL schema" documents them.
** Model rows keep their numbers as ids (slice.id is the slice's row), so ids
** are stable for one trace and flows and parents need no remapping.  Text id
** 0 ("") and the model's "none" values (-1, TR_NONE) become NULL.
**
** Loading is one transaction of prepared statements that insert 64 rows each,
** with the journal and syncing off while it runs (the file is a temporary one
** that is renamed only on success, so a crash cannot leave a half database
** under the target's name); indexes are built after the rows are in, which
** sorts once instead of updating a b-tree per row.
*/
#include "tr_sqlite.h"
#include "tr_mem.h"

#include <stdio.h>
#include <string.h>

typedef struct sq_w {
    sqlite3 *db;
    const tr_trace *t;
    tr_error *e;
    uint8_t *keep[TR_EV_KIND_COUNT]; /* per event row, 1 = written; NULL = every row */
    uint8_t *set_used;               /* per arg set (1-based), 1 = referenced */
    uint64_t *set_first;             /* per arg set, the id of its first arg */
    size_t n_sets;
    tr_slices sl;
    tr_instants in;
    tr_counters co;
    tr_samples sa;
} sq_w;

static const char schema_sql[] =
    "CREATE TABLE meta(key TEXT NOT NULL, value);\n"
    "CREATE TABLE trace_input(id INTEGER PRIMARY KEY, path TEXT NOT NULL, format TEXT NOT NULL,"
    " origin TEXT, origin_unix_ns INTEGER, clock TEXT, rank INTEGER,"
    " lines_skipped INTEGER NOT NULL, warnings INTEGER NOT NULL, arg_set_id INTEGER);\n"
    "CREATE TABLE process(upid INTEGER PRIMARY KEY, pid INTEGER, name TEXT, rank INTEGER,"
    " host TEXT, labels TEXT, sort_index INTEGER, input_id INTEGER NOT NULL);\n"
    "CREATE TABLE thread(utid INTEGER PRIMARY KEY, tid INTEGER, name TEXT,"
    " upid INTEGER NOT NULL);\n"
    "CREATE TABLE track(id INTEGER PRIMARY KEY, name TEXT, kind TEXT NOT NULL,"
    " upid INTEGER NOT NULL, utid INTEGER, tid INTEGER, sort_index INTEGER);\n"
    "CREATE TABLE slice(id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, dur INTEGER NOT NULL,"
    " track_id INTEGER NOT NULL, category TEXT, name TEXT, depth INTEGER NOT NULL,"
    " parent_id INTEGER, arg_set_id INTEGER, bytes INTEGER);\n"
    "CREATE TABLE instant(id INTEGER PRIMARY KEY, ts INTEGER NOT NULL,"
    " track_id INTEGER NOT NULL, category TEXT, name TEXT, scope TEXT NOT NULL,"
    " arg_set_id INTEGER, bytes INTEGER);\n"
    "CREATE TABLE counter(id INTEGER PRIMARY KEY, ts INTEGER NOT NULL,"
    " track_id INTEGER NOT NULL, value REAL NOT NULL);\n"
    "CREATE TABLE flow(id INTEGER PRIMARY KEY, slice_out INTEGER, slice_in INTEGER,"
    " instant_out INTEGER, instant_in INTEGER, name TEXT, category TEXT, flow_id INTEGER);\n"
    /* args is a view over this: computed columns cost nothing to load there. */
    "CREATE TABLE __intrinsic_args(arg_set_id INTEGER NOT NULL, id INTEGER NOT NULL,"
    " key TEXT NOT NULL, int_value INTEGER, string_value TEXT, real_value REAL,"
    " value_type TEXT NOT NULL, PRIMARY KEY(arg_set_id, id)) WITHOUT ROWID;\n"
    "CREATE TABLE stack_profile_frame(id INTEGER PRIMARY KEY, name TEXT, file TEXT,"
    " line INTEGER, module TEXT, is_native INTEGER NOT NULL);\n"
    "CREATE TABLE stack_profile_callsite(id INTEGER PRIMARY KEY, depth INTEGER NOT NULL,"
    " parent_id INTEGER, frame_id INTEGER NOT NULL);\n"
    "CREATE TABLE stack_sample(id INTEGER PRIMARY KEY, ts INTEGER NOT NULL,"
    " track_id INTEGER NOT NULL, utid INTEGER, callsite_id INTEGER, arg_set_id INTEGER,"
    " weight INTEGER NOT NULL);\n";

static const char views_sql[] =
    "CREATE VIEW args AS SELECT arg_set_id, id, key AS flat_key, key, int_value,"
    " string_value, real_value, value_type, CASE value_type"
    " WHEN 'string' THEN string_value WHEN 'real' THEN CAST(real_value AS TEXT)"
    " WHEN 'bool' THEN CASE int_value WHEN 0 THEN 'false' ELSE 'true' END"
    " ELSE CAST(coalesce(int_value, real_value) AS TEXT) END AS display_value"
    " FROM __intrinsic_args;\n"
    "CREATE VIEW thread_track AS SELECT id, name, utid, upid FROM track"
    " WHERE utid IS NOT NULL;\n"
    "CREATE VIEW process_track AS SELECT id, name, upid FROM track"
    " WHERE utid IS NULL AND kind <> 'counter';\n"
    "CREATE VIEW counter_track AS SELECT id, name, upid FROM track WHERE kind = 'counter';\n"
    "CREATE VIEW cpu_profile_stack_sample AS SELECT id, ts, callsite_id, utid"
    " FROM stack_sample;\n"
    /* Recorder's calls: the layer is the category, path/offset are args. */
    "CREATE VIEW io AS SELECT s.id AS slice_id, p.rank AS rank, t.tid AS thread, s.ts AS ts,"
    " s.dur AS dur, s.name AS function, s.category AS layer,"
    " (SELECT a.string_value FROM args a WHERE a.arg_set_id = s.arg_set_id"
    " AND a.key = 'path') AS path,"
    " (SELECT a.int_value FROM args a WHERE a.arg_set_id = s.arg_set_id"
    " AND a.key = 'offset') AS offset, s.bytes AS bytes"
    " FROM slice s JOIN track t ON t.id = s.track_id JOIN process p ON p.upid = t.upid"
    " JOIN trace_input i ON i.id = p.input_id WHERE i.format = 'recorder';\n"
    /*
    ** One row per GT log record; dur is that of the request or worker round
    ** trip the record opens (the slice on its lane whose seq arg is the
    ** record's), found through a materialized table SQLite indexes on the fly.
    */
    "CREATE VIEW gt_op AS WITH op AS MATERIALIZED (SELECT s.track_id AS track_id,"
    " a.int_value AS seq, s.id AS slice_id, s.dur AS dur FROM slice s JOIN args a"
    " ON a.arg_set_id = s.arg_set_id AND a.key = 'seq'"
    " WHERE s.category IN ('gt.client', 'gt.worker'))"
    " SELECT i.id AS instant_id, t.name AS lane, sq.int_value AS seq, i.name AS event,"
    " cmd.string_value AS command, i.bytes AS bytes, i.ts AS ts, op.dur AS dur,"
    " op.slice_id AS slice_id"
    " FROM instant i JOIN track t ON t.id = i.track_id"
    " LEFT JOIN args sq ON sq.arg_set_id = i.arg_set_id AND sq.key = 'seq'"
    " LEFT JOIN args cmd ON cmd.arg_set_id = i.arg_set_id AND cmd.key = 'command'"
    " LEFT JOIN op ON op.track_id = i.track_id AND op.seq = sq.int_value"
    " WHERE i.category = 'gt';\n"
    /* Each callsite's frames root first, built once per query by recursion. */
    "CREATE VIEW sample_stack AS WITH RECURSIVE path(id, depth, stack, leaf) AS ("
    "SELECT c.id, c.depth, coalesce(f.name, '?'), f.name FROM stack_profile_callsite c"
    " JOIN stack_profile_frame f ON f.id = c.frame_id WHERE c.parent_id IS NULL"
    " UNION ALL SELECT c.id, c.depth, path.stack || ';' || coalesce(f.name, '?'), f.name"
    " FROM stack_profile_callsite c JOIN path ON c.parent_id = path.id"
    " JOIN stack_profile_frame f ON f.id = c.frame_id)"
    " SELECT s.id AS id, s.ts AS ts, s.track_id AS track_id, s.utid AS utid,"
    " t.name AS thread, s.callsite_id AS callsite_id, s.weight AS weight,"
    " path.depth + 1 AS depth,"
    " path.leaf AS leaf, path.stack AS stack"
    " FROM stack_sample s JOIN track t ON t.id = s.track_id"
    " LEFT JOIN path ON path.id = s.callsite_id;\n";

static const char index_sql[] =
    "CREATE INDEX slice_track_ts ON slice(track_id, ts);\n"
    "CREATE INDEX slice_name ON slice(name);\n"
    "CREATE INDEX instant_track_ts ON instant(track_id, ts);\n"
    "CREATE INDEX instant_name ON instant(name);\n"
    "CREATE INDEX counter_track_ts ON counter(track_id, ts);\n"
    "CREATE INDEX stack_sample_track_ts ON stack_sample(track_id, ts);\n"
    "CREATE INDEX callsite_parent ON stack_profile_callsite(parent_id);\n";

/* What tr_sqlite_check requires: every table and view above. */
static const char *const schema_names[] = {"meta",
                                           "trace_input",
                                           "process",
                                           "thread",
                                           "track",
                                           "slice",
                                           "instant",
                                           "counter",
                                           "flow",
                                           "__intrinsic_args",
                                           "args",
                                           "stack_profile_frame",
                                           "stack_profile_callsite",
                                           "stack_sample",
                                           "thread_track",
                                           "process_track",
                                           "counter_track",
                                           "cpu_profile_stack_sample",
                                           "io",
                                           "gt_op",
                                           "sample_stack"};

#define N_SCHEMA_NAMES (sizeof schema_names / sizeof *schema_names)

static int sq_fail(sq_w *w, const char *what)
{
    int code = sqlite3_errcode(w->db);
    if (code == SQLITE_NOMEM) return tr_error_nomem(w->e);
    return tr_errorf(w->e, TR_E_IO, NULL, "%s: %s", what, sqlite3_errmsg(w->db));
}

static int sq_exec(sq_w *w, const char *sql, const char *what)
{
    return sqlite3_exec(w->db, sql, NULL, NULL, NULL) == SQLITE_OK ? TR_OK : sq_fail(w, what);
}

static int sq_prepare(sq_w *w, const char *sql, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(w->db, sql, -1, st, NULL) != SQLITE_OK)
        return sq_fail(w, "cannot prepare an insert");
    return TR_OK;
}

/* Steps an insert and readies it for the next row. */
static int sq_step(sq_w *w, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? TR_OK : sq_fail(w, "cannot write");
}

/* Binds string S, NULL for "": the trace outlives the statement, so no copy. */
static void bind_str(const sq_w *w, sqlite3_stmt *st, int col, tr_str s)
{
    if (s == 0) {
        sqlite3_bind_null(st, col);
        return;
    }
    size_t n;
    const char *p = tr_str_get(w->t, s, &n);
    sqlite3_bind_text(st, col, p, (int)n, SQLITE_STATIC);
}

static void bind_opt_int(sqlite3_stmt *st, int col, int64_t v, int64_t none)
{
    if (v == none)
        sqlite3_bind_null(st, col);
    else
        sqlite3_bind_int64(st, col, v);
}

static void bind_set(sqlite3_stmt *st, int col, uint32_t set)
{
    bind_opt_int(st, col, set, 0);
}

static int kept(const sq_w *w, int kind, size_t row)
{
    return !w->keep[kind] || w->keep[kind][row];
}

static void use_set(sq_w *w, uint32_t set)
{
    if (set && set <= w->n_sets) w->set_used[set] = 1;
}

/* Marks the rows the filter keeps and the arg sets that kept rows use. */
static int sq_select(sq_w *w, const tr_filter *filter)
{
    const tr_trace *t = w->t;
    while (tr_args_count(t, (uint32_t)w->n_sets + 1) > 0) w->n_sets++;
    w->set_used = tr_calloc(w->n_sets + 1, 1);
    w->set_first = tr_malloc((w->n_sets + 1) * sizeof *w->set_first);
    if (!w->set_used || !w->set_first) return tr_error_nomem(w->e);
    /* An arg's id is its place among all the trace's args, whatever the filter drops. */
    uint64_t first = 0;
    for (size_t s = 1; s <= w->n_sets; s++) {
        w->set_first[s] = first;
        first += tr_args_count(t, (uint32_t)s);
    }
    if (filter) {
        size_t n[TR_EV_KIND_COUNT] = {w->sl.n, w->in.n, w->co.n, w->sa.n};
        for (int k = 0; k < TR_EV_KIND_COUNT; k++)
            if (!(w->keep[k] = tr_calloc(n[k] ? n[k] : 1, 1))) return tr_error_nomem(w->e);
        tr_iter it;
        tr_event ev;
        tr_iter_init(&it, t);
        while (tr_iter_next(&it, &ev))
            w->keep[ev.kind][ev.row] = filter->keep(filter->user, t, &ev) != 0;
    }
    for (size_t r = 0; r < w->sl.n; r++)
        if (kept(w, TR_EV_SLICE, r)) use_set(w, w->sl.args[r]);
    for (size_t r = 0; r < w->in.n; r++)
        if (kept(w, TR_EV_INSTANT, r)) use_set(w, w->in.args[r]);
    for (size_t r = 0; r < w->sa.n; r++)
        if (kept(w, TR_EV_SAMPLE, r)) use_set(w, w->sa.args[r]);
    for (size_t i = 0; i < tr_input_count(t); i++) use_set(w, tr_input_get(t, (uint32_t)i)->meta);
    return TR_OK;
}

/*
** Batched inserts: one statement inserts BULK_ROWS rows, which divides
** SQLite's per-statement cost (step, reset, the VDBE's setup) by as much.
** A binder fills one row's columns BASE+1 .. BASE+ncol from a row key; the
** keys of a partial last batch are kept and bound again into a statement of
** their size.
*/
#define BULK_ROWS 64

typedef void (*sq_binder)(const sq_w *w, sqlite3_stmt *st, int base, uint64_t key);

typedef struct sq_bulk {
    sq_w *w;
    const char *table;
    int ncol;
    sq_binder bind;
    sqlite3_stmt *full;
    uint64_t keys[BULK_ROWS];
    int n;
    int rc;
} sq_bulk;

/* "INSERT INTO table VALUES(?,..),(?,..)" for ROWS rows. */
static int bulk_prepare(sq_bulk *b, int rows, sqlite3_stmt **st)
{
    tr_buf sql;
    tr_buf_init(&sql, 0);
    int rc = tr_buf_addf(&sql, "INSERT INTO %s VALUES", b->table);
    for (int r = 0; r < rows && !rc; r++) {
        rc = tr_buf_add(&sql, r ? ",(?" : "(?", r ? 3 : 2);
        for (int c = 1; c < b->ncol && !rc; c++) rc = tr_buf_add(&sql, ",?", 2);
        if (!rc) rc = tr_buf_addc(&sql, ')');
    }
    rc = rc ? tr_error_nomem(b->w->e) : sq_prepare(b->w, sql.p, st);
    tr_buf_fini(&sql);
    return rc;
}

static int bulk_begin(sq_bulk *b, sq_w *w, const char *table, int ncol, sq_binder bind)
{
    memset(b, 0, sizeof *b);
    b->w = w;
    b->table = table;
    b->ncol = ncol;
    b->bind = bind;
    return b->rc = bulk_prepare(b, BULK_ROWS, &b->full);
}

static int bulk_add(sq_bulk *b, uint64_t key)
{
    if (b->rc) return b->rc;
    b->bind(b->w, b->full, b->n * b->ncol, key);
    b->keys[b->n++] = key;
    if (b->n == BULK_ROWS) {
        b->n = 0;
        b->rc = sq_step(b->w, b->full);
    }
    return b->rc;
}

static int bulk_end(sq_bulk *b)
{
    sqlite3_finalize(b->full);
    if (b->rc || b->n == 0) return b->rc;
    sqlite3_stmt *st;
    if ((b->rc = bulk_prepare(b, b->n, &st))) return b->rc;
    for (int i = 0; i < b->n; i++) b->bind(b->w, st, i * b->ncol, b->keys[i]);
    b->rc = sq_step(b->w, st);
    sqlite3_finalize(st);
    return b->rc;
}

static int put_meta(sq_w *w)
{
    sqlite3_stmt *st;
    int rc = sq_prepare(w, "INSERT INTO meta VALUES(?,?)", &st);
    if (rc) return rc;
    static const char *const fixed[][2] = {{"tool", "tracecat"},
                                           {"tool_version", TRACECAT_VERSION},
                                           {"sqlite_version", SQLITE_VERSION}};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed && !rc; i++) {
        sqlite3_bind_text(st, 1, fixed[i][0], -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, fixed[i][1], -1, SQLITE_STATIC);
        rc = sq_step(w, st);
    }
    if (!rc) {
        sqlite3_bind_text(st, 1, "schema_version", -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, TR_SQLITE_SCHEMA_VERSION);
        rc = sq_step(w, st);
    }
    for (size_t i = 0; i < tr_input_count(w->t) && !rc; i++) {
        sqlite3_bind_text(st, 1, "input", -1, SQLITE_STATIC);
        bind_str(w, st, 2, tr_input_get(w->t, (uint32_t)i)->path);
        rc = sq_step(w, st);
    }
    sqlite3_finalize(st);
    return rc;
}

static void bind_input(const sq_w *w, sqlite3_stmt *st, int c, uint64_t key)
{
    const tr_input_info *in = tr_input_get(w->t, (uint32_t)key);
    size_t n;
    sqlite3_bind_int64(st, c + 1, (int64_t)key);
    const char *p = tr_str_get(w->t, in->path, &n);
    sqlite3_bind_text(st, c + 2, p, (int)n, SQLITE_STATIC);
    p = tr_str_get(w->t, in->format, &n);
    sqlite3_bind_text(st, c + 3, p, (int)n, SQLITE_STATIC);
    bind_str(w, st, c + 4, in->origin_wall);
    bind_opt_int(st, c + 5, in->origin_unix_ns, INT64_MIN);
    bind_str(w, st, c + 6, in->clock);
    bind_opt_int(st, c + 7, in->rank, -1);
    sqlite3_bind_int64(st, c + 8, (int64_t)in->lines_skipped);
    sqlite3_bind_int64(st, c + 9, (int64_t)in->warnings);
    bind_set(st, c + 10, in->meta);
}

static void bind_process(const sq_w *w, sqlite3_stmt *st, int c, uint64_t key)
{
    const tr_process *p = tr_process_get(w->t, (uint32_t)key);
    sqlite3_bind_int64(st, c + 1, (int64_t)key);
    bind_opt_int(st, c + 2, p->pid, -1);
    bind_str(w, st, c + 3, p->name);
    bind_opt_int(st, c + 4, p->rank, -1);
    bind_str(w, st, c + 5, p->host);
    bind_str(w, st, c + 6, p->labels);
    bind_opt_int(st, c + 7, p->sort_index, 0);
    sqlite3_bind_int64(st, c + 8, p->input);
}

/* Lanes where one thing runs at a time get a thread row, with utid = track id. */
static int is_thread_kind(int kind)
{
    return kind != TR_TRACK_COUNTER && kind != TR_TRACK_ASYNC;
}

static void bind_track(const sq_w *w, sqlite3_stmt *st, int c, uint64_t key)
{
    const tr_track *k = tr_track_get(w->t, (uint32_t)key);
    sqlite3_bind_int64(st, c + 1, (int64_t)key);
    bind_str(w, st, c + 2, k->name);
    sqlite3_bind_text(st, c + 3, tr_track_kind_name(k->kind), -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, c + 4, k->process);
    bind_opt_int(st, c + 5, is_thread_kind(k->kind) ? (int64_t)key : -1, -1);
    bind_opt_int(st, c + 6, k->tid, -1);
    bind_opt_int(st, c + 7, k->sort_index, 0);
}

static void bind_thread(const sq_w *w, sqlite3_stmt *st, int c, uint64_t key)
{
    const tr_track *k = tr_track_get(w->t, (uint32_t)key);
    sqlite3_bind_int64(st, c + 1, (int64_t)key);
    bind_opt_int(st, c + 2, k->tid, -1);
    bind_str(w, st, c + 3, k->name);
    sqlite3_bind_int64(st, c + 4, k->process);
}

static void bind_slice(const sq_w *w, sqlite3_stmt *st, int c, uint64_t r)
{
    const tr_slices *s = &w->sl;
    sqlite3_bind_int64(st, c + 1, (int64_t)r);
    sqlite3_bind_int64(st, c + 2, s->ts[r]);
    sqlite3_bind_int64(st, c + 3, s->dur[r]);
    sqlite3_bind_int64(st, c + 4, s->track[r]);
    bind_str(w, st, c + 5, s->cat[r]);
    bind_str(w, st, c + 6, s->name[r]);
    sqlite3_bind_int(st, c + 7, s->depth[r]);
    uint32_t parent = s->parent[r];
    if (parent == TR_NONE || !kept(w, TR_EV_SLICE, parent))
        sqlite3_bind_null(st, c + 8);
    else
        sqlite3_bind_int64(st, c + 8, parent);
    bind_set(st, c + 9, s->args[r]);
    bind_opt_int(st, c + 10, s->bytes[r], -1);
}

static void bind_instant(const sq_w *w, sqlite3_stmt *st, int c, uint64_t r)
{
    static const char *const scopes[] = {"thread", "process", "global"};
    const tr_instants *s = &w->in;
    sqlite3_bind_int64(st, c + 1, (int64_t)r);
    sqlite3_bind_int64(st, c + 2, s->ts[r]);
    sqlite3_bind_int64(st, c + 3, s->track[r]);
    bind_str(w, st, c + 4, s->cat[r]);
    bind_str(w, st, c + 5, s->name[r]);
    sqlite3_bind_text(st, c + 6, scopes[s->scope[r] < 3 ? s->scope[r] : 0], -1, SQLITE_STATIC);
    bind_set(st, c + 7, s->args[r]);
    bind_opt_int(st, c + 8, s->bytes[r], -1);
}

static void bind_counter(const sq_w *w, sqlite3_stmt *st, int c, uint64_t r)
{
    sqlite3_bind_int64(st, c + 1, (int64_t)r);
    sqlite3_bind_int64(st, c + 2, w->co.ts[r]);
    sqlite3_bind_int64(st, c + 3, w->co.track[r]);
    sqlite3_bind_double(st, c + 4, w->co.value[r]);
}

static void bind_frame(const sq_w *w, sqlite3_stmt *st, int c, uint64_t key)
{
    const tr_frame *f = tr_frame_get(w->t, (uint32_t)key);
    sqlite3_bind_int64(st, c + 1, (int64_t)key);
    bind_str(w, st, c + 2, f->function);
    bind_str(w, st, c + 3, f->file);
    bind_opt_int(st, c + 4, f->line, 0);
    bind_str(w, st, c + 5, f->module);
    sqlite3_bind_int(st, c + 6, f->is_native != 0);
}

/* Stack 0 is the empty stack: callsites start at 1 and a root's parent is NULL. */
static void bind_callsite(const sq_w *w, sqlite3_stmt *st, int c, uint64_t key)
{
    uint32_t s = (uint32_t)key;
    sqlite3_bind_int64(st, c + 1, s);
    sqlite3_bind_int64(st, c + 2, (int64_t)tr_stack_depth(w->t, s) - 1);
    bind_opt_int(st, c + 3, tr_stack_parent(w->t, s), 0);
    sqlite3_bind_int64(st, c + 4, tr_stack_frame(w->t, s));
}

static void bind_sample(const sq_w *w, sqlite3_stmt *st, int c, uint64_t r)
{
    const tr_samples *s = &w->sa;
    const tr_track *k = tr_track_get(w->t, s->track[r]);
    sqlite3_bind_int64(st, c + 1, (int64_t)r);
    sqlite3_bind_int64(st, c + 2, s->ts[r]);
    sqlite3_bind_int64(st, c + 3, s->track[r]);
    bind_opt_int(st, c + 4, k && is_thread_kind(k->kind) ? (int64_t)s->track[r] : -1, -1);
    bind_opt_int(st, c + 5, s->stack[r], 0);
    bind_set(st, c + 6, s->args[r]);
    /* A folded input's line stands for "count" samples (as the folded writer reads it). */
    tr_arg a;
    int64_t weight = 1;
    if (s->args[r] && tr_args_find(w->t, s->args[r], "count", &a))
        weight = a.type == TR_ARG_UINT ? (int64_t)(a.v.u > INT64_MAX ? INT64_MAX : a.v.u)
                 : a.v.i > 0           ? a.v.i
                                       : 0;
    sqlite3_bind_int64(st, c + 7, weight);
}

/* A flow end: its slice or instant row (the instant column is two after the slice's). */
static void bind_ref(sqlite3_stmt *st, int slice_col, tr_ref ref)
{
    int kind = TR_REF_KIND(ref);
    uint32_t row = TR_REF_ROW(ref);
    sqlite3_bind_null(st, slice_col);
    sqlite3_bind_null(st, slice_col + 2);
    if (kind == TR_EV_SLICE || kind == TR_EV_INSTANT)
        sqlite3_bind_int64(st, kind == TR_EV_SLICE ? slice_col : slice_col + 2, row);
}

static int flow_kept(const sq_w *w, tr_ref ref)
{
    int kind = TR_REF_KIND(ref);
    size_t n = kind == TR_EV_SLICE ? w->sl.n : kind == TR_EV_INSTANT ? w->in.n : 0;
    return TR_REF_ROW(ref) < n && kept(w, kind, TR_REF_ROW(ref));
}

static void bind_flow(const sq_w *w, sqlite3_stmt *st, int c, uint64_t key)
{
    const tr_flow *f = tr_flow_get(w->t, (uint32_t)key);
    sqlite3_bind_int64(st, c + 1, (int64_t)key);
    bind_ref(st, c + 2, f->from);
    bind_ref(st, c + 3, f->to);
    bind_str(w, st, c + 6, f->name);
    bind_str(w, st, c + 7, f->cat);
    sqlite3_bind_int64(st, c + 8, (int64_t)f->id);
}

/* KEY is the set in the high 32 bits and the arg's place in it in the low ones. */
static void bind_arg(const sq_w *w, sqlite3_stmt *st, int c, uint64_t key)
{
    static const char *const types[] = {"int", "real", "string", "bool", "uint"};
    uint32_t set = (uint32_t)(key >> 32), i = (uint32_t)key;
    tr_arg a;
    tr_args_at(w->t, set, i, &a);
    sqlite3_bind_int64(st, c + 1, set);
    sqlite3_bind_int64(st, c + 2, (int64_t)(w->set_first[set] + i));
    size_t n;
    const char *p = tr_str_get(w->t, a.key, &n);
    sqlite3_bind_text(st, c + 3, p, (int)n, SQLITE_STATIC);
    sqlite3_bind_null(st, c + 4);
    sqlite3_bind_null(st, c + 5);
    sqlite3_bind_null(st, c + 6);
    switch (a.type) {
    case TR_ARG_REAL:
        sqlite3_bind_double(st, c + 6, a.v.d);
        break;
    case TR_ARG_STR:
        p = tr_str_get(w->t, a.v.s, &n);
        sqlite3_bind_text(st, c + 5, p, (int)n, SQLITE_STATIC);
        break;
    case TR_ARG_UINT:
        /* SQLite integers are signed: a larger value keeps its magnitude as a real. */
        if (a.v.u > INT64_MAX)
            sqlite3_bind_double(st, c + 6, (double)a.v.u);
        else
            sqlite3_bind_int64(st, c + 4, (int64_t)a.v.u);
        break;
    default:
        sqlite3_bind_int64(st, c + 4, a.v.i);
        break;
    }
    sqlite3_bind_text(st, c + 7, types[a.type >= 0 && a.type < 5 ? a.type : 0], -1, SQLITE_STATIC);
}

/* Every row of a table of N (kind KIND: the filter applies; -1: no filter). */
static int put_rows(sq_w *w, const char *table, int ncol, sq_binder bind, size_t n, int kind)
{
    sq_bulk b;
    bulk_begin(&b, w, table, ncol, bind);
    for (size_t r = 0; r < n && !b.rc; r++)
        if (kind < 0 || kept(w, kind, r)) bulk_add(&b, r);
    return bulk_end(&b);
}

static int put_threads(sq_w *w)
{
    sq_bulk b;
    bulk_begin(&b, w, "thread", 4, bind_thread);
    for (size_t i = 0; i < tr_track_count(w->t) && !b.rc; i++)
        if (is_thread_kind(tr_track_get(w->t, (uint32_t)i)->kind)) bulk_add(&b, i);
    return bulk_end(&b);
}

static int put_callsites(sq_w *w)
{
    sq_bulk b;
    bulk_begin(&b, w, "stack_profile_callsite", 4, bind_callsite);
    for (size_t i = 1; i < tr_stack_count(w->t) && !b.rc; i++) bulk_add(&b, i);
    return bulk_end(&b);
}

static int put_flows(sq_w *w)
{
    sq_bulk b;
    bulk_begin(&b, w, "flow", 8, bind_flow);
    for (size_t i = 0; i < tr_flow_count(w->t) && !b.rc; i++) {
        const tr_flow *f = tr_flow_get(w->t, (uint32_t)i);
        if (flow_kept(w, f->from) && flow_kept(w, f->to)) bulk_add(&b, i);
    }
    return bulk_end(&b);
}

/* Sets are written in id order, so the table's primary key is appended to, never split. */
static int put_args(sq_w *w)
{
    sq_bulk b;
    bulk_begin(&b, w, "__intrinsic_args", 7, bind_arg);
    for (size_t set = 1; set <= w->n_sets && !b.rc; set++) {
        if (!w->set_used[set]) continue;
        size_t n = tr_args_count(w->t, (uint32_t)set);
        for (size_t i = 0; i < n && !b.rc; i++) bulk_add(&b, (uint64_t)set << 32 | i);
    }
    return bulk_end(&b);
}

/* The settings the load changes, read before and put back after. */
typedef struct sq_pragmas {
    char journal[16];
    int synchronous;
    int cache_size;
    int temp_store;
    int threads;
} sq_pragmas;

static int pragma_int(sqlite3 *db, const char *sql, int *v)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    int rc = sqlite3_step(st) == SQLITE_ROW ? 0 : -1;
    if (!rc) *v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return rc;
}

static int pragmas_save(sq_w *w, sq_pragmas *p)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(w->db, "PRAGMA journal_mode", -1, &st, NULL) != SQLITE_OK)
        return sq_fail(w, "cannot read the journal mode");
    const unsigned char *mode = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
    snprintf(p->journal, sizeof p->journal, "%s", mode ? (const char *)mode : "delete");
    sqlite3_finalize(st);
    if (pragma_int(w->db, "PRAGMA synchronous", &p->synchronous) ||
        pragma_int(w->db, "PRAGMA cache_size", &p->cache_size) ||
        pragma_int(w->db, "PRAGMA temp_store", &p->temp_store) ||
        pragma_int(w->db, "PRAGMA threads", &p->threads))
        return sq_fail(w, "cannot read the settings");
    return TR_OK;
}

static int pragmas_restore(sq_w *w, const sq_pragmas *p)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "PRAGMA journal_mode=%s; PRAGMA synchronous=%d; PRAGMA cache_size=%d;"
             " PRAGMA temp_store=%d; PRAGMA threads=%d;",
             p->journal, p->synchronous, p->cache_size, p->temp_store, p->threads);
    return sq_exec(w, sql, "cannot restore the settings");
}

static int sq_fill(sq_w *w)
{
    int rc = sq_exec(w, schema_sql, "cannot create the tables");
    if (!rc) rc = sq_exec(w, views_sql, "cannot create the views");
    if (!rc) rc = put_meta(w);
    if (!rc) rc = put_rows(w, "trace_input", 10, bind_input, tr_input_count(w->t), -1);
    if (!rc) rc = put_rows(w, "process", 8, bind_process, tr_process_count(w->t), -1);
    if (!rc) rc = put_rows(w, "track", 7, bind_track, tr_track_count(w->t), -1);
    if (!rc) rc = put_threads(w);
    if (!rc) rc = put_rows(w, "slice", 10, bind_slice, w->sl.n, TR_EV_SLICE);
    if (!rc) rc = put_rows(w, "instant", 8, bind_instant, w->in.n, TR_EV_INSTANT);
    if (!rc) rc = put_rows(w, "counter", 4, bind_counter, w->co.n, TR_EV_COUNTER);
    if (!rc) rc = put_rows(w, "stack_profile_frame", 6, bind_frame, tr_frame_count(w->t), -1);
    if (!rc) rc = put_callsites(w);
    if (!rc) rc = put_rows(w, "stack_sample", 7, bind_sample, w->sa.n, TR_EV_SAMPLE);
    if (!rc) rc = put_flows(w);
    if (!rc) rc = put_args(w);
    if (!rc) rc = sq_exec(w, index_sql, "cannot create the indexes");
    return rc;
}

int tr_sqlite_load(sqlite3 *db, const tr_trace *t, const tr_write_opts *o, tr_error *e)
{
    sq_w w;
    memset(&w, 0, sizeof w);
    w.db = db;
    w.t = t;
    w.e = e;
    tr_trace_slices(t, &w.sl);
    tr_trace_instants(t, &w.in);
    tr_trace_counters(t, &w.co);
    tr_trace_samples(t, &w.sa);
    sq_pragmas saved;
    int rc = sq_select(&w, o ? o->filter : NULL);
    if (!rc) rc = pragmas_save(&w, &saved);
    if (!rc) {
        /*
        ** The file is a temporary one until renamed: a crash loses nothing to
        ** journal.  Two threads let SQLite sort for the index builds in parallel.
        */
        rc = sq_exec(
            &w,
            "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
            " PRAGMA cache_size=-262144; PRAGMA temp_store=MEMORY; PRAGMA threads=2; BEGIN;",
            "cannot start the load");
        if (!rc) rc = sq_fill(&w);
        if (!rc) rc = sq_exec(&w, "COMMIT", "cannot commit");
        if (rc && !sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        int rrc = pragmas_restore(&w, &saved);
        if (!rc) rc = rrc;
    }
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) tr_free(w.keep[k]);
    tr_free(w.set_used);
    tr_free(w.set_first);
    return rc;
}

int tr_sqlite_check(sqlite3 *db, tr_error *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT 1 FROM sqlite_schema WHERE name = ?"
                           " AND type IN ('table', 'view')",
                           -1, &st, NULL) != SQLITE_OK)
        return tr_errorf(e, TR_E_FORMAT, NULL, "%s", sqlite3_errmsg(db));
    char missing[400] = "";
    size_t n_missing = 0;
    int rc = TR_OK;
    for (size_t i = 0; i < N_SCHEMA_NAMES && rc == TR_OK; i++) {
        sqlite3_bind_text(st, 1, schema_names[i], -1, SQLITE_STATIC);
        int step = sqlite3_step(st);
        sqlite3_reset(st);
        if (step == SQLITE_ROW) continue;
        if (step != SQLITE_DONE) {
            rc = tr_errorf(e, TR_E_FORMAT, NULL, "%s", sqlite3_errmsg(db));
        } else {
            size_t len = strlen(missing);
            snprintf(missing + len, sizeof missing - len, "%s%s", n_missing ? ", " : "",
                     schema_names[i]);
            n_missing++;
        }
    }
    sqlite3_finalize(st);
    if (rc) return rc;
    if (n_missing)
        return tr_errorf(e, TR_E_FORMAT, NULL, "not a tracecat database: no %s %s",
                         n_missing == 1 ? "table or view" : "tables or views", missing);
    int version = 0;
    if (pragma_int(db, "SELECT max(value) FROM meta WHERE key = 'schema_version'", &version))
        return tr_errorf(e, TR_E_FORMAT, NULL, "%s", sqlite3_errmsg(db));
    if (version > TR_SQLITE_SCHEMA_VERSION)
        return tr_errorf(e, TR_E_FORMAT, NULL,
                         "written by a newer tracecat (schema %d; this one reads up to %d)",
                         version, TR_SQLITE_SCHEMA_VERSION);
    return TR_OK;
}

int tr_sqlite_save(sqlite3 *src, tr_output *out, tr_error *e)
{
    const char *tmp = tr_output_temp_path(out);
    if (!tmp) {
        /* No file to hand SQLite: stream the database image through the output. */
        sqlite3_int64 size = 0;
        unsigned char *image = sqlite3_serialize(src, "main", &size, 0);
        if (!image) return tr_error_nomem(e);
        int rc = tr_output_write(out, image, (size_t)size, e);
        sqlite3_free(image);
        return rc;
    }
    sqlite3 *dst;
    int rc = sqlite3_open_v2(tmp, &dst, SQLITE_OPEN_READWRITE, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_backup *b = sqlite3_backup_init(dst, "main", src, "main");
        if (b) {
            sqlite3_backup_step(b, -1);
            sqlite3_backup_finish(b);
        }
        rc = sqlite3_errcode(dst);
    }
    int result = TR_OK;
    if (rc != SQLITE_OK)
        result = rc == SQLITE_NOMEM ? tr_error_nomem(e)
                                    : tr_errorf(e, TR_E_IO, NULL, "%s: cannot write: %s",
                                                tr_output_path(out), sqlite3_errmsg(dst));
    if (sqlite3_close(dst) != SQLITE_OK && result == TR_OK)
        result = tr_errorf(e, TR_E_IO, NULL, "%s: cannot close", tr_output_path(out));
    return result;
}

static int sqlite_write(const tr_trace *t, tr_output *out, const tr_write_opts *o, tr_error *e)
{
    const char *tmp = tr_output_temp_path(out);
    sqlite3 *db;
    /* With no temporary file (standard output, .gz), build in memory and stream it. */
    int rc =
        sqlite3_open_v2(tmp ? tmp : ":memory:", &db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        rc = db ? tr_errorf(e, TR_E_IO, NULL, "%s: cannot open: %s", tr_output_path(out),
                            sqlite3_errmsg(db))
                : tr_error_nomem(e);
        sqlite3_close(db);
        return rc;
    }
    rc = tr_sqlite_load(db, t, o, e);
    if (rc == TR_OK && !tmp) rc = tr_sqlite_save(db, out, e);
    if (sqlite3_close(db) != SQLITE_OK && rc == TR_OK)
        rc = tr_errorf(e, TR_E_IO, NULL, "%s: cannot close the database", tr_output_path(out));
    if (rc != TR_OK && e && !e->file[0])
        snprintf(e->file, sizeof e->file, "%s", tr_output_path(out));
    return rc;
}

const tr_writer tr_writer_sqlite = {
    .abi = TR_WRITER_ABI,
    .name = "sqlite",
    .description = "SQLite database (Perfetto-like tables; query with tracesql)",
    .extensions = "db,sqlite,sqlite3",
    .binary = 1,
    .write = sqlite_write,
};
