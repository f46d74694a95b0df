/*
** perfetto.c: the parts of Perfetto's trace processor SQL that carry over to
** tracecat's schema, added to tracesql's connection (not to the database
** file: `sqlite3 run.db` sees the plain schema).
**
**   EXTRACT_ARG(arg_set_id, key)    an arg's value; 'args.K' finds K too, as
**                                   Perfetto's JSON importer prefixes args
**   trace_start(), trace_end()      the first and last time of any event
**   trace_bounds                    a view: start_ts, end_ts
**   metadata                        a view over meta: name, str_value, int_value
**   ancestor_slice(id), descendant_slice(id)
**   directly_connected_flow(id), following_flow(id), preceding_flow(id)
**                                   eponymous virtual tables (table functions)
**
** Every table function is one SQL statement with ?1 for its argument, run by
** one virtual table module (tf_*): its columns are the statement's.
*/
#include "tracesql_impl.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* ---- table functions: a statement with ?1 as an eponymous virtual table ---- */

typedef struct tf_def {
    const char *name;
    const char *sql; /* ?1 is the argument */
} tf_def;

/* Slices reached from ?1: its parent chain, or its children's trees. */
#define TF_SLICES(reach)                                                                           \
    "WITH RECURSIVE r(id) AS (" reach ") SELECT slice.* FROM slice JOIN r USING (id)"              \
    " ORDER BY slice.ts, slice.depth"

static const tf_def tf_defs[] = {
    {"ancestor_slice", TF_SLICES("SELECT parent_id FROM slice WHERE id = ?1 UNION ALL"
                                 " SELECT s.parent_id FROM slice s JOIN r ON s.id = r.id"
                                 " WHERE s.parent_id IS NOT NULL")},
    {"descendant_slice", TF_SLICES("SELECT id FROM slice WHERE parent_id = ?1 UNION ALL"
                                   " SELECT s.id FROM slice s JOIN r ON s.parent_id = r.id")},
    /* the slices of stack ?1 with their ancestors, or with their descendants */
    {"ancestor_slice_by_stack",
     TF_SLICES("SELECT id FROM slice WHERE stack_id = ?1 UNION SELECT s.parent_id FROM slice s"
               " JOIN r ON s.id = r.id WHERE s.parent_id IS NOT NULL")},
    {"descendant_slice_by_stack",
     TF_SLICES("SELECT id FROM slice WHERE stack_id = ?1 UNION SELECT s.id FROM slice s"
               " JOIN r ON s.parent_id = r.id")},
    /* the chains of flows out of ?1 onwards and into ?1 backwards (a branch met going back is
       not followed forwards, as in Perfetto) */
    {"directly_connected_flow",
     "WITH RECURSIVE fwd(id) AS (SELECT ?1 UNION SELECT f.slice_in FROM flow f JOIN fwd ON"
     " f.slice_out = fwd.id), bwd(id) AS (SELECT ?1 UNION SELECT f.slice_out FROM flow f JOIN bwd"
     " ON f.slice_in = bwd.id)"
     " SELECT flow.* FROM flow WHERE slice_out IN fwd OR slice_in IN bwd ORDER BY flow.id"},
    /* out of ?1 and its descendants, on to the slices the flows reach */
    {"following_flow",
     "WITH RECURSIVE r(id) AS (SELECT ?1 UNION SELECT f.slice_in FROM flow f JOIN r ON"
     " f.slice_out = r.id UNION SELECT s.id FROM slice s JOIN r ON s.parent_id = r.id)"
     " SELECT flow.* FROM flow WHERE slice_out IN r ORDER BY flow.id"},
    /* into ?1 and its ancestors, back to the slices the flows come from */
    {"preceding_flow",
     "WITH RECURSIVE r(id) AS (SELECT ?1 UNION SELECT f.slice_out FROM flow f JOIN r ON"
     " f.slice_in = r.id UNION SELECT s.parent_id FROM slice s JOIN r ON s.id = r.id"
     " WHERE s.parent_id IS NOT NULL)"
     " SELECT flow.* FROM flow WHERE slice_in IN r ORDER BY flow.id"},
};

