/*
** tracecat: convert traces, print their events as lines, tell what they hold.
**
**   tracecat convert INPUT... -o OUTPUT     any reader -> any writer
**   tracecat cat INPUT...                   one event a line, tab-separated
**   tracecat info INPUT...                  format, clock, span, counts, lanes, names
**   tracecat formats                        the reader and writer tables
**
** This file takes the options and runs the command; convert.c writes.
*/
#include "tr_report.h"
#include "tr_text.h"
#include "tracecat_impl.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "Usage: tracecat COMMAND [OPTION]... INPUT...\n"
    "Read traces (the formats are listed below) into one model and convert, print or\n"
    "describe them.  INPUT is a file, a directory (a run\n"
    "folder: every trace inside is read), an archive (.tar*, .zip), a compressed file\n"
    "(gzip, zstd, xz, bzip2: detected by content), or - for standard input.\n"
    "\n"
    "Commands:\n"
    "  convert INPUT... -o OUTPUT  write the trace in another format (by --to, else by\n"
    "                              OUTPUT's extension; .gz/.zst compress); several\n"
    "                              inputs merge into one trace; -o - is standard output;\n"
    "                              --to parquet writes a directory of Parquet files,\n"
    "                              one input at a time (-o DIR/); --to recorder writes\n"
    "                              a Recorder directory (-o DIR/) or a tar of it\n"
    "  cat INPUT...                print one event a line, tab-separated:\n"
    "                              kind ts dur process track category name value args\n"
    "  info INPUT...               format, origin and clock, time span, counts per table,\n"
    "                              lanes with event counts, top names\n"
    "  formats                     list the readers and writers\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE     output of convert (required; - for standard output)\n"
    "  -f, --from FORMAT     input format (default: probe the content)\n"
    "  -t, --to FORMAT       output format (default: from the output's extension;\n"
    "                        Chrome JSON for -o -)\n"
    "      --name GLOB       keep events whose name matches GLOB (convert, cat)\n"
    "      --track GLOB      keep events whose track name matches GLOB (convert, cat)\n"
    "      --since TIME      keep events at or after TIME from the origin (convert, cat)\n"
    "      --until TIME      keep events at or before TIME (convert, cat); TIME has a\n"
    "                        unit: 1.5s, 200ms, 30us, 10ns (seconds when none)\n"
    "      --no-samples      leave the stack samples out (convert, cat): speedscope\n"
    "                        ignores traceEvents in a Chrome file with samples\n"
    "      --header          cat: print a '#'-prefixed column line first\n"
    "      --json            info: print JSON\n"
    "      --partition rank  parquet: DIR/TABLE/rank=N/ directories (Hive-style)\n"
    "      --row-group-rows N  parquet: rows per row group (default 131072); smaller\n"
    "                        groups let engines skip more, larger ones compress better\n"
    "      --rank FILE=N     the processes read from FILE are rank N (repeatable);\n"
    "                        without it a 'rank3' in a file's name gives its rank\n";

/* The reading options, the formats and the examples follow (C caps one string at 4095 bytes). */
static const char reading_text[] = TR_CLI_LOAD_HELP
    "      --gt-pairing MODE GT worker slices: 'batch' (default: a batch from the line\n"
    "                        before its reply to the reply) or 'visualize' (as GT's\n"
    "                        gt.scripts.visualize pairs them)\n"
    "      --folded-prefix LIST  folded output: root frames naming the 'process',\n"
    "                        the 'thread' or both ('process,thread'), as py-spy's\n"
    "                        --subprocesses and --threads write them; 'none' (default)\n"
    "      --strict          a bad record is an error, not a warning\n"
    "  -q, --quiet           errors only\n"
    "  -v, --verbose         show every warning (repeat for more)\n" TR_CLI_STD_HELP;

/* The end of --help, after the formats. */
static const char examples_text[] = TR_CLI_EXIT_HELP
    "Examples:\n"
    "  tracecat convert run.log -o run.json\n"
    "  tracecat cat run.log | awk -F'\\t' '$6 == \"gt.worker\" {busy += $3} END {print busy}'\n"
    "  tracecat info run.log --json\n";

enum {
    OPT_NAME = 256,
    OPT_TRACK,
    OPT_SINCE,
    OPT_UNTIL,
    OPT_HEADER,
    OPT_JSON,
    OPT_FOLDED_PREFIX,
    OPT_PARTITION,
    OPT_ROW_GROUP_ROWS,
    OPT_ASSUME_FREE_BYTES,
    OPT_NO_SAMPLES
};

