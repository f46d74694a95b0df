/*
** sqlite.c: the trace as a SQLite database, for tracesql and any SQLite client.
**
** The tables, their columns and the views are the schema's (schema.c, README
** "SQL schema"): this file makes the DDL from it, and inserts each stored
** column of each row through the schema's getter.  meta (what wrote the
** file) and the indexes are SQLite's own.
**
** Loading is one transaction of prepared statements that insert 64 rows each,
** with the journal and syncing off while it runs (the file is a temporary one
** that is renamed only on success, so a crash cannot leave a half database
** under the target's name); indexes are built after the rows are in, which
** sorts once instead of updating a b-tree per row.  A GT input's arg sets are
** stored a row each (pack_table), not a row per arg.
*/
#include "tr_sqlite.h"
#include "tr_rows.h"
#include "schema_impl.h"
#include "tr_mem.h"
#include "tr_map.h"

#include <stdio.h>
#include <errno.h>
#include <string.h>

typedef struct sq_w {
    sqlite3 *db;
    tr_sc_ctx sc;
    tr_error *e;
    const uint8_t *marked; /* streaming: per arg set, its SQ_* marks (sq_stream) */
    size_t n_marked;
    tr_vec gt_track;    /* uint8_t per track: 0 not known yet, 1 a GT input's, 2 another's */
    tr_map shapes;      /* packed sets' shapes: hash of their words -> shape (pack_shape) */
    tr_vec shape_at;    /* uint32_t per shape: where its words start in SHAPE_WORDS */
    tr_vec shape_words; /* uint64_t: per shape its length, then its words */
    uint32_t shape;     /* the shape pack_shape found */
} sq_w;

static void w_init(sq_w *w)
{
    tr_vec_init(&w->gt_track, 1);
    tr_vec_init(&w->shape_at, sizeof(uint32_t));
    tr_vec_init(&w->shape_words, sizeof(uint64_t));
}

static void w_fini(sq_w *w)
{
    tr_vec_fini(&w->gt_track);
    tr_vec_fini(&w->shape_at);
    tr_vec_fini(&w->shape_words);
    tr_map_fini(&w->shapes);
}

/* An arg set's marks: an event uses it; an event of a GT input does (packable). */
enum { SQ_USED = 1, SQ_GT = 2 };

static const char meta_sql[] = "CREATE TABLE meta(key TEXT NOT NULL, value);\n";

static const char index_sql[] =
    "CREATE INDEX slice_track_ts ON slice(track_id, ts);\n"
    "CREATE INDEX counter_track_ts ON counter(track_id, ts);\n"
    "CREATE INDEX stack_sample_track_ts ON stack_sample(track_id, ts);\n"
    "CREATE INDEX callsite_parent ON stack_profile_callsite(parent_id);\n";

/* ---- statements ---- */

/* The OS's word for SQLite's failure CODE on DB when there is one (a full disk: ENOSPC), else 0. */
static int sq_errno(sqlite3 *db, int code)
{
    if ((code & 0xff) == SQLITE_FULL) return ENOSPC;
    return (code & 0xff) == SQLITE_IOERR || (code & 0xff) == SQLITE_CANTOPEN
               ? sqlite3_system_errno(db)
               : 0;
}

