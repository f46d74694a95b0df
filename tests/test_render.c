/*
** test_render.c: timelines and flame graphs.  Every sample of testdata/ is
** drawn to PNG, SVG and PDF; the PNG is read back and probed where the layout
** says a slice or an idle gap is; the PDF's text (pdftotext) must hold the lane
** labels and the legend; SVGs must parse as XML (python3).
*/
#include "tr_test.h"
#include "tr_test_png.h"

#include "tr_load.h"
#include "tr_readers.h"
#include "tr_writers.h"
#include "tr_render.h"
#include "tr_mem.h"

#include <cairo.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- helpers ---- */

static int have_tool(const char *name)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", name);
    return system(cmd) == 0;
}

/* PATH loaded and frozen, or NULL when no reader takes it. */
static tr_trace *load(const char *path)
{
    tr_trace *t = tr_trace_new();
    tr_error e;
    if (tr_test_load(t, path, NULL, &e) != TR_OK) {
        tr_trace_free(t);
        return NULL;
    }
    return t;
}

/* Whitespace-free copy of at most MAX bytes: pdftotext breaks and spaces text as it likes. */
static char *squeeze(const char *s, size_t max)
{
    size_t n = strlen(s);
    char *o = malloc(n + 1), *q = o;
    for (size_t i = 0; i < n && (size_t)(q - o) < max; i++)
        if (s[i] != ' ' && s[i] != '\n' && s[i] != '\t' && s[i] != '\f' && s[i] != '\r')
            *q++ = s[i];
    /* Do not end inside a UTF-8 sequence. */
    while (q > o && ((unsigned char)q[-1] & 0xc0) == 0x80) q--;
    if (q > o && (unsigned char)q[-1] >= 0xc0) q--;
    *q = '\0';
    return o;
}

/*
** Whether every SVG that the glob GLOB names under DIR parses as XML.  One
** Python for many files: its start-up dominates, the more so behind a version
** manager's shim.
*/
static int xml_parses(const char *dir, const char *glob)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import sys, xml.dom.minidom as m\n"
             "for p in sys.argv[1:]: m.parse(p)' '%s'/%s",
             dir, glob);
    return system(cmd) == 0;
}

/* ---- probes ---- */

typedef struct probe_result {
    int slices, slices_bad, gaps, gaps_bad;
} probe_result;

static int near_global_instant(const tr_trace *t, const tr_timeline_layout *l, double x)
{
    tr_instants in;
    tr_trace_instants(t, &in);
    for (size_t i = 0; i < in.n; i++)
        if (tr_instant_scope(&in, i) == TR_SCOPE_GLOBAL && fabs(tr_timeline_x(l, in.ts[i]) - x) < 3)
            return 1;
    return 0;
}

/*
** A slice a few pixels wide shows its colour just inside its left edge (left
** of its label) in the middle of its row; the middle of a wide idle gap
** between two top-level slices of a track shows the lane's background.
*/
static void probe(const tr_trace *t, const tr_render_opts *o, const char *png_path, probe_result *r)
{
    memset(r, 0, sizeof *r);
    tr_timeline_layout *l;
    tr_error e = {0};
    CHECK(tr_timeline_layout_new(t, o, &l, &e) == TR_OK);
    png p;
    CHECK(png_open(&p, png_path) == 0);
    double left, right;
    tr_timeline_plot(l, &left, &right);
    tr_slices s;
    tr_trace_slices(t, &s);
    tr_counters cn;
    tr_trace_counters(t, &cn);
    size_t nt = tr_track_count(t);
    uint8_t *counter = calloc(nt + 1, 1);
    size_t *last = malloc((nt + 1) * sizeof *last);
    for (size_t i = 0; i < cn.n; i++) counter[cn.track[i]] = 1;
    for (size_t i = 0; i <= nt; i++) last[i] = SIZE_MAX;
    /* An arrow ends where a slice starts: slices that flows touch are not probed. */
    uint8_t *flowed = calloc(s.n + 1, 1);
    for (uint32_t i = 0; i < tr_flow_count(t); i++) {
        tr_flow f_v;
        tr_flow_get(t, i, &f_v);
        const tr_flow *f = &f_v;
        if (TR_REF_KIND(f->from) == TR_EV_SLICE && TR_REF_ROW(f->from) < s.n)
            flowed[TR_REF_ROW(f->from)] = 1;
        if (TR_REF_KIND(f->to) == TR_EV_SLICE && TR_REF_ROW(f->to) < s.n)
            flowed[TR_REF_ROW(f->to)] = 1;
    }
    for (size_t i = 0; i < s.n && r->slices < 2000; i++) {
        double y0, y1, z0, z1;
        uint32_t bg;
        if (counter[s.track[i]]) continue;
        if (!tr_timeline_row(l, s.track[i], s.depth[i], &y0, &y1, &bg)) continue;
        /* A deeper slice shares the last row: probe only rows of their own. */
        tr_timeline_row(l, s.track[i], s.depth[i] + 1, &z0, &z1, NULL);
        double x0 = tr_timeline_x(l, s.ts[i]), x1 = tr_timeline_x(l, s.ts[i] + tr_slice_dur(&s, i));
        if (s.depth[i] == 0) {
            size_t prev = last[s.track[i]];
            last[s.track[i]] = i;
            double g0 =
                prev == SIZE_MAX ? 0 : tr_timeline_x(l, s.ts[prev] + tr_slice_dur(&s, prev));
            double xm = floor((g0 + x0) / 2);
            if (prev != SIZE_MAX && y1 - y0 >= 6 && x0 - g0 >= 20 && xm > left && xm < right &&
                !near_global_instant(t, l, xm)) {
                r->gaps++;
                int ym = (int)((y0 + y1) / 2);
                uint32_t got = px(&p, (int)xm, ym);
                /* An arrow may cross the gap or run along it: a pixel beside it shows it idle. */
                if (got != bg && tr_flow_count(t) &&
                    (px(&p, (int)xm - 4, ym) == bg || px(&p, (int)xm + 4, ym) == bg ||
                     px(&p, (int)xm, (int)y0 + 2) == bg))
                    got = bg;
                if (got != bg) {
                    r->gaps_bad++;
                    fprintf(stderr, "  %s: gap on track %u at x %.0f: %06x, want %06x\n", png_path,
                            s.track[i], xm, got, bg);
                }
            }
        }
        if (z0 == y0 || x1 - x0 < 6 || y1 - y0 < 6 || x0 < left || x1 > right || flowed[i])
            continue;
        int x = (int)floor(x0) + 1;
        if (near_global_instant(t, l, x)) continue;
        size_t n;
        const char *name = tr_str_get(t, s.name[i], &n);
        uint32_t want = tr_timeline_slice_color(l, i); /* as the legend resolved it */
        uint32_t got = px(&p, x, (int)((y0 + y1) / 2));
        /* Where an arrow crosses the left edge, the right end's top shows the colour too. */
        if (got != want && tr_flow_count(t) && y1 - y0 >= 12 &&
            px(&p, (int)ceil(x1) - 3, (int)floor(y0) + 2) == want)
            got = want;
        r->slices++;
        if (got != want) {
            r->slices_bad++;
            fprintf(stderr, "  %s: slice %zu '%s' at x %d y %.0f: %06x, want %06x\n", png_path, i,
                    name, x, (y0 + y1) / 2, got, want);
        }
    }
    free(counter);
    free(flowed);
    free(last);
    png_close(&p);
    tr_timeline_layout_free(l);
}

