/*
** legend.c: a timeline's legend and the colour of every name drawn.
**
** Names are merged by text (a reader may store equal text under several
** ids); slice names are sorted by time, marker names by count.  A name keeps
** its own colour (tr_render_color) unless a name before it took it: GT's
** fixed colours go first, then the other names in legend order, and a name
** whose colour is taken moves on to its next one (tr_render_color_alt).  So
** no two entries share a colour, and every id of a name is drawn in the
** colour its entry shows.  The legend is one column right of the plot when
** it fits there, else columns under the axis, slices and markers each from
** a new column; it says how many names it leaves out.
*/
#include "timeline_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define LEGEND_MAX       40  /* names shown at most */
#define LEGEND_MARKERS   10  /* of them marker names, when there are slice names too */
#define LEGEND_ROWS      6   /* rows of a legend under the axis, at most */
#define RESOLVE_MAX      512 /* names given a colour no other has; the rest keep their own */
#define COL_MIN_IN       0.8
#define COL_MAX_IN       2.4
#define LEGEND_MARGIN_IN 0.12

static const tr_timeline_layout *sort_layout; /* qsort has no user pointer in C11 */

static int stat_cmp(const void *pa, const void *pb)
{
    const tl_entry *a = pa, *b = pb;
    if (a->dur != b->dur) return a->dur > b->dur ? -1 : 1;
    if (a->count != b->count) return a->count > b->count ? -1 : 1;
    return strcmp(tl_key_text(sort_layout, a->name, NULL), tl_key_text(sort_layout, b->name, NULL));
}

static int text_cmp(const void *pa, const void *pb)
{
    const tl_entry *a = pa, *b = pb;
    return strcmp(tl_key_text(sort_layout, a->name, NULL), tl_key_text(sort_layout, b->name, NULL));
}

static const tl_entry *sort_entries;

static int index_cmp(const void *pa, const void *pb)
{
    return text_cmp(&sort_entries[*(const uint32_t *)pa], &sort_entries[*(const uint32_t *)pb]);
}

/* Copies the names of M to OUT merged by text, sorted by time then count; returns how many. */
static size_t legend_part(const tr_timeline_layout *l, const tl_names *m, tl_entry *out)
{
    size_t k = m->items.len;
    for (size_t i = 0; i < k; i++) {
        const tl_name *s = &TR_VEC_AT(&m->items, tl_name, i);
        out[i] = (tl_entry){s->name, 0, s->dur, s->count};
    }
    sort_layout = l;
    tr_qsort(out, k, sizeof *out, text_cmp);
    size_t n = 0;
    for (size_t i = 0; i < k; i++) {
        if (n && text_cmp(&out[n - 1], &out[i]) == 0) {
            out[n - 1].dur += out[i].dur;
            out[n - 1].count += out[i].count;
            continue;
        }
        out[n++] = out[i];
    }
    tr_qsort(out, n, sizeof *out, stat_cmp);
    return n;
}

/* ---- colours ---- */

static int take(tr_map *used, uint32_t rgb)
{
    int is_new;
    uint32_t *slot = tr_map_slot(used, rgb, &is_new);
    if (!slot) return TR_FATAL;
    *slot = 0;
    return is_new;
}

/* Gives the entries colours no two share: fixed ones first, then in legend order. */
static int resolve_colors(const tr_timeline_layout *l, tl_entry *en, size_t n)
{
    tr_map used = {0};
    uint8_t *done = tr_calloc(n + 1, 1);
    int rc = done ? TR_OK : TR_FATAL;
    for (size_t i = 0; i < n && rc >= 0; i++) {
        size_t len;
        const char *name = tl_key_text(l, en[i].name, &len);
        en[i].rgb = tr_render_color(name, len);
        if (i >= RESOLVE_MAX || !tr_render_color_is_fixed(name, len)) continue;
        rc = take(&used, en[i].rgb);
        done[i] = rc > 0;
    }
    for (size_t i = 0; i < n && i < RESOLVE_MAX && rc >= 0; i++) {
        if (done[i]) continue;
        size_t len;
        const char *name = tl_key_text(l, en[i].name, &len);
        /* The generated hues never end, so this finds one. */
        for (unsigned k = 0; rc >= 0; k++) {
            uint32_t rgb = tr_render_color_alt(name, len, k);
            rc = take(&used, rgb);
            if (rc > 0) {
                en[i].rgb = rgb;
                break;
            }
        }
    }
    tr_map_fini(&used);
    tr_free(done);
    return rc < 0 ? TR_FATAL : TR_OK;
}

