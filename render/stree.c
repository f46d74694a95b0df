/*
** stree.c: the hang prefix tree (lib/tr_stree.h) as a picture, STAT's 2D
** view drawn as an icicle.
**
** The tree keeps its members in the depth-first order of their leaves, so
** the members under any node are one contiguous run: a node is drawn as a box
** spanning its run's share of the width, one row per stack level, the root
** (all members) at the top.  Where members part the boxes split, and the
** branch with fewer members (the odd ones out) is drawn warmer: grey for a
** node every member passes, then orange to red as the share falls.  Each box
** names its frame and its member set ("ranks 0-63 except 17") when it has
** room; rows are as tall as fit, so a deep tree gets thinner rows, never a
** cut.
*/
#include "render_impl.h"

#include "tr_stree.h"

#include <math.h>

#define TITLE_PT 12.0
#define TEXT_PT  7.5

/* Grey for everyone, then warmer as the share of members falls. */
static uint32_t share_color(double share)
{
    if (share >= 1) return 0xd9d9d9;
    if (share >= 0.5) return 0xfdd0a2;
    if (share >= 0.1) return 0xfd8d3c;
    return 0xd94801;
}

/* Node N's box: its frame and member set, as much as fits in W pixels. */
static void node_label(tr_canvas *c, const tr_trace *t, const tr_stree *s, uint32_t n, double x,
                       double y, double w, double rh, tr_buf *b)
{
    if (w < 30 || rh < TEXT_PT * c->px_per_pt * 1.1) return;
    tr_buf_reset(b);
    if (n == 0)
        tr_buf_adds(b, "all");
    else
        tr_stree_frame_text(t, s, n, b);
    tr_buf_adds(b, "  ·  ");
    tr_stree_members_text(t, s, s->nodes[n].lo, s->nodes[n].hi, b);
    double fs = TEXT_PT * c->px_per_pt * 1.2;
    uint32_t bg = share_color((double)tr_stree_count(s, n) / (double)s->n_members);
    tr_canvas_text(c, b->p, b->len, x + 3, y + (rh - fs) / 2, TEXT_PT, 0, w - 6, TR_ALIGN_LEFT,
                   tr_render_fill_is_dark(bg) ? TR_RENDER_WHITE : TR_RENDER_INK);
}

static void draw_nodes(tr_canvas *c, const tr_trace *t, const tr_stree *s, double x0, double w,
                       double y0, double rh, tr_render_stats *st)
{
    tr_buf b;
    tr_buf_init(&b, 0);
    double per = w / (double)s->n_members;
    for (uint32_t n = 0; n < s->n_nodes; n++) {
        const tr_stree_node *nd = &s->nodes[n];
        double x = x0 + per * nd->lo, bw = per * (nd->hi - nd->lo), y = y0 + rh * nd->depth;
        uint32_t rgb = share_color((double)tr_stree_count(s, n) / (double)s->n_members);
        tr_canvas_rect(c, x, y, bw > 1.5 ? bw - 0.5 : 1, rh > 2 ? rh - 0.5 : rh, rgb);
        node_label(c, t, s, n, x, y, bw, rh, &b);
        st->frames_drawn++;
    }
    tr_buf_fini(&b);
}

int tr_stree_render(const tr_trace *t, const tr_render_opts *o, const char *path, int format,
                    tr_render_stats *st, tr_error *e)
{
    tr_stree s;
    tr_stree_opts so;
    memset(&so, 0, sizeof so);
    if (tr_stree_build(t, &so, &s, e) != TR_OK) return TR_FATAL;
    int rc;
    if (s.n_members < 2 || s.n_nodes < 2) {
        tr_stree_fini(&s);
        return tr_errorf(e, TR_E_USAGE, NULL,
                         "a stack tree needs the stack samples of two or more threads");
    }
    uint32_t depth = 0;
    for (size_t n = 0; n < s.n_nodes; n++)
        if (s.nodes[n].depth > depth) depth = s.nodes[n].depth;
    double px = o->dpi / 72.0, top = 0.12 * o->dpi + TITLE_PT * 1.5 * px + TEXT_PT * 2.4 * px;
    double rh = TEXT_PT * px * 2, bottom = 0.1 * o->dpi, max = o->height_in * o->dpi;
    double want = top + rh * (depth + 1) + bottom;
    int H = (int)lround(o->height_given || want > max ? max : want);
    if (H < top + bottom + depth + 1) H = (int)(top + bottom + depth + 1);
    rh = (H - top - bottom) / (double)(depth + 1);
    int W = (int)lround(o->width_in * o->dpi);
    tr_canvas c;
    rc = tr_canvas_open(&c, format, path, W, H, o->dpi, e);
    if (rc == TR_OK) {
        tr_buf b;
        tr_buf_init(&b, 0);
        tr_buf_adds(&b, o->title ? o->title : "Where every member is: the stack prefix tree");
        tr_canvas_text(&c, b.p, b.len, W / 2.0, 0.12 * o->dpi, TITLE_PT, 1, W * 0.9,
                       TR_ALIGN_CENTER, TR_RENDER_INK);
        tr_buf_reset(&b);
        tr_buf_addf(&b,
                    "%zu members' last stacks merged, root at the top; width = members; grey: "
                    "all members, orange to red: fewer (the odd ones out)",
                    s.n_members);
        tr_canvas_text(&c, b.p, b.len, W / 2.0, 0.12 * o->dpi + TITLE_PT * 1.5 * px, TEXT_PT, 0,
                       W * 0.95, TR_ALIGN_CENTER, TR_RENDER_FAINT_INK);
        tr_buf_fini(&b);
        double margin = 0.12 * o->dpi;
        draw_nodes(&c, t, &s, margin, W - 2 * margin, top, rh, st);
        st->width_px = W, st->height_px = H, st->lanes = s.n_members;
        rc = tr_canvas_commit(&c, e);
    }
    tr_stree_fini(&s);
    return rc;
}