/* ---- rendering one sample every way ---- */

static int pdf_has(const char *sample, const char *text, const char *name)
{
    char *want = squeeze(name, 12);
    int ok = !*want || strstr(text, want) != NULL;
    if (!ok) fprintf(stderr, "  %s: the PDF's text lacks '%s'\n", sample, want);
    free(want);
    return ok;
}

static void check_timeline(const char *sample, tr_trace *t, const char *out)
{
    tr_render_opts o;
    tr_render_opts_init(&o);
    o.height_given = 1; /* 16 x 10 in, as asked; test_render_layout checks the automatic height */
    o.dpi = 60;
    tr_error e = {0};
    tr_render_stats st;
    const char *pngp = tr_test_join(out, "t.png"), *svgp = tr_test_join(out, "t.svg");
    const char *pdfp = tr_test_join(out, "t.pdf"), *txtp = tr_test_join(out, "t.txt");
    int rc = tr_render(t, &o, pngp, -1, &st, &e);
    if (rc != TR_OK) fprintf(stderr, "  %s: %s\n", sample, e.msg);
    CHECK(rc == TR_OK);
    png p;
    CHECK(png_open(&p, pngp) == 0);
    CHECK_INT(p.w, 960);
    CHECK_INT(p.h, 600);
    png_close(&p);
    probe_result pr;
    probe(t, &o, pngp, &pr);
    /* Arrows may cross a slice or a gap; without flows every probe must hold. */
    if (tr_flow_count(t) == 0) {
        CHECK_INT(pr.slices_bad, 0);
        CHECK_INT(pr.gaps_bad, 0);
    } else {
        CHECK(pr.slices_bad * 10 <= pr.slices);
        CHECK(pr.gaps_bad * 4 <= pr.gaps);
    }

    CHECK(tr_render(t, &o, svgp, -1, NULL, &e) == TR_OK);
    char *svg = tr_test_slurp(svgp, NULL);
    CHECK(svg && strncmp(svg, "<?xml", 5) == 0);
    CHECK(svg && strstr(svg, "width=\"1152pt\" height=\"720pt\"")); /* 16 x 10 in */
    free(svg); /* render_samples checks that it parses */

    CHECK(tr_render(t, &o, pdfp, -1, NULL, &e) == TR_OK);
    if (!have_tool("pdftotext")) return;
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "pdftotext '%s' '%s'", pdfp, txtp);
    CHECK(system(cmd) == 0);
    char *raw = tr_test_slurp(txtp, NULL);
    CHECK(raw != NULL);
    if (!raw) return;
    char *text = squeeze(raw, SIZE_MAX);
    free(raw);
    tr_timeline_layout *l;
    CHECK(tr_timeline_layout_new(t, &o, &l, &e) == TR_OK);
    /* Every lane label, while lanes are tall enough for all of them, and the legend. */
    double y0, y1;
    for (uint32_t k = 0; k < tr_track_count(t); k++) {
        if (!tr_timeline_row(l, k, 0, &y0, &y1, NULL) || y1 - y0 < 10) continue;
        CHECK(pdf_has(sample, text, tr_str_get(t, tr_track_get(t, k)->name, NULL)));
    }
    for (size_t i = 0; i < tr_timeline_legend_count(l); i++)
        CHECK(pdf_has(sample, text, tr_timeline_legend_name(l, i)));
    CHECK(pdf_has(sample, text, "time from the start"));
    tr_timeline_layout_free(l);
    free(text);
}