static const tr_cli_opt options[] = {
    /* a test hook, not in --help: the free space the Parquet writer sees */
    {"assume-free-bytes", required_argument, OPT_ASSUME_FREE_BYTES},
    {"folded-prefix", required_argument, OPT_FOLDED_PREFIX},
    {"header", no_argument, OPT_HEADER},
    {"json", no_argument, OPT_JSON},
    {"name", required_argument, OPT_NAME},
    {"no-samples", no_argument, OPT_NO_SAMPLES},
    {"output", required_argument, 'o'},
    {"partition", required_argument, OPT_PARTITION},
    {"row-group-rows", required_argument, OPT_ROW_GROUP_ROWS},
    {"since", required_argument, OPT_SINCE},
    {"to", required_argument, 't'},
    {"track", required_argument, OPT_TRACK},
    {"until", required_argument, OPT_UNTIL},
    {NULL, 0, 0},
};

/* --folded-prefix LIST: none, thread, process or both. */
static int parse_folded_prefix(tr_cli *c, args *a, const char *arg)
{
    unsigned bits = 0;
    for (const char *p = arg; *p;) {
        size_t n = strcspn(p, ",");
        if (n == 6 && strncmp(p, "thread", 6) == 0)
            bits |= TR_FOLDED_THREAD;
        else if (n == 7 && strncmp(p, "process", 7) == 0)
            bits |= TR_FOLDED_PROCESS;
        else if (!(n == 4 && strncmp(p, "none", 4) == 0))
            return tr_cli_usage_error(c, "--folded-prefix takes none, thread, process");
        p += n + (p[n] == ',');
    }
    a->folded_prefix = bits;
    return TR_EXIT_OK;
}

static int parse_time(tr_cli *c, args *a, int id, const char *arg)
{
    int64_t ns;
    if (tr_parse_duration(arg, &ns) < 0)
        return tr_cli_usage_error(c, "bad time '%s' (try 1.5s, 200ms, 30us, 10ns)", arg);
    if (id == OPT_SINCE)
        a->since = ns, a->has_since = 1;
    else
        a->until = ns, a->has_until = 1;
    return TR_EXIT_OK;
}

/* --row-group-rows N, --assume-free-bytes N: positive numbers. */
static int parse_count(tr_cli *c, args *a, int id, const char *arg)
{
    char *end;
    unsigned long long v = strtoull(arg, &end, 10);
    if (*end || v == 0 || arg[0] == '-')
        return tr_cli_usage_error(c, "--%s takes a positive number",
                                  id == OPT_ROW_GROUP_ROWS ? "row-group-rows"
                                                           : "assume-free-bytes");
    *(id == OPT_ROW_GROUP_ROWS ? &a->row_group_rows : &a->free_bytes) = v;
    return TR_EXIT_OK;
}

static int option(tr_cli *c, void *user, int id, const char *arg)
{
    args *a = user;
    switch (id) {
    case 'o':
        a->output = arg;
        break;
    case 't':
        a->to = arg;
        break;
    case OPT_NAME:
        a->name_glob = arg;
        break;
    case OPT_TRACK:
        a->track_glob = arg;
        break;
    case OPT_SINCE:
    case OPT_UNTIL:
        return parse_time(c, a, id, arg);
    case OPT_HEADER:
        a->header = 1;
        break;
    case OPT_JSON:
        a->json = 1;
        break;
    case OPT_NO_SAMPLES:
        a->no_samples = 1;
        break;
    case OPT_FOLDED_PREFIX:
        return parse_folded_prefix(c, a, arg);
    case OPT_ROW_GROUP_ROWS:
    case OPT_ASSUME_FREE_BYTES:
        return parse_count(c, a, id, arg);
    default: /* OPT_PARTITION */
        if (strcmp(arg, "rank") != 0) return tr_cli_usage_error(c, "--partition takes 'rank'");
        a->partition_rank = 1;
        break;
    }
    return TR_EXIT_OK;
}

/* ---- commands ---- */

