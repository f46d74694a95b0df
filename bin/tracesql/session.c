/*
** session.c: running SQL: the statements given with -c or as arguments, or
** those read from standard input, at an interactive prompt on a terminal
** or as a script.  Ctrl-C during a statement interrupts that statement
** (sqlite3_interrupt); at the prompt it drops the pending input.
*/
#include "tracesql_impl.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

void tsql_install_sigint(void)
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
        char why[300];
        const char *next = tsql_perfetto_include(tail, why, sizeof why);
        if (next && why[0]) {
            session_error(s, why);
            return -1;
        }
        if (next) {
            tail = next;
            continue;
        }
        int prc = sqlite3_prepare_v2(s->db, tail, -1, &st, &next);
        if (prc != SQLITE_OK) {
            session_error(s, tsql_statement_error(s->db, prc));
            return -1;
        }
        tail = next;
        if (!st) continue; /* whitespace or a comment */
        double t0 = now_s();
        sig_seen = 0;
        sig_in_query = 1;
        int rc = tsql_out_statement(&s->out, st);
        sig_in_query = 0;
        const char *msg = tsql_statement_error(s->db, rc);
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
    tsql_edit_begin(s->interactive);
    for (;;) {
        const char *prompt = NULL;
        if (s->interactive) {
            prompt = stmt.len ? "     ...> " : "tracesql> ";
            sig_seen = 0;
            sig_at_prompt = 1;
        }
        ssize_t n = tsql_edit_read(prompt, &line, &cap);
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
    tsql_edit_end();
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

int tsql_session(tr_cli *c, sqlite3 *db, const args *a)
{
    session s;
    memset(&s, 0, sizeof s);
    s.cli = c;
    s.db = db;
    s.interactive = a->n_sql == 0 && (a->interactive || isatty(0));
    int tty = isatty(1);
    tsql_out_init(&s.out, stdout, a->mode >= 0 ? a->mode : tty ? TSQL_TABLE : TSQL_TSV, a->header);
    s.out.flush_rows = s.interactive;
    sig_db = db;
    int rc = a->n_sql ? run_commands(&s, a) : run_input(&s);
    sig_db = NULL;
    if (fflush(stdout) != 0 && rc == TR_EXIT_OK) {
        tr_cli_errorf(c, "cannot write the output: %s", strerror(errno));
        rc = TR_EXIT_DATA;
    }
    tsql_out_fini(&s.out);
    return rc;
}