typedef struct tf_vtab {
    sqlite3_vtab base; /* first, as SQLite wants */
    sqlite3 *db;
    const tf_def *def;
    int ncols; /* the statement's; the argument is column ncols */
} tf_vtab;

typedef struct tf_cursor {
    sqlite3_vtab_cursor base;
    sqlite3_stmt *st;
    sqlite3_int64 row;
    int eof;
} tf_cursor;

static int tf_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                      char **err)
{
    (void)argc, (void)argv;
    const tf_def *def = aux;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, def->sql, -1, &st, NULL);
    if (rc != SQLITE_OK) {
        *err = sqlite3_mprintf("%s: %s", def->name, sqlite3_errmsg(db));
        return rc;
    }
    /* The columns are the statement's, then the hidden argument. */
    sqlite3_str *s = sqlite3_str_new(db);
    sqlite3_str_appendall(s, "CREATE TABLE x(");
    int n = sqlite3_column_count(st);
    for (int i = 0; i < n; i++) sqlite3_str_appendf(s, "\"%w\",", sqlite3_column_name(st, i));
    sqlite3_str_appendall(s, "arg HIDDEN)");
    sqlite3_finalize(st);
    char *sql = sqlite3_str_finish(s);
    rc = sql ? sqlite3_declare_vtab(db, sql) : SQLITE_NOMEM;
    sqlite3_free(sql);
    if (rc != SQLITE_OK) return rc;
    tf_vtab *v = sqlite3_malloc(sizeof *v);
    if (!v) return SQLITE_NOMEM;
    memset(v, 0, sizeof *v);
    v->db = db;
    v->def = def;
    v->ncols = n;
    *out = &v->base;
    return SQLITE_OK;
}

static int tf_disconnect(sqlite3_vtab *vt)
{
    sqlite3_free(vt);
    return SQLITE_OK;
}

/* The argument must be given (id = ...): a table function has no rows of its own. */
static int tf_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
    tf_vtab *v = (tf_vtab *)vt;
    for (int i = 0; i < info->nConstraint; i++) {
        const struct sqlite3_index_constraint *c = &info->aConstraint[i];
        if (c->iColumn != v->ncols) continue;
        if (!c->usable) return SQLITE_CONSTRAINT;
        if (c->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
        info->aConstraintUsage[i].argvIndex = 1;
        info->aConstraintUsage[i].omit = 1;
        info->estimatedCost = 100;
        info->idxNum = 1;
        return SQLITE_OK;
    }
    vt->zErrMsg = sqlite3_mprintf("%s needs its argument: %s(id)", v->def->name, v->def->name);
    return SQLITE_ERROR;
}

static int tf_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
    (void)vt;
    tf_cursor *c = sqlite3_malloc(sizeof *c);
    if (!c) return SQLITE_NOMEM;
    memset(c, 0, sizeof *c);
    *out = &c->base;
    return SQLITE_OK;
}

static int tf_close(sqlite3_vtab_cursor *cur)
{
    tf_cursor *c = (tf_cursor *)cur;
    sqlite3_finalize(c->st);
    sqlite3_free(c);
    return SQLITE_OK;
}

static int tf_next(sqlite3_vtab_cursor *cur)
{
    tf_cursor *c = (tf_cursor *)cur;
    int rc = sqlite3_step(c->st);
    c->row++;
    c->eof = rc != SQLITE_ROW;
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) return SQLITE_OK;
    cur->pVtab->zErrMsg = sqlite3_mprintf("%s", sqlite3_errmsg(((tf_vtab *)cur->pVtab)->db));
    return rc;
}

static int tf_filter(sqlite3_vtab_cursor *cur, int idx, const char *idx_str, int argc,
                     sqlite3_value **argv)
{
    (void)idx, (void)idx_str;
    tf_cursor *c = (tf_cursor *)cur;
    tf_vtab *v = (tf_vtab *)cur->pVtab;
    if (!c->st) {
        int rc = sqlite3_prepare_v2(v->db, v->def->sql, -1, &c->st, NULL);
        if (rc != SQLITE_OK) return rc;
    }
    sqlite3_reset(c->st);
    sqlite3_bind_value(c->st, 1, argc ? argv[0] : NULL);
    c->row = 0;
    return tf_next(cur);
}

