/*
** tracesql: SQL over traces.
**
**   tracesql run.db                      interactive prompt (statements from stdin when piped)
**   tracesql run.db -c 'SELECT ...'      run and exit (or the SQL as a last argument)
**   tracesql trace.json [--save run.db]  load any trace into an in-memory database first
**
** The schema is the SQLite writer's (writers/sqlite.c, README "SQL schema").
** Ctrl-C during a statement interrupts that statement (sqlite3_interrupt);
** at the prompt it drops the pending input.  Output is printed by
** bin/tracesql_out.c in one of five modes.
*/
#include "cli.h"
#include "tracesql_out.h"

#include "tr_sqlite.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
    "  -f, --from FORMAT     input format (default: probe the content)\n"
    "      --rank FILE=N     the processes read from FILE are rank N "
    "(repeatable)\n" TR_CLI_LOAD_HELP
    "      --gt-pairing MODE GT worker slices: 'batch' (default) or 'visualize'\n"
    "      --strict          a bad record is an error, not a warning\n"
    "  -q, --quiet           errors only\n"
    "  -v, --verbose         show every warning\n"
    "      --progress        always draw progress on stderr\n"
    "      --no-progress     never draw progress\n"
    "  -h, --help            show this help and exit\n"
    "  -V, --version         show the version and exit\n"
    "\n"
    "At the prompt: .tables, .schema [TABLE], .mode MODE, .headers on|off, .timer on|off,\n"
    ".help, .quit.  A statement ends with ';'.  Ctrl-C stops the running statement.\n"
    "\n"
    "Exit status: 0 success, 1 bad input, SQL error or I/O failure, 2 usage error.\n"
    "Examples:\n"
    "  tracecat convert run.log -o run.db && tracesql run.db\n"
    "  tracesql run.db -c 'SELECT name, count(*) FROM slice GROUP BY name ORDER BY 2 DESC'\n"
    "  tracesql trace.json --save trace.db 'SELECT count(*) FROM slice'\n";

enum {
    OPT_HEADER = 256,
    OPT_NO_HEADER,
    OPT_RANK,
    OPT_GT_PAIRING,
    OPT_STRICT,
    OPT_PROGRESS,
    OPT_NO_PROGRESS
};