/* Every frame's function is in the flame SVG, which parses; the icicle PNG has its size. */
static void check_flame(tr_trace *t, const char *out)
{
    tr_render_opts o;
    tr_render_opts_init(&o);
    o.height_given = 1;
    o.kind = TR_RENDER_FLAME;
    o.min_width_px = 0;
    o.dpi = 60;
    tr_error e = {0};
    tr_render_stats st;
    const char *svgp = tr_test_join(out, "f.svg"), *pngp = tr_test_join(out, "f.png");
    CHECK(tr_render(t, &o, svgp, -1, &st, &e) == TR_OK);
    CHECK(st.frames_drawn > 0);
    char *svg = tr_test_slurp(svgp, NULL);
    CHECK(svg != NULL);
    if (!svg) return;
    CHECK(strstr(svg, "<title>all (") != NULL);
    for (uint32_t i = 0; i < tr_frame_count(t); i++) {
        const char *fn = tr_str_get(t, tr_frame_get(t, i)->function, NULL);
        if (!*fn || strpbrk(fn, "&<>\"") || strspn(fn, " ") == strlen(fn)) continue;
        if (!strstr(svg, fn)) {
            fprintf(stderr, "  flame SVG lacks frame '%s'\n", fn);
            CHECK(0);
        }
    }
    free(svg); /* render_samples checks that it parses */
    o.kind = TR_RENDER_ICICLE;
    CHECK(tr_render(t, &o, pngp, -1, &st, &e) == TR_OK);
    png p;
    CHECK(png_open(&p, pngp) == 0);
    CHECK_INT(p.w, 960);
    CHECK_INT(p.h, 600);
    png_close(&p);
}

/* Files beside the samples that are not traces (Perfetto's expected outputs, notes). */
static int not_a_sample(const char *name)
{
    size_t n = strlen(name);
    return (n > 3 && strcmp(name + n - 3, ".md") == 0) ||
           (n > 3 && strcmp(name + n - 3, ".py") == 0) ||
           (n > 13 && strcmp(name + n - 13, ".expected.txt") == 0);
}

/*
** Renders every sample under DIR: each file is one; a directory is walked,
** unless WHOLE_DIRS says its entries are samples as they are (Recorder's
** rank directories).  Names in SKIP are left out.
*/
static void render_dir(const char *dir, const char *const *skip, int whole_dirs, int *rendered,
                       int *unreadable)
{
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d) return;
    struct dirent *de;
    char **names = NULL;
    size_t n = 0;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' || not_a_sample(de->d_name)) continue;
        int skipped = 0;
        for (size_t i = 0; skip && skip[i]; i++) skipped |= strcmp(de->d_name, skip[i]) == 0;
        if (skipped) continue;
        names = realloc(names, (n + 1) * sizeof *names);
        names[n++] = strdup(de->d_name);
    }
    closedir(d);
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        free(names[i]);
        struct stat sb;
        if (!whole_dirs && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            render_dir(path, NULL, 0, rendered, unreadable);
            continue;
        }
        tr_trace *t = load(path);
        if (!t) {
            fprintf(stderr, "  (not readable, not drawn: %s)\n", path);
            ++*unreadable;
            continue;
        }
        char out[4096];
        snprintf(out, sizeof out, "%s/%d", tr_test_tmpdir(), *rendered);
        mkdir(out, 0755);
        check_timeline(path, t, out);
        tr_samples sm;
        tr_trace_samples(t, &sm);
        if (sm.n && tr_frame_count(t)) check_flame(t, out);
        ++*rendered;
        tr_trace_free(t);
    }
    free(names);
}

static void render_samples(const char *format, const char *const *skip, int whole_dirs)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/testdata/%s", tr_test_srcdir(), format);
    int rendered = 0, unreadable = 0;
    render_dir(dir, skip, whole_dirs, &rendered, &unreadable);
    if (have_tool("python3")) CHECK(xml_parses(tr_test_tmpdir(), "*/*.svg"));
    fprintf(stderr, "%s: %d samples drawn, %d not readable\n", format, rendered, unreadable);
    CHECK(rendered > 0);
    /* The readers take nearly all samples; a few are broken on purpose. */
    CHECK(unreadable * 5 <= rendered);
}

TR_TEST(samples_gt)
{
    render_samples("gt", NULL, 0);
}

TR_TEST(samples_chrome)
{
    render_samples("chrome", NULL, 0);
}

TR_TEST(samples_pyspy)
{
    render_samples("pyspy", NULL, 0);
}

TR_TEST(samples_recorder)
{
    static const char *const skip[] = {"bad", NULL};
    render_samples("recorder", skip, 1);
}

/* ---- colours ---- */