static int tf_eof(sqlite3_vtab_cursor *cur)
{
    return ((tf_cursor *)cur)->eof;
}

static int tf_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    tf_cursor *c = (tf_cursor *)cur;
    if (col < ((tf_vtab *)cur->pVtab)->ncols)
        sqlite3_result_value(ctx, sqlite3_column_value(c->st, col));
    else
        sqlite3_result_null(ctx);
    return SQLITE_OK;
}

static int tf_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
    *rowid = ((tf_cursor *)cur)->row;
    return SQLITE_OK;
}

static const sqlite3_module tf_module = {
    .xConnect = tf_connect,
    .xBestIndex = tf_best_index,
    .xDisconnect = tf_disconnect,
    .xOpen = tf_open,
    .xClose = tf_close,
    .xFilter = tf_filter,
    .xNext = tf_next,
    .xEof = tf_eof,
    .xColumn = tf_column,
    .xRowid = tf_rowid,
};

/* ---- scalar functions ---- */

/* A function whose answer is the first column of one statement, run with its arguments bound. */
static void fn_query(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    sqlite3 *db = sqlite3_context_db_handle(ctx);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sqlite3_user_data(ctx), -1, &st, NULL) != SQLITE_OK) {
        sqlite3_result_error(ctx, sqlite3_errmsg(db), -1);
        return;
    }
    for (int i = 0; i < argc; i++) sqlite3_bind_value(st, i + 1, argv[i]);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        sqlite3_result_value(ctx, sqlite3_column_value(st, 0));
    else if (rc != SQLITE_DONE)
        sqlite3_result_error(ctx, sqlite3_errmsg(db), -1);
    sqlite3_finalize(st);
}

/*
** Perfetto's stack_id: a hash of the category and name of a slice and of
** each of its ancestors, so slices with the same path have the same id; 0
** for no slice.  The slice view computes it for every row it reads, so the
** ids of all slices are made by one scan of main.slice the first time one
** is asked for and kept for the connection (the database is read-only
** then; tsql_perfetto_end frees them).
*/
static struct {
    uint64_t *id; /* by slice id; 0 until known */
    sqlite3_int64 n;
    int built;
} stacks;

#define STACK_SEED  0xcbf29ce484222325ull
#define STACK_PRIME 0x100000001b3ull

/* The hash of one slice's category and name. */
static uint64_t stack_own(const unsigned char *cat, const unsigned char *name)
{
    uint64_t h = STACK_SEED;
    for (const unsigned char *p = cat ? cat : (const unsigned char *)""; *p; p++)
        h = (h ^ *p) * STACK_PRIME;
    h = (h ^ 0x1f) * STACK_PRIME; /* a separator no name holds */
    for (const unsigned char *p = name ? name : (const unsigned char *)""; *p; p++)
        h = (h ^ *p) * STACK_PRIME;
    return h;
}

/* A stack's id from its parent's (0: none) and its own hash: positive, never 0. */
static uint64_t stack_join(uint64_t parent, uint64_t own)
{
    uint64_t h = ((parent ^ own) * STACK_PRIME ^ (parent >> 29)) & INT64_MAX;
    return h ? h : 1;
}

