/*
** traceviz: timelines and flame graphs of traces, as PNG, SVG or PDF.
**
**   traceviz INPUT... [--output timeline.png]          one lane per track
**   traceviz INPUT... --kind flame --output flame.svg  merged stack samples
**
** Option names follow GT's gt.scripts.visualize where they overlap (--output,
** --dpi, --width, --height), so its users' command lines work unchanged.
** Drawing is render/'s (tr_render.h); options.c takes the options, this
** file reads the inputs and draws.
*/
#include "traceviz_impl.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void say_drawn(const args *a, const tr_render_stats *st)
{
    if (a->ro.kind == TR_RENDER_TIMELINE)
        fprintf(stderr,
                "traceviz: %s: %dx%d px, %zu lanes (%zu summarised), %zu slices drawn, "
                "%zu merged into busy bars, %zu markers, %zu flows\n",
                a->output, st->width_px, st->height_px, st->lanes, st->lanes_summarised,
                st->slices_drawn, st->slices_merged, st->markers_drawn, st->flows_drawn);
    else if (a->ro.kind >= TR_RENDER_HEATMAP)
        fprintf(stderr, "traceviz: %s: %dx%d px, %zu rows, %zu marks drawn, %zu merged\n",
                a->output, st->width_px, st->height_px, st->lanes, st->markers_drawn,
                st->markers_merged);
    else
        fprintf(stderr, "traceviz: %s: %dx%d px, %llu samples, %zu frames drawn, %zu too narrow\n",
                a->output, st->width_px, st->height_px, (unsigned long long)st->samples,
                st->frames_drawn, st->frames_hidden);
}

/* The picture's format, by --format or the output's name: an exit code. */
static int pick_format(tr_cli *c, args *a)
{
    static const char *const outputs[] = {"timeline.png", "flame.svg", "flame.svg", "heatmap.png",
                                          "access.png",   "ops.png",   "stree.png"};
    if (!a->output) a->output = a->control.len ? "diff.png" : outputs[a->ro.kind];
    if (a->format < 0) a->format = tr_render_format_for_path(a->output);
    if (a->format < 0 && strcmp(a->output, "-") == 0)
        return tr_cli_usage_error(c, "--output - needs --format png, svg or pdf");
    if (a->format < 0)
        return tr_cli_usage_error(c,
                                  "cannot tell the picture format of '%s' (use .png, .svg or "
                                  ".pdf, or --format)",
                                  a->output);
    if (strcmp(a->output, "-") == 0 && a->format != TR_RENDER_SVG && isatty(1)) {
        tr_cli_errorf(c, "refusing to write a %s picture to a terminal",
                      a->format == TR_RENDER_PNG ? "PNG" : "PDF");
        return TR_EXIT_USAGE;
    }
    return TR_EXIT_OK;
}

/* --diff: the bars of tracestat --diff. */
static int run_diff(tr_cli *c, args *a, char **inputs, int n)
{
    tr_trace *ctl = NULL, *test = NULL;
    int rc = tr_cli_load_new(c, a->control.data, a->control.len, &ctl);
    if (rc == TR_EXIT_OK) rc = tr_cli_load_new(c, inputs, (size_t)n, &test);
    tr_stat_opts so;
    tr_stat_opts_init(&so);
    tr_diff d = {0};
    tr_error e = {0};
    tr_render_stats st;
    if (rc == TR_EXIT_OK && (tr_diff_compute(ctl, test, &so, &d, &e) != TR_OK ||
                             tr_render_diff(&d, &a->ro, a->output, a->format, &st, &e) < 0)) {
        tr_cli_error(c, &e);
        rc = e.code == TR_E_USAGE ? TR_EXIT_USAGE : TR_EXIT_DATA;
    } else if (rc == TR_EXIT_OK && c->verbosity >= 2) {
        fprintf(stderr, "traceviz: %s: %dx%d px, %zu rows drawn of %zu that differ\n", a->output,
                st.width_px, st.height_px, st.slices_drawn, d.n);
    }
    tr_diff_fini(&d);
    tr_trace_free(ctl);
    tr_trace_free(test);
    return rc;
}

static int run(tr_cli *c, args *a, char **inputs, int n)
{
    int rc = pick_format(c, a);
    if (rc != TR_EXIT_OK) return rc;
    if (a->control.len) return run_diff(c, a, inputs, n);
    a->ro.ranks = a->ranks;
    a->ro.n_ranks = a->n_ranks;
    /* A flame graph needs only the samples, not slices derived from them. */
    int flame = a->ro.kind == TR_RENDER_FLAME || a->ro.kind == TR_RENDER_ICICLE;
    if (tr_cli_can_stream(c, inputs, (size_t)n, 0)) {
        if (a->ro.kind == TR_RENDER_TIMELINE || flame) {
            tr_render_stats st;
            rc = flame ? tv_stream_flame(c, a, inputs, n, &st)
                       : tv_stream_timeline(c, a, inputs, n, &st);
            if (rc == TR_EXIT_OK && c->verbosity >= 2) say_drawn(a, &st);
            return rc;
        }
        /* The other pictures are drawn from the model: said, since the budget does not hold. */
        if (c->verbosity >= 1)
            fprintf(stderr,
                    "traceviz: the %s picture reads the whole trace into memory, past the "
                    "%llu MiB budget (only timelines and flame graphs are drawn within --memory)\n",
                    tv_kinds[a->ro.kind], (unsigned long long)(tr_cli_memory(c) >> 20));
    }
    tr_trace *t = tr_trace_new();
    if (!t) {
        tr_cli_errorf(c, "out of memory");
        return TR_EXIT_DATA;
    }
    rc = tr_cli_load(c, t, inputs, (size_t)n, flame);
    if (rc == TR_EXIT_OK) {
        tr_error e = {0};
        tr_render_stats st;
        if (tr_render(t, &a->ro, a->output, a->format, &st, &e) < 0) {
            tr_cli_error(c, &e);
            rc = e.code == TR_E_USAGE ? TR_EXIT_USAGE : TR_EXIT_DATA;
        } else if (c->verbosity >= 2) {
            say_drawn(a, &st);
        }
    }
    tr_trace_free(t);
    return rc;
}

int main(int argc, char **argv)
{
    tr_cli c;
    tr_cli_init(&c, "traceviz");
    args a;
    memset(&a, 0, sizeof a);
    tr_render_opts_init(&a.ro);
    tr_vec_init(&a.control, sizeof(char *));
    a.format = -1;
    int done;
    int rc = tv_parse(&c, argc, argv, &a, &done);
    if (rc == TR_EXIT_OK && !done) rc = tr_cli_check_from(&c);
    if (rc == TR_EXIT_OK && !done && optind >= argc) rc = tr_cli_usage_error(&c, "no INPUT given");
    if (rc == TR_EXIT_OK && !done) {
        tr_cli_install_signals();
        rc = run(&c, &a, argv + optind, argc - optind);
        if (rc == TR_EXIT_OK || rc == TR_EXIT_DATA) tr_cli_warning_summary(&c);
    }
    free(a.ranks);
    tr_vec_fini(&a.control);
    tr_cli_fini(&c);
    return rc;
}