static const struct option options[] = {
    {"command", required_argument, NULL, 'c'},
    {"from", required_argument, NULL, 'f'},
    {"gt-pairing", required_argument, NULL, OPT_GT_PAIRING},
    {"header", no_argument, NULL, OPT_HEADER},
    {"help", no_argument, NULL, 'h'},
    {"interactive", no_argument, NULL, 'i'},
    {"mode", required_argument, NULL, 'm'},
    {"no-header", no_argument, NULL, OPT_NO_HEADER},
    {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
    {"progress", no_argument, NULL, OPT_PROGRESS},
    {"quiet", no_argument, NULL, 'q'},
    {"rank", required_argument, NULL, OPT_RANK},
    {"save", required_argument, NULL, 's'},
    {"strict", no_argument, NULL, OPT_STRICT},
    {"verbose", no_argument, NULL, 'v'},
    {"version", no_argument, NULL, 'V'},
    TR_CLI_LOAD_OPTIONS,
    {NULL, 0, NULL, 0},
};

typedef struct args {
    const char *from, *save;
    const char **sql; /* -c and SQL arguments, in order */
    size_t n_sql;
    const char **inputs;
    size_t n_inputs;
    tr_rank_override *ranks;
    size_t n_ranks;
    int gt_pairing;
    int mode;   /* -1 = by the terminal */
    int header; /* -1 = by the mode */
    int interactive;
    tr_cli_loadopts load; /* --align, --align-on, --tz, --threads */
} args;

/* ---- Ctrl-C ---- */

static sqlite3 *volatile sig_db;
static volatile sig_atomic_t sig_in_query;  /* a statement runs: interrupt it */
static volatile sig_atomic_t sig_at_prompt; /* reading the prompt: drop the input */
static volatile sig_atomic_t sig_seen;

static void on_sigint(int sig)
{
    sig_seen = 1;
    if (sig_in_query && sig_db) {
        sqlite3_interrupt(sig_db);
        return;
    }
    if (sig_at_prompt) return;
    /* Loading or saving: remove temporary outputs and die of the signal as tracecat does. */
    tr_output_cleanup_all();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_sigint(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    /* No SA_RESTART: a read at the prompt returns EINTR so the line can be dropped. */
    sa.sa_flags = 0;
    sigaction(SIGINT, &sa, NULL);
}

/* ---- the session ---- */

typedef struct session {
    tr_cli *cli;
    sqlite3 *db;
    tsql_out out;
    int timer;
    int interactive;
    const char *where;  /* "<stdin>" while reading a script, else NULL */
    unsigned long line; /* of the statement being run, in the script */
} session;

static void session_error(session *s, const char *msg)
{
    fflush(stdout);
    if (s->where)
        fprintf(stderr, "%s: %s:%lu: %s\n", s->cli->prog, s->where, s->line, msg);
    else
        fprintf(stderr, "%s: %s\n", s->cli->prog, msg);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs every statement in SQL; returns 0, or -1 after printing the first error. */
static int run_sql(session *s, const char *sql)
{
    const char *tail = sql;
    while (*tail) {
        sqlite3_stmt *st = NULL;
        const char *next;
        if (sqlite3_prepare_v2(s->db, tail, -1, &st, &next) != SQLITE_OK) {
            session_error(s, sqlite3_errmsg(s->db));
            return -1;
        }
        tail = next;
        if (!st) continue; /* whitespace or a comment */
        double t0 = now_s();
        sig_seen = 0;
        sig_in_query = 1;
        int rc = tsql_out_statement(&s->out, st);
        sig_in_query = 0;
        const char *msg = rc == SQLITE_INTERRUPT ? "interrupted" : sqlite3_errmsg(s->db);
        sqlite3_finalize(st);
        if (s->timer) fprintf(stderr, "Run Time: real %.3f s\n", now_s() - t0);
        if (rc != SQLITE_DONE) {
            session_error(s, rc == SQLITE_NOMEM ? "out of memory" : msg);
            return -1;
        }
        if (s->out.failed) {
            session_error(s, "cannot write the output");
            return -1;
        }
    }
    return 0;
}

static const char dot_help[] =
    ".headers on|off      column names in table, csv and tsv modes\n"
    ".help                this text\n"
    ".mode MODE           table, csv, tsv, json or lines\n"
    ".quit                leave (also .exit, Ctrl-D)\n"
    ".schema [TABLE]      the CREATE statements, of TABLE only if given\n"
    ".tables              the tables and views\n"
    ".timer on|off        print each statement's run time on stderr\n"
    "Tables: process thread track slice instant counter flow args stack_profile_frame\n"
    "stack_profile_callsite stack_sample meta trace_input; views: io gt_op sample_stack\n"
    "thread_track process_track counter_track cpu_profile_stack_sample.\n";

static int on_off(const char *v, int *out)
{
    if (v && (strcmp(v, "on") == 0 || strcmp(v, "1") == 0))
        *out = 1;
    else if (v && (strcmp(v, "off") == 0 || strcmp(v, "0") == 0))
        *out = 0;
    else
        return -1;
    return 0;
}

static int dot_tables(session *s)
{
    return run_sql(s, "SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view')"
                      " AND name NOT LIKE 'sqlite_%' ORDER BY type, name");
}

static int dot_schema(session *s, const char *table)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT sql || ';' FROM sqlite_schema WHERE sql IS NOT NULL"
                           " AND (?1 IS NULL OR tbl_name = ?1 OR name = ?1)"
                           " ORDER BY tbl_name, type DESC, name",
                           -1, &st, NULL) != SQLITE_OK) {
        session_error(s, sqlite3_errmsg(s->db));
        return -1;
    }
    if (table) sqlite3_bind_text(st, 1, table, -1, SQLITE_TRANSIENT);
    int rc, n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        printf("%s\n", (const char *)sqlite3_column_text(st, 0));
        n++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        session_error(s, sqlite3_errmsg(s->db));
        return -1;
    }
    if (table && n == 0) {
        char msg[300];
        snprintf(msg, sizeof msg, "no such table or view: %s", table);
        session_error(s, msg);
        return -1;
    }
    return 0;
}