/* The ids of every slice, into stacks: an SQLite result code. */
static int stacks_build(sqlite3 *db)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, "SELECT max(id) FROM main.slice", -1, &st, NULL);
    if (rc != SQLITE_OK) return rc;
    sqlite3_int64 n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) + 1 : 0;
    sqlite3_finalize(st);
    /* ids are rows: a larger one is a database not made by tracecat, and no size to allocate */
    if (n < 0) n = 0;
    if (n > INT64_MAX / 32) return SQLITE_NOMEM;
    uint64_t *own = sqlite3_malloc64((n ? n : 1) * 3 * sizeof *own);
    uint64_t *id = sqlite3_malloc64((n ? n : 1) * sizeof *id);
    if (!own || !id) {
        sqlite3_free(own);
        sqlite3_free(id);
        return SQLITE_NOMEM;
    }
    uint64_t *parent = own + n;                            /* parent id + 1, 0: none */
    sqlite3_int64 *chain = (sqlite3_int64 *)(own + 2 * n); /* the walk's slices */
    memset(own, 0, n * 2 * sizeof *own);
    memset(id, 0, n * sizeof *id);
    rc = sqlite3_prepare_v2(db, "SELECT id, parent_id, category, name FROM main.slice", -1, &st,
                            NULL);
    while (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
        sqlite3_int64 i = sqlite3_column_int64(st, 0), up = sqlite3_column_int64(st, 1);
        if (i < 0 || i >= n) continue;
        own[i] = stack_own(sqlite3_column_text(st, 2), sqlite3_column_text(st, 3));
        parent[i] = sqlite3_column_type(st, 1) == SQLITE_NULL || up < 0 || up >= n ? 0 : up + 1;
    }
    if (rc == SQLITE_OK) rc = sqlite3_finalize(st);
    /* Each slice after its parent: the chain of unknown ones up from it, then down; a cycle (a
       database not made by tracecat) is cut after n links. */
    for (sqlite3_int64 i = 0; i < n && rc == SQLITE_OK; i++) {
        sqlite3_int64 len = 0;
        for (sqlite3_int64 k = i; !id[k] && len < n; k = (sqlite3_int64)parent[k] - 1) {
            chain[len++] = k;
            if (!parent[k]) break;
        }
        while (len-- > 0) {
            sqlite3_int64 k = chain[len];
            id[k] = stack_join(parent[k] ? id[parent[k] - 1] : 0, own[k]);
        }
    }
    sqlite3_free(own);
    if (rc != SQLITE_OK) {
        sqlite3_free(id);
        return rc;
    }
    stacks.id = id;
    stacks.n = n;
    stacks.built = 1;
    return SQLITE_OK;
}
/* __slice_stack_id(id): the stack id of slice ID, 0 for NULL or no such slice. */
static void fn_slice_stack_id(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    if (!stacks.built) {
        int rc = stacks_build(sqlite3_context_db_handle(ctx));
        if (rc != SQLITE_OK) {
            sqlite3_result_error_code(ctx, rc);
            return;
        }
    }
    sqlite3_int64 i = sqlite3_value_int64(argv[0]);
    int none = sqlite3_value_type(argv[0]) == SQLITE_NULL || i < 0 || i >= stacks.n;
    sqlite3_result_int64(ctx, none ? 0 : (sqlite3_int64)stacks.id[i]);
}

/* __stack_id(category, name, parent): the stack id of a slice so named under stack PARENT (0:
 * none). */
static void fn_stack_id(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    uint64_t own = stack_own(sqlite3_value_text(argv[0]), sqlite3_value_text(argv[1]));
    uint64_t parent = (uint64_t)sqlite3_value_int64(argv[2]);
    sqlite3_result_int64(ctx, (sqlite3_int64)stack_join(parent, own));
}

void tsql_perfetto_end(void)
{
    sqlite3_free(stacks.id);
    memset(&stacks, 0, sizeof stacks);
}

/* An exact key first, else the key without Perfetto's "args." prefix. */
static const char extract_arg_sql[] =
    "SELECT CASE value_type WHEN 'string' THEN string_value WHEN 'real' THEN real_value"
    " ELSE coalesce(int_value, real_value) END FROM main.args"
    " WHERE arg_set_id = ?1 AND (key = ?2 OR (substr(?2, 1, 5) = 'args.' AND key = substr(?2, 6)))"
    " ORDER BY key = ?2 DESC LIMIT 1";

