/*
** flame.c: flame graphs and icicles of the trace's stack samples, with
** flamegraph.pl's conventions: frame width proportional to samples, siblings
** merged and ordered alphabetically, frames under a minimum width left out.
**
** The merged graph comes straight from the stack trie: samples are summed
** per stack, totals carried up to the parents, and nodes made only for stacks
** wide enough to be drawn, so a profile of millions of distinct stacks costs
** arrays over the trie plus the frames drawn.  Per thread, samples are
** counted per (thread, stack) and each stack's node is found through its
** parent's (memoised); --reverse walks each stack leaf first (the callee
** view).  PNG and PDF are drawn with cairo; the SVG is written directly,
** interactive as flamegraph.pl's and inferno's are.
*/
#include "render_impl.h"

#include "tr_map.h"
#include "tr_text.h"

#include <math.h>
#include <stdlib.h>

#define FRAME_IN       0.12 /* frame height, as flamegraph.pl's 16 px at 150 dpi */
#define FRAME_MAX_IN   0.2  /* ... taller when few levels fill FRAMES_MIN_IN */
#define FRAMES_MIN_IN  0.9
#define FRAME_FLOOR_IN 0.04 /* thinner than this, deeper stacks are cut */
#define TOP_IN         0.05
#define GAP_IN         0.04 /* between the titles and the frames */
#define BOTTOM_IN      0.04

typedef struct fnode {
    uint32_t parent;
    uint32_t label; /* index into the label table */
    uint32_t depth;
    uint64_t total; /* samples in this frame and below */
    uint64_t self;
    double x; /* in samples from the left */
} fnode;

typedef struct label {
    size_t off, len; /* in flame.text */
    uint32_t hash;
    uint32_t rgb;
} label;

typedef struct flame {
    const tr_trace *t;
    const tr_render_opts *o;
    fnode *nodes;
    size_t n_nodes, cap_nodes;
    label *labels;
    size_t n_labels, cap_labels;
    tr_buf text;           /* label bytes */
    uint32_t *label_slots; /* label hash table: index + 1, 0 empty */
    size_t label_cap;
    uint32_t *frame_label; /* per frame id: label + 1, 0 unknown */
    tr_map children;       /* (parent node, label) -> node */
    tr_map memo;           /* (root node, stack) -> node */
    uint32_t *order;       /* nodes sorted by (parent, label text) */
    uint32_t max_depth;
    size_t threads;
    size_t pruned;         /* stacks with samples left out as too narrow */
    uint64_t frameless;    /* samples with no frames: nothing to draw, said in the subtitle */
    tr_flame_next_fn next; /* where the samples come from */
    void *ctx;
    const tr_error *err; /* the source's failure */
    size_t n_sel;        /* tracks selected or not */
    uint64_t met;        /* samples met, selected or not */
} flame;

/*
** Interns the label now at the end of f->text (from OFF), coloured by the
** KEY_LEN bytes at KEY; returns its index or TR_NONE on OOM.
*/
static uint32_t label_intern(flame *f, size_t off, const char *key, size_t key_len)
{
    size_t len = f->text.len - off;
    const char *s = f->text.p + off;
    uint32_t h = (uint32_t)tr_hash_bytes(s, len);
    if ((f->n_labels + 1) * 2 > f->label_cap) {
        size_t cap = f->label_cap ? f->label_cap * 2 : 256;
        uint32_t *slots = tr_calloc(cap, sizeof *slots);
        if (!slots) return TR_NONE;
        for (size_t i = 0; i < f->n_labels; i++) {
            size_t j = f->labels[i].hash & (cap - 1);
            while (slots[j]) j = (j + 1) & (cap - 1);
            slots[j] = (uint32_t)i + 1;
        }
        tr_free(f->label_slots);
        f->label_slots = slots;
        f->label_cap = cap;
    }
    size_t j = h & (f->label_cap - 1);
    while (f->label_slots[j]) {
        const label *l = &f->labels[f->label_slots[j] - 1];
        if (l->hash == h && l->len == len && memcmp(f->text.p + l->off, s, len) == 0) {
            f->text.len = off; /* already known: drop the copy */
            f->text.p[off] = '\0';
            return f->label_slots[j] - 1;
        }
        j = (j + 1) & (f->label_cap - 1);
    }
    if (f->n_labels == f->cap_labels) {
        size_t cap = f->cap_labels ? f->cap_labels * 2 : 256;
        label *more = tr_realloc(f->labels, cap * sizeof *more);
        if (!more) return TR_NONE;
        f->labels = more;
        f->cap_labels = cap;
    }
    label *l = &f->labels[f->n_labels];
    l->off = off;
    l->len = len;
    l->hash = h;
    l->rgb = f->o->color_by == TR_FLAME_BY_MODULE ? tr_render_color(key, key_len)
                                                  : tr_render_flame_color(key, key_len);
    f->label_slots[j] = (uint32_t)f->n_labels + 1;
    return (uint32_t)f->n_labels++;
}

/* A frame's label as py-spy and the folded writer spell it: "function (file:line)". */
static uint32_t frame_label(flame *f, uint32_t frame)
{
    if (f->frame_label[frame]) return f->frame_label[frame] - 1;
    const tr_frame *fr = tr_frame_get(f->t, frame);
    size_t fn_n, file_n, mod_n;
    const char *fn = tr_str_get(f->t, fr->function, &fn_n);
    const char *file = tr_str_get(f->t, fr->file, &file_n);
    const char *mod = tr_str_get(f->t, fr->module, &mod_n);
    size_t off = f->text.len;
    int rc = fn_n ? tr_buf_add(&f->text, fn, fn_n) : tr_buf_adds(&f->text, "??");
    if (file_n) {
        rc |= tr_buf_adds(&f->text, " (");
        rc |= tr_buf_add(&f->text, file, file_n);
        if (fr->line > 0) rc |= tr_buf_addf(&f->text, ":%d", (int)fr->line);
        rc |= tr_buf_addc(&f->text, ')');
    }
    if (rc < 0) return TR_NONE;
    /* Colour by the function alone, as flamegraph.pl does; by module, the module or else the file.
     */
    const char *key = fn_n ? fn : "??";
    size_t key_len = fn_n ? fn_n : 2;
    if (f->o->color_by == TR_FLAME_BY_MODULE) {
        key = mod_n ? mod : file_n ? file : key;
        key_len = mod_n ? mod_n : file_n ? file_n : key_len;
    }
    uint32_t l = label_intern(f, off, key, key_len);
    if (l != TR_NONE) f->frame_label[frame] = l + 1;
    return l;
}