TR_TEST(palette_stable)
{
    CHECK_INT(tr_render_color("matmul", 6), 0xe74c3c);
    CHECK_INT(tr_render_color("MatMul", 6), 0xe74c3c);
    CHECK_INT(tr_render_color("add", 3), 0x3498db);
    CHECK_INT(tr_render_color("relu", 4), 0x27ae60);
    CHECK_INT(tr_render_color("other", 5), 0x7f8c8d);
    /* A family keeps its colour in its worker form; the families differ. */
    CHECK_INT(tr_render_color("BinaryOp", 8), tr_render_color("WorkerBinaryOp", 14));
    CHECK(tr_render_color("BinaryOp", 8) != tr_render_color("UnaryOp", 7));
    CHECK(tr_render_color("BinaryOp", 8) != tr_render_color("MatMul", 6));
    CHECK(tr_render_color("UnaryOp", 7) != tr_render_color("MatMul", 6));
    CHECK(tr_render_color("WorkerBatch", 11) != tr_render_color("BinaryOp", 8));
    /* Any other name: a fixed palette entry, the same every time. */
    CHECK_INT(tr_render_color("MPI_File_open", 13), tr_render_color("MPI_File_open", 13));
    CHECK(tr_render_color("read", 4) != tr_render_color("write", 5));
    uint32_t f = tr_render_flame_color("main", 4);
    CHECK_INT(f, tr_render_flame_color("main", 4));
    CHECK(((f >> 16) & 0xff) >= 205 && (f & 0xff) <= 55);
}

TR_TEST(format_for_path)
{
    CHECK_INT(tr_render_format_for_path("a.png"), TR_RENDER_PNG);
    CHECK_INT(tr_render_format_for_path("dir.x/A.PNG"), TR_RENDER_PNG);
    CHECK_INT(tr_render_format_for_path("t.svg"), TR_RENDER_SVG);
    CHECK_INT(tr_render_format_for_path("t.pdf"), TR_RENDER_PDF);
    CHECK_INT(tr_render_format_for_path("t.jpg"), -1);
    CHECK_INT(tr_render_format_for_path("dir.png/t"), -1);
}

/* ---- hand-made traces ---- */

static uint32_t one_track(tr_trace *t, const char *name)
{
    uint32_t in = tr_input_add(t, "made", "test");
    uint32_t p = tr_process_intern(t, in, 1);
    return tr_track_intern(t, p, TR_TRACK_THREAD, 1, tr_str_internz(t, name));
}

/* A window of the GT sample with the most idle time: every probe holds, gaps are found. */
TR_TEST(timeline_gt_probes)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/testdata/gt/gt-mlp-4workers-autoshard.log", tr_test_srcdir());
    tr_trace *t = load(path);
    CHECK(t != NULL);
    if (!t) return;
    tr_render_opts o;
    tr_render_opts_init(&o);
    o.height_given = 1;
    o.since = 200000000;
    o.until = 260000000;
    o.has_since = o.has_until = 1;
    const char *png_path = tr_test_tmp("gt-window.png");
    tr_render_stats st;
    tr_error e = {0};
    CHECK(tr_render(t, &o, png_path, -1, &st, &e) == TR_OK);
    CHECK_INT(st.width_px, 2400);
    CHECK_INT(st.height_px, 1500);
    CHECK_INT(st.lanes, 5); /* four workers and the busy client in this window */
    probe_result r;
    probe(t, &o, png_path, &r);
    CHECK(r.slices >= 30);
    CHECK_INT(r.slices_bad, 0);
    CHECK(r.gaps >= 10);
    CHECK_INT(r.gaps_bad, 0);
    tr_trace_free(t);
}

/* Level of detail: a million slices narrower than a pixel become busy bars. */
TR_TEST(timeline_lod)
{
    tr_trace *t = tr_trace_new();
    uint32_t tk = one_track(t, "busy");
    tr_str name = tr_str_internz(t, "tick");
    /* 100 ns busy out of every 400: a quarter of the time, over 0.4 s. */
    for (int64_t i = 0; i < 1000000; i++) tr_slice_add(t, tk, i * 400, 100, name, 0, -1, 0);
    tr_error e = {0};
    CHECK(tr_trace_freeze(t, &e) == TR_OK);
    tr_render_opts o;
    tr_render_opts_init(&o);
    tr_render_stats st;
    const char *png_path = tr_test_tmp("lod.png");
    CHECK(tr_render(t, &o, png_path, -1, &st, &e) == TR_OK);
    CHECK_INT(st.slices_merged, 1000000);
    CHECK_INT(st.slices_drawn, 0);
    tr_timeline_layout *l;
    CHECK(tr_timeline_layout_new(t, &o, &l, &e) == TR_OK);
    double y0 = 0, y1 = 0;
    uint32_t bg = 0;
    CHECK(tr_timeline_row(l, tk, 0, &y0, &y1, &bg));
    png p;
    CHECK(png_open(&p, png_path) == 0);
    int x = (int)tr_timeline_x(l, 200000000);
    /* The bar is as tall as the row is busy: coloured at the bottom, background above. */
    CHECK_INT(px(&p, x, (int)y1 - 2), tr_render_color("tick", 4));
    CHECK_INT(px(&p, x, (int)y0 + 2), bg);
    CHECK_INT(px(&p, x, (int)(y0 + (y1 - y0) * 0.6)), bg);
    png_close(&p);
    tr_timeline_layout_free(l);
    tr_trace_free(t);
}

