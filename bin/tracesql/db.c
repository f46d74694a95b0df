/*
** db.c: the database tracesql runs on: a tracecat database opened as it
** is, or traces loaded into an in-memory one (and saved with --save).  The
** schema is the SQLite writer's (writers/sqlite.c, README "SQL schema").
*/
#include "tracesql_impl.h"

#include "tr_sqlite.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* Is PATH a SQLite database (by its header), or named like one? */
int looks_like_db(const char *path, int *named_db)
{
    const char *dot = strrchr(path, '.');
    *named_db = dot && (strcasecmp(dot, ".db") == 0 || strcasecmp(dot, ".sqlite") == 0 ||
                        strcasecmp(dot, ".sqlite3") == 0);
    struct stat sb;
    if (strcmp(path, "-") == 0 || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) return 0;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char head[16];
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    return n == sizeof head && memcmp(head, "SQLite format 3", 16) == 0;
}

int open_db(tr_cli *c, const char *path, sqlite3 **db)
{
    if (sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        tr_cli_errorf(c, "%s: %s", path, *db ? sqlite3_errmsg(*db) : "out of memory");
        return TR_EXIT_DATA;
    }
    tr_error e = {0};
    if (tr_sqlite_check(*db, &e) < 0) {
        const char *hint = strncmp(e.msg, "not a tracecat", 14) == 0
                               ? " (make one with 'tracecat convert TRACE -o FILE.db')"
                               : "";
        tr_cli_errorf(c, "%s: %s%s", path, e.msg, hint);
        return TR_EXIT_DATA;
    }
    return TR_EXIT_OK;
}

int load_traces(tr_cli *c, const args *a, sqlite3 **db)
{
    tr_trace *t = tr_trace_new();
    if (!t) {
        tr_cli_errorf(c, "out of memory");
        return TR_EXIT_DATA;
    }
    tr_error e = {0};
    int rc = tr_cli_load(c, t, (char *const *)a->inputs, a->n_inputs, 0);
    if (rc == TR_EXIT_OK) {
        if (sqlite3_open_v2(":memory:", db,
                            SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                            NULL) != SQLITE_OK) {
            tr_cli_errorf(c, "cannot open an in-memory database");
            rc = TR_EXIT_DATA;
        } else if (tr_sqlite_load(*db, t, NULL, &e) < 0) {
            tr_cli_error(c, &e);
            rc = TR_EXIT_DATA;
        }
    }
    tr_trace_free(t);
    return rc;
}

int save_db(tr_cli *c, sqlite3 *db, const char *path)
{
    tr_error e = {0};
    tr_output *out;
    if (tr_output_open(&out, path, &e) < 0) {
        tr_cli_error(c, &e);
        return TR_EXIT_DATA;
    }
    if (tr_output_is_tty(out)) {
        tr_output_abort(out);
        tr_cli_errorf(c, "refusing to write a database to a terminal");
        return TR_EXIT_USAGE;
    }
    if (tr_sqlite_save(db, out, &e) < 0) {
        tr_output_abort(out);
        tr_cli_error(c, &e);
        return TR_EXIT_DATA;
    }
    if (tr_output_commit(out, &e) < 0) {
        tr_cli_error(c, &e);
        return TR_EXIT_DATA;
    }
    return TR_EXIT_OK;
}
