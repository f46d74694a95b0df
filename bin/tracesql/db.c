/*
** db.c: the database tracesql runs on: a tracecat database opened as it
** is, or traces loaded into an in-memory one (and saved with --save).  The
** schema is the SQLite writer's (writers/sqlite.c, README "SQL schema").
**
** Someone else's database may be hostile: unless --write, a file is opened
** read-only, nothing may change any database (PRAGMA query_only, which the
** authorizer keeps on), VACUUM INTO is refused (it attaches a new file) and
** so is ATTACH of anything but an existing database file; the schema is not
** trusted to call functions with side effects; --timeout stops a statement
** that runs too long, as Ctrl-C does.
*/
#include "tracesql_impl.h"

#include "tr_sqlite.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

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

/* ---- read-only mode and --timeout ---- */

static double guard_timeout;  /* seconds, 0 = none */
static double guard_deadline; /* of the running statement, CLOCK_MONOTONIC seconds */
static int guard_expired;

static double guard_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Each statement's first step starts its clock. */
static int guard_on_statement(unsigned type, void *user, void *p, void *x)
{
    (void)type, (void)user, (void)p, (void)x;
    guard_deadline = guard_now() + guard_timeout;
    guard_expired = 0;
    return 0;
}

static int guard_on_progress(void *user)
{
    (void)user;
    if (guard_now() < guard_deadline) return 0;
    guard_expired = 1;
    return 1;
}

/* Can ATTACH take NAME read-only?  An existing, non-empty regular file (VACUUM INTO needs none). */
static int guard_attachable(const char *name)
{
    struct stat sb;
    if (!name || !*name || strcmp(name, ":memory:") == 0) return 1;
    return stat(name, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0;
}

static int guard_authorize(void *user, int action, const char *a1, const char *a2, const char *db,
                           const char *trigger)
{
    (void)user, (void)db, (void)trigger;
    if (action == SQLITE_ATTACH && !guard_attachable(a1)) return SQLITE_DENY;
    if (action == SQLITE_PRAGMA && a1 && strcasecmp(a1, "query_only") == 0 && a2)
        return SQLITE_DENY;
    return SQLITE_OK;
}

static int guard_readonly;

const char *tsql_statement_error(sqlite3 *db, int rc)
{
    static char msg[600];
    if (rc == SQLITE_INTERRUPT)
        return guard_expired ? "interrupted: the statement ran longer than --timeout"
                             : "interrupted";
    int base = rc & 0xff;
    if (guard_readonly && (base == SQLITE_READONLY || base == SQLITE_AUTH)) {
        snprintf(msg, sizeof msg, "%s (read-only: --write allows changes and VACUUM INTO)",
                 sqlite3_errmsg(db));
        return msg;
    }
    return sqlite3_errmsg(db);
}

void tsql_guard(sqlite3 *db, const args *a)
{
    if (a->timeout > 0) {
        guard_timeout = a->timeout;
        sqlite3_trace_v2(db, SQLITE_TRACE_STMT, guard_on_statement, NULL);
        sqlite3_progress_handler(db, 1000, guard_on_progress, NULL);
    }
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
}

int tsql_lock(tr_cli *c, sqlite3 *db, const args *a)
{
    if (a->write) return TR_EXIT_OK;
    guard_readonly = 1;
    if (sqlite3_exec(db, "PRAGMA query_only = 1", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_set_authorizer(db, guard_authorize, NULL) != SQLITE_OK) {
        tr_cli_errorf(c, "cannot make the database read-only: %s", sqlite3_errmsg(db));
        return TR_EXIT_DATA;
    }
    return TR_EXIT_OK;
}

/* ---- opening and loading ---- */

int open_db(tr_cli *c, const args *a, sqlite3 **db)
{
    const char *path = a->inputs[0];
    int flags = a->write ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
    if (sqlite3_open_v2(path, db, flags, NULL) != SQLITE_OK) {
        tr_cli_errorf(c, "%s: %s", path, *db ? sqlite3_errmsg(*db) : "out of memory");
        return TR_EXIT_DATA;
    }
    tsql_guard(*db, a);
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
        } else {
            tsql_guard(*db, a);
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