/* A thousand lanes fit; past what fits, the rest are summarised in one lane. */
TR_TEST(timeline_many_lanes)
{
    for (int round = 0; round < 2; round++) {
        int lanes = round ? 3000 : 1000;
        tr_trace *t = tr_trace_new();
        uint32_t in = tr_input_add(t, "made", "test");
        uint32_t p = tr_process_intern(t, in, 1);
        for (int i = 0; i < lanes; i++) {
            char name[32];
            snprintf(name, sizeof name, "thread %d", i);
            uint32_t tk = tr_track_intern(t, p, TR_TRACK_THREAD, i, tr_str_internz(t, name));
            tr_slice_add(t, tk, i * 1000, 500000, tr_str_internz(t, "work"), 0, -1, 0);
        }
        tr_error e = {0};
        CHECK(tr_trace_freeze(t, &e) == TR_OK);
        tr_render_opts o;
        tr_render_opts_init(&o);
        tr_render_stats st;
        const char *pdf = tr_test_tmp("lanes.pdf");
        CHECK(tr_render(t, &o, tr_test_tmp("lanes.png"), -1, &st, &e) == TR_OK);
        if (round == 0) {
            CHECK_INT(st.lanes, 1000);
            CHECK_INT(st.lanes_summarised, 0);
        } else {
            CHECK(st.lanes_summarised > 1000);
            CHECK_INT(st.lanes + st.lanes_summarised - 1, 3000);
            CHECK(tr_render(t, &o, pdf, -1, &st, &e) == TR_OK);
            if (have_tool("pdftotext")) {
                char cmd[8192], want[64];
                snprintf(want, sizeof want, "+%zu lanes", st.lanes_summarised);
                snprintf(cmd, sizeof cmd, "pdftotext '%s' - | grep -q -- '%s'", pdf, want);
                CHECK(system(cmd) == 0);
                snprintf(cmd, sizeof cmd, "pdftotext '%s' - | grep -q 'summarised in one'", pdf);
                CHECK(system(cmd) == 0);
            }
        }
        tr_trace_free(t);
    }
}

TR_TEST(timeline_counters_flows_markers)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "made", "test");
    uint32_t p = tr_process_intern(t, in, 1);
    uint32_t a = tr_track_intern(t, p, TR_TRACK_THREAD, 1, tr_str_internz(t, "a"));
    uint32_t b = tr_track_intern(t, p, TR_TRACK_THREAD, 2, tr_str_internz(t, "b"));
    uint32_t c = tr_track_intern(t, p, TR_TRACK_COUNTER, -1, tr_str_internz(t, "memory"));
    tr_str op = tr_str_internz(t, "op");
    uint32_t s1 = tr_slice_add(t, a, 0, 100000000, op, 0, -1, 0);
    uint32_t s2 = tr_slice_add(t, b, 500000000, 100000000, op, 0, -1, 0);
    tr_flow f = {.from = TR_REF(TR_EV_SLICE, s1), .to = TR_REF(TR_EV_SLICE, s2), .id = 1};
    for (int i = 0; i < 100; i++) tr_flow_add(t, &f); /* the same arrow, drawn once */
    /* Ten thousand markers on one lane collapse to at most one per pixel column. */
    tr_str recv = tr_str_internz(t, "RECV");
    for (int i = 0; i < 10000; i++) tr_instant_add(t, a, i * 100000, recv, 0, 0, i, 0);
    tr_counter_add(t, c, 0, 0);
    tr_counter_add(t, c, 300000000, 10);
    tr_counter_add(t, c, 700000000, 5);
    tr_error e = {0};
    CHECK(tr_trace_freeze(t, &e) == TR_OK);
    tr_render_opts o;
    tr_render_opts_init(&o);
    tr_render_stats st;
    const char *png_path = tr_test_tmp("mixed.png");
    CHECK(tr_render(t, &o, png_path, -1, &st, &e) == TR_OK);
    CHECK_INT(st.flows_drawn, 1);
    CHECK_INT(st.lanes, 3);
    CHECK(st.markers_drawn > 100 && st.markers_drawn < 3000);
    CHECK_INT(st.markers_drawn + st.markers_merged, 10000);
    tr_timeline_layout *l;
    CHECK(tr_timeline_layout_new(t, &o, &l, &e) == TR_OK);
    double y0 = 0, y1 = 0;
    uint32_t bg = 0;
    CHECK(tr_timeline_row(l, c, 0, &y0, &y1, &bg));
    png pic;
    CHECK(png_open(&pic, png_path) == 0);
    /* The step plot: nothing while the value is 0, filled near the bottom after the rise. */
    CHECK_INT(px(&pic, (int)tr_timeline_x(l, 150000000), (int)y1 - 3), bg);
    CHECK(px(&pic, (int)tr_timeline_x(l, 500000000), (int)y1 - 3) != bg);
    png_close(&pic);
    tr_timeline_layout_free(l);
    tr_trace_free(t);
}