static int cmd_info(tr_cli *c, const args *a)
{
    tr_trace *t = tr_trace_new();
    if (!t) {
        tr_cli_errorf(c, "out of memory");
        return TR_EXIT_DATA;
    }
    c->read.unordered = 1; /* info counts: the rows' order does not matter */
    c->read.no_args = 1;   /* nor do their args, which it never shows */
    int rc = tr_cli_load(c, t, a->inputs, (size_t)a->n_inputs, 0);
    if (rc == TR_EXIT_OK) {
        tr_buf b;
        tr_buf_init(&b, 0);
        tr_error e = {0};
        if (tr_report_info(t, a->json, &b, &e) < 0) {
            tr_cli_error(c, &e);
            rc = TR_EXIT_DATA;
        } else {
            fwrite(b.p, 1, b.len, stdout);
            if (fflush(stdout) != 0) rc = TR_EXIT_DATA;
        }
        tr_buf_fini(&b);
    }
    tr_trace_free(t);
    return rc;
}

static int cmd_formats(void)
{
    printf("Readers (--from):\n");
    for (size_t i = 0; tr_readers[i]; i++)
        printf("  %-10s %-28s %s\n", tr_readers[i]->name, tr_readers[i]->extensions,
               tr_readers[i]->description);
    printf("Writers (--to, or by the output's extension; add .gz or .zst to compress):\n");
    for (size_t i = 0; tr_writers[i]; i++)
        printf("  %-10s %-28s %s\n", tr_writers[i]->name, tr_writers[i]->extensions,
               tr_writers[i]->description);
    return TR_EXIT_OK;
}

/* Runs the command named after the options; an exit code. */
static int run(tr_cli *c, args *a, int argc, char **argv)
{
    if (optind >= argc)
        return tr_cli_usage_error(c, "no command given (convert, cat, info, formats)");
    a->command = argv[optind];
    a->inputs = argv + optind + 1;
    a->n_inputs = argc - optind - 1;
    if (strcmp(a->command, "formats") == 0) return cmd_formats();
    int rc = tr_cli_check_from(c);
    if (rc != TR_EXIT_OK) return rc;
    if (a->n_inputs == 0) return tr_cli_usage_error(c, "%s needs at least one INPUT", a->command);
    tr_cli_install_signals();
    if (strcmp(a->command, "convert") == 0)
        rc = cmd_convert(c, a);
    else if (strcmp(a->command, "cat") == 0)
        rc = cmd_cat(c, a);
    else if (strcmp(a->command, "info") == 0)
        rc = cmd_info(c, a);
    else
        rc = tr_cli_usage_error(c, "unknown command '%s'", a->command);
    if (rc == TR_EXIT_OK || rc == TR_EXIT_DATA) tr_cli_warning_summary(c);
    return rc;
}

/* NAMES of a reader or writer table, comma-separated, wrapped under a heading. */
static void help_names(tr_buf *b, const char *heading, const char *const *names, size_t n)
{
    size_t line = b->len;
    tr_buf_addf(b, "  %-8s", heading);
    for (size_t i = 0; i < n; i++) {
        if (b->len - line + strlen(names[i]) + 2 > 79) {
            line = b->len + 1;
            tr_buf_addf(b, "\n%10s", "");
        }
        tr_buf_addf(b, " %s%s", names[i], i + 1 < n ? "," : "");
    }
    tr_buf_addc(b, '\n');
}

/* The part of --help after usage_text: the reading options, the formats read from the tables,
 * then the examples. */
static void help_formats(tr_buf *b)
{
    tr_buf_adds(b, reading_text);
    const char *names[64];
    size_t n = 0;
    tr_buf_adds(b, "\nFormats (tracecat formats tells more):\n");
    for (; tr_readers[n] && n < 64; n++) names[n] = tr_readers[n]->name;
    help_names(b, "read:", names, n);
    for (n = 0; tr_writers[n] && n < 64; n++) names[n] = tr_writers[n]->name;
    help_names(b, "write:", names, n);
    tr_buf_adds(b, "\n");
    tr_buf_adds(b, examples_text);
}

int main(int argc, char **argv)
{
    tr_buf more;
    tr_buf_init(&more, 0);
    help_formats(&more);
    const tr_cli_spec spec = {
        .usage = usage_text, .usage_more = more.p, .opts = options, .reads = 1, .option = option};
    tr_cli c;
    tr_cli_init(&c, "tracecat");
    args a = {0};
    int done;
    /* The command may come before or after options; getopt permutes the rest. */
    int rc = tr_cli_parse(&c, &spec, argc, argv, &a, &done);
    if (rc == TR_EXIT_OK && !done) rc = run(&c, &a, argc, argv);
    tr_cli_fini(&c);
    tr_buf_fini(&more);
    return rc;
}