static int sq_fail(sq_w *w, const char *what)
{
    int code = sqlite3_extended_errcode(w->db);
    if (code == SQLITE_NOMEM) return tr_error_nomem(w->e);
    int err = sq_errno(w->db, code);
    if (err) return tr_error_errno(w->e, err, NULL, "%s", what);
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

/* ---- GT inputs' arg sets: one packed row each ---- */

/*
** A GT log's events carry a few args each (a record: seq, command, bytes,
** details and its key=value pairs; a request or round trip: seq, the other
** end's seq, the sizes), every set its own (the seqs differ): 5.4 M arg rows
** for a 1 M-line log, each costing SQLite as much as an event row.  Such a
** set is stored as one row of __intrinsic_arg_pack instead: its first arg's
** id, its shape (the keys and value types, in order, a row each in
** __intrinsic_arg_key: 117 in a 1 M-line log) and the values as columns
** v0, v1, ... of their own types.  The view args unpacks them
** (TR_SQLITE_ARG_PACK_ROWS): every arg, with its id, key, type and value as
** __intrinsic_args would hold it.  Sets of ints and text up to PACK_MAX args
** pack; others, and sets that other events use too, are stored as rows.
*/
#define PACK_MAX 8

static const char pack_sql[] =
    "CREATE TABLE __intrinsic_arg_key(shape INTEGER NOT NULL, i INTEGER NOT NULL,"
    " key TEXT NOT NULL, value_type TEXT NOT NULL, PRIMARY KEY(shape, i)) WITHOUT ROWID;\n"
    "CREATE TABLE __intrinsic_arg_pack(arg_set_id INTEGER PRIMARY KEY, id INTEGER NOT NULL,"
    " shape INTEGER NOT NULL, v0, v1, v2, v3, v4, v5, v6, v7);\n";

static int key_is(const tr_trace *t, tr_str key, const char *name)
{
    size_t n;
    const char *k = tr_str_get(t, key, &n);
    return n == strlen(name) && memcmp(k, name, n) == 0;
}

/* Whether TRACK is a GT input's: its process's input was read as GT (cached per track). */
static int gt_track(sq_w *w, uint32_t track)
{
    while (w->gt_track.len <= track)
        if (!tr_vec_push(&w->gt_track)) return 0; /* out of memory: every row is stored */
    uint8_t *known = &TR_VEC_AT(&w->gt_track, uint8_t, track);
    if (!*known) {
        const tr_track *k = tr_track_get(w->sc.t, track);
        const tr_process *p = k ? tr_process_get(w->sc.t, k->process) : NULL;
        const tr_input_info *in = p ? tr_input_get(w->sc.t, p->input) : NULL;
        *known = in && key_is(w->sc.t, in->format, "gt") ? 1 : 2;
    }
    return *known == 1;
}

/* The marks of the arg set of an event on TRACK: SQ_GT on a GT input's track. */
static uint8_t event_marks(sq_w *w, uint32_t track)
{
    return SQ_USED | (gt_track(w, track) ? SQ_GT : 0);
}

/* The args table: its getter reads a set's args into the context (c->set_args) and gives ids. */
static const tr_sc_table *args_table(void)
{
    for (size_t k = 0; k < tr_sc_n_tables; k++)
        if (tr_sc_tables[k].rows == TR_SC_ROWS_ARG) return &tr_sc_tables[k];
    return NULL;
}

/* SET's first arg id, its args fetched into C (c->args_set == SET unless out of memory). */
static int64_t set_fetch(tr_sc_ctx *c, uint32_t set)
{
    tr_sc_value v = {.key = TR_SC_NO_KEY};
    args_table()->get(c, 1, (uint64_t)set << 32, &v);
    return v.i;
}

/*
** The shape of set SET (fetched into W->sc) as W->shape, found or added
** (its words: the args' key << 1 | 1 for text); 0 when the set does not pack.
*/
static int pack_shape(sq_w *w, uint32_t set)
{
    const tr_sc_ctx *c = &w->sc;
    uint64_t word[PACK_MAX];
    size_t n = c->set_args_n;
    if (c->args_set != set || n == 0 || n > PACK_MAX) return 0;
    for (size_t i = 0; i < n; i++) {
        const tr_arg *a = &c->set_args[i];
        if (a->type != TR_ARG_INT && a->type != TR_ARG_STR) return 0;
        word[i] = (uint64_t)a->key << 1 | (a->type == TR_ARG_STR);
    }
    int is_new;
    uint32_t *slot = tr_map_slot(&w->shapes, tr_hash_bytes(word, n * sizeof *word), &is_new);
    if (!slot) return 0;
    if (is_new) {
        /* a shape's words follow its length in W->shape_words; SLOT holds where */
        size_t at = w->shape_words.len;
        if (tr_vec_reserve(&w->shape_words, at + n + 1) ||
            tr_vec_reserve(&w->shape_at, w->shape_at.len + 1)) {
            *slot = UINT32_MAX - 1; /* never a shape: this key does not pack */
            return 0;
        }
        *slot = (uint32_t)w->shape_at.len;
        *(uint32_t *)tr_vec_push(&w->shape_at) = (uint32_t)at;
        *(uint64_t *)tr_vec_push(&w->shape_words) = n;
        for (size_t i = 0; i < n; i++) *(uint64_t *)tr_vec_push(&w->shape_words) = word[i];
    }
    if (*slot >= w->shape_at.len) return 0;
    const uint64_t *had =
        &TR_VEC_AT(&w->shape_words, uint64_t, TR_VEC_AT(&w->shape_at, uint32_t, *slot));
    if (had[0] != n || memcmp(had + 1, word, n * sizeof *word) != 0) return 0; /* a collision */
    w->shape = *slot;
    return 1;
}

/* __intrinsic_arg_pack's row KEY: shape << 32 | set. */
static void get_pack(tr_sc_ctx *c, int col, uint64_t key, tr_sc_value *v)
{
    uint32_t set = (uint32_t)key;
    if (col == 0) {
        v->i = set;
    } else if (col == 1) {
        v->i = set_fetch(c, set);
    } else if (col == 2) {
        v->i = (int64_t)(key >> 32);
    } else if ((size_t)col - 3 >= c->set_args_n || c->args_set != set) {
        v->is_null = 1;
    } else {
        const tr_arg *a = &c->set_args[col - 3];
        v->is_int = a->type == TR_ARG_INT;
        if (v->is_int)
            v->i = a->v.i;
        else
            v->s = tr_str_get(c->t, a->v.s, &v->n);
    }
}

static const tr_sc_column pack_cols[] = {
    {"arg_set_id", TR_SC_INT, 0, NULL},   {"id", TR_SC_INT, 0, NULL},
    {"shape", TR_SC_INT, 0, NULL},        {"v0", TR_SC_TEXT, TR_SC_NULL, NULL},
    {"v1", TR_SC_TEXT, TR_SC_NULL, NULL}, {"v2", TR_SC_TEXT, TR_SC_NULL, NULL},
    {"v3", TR_SC_TEXT, TR_SC_NULL, NULL}, {"v4", TR_SC_TEXT, TR_SC_NULL, NULL},
    {"v5", TR_SC_TEXT, TR_SC_NULL, NULL}, {"v6", TR_SC_TEXT, TR_SC_NULL, NULL},
    {"v7", TR_SC_TEXT, TR_SC_NULL, NULL},
};

static const tr_sc_table pack_table = {
    .name = "__intrinsic_arg_pack", .cols = pack_cols, .ncols = 11, .get = get_pack};

/* ---- the DDL, from the schema ---- */

/* Where SQLite stores a table's rows. */
static const char *stored_name(const tr_sc_table *tb)
{
    return tb->stored_as ? tb->stored_as : tb->name;
}

/* Whether SQLite has a view named after the table: a view, or a table with computed columns. */
static int has_view(const tr_sc_table *tb)
{
    return tb->view_sql || tb->stored_as;
}

/*
** The I-th name of the database in creation order: meta, the stored tables,
** then the views; NULL past the end.
*/
static const char *schema_name(size_t i)
{
    if (i-- == 0) return "meta";
    for (size_t k = 0; k < tr_sc_n_tables; k++)
        if (!tr_sc_tables[k].view_sql && i-- == 0) return stored_name(&tr_sc_tables[k]);
    for (size_t k = 0; k < tr_sc_n_tables; k++)
        if (has_view(&tr_sc_tables[k]) && i-- == 0) return tr_sc_tables[k].name;
    return NULL;
}

static const char *const sql_types[] = {"INTEGER", "REAL", "TEXT"};

/* "CREATE TABLE name(col TYPE [PRIMARY KEY | NOT NULL], ...);" of the stored columns. */
static int ddl_table(tr_buf *b, const tr_sc_table *tb)
{
    int rc = tr_buf_addf(b, "CREATE TABLE %s(", stored_name(tb));
    const char *sep = "";
    for (int c = 0; c < tb->ncols && !rc; c++) {
        const tr_sc_column *col = &tb->cols[c];
        if (col->sql) continue;
        const char *how = c == 0 && !tb->key2       ? " PRIMARY KEY"
                          : col->flags & TR_SC_NULL ? ""
                                                    : " NOT NULL";
        rc = tr_buf_addf(b, "%s%s %s%s", sep, col->name, sql_types[col->type], how);
        sep = ", ";
    }
    if (!rc && tb->key2)
        rc = tr_buf_addf(b, ", PRIMARY KEY(%s, %s)) WITHOUT ROWID;\n", tb->cols[0].name,
                         tb->cols[1].name);
    else if (!rc)
        rc = tr_buf_adds(b, ");\n");
    return rc;
}

/* "SELECT stored and computed columns FROM FROM" of TB's view. */
static int view_select(tr_buf *b, const tr_sc_table *tb, const char *from)
{
    int rc = tr_buf_adds(b, "SELECT ");
    for (int c = 0; c < tb->ncols && !rc; c++) {
        const tr_sc_column *col = &tb->cols[c];
        rc = tr_buf_adds(b, c ? ", " : "");
        if (!rc && col->sql) rc = tr_buf_addf(b, "%s AS ", col->sql);
        if (!rc) rc = tr_buf_adds(b, col->name);
    }
    return rc | tr_buf_addf(b, " FROM %s", from);
}

/* "CREATE [TEMP] VIEW name AS ...;": the view's SQL, or the stored columns and the computed ones.
 */
static int ddl_view(tr_buf *b, const tr_sc_table *tb, int temp)
{
    int rc = tr_buf_addf(b, "CREATE %sVIEW %s AS ", temp ? "TEMP " : "", tb->name);
    if (tb->view_sql) return rc | tr_buf_addf(b, "%s;\n", tb->view_sql);
    rc |= view_select(b, tb, tb->stored_as);
    /* the packed sets' args after the stored ones (pack_table) */
    if (tb->rows == TR_SC_ROWS_ARG)
        rc |= tr_buf_adds(b, " UNION ALL ") | view_select(b, tb, "(" TR_SQLITE_ARG_PACK_ROWS ")");
    return rc | tr_buf_adds(b, ";\n");
}

/* meta and the stored tables, then the views. */
static int sq_schema(sq_w *w)
{
    tr_buf tables, views;
    tr_buf_init(&tables, 0);
    tr_buf_init(&views, 0);
    int rc = tr_buf_adds(&tables, meta_sql);
    for (size_t k = 0; k < tr_sc_n_tables && !rc; k++)
        if (!tr_sc_tables[k].view_sql) rc = ddl_table(&tables, &tr_sc_tables[k]);
    if (!rc) rc = tr_buf_adds(&tables, pack_sql);
    for (size_t k = 0; k < tr_sc_n_tables && !rc; k++)
        if (has_view(&tr_sc_tables[k])) rc = ddl_view(&views, &tr_sc_tables[k], 0);
    if (rc)
        rc = tr_error_nomem(w->e);
    else
        rc = sq_exec(w, tables.p, "cannot create the tables");
    if (!rc) rc = sq_exec(w, views.p, "cannot create the views");
    tr_buf_fini(&tables);
    tr_buf_fini(&views);
    return rc;
}

/* ---- rows ---- */

/*
** Batched inserts: one statement inserts BULK_ROWS rows, which divides
** SQLite's per-statement cost (step, reset, the VDBE's setup) by as much.
** A row's stored columns are bound as BASE+1 .. BASE+ncol from its key
** through the schema's getter; the keys of a partial last batch are kept and
** bound again into a statement of their size.
*/
#define BULK_ROWS   64
#define BULK_COLS   16 /* the columns whose parameters are kept (pack_table has 11) */
#define SQ_MAX_COLS 32 /* a table's stored columns */

/*
** What a parameter of a batch statement holds: SQLite keeps bindings across
** resets, so a value equal to the one the slot holds from 64 rows before (a
** category, a scope, a track, NULLs: most of a row) is not bound again.
*/
typedef struct sq_slot {
    union {
        int64_t i;
        const char *s;
    } u;
    uint32_t n;
    uint8_t kind; /* SQ_SLOT_* */
} sq_slot;

enum { SQ_SLOT_UNKNOWN = 0, SQ_SLOT_NULL, SQ_SLOT_INT, SQ_SLOT_TEXT };

typedef struct sq_bulk {
    sq_w *w;
    const tr_sc_table *tb;
    int ncol;                  /* stored columns */
    uint8_t col[SQ_MAX_COLS];  /* their indexes in TB->cols */
    uint8_t type[SQ_MAX_COLS]; /* and types (TR_SC_*) */
    int rowid;                 /* the first column is the rowid (INTEGER PRIMARY KEY) */
    sqlite3_stmt *full;
    uint64_t keys[BULK_ROWS];
    int n;
    int rc;
    int kind;                    /* streaming: the kind of the events EVS holds; -1: keys only */
    tr_row_event evs[BULK_ROWS]; /* streaming: the rows of the batch, for a partial last one */
    int64_t next_id;             /* the rowid SQLite gives the next row given none; -1 unknown */
    int64_t batch_next;          /* NEXT_ID when the batch began */
    sq_slot slots[BULK_ROWS * BULK_COLS]; /* FULL's parameters (up to BULK_COLS columns) */
} sq_bulk;

/* "INSERT INTO table VALUES(?,..),(?,..)" for ROWS rows. */
static int bulk_prepare(sq_bulk *b, int rows, sqlite3_stmt **st)
{
    tr_buf sql;
    tr_buf_init(&sql, 0);
    int rc = tr_buf_addf(&sql, "INSERT INTO %s VALUES", stored_name(b->tb));
    for (int r = 0; r < rows && !rc; r++) {
        rc = tr_buf_add(&sql, r ? ",(?" : "(?", r ? 3 : 2);
        for (int c = 1; c < b->ncol && !rc; c++) rc = tr_buf_add(&sql, ",?", 2);
        if (!rc) rc = tr_buf_addc(&sql, ')');
    }
    rc = rc ? tr_error_nomem(b->w->e) : sq_prepare(b->w, sql.p, st);
    tr_buf_fini(&sql);
    return rc;
}

/*
** Binds V to parameter AT of ST unless SLOT (NULL: not kept, bind always)
** holds it already; what it binds it keeps in SLOT.
*/
static void bind_value(sqlite3_stmt *st, int at, int type, const tr_sc_value *v, sq_slot *slot)
{
    if (v->is_null) {
        if (slot && slot->kind == SQ_SLOT_NULL) return;
        sqlite3_bind_null(st, at);
        if (slot) slot->kind = SQ_SLOT_NULL;
    } else if (type == TR_SC_INT || v->is_int) {
        if (slot && slot->kind == SQ_SLOT_INT && slot->u.i == v->i) return;
        sqlite3_bind_int64(st, at, v->i);
        if (slot) {
            slot->kind = SQ_SLOT_INT;
            slot->u.i = v->i;
        }
    } else if (type == TR_SC_REAL || v->transient || v->n > UINT32_MAX) {
        if (type == TR_SC_REAL)
            sqlite3_bind_double(st, at, v->d);
        else
            sqlite3_bind_text(st, at, v->s, (int)v->n, SQLITE_TRANSIENT);
        if (slot) slot->kind = SQ_SLOT_UNKNOWN;
    } else {
        if (slot && slot->kind == SQ_SLOT_TEXT && slot->u.s == v->s && slot->n == v->n) return;
        /* the trace outlives the statement: its text needs no copy */
        sqlite3_bind_text(st, at, v->s, (int)v->n, SQLITE_STATIC);
        if (slot) {
            slot->kind = SQ_SLOT_TEXT;
            slot->u.s = v->s;
            slot->n = (uint32_t)v->n;
        }
    }
}

/*
** Binds the stored columns of row KEY of B's table (streaming: event I of
** B) as BASE+1 ...: into B's batch statement, or with KEEP 0 into another.
*/
static void bind_row(sq_bulk *b, sqlite3_stmt *st, int base, uint64_t key, int i, int keep)
{
    sq_slot *slot = keep && b->ncol <= BULK_COLS ? &b->slots[base] : NULL;
    tr_sc_ctx *sc = &b->w->sc;
    const tr_sc_get get = b->tb->get;
    if (b->kind >= 0) sc->cur[b->kind] = &b->evs[i];
    for (int k = 0; k < b->ncol; k++) {
        tr_sc_value v = {.key = TR_SC_NO_KEY};
        get(sc, b->col[k], key, &v);
        /*
        ** An id one above the last is left to SQLite (max(rowid) + 1): it then
        ** appends at the cursor, where a given rowid costs a search of the b-tree.
        */
        if (k == 0 && b->rowid && !v.is_null) {
            int next = v.i == b->next_id;
            b->next_id = v.i + 1;
            if (next) v.is_null = 1;
        }
        bind_value(st, base + k + 1, b->type[k], &v, slot ? &slot[k] : NULL);
    }
    if (b->kind >= 0) sc->cur[b->kind] = NULL;
}

static int bulk_begin(sq_bulk *b, sq_w *w, const tr_sc_table *tb)
{
    memset(b, 0, sizeof *b);
    b->w = w;
    b->tb = tb;
    b->kind = -1;
    b->next_id = -1;
    b->rowid = !tb->key2 && tb->cols[0].sql == NULL;
    for (int c = 0; c < tb->ncols; c++) {
        if (tb->cols[c].sql) continue;
        if (b->ncol == SQ_MAX_COLS)
            return b->rc = tr_errorf(w->e, TR_E_LIMIT, NULL, "%s: too many columns", tb->name);
        b->col[b->ncol] = (uint8_t)c;
        b->type[b->ncol++] = (uint8_t)tb->cols[c].type;
    }
    return b->rc = bulk_prepare(b, BULK_ROWS, &b->full);
}

static int bulk_add(sq_bulk *b, uint64_t key)
{
    if (b->rc) return b->rc;
    if (b->n == 0) b->batch_next = b->next_id;
    bind_row(b, b->full, b->n * b->ncol, key, b->n, 1);
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
    b->full = NULL;
    if (b->rc || b->n == 0) return b->rc;
    sqlite3_stmt *st;
    if ((b->rc = bulk_prepare(b, b->n, &st))) return b->rc;
    b->next_id = b->batch_next;
    for (int i = 0; i < b->n; i++) bind_row(b, st, i * b->ncol, b->keys[i], i, 0);
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
    for (size_t i = 0; i < tr_input_count(w->sc.t) && !rc; i++) {
        sqlite3_bind_text(st, 1, "input", -1, SQLITE_STATIC);
        size_t n;
        const char *path = tr_str_get(w->sc.t, tr_input_get(w->sc.t, (uint32_t)i)->path, &n);
        sqlite3_bind_text(st, 2, path, (int)n, SQLITE_STATIC);
        rc = sq_step(w, st);
    }
    sqlite3_finalize(st);
    return rc;
}

/*
** The arg sets that written events and the inputs use (1-based); NULL when
** out of memory.  A stream's events marked theirs as they came (W->marked).
*/
static uint8_t *used_sets(sq_w *w)
{
    const tr_sc_ctx *c = &w->sc;
    uint8_t *used = tr_calloc(c->n_sets + 1, 1);
    if (!used) return NULL;
    if (w->marked)
        memcpy(used, w->marked, w->n_marked < c->n_sets + 1 ? w->n_marked : c->n_sets + 1);
#define USE(set, marks)                                                                            \
    do {                                                                                           \
        uint32_t s_ = (set);                                                                       \
        if (s_ && s_ <= c->n_sets) used[s_] = used[s_] ? SQ_USED : (marks);                        \
    } while (0)
    for (size_t r = 0; r < c->sl.n; r++)
        if (tr_sc_kept(c, TR_EV_SLICE, r)) USE(c->sl.args[r], event_marks(w, c->sl.track[r]));
    for (size_t r = 0; r < c->in.n; r++)
        if (tr_sc_kept(c, TR_EV_INSTANT, r))
            USE(c->in.args[r], event_marks(w, tr_instant_track(&c->in, r)));
    for (size_t r = 0; r < c->sa.n; r++)
        if (tr_sc_kept(c, TR_EV_SAMPLE, r)) USE(c->sa.args[r], SQ_USED);
    for (size_t i = 0; i < tr_input_count(c->t); i++)
        USE(tr_input_get(c->t, (uint32_t)i)->meta, SQ_USED);
#undef USE
    return used;
}

/* __intrinsic_arg_key: each shape's keys and value types. */
static int put_shapes(sq_w *w)
{
    sqlite3_stmt *st;
    int rc = sq_prepare(w, "INSERT INTO __intrinsic_arg_key VALUES(?,?,?,?)", &st);
    for (size_t k = 0; k < w->shape_at.len && !rc; k++) {
        const uint64_t *word =
            &TR_VEC_AT(&w->shape_words, uint64_t, TR_VEC_AT(&w->shape_at, uint32_t, k));
        for (uint64_t i = 0; i < word[0] && !rc; i++) {
            size_t n;
            const char *key = tr_str_get(w->sc.t, (tr_str)(word[1 + i] >> 1), &n);
            sqlite3_bind_int64(st, 1, (sqlite3_int64)k);
            sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
            sqlite3_bind_text(st, 3, key, (int)n, SQLITE_STATIC);
            sqlite3_bind_text(st, 4, word[1 + i] & 1 ? "string" : "int", -1, SQLITE_STATIC);
            rc = sq_step(w, st);
        }
    }
    sqlite3_finalize(st);
    return rc;
}

/*
** Sets are written in id order, so the tables' primary keys are appended
** to, never split.  A set only a GT input's events use is packed when it
** can be (a set used twice has the marks SQ_USED).
*/
static int put_args(sq_w *w, sq_bulk *b)
{
    uint8_t *used = used_sets(w);
    if (!used) return b->rc = tr_error_nomem(w->e);
    sq_bulk pack;
    bulk_begin(&pack, w, &pack_table);
    for (size_t set = 1; set <= w->sc.n_sets && !b->rc && !pack.rc; set++) {
        if (!used[set]) continue;
        int gt = used[set] == (SQ_USED | SQ_GT);
        if (gt) set_fetch(&w->sc, (uint32_t)set);
        if (gt && pack_shape(w, (uint32_t)set)) {
            bulk_add(&pack, (uint64_t)w->shape << 32 | set);
            continue;
        }
        size_t n = tr_args_count(w->sc.t, (uint32_t)set);
        for (size_t i = 0; i < n && !b->rc; i++) bulk_add(b, (uint64_t)set << 32 | i);
    }
    int rc = bulk_end(&pack);
    tr_free(used);
    if (!b->rc && !rc) rc = put_shapes(w);
    /* put_table ends B: a failure of the packed rows or their shapes is its too */
    if (!b->rc) b->rc = rc;
    return b->rc;
}

/* Every row of stored table TB the filter keeps. */
static int put_table(sq_w *w, const tr_sc_table *tb)
{
    const tr_sc_ctx *c = &w->sc;
    const tr_trace *t = c->t;
    sq_bulk b;
    bulk_begin(&b, w, tb);
    size_t n = 0;
    int kind = tr_sc_event_kind(tb->rows);
    switch (tb->rows) {
    case TR_SC_ROWS_INPUT:
        n = tr_input_count(t);
        break;
    case TR_SC_ROWS_PROCESS:
        n = tr_process_count(t);
        break;
    case TR_SC_ROWS_TRACK:
        n = tr_track_count(t);
        break;
    case TR_SC_ROWS_FRAME:
        n = tr_frame_count(t);
        break;
    case TR_SC_ROWS_THREAD:
        for (size_t i = 0; i < tr_track_count(t) && !b.rc; i++)
            if (tr_sc_thread_track(c, (uint32_t)i)) bulk_add(&b, i);
        break;
    case TR_SC_ROWS_CALLSITE:
        for (size_t i = 1; i < tr_stack_count(t) && !b.rc; i++) bulk_add(&b, i);
        break;
    case TR_SC_ROWS_FLOW:
        for (size_t i = 0; i < tr_sc_flow_count(c) && !b.rc; i++) {
            tr_flow f;
            tr_sc_flow_get(c, (uint32_t)i, &f);
            if (tr_sc_ref_kept(c, f.from) && tr_sc_ref_kept(c, f.to)) bulk_add(&b, i);
        }
        break;
    case TR_SC_ROWS_ARG:
        put_args(w, &b);
        break;
    default: {
        size_t rows[TR_EV_KIND_COUNT] = {c->sl.n, c->in.n, c->co.n, c->sa.n};
        for (size_t r = 0; r < rows[kind] && !b.rc; r++)
            if (tr_sc_kept(c, kind, r) && (!tb->where || tb->where(c, r))) bulk_add(&b, r);
    }
    }
    for (size_t r = 0; r < n && !b.rc; r++) bulk_add(&b, r);
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
    int rc = sq_schema(w);
    if (!rc) rc = put_meta(w);
    for (size_t k = 0; k < tr_sc_n_tables && !rc; k++)
        if (!tr_sc_tables[k].view_sql) rc = put_table(w, &tr_sc_tables[k]);
    if (!rc) rc = sq_exec(w, index_sql, "cannot create the indexes");
    return rc;
}

/*
** The bulk-load settings: the file is a temporary one until renamed, so a
** crash loses nothing to journal.  Two threads let SQLite sort for the index
** builds in parallel.  A stream keeps a smaller page cache, SQLite's
** temporary files (the index sorts) on disk and one thread (a sorter thread
** holds a cache's worth of keys of its own: a 946 MB GT log peaked 66 MiB
** higher): its memory is the budget's.  Its 64 KiB pages take fewer
** b-tree steps and writes per row than 4 KiB ones.
*/
static int sq_start(sq_w *w, sq_pragmas *saved, int stream)
{
    int rc = pragmas_save(w, saved);
    if (!rc)
        rc = sq_exec(
            w,
            stream ? "PRAGMA page_size=65536; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                     " PRAGMA cache_size=-32768; PRAGMA temp_store=FILE;"
                     " PRAGMA threads=0; BEGIN;"
                   : "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                     " PRAGMA cache_size=-262144; PRAGMA temp_store=MEMORY;"
                     " PRAGMA threads=2; BEGIN;",
            "cannot start the load");
    return rc;
}

/* Commits when RC is TR_OK, else rolls back; puts the settings back either way. */
static int sq_finish(sq_w *w, const sq_pragmas *saved, int rc)
{
    tr_error *e = w->e;
    if (!rc) rc = sq_exec(w, "COMMIT", "cannot commit");
    if (rc && !sqlite3_get_autocommit(w->db)) sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
    /* After a failure restoring is tidying up: its error must not hide the first. */
    tr_error ignored;
    w->e = rc ? &ignored : e;
    int rrc = pragmas_restore(w, saved);
    w->e = e;
    return rc ? rc : rrc;
}

int tr_sqlite_load(sqlite3 *db, const tr_trace *t, const tr_write_opts *o, tr_error *e)
{
    sq_w w;
    memset(&w, 0, sizeof w);
    w.db = db;
    w.e = e;
    w_init(&w);
    sq_pragmas saved;
    int rc = tr_sc_open(&w.sc, t, o ? o->filter : NULL, e);
    if (!rc && !(rc = sq_start(&w, &saved, 0)))
        rc = sq_finish(&w, &saved, tr_sc_check(&w.sc, sq_fill(&w), e));
    tr_sc_close(&w.sc);
    w_fini(&w);
    return rc;
}

/* Whether DB has a table or view NAME (*HAS); TR_OK, or TR_E_FORMAT with SQLite's word. */
static int sq_has(sqlite3 *db, const char *name, int *has, tr_error *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT 1 FROM main.sqlite_schema WHERE name = ?"
                           " AND type IN ('table', 'view')",
                           -1, &st, NULL) != SQLITE_OK)
        return tr_errorf(e, TR_E_FORMAT, NULL, "%s", sqlite3_errmsg(db));
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    sqlite3_finalize(st);
    *has = step == SQLITE_ROW;
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return tr_errorf(e, TR_E_FORMAT, NULL, "%s", sqlite3_errmsg(db));
    return TR_OK;
}