#define BOUNDS_SQL                                                                                 \
    "SELECT min(s) AS start_ts, max(e) AS end_ts FROM (SELECT min(ts) AS s, max(ts + max(dur, 0))" \
    " AS e FROM slice UNION ALL SELECT min(ts), max(ts) FROM instant UNION ALL SELECT min(ts),"    \
    " max(ts) FROM counter UNION ALL SELECT min(ts), max(ts) FROM stack_sample)"

static const struct {
    const char *name;
    int argc;
    const char *sql;
} fn_defs[] = {
    {"extract_arg", 2, extract_arg_sql},
    {"trace_start", 0, "SELECT start_ts FROM trace_bounds"},
    {"trace_end", 0, "SELECT end_ts FROM trace_bounds"},
};

/*
** The slices Perfetto's JSON importer would have: the slices, then (ids
** after the last slice's) the instants of Chrome JSON inputs with dur 0,
** leaving out the phases Perfetto has no slice for (the reader marks them
** with a "ph" arg).
*/
#define CHROME_TRACKS                                                                              \
    "SELECT t.id FROM main.track t JOIN main.process p USING (upid) JOIN main.trace_input i"       \
    " ON i.id = p.input_id WHERE i.format = 'chrome'"
/* Whether process P is of a Chrome JSON input. */
#define CHROME_PROCESS(p) p ".input_id IN (SELECT id FROM main.trace_input WHERE format = 'chrome')"
#define CHROME_INSTANTS                                                                            \
    " FROM main.instant i WHERE i.track_id IN (" CHROME_TRACKS ") AND NOT EXISTS (SELECT 1 FROM"   \
    " main.__intrinsic_args a WHERE a.arg_set_id = i.arg_set_id AND a.key = 'ph')"

/*
** Views in the temp schema: they go with the connection, never into a saved
** file.  slice, args, thread and process shadow the tables of the same name
** for statements (SQLite looks in temp first), while the database's own
** views (io, gt_op, gpu_kernel, ...) keep reading main's tables.
*/
/* The slices the Chrome reader made of Perfetto's T thread-state events (on thread lanes). */
#define THREAD_STATES                                                                              \
    " FROM main.slice s WHERE s.category = 'thread_state' AND s.track_id IN (SELECT utid FROM"     \
    " main.thread) AND s.track_id IN (" CHROME_TRACKS ")"
#define STATE_ARG(kind, key)                                                                       \
    "(SELECT a." kind "_value FROM main.__intrinsic_args a WHERE a.arg_set_id = s.arg_set_id AND"  \
    " a.key = '" key "')"

static const char *const views_sql[] = {
    "CREATE TEMP VIEW trace_bounds AS " BOUNDS_SQL ";",
    /* as Perfetto's JSON importer fills them from T events: a state each, and the Running ones
       with a cpu arg as scheduling slices; ucpu is the CPU's number */
    "CREATE TEMP VIEW thread_state AS SELECT s.id, s.ts, s.dur, NULL AS cpu, s.track_id AS utid,"
    " s.name AS state, " STATE_ARG("int", "io_wait") " AS io_wait, " STATE_ARG(
        "string",
        "blocked_function") " AS blocked_function, NULL AS waker_utid,"
                            " NULL AS waker_id, NULL AS irq_context, NULL AS ucpu" THREAD_STATES
                            ";",
    "CREATE TEMP VIEW sched AS SELECT id, ts, dur, cpu, utid, NULL AS end_state, NULL AS priority,"
    " cpu AS ucpu FROM (SELECT s.id, s.ts, s.dur, s.track_id AS utid, " STATE_ARG(
        "int", "cpu") " AS cpu" THREAD_STATES " AND s.name = 'Running') WHERE cpu IS NOT NULL;",
    "CREATE TEMP VIEW cpu AS SELECT DISTINCT ucpu AS id, ucpu, cpu, NULL AS cluster_id,"
    " NULL AS processor FROM sched;",
    "CREATE TEMP VIEW metadata AS SELECT rowid - 1 AS id, key AS name, 'single' AS key_type,"
    " CASE WHEN typeof(value) = 'integer' THEN value END AS int_value,"
    " CASE WHEN typeof(value) = 'text' THEN value END AS str_value FROM meta"
    /* a Chrome JSON trace's "metadata" object, named as Perfetto's JSON importer names it */
    " UNION ALL SELECT NULL, 'json_' || a.key, 'single', a.int_value, a.string_value"
    " FROM main.trace_input i JOIN main.args a USING (arg_set_id) WHERE i.format = 'chrome'"
    " AND a.key GLOB 'metadata.*';",
};