/* The entry of NAME's text among entries [A, B), or NULL. */
static const tl_entry *find_text(const tr_timeline_layout *l, const tl_legend *g, size_t a,
                                 size_t b, const char *name)
{
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        const tl_entry *en = &g->entries[g->by_text[mid]];
        int c = strcmp(tl_key_text(l, en->name, NULL), name);
        if (c == 0) return en;
        if (c < 0)
            a = mid + 1;
        else
            b = mid;
    }
    return NULL;
}

/* Every id of a name gets the colour of its entry. */
static void paint_names(const tr_timeline_layout *l, tl_names *m, const tl_legend *g, size_t a,
                        size_t b)
{
    for (size_t i = 0; i < m->items.len; i++) {
        tl_name *s = &TR_VEC_AT(&m->items, tl_name, i);
        const tl_entry *en = find_text(l, g, a, b, tl_key_text(l, s->name, NULL));
        s->rgb = en ? en->rgb : 0x888888;
    }
}

int tl_legend_build(tr_timeline_layout *l, tr_error *e)
{
    tl_legend *g = &l->legend;
    size_t n = l->slice_names.items.len + l->instant_names.items.len;
    g->entries = tr_malloc((n ? n : 1) * sizeof *g->entries);
    g->by_text = tr_malloc((n ? n : 1) * sizeof *g->by_text);
    if (!g->entries || !g->by_text) return tr_error_nomem(e);
    g->n_slices = legend_part(l, &l->slice_names, g->entries);
    g->n_markers = legend_part(l, &l->instant_names, g->entries + g->n_slices);
    n = g->n_slices + g->n_markers;
    if (resolve_colors(l, g->entries, n) < 0) return tr_error_nomem(e);
    for (size_t i = 0; i < n; i++) g->by_text[i] = (uint32_t)i;
    sort_layout = l;
    sort_entries = g->entries;
    tr_qsort(g->by_text, g->n_slices, sizeof *g->by_text, index_cmp);
    tr_qsort(g->by_text + g->n_slices, g->n_markers, sizeof *g->by_text, index_cmp);
    paint_names(l, &l->slice_names, g, 0, g->n_slices);
    paint_names(l, &l->instant_names, g, g->n_slices, n);
    g->line = l->text_pt * l->px_per_pt * 1.45;
    return TR_OK;
}

void tl_legend_free(tl_legend *g)
{
    tr_free(g->entries);
    tr_free(g->by_text);
    memset(g, 0, sizeof *g);
}

/* ---- placement ---- */

/* Cells: a heading per part shown, its entries, and "+N more" when names are left out. */
static size_t cell_count(const tl_legend *g, size_t s, size_t m)
{
    return (s ? s + 1 : 0) + (m ? m + 1 : 0) + (s + m < g->n_slices + g->n_markers);
}

/* Columns a legend under the axis needs in ROWS rows. */
static size_t cols_needed(const tl_legend *g, size_t s, size_t m, size_t rows)
{
    size_t more = s + m < g->n_slices + g->n_markers;
    size_t a = s ? s + 1 + (m ? 0 : more) : 0, b = m ? m + 1 + more : 0;
    if (!a && !b) return more;
    return (a + rows - 1) / rows + (b + rows - 1) / rows;
}