/*
** A view of this schema that an older database lacks, made a TEMP view (of
** the connection, not of the file) when what it reads is there; left out
** when not (a view reading a later table or column does not apply).  Before
** schema 5 (no __intrinsic_arg_pack), a view that has one takes its old SQL.
*/
static int sq_temp_view(sqlite3 *db, int version, const tr_sc_table *tb, tr_error *e)
{
    tr_sc_table as_then = *tb;
    if (tb->old_view_sql && version < 5) as_then.view_sql = tb->old_view_sql;
    tr_buf sql;
    tr_buf_init(&sql, 0);
    int rc = ddl_view(&sql, &as_then, 1) ? tr_error_nomem(e) : TR_OK;
    if (!rc && sqlite3_exec(db, sql.p, NULL, NULL, NULL) != SQLITE_OK)
        rc = tr_errorf(e, TR_E_FORMAT, NULL, "cannot add the view %s: %s", tb->name,
                       sqlite3_errmsg(db));
    tr_buf_fini(&sql);
    sqlite3_stmt *st = NULL;
    char probe[120];
    snprintf(probe, sizeof probe, "SELECT * FROM temp.%s LIMIT 0", tb->name);
    if (!rc && sqlite3_prepare_v2(db, probe, -1, &st, NULL) != SQLITE_OK) {
        snprintf(probe, sizeof probe, "DROP VIEW temp.%s", tb->name);
        sqlite3_exec(db, probe, NULL, NULL, NULL);
    }
    sqlite3_finalize(st);
    return rc;
}

