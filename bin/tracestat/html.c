/*
** html.c: tracestat --html FILE, the report as one self-contained page.
**
** The words and tables are lib's (tr_report_html); this file adds the
** pictures, which lib may not draw: render/ draws each into a file of a
** private temporary directory, the file is read back and put in the page as
** a data: URL (base64), and the directory is removed.  An <img> holds a
** still picture; the flame graph keeps its script (click to zoom, search) in
** an <iframe>, whose document is the SVG itself as the script expects.  The
** pictures are drawn at the renderer's level of detail, so their size
** follows the pixels, not the events: the page stays a few MB on a trace of
** millions of records.
*/
#include "tracestat_impl.h"

#include "tr_output.h"
#include "tr_render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The pictures: what each is, how it is drawn and shown. */
typedef struct figure_spec {
    const char *id, *title;
    int kind;   /* enum tr_render_kind */
    int format; /* enum tr_render_format */
    int iframe; /* 1: an <iframe> (the flame graph's script runs), 0: an <img> */
    int after;  /* enum tr_report_section */
    double dpi; /* PNG pixels per inch */
} figure_spec;

static const figure_spec figure_specs[] = {
    {"timeline", "Timeline", TR_RENDER_TIMELINE, TR_RENDER_PNG, 0, TR_REPORT_OPS, 110},
    {"opmix", "Op mix per lane", TR_RENDER_OPS, TR_RENDER_PNG, 0, TR_REPORT_OPS, 110},
    {"flame", "Flame graph (click a frame to zoom, Ctrl-F to search)", TR_RENDER_FLAME,
     TR_RENDER_SVG, 1, TR_REPORT_OPS, 96},
    {"access", "File access (offset against time)", TR_RENDER_ACCESS, TR_RENDER_PNG, 0,
     TR_REPORT_IO, 110},
    {"heatmap", "Heat map", TR_RENDER_HEATMAP, TR_RENDER_PNG, 0, TR_REPORT_IO, 110},
    {"stree", "Where every member is (the stack prefix tree)", TR_RENDER_STREE, TR_RENDER_PNG, 0,
     TR_REPORT_HANGS, 110},
};
#define N_FIGURES (sizeof figure_specs / sizeof figure_specs[0])

static void add_base64(tr_buf *b, const unsigned char *p, size_t n)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    tr_buf_grow(b, (n + 2) / 3 * 4);
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n) v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n) v |= p[i + 2];
        char q[4] = {digits[v >> 18], digits[(v >> 12) & 63],
                     i + 1 < n ? digits[(v >> 6) & 63] : '=', i + 2 < n ? digits[v & 63] : '='};
        tr_buf_add(b, q, 4);
    }
}

/* Reads all of PATH into B: 0, or -1. */
static int slurp(const char *path, tr_buf *b)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    char chunk[65536];
    size_t got;
    int rc = 0;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        if (tr_buf_add(b, chunk, got) != 0) rc = -1;
    if (ferror(f)) rc = -1;
    fclose(f);
    return rc;
}

/*
** Draws figure S of T into DIR and appends it as HTML to OUT: 1 when drawn, 0
** when the trace has nothing to draw (a flame graph without samples), -1 on
** an error (said).
*/
static int draw_figure(tr_cli *c, const tr_trace *t, const figure_spec *s, const char *dir,
                       tr_buf *out)
{
    tr_render_opts o;
    tr_render_opts_init(&o);
    o.kind = s->kind;
    o.dpi = s->dpi;
    o.width_in = 1300 / s->dpi;
    tr_buf path;
    tr_buf_init(&path, 0);
    tr_buf_addf(&path, "%s/%s.%s", dir, s->id, s->format == TR_RENDER_SVG ? "svg" : "png");
    tr_error e = {0};
    tr_render_stats st;
    int rc = 1;
    if (tr_render(t, &o, path.p, s->format, &st, &e) < 0) {
        if (e.code == TR_E_USAGE) {
            rc = 0;
        } else {
            tr_cli_error(c, &e);
            rc = -1;
        }
    }
    tr_buf data;
    tr_buf_init(&data, 0);
    if (rc == 1 && slurp(path.p, &data) < 0) {
        tr_cli_errorf(c, "cannot read back the picture %s", path.p);
        rc = -1;
    }
    if (rc == 1) {
        const char *mime = s->format == TR_RENDER_SVG ? "image/svg+xml" : "image/png";
        if (s->iframe)
            tr_buf_addf(out,
                        "<iframe width=\"%d\" height=\"%d\" title=\"%s\" src=\"data:%s;base64,",
                        st.width_px, st.height_px, s->id, mime);
        else
            tr_buf_addf(out, "<img width=\"%d\" height=\"%d\" alt=\"%s\" src=\"data:%s;base64,",
                        st.width_px, st.height_px, s->id, mime);
        add_base64(out, (const unsigned char *)data.p, data.len);
        tr_buf_adds(out, s->iframe ? "\"></iframe>" : "\">");
    }
    unlink(path.p);
    tr_buf_fini(&data);
    tr_buf_fini(&path);
    return rc;
}

/* The pictures of T into FIGS (their HTML in HTML[]): how many, or -1. */
static int draw_figures(tr_cli *c, const tr_trace *t, tr_report_figure *figs, tr_buf *html)
{
    const char *tmp = getenv("TMPDIR");
    tr_buf dir;
    tr_buf_init(&dir, 0);
    tr_buf_addf(&dir, "%s/tracestat-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir.p)) {
        tr_cli_errorf(c, "cannot make a temporary directory %s", dir.p);
        tr_buf_fini(&dir);
        return -1;
    }
    int n = 0;
    for (size_t i = 0; i < N_FIGURES && n >= 0; i++) {
        const figure_spec *s = &figure_specs[i];
        int rc = draw_figure(c, t, s, dir.p, &html[n]);
        if (rc < 0) n = -1;
        if (rc <= 0) continue;
        figs[n] = (tr_report_figure){s->after, s->id, s->title, html[n].p, html[n].len};
        n++;
    }
    rmdir(dir.p);
    tr_buf_fini(&dir);
    return n;
}

int ts_write_html(tr_cli *c, const tr_trace *t, tr_report *r, const char *path)
{
    tr_report_figure figs[N_FIGURES];
    tr_buf html[N_FIGURES];
    for (size_t i = 0; i < N_FIGURES; i++) tr_buf_init(&html[i], 0);
    int n = draw_figures(c, t, figs, html), rc = TR_EXIT_DATA;
    tr_buf page;
    tr_buf_init(&page, 0);
    tr_error e = {0};
    tr_output *out = NULL;
    if (n >= 0 && tr_report_html(r, figs, (size_t)n, &page, &e) == TR_OK &&
        tr_output_open(&out, path, &e) == TR_OK) {
        if (tr_output_write(out, page.p, page.len, &e) == TR_OK)
            rc = tr_output_commit(out, &e) == TR_OK ? TR_EXIT_OK : TR_EXIT_DATA;
        else
            tr_output_abort(out);
    }
    if (n >= 0 && rc != TR_EXIT_OK) tr_cli_error(c, &e);
    tr_buf_fini(&page);
    for (size_t i = 0; i < N_FIGURES; i++) tr_buf_fini(&html[i]);
    return rc;
}