/* The widest entry, swatch and padding included, in the bounds of a column. */
static void measure_column(tr_timeline_layout *l, tr_measure *m)
{
    tl_legend *g = &l->legend;
    double sw = l->text_pt * l->px_per_pt, widest = 0;
    size_t shown = g->n_slices + g->n_markers;
    for (size_t i = 0; i < shown && i < 2 * LEGEND_MAX; i++) {
        size_t n;
        const char *name = tl_key_text(l, g->entries[i].name, &n);
        widest = fmax(widest, tr_measure_text(m, name, n, l->text_pt, 0));
    }
    double dpi = l->o.dpi;
    g->col_w = fmin(fmax(widest + sw * 2.6, COL_MIN_IN * dpi), fmin(COL_MAX_IN * dpi, 0.2 * l->W));
}

double tl_legend_below_height(tr_timeline_layout *l, tr_measure *m, double p, double left)
{
    tl_legend *g = &l->legend;
    g->below = 0;
    g->cols = g->rows = 0;
    g->shown_slices = g->shown_markers = 0;
    if (l->o.no_legend || g->n_slices + g->n_markers == 0) return 0;
    if (!g->col_w) measure_column(l, m);
    /* Marker names keep a share of the names shown. */
    size_t mk = g->n_markers < LEGEND_MARKERS || !g->n_slices ? g->n_markers : LEGEND_MARKERS;
    size_t s = g->n_slices < LEGEND_MAX - (mk < LEGEND_MAX ? mk : LEGEND_MAX) ? g->n_slices
                                                                              : LEGEND_MAX - mk;
    mk = g->n_markers < LEGEND_MAX - s ? g->n_markers : LEGEND_MAX - s;
    if ((double)cell_count(g, s, mk) * g->line <= p) {
        g->shown_slices = s, g->shown_markers = mk;
        g->rows = (int)cell_count(g, s, mk);
        g->cols = 1;
        return 0;
    }
    g->below = 1;
    size_t cols = (size_t)fmax(1, floor((l->W - left - LEGEND_MARGIN_IN * l->o.dpi) / g->col_w));
    size_t rows = 1;
    while (rows < LEGEND_ROWS && cols_needed(g, s, mk, rows) > cols) rows++;
    /* Still too many: leave names out, the longer part first. */
    while (s + mk > 0 && cols_needed(g, s, mk, rows) > cols) {
        if (s >= mk)
            s--;
        else
            mk--;
    }
    g->shown_slices = s, g->shown_markers = mk;
    g->rows = (int)rows;
    g->cols = (int)cols_needed(g, s, mk, rows);
    return (double)rows * g->line;
}

double tl_legend_side_width(const tr_timeline_layout *l)
{
    const tl_legend *g = &l->legend;
    return g->cols && !g->below ? g->col_w : 0;
}

void tl_legend_place(tr_timeline_layout *l, double x, double y)
{
    tl_legend *g = &l->legend;
    g->more = g->n_slices + g->n_markers - g->shown_slices - g->shown_markers;
    g->x = x;
    g->y = y;
    g->w = g->col_w * g->cols;
    g->h = g->rows * g->line;
}

/* ---- drawing ---- */

typedef struct cursor {
    const tl_legend *g;
    double x, y;
    int row;
} cursor;

/* The next cell: down the column, or the top of the next column. */
static void next_cell(cursor *k)
{
    k->row++;
    k->y += k->g->line;
    if (!k->g->below || k->row < k->g->rows) return;
    k->row = 0;
    k->y = k->g->y;
    k->x += k->g->col_w;
}

/* A part starts a column of its own under the axis, and after half a line beside the plot. */
static void next_part(cursor *k)
{
    if (k->row == 0) return;
    if (k->g->below) {
        k->row = 0;
        k->y = k->g->y;
        k->x += k->g->col_w;
    } else {
        k->y += k->g->line * 0.5;
    }
}