/*
** The stored tables DB lacks, added to MISSING and counted in *N.  ^A database of an older
** schema (VERSION) may keep in a table what is now stored under another name
** behind a view of that name (schema 1's io table).
*/
static int sq_missing_tables(sqlite3 *db, int version, char *missing, size_t size, size_t *n,
                             tr_error *e)
{
    for (size_t i = 0; schema_name(i) != NULL; i++) {
        const char *name = schema_name(i);
        const tr_sc_table *tb = NULL;
        for (size_t k = 0; k < tr_sc_n_tables; k++)
            if (has_view(&tr_sc_tables[k]) && strcmp(tr_sc_tables[k].name, name) == 0)
                tb = &tr_sc_tables[k];
        if (tb) continue; /* views: sq_temp_view */
        int has;
        if (sq_has(db, name, &has, e)) return TR_FATAL;
        for (size_t k = 0; k < tr_sc_n_tables && !has && version < TR_SQLITE_SCHEMA_VERSION; k++)
            if (tr_sc_tables[k].stored_as && strcmp(tr_sc_tables[k].stored_as, name) == 0 &&
                sq_has(db, tr_sc_tables[k].name, &has, e))
                return TR_FATAL;
        if (has) continue;
        size_t len = strlen(missing);
        snprintf(missing + len, size - len, "%s%s", *n ? ", " : "", name);
        (*n)++;
    }
    return TR_OK;
}

