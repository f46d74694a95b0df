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

int tr_cli_parse_rank(const char *arg, tr_rank_override *out)
{
    const char *eq = strrchr(arg, '=');
    if (!eq || eq == arg || !eq[1]) return -1;
    char *end;
    long v = strtol(eq + 1, &end, 10);
    if (*end || v < 0 || v > INT32_MAX) return -1;
    size_t n = (size_t)(eq - arg);
    char *path = malloc(n + 1);
    if (!path) return -1;
    memcpy(path, arg, n);
    path[n] = '\0';
    out->path = path;
    out->rank = (int32_t)v;
    return 0;
}

int tr_cli_load_option(tr_cli *c, tr_cli_loadopts *l, int opt, const char *arg)
{
    switch (opt) {
    case TR_CLI_OPT_ALIGN: {
        const char *eq = strrchr(arg, '=');
        int64_t ns;
        if (!eq || eq == arg || tr_parse_duration(eq + 1, &ns) < 0)
            return tr_cli_usage_error(c, "bad --align '%s' (want FILE=OFFSET, e.g. run.log=1.5s)",
                                      arg);
        char *path = strndup(arg, (size_t)(eq - arg));
        tr_align_offset *more =
            path ? realloc(l->offsets, (l->align.n_offsets + 1) * sizeof *more) : NULL;
        if (!more) {
            free(path);
            return tr_cli_usage_error(c, "out of memory");
        }
        l->offsets = more;
        l->offsets[l->align.n_offsets++] = (tr_align_offset){.path = path, .offset_ns = ns};
        l->align.offsets = l->offsets;
        return 0;
    }
    case TR_CLI_OPT_ALIGN_ON:
        if (!*arg) return tr_cli_usage_error(c, "--align-on needs a NAME");
        l->align.align_on = arg;
        return 0;
    case TR_CLI_OPT_TZ: {
        int64_t east;
        if (tr_tz_offset(arg, 0, &east) < 0)
            return tr_cli_usage_error(
                c, "unknown time zone '%s' (try UTC, +02:00, local or a zoneinfo name)", arg);
        l->align.tz = arg;
        return 0;
    }
    case TR_CLI_OPT_THREADS: {
        char *end;
        long v = strtol(arg, &end, 10);
        if (*end || end == arg || v < 1 || v > 64)
            return tr_cli_usage_error(c, "bad --threads '%s' (1 to 64)", arg);
        l->threads = (int)v;
        return 0;
    }
    default:
        return 1;
    }
}

void tr_cli_load_fini(tr_cli_loadopts *l)
{
    for (size_t i = 0; i < l->align.n_offsets; i++) free((char *)l->offsets[i].path);
    free(l->offsets);
    l->offsets = NULL;
    l->align.n_offsets = 0;
}

/* Inputs placed by a guess: said once, as warnings are. */
static void warn_guesses(tr_cli *c, const tr_trace *t)
{
    for (size_t i = 0; i < tr_input_count(t); i++) {
        const tr_input_info *in = tr_input_get(t, (uint32_t)i);
        if (!tr_align_is_guess(in->placed)) continue;
        tr_error w = {.code = TR_E_FORMAT};
        snprintf(w.file, sizeof w.file, "%s", tr_str_get(t, in->path, NULL));
        snprintf(w.msg, sizeof w.msg, "%s",
                 in->placed == TR_PLACED_GUESS
                     ? "no wall clock: its zero is put at the timeline's zero, a guess "
                       "(use --align FILE=OFFSET or --align-on NAME)"
                     : "its local time was read in this machine's zone, a guess (use --tz)");
        c->diag.warnings++;
        if (c->diag.fn) c->diag.fn(c->diag.user, &w);
    }
}

int tr_cli_load(tr_cli *c, tr_trace *t, char *const *inputs, size_t n, tr_load_opts *lo,
                const tr_cli_loadopts *l)
{
    tr_error e = {0};
    tr_align_opts align = l ? l->align : (tr_align_opts){0};
    align.diag = lo->read.diag;
    lo->threads = l ? l->threads : 0;
    if (lo->threads <= 0 && getenv("TRACECAT_THREADS"))
        lo->threads = atoi(getenv("TRACECAT_THREADS"));
    lo->align = &align;
    int rc = tr_load_many(t, (const char *const *)inputs, n, lo, &e);
    lo->align = NULL;
    tr_cli_progress_done(c);
    if (rc < 0) {
        tr_cli_error(c, &e);
        return e.code == TR_E_USAGE ? TR_EXIT_USAGE : TR_EXIT_DATA;
    }
    warn_guesses(c, t);
    if (tr_trace_freeze(t, &e) < 0) {
        tr_cli_error(c, &e);
        return TR_EXIT_DATA;
    }
    return TR_EXIT_OK;
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
}

void tr_cli_print_version(const char *prog)
{
    printf("%s %s (%s)\n", prog, TRACECAT_VERSION, archive_version_details());
}