TR_TEST(timeline_window_and_filters)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "made", "test");
    uint32_t p0 = tr_process_intern(t, in, 10), p1 = tr_process_intern(t, in, 11);
    tr_process_at(t, p0)->rank = 0;
    tr_process_at(t, p1)->rank = 1;
    uint32_t a = tr_track_intern(t, p0, TR_TRACK_THREAD, 1, tr_str_internz(t, "main"));
    uint32_t b = tr_track_intern(t, p1, TR_TRACK_THREAD, 1, tr_str_internz(t, "main"));
    uint32_t c = tr_track_intern(t, p1, TR_TRACK_THREAD, 2, tr_str_internz(t, "io"));
    for (int i = 0; i < 10; i++) {
        tr_slice_add(t, a, i * 1000000000LL, 500000000, tr_str_internz(t, "step"), 0, -1, 0);
        tr_slice_add(t, b, i * 1000000000LL, 500000000, tr_str_internz(t, "step"), 0, -1, 0);
        tr_slice_add(t, c, i * 1000000000LL, 100000000, tr_str_internz(t, "read"), 0, -1, 0);
    }
    tr_error e = {0};
    CHECK(tr_trace_freeze(t, &e) == TR_OK);
    tr_render_opts o;
    tr_render_opts_init(&o);
    o.since = 2000000000;
    o.until = 4000000000;
    o.has_since = o.has_until = 1;
    tr_render_stats st;
    const char *w = tr_test_tmp("w.png");
    CHECK(tr_render(t, &o, w, -1, &st, &e) == TR_OK);
    CHECK_INT(st.lanes, 3);
    /* The slices at 2 s, 3 s and the one starting at 4 s, on three lanes. */
    CHECK_INT(st.slices_drawn + st.slices_merged, 9);
    tr_timeline_layout *l;
    CHECK(tr_timeline_layout_new(t, &o, &l, &e) == TR_OK);
    double left, right;
    tr_timeline_plot(l, &left, &right);
    CHECK(fabs(tr_timeline_x(l, 2000000000) - left) < 1e-6);
    CHECK(fabs(tr_timeline_x(l, 4000000000) - right) < 1e-6);
    tr_timeline_layout_free(l);
    int32_t ranks[] = {1};
    o.ranks = ranks;
    o.n_ranks = 1;
    CHECK(tr_render(t, &o, w, -1, &st, &e) == TR_OK);
    CHECK_INT(st.lanes, 2);
    o.tracks = "io";
    CHECK(tr_render(t, &o, w, -1, &st, &e) == TR_OK);
    CHECK_INT(st.lanes, 1);
    o.n_ranks = 0;
    o.tracks = "*/main"; /* process/track */
    CHECK(tr_render(t, &o, w, -1, &st, &e) == TR_OK);
    CHECK_INT(st.lanes, 2);
    tr_trace_free(t);
}

/*
** Samples by hand: main;foo;bar x3, main;foo;baz x1, main;qux x2 on one
** thread, main;qux x4 on another.
*/
static tr_trace *flame_trace(void)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "made", "test");
    uint32_t p = tr_process_intern(t, in, 1);
    uint32_t t0 = tr_track_intern(t, p, TR_TRACK_THREAD, 1, tr_str_internz(t, "MainThread"));
    uint32_t t1 = tr_track_intern(t, p, TR_TRACK_THREAD, 2, tr_str_internz(t, "worker"));
    const char *names[] = {"main", "foo", "bar", "baz", "qux"};
    uint32_t fr[5];
    for (int i = 0; i < 5; i++) {
        tr_frame f = {.function = tr_str_internz(t, names[i]),
                      .file = tr_str_internz(t, i == 4 ? "q.py" : "app.py"),
                      .line = 10 + i};
        fr[i] = tr_frame_intern(t, &f);
    }
    uint32_t m = tr_stack_push(t, 0, fr[0]);
    uint32_t mf = tr_stack_push(t, m, fr[1]);
    uint32_t bar = tr_stack_push(t, mf, fr[2]), baz = tr_stack_push(t, mf, fr[3]);
    uint32_t qux = tr_stack_push(t, m, fr[4]);
    int64_t ts = 0;
    for (int i = 0; i < 3; i++) tr_sample_add(t, t0, ts++, bar, 0);
    tr_sample_add(t, t0, ts++, baz, 0);
    for (int i = 0; i < 2; i++) tr_sample_add(t, t0, ts++, qux, 0);
    for (int i = 0; i < 4; i++) tr_sample_add(t, t1, ts++, qux, 0);
    tr_error e = {0};
    tr_trace_freeze(t, &e);
    return t;
}

/* The x of the frame whose title starts with TITLE in an SVG, or -1. */
static double svg_frame_x(const char *svg, const char *title)
{
    char want[256];
    snprintf(want, sizeof want, "<title>%s", title);
    const char *p = strstr(svg, want);
    if (!p) return -1;
    p = strstr(p, "<rect x=\"");
    return p ? atof(p + 9) : -1;
}