/* A dot-command line; returns 0, -1 on error, 1 to quit. */
static int run_dot(session *s, char *line)
{
    char *save = NULL;
    char *cmd = strtok_r(line, " \t\r\n", &save);
    char *arg = strtok_r(NULL, " \t\r\n", &save);
    char msg[300];
    if (strcmp(cmd, ".quit") == 0 || strcmp(cmd, ".exit") == 0) return 1;
    if (strcmp(cmd, ".help") == 0) {
        fputs(dot_help, stdout);
        return 0;
    }
    if (strcmp(cmd, ".tables") == 0) return dot_tables(s);
    if (strcmp(cmd, ".schema") == 0) return dot_schema(s, arg);
    if (strcmp(cmd, ".mode") == 0) {
        int m = arg ? tsql_mode_parse(arg) : -1;
        if (m < 0) {
            session_error(s, "usage: .mode table|csv|tsv|json|lines");
            return -1;
        }
        s->out.mode = m;
        return 0;
    }
    if (strcmp(cmd, ".headers") == 0 || strcmp(cmd, ".header") == 0) {
        if (on_off(arg, &s->out.header) < 0) {
            session_error(s, "usage: .headers on|off");
            return -1;
        }
        return 0;
    }
    if (strcmp(cmd, ".timer") == 0) {
        if (on_off(arg, &s->timer) < 0) {
            session_error(s, "usage: .timer on|off");
            return -1;
        }
        return 0;
    }
    snprintf(msg, sizeof msg, "unknown command '%s' (try .help)", cmd);
    session_error(s, msg);
    return -1;
}

/* Is LINE blank once whitespace is skipped? */
static int blank(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    return *p == '\0';
}

/*
** Reads statements and dot-commands from standard input.  Interactive: a
** prompt, errors are printed and the prompt goes on.  A script: the first
** error ends it with status 1.
*/
static int run_input(session *s)
{
    tr_buf stmt;
    tr_buf_init(&stmt, 0);
    char *line = NULL;
    size_t cap = 0;
    unsigned long lineno = 0;
    int status = TR_EXIT_OK;
    if (s->interactive) {
        printf("%s: enter SQL ending with ';', .help for help, .quit to leave\n", s->cli->prog);
    } else {
        s->where = "<stdin>";
    }
    for (;;) {
        if (s->interactive) {
            fputs(stmt.len ? "     ...> " : "tracesql> ", stdout);
            fflush(stdout);
            sig_seen = 0;
            sig_at_prompt = 1;
        }
        errno = 0;
        ssize_t n = getline(&line, &cap, stdin);
        sig_at_prompt = 0;
        if (n < 0) {
            if (s->interactive && (errno == EINTR || sig_seen)) {
                /* Ctrl-C at the prompt: drop what was typed, prompt again. */
                clearerr(stdin);
                tr_buf_reset(&stmt);
                fputc('\n', stdout);
                continue;
            }
            if (ferror(stdin)) {
                tr_cli_errorf(s->cli, "cannot read standard input: %s", strerror(errno));
                status = TR_EXIT_DATA;
            }
            break;
        }
        lineno++;
        if (stmt.len == 0) {
            if (blank(line)) continue;
            const char *p = line;
            while (*p == ' ' || *p == '\t') p++;
            if (*p == '.') {
                s->line = lineno;
                int rc = run_dot(s, (char *)p);
                fflush(stdout);
                if (rc > 0) break;
                if (rc < 0 && !s->interactive) {
                    status = TR_EXIT_DATA;
                    break;
                }
                continue;
            }
            s->line = lineno;
        }
        if (tr_buf_add(&stmt, line, (size_t)n) != TR_OK) {
            tr_cli_errorf(s->cli, "out of memory");
            status = TR_EXIT_DATA;
            break;
        }
        if (!sqlite3_complete(stmt.p)) continue;
        int rc = run_sql(s, stmt.p);
        tr_buf_reset(&stmt);
        fflush(stdout);
        if (rc < 0 && !s->interactive) {
            status = TR_EXIT_DATA;
            break;
        }
    }
    /* A script's last statement may lack its ';'. */
    if (status == TR_EXIT_OK && !blank(stmt.p) && run_sql(s, stmt.p) < 0 && !s->interactive)
        status = TR_EXIT_DATA;
    if (s->interactive) fputc('\n', stdout);
    free(line);
    tr_buf_fini(&stmt);
    return status;
}