/*
** The views that shadow tables, and those built on them: not with --write,
** where statements change the file's own tables (a view cannot be changed).
*/
/* Chrome slice S the reader closed at the end of the input: Perfetto's importer leaves it open. */
#define UNFINISHED(s)                                                                              \
    s ".arg_set_id IS NOT NULL AND " s ".track_id IN (" CHROME_TRACKS ") AND EXISTS (SELECT 1"     \
      " FROM main.__intrinsic_args a WHERE a.arg_set_id = " s                                      \
      ".arg_set_id AND a.key = 'unfinished')"
/* Where slice S ends for the instants in it: never, when it is open. */
#define END_FOR_INSTANTS(s)                                                                        \
    "CASE WHEN " UNFINISHED(s) " THEN 9223372036854775807 ELSE " s ".ts + " s ".dur END"

/*
** The slice an instant I is in, as Perfetto's importer nests instants: the
** deepest one on its track that starts at or before it and ends after it.
** With slices nested, that is the last one to start or one of its
** ancestors, so the walk is an index seek and a few parents, not a scan.
*/
#define INSTANT_PARENT                                                                             \
    "(WITH RECURSIVE up(id, end_ts, parent_id) AS (SELECT * FROM (SELECT s.id, " END_FOR_INSTANTS( \
        "s") ", s.parent_id FROM main.slice s WHERE s.track_id = i.track_id AND"                   \
             " s.ts <= i.ts ORDER BY s.ts DESC, s.depth DESC LIMIT 1) UNION ALL SELECT "           \
             "p.id, " END_FOR_INSTANTS(                                                            \
                 "p") ", p.parent_id FROM main.slice p JOIN up ON p.id = up.parent_id WHERE"       \
                      " up.end_ts <= i.ts) SELECT id FROM up WHERE end_ts > i.ts LIMIT 1)"

#define FIRST_INSTANT "(SELECT coalesce(max(id), -1) + 1 FROM main.slice)"

static const char slice_sql[] = "CREATE TEMP VIEW slice AS SELECT id, ts, CASE WHEN " UNFINISHED(
    "s") " THEN -1 ELSE dur END AS dur,"
         " track_id, category, name, depth, parent_id, arg_set_id, bytes, id AS slice_id,"
         " category AS cat, %s AS thread_ts, %s AS thread_dur,"
         " __slice_stack_id(id) AS stack_id, __slice_stack_id(parent_id) AS parent_stack_id"
         " FROM main.slice s"
         " UNION ALL SELECT " FIRST_INSTANT " + x.id, x.ts, 0, x.track_id, x.category, x.name,"
         " coalesce(p.depth + 1, 0), x.parent, x.arg_set_id, x.bytes, " FIRST_INSTANT " + x.id,"
         " x.category, NULL, NULL, __stack_id(x.category, x.name, __slice_stack_id(x.parent)),"
         " __slice_stack_id(x.parent) FROM (SELECT i.*, CASE WHEN i.scope = 'thread' "
         "THEN " INSTANT_PARENT " END AS parent" CHROME_INSTANTS
         ") x LEFT JOIN main.slice p ON p.id = x.parent;";

/* The slice view, with the thread times of a database that has them (schema 3 on). */
static int slice_view(sqlite3 *db)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(
        db, "SELECT count(*) FROM pragma_table_info('slice', 'main') WHERE name = 'thread_ts'", -1,
        &st, NULL);
    if (rc != SQLITE_OK) return rc;
    int has = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
    sqlite3_finalize(st);
    char *sql = sqlite3_mprintf(slice_sql, has ? "thread_ts" : "NULL", has ? "thread_dur" : "NULL");
    rc = sql ? sqlite3_exec(db, sql, NULL, NULL, NULL) : SQLITE_NOMEM;
    sqlite3_free(sql);
    return rc;
}