/* The child LAB of PARENT, added if absent; PARENT TR_NONE adds the root. */
static uint32_t node_add(flame *f, uint32_t parent, uint32_t lab)
{
    uint32_t *slot = NULL;
    if (parent != TR_NONE) {
        int is_new;
        slot = tr_map_slot(&f->children, ((uint64_t)(parent + 1) << 32) | lab, &is_new);
        if (!slot) return TR_NONE;
        if (!is_new) return *slot;
    }
    if (f->n_nodes == f->cap_nodes) {
        size_t cap = f->cap_nodes ? f->cap_nodes * 2 : 1024;
        fnode *more = tr_realloc(f->nodes, cap * sizeof *more);
        if (!more) return TR_NONE;
        f->nodes = more;
        f->cap_nodes = cap;
    }
    fnode *n = &f->nodes[f->n_nodes];
    memset(n, 0, sizeof *n);
    n->parent = parent;
    n->label = lab;
    n->depth = parent == TR_NONE ? 0 : f->nodes[parent].depth + 1;
    if (n->depth > f->max_depth) f->max_depth = n->depth;
    if (slot) *slot = (uint32_t)f->n_nodes;
    return (uint32_t)f->n_nodes++;
}

/* The node of STACK under ROOT, creating the path; memoised per (root, stack). */
static uint32_t stack_node(flame *f, uint32_t root, uint32_t stack, tr_vec *path)
{
    const tr_trace *t = f->t;
    path->len = 0;
    uint32_t node = root;
    for (uint32_t s = stack; s != 0; s = tr_stack_parent(t, s)) {
        uint32_t known = tr_map_find(&f->memo, (uint64_t)root << 32 | s);
        if (known != UINT32_MAX) {
            node = known;
            break;
        }
        uint32_t *p = tr_vec_push(path);
        if (!p) return TR_NONE;
        *p = s;
    }
    for (size_t i = path->len; i-- > 0;) {
        uint32_t s = TR_VEC_AT(path, uint32_t, i);
        uint32_t lab = frame_label(f, tr_stack_frame(t, s));
        if (lab == TR_NONE) return TR_NONE;
        node = node_add(f, node, lab);
        if (node == TR_NONE) return TR_NONE;
        int is_new;
        uint32_t *slot = tr_map_slot(&f->memo, (uint64_t)root << 32 | s, &is_new);
        if (!slot) return TR_NONE;
        *slot = node;
    }
    return node;
}

/* The callee view: the stack leaf first. */
static uint32_t stack_node_reversed(flame *f, uint32_t root, uint32_t stack)
{
    uint32_t node = root;
    for (uint32_t s = stack; s != 0; s = tr_stack_parent(f->t, s)) {
        uint32_t lab = frame_label(f, tr_stack_frame(f->t, s));
        if (lab == TR_NONE) return TR_NONE;
        node = node_add(f, node, lab);
        if (node == TR_NONE) return TR_NONE;
    }
    return node;
}

/* A thread's root frame in --per-thread graphs: "[process: ]thread". */
static uint32_t thread_root(flame *f, uint32_t track, int many_processes)
{
    const tr_track *tk = tr_track_get(f->t, track);
    size_t off = f->text.len;
    int rc = 0;
    if (many_processes) {
        rc |= tr_render_process_label(&f->text, f->t, tk->process);
        rc |= tr_buf_adds(&f->text, ": ");
    }
    size_t n;
    const char *name = tr_str_get(f->t, tk->name, &n);
    rc |= n ? tr_buf_add(&f->text, name, n)
            : tr_buf_addf(&f->text, "thread %lld", (long long)tk->tid);
    if (rc < 0) return TR_NONE;
    uint32_t lab = label_intern(f, off, f->text.p + off, f->text.len - off);
    return lab == TR_NONE ? TR_NONE : node_add(f, 0, lab);
}

/* Folded stacks carry a count: one sample stands for "count" of them. */
typedef struct weight_cache {
    uint32_t set;
    uint64_t weight;
} weight_cache;

static uint64_t sample_weight(const tr_trace *t, uint32_t set, weight_cache *c)
{
    if (set == c->set) return c->weight;
    uint64_t w = tr_sample_weight(t, set);
    c->set = set;
    c->weight = w;
    return w;
}

static const flame *sort_flame; /* qsort has no user pointer in C11 */

static int order_cmp(const void *pa, const void *pb)
{
    const flame *f = sort_flame;
    const fnode *a = &f->nodes[*(const uint32_t *)pa], *b = &f->nodes[*(const uint32_t *)pb];
    if (a->parent != b->parent) return a->parent < b->parent ? -1 : 1;
    const label *la = &f->labels[a->label], *lb = &f->labels[b->label];
    size_t na = la->len, nb = lb->len;
    int c = memcmp(f->text.p + la->off, f->text.p + lb->off, na < nb ? na : nb);
    return c ? c : na < nb ? -1 : na > nb;
}

static void flame_free(flame *f)
{
    tr_free(f->nodes);
    tr_free(f->labels);
    tr_buf_fini(&f->text);
    tr_free(f->label_slots);
    tr_free(f->frame_label);
    tr_map_fini(&f->children);
    tr_map_fini(&f->memo);
    tr_free(f->order);
}

/* The model's samples, one at a time (a tr_flame_next_fn). */
typedef struct model_samples {
    tr_samples sm;
    size_t i;
} model_samples;

