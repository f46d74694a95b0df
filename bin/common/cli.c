/* cli.c: messages, warnings, progress and signals shared by the binaries. */
#include "cli.h"
#include "tr_text.h"

#include <archive.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void cli_warn(void *user, const tr_error *w)
{
    tr_cli *c = user;
    if (c->verbosity < 2 && c->warnings_shown >= 10) return;
    char buf[1200];
    tr_cli_progress_done(c);
    fprintf(stderr, "%s: warning: %s\n", c->prog, tr_error_format(w, buf, sizeof buf));
    c->warnings_shown++;
}

void tr_cli_init(tr_cli *c, const char *prog)
{
    memset(c, 0, sizeof *c);
    c->prog = prog;
    c->verbosity = 1;
    c->progress = -1;
    c->diag.fn = cli_warn;
    c->diag.user = c;
    /* Zone names are looked up where the C library would look them up. */
    const char *dir = getenv("TZDIR");
    c->read.align.zone_dir = dir && *dir ? dir : NULL;
}

void tr_cli_fini(tr_cli *c)
{
    tr_cli_read *r = &c->read;
    for (size_t i = 0; i < r->n_ranks; i++) free((char *)r->ranks[i].path);
    free(r->ranks);
    for (size_t i = 0; i < r->align.n_offsets; i++) free((char *)r->offsets[i].path);
    free(r->offsets);
    memset(r, 0, sizeof *r);
}

void tr_cli_error(tr_cli *c, const tr_error *e)
{
    char buf[1200];
    tr_cli_progress_done(c);
    fprintf(stderr, "%s: %s\n", c->prog, tr_error_format(e, buf, sizeof buf));
}

void tr_cli_errorf(tr_cli *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", c->prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int tr_cli_usage_error(tr_cli *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", c->prog);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry '%s --help' for more information.\n", c->prog);
    va_end(ap);
    return TR_EXIT_USAGE;
}

void tr_cli_warning_summary(tr_cli *c)
{
    if (c->verbosity >= 1 && c->diag.warnings > c->warnings_shown)
        fprintf(stderr, "%s: %llu warnings in all, %llu shown (use -v to see every one)\n", c->prog,
                (unsigned long long)c->diag.warnings, (unsigned long long)c->warnings_shown);
}

/* Progress is drawn for inputs over this size only: small ones finish before it helps. */
#define PROGRESS_MIN_BYTES (50ull * 1000 * 1000)

static int progress_drawn;

static int progress_enabled(const tr_cli *c)
{
    if (c->progress >= 0) return c->progress;
    if (c->verbosity == 0) return 0;
    const char *fake = getenv("TRACECAT_FAKE_TTY");
    return (fake && strcmp(fake, "1") == 0) || isatty(2);
}

void tr_cli_progress(void *user, const char *name, uint64_t done, uint64_t total)
{
    tr_cli *c = user;
    if (!progress_enabled(c) || (total && total < PROGRESS_MIN_BYTES) ||
        (!total && done < PROGRESS_MIN_BYTES))
        return;
    if (total)
        fprintf(stderr, "\r%s: reading %s %3d%% (%llu/%llu MB)", c->prog, name,
                (int)(done * 100 / total), (unsigned long long)(done / 1000000),
                (unsigned long long)(total / 1000000));
    else
        fprintf(stderr, "\r%s: reading %s (%llu MB)", c->prog, name,
                (unsigned long long)(done / 1000000));
    progress_drawn = 1;
}

void tr_cli_progress_done(tr_cli *c)
{
    (void)c;
    if (progress_drawn) fputs("\r\033[K", stderr);
    progress_drawn = 0;
}

static void on_signal(int sig)
{
    tr_output_cleanup_all();
    signal(sig, SIG_DFL);
    raise(sig);
}

void tr_cli_install_signals(void)
{
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
    /* A reader that went away (`| head`): temporary files go, and the exit is SIGPIPE's, quiet. */
    signal(SIGPIPE, on_signal);
}

void tr_cli_print_version(const char *prog)
{
    printf("%s %s (%s)\n", prog, TRACECAT_VERSION, archive_version_details());
}