int tr_sqlite_check(sqlite3 *db, tr_error *e)
{
    int has_meta, version = 0;
    if (sq_has(db, "meta", &has_meta, e)) return TR_FATAL;
    if (has_meta &&
        pragma_int(db, "SELECT max(value) FROM meta WHERE key = 'schema_version'", &version))
        return tr_errorf(e, TR_E_FORMAT, NULL, "%s", sqlite3_errmsg(db));
    if (version > TR_SQLITE_SCHEMA_VERSION)
        return tr_errorf(e, TR_E_FORMAT, NULL,
                         "written by a newer tracecat (schema %d; this one reads up to %d)",
                         version, TR_SQLITE_SCHEMA_VERSION);
    char missing[400] = "";
    size_t n_missing = 0;
    if (sq_missing_tables(db, version, missing, sizeof missing, &n_missing, e)) return TR_FATAL;
    if (n_missing && has_meta && version >= 1 && version < TR_SQLITE_SCHEMA_VERSION)
        return tr_errorf(e, TR_E_FORMAT, NULL,
                         "schema_version %d lacks %s (this tracecat reads %d to %d): convert the"
                         " trace again ('tracecat convert TRACE -o FILE.db')",
                         version, missing, 1, TR_SQLITE_SCHEMA_VERSION);
    if (n_missing)
        return tr_errorf(e, TR_E_FORMAT, NULL, "not a tracecat database: no %s %s",
                         n_missing == 1 ? "table or view" : "tables or views", missing);
    for (size_t k = 0; k < tr_sc_n_tables; k++) {
        const tr_sc_table *tb = &tr_sc_tables[k];
        int has;
        if (!has_view(tb)) continue;
        if (sq_has(db, tb->name, &has, e)) return TR_FATAL;
        if (has) continue;
        if (version < TR_SQLITE_SCHEMA_VERSION) {
            if (sq_temp_view(db, version, tb, e)) return TR_FATAL;
        } else {
            return tr_errorf(e, TR_E_FORMAT, NULL, "not a tracecat database: no view %s", tb->name);
        }
    }
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
    /* The file is a temporary one until renamed: no journal to leave behind when it fails. */
    if (rc == SQLITE_OK) rc = sqlite3_exec(dst, "PRAGMA journal_mode=OFF", NULL, NULL, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_backup *b = sqlite3_backup_init(dst, "main", src, "main");
        if (b) {
            sqlite3_backup_step(b, -1);
            sqlite3_backup_finish(b);
        }
        rc = sqlite3_extended_errcode(dst);
    }
    int result = TR_OK, err = rc == SQLITE_OK ? 0 : sq_errno(dst, rc);
    if (rc == SQLITE_NOMEM)
        result = tr_error_nomem(e);
    else if (err)
        result = tr_error_errno(e, err, NULL, "%s: cannot write", tr_output_path(out));
    else if (rc != SQLITE_OK)
        result = tr_errorf(e, TR_E_IO, NULL, "%s: cannot write: %s", tr_output_path(out),
                           sqlite3_errmsg(dst));
    if (sqlite3_close(dst) != SQLITE_OK && result == TR_OK)
        result = tr_errorf(e, TR_E_IO, NULL, "%s: cannot close", tr_output_path(out));
    return result;
}