static int model_next(void *ctx, tr_event_rec *r)
{
    model_samples *m = ctx;
    if (m->i >= m->sm.n) return TR_END;
    size_t i = m->i++;
    *r = (tr_event_rec){.ts = m->sm.ts[i],
                        .seq = i,
                        .track = m->sm.track[i],
                        .args = m->sm.args[i],
                        .stack = m->sm.stack[i],
                        .kind = TR_EV_SAMPLE};
    return TR_OK;
}

/* The next sample of the source in the window and on a selected track: TR_OK, TR_END or failed. */
static int next_sample(flame *f, const uint8_t *sel, tr_event_rec *r)
{
    const tr_render_opts *o = f->o;
    int rc;
    while ((rc = f->next(f->ctx, r)) == TR_OK) {
        if (r->kind != TR_EV_SAMPLE) continue;
        f->met++;
        if (r->track < f->n_sel && sel[r->track] && !(o->has_since && r->ts < o->since) &&
            !(o->has_until && r->ts > o->until))
            return TR_OK;
    }
    return rc;
}

/* Counts the selected samples per (root, stack) into TALLY: pairs of key and count. */
static int count_samples(flame *f, uint32_t *roots, const uint8_t *sel, int many_processes,
                         tr_vec *tally)
{
    const tr_trace *t = f->t;
    const tr_render_opts *o = f->o;
    tr_map counts = {0};
    weight_cache cache = {0, 1};
    tr_event_rec r;
    int rc;
    while ((rc = next_sample(f, sel, &r)) == TR_OK) {
        uint32_t tk = r.track;
        if (r.stack == 0) {
            f->frameless += sample_weight(t, r.args, &cache);
            continue;
        }
        if (roots[tk] == TR_NONE) {
            roots[tk] = o->per_thread ? thread_root(f, tk, many_processes) : 0;
            if (roots[tk] == TR_NONE) {
                rc = TR_FATAL;
                break;
            }
            f->threads++;
        }
        uint64_t key = (uint64_t)roots[tk] << 32 | r.stack;
        int is_new;
        uint32_t *slot = tr_map_slot(&counts, key, &is_new);
        uint64_t *pair = NULL;
        if (!slot) {
            rc = TR_FATAL;
        } else if (!is_new) {
            pair = &TR_VEC_AT(tally, uint64_t, 2 * (size_t)*slot);
        } else {
            *slot = (uint32_t)(tally->len / 2);
            pair = tr_vec_push(tally);
            if (pair && tr_vec_push(tally)) {
                pair = &TR_VEC_AT(tally, uint64_t, tally->len - 2);
                pair[0] = key;
            } else {
                rc = TR_FATAL;
            }
        }
        if (rc != TR_OK) break;
        pair[1] += sample_weight(t, r.args, &cache);
    }
    tr_map_fini(&counts);
    return rc == TR_END ? TR_OK : rc;
}

/* The plot's width in pixels, which decides how many samples a frame needs to be drawn. */
static double plot_width(const tr_render_opts *o)
{
    return (o->width_in - 0.24) * o->dpi;
}

/* The merged graph from the trie: totals per stack, nodes for the stacks wide enough. */
static int build_from_trie(flame *f, const uint8_t *sel)
{
    const tr_trace *t = f->t;
    size_t ns = tr_stack_count(t);
    uint64_t *tot = tr_calloc(ns + 1, sizeof *tot);
    uint32_t *node_of = tr_malloc((ns + 1) * sizeof *node_of);
    uint8_t *seen = tr_calloc(tr_track_count(t) + 1, 1);
    int rc = TR_FATAL;
    if (!tot || !node_of || !seen) goto done;
    weight_cache cache = {0, 1};
    tr_event_rec r;
    while ((rc = next_sample(f, sel, &r)) == TR_OK) {
        if (r.stack >= ns) continue;
        if (r.stack == 0) {
            f->frameless += sample_weight(t, r.args, &cache);
            continue;
        }
        if (!seen[r.track]) f->threads++;
        seen[r.track] = 1;
        tot[r.stack] += sample_weight(t, r.args, &cache);
    }
    if (rc != TR_END) goto done;
    rc = TR_FATAL;
    /* A parent's id is below its children's: one backward pass carries the totals up. */
    for (size_t s = ns; s-- > 1;) tot[tr_stack_parent(t, (uint32_t)s)] += tot[s];
    f->nodes[0].total = tot[0];
    double min = f->o->min_width_px * (double)tot[0] / plot_width(f->o);
    node_of[0] = 0;
    for (size_t s = 1; s < ns; s++) {
        uint32_t parent = node_of[tr_stack_parent(t, (uint32_t)s)];
        node_of[s] = TR_NONE;
        if (parent == TR_NONE || tot[s] == 0) continue;
        if ((double)tot[s] < min) {
            f->pruned++;
            continue;
        }
        uint32_t lab = frame_label(f, tr_stack_frame(t, (uint32_t)s));
        uint32_t node = lab == TR_NONE ? TR_NONE : node_add(f, parent, lab);
        if (node == TR_NONE) goto done;
        f->nodes[node].total += tot[s];
        node_of[s] = node;
    }
    rc = TR_OK;
done:
    tr_free(tot);
    tr_free(node_of);
    tr_free(seen);
    return rc;
}

