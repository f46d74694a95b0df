/*
** tracesql: SQL over traces.
**
**   tracesql run.db                      interactive prompt (statements from stdin when piped)
**   tracesql run.db -c 'SELECT ...'      run and exit (or the SQL as a last argument)
**   tracesql trace.json [--save run.db]  load any trace into an in-memory database first
**
** This file takes the options and opens the database (db.c); session.c
** runs the SQL and out.c prints the results in one of five modes.
*/
#include "tracesql_impl.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage_text[] =
    "Usage: tracesql [OPTION]... INPUT... [SQL]...\n"
    "Run SQL over a trace.  INPUT is a database written by 'tracecat convert ... -o run.db'\n"
    "or any trace tracecat reads (several merge into one), which is loaded into an\n"
    "in-memory database first.  With SQL (an argument that is not an existing file, or\n"
    "-c) the statements run and tracesql exits; otherwise statements are read from\n"
    "standard input: at an interactive prompt on a terminal, as a script when piped.\n"
    "\n"
    "Options:\n"
    "  -c, --command SQL     run SQL (statements or a dot-command; repeatable)\n"
    "  -m, --mode MODE       table, csv, tsv, json or lines (default: table on a\n"
    "                        terminal, tsv otherwise)\n"
    "      --header          print column names in csv and tsv modes\n"
    "      --no-header       do not print column names in table mode\n"
    "  -s, --save FILE       keep the loaded database in FILE (written atomically)\n"
    "  -i, --interactive     prompt even when standard input is not a terminal\n"
    "  -w, --write           allow changes to the database file (default: read-only;\n"
    "                        ATTACH takes existing files, read-only; no VACUUM INTO)\n"
    "  -t, --timeout SECONDS stop a statement that runs longer (default: no "
    "limit)\n" TR_CLI_READ_HELP "  -v, --verbose         show every warning\n" TR_CLI_STD_HELP "\n"
    "At the prompt: .tables, .schema [TABLE], .mode MODE, .headers on|off, .timer on|off,\n"
    ".help, .quit.  A statement ends with ';'.  Ctrl-C stops the running statement.\n"
    "On a terminal the prompt edits lines (Up/Down, Ctrl-R) and keeps a history in\n"
    "$TRACESQL_HISTORY, else ~/.tracesql_history (TRACESQL_HISTORY= keeps none).\n"
    "Perfetto's functions, tables and JSON importer's slice/args carry over (README:\n"
    "Perfetto compatibility); main.slice and main.args are the stored tables.\n"
    "\n"
    "Exit status: 0 success, 1 bad input, SQL error or I/O failure, 2 usage error.\n"
    "Examples:\n"
    "  tracecat convert run.log -o run.db && tracesql run.db\n"
    "  tracesql run.db -c 'SELECT name, count(*) FROM slice GROUP BY name ORDER BY 2 DESC'\n"
    "  tracesql trace.json --save trace.db 'SELECT count(*) FROM slice'\n";

enum { OPT_HEADER = 256, OPT_NO_HEADER };

static const tr_cli_opt options[] = {
    {"command", required_argument, 'c'},
    {"header", no_argument, OPT_HEADER},
    {"interactive", no_argument, 'i'},
    {"mode", required_argument, 'm'},
    {"no-header", no_argument, OPT_NO_HEADER},
    {"save", required_argument, 's'},
    {"timeout", required_argument, 't'},
    {"write", no_argument, 'w'},
    {NULL, 0, 0},
};

static int push(const char ***list, size_t *n, const char *s)
{
    const char **more = realloc(*list, (*n + 1) * sizeof *more);
    if (!more) return -1;
    *list = more;
    more[(*n)++] = s;
    return 0;
}

/* After the first INPUT, an argument is SQL unless it names something that exists. */
static int is_sql_arg(const char *s)
{
    struct stat sb;
    if (strcmp(s, "-") == 0 || stat(s, &sb) == 0) return 0;
    return strpbrk(s, " \t\n;") != NULL || s[0] == '.';
}