/* Opens the database OUT's temporary file holds, or one in memory when it has none. */
static int sq_open(tr_output *out, sqlite3 **db, tr_error *e)
{
    const char *tmp = tr_output_temp_path(out);
    /* With no temporary file (standard output, .gz), build in memory and stream it. */
    int rc =
        sqlite3_open_v2(tmp ? tmp : ":memory:", db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK) return TR_OK;
    rc = *db ? tr_errorf(e, TR_E_IO, NULL, "%s: cannot open: %s", tr_output_path(out),
                         sqlite3_errmsg(*db))
             : tr_error_nomem(e);
    sqlite3_close(*db);
    *db = NULL;
    return rc;
}

/* After the database is filled: saved into OUT when it was built in memory, and closed. */
static int sq_close(tr_output *out, sqlite3 *db, int rc, tr_error *e)
{
    if (rc == TR_OK && !tr_output_temp_path(out)) rc = tr_sqlite_save(db, out, e);
    if (sqlite3_close(db) != SQLITE_OK && rc == TR_OK)
        rc = tr_errorf(e, TR_E_IO, NULL, "%s: cannot close the database", tr_output_path(out));
    if (rc != TR_OK && e && !e->file[0])
        snprintf(e->file, sizeof e->file, "%s", tr_output_path(out));
    return rc;
}