static int flame_build(flame *f, tr_error *e)
{
    const tr_trace *t = f->t;
    tr_buf_init(&f->text, 0);
    f->frame_label = tr_calloc(tr_frame_count(t) + 1, sizeof *f->frame_label);
    if (!f->frame_label || tr_buf_adds(&f->text, "all") < 0) return tr_error_nomem(e);
    uint32_t all = label_intern(f, 0, "all", 3);
    if (all == TR_NONE || node_add(f, TR_NONE, all) == TR_NONE) return tr_error_nomem(e);

    size_t n_tracks = tr_track_count(t);
    uint32_t *roots = tr_malloc((n_tracks + 1) * sizeof *roots);
    uint8_t *sel = tr_malloc(n_tracks + 1);
    tr_vec path, tally;
    tr_vec_init(&path, sizeof(uint32_t));
    tr_vec_init(&tally, sizeof(uint64_t));
    int rc = TR_OK, many_processes = 0;
    if (!roots || !sel) goto nomem;
    for (size_t i = 0; i < n_tracks; i++) {
        roots[i] = TR_NONE;
        sel[i] = (uint8_t)tr_render_track_selected(t, f->o, (uint32_t)i);
        if (tr_track_get(t, (uint32_t)i)->process != tr_track_get(t, 0)->process)
            many_processes = 1;
    }
    f->n_sel = n_tracks;
    if (!f->o->reverse && !f->o->per_thread) {
        if ((rc = build_from_trie(f, sel)) < 0) goto failed;
    } else {
        /* Count first: a profile repeats few stacks many times. */
        if ((rc = count_samples(f, roots, sel, many_processes, &tally)) < 0) goto failed;
        for (size_t i = 0; i < tally.len; i += 2) {
            uint64_t key = TR_VEC_AT(&tally, uint64_t, i);
            uint32_t root = (uint32_t)(key >> 32), stack = (uint32_t)key;
            uint32_t node = f->o->reverse ? stack_node_reversed(f, root, stack)
                                          : stack_node(f, root, stack, &path);
            if (node == TR_NONE) goto nomem;
            f->nodes[node].self += TR_VEC_AT(&tally, uint64_t, i + 1);
        }
        /* Children come after their parent: one backward pass sums the totals. */
        for (size_t i = f->n_nodes; i-- > 0;) {
            fnode *n = &f->nodes[i];
            n->total += n->self;
            if (n->parent != TR_NONE) f->nodes[n->parent].total += n->total;
        }
    }
    f->order = tr_malloc(f->n_nodes * sizeof *f->order);
    if (!f->order) goto nomem;
    for (size_t i = 0; i < f->n_nodes; i++) f->order[i] = (uint32_t)i;
    sort_flame = f;
    tr_qsort(f->order + 1, f->n_nodes - 1, sizeof *f->order, order_cmp);
    /* Siblings side by side in alphabetical order; a parent is placed before its children. */
    uint32_t parent = TR_NONE;
    double x = 0;
    for (size_t i = 1; i < f->n_nodes; i++) {
        fnode *n = &f->nodes[f->order[i]];
        if (n->parent != parent) {
            parent = n->parent;
            x = f->nodes[parent].x;
        }
        n->x = x;
        x += (double)n->total;
    }
    goto done;
failed:
    /* A source's failure is in its error; anything else is memory. */
    if (f->err && f->err->code != TR_E_NONE) {
        *e = *f->err;
        goto done;
    }
nomem:
    rc = tr_error_nomem(e);
done:
    tr_vec_fini(&path);
    tr_vec_fini(&tally);
    tr_free(roots);
    tr_free(sel);
    return rc;
}

/* ---- layout shared by cairo and the SVG ---- */

typedef struct geom {
    int W, H;
    double px_per_pt;
    double x0, w;       /* plot left and width */
    double top, bottom; /* frame area */
    double fh;          /* frame height */
    double per_sample;  /* pixels per sample */
    double title_y, subtitle_y, label_pt;
    double details_h; /* the SVG's details line under the frames */
    int icicle;
    int levels;          /* stack levels drawn */
    int cut;             /* stack levels deeper than fit, not drawn */
    uint8_t *has_frames; /* per level drawn: 1 when a frame is drawn there */
} geom;

struct tr_flame_layout {
    tr_render_opts o;
    int format;
    flame f;
    geom g;
};

/* The deepest level holding a frame wide enough to draw, and which levels hold one. */
static int drawn_levels(const flame *f, const geom *g, uint8_t *has)
{
    int deepest = 0;
    for (size_t i = 0; i < f->n_nodes; i++) {
        const fnode *n = &f->nodes[i];
        if (n->total == 0 || (double)n->total * g->per_sample < f->o->min_width_px) continue;
        if ((int)n->depth > deepest) deepest = (int)n->depth;
        if (has) has[n->depth] = 1;
    }
    return deepest + 1;
}

/*
** Frames are FRAME_IN tall, thinner when the deepest stack would not fit in
** the height, down to FRAME_FLOOR_IN; stacks deeper than that are cut.  The
** picture is as tall as the frames need unless its height was given.
*/
static int flame_geom(const flame *f, geom *g, int format)
{
    const tr_render_opts *o = f->o;
    double dpi = o->dpi;
    g->W = (int)lround(o->width_in * dpi);
    g->px_per_pt = dpi / 72.0;
    g->title_y = TOP_IN * dpi;
    g->subtitle_y = g->title_y + 12 * g->px_per_pt * 1.25;
    g->top = g->subtitle_y + 7 * g->px_per_pt * 1.3 + GAP_IN * dpi;
    g->details_h = format == TR_RENDER_SVG ? 7 * g->px_per_pt * 1.8 : 0;
    g->x0 = 0.12 * dpi;
    g->w = plot_width(o);
    g->per_sample = f->nodes[0].total ? g->w / (double)f->nodes[0].total : 0;
    int rows = drawn_levels(f, g, NULL);
    double avail = fmax(1, o->height_in * dpi - g->top - g->details_h - BOTTOM_IN * dpi);
    double floor_h = fmax(2, FRAME_FLOOR_IN * dpi);
    g->fh = fmin(fmin(fmax(FRAME_IN, FRAMES_MIN_IN / rows), FRAME_MAX_IN) * dpi, avail / rows);
    g->levels = rows;
    if (g->fh < floor_h) {
        g->fh = floor_h;
        g->levels = (int)(avail / floor_h);
    }
    g->cut = rows - g->levels;
    double frames = g->levels * g->fh;
    g->H = o->height_given ? (int)lround(o->height_in * dpi)
                           : (int)ceil(g->top + frames + g->details_h + BOTTOM_IN * dpi);
    /* A flame grows up from the bottom of its area, an icicle down from the top. */
    g->icicle = o->kind == TR_RENDER_ICICLE;
    g->bottom =
        o->height_given && !g->icicle ? g->H - g->details_h - BOTTOM_IN * dpi : g->top + frames;
    if (o->height_given && g->icicle) g->bottom = g->top + frames;
    g->label_pt = fmin(7, g->fh * 0.62 / g->px_per_pt);
    g->has_frames = tr_calloc((size_t)rows + 1, 1);
    if (!g->has_frames) return TR_FATAL;
    drawn_levels(f, g, g->has_frames);
    return TR_OK;
}

