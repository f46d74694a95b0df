/*
** test_render_layout.c: what pictures hold where.  On a handful of samples
** of every kind (GT, Recorder, Chrome/Kineto, py-spy timelines and flame
** graphs): the picture is at most 15 % empty, no two legend entries share a
** colour, no two label boxes overlap.  Then hand-made traces for each rule
** (deep nesting, thin lanes, legend clashes and columns, inputs far apart,
** stacks cut), and the PNG writer decoded by python3 on its own.
**
** Empty, precisely: a pixel row of the picture is empty when no part of the
** layout (tr_timeline_part / tr_flame_part: the title line, the subtitle or
** a warning line, a lane with its header, a level of flame frames holding a
** frame, the axis, the legend, the SVG's details line) covers it.  Every
** part is checked to hold ink in the PNG (a non-white pixel), so a part
** cannot claim rows it leaves blank.
*/
#include "tr_test.h"
#include "tr_test_png.h"

#include "tr_align.h"
#include "tr_load.h"
#include "tr_readers.h"
#include "tr_render.h"

#include <cairo.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>

#define BLANK_MAX 0.15

/* ---- helpers ---- */

static const char *src_path(const char *rel)
{
    static char buf[4][4096];
    static int k;
    char *p = buf[k++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", tr_test_srcdir(), rel);
    return p;
}

static const char *tmp_path(const char *name)
{
    static char buf[4][4096];
    static int k;
    char *p = buf[k++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", tr_test_tmpdir(), name);
    return p;
}

static tr_trace *load(const char *path)
{
    tr_trace *t = tr_trace_new();
    tr_diag diag = {0};
    tr_load_opts lo = {.readers = tr_readers, .read = {.diag = &diag}};
    tr_error e = {0};
    if (tr_load(t, path, &lo, &e) < 0 || tr_trace_freeze(t, &e) < 0) {
        fprintf(stderr, "  cannot load %s: %s\n", path, e.msg);
        tr_trace_free(t);
        return NULL;
    }
    return t;
}

/* ^1 when some pixel of rows [Y0, Y1) and columns [X0, X1) is not white. */
static int has_ink(const png *p, double x0, double y0, double x1, double y1)
{
    for (int y = (int)floor(y0); y < (int)ceil(y1) && y < p->h; y++)
        for (int x = (int)fmax(0, floor(x0)); x < (int)ceil(x1) && x < p->w; x++)
            if (px(p, x, y) != 0xffffff) return 1;
    return 0;
}

/* The share of H rows no box covers. */
static double blank_share(const tr_render_box *boxes, size_t n, int h)
{
    uint8_t *covered = calloc((size_t)h + 1, 1);
    for (size_t i = 0; i < n; i++)
        for (int y = (int)floor(boxes[i].y0); y < (int)ceil(boxes[i].y1) && y < h; y++)
            if (y >= 0 && boxes[i].y1 > boxes[i].y0) covered[y] = 1;
    int empty = 0;
    for (int y = 0; y < h; y++) empty += !covered[y];
    free(covered);
    return h ? (double)empty / h : 0;
}

static int boxes_overlap(const tr_render_box *a, const tr_render_box *b)
{
    return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

static int box_cmp(const void *pa, const void *pb)
{
    const tr_render_box *a = pa, *b = pb;
    return a->x0 < b->x0 ? -1 : a->x0 > b->x0;
}

/* ^How many pairs of boxes overlap (a sweep by left edge). */
static size_t overlaps(tr_render_box *b, size_t n, const char *what)
{
    qsort(b, n, sizeof *b, box_cmp);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n && b[j].x0 < b[i].x1; j++)
            if (boxes_overlap(&b[i], &b[j])) {
                if (bad++ < 3)
                    fprintf(stderr,
                            "  %s: labels overlap: [%.1f,%.1f]x[%.1f,%.1f] and "
                            "[%.1f,%.1f]x[%.1f,%.1f]\n",
                            what, b[i].x0, b[i].x1, b[i].y0, b[i].y1, b[j].x0, b[j].x1, b[j].y0,
                            b[j].y1);
            }
    return bad;
}

/* ---- the three rules on one picture ---- */

/* Every part holds ink; the blank share is at most BLANK_MAX. */
static void check_parts(const char *what, const tr_render_box *parts, size_t n, int w, int h,
                        const char *png_path)
{
    png p;
    CHECK(png_open(&p, png_path) == 0);
    CHECK_INT(p.w, w);
    CHECK_INT(p.h, h);
    for (size_t i = 0; i < n; i++) {
        if (parts[i].y1 <= parts[i].y0) continue;
        if (!has_ink(&p, parts[i].x0, parts[i].y0, parts[i].x1, parts[i].y1)) {
            fprintf(stderr, "  %s: part %zu (kind %d, rows %.0f-%.0f) is blank\n", what, i,
                    parts[i].kind, parts[i].y0, parts[i].y1);
            CHECK(0);
        }
    }
    png_close(&p);
    double blank = blank_share(parts, n, h);
    fprintf(stderr, "  %s: %d x %d, %.1f %% empty\n", what, w, h, blank * 100);
    CHECK(blank <= BLANK_MAX);
}

static void check_timeline(const char *what, const tr_trace *t, const tr_render_opts *o)
{
    tr_timeline_layout *l;
    tr_error e = {0};
    CHECK(tr_timeline_layout_new(t, o, &l, &e) == TR_OK);
    if (!l) return;
    int w, h;
    tr_timeline_size(l, &w, &h);
    CHECK(h <= (int)lround(o->height_in * o->dpi));
    size_t n = tr_timeline_part_count(l);
    tr_render_box *parts = calloc(n + 1, sizeof *parts);
    for (size_t i = 0; i < n; i++) CHECK(tr_timeline_part(l, i, &parts[i]));
    CHECK(!tr_timeline_part(l, n, &parts[n]));
    /* The legend: no two entries of one colour. */
    size_t ln = tr_timeline_legend_count(l);
    for (size_t i = 0; i < ln; i++)
        for (size_t j = i + 1; j < ln; j++)
            if (tr_timeline_legend_color(l, i) == tr_timeline_legend_color(l, j)) {
                fprintf(stderr, "  %s: '%s' and '%s' share %06x\n", what,
                        tr_timeline_legend_name(l, i), tr_timeline_legend_name(l, j),
                        (unsigned)tr_timeline_legend_color(l, i));
                CHECK(0);
            }
    size_t nl = tr_timeline_label_count(l);
    tr_render_box *labels = calloc(nl + 1, sizeof *labels);
    for (size_t i = 0; i < nl; i++) CHECK(tr_timeline_label_box(l, i, &labels[i]));
    CHECK_INT(overlaps(labels, nl, what), 0);
    const char *out = tmp_path("layout.png");
    tr_render_stats st;
    CHECK(tr_render(t, o, out, -1, &st, &e) == TR_OK);
    CHECK_INT(st.height_px, h);
    check_parts(what, parts, n, w, h, out);
    free(labels);
    free(parts);
    tr_timeline_layout_free(l);
}

static void check_flame(const char *what, const tr_trace *t, const tr_render_opts *o)
{
    tr_flame_layout *l;
    tr_error e = {0};
    CHECK(tr_flame_layout_new(t, o, TR_RENDER_PNG, &l, &e) == TR_OK);
    if (!l) return;
    int w, h;
    tr_flame_size(l, &w, &h);
    CHECK(h <= (int)lround(o->height_in * o->dpi));
    size_t n = tr_flame_part_count(l);
    tr_render_box *parts = calloc(n + 1, sizeof *parts);
    for (size_t i = 0; i < n; i++) CHECK(tr_flame_part(l, i, &parts[i]));
    const char *out = tmp_path("flame.png");
    CHECK(tr_render(t, o, out, -1, NULL, &e) == TR_OK);
    check_parts(what, parts, n, w, h, out);
    free(parts);
    tr_flame_layout_free(l);
}

static void opts(tr_render_opts *o, int kind)
{
    tr_render_opts_init(o);
    o->kind = kind;
    o->dpi = 75;
}

/* ---- samples of every kind ---- */

static void sample(const char *rel, int flame)
{
    tr_trace *t = load(src_path(rel));
    CHECK(t != NULL);
    if (!t) return;
    tr_render_opts o;
    opts(&o, TR_RENDER_TIMELINE);
    check_timeline(rel, t, &o);
    if (flame) {
        opts(&o, TR_RENDER_FLAME);
        check_flame(rel, t, &o);
        o.kind = TR_RENDER_ICICLE;
        o.per_thread = 1;
        check_flame(rel, t, &o);
    }
    tr_trace_free(t);
}

TR_TEST(samples_gt)
{
    sample("testdata/gt/gt-mlp-4workers-autoshard.log", 0);
    sample("testdata/gt/gt-server-2workers.log", 0);
    sample("testdata/gt/gt-tiny-visualize_demo-1worker.log", 0);
    sample("testdata/gt/gt-trace-capture-2workers.log", 0);
    sample("testdata/gt/legacy/gt-4a97ec6-mlp-1worker.log", 0);
}

TR_TEST(samples_recorder)
{
    sample("testdata/recorder/iomix-1r", 0);
    sample("testdata/recorder/iomix-4r", 0);
    sample("testdata/recorder/g3-iomix-2r", 0);
    sample("testdata/recorder/v24-iomix-2r", 0);
}

TR_TEST(samples_chrome)
{
    sample("testdata/chrome/catapult/simple_trace.json", 0);
    sample("testdata/chrome/catapult/tall_trace.json", 0);
    sample("testdata/chrome/catapult/instance_counters.json", 0);
    sample("testdata/chrome/catapult/flow.json", 0);
    sample("testdata/chrome/catapult/big_trace.json", 0);
    sample("testdata/chrome/hta/call_stack/backward_thread.json", 0);
    sample("testdata/chrome/hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", 0);
    sample("testdata/chrome/hta/critical_path/alexnet/"
           "benchmark_result_2869224_1695835535_trace.json.gz",
           0);
    sample("testdata/chrome/perfetto/flow_events_json_v2.json", 0);
}

TR_TEST(samples_pyspy)
{
    sample("testdata/pyspy/01_json_locals_pyspy505.json", 1);
    sample("testdata/pyspy/09_vllm17676_py314_active_no_name_deep_truncated.txt", 1);
    sample("testdata/pyspy/10_sglang17941_native_watchdog_interleaved_partial.txt", 1);
    sample("testdata/pyspy/11_sglang_multiprocess_xargs_concat.txt", 1);
    sample("testdata/pyspy/12_raw_folded_gevent_pyspy179.txt", 1);
}

/* --annotate over a busy window: instruction ids and op names, none overprinting. */
TR_TEST(annotate_labels)
{
    tr_trace *t = load(src_path("testdata/gt/gt-mlp-4workers-autoshard.log"));
    CHECK(t != NULL);
    if (!t) return;
    tr_render_opts o;
    opts(&o, TR_RENDER_TIMELINE);
    o.annotate = 1;
    o.dpi = 150;
    for (int k = 0; k < 2; k++) {
        o.has_since = o.has_until = k;
        o.since = 200000000;
        o.until = 230000000;
        check_timeline("gt --annotate", t, &o);
        tr_timeline_layout *l;
        tr_error e = {0};
        CHECK(tr_timeline_layout_new(t, &o, &l, &e) == TR_OK);
        CHECK(tr_timeline_label_count(l) > 20);
        tr_timeline_layout_free(l);
    }
    tr_trace_free(t);
}

/* ---- hand-made traces, one rule each ---- */

static uint32_t thread(tr_trace *t, uint32_t process, int tid, const char *name)
{
    return tr_track_intern(t, process, TR_TRACK_THREAD, tid, tr_str_internz(t, name));
}

/* One thread nested 40 deep among five of depth one: it shows six rows, the others keep theirs. */
TR_TEST(deep_nesting)
{
    tr_trace *t = tr_trace_new();
    uint32_t p = tr_process_intern(t, tr_input_add(t, "made", "test"), 1);
    uint32_t deep = thread(t, p, 1, "deep");
    for (int d = 0; d < 40; d++)
        tr_slice_add(t, deep, d * 1000, 1000000 - d * 2000, tr_str_internz(t, "f"), 0, -1, 0);
    uint32_t flat[5];
    for (int i = 0; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "flat %d", i);
        flat[i] = thread(t, p, 10 + i, name);
        tr_slice_add(t, flat[i], 0, 500000, tr_str_internz(t, "g"), 0, -1, 0);
    }
    tr_error e = {0};
    CHECK(tr_trace_freeze(t, &e) == TR_OK);
    tr_render_opts o;
    opts(&o, TR_RENDER_TIMELINE);
    check_timeline("deep", t, &o);
    tr_timeline_layout *l;
    CHECK(tr_timeline_layout_new(t, &o, &l, &e) == TR_OK);
    double y0 = 0, y1 = 0, z0 = 0, z1 = 0, f0 = 0, f1 = 0;
    CHECK(tr_timeline_row(l, deep, 0, &y0, &y1, NULL));
    CHECK(tr_timeline_row(l, deep, 39, &z0, &z1, NULL));
    CHECK(tr_timeline_row(l, flat[0], 0, &f0, &f1, NULL));
    CHECK_INT(lround((z1 - y0) / (y1 - y0)), 6); /* six rows, the deeper ones share the last */
    CHECK(fabs((f1 - f0) - (y1 - y0)) < 0.01);   /* the same row height */
    tr_timeline_layout_free(l);
    tr_trace_free(t);
}

/* A lane of one marker is a thin band; a lane with slices is not. */
TR_TEST(thin_lanes)
{
    tr_trace *t = tr_trace_new();
    uint32_t p = tr_process_intern(t, tr_input_add(t, "made", "test"), 1);
    uint32_t busy = thread(t, p, 1, "busy"), idle = thread(t, p, 2, "idle");
    for (int i = 0; i < 20; i++)
        tr_slice_add(t, busy, i * 100000, 50000, tr_str_internz(t, "op"), 0, -1, 0);
    tr_instant_add(t, idle, 5000, tr_str_internz(t, "SEND"), 0, 0, -1, 0);
    tr_error e = {0};
    CHECK(tr_trace_freeze(t, &e) == TR_OK);
    tr_render_opts o;
    opts(&o, TR_RENDER_TIMELINE);
    check_timeline("thin", t, &o);
    tr_timeline_layout *l;
    CHECK(tr_timeline_layout_new(t, &o, &l, &e) == TR_OK);
    tr_render_box lanes[2];
    size_t k = 0;
    for (size_t i = 0; i < tr_timeline_part_count(l); i++) {
        tr_render_box b;
        tr_timeline_part(l, i, &b);
        if (b.kind == TR_PART_PLOT && k < 2) lanes[k++] = b;
    }
    CHECK_INT(k, 2);
    CHECK((lanes[1].y1 - lanes[1].y0) * 1.9 < lanes[0].y1 - lanes[0].y0);
    tr_timeline_layout_free(l);
    tr_trace_free(t);
}

/* Names whose own colours clash get distinct ones, and the slices are drawn in them. */
TR_TEST(legend_colours)
{
    static const char *names[] = {"compute",       "fsync",          "__fxstat64",
                                  "GetData",       "WorkerGetData",  "MPI_Barrier",
                                  "MPI_Comm_rank", "MPI_File_close", "umask"};
    size_t nn = sizeof names / sizeof *names;
    tr_trace *t = tr_trace_new();
    uint32_t p = tr_process_intern(t, tr_input_add(t, "made", "test"), 1);
    uint32_t tk = thread(t, p, 1, "main");
    for (size_t i = 0; i < nn; i++)
        tr_slice_add(t, tk, (int64_t)i * 1000000, 900000 - (int64_t)i * 1000,
                     tr_str_internz(t, names[i]), 0, -1, 0);
    tr_error e = {0};
    CHECK(tr_trace_freeze(t, &e) == TR_OK);
    /* The clashes this guards against. */
    CHECK_INT(tr_render_color("GetData", 7), tr_render_color("WorkerGetData", 13));
    tr_render_opts o;
    opts(&o, TR_RENDER_TIMELINE);
    check_timeline("clashes", t, &o);
    tr_timeline_layout *l;
    CHECK(tr_timeline_layout_new(t, &o, &l, &e) == TR_OK);
    CHECK_INT(tr_timeline_legend_count(l), nn);
    /* GT's fixed colour stays with the first; a name alone in a picture keeps its own. */
    CHECK_INT(tr_timeline_color(l, "GetData", 7), tr_render_color("GetData", 7));
    const char *out = tmp_path("clash.png");
    CHECK(tr_render(t, &o, out, -1, NULL, &e) == TR_OK);
    png pic;
    CHECK(png_open(&pic, out) == 0);
    double y0 = 0, y1 = 0;
    CHECK(tr_timeline_row(l, tk, 0, &y0, &y1, NULL));
    tr_slices s;
    tr_trace_slices(t, &s);
    for (size_t i = 0; i < s.n; i++) {
        size_t n;
        const char *name = tr_str_get(t, s.name[i], &n);
        int x = (int)tr_timeline_x(l, s.ts[i]) + 1;
        CHECK_INT(px(&pic, x, (int)((y0 + y1) / 2)), tr_timeline_color(l, name, n));
    }
    png_close(&pic);
    tr_timeline_layout_free(l);
    tr_trace_free(t);
}

/* Sixty names: the legend goes under the axis in columns and says what it left out. */
TR_TEST(legend_columns)
{
    tr_trace *t = tr_trace_new();
    uint32_t p = tr_process_intern(t, tr_input_add(t, "made", "test"), 1);
    uint32_t tk = thread(t, p, 1, "main");
    for (int i = 0; i < 60; i++) {
        char name[32];
        snprintf(name, sizeof name, "function_%02d", i);
        tr_slice_add(t, tk, i * 1000000, 900000, tr_str_internz(t, name), 0, -1, 0);
    }
    tr_error e = {0};
    CHECK(tr_trace_freeze(t, &e) == TR_OK);
    tr_render_opts o;
    opts(&o, TR_RENDER_TIMELINE);
    check_timeline("sixty names", t, &o);
    tr_timeline_layout *l;
    CHECK(tr_timeline_layout_new(t, &o, &l, &e) == TR_OK);
    size_t shown = tr_timeline_legend_count(l);
    CHECK(shown >= 20 && shown < 60);
    tr_render_box legend = {0}, axis = {0}, b;
    for (size_t i = 0; tr_timeline_part(l, i, &b); i++) {
        if (b.kind == TR_PART_LEGEND) legend = b;
        if (b.kind == TR_PART_AXIS) axis = b;
    }
    CHECK(legend.y0 >= axis.y1);                    /* under the axis */
    CHECK(legend.x1 - legend.x0 > 3 * 0.8 * o.dpi); /* in columns */
    tr_timeline_layout_free(l);
    const char *pdf = tmp_path("sixty.pdf");
    CHECK(tr_render(t, &o, pdf, -1, NULL, &e) == TR_OK);
    if (system("command -v pdftotext >/dev/null 2>&1") == 0) {
        char cmd[8192];
        snprintf(cmd, sizeof cmd, "pdftotext '%s' - | grep -q '+%zu more names'", pdf, 60 - shown);
        CHECK(system(cmd) == 0);
    }
    tr_trace_free(t);
}

/* The height follows the content unless given; given, it is exact. */
TR_TEST(height_given)
{
    tr_trace *t = tr_trace_new();
    uint32_t p = tr_process_intern(t, tr_input_add(t, "made", "test"), 1);
    tr_slice_add(t, thread(t, p, 1, "main"), 0, 1000, tr_str_internz(t, "x"), 0, -1, 0);
    tr_error e = {0};
    CHECK(tr_trace_freeze(t, &e) == TR_OK);
    tr_render_opts o;
    tr_render_opts_init(&o);
    tr_render_stats st;
    CHECK(tr_render(t, &o, tmp_path("auto.png"), -1, &st, &e) == TR_OK);
    CHECK_INT(st.width_px, 2400);
    CHECK(st.height_px < 600);
    o.height_given = 1;
    CHECK(tr_render(t, &o, tmp_path("given.png"), -1, &st, &e) == TR_OK);
    CHECK_INT(st.height_px, 1500);
    o.height_in = 3;
    CHECK(tr_render(t, &o, tmp_path("given.svg"), -1, &st, &e) == TR_OK);
    CHECK_INT(st.height_px, 450);
    tr_trace_free(t);
}

/*
** Two inputs an hour apart, each a millisecond long (issue 23 item 4): the
** axis is broken in two segments, each at its own scale, and the note says
** so; with a window given, one scale and a warning.  The lanes of the input
** placed by a guess carry the mark, the others none.
*/
TR_TEST(far_apart_and_guess)
{
    tr_trace *t = tr_trace_new();
    uint32_t a = tr_input_add(t, "/x/first.json", "test"),
             b = tr_input_add(t, "/x/second.json", "test");
    tr_input_at(t, b)->placed = TR_PLACED_GUESS;
    uint32_t ta = thread(t, tr_process_intern(t, a, 1), 1, "alpha");
    uint32_t tb = thread(t, tr_process_intern(t, b, 2), 1, "beta");
    tr_slice_add(t, ta, 0, 1000000, tr_str_internz(t, "x"), 0, -1, 0);
    tr_slice_add(t, tb, 3600000000000LL, 1000000, tr_str_internz(t, "y"), 0, -1, 0);
    tr_error e = {0};
    CHECK(tr_trace_freeze(t, &e) == TR_OK);
    tr_render_opts o;
    opts(&o, TR_RENDER_TIMELINE);
    check_timeline("far apart", t, &o);
    tr_timeline_layout *l;
    CHECK(tr_timeline_layout_new(t, &o, &l, &e) == TR_OK);
    const char *w = tr_timeline_warning(l);
    CHECK(strstr(w, "first.json and second.json are 3599.999s apart") != NULL);
    CHECK(strstr(w, "the axis is broken, each part at its own scale") != NULL);
    tr_render_box note;
    CHECK(tr_timeline_part(l, 2, &note) && note.kind == TR_PART_NOTE); /* the warning line */
    /* Two segments: each input padded by 1 % of its span, equal spans so equal widths. */
    double left, right, x0 = 0, x1 = 0, y0 = 0, y1 = 0;
    int64_t s0 = 0, s1 = 0;
    tr_timeline_plot(l, &left, &right);
    CHECK_INT(tr_timeline_segment_count(l), 2);
    CHECK(tr_timeline_segment(l, 0, &s0, &s1, &x0, &x1));
    CHECK_INT(s0, -10000);
    CHECK_INT(s1, 1010000);
    CHECK(x0 == left);
    double w0 = x1 - x0, gap_from = x1;
    CHECK(tr_timeline_segment(l, 1, &s0, &s1, &x0, &x1));
    CHECK_INT(s0, 3600000000000LL - 10000);
    CHECK_INT(s1, 3600001010000LL);
    CHECK(x1 == right);
    CHECK(x0 - gap_from == 0.16 * o.dpi); /* the break */
    CHECK(fabs((x1 - x0) - w0) <= 1);     /* equal spans, equal widths (whole pixels) */
    CHECK(!tr_timeline_segment(l, 2, &s0, &s1, &x0, &x1));
    /* Each slice fills its segment but the padding: its own scale, not a sliver. */
    CHECK(tr_timeline_x(l, 1000000) - tr_timeline_x(l, 0) > 0.9 * w0);
    CHECK(tr_timeline_x(l, 3600001000000LL) - tr_timeline_x(l, 3600000000000LL) > 0.9 * w0);
    CHECK(tr_timeline_x(l, 0) < gap_from && tr_timeline_x(l, 3600000000000LL) > gap_from);
    /* The guess mark: on beta's lane, inside it, and not on alpha's. */
    tr_render_box mark = {0};
    CHECK(!tr_timeline_guess_mark(l, ta, &mark));
    CHECK(tr_timeline_guess_mark(l, tb, &mark));
    CHECK(tr_timeline_row(l, tb, 0, &y0, &y1, NULL));
    CHECK(mark.x0 == left && mark.x1 > mark.x0 && mark.y0 <= y0 && mark.y1 >= y1);
    const char *png_path = tmp_path("guess.png");
    CHECK(tr_render(t, &o, png_path, -1, NULL, &e) == TR_OK);
    png pic;
    CHECK(png_open(&pic, png_path) == 0);
    size_t amber = 0, total = 0;
    for (int y = (int)mark.y0; y < (int)mark.y1; y++)
        for (int x = (int)mark.x0; x < (int)mark.x1; x++, total++)
            amber += px(&pic, x, y) == 0xf0b400;
    CHECK(amber * 2 > total); /* amber, striped with ink */
    /* Between the segments the lanes are blank. */
    CHECK_INT(px(&pic, (int)(gap_from + 0.08 * o.dpi), (int)((y0 + y1) / 2)), 0xffffff);
    png_close(&pic);
    tr_timeline_layout_free(l);
    /* A window: one scale, and the warning says each is a sliver. */
    o.has_since = o.has_until = 1;
    o.since = 0;
    o.until = 3600002000000LL;
    CHECK(tr_timeline_layout_new(t, &o, &l, &e) == TR_OK);
    CHECK_INT(tr_timeline_segment_count(l), 1);
    CHECK(strstr(tr_timeline_warning(l), "each shows as a sliver") != NULL);
    tr_timeline_layout_free(l);
    /* Close together: no warning. */
    o.until = 2000000;
    CHECK(tr_timeline_layout_new(t, &o, &l, &e) == TR_OK);
    CHECK_STR(tr_timeline_warning(l), "");
    tr_timeline_layout_free(l);
    const char *pdf = tmp_path("guess.pdf");
    o.has_since = o.has_until = 0;
    CHECK(tr_render(t, &o, pdf, -1, NULL, &e) == TR_OK);
    if (system("command -v pdftotext >/dev/null 2>&1") == 0) {
        char cmd[8192];
        snprintf(cmd, sizeof cmd, "pdftotext '%s' - | grep -q 'beta (placed by guess)'", pdf);
        CHECK(system(cmd) == 0);
        snprintf(cmd, sizeof cmd, "pdftotext '%s' - | grep -q 'alpha (placed'", pdf);
        CHECK(system(cmd) != 0);
    }
    tr_trace_free(t);
}

/* A stack 300 frames deep in a picture of at most 10 in: cut, and still mostly frames. */
TR_TEST(flame_deep_cut)
{
    tr_trace *t = tr_trace_new();
    uint32_t p = tr_process_intern(t, tr_input_add(t, "made", "test"), 1);
    uint32_t tk = thread(t, p, 1, "main");
    uint32_t stack = 0;
    for (int i = 0; i < 300; i++) {
        char name[16];
        snprintf(name, sizeof name, "f%d", i);
        tr_frame f = {.function = tr_str_internz(t, name)};
        stack = tr_stack_push(t, stack, tr_frame_intern(t, &f));
        if (i == 20 || i == 299) tr_sample_add(t, tk, i, stack, 0);
    }
    tr_error e = {0};
    CHECK(tr_trace_freeze(t, &e) == TR_OK);
    tr_render_opts o;
    opts(&o, TR_RENDER_FLAME);
    tr_flame_layout *l;
    CHECK(tr_flame_layout_new(t, &o, TR_RENDER_PNG, &l, &e) == TR_OK);
    int cut = tr_flame_levels_cut(l);
    CHECK(cut > 0 && cut < 300);
    tr_flame_layout_free(l);
    check_flame("deep flame", t, &o);
    o.kind = TR_RENDER_ICICLE;
    check_flame("deep icicle", t, &o);
    /* Shallow: nothing cut, as tall as its three levels need. */
    o.height_in = 30;
    CHECK(tr_flame_layout_new(t, &o, TR_RENDER_SVG, &l, &e) == TR_OK);
    CHECK_INT(tr_flame_levels_cut(l), 0);
    tr_flame_layout_free(l);
    tr_trace_free(t);
}

/* ---- the PNG writer ---- */

/*
** A PNG decoder of its own: chunks and CRCs, zlib, the five filters.  Its
** arguments are "@FILE" (decode FILE, print its width and height) and
** "X,Y" (print the RGB of FILE's pixel there).
*/
static const char png_py[] =
    "import sys, struct, zlib\n"
    "def decode(path):\n"
    "    d = open(path, 'rb').read()\n"
    "    assert d[:8] == b'\\x89PNG\\r\\n\\x1a\\n', 'signature'\n"
    "    p, idat, seen = 8, b'', []\n"
    "    while p < len(d):\n"
    "        n, = struct.unpack('>I', d[p:p + 4]); kind = d[p + 4:p + 8]\n"
    "        body = d[p + 8:p + 8 + n]; crc, = struct.unpack('>I', d[p + 8 + n:p + 12 + n])\n"
    "        assert zlib.crc32(kind + body) == crc, 'crc of ' + repr(kind)\n"
    "        seen.append(kind); p += 12 + n\n"
    "        if kind == b'IHDR': w, h, depth, ct, comp, filt, inter = struct.unpack('>IIBBBBB', "
    "body)\n"
    "        if kind == b'IDAT': idat += body\n"
    "    assert seen[0] == b'IHDR' and seen[-1] == b'IEND' and p == len(d), seen\n"
    "    assert (depth, ct, comp, filt, inter) == (8, 2, 0, 0, 0)\n"
    "    raw = zlib.decompress(idat); stride = 3 * w\n"
    "    assert len(raw) == h * (stride + 1), 'size'\n"
    "    rows, prev = [], bytearray(stride)\n"
    "    for y in range(h):\n"
    "        f = raw[y * (stride + 1)]\n"
    "        r = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])\n"
    "        if f == 2: r, f = bytearray((u + v) & 255 for u, v in zip(r, prev)), 0\n"
    "        for i in range(stride if f else 0):\n"
    "            a = r[i - 3] if i >= 3 else 0; b = prev[i]; c = prev[i - 3] if i >= 3 else 0\n"
    "            if f == 1: r[i] = (r[i] + a) & 255\n"
    "            elif f == 3: r[i] = (r[i] + (a + b) // 2) & 255\n"
    "            elif f == 4:\n"
    "                q = a + b - c; pa, pb, pc = abs(q - a), abs(q - b), abs(q - c)\n"
    "                r[i] = (r[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255\n"
    "            else: assert False, 'filter %d' % f\n"
    "        rows.append(r); prev = r\n"
    "    print(w, h)\n"
    "    return rows\n"
    "for q in sys.argv[1:]:\n"
    "    if q[0] == '@': rows = decode(q[1:]); continue\n"
    "    x, y = map(int, q.split(',')); o = 3 * x\n"
    "    print('%02x%02x%02x' % (rows[y][o], rows[y][o + 1], rows[y][o + 2]))\n";

/* Pictures and the points of each to compare, decoded in one run of python3 (slow to start). */
typedef struct decode_job {
    char path[4096];
    int pts[300][2];
    size_t n;
} decode_job;

/* Decodes the pictures with python3 and compares their pixels with cairo's (libpng's) reading. */
static void check_png_decodes(const decode_job *jobs, size_t n_jobs)
{
    const char *script = tmp_path("png.py");
    FILE *f = fopen(script, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(png_py, f);
    fclose(f);
    static char cmd[65536];
    int len = snprintf(cmd, sizeof cmd, "python3 '%s'", script);
    for (size_t j = 0; j < n_jobs; j++) {
        len += snprintf(cmd + len, sizeof cmd - (size_t)len, " '@%s'", jobs[j].path);
        for (size_t i = 0; i < jobs[j].n; i++)
            len += snprintf(cmd + len, sizeof cmd - (size_t)len, " %d,%d", jobs[j].pts[i][0],
                            jobs[j].pts[i][1]);
    }
    FILE *out = popen(cmd, "r");
    CHECK(out != NULL);
    if (!out) return;
    for (size_t j = 0; j < n_jobs; j++) {
        png p;
        CHECK(png_open(&p, jobs[j].path) == 0);
        int w = 0, h = 0;
        CHECK(fscanf(out, "%d %d", &w, &h) == 2);
        CHECK_INT(w, p.w);
        CHECK_INT(h, p.h);
        for (size_t i = 0; i < jobs[j].n; i++) {
            unsigned got = 0;
            CHECK(fscanf(out, "%x", &got) == 1);
            CHECK_INT(got, px(&p, jobs[j].pts[i][0], jobs[j].pts[i][1]));
        }
        png_close(&p);
    }
    CHECK(pclose(out) == 0);
}

static void add_point(decode_job *j, int x, int y)
{
    if (j->n < sizeof j->pts / sizeof *j->pts) j->pts[j->n][0] = x, j->pts[j->n++][1] = y;
}

TR_TEST(png_writer)
{
    if (system("command -v python3 >/dev/null 2>&1") != 0) return;
    tr_trace *t = tr_trace_new();
    uint32_t p = tr_process_intern(t, tr_input_add(t, "made", "test"), 1);
    uint32_t tk = thread(t, p, 1, "main");
    tr_slice_add(t, tk, 0, 400000, tr_str_internz(t, "MatMul"), 0, -1, 0);
    tr_slice_add(t, tk, 600000, 400000, tr_str_internz(t, "add"), 0, -1, 0);
    tr_error e = {0};
    CHECK(tr_trace_freeze(t, &e) == TR_OK);
    static decode_job jobs[4];
    memset(jobs, 0, sizeof jobs);
    /* Small pictures of odd widths (a row whose bytes are not a multiple of anything). */
    static const double widths[] = {7, 3.37};
    for (size_t k = 0; k < 2; k++) {
        tr_render_opts o;
        opts(&o, TR_RENDER_TIMELINE);
        o.width_in = widths[k];
        o.dpi = 60;
        decode_job *j = &jobs[k];
        snprintf(j->path, sizeof j->path, "%s", tmp_path(k ? "w1.png" : "w0.png"));
        CHECK(tr_render(t, &o, j->path, -1, NULL, &e) == TR_OK);
        tr_timeline_layout *l;
        CHECK(tr_timeline_layout_new(t, &o, &l, &e) == TR_OK);
        double y0 = 0, y1 = 0;
        CHECK(tr_timeline_row(l, tk, 0, &y0, &y1, NULL));
        int w, h, ym = (int)((y0 + y1) / 2);
        tr_timeline_size(l, &w, &h);
        int xa = (int)tr_timeline_x(l, 380000), xb = (int)tr_timeline_x(l, 980000);
        add_point(j, 0, 0);
        add_point(j, w - 1, h - 1);
        add_point(j, xa, ym);
        add_point(j, xb, ym);
        add_point(j, (int)tr_timeline_x(l, 500000), ym);
        add_point(j, w / 2, 10);
        add_point(j, w / 3, h / 2);
        png pic;
        CHECK(png_open(&pic, j->path) == 0);
        CHECK_INT(px(&pic, xa, ym), tr_timeline_color(l, "MatMul", 6));
        CHECK_INT(px(&pic, xb, ym), tr_timeline_color(l, "add", 3));
        CHECK_INT(px(&pic, 0, 0), 0xffffff);
        png_close(&pic);
        tr_timeline_layout_free(l);
    }
    /* A given height far above the content: long runs of repeated rows, the last one at the end. */
    tr_render_opts o;
    opts(&o, TR_RENDER_TIMELINE);
    o.dpi = 30;
    o.height_given = 1;
    snprintf(jobs[2].path, sizeof jobs[2].path, "%s", tmp_path("tall.png"));
    CHECK(tr_render(t, &o, jobs[2].path, -1, NULL, &e) == TR_OK);
    static const int edge[][2] = {{0, 0}, {479, 299}, {240, 150}, {100, 299}, {240, 40}};
    for (size_t i = 0; i < 5; i++) add_point(&jobs[2], edge[i][0], edge[i][1]);
    tr_trace_free(t);
    /* A real picture: every pixel as libpng reads it, at a few hundred points. */
    tr_trace *gt = load(src_path("testdata/gt/gt-tiny-visualize_demo-1worker.log"));
    CHECK(gt != NULL);
    if (!gt) return;
    opts(&o, TR_RENDER_TIMELINE);
    o.dpi = 40;
    snprintf(jobs[3].path, sizeof jobs[3].path, "%s", tmp_path("gt.png"));
    tr_render_stats st;
    CHECK(tr_render(gt, &o, jobs[3].path, -1, &st, &e) == TR_OK);
    for (int i = 0; i < 300; i++)
        add_point(&jobs[3], (i * 37) % st.width_px, (i * 53) % st.height_px);
    check_png_decodes(jobs, 4);
    tr_trace_free(gt);
}

/*
** Issue 23: a GT worker round trip is coloured as the client operation it
** carries: a batch by its commands (in stripes, the first at its start), a
** synchronous one by its command, "Worker" left off, so the worker's and the
** client's BinaryOp are one legend entry of one colour.
*/
TR_TEST(gt_ops_coloured_by_operation)
{
    tr_trace *t = tr_trace_new();
    uint32_t p = tr_process_intern(t, tr_input_add(t, "made.log", "gt"), -1);
    uint32_t client = thread(t, p, 1, "client c1"), worker = thread(t, p, 2, "worker w");
    tr_str cw = tr_str_internz(t, "gt.worker"), cc = tr_str_internz(t, "gt.client");
    tr_args_begin(t);
    tr_args_str(t, tr_str_internz(t, "commands"),
                tr_str_internz(t, "[2 cmds: WorkerCreateTensor, WorkerBinaryOp]"));
    uint32_t batch_args = tr_args_end(t);
    tr_slice_add(t, client, 0, 10000000, tr_str_internz(t, "BinaryOp"), cc, -1, 0);
    tr_slice_add(t, worker, 1000000, 4000000, tr_str_internz(t, "WorkerBatch"), cw, -1, batch_args);
    tr_slice_add(t, worker, 6000000, 2000000, tr_str_internz(t, "WorkerGetData"), cw, -1, 0);
    tr_error e = {0};
    CHECK(tr_trace_freeze(t, &e) == TR_OK);
    tr_render_opts o;
    opts(&o, TR_RENDER_TIMELINE);
    check_timeline("gt ops", t, &o);
    tr_timeline_layout *l;
    CHECK(tr_timeline_layout_new(t, &o, &l, &e) == TR_OK);
    char names[256] = "";
    for (size_t i = 0; i < tr_timeline_legend_count(l); i++) {
        size_t n = strlen(names);
        snprintf(names + n, sizeof names - n, "%s%s", i ? " " : "", tr_timeline_legend_name(l, i));
    }
    /* By time: BinaryOp 10 ms + 2 ms (half the batch), CreateTensor 2 ms, GetData 2 ms. */
    CHECK_STR(names, "BinaryOp CreateTensor GetData");
    tr_slices s;
    tr_trace_slices(t, &s);
    CHECK_INT(tr_timeline_slice_color(l, 0), tr_timeline_color(l, "BinaryOp", 8));
    CHECK_INT(tr_timeline_slice_color(l, 1), tr_timeline_color(l, "CreateTensor", 12));
    CHECK_INT(tr_timeline_slice_color(l, 2), tr_timeline_color(l, "GetData", 7));
    CHECK(tr_timeline_color(l, "BinaryOp", 8) != tr_timeline_color(l, "CreateTensor", 12));
    /* The batch's second stripe is BinaryOp's colour: probe the PNG there. */
    const char *png_path = tmp_path("gtops.png");
    CHECK(tr_render(t, &o, png_path, -1, NULL, &e) == TR_OK);
    png pic;
    CHECK(png_open(&pic, png_path) == 0);
    double y0 = 0, y1 = 0;
    CHECK(tr_timeline_row(l, worker, 0, &y0, &y1, NULL));
    int y = (int)((y0 + y1) / 2);
    double a = tr_timeline_x(l, 1000000), b = tr_timeline_x(l, 5000000);
    CHECK_INT(px(&pic, (int)(a + (b - a) * 0.25), y), tr_timeline_color(l, "CreateTensor", 12));
    CHECK_INT(px(&pic, (int)(a + (b - a) * 0.75), y), tr_timeline_color(l, "BinaryOp", 8));
    png_close(&pic);
    tr_timeline_layout_free(l);
    tr_trace_free(t);
}

/*
** Issue 23: arrows are drawn while there is at most one per 4 pixel columns
** (arrows with the same pixel ends once); past that none is, and the
** subtitle says so.
*/
TR_TEST(flows_level_of_detail)
{
    for (int dense = 0; dense < 2; dense++) {
        tr_trace *t = tr_trace_new();
        uint32_t p = tr_process_intern(t, tr_input_add(t, "made", "test"), 1);
        uint32_t a = thread(t, p, 1, "a"), b = thread(t, p, 2, "b");
        tr_str x = tr_str_internz(t, "x");
        int n = dense ? 2000 : 100; /* the plot is about 1,000 px wide at 75 dpi */
        for (int i = 0; i < n; i++) {
            uint32_t from = tr_instant_add(t, a, (int64_t)i * 1000000, x, 0, 0, -1, 0);
            uint32_t to = tr_instant_add(t, b, (int64_t)i * 1000000 + 500000, x, 0, 0, -1, 0);
            tr_flow f = {TR_REF(TR_EV_INSTANT, from), TR_REF(TR_EV_INSTANT, to), x, 0, (uint64_t)i};
            tr_flow_add(t, &f);
        }
        tr_error e = {0};
        CHECK(tr_trace_freeze(t, &e) == TR_OK);
        tr_render_opts o;
        opts(&o, TR_RENDER_TIMELINE);
        tr_render_stats st;
        const char *pdf = tmp_path("flows.pdf");
        CHECK(tr_render(t, &o, pdf, -1, &st, &e) == TR_OK);
        if (dense)
            CHECK_INT(st.flows_drawn, 0);
        else
            CHECK_INT(st.flows_drawn, 100);
        if (system("command -v pdftotext >/dev/null 2>&1") == 0) {
            char cmd[8192];
            snprintf(cmd, sizeof cmd, "pdftotext '%s' - | grep -q 'flow arrows not drawn'", pdf);
            CHECK((system(cmd) == 0) == dense);
        }
        tr_trace_free(t);
    }
}