static int sqlite_add(tr_write *run, const tr_trace *t, tr_error *e)
{
    sqlite3 *db;
    int rc = sq_open(run->out, &db, e);
    if (rc == TR_OK) rc = sq_close(run->out, db, tr_sqlite_load(db, t, run->opts, e), e);
    return rc;
}

/* ---- streaming ---- */

/*
** A stream's events go into their tables as they come (tr_writer.event),
** each event table through its own batched insert; the dictionaries
** (inputs, processes, tracks, args, stacks), the flows and meta go in at
** the end, when they are final.  Every table gets the rows the model gives
** it, in the same order, so the database's dump is the model's; its pages
** interleave, so the file's bytes are not.
*/
typedef struct sq_stream {
    sq_w w;
    sq_pragmas saved;
    const tr_trace *t;
    int streaming; /* the inputs were read through a stream (flows came) */
    tr_rows rows;
    sq_bulk *bulk[8]; /* the event tables' inserts */
    size_t n_bulk;
    tr_vec marks; /* uint8_t per arg set: an event used it */
    tr_flow *flows;
    size_t n_flows;
} sq_stream;

/* Opens the database, starts the load, creates the schema and the event tables' inserts. */
static int stream_open(sq_stream *s, tr_output *out, const tr_trace *t, tr_error *e)
{
    s->t = t;
    s->w.e = e;
    s->w.sc.t = t; /* the event getters read the dictionaries; the rest is read at the end */
    tr_buf_init(&s->w.sc.scratch, 0);
    int rc = sq_open(out, &s->w.db, e);
    if (!rc) rc = sq_start(&s->w, &s->saved, 1);
    if (!rc) rc = sq_schema(&s->w);
    for (size_t k = 0; k < tr_sc_n_tables && !rc; k++) {
        const tr_sc_table *tb = &tr_sc_tables[k];
        int kind = tr_sc_event_kind(tb->rows);
        if (tb->view_sql || kind < 0) continue;
        sq_bulk *b = s->n_bulk < sizeof s->bulk / sizeof *s->bulk ? tr_calloc(1, sizeof *b) : NULL;
        if (!b) return tr_error_nomem(e);
        s->bulk[s->n_bulk++] = b;
        rc = bulk_begin(b, &s->w, tb);
        b->kind = kind;
    }
    return rc;
}