/* ^0 when node I is not drawn (too narrow, or deeper than the picture). */
static int frame_box(const flame *f, const geom *g, uint32_t i, double *x, double *y, double *w)
{
    const fnode *n = &f->nodes[i];
    *w = (double)n->total * g->per_sample;
    if (*w < f->o->min_width_px || n->total == 0 || (int)n->depth >= g->levels) return 0;
    *x = g->x0 + n->x * g->per_sample;
    *y = g->icicle ? g->top + n->depth * g->fh : g->bottom - (n->depth + 1) * g->fh;
    return 1;
}

/* ^1 when node I is drawn on the last level that fits and has frames cut above (below) it. */
static int frame_cut(const flame *f, const geom *g, const uint8_t *cut_parent, uint32_t i)
{
    return g->cut > 0 && (int)f->nodes[i].depth == g->levels - 1 && cut_parent[i];
}

/* Per node: 1 when a child wide enough to draw is cut off. */
static uint8_t *cut_parents(const flame *f, const geom *g)
{
    uint8_t *cut = tr_calloc(f->n_nodes + 1, 1);
    if (!cut || g->cut == 0) return cut;
    for (size_t i = 0; i < f->n_nodes; i++) {
        const fnode *n = &f->nodes[i];
        if ((int)n->depth == g->levels && n->parent != TR_NONE &&
            (double)n->total * g->per_sample >= f->o->min_width_px)
            cut[n->parent] = 1;
    }
    return cut;
}

static int titles(const flame *f, const geom *g, tr_buf *title, tr_buf *sub)
{
    const tr_render_opts *o = f->o;
    int rc = 0;
    if (o->title)
        rc |= tr_buf_adds(title, o->title);
    else
        rc |= tr_buf_adds(title, o->kind == TR_RENDER_ICICLE ? "Icicle Graph" : "Flame Graph");
    if (!o->title && o->reverse) rc |= tr_buf_adds(title, " (callee view)");
    rc |= tr_buf_addf(sub, "%llu samples, %zu %s", (unsigned long long)f->nodes[0].total,
                      f->threads, f->threads == 1 ? "thread" : "threads");
    rc |= tr_buf_adds(sub, o->per_thread ? " (a root frame each)" : " merged");
    if (f->frameless)
        rc |= tr_buf_addf(sub, "; %llu without frames left out", (unsigned long long)f->frameless);
    rc |= tr_buf_adds(sub, o->color_by == TR_FLAME_BY_MODULE ? "; colour by module"
                                                             : "; colour by name");
    if (g->cut > 0)
        rc |= tr_buf_addf(sub, "; stacks cut at %d levels (%d more, frames marked with a bar)",
                          g->levels, g->cut);
    return rc < 0 ? TR_FATAL : TR_OK;
}

static int draw_cairo(const flame *f, const geom *g, const char *path, int format,
                      tr_render_stats *st, tr_error *e)
{
    tr_canvas c;
    int rc = tr_canvas_open(&c, format, path, g->W, g->H, f->o->dpi, e);
    if (rc < 0) return rc;
    tr_buf title, sub;
    tr_buf_init(&title, 0);
    tr_buf_init(&sub, 0);
    if (titles(f, g, &title, &sub) < 0) {
        tr_buf_fini(&title);
        tr_buf_fini(&sub);
        tr_canvas_abort(&c);
        return tr_error_nomem(e);
    }
    tr_canvas_text(&c, title.p, title.len, g->W / 2.0, g->title_y, 12, 1, g->W * 0.9,
                   TR_ALIGN_CENTER, TR_RENDER_INK);
    tr_canvas_text(&c, sub.p, sub.len, g->W / 2.0, g->subtitle_y, 7, 0, g->W * 0.95,
                   TR_ALIGN_CENTER, TR_RENDER_FAINT_INK);
    tr_buf_fini(&title);
    tr_buf_fini(&sub);
    uint8_t *cut = cut_parents(f, g);
    if (!cut) {
        tr_canvas_abort(&c);
        return tr_error_nomem(e);
    }
    double text_min = 3 * g->label_pt * g->px_per_pt * 0.6;
    double th = g->label_pt * g->px_per_pt * 1.17;
    double bar = fmax(1.5, g->fh * 0.25);
    for (size_t i = 0; i < f->n_nodes; i++) {
        double x, y, w;
        if (!frame_box(f, g, (uint32_t)i, &x, &y, &w)) {
            st->frames_hidden++;
            continue;
        }
        const label *l = &f->labels[f->nodes[i].label];
        double gap = w >= 3 ? 0.5 : 0, vgap = g->fh >= 5 ? 1 : 0;
        tr_canvas_rect(&c, x, y, w - gap, g->fh - vgap, l->rgb);
        st->frames_drawn++;
        /* A frame whose callees are cut off: a dark bar on the edge they would grow from. */
        if (frame_cut(f, g, cut, (uint32_t)i))
            tr_canvas_rect(&c, x, g->icicle ? y + g->fh - vgap - bar : y, w - gap, bar,
                           TR_RENDER_INK);
        if (w - 4 >= text_min && g->fh >= 6)
            tr_canvas_text(&c, f->text.p + l->off, l->len, x + 2, y + (g->fh - vgap - th) / 2,
                           g->label_pt, 0, w - 4, TR_ALIGN_LEFT,
                           tr_render_fill_is_dark(l->rgb) ? 0xffffff : 0x000000);
    }
    tr_free(cut);
    return tr_canvas_commit(&c, e);
}