/* The other views that shadow tables, built on slice. */
static const char *const shadow_sql[] = {
    /* Perfetto's JSON importer keeps an event's args under "args."; the reader's "unfinished" of a
       Chrome slice is its dur -1 here */
    "CREATE TEMP VIEW args AS SELECT arg_set_id, id,"
    " CASE WHEN prefixed THEN 'args.' || key ELSE key END AS flat_key,"
    " CASE WHEN prefixed THEN 'args.' || key ELSE key END AS key, int_value, string_value,"
    " real_value, value_type, display_value FROM (SELECT a.*, a.arg_set_id IN (SELECT arg_set_id"
    " FROM main.slice WHERE track_id IN (" CHROME_TRACKS
    ") UNION ALL SELECT i.arg_set_id" CHROME_INSTANTS
    ") AS prefixed FROM main.args a) WHERE NOT (prefixed AND key = 'unfinished');",
    /* a lane tracecat named after its number ("thread 12", "pid 7") has no name in Perfetto */
    /* a Chrome event without pid or tid is pid 0 and tid 0 in Perfetto */
    "CREATE TEMP VIEW thread AS SELECT t.utid, CASE WHEN t.tid IS NULL AND " CHROME_PROCESS(
        "p") " THEN 0 ELSE t.tid END AS tid, CASE WHEN t.name = 'thread ' || coalesce(t.tid, -1)"
             " THEN NULL ELSE t.name END AS name, t.upid, CASE WHEN t.tid IS NULL OR p.pid IS NULL "
             "OR k.kind"
             " <> 'thread' THEN NULL ELSE t.tid = p.pid END AS is_main_thread, NULL AS start_ts,"
             " NULL AS end_ts, NULL AS arg_set_id FROM main.thread t JOIN main.process p USING "
             "(upid)"
             " JOIN main.track k ON k.id = t.utid;",
    "CREATE TEMP VIEW process AS SELECT upid, CASE WHEN pid IS NULL AND " CHROME_PROCESS(
        "main.process") " THEN 0 ELSE pid END AS pid, CASE WHEN name = 'pid ' || pid OR (pid IS "
                        "NULL"
                        " AND name = '(no pid)') THEN NULL ELSE name END AS name, rank, host, "
                        "labels, sort_index,"
                        " input_id, NULL AS start_ts, NULL AS end_ts, NULL AS parent_upid, NULL AS "
                        "arg_set_id"
                        " FROM main.process;",
    /* the standard library's slices.with_context */
    "CREATE TEMP VIEW thread_slice AS SELECT s.id, s.ts, s.dur, s.category, s.name, s.track_id,"
    " t.name AS thread_name, t.utid, t.tid, p.name AS process_name, p.upid, p.pid, s.depth,"
    " s.parent_id, s.arg_set_id, s.thread_ts, s.thread_dur FROM slice s"
    " JOIN main.thread_track tt ON tt.id = s.track_id JOIN thread t USING (utid)"
    " JOIN process p ON p.upid = t.upid;",
    "CREATE TEMP VIEW process_slice AS SELECT s.id, s.ts, s.dur, s.category, s.name, s.track_id,"
    " p.name AS process_name, p.upid, p.pid, s.depth, s.parent_id, s.arg_set_id, s.thread_ts,"
    " s.thread_dur FROM slice s JOIN main.process_track pt ON pt.id = s.track_id"
    " JOIN main.track k ON k.id = pt.id AND k.kind <> 'async' JOIN process p ON p.upid = pt.upid;",
    "CREATE TEMP VIEW thread_or_process_slice AS SELECT id, ts, dur, category, name, track_id,"
    " thread_name, utid, tid, process_name, upid, pid, depth, parent_id, arg_set_id, thread_ts,"
    " thread_dur FROM thread_slice UNION ALL SELECT id, ts, dur, category, name, track_id, NULL,"
    " NULL, NULL, process_name, upid, pid, depth, parent_id, arg_set_id, thread_ts, thread_dur"
    " FROM process_slice;",
    "CREATE TEMP VIEW slice_with_stack_id AS SELECT * FROM slice;",
    /* a Chrome JSON trace's counters are its processes' (Perfetto's JSON importer) */
    "CREATE TEMP VIEW process_counter_track AS SELECT * FROM main.counter_track;",
};