/* Runs the -c and SQL arguments in order; stops at the first error. */
static int run_commands(session *s, const args *a)
{
    for (size_t i = 0; i < a->n_sql; i++) {
        const char *p = a->sql[i];
        while (*p == ' ' || *p == '\t' || *p == '\n') p++;
        int rc;
        if (*p == '.') {
            char *copy = strdup(p);
            if (!copy) {
                tr_cli_errorf(s->cli, "out of memory");
                return TR_EXIT_DATA;
            }
            rc = run_dot(s, copy);
            free(copy);
            if (rc > 0) break;
        } else {
            rc = run_sql(s, p);
        }
        if (rc < 0) return TR_EXIT_DATA;
    }
    return TR_EXIT_OK;
}

/* ---- opening ---- */

/* Is PATH a SQLite database (by its header), or named like one? */
static int looks_like_db(const char *path, int *named_db)
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

static int open_db(tr_cli *c, const char *path, sqlite3 **db)
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

static int load_traces(tr_cli *c, const args *a, sqlite3 **db)
{
    tr_trace *t = tr_trace_new();
    if (!t) {
        tr_cli_errorf(c, "out of memory");
        return TR_EXIT_DATA;
    }
    tr_load_opts lo = {.readers = tr_readers};
    lo.from = a->from;
    lo.read.diag = &c->diag;
    lo.read.gt_pairing = a->gt_pairing;
    lo.ranks = a->ranks;
    lo.n_ranks = a->n_ranks;
    lo.progress = tr_cli_progress;
    lo.progress_user = c;
    tr_error e = {0};
    int rc = tr_cli_load(c, t, (char *const *)a->inputs, a->n_inputs, &lo, &a->load);
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

static int save_db(tr_cli *c, sqlite3 *db, const char *path)
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

/* ---- arguments ---- */

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

static int parse_args(tr_cli *c, int argc, char **argv, args *a, int *done)
{
    int opt;
    *done = 0;
    while ((opt = getopt_long(argc, argv, "c:f:m:s:iqvhV", options, NULL)) != -1) {
        switch (opt) {
        case 'c':
            if (push(&a->sql, &a->n_sql, optarg) < 0) return tr_cli_usage_error(c, "out of memory");
            break;
        case 'f':
            a->from = optarg;
            break;
        case 'm':
            if ((a->mode = tsql_mode_parse(optarg)) < 0)
                return tr_cli_usage_error(c, "--mode is table, csv, tsv, json or lines");
            break;
        case 's':
            a->save = optarg;
            break;
        case 'i':
            a->interactive = 1;
            break;
        case 'q':
            c->verbosity = 0;
            break;
        case 'v':
            c->verbosity++;
            break;
        case 'h':
            fputs(usage_text, stdout);
            *done = 1;
            return TR_EXIT_OK;
        case 'V':
            tr_cli_print_version("tracesql");
            printf("SQLite %s\n", sqlite3_libversion());
            *done = 1;
            return TR_EXIT_OK;
        case OPT_HEADER:
            a->header = 1;
            break;
        case OPT_NO_HEADER:
            a->header = 0;
            break;
        case OPT_RANK: {
            tr_rank_override r;
            if (tr_cli_parse_rank(optarg, &r) < 0)
                return tr_cli_usage_error(c, "bad --rank '%s' (want FILE=N)", optarg);
            tr_rank_override *more = realloc(a->ranks, (a->n_ranks + 1) * sizeof *more);
            if (!more) return tr_cli_usage_error(c, "out of memory");
            a->ranks = more;
            a->ranks[a->n_ranks++] = r;
            break;
        }
        case OPT_GT_PAIRING:
            if (strcmp(optarg, "batch") == 0)
                a->gt_pairing = TR_GT_PAIR_BATCH;
            else if (strcmp(optarg, "visualize") == 0)
                a->gt_pairing = TR_GT_PAIR_VISUALIZE;
            else
                return tr_cli_usage_error(c, "--gt-pairing is 'batch' or 'visualize'");
            break;
        case OPT_STRICT:
            c->diag.strict = 1;
            break;
        case OPT_PROGRESS:
            c->progress = 1;
            break;
        case OPT_NO_PROGRESS:
            c->progress = 0;
            break;
        default: {
            int taken = tr_cli_load_option(c, &a->load, opt, optarg);
            if (taken == 1) return tr_cli_usage_error(c, "unknown or incomplete option");
            if (taken) return taken;
        }
        }
    }
    for (int i = optind; i < argc; i++) {
        int r = a->n_inputs > 0 && is_sql_arg(argv[i]) ? push(&a->sql, &a->n_sql, argv[i])
                                                       : push(&a->inputs, &a->n_inputs, argv[i]);
        if (r < 0) return tr_cli_usage_error(c, "out of memory");
    }
    if (a->n_inputs == 0) return tr_cli_usage_error(c, "no INPUT given (a .db file or a trace)");
    if (a->from && !tr_reader_find(tr_readers, a->from))
        return tr_cli_usage_error(c, "unknown input format '%s' (see 'tracecat formats')", a->from);
    return TR_EXIT_OK;
}

static int run(tr_cli *c, args *a)
{
    sqlite3 *db = NULL;
    int named_db, rc;
    int is_db = looks_like_db(a->inputs[0], &named_db);
    if ((is_db || named_db) && a->n_inputs > 1)
        return tr_cli_usage_error(c, "a database must be the only INPUT");
    if (named_db && !is_db) {
        struct stat sb;
        if (stat(a->inputs[0], &sb) != 0) {
            tr_cli_errorf(c, "%s: %s", a->inputs[0], strerror(errno));
            return TR_EXIT_DATA;
        }
        if (sb.st_size > 0) {
            tr_cli_errorf(c, "%s: not a SQLite database", a->inputs[0]);
            return TR_EXIT_DATA;
        }
    }
    for (size_t i = 0; i < a->n_inputs; i++)
        if (strcmp(a->inputs[i], "-") == 0 && a->n_sql == 0)
            return tr_cli_usage_error(c, "a trace on standard input needs -c SQL");
    rc = is_db || named_db ? open_db(c, a->inputs[0], &db) : load_traces(c, a, &db);
    if (rc == TR_EXIT_OK && a->save) rc = save_db(c, db, a->save);
    if (rc == TR_EXIT_OK) {
        session s;
        memset(&s, 0, sizeof s);
        s.cli = c;
        s.db = db;
        s.interactive = a->n_sql == 0 && (a->interactive || isatty(0));
        int tty = isatty(1);
        tsql_out_init(&s.out, stdout,
                      a->mode >= 0 ? a->mode
                      : tty        ? TSQL_TABLE
                                   : TSQL_TSV,
                      a->header);
        s.out.flush_rows = s.interactive;
        sig_db = db;
        rc = a->n_sql ? run_commands(&s, a) : run_input(&s);
        sig_db = NULL;
        if (fflush(stdout) != 0 && rc == TR_EXIT_OK) {
            tr_cli_errorf(c, "cannot write the output: %s", strerror(errno));
            rc = TR_EXIT_DATA;
        }
        tsql_out_fini(&s.out);
    }
    if (db) sqlite3_close(db);
    return rc;
}

int main(int argc, char **argv)
{
    tr_cli c;
    tr_cli_init(&c, "tracesql");
    args a;
    memset(&a, 0, sizeof a);
    a.mode = -1;
    a.header = -1;
    int done;
    int rc = parse_args(&c, argc, argv, &a, &done);
    if (rc == TR_EXIT_OK && !done) {
        tr_cli_install_signals();
        install_sigint();
        rc = run(&c, &a);
        if (rc != TR_EXIT_USAGE) tr_cli_warning_summary(&c);
    }
    for (size_t i = 0; i < a.n_ranks; i++) free((char *)a.ranks[i].path);
    free(a.ranks);
    tr_cli_load_fini(&a.load);
    free(a.sql);
    free(a.inputs);
    return rc;
}