TR_TEST(flame_handmade)
{
    tr_trace *t = flame_trace();
    tr_render_opts o;
    tr_render_opts_init(&o);
    o.kind = TR_RENDER_FLAME;
    tr_render_stats st;
    tr_error e = {0};
    const char *svgp = tr_test_tmp("flame.svg");
    CHECK(tr_render(t, &o, svgp, -1, &st, &e) == TR_OK);
    CHECK_INT(st.samples, 10);
    CHECK_INT(st.frames_drawn, 6); /* all, main, foo, bar, baz, qux */
    char *svg = tr_test_slurp(svgp, NULL);
    CHECK(strstr(svg, "<title>all (10 samples, 100.00%)</title>"));
    CHECK(strstr(svg, "<title>main (app.py:10) (10 samples, 100.00%)</title>"));
    CHECK(strstr(svg, "<title>foo (app.py:11) (4 samples, 40.00%)</title>"));
    CHECK(strstr(svg, "<title>bar (app.py:12) (3 samples, 30.00%)</title>"));
    CHECK(strstr(svg, "<title>baz (app.py:13) (1 sample, 10.00%)</title>"));
    CHECK(strstr(svg, "<title>qux (q.py:14) (6 samples, 60.00%)</title>"));
    /* Siblings in alphabetical order, whatever their size. */
    CHECK(svg_frame_x(svg, "foo") < svg_frame_x(svg, "qux"));
    CHECK(svg_frame_x(svg, "bar") < svg_frame_x(svg, "baz"));
    /* Interactive: zoom, search, a title per frame. */
    CHECK(strstr(svg, "function zoom(") && strstr(svg, "function search(") &&
          strstr(svg, "onclick=\"search_prompt()\"") && strstr(svg, "Reset Zoom"));
    free(svg);
    if (have_tool("python3")) CHECK(xml_parses(tr_test_tmpdir(), "flame.svg"));

    /* The callee view: leaves at the root. */
    o.reverse = 1;
    CHECK(tr_render(t, &o, svgp, -1, &st, &e) == TR_OK);
    svg = tr_test_slurp(svgp, NULL);
    CHECK(strstr(svg, "<title>qux (q.py:14) (6 samples, 60.00%)</title>"));
    CHECK(strstr(svg, "<title>bar (app.py:12) (3 samples, 30.00%)</title>"));
    CHECK(strstr(svg, "<title>main (app.py:10) (6 samples, 60.00%)</title>")); /* under qux */
    CHECK(strstr(svg, "(callee view)"));
    free(svg);

    /* Per thread: a root frame each; the lane filter and the window apply. */
    o.reverse = 0;
    o.per_thread = 1;
    CHECK(tr_render(t, &o, svgp, -1, &st, &e) == TR_OK);
    svg = tr_test_slurp(svgp, NULL);
    CHECK(strstr(svg, "<title>MainThread (6 samples, 60.00%)</title>"));
    CHECK(strstr(svg, "<title>worker (4 samples, 40.00%)</title>"));
    free(svg);
    o.tracks = "worker";
    CHECK(tr_render(t, &o, svgp, -1, &st, &e) == TR_OK);
    CHECK_INT(st.samples, 4);
    o.tracks = NULL;
    o.has_until = 1;
    o.until = 2;
    CHECK(tr_render(t, &o, svgp, -1, &st, &e) == TR_OK);
    CHECK_INT(st.samples, 3);
    o.has_until = 0;
    o.per_thread = 0;

    /* PNG: the root spans the width at the bottom (flame) or the top (icicle). */
    const char *pngp = tr_test_tmp("flame.png");
    uint32_t root = tr_render_flame_color("all", 3);
    o.height_given = 1;
    for (int kind = TR_RENDER_FLAME; kind <= TR_RENDER_ICICLE; kind++) {
        o.kind = kind;
        CHECK(tr_render(t, &o, pngp, -1, &st, &e) == TR_OK);
        png p;
        CHECK(png_open(&p, pngp) == 0);
        int hits = 0, y_hit = -1;
        for (int y = 0; y < p.h; y++) {
            int row = 0;
            for (int x = 0; x < p.w; x += 10) row += px(&p, x, y) == root;
            if (row >= p.w / 10 - 4) {
                hits++;
                if (y_hit < 0) y_hit = y;
            }
        }
        CHECK(hits >= 5);
        if (kind == TR_RENDER_FLAME)
            CHECK(y_hit > p.h / 2);
        else
            CHECK(y_hit < p.h / 4);
        png_close(&p);
    }
    /* By module: the file's colour in the categorical palette. */
    o.color_by = TR_FLAME_BY_MODULE;
    o.kind = TR_RENDER_FLAME;
    CHECK(tr_render(t, &o, svgp, -1, &st, &e) == TR_OK);
    svg = tr_test_slurp(svgp, NULL);
    char want[32];
    snprintf(want, sizeof want, "fill=\"#%06x\"", (unsigned)tr_render_color("q.py", 4));
    CHECK(strstr(svg, want));
    free(svg);
    tr_trace_free(t);
}

TR_TEST(errors)
{
    tr_trace *t = flame_trace();
    tr_render_opts o;
    tr_render_opts_init(&o);
    tr_error e = {0};
    const char *bad = tr_test_tmp("t.jpg");
    CHECK(tr_render(t, &o, bad, -1, NULL, &e) < 0);
    CHECK_INT(e.code, TR_E_USAGE);
    CHECK(access(bad, F_OK) != 0);
    CHECK(tr_render(t, &o, "/nonexistent-dir/t.png", -1, NULL, &e) < 0);
    CHECK_INT(e.code, TR_E_IO);
    o.has_since = o.has_until = 1;
    o.since = 5;
    o.until = 5;
    CHECK(tr_render(t, &o, tr_test_tmp("w.png"), -1, NULL, &e) < 0);
    CHECK_INT(e.code, TR_E_USAGE);
    tr_trace_free(t);

    /* A flame graph of a trace without samples is a usage error, and leaves no file. */
    tr_trace *u = tr_trace_new();
    tr_slice_add(u, one_track(u, "x"), 0, 10, tr_str_internz(u, "s"), 0, -1, 0);
    tr_trace_freeze(u, &e);
    tr_render_opts_init(&o);
    o.kind = TR_RENDER_FLAME;
    const char *f = tr_test_tmp("none.svg");
    CHECK(tr_render(u, &o, f, -1, NULL, &e) < 0);
    CHECK_INT(e.code, TR_E_USAGE);
    CHECK(strstr(e.msg, "no stack samples") != NULL);
    CHECK(access(f, F_OK) != 0);
    tr_trace_free(u);
    /* An empty trace still draws: an empty timeline. */
    tr_trace *empty = tr_trace_new();
    tr_trace_freeze(empty, &e);
    tr_render_opts_init(&o);
    CHECK(tr_render(empty, &o, tr_test_tmp("empty.png"), -1, NULL, &e) == TR_OK);
    tr_trace_free(empty);
}

