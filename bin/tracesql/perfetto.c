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
    /* flows linked to ?1 by flows alone, either way */
    {"directly_connected_flow",
     "WITH RECURSIVE r(id) AS (SELECT ?1 UNION SELECT f.slice_in FROM flow f JOIN r ON"
     " f.slice_out = r.id UNION SELECT f.slice_out FROM flow f JOIN r ON f.slice_in = r.id)"
     " SELECT flow.* FROM flow WHERE slice_out IN r OR slice_in IN r ORDER BY flow.id"},
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

/* An exact key first, else the key without Perfetto's "args." prefix. */
static const char extract_arg_sql[] =
    "SELECT CASE value_type WHEN 'string' THEN string_value WHEN 'real' THEN real_value"
    " ELSE coalesce(int_value, real_value) END FROM __intrinsic_args"
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

/* Views in the temp schema: they go with the connection, never into a saved file. */
static const char views_sql[] =
    "CREATE TEMP VIEW trace_bounds AS " BOUNDS_SQL ";"
    "CREATE TEMP VIEW metadata AS SELECT rowid - 1 AS id, key AS name, 'single' AS key_type,"
    " CASE WHEN typeof(value) = 'integer' THEN value END AS int_value,"
    " CASE WHEN typeof(value) = 'text' THEN value END AS str_value FROM meta;";

int tsql_perfetto(tr_cli *c, sqlite3 *db)
{
    int rc = SQLITE_OK;
    for (size_t i = 0; i < sizeof tf_defs / sizeof *tf_defs && rc == SQLITE_OK; i++)
        rc = sqlite3_create_module(db, tf_defs[i].name, &tf_module, (void *)&tf_defs[i]);
    for (size_t i = 0; i < sizeof fn_defs / sizeof *fn_defs && rc == SQLITE_OK; i++)
        rc = sqlite3_create_function(db, fn_defs[i].name, fn_defs[i].argc,
                                     SQLITE_UTF8 | SQLITE_DETERMINISTIC, (void *)fn_defs[i].sql,
                                     fn_query, NULL, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, views_sql, NULL, NULL, NULL);
    if (rc == SQLITE_OK) return TR_EXIT_OK;
    tr_cli_errorf(c, "cannot add Perfetto's functions: %s", sqlite3_errmsg(db));
    return TR_EXIT_DATA;
}