static int option(tr_cli *c, void *user, int id, const char *arg)
{
    args *a = user;
    switch (id) {
    case 'c':
        if (push(&a->sql, &a->n_sql, arg) < 0) return tr_cli_usage_error(c, "out of memory");
        break;
    case 'm':
        if ((a->mode = tsql_mode_parse(arg)) < 0)
            return tr_cli_usage_error(c, "--mode is table, csv, tsv, json or lines");
        break;
    case 's':
        a->save = arg;
        break;
    case 'i':
        a->interactive = 1;
        break;
    case 'w':
        a->write = 1;
        break;
    case 't': {
        char *end;
        errno = 0;
        a->timeout = strtod(arg, &end);
        if (errno || end == arg || *end || !(a->timeout > 0) || a->timeout > 1e9)
            return tr_cli_usage_error(c, "--timeout takes a number of seconds above 0");
        break;
    }
    default: /* OPT_HEADER, OPT_NO_HEADER */
        a->header = id == OPT_HEADER;
        break;
    }
    return TR_EXIT_OK;
}

static void print_sqlite_version(void)
{
    printf("SQLite %s\n", sqlite3_libversion());
}

/* The operands: INPUTs, then SQL; an exit code. */
static int operands(tr_cli *c, args *a, int argc, char **argv)
{
    for (int i = optind; i < argc; i++) {
        int r = a->n_inputs > 0 && is_sql_arg(argv[i]) ? push(&a->sql, &a->n_sql, argv[i])
                                                       : push(&a->inputs, &a->n_inputs, argv[i]);
        if (r < 0) return tr_cli_usage_error(c, "out of memory");
    }
    if (a->n_inputs == 0) return tr_cli_usage_error(c, "no INPUT given (a .db file or a trace)");
    return tr_cli_check_from(c);
}

/* Whether the inputs are a database (*IS_DB); an exit code, said, when they cannot be used. */
static int check_inputs(tr_cli *c, const args *a, int *is_db)
{
    int named_db;
    *is_db = looks_like_db(a->inputs[0], &named_db);
    if ((*is_db || named_db) && a->n_inputs > 1)
        return tr_cli_usage_error(c, "a database must be the only INPUT");
    if (named_db && !*is_db) {
        struct stat sb;
        if (stat(a->inputs[0], &sb) != 0) {
            tr_cli_errorf(c, "%s: %s", a->inputs[0], strerror(errno));
            return TR_EXIT_DATA;
        }
        if (sb.st_size > 0) {
            tr_cli_errorf(c, "%s: not a SQLite database", a->inputs[0]);
            return TR_EXIT_DATA;
        }
        *is_db = 1; /* an empty file named like a database: SQLite makes it one */
    }
    for (size_t i = 0; i < a->n_inputs; i++)
        if (strcmp(a->inputs[i], "-") == 0 && a->n_sql == 0)
            return tr_cli_usage_error(c, "a trace on standard input needs -c SQL");
    return TR_EXIT_OK;
}

static int run(tr_cli *c, args *a)
{
    sqlite3 *db = NULL;
    int is_db;
    int rc = check_inputs(c, a, &is_db);
    if (rc != TR_EXIT_OK) return rc;
    rc = is_db ? open_db(c, a, &db) : load_traces(c, a, &db);
    if (rc == TR_EXIT_OK && a->save) rc = save_db(c, db, a->save);
    if (rc == TR_EXIT_OK) rc = tsql_perfetto(c, db, a->write);
    if (rc == TR_EXIT_OK) rc = tsql_lock(c, db, a);
    if (rc == TR_EXIT_OK) rc = tsql_session(c, db, a);
    tsql_perfetto_end();
    if (db) sqlite3_close(db);
    return rc;
}

int main(int argc, char **argv)
{
    static const tr_cli_spec spec = {.usage = usage_text,
                                     .opts = options,
                                     .reads = 1,
                                     .version = print_sqlite_version,
                                     .option = option};
    tr_cli c;
    tr_cli_init(&c, "tracesql");
    args a;
    memset(&a, 0, sizeof a);
    a.mode = -1;
    a.header = -1;
    int done;
    int rc = tr_cli_parse(&c, &spec, argc, argv, &a, &done);
    if (rc == TR_EXIT_OK && !done) rc = operands(&c, &a, argc, argv);
    if (rc == TR_EXIT_OK && !done) {
        tr_cli_install_signals();
        tsql_install_sigint();
        rc = run(&c, &a);
        if (rc != TR_EXIT_USAGE) tr_cli_warning_summary(&c);
    }
    tr_cli_fini(&c);
    free(a.sql);
    free(a.inputs);
    return rc;
}