int tl_legend_draw(tr_timeline_layout *l, tr_canvas *c)
{
    const tl_legend *g = &l->legend;
    if (!g->cols) return TR_OK;
    double pt = l->text_pt, line = g->line, sw = pt * l->px_per_pt;
    cursor k = {g, g->x, g->y, 0};
    size_t shown[2] = {g->shown_slices, g->shown_markers};
    for (int part = 0; part < 2; part++) {
        if (!shown[part]) continue;
        next_part(&k);
        tr_canvas_text(c, part ? "Markers" : "Slices", part ? 7 : 6, k.x, k.y, pt, 1, g->col_w - 4,
                       TR_ALIGN_LEFT, TR_RENDER_INK);
        next_cell(&k);
        for (size_t i = 0; i < shown[part]; i++) {
            const tl_entry *en = &g->entries[(part ? g->n_slices : 0) + i];
            size_t n;
            const char *name = tl_key_text(l, en->name, &n);
            if (part)
                tr_canvas_marker(c, tr_render_marker_shape(name, n), k.x + sw / 2,
                                 k.y + line / 2 - 1, sw * 0.45, en->rgb);
            else
                tr_canvas_rect(c, k.x, k.y + line * 0.12, sw, line * 0.7, en->rgb);
            tr_canvas_text(c, n ? name : "(no name)", n ? n : 9, k.x + sw * 1.6, k.y + line * 0.1,
                           pt, 0, g->col_w - sw * 1.6 - 4, TR_ALIGN_LEFT, TR_RENDER_INK);
            next_cell(&k);
        }
    }
    if (g->more) {
        char text[48];
        int len = snprintf(text, sizeof text, "+%zu more names", g->more);
        tr_canvas_text(c, text, (size_t)len, k.x, k.y + line * 0.1, pt, 0, g->col_w - 4,
                       TR_ALIGN_LEFT, TR_RENDER_FAINT_INK);
    }
    return TR_OK;
}

/* ---- the public view ---- */

size_t tr_timeline_legend_count(const tr_timeline_layout *l)
{
    return l->legend.shown_slices + l->legend.shown_markers;
}

static const tl_entry *shown_entry(const tr_timeline_layout *l, size_t i)
{
    const tl_legend *g = &l->legend;
    if (i >= g->shown_slices + g->shown_markers) return NULL;
    return &g->entries[i < g->shown_slices ? i : g->n_slices + (i - g->shown_slices)];
}

const char *tr_timeline_legend_name(const tr_timeline_layout *l, size_t i)
{
    const tl_entry *en = shown_entry(l, i);
    return en ? tl_key_text(l, en->name, NULL) : NULL;
}

uint32_t tr_timeline_legend_color(const tr_timeline_layout *l, size_t i)
{
    const tl_entry *en = shown_entry(l, i);
    return en ? en->rgb : 0;
}

uint32_t tr_timeline_slice_color(const tr_timeline_layout *l, size_t row)
{
    tr_slices s;
    tr_trace_slices(l->t, &s);
    uint32_t keys[TL_KEYS_MAX];
    /* The keys are a cache the layout filled for every slice it shows. */
    if (row >= s.n || tl_slice_keys((tr_timeline_layout *)l, s.name[row], tr_slice_cat(&s, row),
                                    s.args[row], keys) < 1)
        return 0x888888;
    size_t n;
    const char *text = tl_key_text(l, keys[0], &n);
    return tr_timeline_color(l, text, n);
}

uint32_t tr_timeline_color(const tr_timeline_layout *l, const char *name, size_t n)
{
    char *z = tr_malloc(n + 1);
    if (!z) return tr_render_color(name, n);
    memcpy(z, name, n);
    z[n] = '\0';
    const tl_entry *en = find_text(l, &l->legend, 0, l->legend.n_slices, z);
    if (!en)
        en = find_text(l, &l->legend, l->legend.n_slices, l->legend.n_slices + l->legend.n_markers,
                       z);
    tr_free(z);
    return en ? en->rgb : tr_render_color(name, n);
}