/* Names that are not UTF-8 or hold XML's specials still make a valid SVG and PDF. */
TR_TEST(flame_hostile_names)
{
    tr_trace *t = tr_trace_new();
    uint32_t tk = one_track(t, "t");
    const char *names[] = {"a<b>&\"c\"", "bad\xff\xfeutf8", "tab\tand\x01ctl", "\xc3\xa9t\xc3\xa9"};
    uint32_t stack = 0;
    for (int i = 0; i < 4; i++) {
        tr_frame f = {.function = tr_str_internz(t, names[i])};
        stack = tr_stack_push(t, stack, tr_frame_intern(t, &f));
        tr_sample_add(t, tk, i, stack, 0);
    }
    tr_error e = {0};
    tr_trace_freeze(t, &e);
    tr_render_opts o;
    tr_render_opts_init(&o);
    o.kind = TR_RENDER_FLAME;
    const char *svgp = tr_test_tmp("hostile.svg");
    CHECK(tr_render(t, &o, svgp, -1, NULL, &e) == TR_OK);
    char *svg = tr_test_slurp(svgp, NULL);
    CHECK(strstr(svg, "a&lt;b&gt;&amp;&quot;c&quot;"));
    CHECK(strstr(svg, "\xc3\xa9t\xc3\xa9"));
    CHECK(strstr(svg, "bad??utf8"));
    free(svg);
    if (have_tool("python3")) CHECK(xml_parses(tr_test_tmpdir(), "hostile.svg"));
    CHECK(tr_render(t, &o, tr_test_tmp("hostile.pdf"), -1, NULL, &e) == TR_OK);
    tr_trace_free(t);
}

/* ---- out of memory ---- */

/* A picture of T as O asks, at OUT, allocation FAIL failing alone (0: none). */
typedef struct render_once {
    const tr_trace *t;
    const tr_render_opts *o;
    const char *out;
    uint64_t fail;
    int rc;
} render_once;

static void *render_once_run(void *p)
{
    render_once *ro = p;
    tr_error e = {0};
    tr_render_stats st;
    tr_alloc_fail_once(ro->fail);
    ro->rc = tr_render(ro->t, ro->o, ro->out, -1, &st, &e);
    tr_alloc_fail_after(0);
    return NULL;
}

/* A picture of T at GOT, compared with WANT (WANT_N bytes), one drawn without failures. */
typedef struct render_case {
    const tr_trace *t;
    const tr_render_opts *o;
    const char *name, *got, *want;
    size_t want_n;
} render_case;

static int render_failing(void *user, uint64_t n)
{
    const render_case *c = user;
    render_once ro = {c->t, c->o, c->got, n, TR_OK};
    render_once_run(&ro);
    if (ro.rc != TR_OK) {
        CHECK(access(c->got, F_OK) != 0);
    } else {
        int same = tr_test_file_is(c->got, c->want, c->want_n);
        if (!same)
            fprintf(stderr, "  %s: allocation %llu failed, the picture differs\n", c->name,
                    (unsigned long long)n);
        CHECK(same);
    }
    remove(c->got);
    return ro.rc != TR_OK;
}

/*
** Each allocation of a timeline and of a flame graph fails in turn, alone:
** the picture fails and no file is left, or it is the one drawn without
** failures, to the byte.
*/
TR_TEST(no_silent_loss_out_of_memory)
{
    static const char *const ins[] = {
        "testdata/gt/gt-tiny-visualize_demo-1worker.log",
        "testdata/chrome/catapult/async_begin_end.json",
        "testdata/pyspy/10_sglang17941_native_watchdog_interleaved_partial.txt",
    };
    for (size_t k = 0; k < sizeof ins / sizeof ins[0]; k++) {
        tr_trace *t = load(tr_test_join(tr_test_srcdir(), ins[k]));
        CHECK(t != NULL);
        if (!t) continue;
        for (int kind = 0; kind < 2; kind++) {
            tr_render_opts o;
            tr_render_opts_init(&o);
            o.height_given = 1;
            o.dpi = 30;
            o.kind = kind ? TR_RENDER_FLAME : TR_RENDER_TIMELINE;
            tr_samples sm;
            tr_trace_samples(t, &sm);
            if (kind && !sm.n) continue;
            /* cairo's SVG numbers its glyphs and surfaces process-wide: the timeline as PNG */
            const char *ext = kind ? "svg" : "png";
            char ref[2048], got[2048];
            snprintf(ref, sizeof ref, "%s/oom-%zu-%d-ref.%s", tr_test_tmpdir(), k, kind, ext);
            snprintf(got, sizeof got, "%s/oom-%zu-%d.%s", tr_test_tmpdir(), k, kind, ext);
            render_once whole = {t, &o, ref, 0, TR_OK};
            render_once_run(&whole);
            CHECK_INT(whole.rc, TR_OK);
            render_case c = {t, &o, ins[k], got, NULL, 0};
            char *want = tr_test_slurp(ref, &c.want_n);
            CHECK(want != NULL);
            if (!want) continue;
            c.want = want;
            CHECK(tr_test_each_alloc_failing(render_failing, &c, 60, 20000) > 0);
            free(want);
        }
        tr_trace_free(t);
    }
}
