/*
** fuzz_sqldb.c: tracesql opening arbitrary bytes as a .db file, as a user
** would run 'tracesql other.db': read-only and guarded (bin/tracesql/db.c)
** with a short --timeout, then every table and view the file names is
** printed in every output mode to /dev/null.  Nothing may crash, leak or
** hang (a hostile view runs into the timeout); errors are fine.  The seeds
** (tests/fuzz/corpus/sqldb) are small tracecat databases and damaged ones.
*/
#include "tracesql_impl.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define FUZZ_MAX (1u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A file of this process's own, rewritten for every input. */
static const char *sqldb_path(void)
{
    static char path[64];
    if (!path[0]) snprintf(path, sizeof path, "/tmp/fuzz_sqldb.%ld.db", (long)getpid());
    return path;
}

#define SQLDB_NAMES 256

/*
** Prints every row of every table and view of DB to NUL in each mode.  The
** names are read first: a statement that meets a damaged page resets the
** schema, and a query of sqlite_schema still open would then start again
** from its first row, for ever.
*/
static void sqldb_dump(sqlite3 *db, FILE *nul)
{
    static char names[SQLDB_NAMES][201];
    size_t n = 0;
    sqlite3_stmt *list;
    if (sqlite3_prepare_v2(db, "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view')", -1,
                           &list, NULL) != SQLITE_OK)
        return;
    while (n < SQLDB_NAMES && sqlite3_step(list) == SQLITE_ROW)
        snprintf(names[n++], sizeof names[0], "%.200s", (const char *)sqlite3_column_text(list, 0));
    sqlite3_finalize(list);
    for (size_t i = 0; i < n; i++) {
        char sql[300];
        snprintf(sql, sizeof sql, "SELECT * FROM \"%.200s\" LIMIT 200", names[i]);
        for (int mode = TSQL_TABLE; mode <= TSQL_LINES; mode++) {
            sqlite3_stmt *st;
            if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) break;
            tsql_out out;
            tsql_out_init(&out, nul, mode, 1);
            tsql_out_statement(&out, st);
            tsql_out_fini(&out);
            sqlite3_finalize(st);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX) return 0;
    FILE *f = fopen(sqldb_path(), "wb");
    if (!f) return 0;
    size_t wrote = fwrite(data, 1, size, f);
    if (fclose(f) != 0 || wrote != size) return 0;
    FILE *nul = fopen("/dev/null", "w");
    if (!nul) return 0;
    tr_cli c;
    tr_cli_init(&c, "fuzz_sqldb");
    const char *inputs[] = {sqldb_path()};
    args a;
    memset(&a, 0, sizeof a);
    a.inputs = inputs;
    a.n_inputs = 1;
    a.timeout = 0.5;
    sqlite3 *db = NULL;
    if (open_db(&c, &a, &db) == TR_EXIT_OK && tsql_lock(&c, db, &a) == TR_EXIT_OK)
        sqldb_dump(db, nul);
    sqlite3_close(db);
    tr_cli_fini(&c);
    fclose(nul);
    return 0;
}