/* ---- the interactive SVG ---- */

/* XML text: escaped, and bytes that are not UTF-8 or not allowed in XML become '?'. */
static int add_xml(tr_buf *b, const char *s, size_t n)
{
    int rc = 0;
    for (size_t i = 0; i < n && rc >= 0;) {
        unsigned char ch = (unsigned char)s[i];
        const char *rep = NULL;
        switch (ch) {
        case '&':
            rep = "&amp;";
            break;
        case '<':
            rep = "&lt;";
            break;
        case '>':
            rep = "&gt;";
            break;
        case '"':
            rep = "&quot;";
            break;
        default:
            break;
        }
        if (rep) {
            rc = tr_buf_adds(b, rep);
            i++;
        } else if (ch < 0x20) {
            rc = tr_buf_addc(b, ch == '\t' ? ' ' : '?');
            i++;
        } else if (ch < 0x80) {
            rc = tr_buf_addc(b, (char)ch);
            i++;
        } else {
            /* The valid UTF-8 run of non-ASCII characters from here; a bad byte is replaced. */
            const gchar *end;
            g_utf8_validate_len(s + i, n - i, &end);
            size_t k = i, valid = (size_t)(end - s);
            while (k < valid && (unsigned char)s[k] >= 0x80) k++;
            if (k == i) {
                rc = tr_buf_addc(b, '?');
                i++;
            } else {
                rc = tr_buf_add(b, s + i, k - i);
                i = k;
            }
        }
    }
    return rc;
}

/*
** The script: click a frame to zoom to it (its ancestors span the width, the
** frames outside it hide), "Reset Zoom" or Escape to go back, "Search" or
** Ctrl-F for a regular expression whose matching frames turn magenta, with the
** share of samples they hold.  Positions are read back from the rectangles.
*/
static const char svg_script[] =
    "var frames=[],W,X0,FS,inverted,details,unzoomBtn,matchedTxt,searching=null;\n"
    "function init(evt){var svg=document.documentElement;W=+svg.getAttribute('data-plotw');"
    "X0=+svg.getAttribute('data-plotx');FS=+svg.getAttribute('data-fontsize');"
    "inverted=svg.getAttribute('data-icicle')=='1';details=document.getElementById('details');"
    "unzoomBtn=document.getElementById('unzoom');matchedTxt=document.getElementById('matched');"
    "var gs=document.getElementById('frames').getElementsByTagName('g');"
    "for(var i=0;i<gs.length;i++){var g=gs[i],r=g.getElementsByTagName('rect')[0],"
    "t=g.getElementsByTagName('title')[0].textContent;"
    "frames.push({g:g,r:r,x:+r.getAttribute('x'),w:+r.getAttribute('width'),y:+r.getAttribute('y'),"
    "fill:r.getAttribute('fill'),name:t.substring(0,t.lastIndexOf(' (')),"
    "n:+g.getAttribute('data-n'),txt:g.getElementsByTagName('text')[0]});"
    "g.onclick=zoomer(frames.length-1);g.onmouseover=shower(frames.length-1);"
    "g.onmouseout=function(){details.textContent=' ';};}"
    "window.addEventListener('keydown',function(e){if(e.keyCode===114||((e.ctrlKey||e.metaKey)"
    "&&e.keyCode===70)){e.preventDefault();search_prompt();}else if(e.keyCode===27)unzoom();});"
    "relabel();}\n"
    "function shower(i){return function(){details.textContent=frames[i].g"
    ".getElementsByTagName('title')[0].textContent;};}\n"
    "function fit(f,x,w){f.r.setAttribute('x',x);f.r.setAttribute('width',Math.max(0,w-0.5));"
    "if(f.txt){f.txt.setAttribute('x',x+3);var n=Math.floor((w-6)/(FS*0.6));"
    "f.txt.textContent=n<3?'':(f.name.length<=n?f.name:f.name.substring(0,n-2)+'..');}}\n"
    "function relabel(){for(var i=0;i<frames.length;i++){var f=frames[i];"
    "if(f.g.style.display!='none')fit(f,+f.r.getAttribute('x'),+f.r.getAttribute('width')+0.5);}}\n"
    "function below(a,b){return inverted?a.y>b.y:a.y<b.y;}\n"
    "function zoomer(i){return function(){zoom(frames[i]);};}\n"
    "function zoom(z){var s=W/z.w;unzoomBtn.style.opacity='1';"
    "for(var i=0;i<frames.length;i++){var f=frames[i];var inside=f.x>=z.x-1e-6&&"
    "f.x+f.w<=z.x+z.w+1e-6;var above=f.x<=z.x+1e-6&&f.x+f.w>=z.x+z.w-1e-6&&!below(f,z);"
    "if(f===z||above){f.g.style.display='';f.g.style.opacity=f===z?'1':'0.6';fit(f,X0,W);}"
    "else if(inside&&below(f,z)){f.g.style.display='';f.g.style.opacity='1';"
    "fit(f,X0+(f.x-z.x)*s,f.w*s);}else f.g.style.display='none';}}\n"
    "function unzoom(){unzoomBtn.style.opacity='0';for(var i=0;i<frames.length;i++){var "
    "f=frames[i];"
    "f.g.style.display='';f.g.style.opacity='1';fit(f,f.x,f.w+0.5);}}\n"
    "function search_prompt(){if(searching){reset_search();return;}"
    "var t=prompt('Search frames for (regular expression):','');if(t)search(t);}\n"
    "function reset_search(){searching=null;matchedTxt.textContent=' ';"
    "document.getElementById('search').textContent='Search';"
    "for(var i=0;i<frames.length;i++)frames[i].r.setAttribute('fill',frames[i].fill);}\n"
    "function search(term){var re;try{re=new RegExp(term);}catch(e){alert(e);return;}"
    "searching=term;var hits=[];for(var i=0;i<frames.length;i++){var f=frames[i];"
    "if(re.test(f.name)){f.r.setAttribute('fill','rgb(230,0,230)');hits.push(f);}"
    "else f.r.setAttribute('fill',f.fill);}"
    "hits.sort(function(a,b){return a.x-b.x||b.w-a.w;});var sum=0,end=-1,total=+document"
    ".documentElement.getAttribute('data-total');for(var k=0;k<hits.length;k++){"
    "if(hits[k].x>=end-1e-6){sum+=hits[k].n;end=hits[k].x+hits[k].w;}}"
    "document.getElementById('search').textContent='Reset Search';"
    "matchedTxt.textContent='Matched: '+(total?(100*sum/total).toFixed(1):'0')+'%';}\n";

