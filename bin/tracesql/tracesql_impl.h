/*
** tracesql_impl.h: what tracesql's files share: the command line as parsed,
** opening or loading the database (db.c) and the SQL session on it
** (session.c).
*/
#ifndef TSQL_TRACESQL_H
#define TSQL_TRACESQL_H

#include <sqlite3.h>
#include <sys/types.h>

#include "cli.h"
#include "out_impl.h"

typedef struct args {
    const char *save;
    const char **sql; /* -c and SQL arguments, in order */
    size_t n_sql;
    const char **inputs;
    size_t n_inputs;
    int mode;   /* -1 = by the terminal */
    int header; /* -1 = by the mode */
    int interactive;
    int write;      /* --write: the database may be changed */
    double timeout; /* --timeout: seconds a statement may run, 0 = no limit */
} args;

/* ---- db.c ---- */

/* Is PATH a SQLite database (by its header)?  *NAMED_DB: is it named like one? */
int looks_like_db(const char *path, int *named_db);
/* Opens the tracecat database A->inputs[0] into *DB, guarded (tsql_guard; tsql_lock comes
 * later): an exit code, said. */
int open_db(tr_cli *c, const args *a, sqlite3 **db);
/* Sets --timeout on DB and distrusts its schema. */
void tsql_guard(sqlite3 *db, const args *a);
/* Unless --write, makes DB read-only from here on (after tracesql's own temp views): an exit code,
 * said. */
int tsql_lock(tr_cli *c, sqlite3 *db, const args *a);
/* The message for a statement that failed with RC: why it was interrupted, what read-only refused.
 */
const char *tsql_statement_error(sqlite3 *db, int rc);
/* Reads A's inputs into an in-memory database *DB: an exit code, said. */
int load_traces(tr_cli *c, const args *a, sqlite3 **db);
/* Writes DB to PATH atomically (--save): an exit code, said. */
int save_db(tr_cli *c, sqlite3 *db, const char *path);

/* ---- perfetto.c ---- */

/* Adds Perfetto's functions, table functions and views to DB (unless WRITE, the views that
 * shadow its tables): an exit code, said. */
int tsql_perfetto(tr_cli *c, sqlite3 *db, int write);
/* Finalizes what the functions keep; before DB closes. */
void tsql_perfetto_end(void);
/* Past an INCLUDE PERFETTO MODULE statement at SQL's start (ERR empty: a module that is here;
 * else why not, in ERR of N bytes), or NULL when SQL starts with another statement. */
const char *tsql_perfetto_include(const char *sql, char *err, size_t n);

/* ---- edit.c ---- */

/* Line editing and history for the prompt when INTERACTIVE on a terminal. */
void tsql_edit_begin(int interactive);
/* Saves the history. */
void tsql_edit_end(void);
/* A line into *LINE as getline reads it, after PROMPT (NULL: none); -1 at the end or on EINTR. */
ssize_t tsql_edit_read(const char *prompt, char **line, size_t *cap);

/* ---- session.c ---- */

/* Ctrl-C interrupts a statement, drops the prompt's input, else ends tracesql. */
void tsql_install_sigint(void);
/* Runs A's SQL on DB, or reads statements from standard input: an exit code. */
int tsql_session(tr_cli *c, sqlite3 *db, const args *a);

#endif