static int mark_set(sq_stream *s, const tr_event_rec *ev)
{
    while (s->marks.len <= ev->args)
        if (!tr_vec_push(&s->marks)) return TR_FATAL;
    uint8_t *m = &TR_VEC_AT(&s->marks, uint8_t, ev->args);
    uint8_t marks = ev->kind == TR_EV_SAMPLE ? SQ_USED : event_marks(&s->w, ev->track);
    *m = *m ? SQ_USED : marks;
    return TR_OK;
}

static int sqlite_event(tr_write *run, const tr_trace *t, const tr_event_rec *ev, tr_error *e)
{
    sq_stream *s = run->state;
    int rc = s->w.db ? TR_OK : stream_open(s, run->out, t, e);
    s->w.e = e;
    tr_row_event x;
    if (!rc && (tr_rows_next(&s->rows, ev, &x) || (ev->args && mark_set(s, ev))))
        rc = tr_error_nomem(e);
    for (size_t i = 0; i < s->n_bulk && !rc; i++) {
        sq_bulk *b = s->bulk[i];
        if (b->kind != ev->kind) continue;
        s->w.sc.cur[b->kind] = &x;
        int keep = !b->tb->where || b->tb->where(&s->w.sc, x.row);
        s->w.sc.cur[b->kind] = NULL;
        if (!keep) continue;
        b->evs[b->n] = x;
        rc = bulk_add(b, x.row);
    }
    return rc;
}

static int sqlite_flows(tr_write *run, const tr_trace *t, tr_flow *f, size_t n, tr_error *e)
{
    sq_stream *s = run->state;
    s->streaming = 1;
    s->flows = f;
    s->n_flows = n;
    return s->w.db ? TR_OK : stream_open(s, run->out, t, e);
}

/* The event tables' last rows; then the dictionaries, the flows, meta and the indexes. */
static int stream_fill(sq_stream *s, tr_error *e)
{
    int rc = TR_OK;
    for (size_t i = 0; i < s->n_bulk; i++) {
        int brc = bulk_end(s->bulk[i]);
        if (!rc) rc = brc;
    }
    tr_rows_flows(&s->rows, s->flows, s->n_flows);
    rc = tr_sc_check(&s->w.sc, rc, e);
    tr_sc_close(&s->w.sc);
    if (!rc) rc = tr_sc_open(&s->w.sc, s->t, NULL, e);
    s->w.sc.flows = s->flows;
    s->w.sc.n_flows = s->n_flows;
    s->w.marked = s->marks.data;
    s->w.n_marked = s->marks.len;
    if (!rc) rc = put_meta(&s->w);
    for (size_t k = 0; k < tr_sc_n_tables && !rc; k++) {
        const tr_sc_table *tb = &tr_sc_tables[k];
        if (!tb->view_sql && tr_sc_event_kind(tb->rows) < 0) rc = put_table(&s->w, tb);
    }
    if (!rc) rc = sq_exec(&s->w, index_sql, "cannot create the indexes");
    return tr_sc_check(&s->w.sc, rc, e);
}

static int sqlite_begin(tr_write *run, tr_error *e)
{
    sq_stream *s = tr_calloc(1, sizeof *s);
    run->state = s;
    if (!s) return tr_error_nomem(e);
    tr_rows_init(&s->rows, 0);
    tr_vec_init(&s->marks, 1);
    w_init(&s->w);
    return TR_OK;
}

static int sqlite_end(tr_write *run, int rc, tr_error *e)
{
    sq_stream *s = run->state;
    if (!s) return rc;
    s->w.e = e;
    if (s->w.db) {
        if (rc == TR_OK && s->streaming) rc = stream_fill(s, e);
        rc = sq_finish(&s->w, &s->saved, rc);
        rc = sq_close(run->out, s->w.db, rc, e);
    }
    for (size_t i = 0; i < s->n_bulk; i++) {
        if (s->bulk[i]->full) sqlite3_finalize(s->bulk[i]->full);
        tr_free(s->bulk[i]);
    }
    tr_sc_close(&s->w.sc);
    tr_rows_fini(&s->rows);
    tr_vec_fini(&s->marks);
    w_fini(&s->w);
    tr_free(s);
    return rc;
}

const tr_writer tr_writer_sqlite = {
    .abi = TR_WRITER_ABI,
    .name = "sqlite",
    .description = "SQLite database (Perfetto-like tables; query with tracesql)",
    .extensions = "db,sqlite,sqlite3",
    .binary = 1,
    .begin = sqlite_begin,
    .add = sqlite_add,
    .end = sqlite_end,
    .event = sqlite_event,
    .flows = sqlite_flows,
};