static int svg_head(const flame *f, const geom *g, tr_buf *b)
{
    tr_buf title, sub;
    tr_buf_init(&title, 0);
    tr_buf_init(&sub, 0);
    double fs = g->label_pt * g->px_per_pt;
    double small = 7 * g->px_per_pt, big = 12 * g->px_per_pt;
    int rc = titles(f, g, &title, &sub);
    rc |= tr_buf_addf(b,
                      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
                      "<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                      "xmlns=\"http://www.w3.org/2000/svg\" onload=\"init(evt)\" "
                      "data-plotx=\"%.2f\" data-plotw=\"%.2f\" data-fontsize=\"%.2f\" "
                      "data-icicle=\"%d\" data-total=\"%llu\">\n",
                      g->W, g->H, g->W, g->H, g->x0, g->w, fs, g->icicle,
                      (unsigned long long)f->nodes[0].total);
    rc |= tr_buf_addf(b,
                      "<style>text{font-family:'DejaVu Sans',Verdana,sans-serif;font-size:%.2fpx;"
                      "fill:#000}#frames g{cursor:pointer}#frames g:hover rect{stroke:#000;"
                      "stroke-width:0.5}#title{font-size:%.2fpx;font-weight:bold}"
                      ".btn{cursor:pointer;fill:#333}#unzoom{opacity:0}</style>\n"
                      "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n",
                      fs, big, svg_script);
    rc |= tr_buf_addf(b, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
                      g->W, g->H);
    rc |= tr_buf_addf(b, "<text id=\"title\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">",
                      g->W / 2.0, g->title_y + big);
    rc |= add_xml(b, title.p, title.len);
    rc |= tr_buf_addf(b,
                      "</text>\n<text id=\"subtitle\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" "
                      "style=\"font-size:%.2fpx;fill:#666\">",
                      g->W / 2.0, g->subtitle_y + small, small);
    rc |= add_xml(b, sub.p, sub.len);
    double by = g->title_y + big;
    double details_y = g->H - BOTTOM_IN * f->o->dpi - small * 0.5;
    rc |= tr_buf_addf(b,
                      "</text>\n<text id=\"unzoom\" class=\"btn\" x=\"%.2f\" y=\"%.2f\" "
                      "onclick=\"unzoom()\">Reset Zoom</text>\n"
                      "<text id=\"search\" class=\"btn\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\" "
                      "onclick=\"search_prompt()\">Search</text>\n"
                      "<text id=\"matched\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\"> </text>\n"
                      "<text id=\"details\" x=\"%.2f\" y=\"%.2f\"> </text>\n<g id=\"frames\">\n",
                      g->x0, by, g->x0 + g->w, by, g->x0 + g->w, details_y, g->x0, details_y);
    tr_buf_fini(&title);
    tr_buf_fini(&sub);
    return rc < 0 ? TR_FATAL : TR_OK;
}

/* One frame: a group with its title, rectangle and label cut to fit. */
static int svg_frame(const flame *f, const geom *g, uint32_t i, double x, double y, double w,
                     int cut, tr_buf *b)
{
    const fnode *n = &f->nodes[i];
    const label *l = &f->labels[n->label];
    const char *name = f->text.p + l->off;
    uint64_t total = f->nodes[0].total;
    double fs = g->label_pt * g->px_per_pt;
    int rc = tr_buf_addf(b, "<g data-n=\"%llu\"><title>", (unsigned long long)n->total);
    rc |= add_xml(b, name, l->len);
    rc |= tr_buf_addf(b, " (%llu sample%s, %.2f%%)%s</title>", (unsigned long long)n->total,
                      n->total == 1 ? "" : "s", 100.0 * (double)n->total / (double)total,
                      cut ? " [deeper frames cut]" : "");
    /* A frame whose callees are cut off has a dark edge. */
    rc |= tr_buf_addf(b,
                      "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                      "fill=\"#%06x\" rx=\"1\"%s/>",
                      x, y, fmax(0, w - 0.5), g->fh - (g->fh >= 5 ? 1 : 0), (unsigned)l->rgb,
                      cut ? " stroke=\"#222222\" stroke-width=\"2\"" : "");
    /* The label is cut to the frame's width here; the script recuts it on zoom. */
    size_t fit = (size_t)fmax(0, (w - 6) / (fs * 0.6));
    rc |= tr_buf_addf(b, "<text x=\"%.2f\" y=\"%.2f\">", x + 3, y + g->fh * 0.5 + fs * 0.35);
    if (fit >= 3 && g_utf8_validate_len(name, l->len, NULL)) {
        if (g_utf8_strlen(name, (gssize)l->len) <= (glong)fit) {
            rc |= add_xml(b, name, l->len);
        } else {
            const char *cut = g_utf8_offset_to_pointer(name, (glong)fit - 2);
            rc |= add_xml(b, name, (size_t)(cut - name));
            rc |= tr_buf_adds(b, "..");
        }
    }
    rc |= tr_buf_adds(b, "</text></g>\n");
    return rc < 0 ? TR_FATAL : TR_OK;
}