/* ---- INCLUDE PERFETTO MODULE ---- */

/* The standard library modules whose tables are here (the temp views above). */
static const char *const modules[] = {"slices.with_context", "slices.flow", "slices.hierarchy",
                                      "slices.stack"};

/* P past blanks and "--" comments. */
static const char *skip_blank(const char *p)
{
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
        if (p[0] != '-' || p[1] != '-') return p;
        while (*p && *p != '\n') p++;
    }
}

/* P past the word W (any case) and the blanks after it, else NULL. */
static const char *skip_word(const char *p, const char *w)
{
    size_t n = strlen(w);
    if (strncasecmp(p, w, n) != 0 || (p[n] && p[n] != ' ' && p[n] != '\t' && p[n] != '\n'))
        return NULL;
    return skip_blank(p + n);
}

const char *tsql_perfetto_include(const char *sql, char *err, size_t n)
{
    const char *p = skip_blank(sql);
    if (!(p = skip_word(p, "INCLUDE")) || !(p = skip_word(p, "PERFETTO")) ||
        !(p = skip_word(p, "MODULE")))
        return NULL;
    size_t len = strcspn(p, "; \t\r\n");
    const char *end = skip_blank(p + len);
    if (*end && *end != ';') end = NULL;
    for (size_t i = 0; end && i < sizeof modules / sizeof *modules; i++)
        if (strlen(modules[i]) == len && strncmp(p, modules[i], len) == 0) {
            err[0] = '\0';
            return *end ? end + 1 : end;
        }
    snprintf(err, n,
             "INCLUDE PERFETTO MODULE %.*s: not here (tracesql has slices.with_context,"
             " slices.flow, slices.hierarchy and slices.stack, always included)",
             (int)(len < 100 ? len : 100), p);
    return p + strlen(p);
}

int tsql_perfetto(tr_cli *c, sqlite3 *db, int write)
{
    int rc = SQLITE_OK;
    for (size_t i = 0; i < sizeof tf_defs / sizeof *tf_defs && rc == SQLITE_OK; i++)
        rc = sqlite3_create_module(db, tf_defs[i].name, &tf_module, (void *)&tf_defs[i]);
    for (size_t i = 0; i < sizeof fn_defs / sizeof *fn_defs && rc == SQLITE_OK; i++)
        rc = sqlite3_create_function(db, fn_defs[i].name, fn_defs[i].argc,
                                     SQLITE_UTF8 | SQLITE_DETERMINISTIC, (void *)fn_defs[i].sql,
                                     fn_query, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_create_function(db, "__slice_stack_id", 1, SQLITE_UTF8 | SQLITE_INNOCUOUS,
                                     NULL, fn_slice_stack_id, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_create_function(db, "__stack_id", 3,
                                     SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
                                     fn_stack_id, NULL, NULL);
    for (size_t i = 0; i < sizeof views_sql / sizeof *views_sql && rc == SQLITE_OK; i++)
        rc = sqlite3_exec(db, views_sql[i], NULL, NULL, NULL);
    if (rc == SQLITE_OK && !write) rc = slice_view(db);
    for (size_t i = 0; i < sizeof shadow_sql / sizeof *shadow_sql && rc == SQLITE_OK && !write; i++)
        rc = sqlite3_exec(db, shadow_sql[i], NULL, NULL, NULL);
    if (rc == SQLITE_OK) return TR_EXIT_OK;
    tr_cli_errorf(c, "cannot add Perfetto's functions: %s", sqlite3_errmsg(db));
    return TR_EXIT_DATA;
}