static int write_svg(const flame *f, const geom *g, const char *path, tr_render_stats *st,
                     tr_error *e)
{
    tr_buf b;
    tr_buf_init(&b, 0);
    tr_output *out = NULL;
    uint8_t *cut = cut_parents(f, g);
    int rc = cut ? tr_output_open(&out, path, e) : tr_error_nomem(e);
    if (rc < 0) goto done;
    if (svg_head(f, g, &b) < 0) goto nomem;
    for (size_t i = 0; i < f->n_nodes; i++) {
        double x, y, w;
        if (!frame_box(f, g, (uint32_t)i, &x, &y, &w)) {
            st->frames_hidden++;
            continue;
        }
        if (svg_frame(f, g, (uint32_t)i, x, y, w, frame_cut(f, g, cut, (uint32_t)i), &b) < 0)
            goto nomem;
        st->frames_drawn++;
        /* Write in pieces: a profile's SVG can be large. */
        if (b.len > (1 << 20)) {
            rc = tr_output_write(out, b.p, b.len, e);
            if (rc < 0) goto done;
            tr_buf_reset(&b);
        }
    }
    if (tr_buf_adds(&b, "</g>\n</svg>\n") < 0) goto nomem;
    rc = tr_output_write(out, b.p, b.len, e);
    if (rc < 0) goto done;
    rc = tr_output_commit(out, e);
    out = NULL;
    goto done;
nomem:
    rc = tr_error_nomem(e);
done:
    tr_output_abort(out);
    tr_buf_fini(&b);
    tr_free(cut);
    return rc;
}

/* ---- the layout ---- */

void tr_flame_layout_free(tr_flame_layout *l)
{
    if (!l) return;
    flame_free(&l->f);
    tr_free(l->g.has_frames);
    tr_free(l);
}

int tr_flame_layout_from(const tr_trace *t, const tr_render_opts *o, int format,
                         tr_flame_next_fn next, void *ctx, const tr_error *err,
                         tr_flame_layout **out, tr_error *e)
{
    *out = NULL;
    tr_flame_layout *l = tr_calloc(1, sizeof *l);
    if (!l) return tr_error_nomem(e);
    l->o = *o;
    l->format = format;
    l->f.t = t;
    l->f.o = &l->o;
    l->f.next = next;
    l->f.ctx = ctx;
    l->f.err = err;
    unsigned mark = tr_trace_read_failures(t);
    int rc = flame_build(&l->f, e);
    /* a sample's weight is an arg: one not read for want of memory would count 1 */
    if (rc >= 0) rc = tr_trace_reads_ok(t, mark, e);
    if (rc >= 0 && l->f.nodes[0].total == 0)
        rc = tr_errorf(e, TR_E_USAGE, NULL,
                       l->f.met ? "no stack samples in the window and lanes selected"
                                : "the trace has no stack samples to draw a flame graph of");
    if (rc >= 0 && flame_geom(&l->f, &l->g, format) < 0) rc = tr_error_nomem(e);
    if (rc < 0) {
        tr_flame_layout_free(l);
        return rc;
    }
    *out = l;
    return TR_OK;
}

int tr_flame_layout_new(const tr_trace *t, const tr_render_opts *o, int format,
                        tr_flame_layout **out, tr_error *e)
{
    model_samples m = {.i = 0};
    tr_trace_samples(t, &m.sm);
    return tr_flame_layout_from(t, o, format, model_next, &m, NULL, out, e);
}

void tr_flame_size(const tr_flame_layout *l, int *w, int *h)
{
    *w = l->g.W;
    *h = l->g.H;
}

int tr_flame_levels_cut(const tr_flame_layout *l)
{
    return l->g.cut;
}

/* Parts: the title, the subtitle, each level holding a frame, the SVG's details line. */
size_t tr_flame_part_count(const tr_flame_layout *l)
{
    return 2 + (size_t)l->g.levels + (l->g.details_h > 0);
}

int tr_flame_part(const tr_flame_layout *l, size_t i, tr_render_box *box)
{
    const geom *g = &l->g;
    double small = 7 * g->px_per_pt * 1.17;
    *box = (tr_render_box){0, 0, g->W, 0, TR_PART_PLOT};
    if (i == 0) {
        box->kind = TR_PART_TITLE;
        box->y0 = g->title_y;
        box->y1 = g->title_y + 12 * g->px_per_pt * 1.17;
    } else if (i == 1) {
        box->kind = TR_PART_NOTE;
        box->y0 = g->subtitle_y;
        box->y1 = g->subtitle_y + small;
    } else if (i < 2 + (size_t)g->levels) {
        int depth = (int)i - 2;
        /* A level of frames too narrow to draw holds nothing. */
        if (!g->has_frames[depth]) return 1;
        box->x0 = g->x0;
        box->x1 = g->x0 + g->w;
        box->y0 = g->icicle ? g->top + depth * g->fh : g->bottom - (depth + 1) * g->fh;
        box->y1 = box->y0 + g->fh;
    } else if (i == 2 + (size_t)g->levels && g->details_h > 0) {
        box->kind = TR_PART_DETAILS;
        box->y0 = g->H - BOTTOM_IN * l->o.dpi - g->details_h;
        box->y1 = g->H - BOTTOM_IN * l->o.dpi;
    } else {
        return 0;
    }
    return 1;
}

int tr_flame_draw(const tr_flame_layout *l, const char *path, tr_render_stats *st, tr_error *e)
{
    memset(st, 0, sizeof *st);
    st->width_px = l->g.W;
    st->height_px = l->g.H;
    st->samples = l->f.nodes[0].total;
    st->frames_hidden = l->f.pruned;
    return l->format == TR_RENDER_SVG ? write_svg(&l->f, &l->g, path, st, e)
                                      : draw_cairo(&l->f, &l->g, path, l->format, st, e);
}

int tr_flame_render(const tr_trace *t, const tr_render_opts *o, const char *path, int format,
                    tr_render_stats *st, tr_error *e)
{
    tr_flame_layout *l;
    int rc = tr_flame_layout_new(t, o, format, &l, e);
    if (rc < 0) return rc;
    rc = tr_flame_draw(l, path, st, e);
    tr_flame_layout_free(l);
    return rc;
}
