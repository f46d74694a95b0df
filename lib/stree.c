/*
** stree.c: the stack prefix tree (tr_stree.h): members, the tree, its
** depth-first order, the splits and who is furthest behind.
*/
#include "analysis_impl.h"
#include "tr_analysis.h"
#include "tr_map.h"
#include "tr_stree.h"

#include <stdlib.h>
#include <string.h>

/* ---- members ---- */

/* Whether track TK is its process's main thread ("MainThread", or tid = pid). */
static int st_is_main(const tr_trace *t, const tr_track *tk, const tr_process *p)
{
    const char *name = tr_str_get(t, tk->name, NULL);
    return strcmp(name, "MainThread") == 0 || (tk->tid >= 0 && tk->tid == p->pid);
}

/*
** What a track's samples say, as they come: its last stack, and the 3D
** view's changes between consecutive samples and entries.
*/
typedef struct st_track {
    uint32_t stack; /* of its last sample */
    int64_t ts;
    uint32_t samples, changes, entries;
    int64_t last_change;
    uint64_t digest; /* of its last sample's path */
    uint8_t had;     /* its last sample was in the counted function */
} st_track;

/*
** With opts.main_thread, one track per process: its main thread, else its
** first sampled track.  CHOSEN[p] is the track kept for process p.
*/
static int st_pick_members(const tr_trace *t, tr_stree *s, const st_track *tracks)
{
    size_t n_tracks = tr_track_count(t), n_proc = tr_process_count(t);
    uint32_t *chosen = tr_malloc((n_proc ? n_proc : 1) * sizeof *chosen);
    s->members = tr_calloc(n_tracks ? n_tracks : 1, sizeof *s->members);
    if (!chosen || !s->members) {
        tr_free(chosen);
        return TR_FATAL;
    }
    for (size_t p = 0; p < n_proc; p++) chosen[p] = TR_NONE;
    for (size_t i = 0; i < n_tracks; i++) {
        const tr_track *tk = tr_track_get(t, (uint32_t)i);
        if (!tracks[i].samples || tk->process >= n_proc) continue;
        uint32_t *c = &chosen[tk->process];
        if (*c == TR_NONE || (!st_is_main(t, tr_track_get(t, *c), tr_process_get(t, tk->process)) &&
                              st_is_main(t, tk, tr_process_get(t, tk->process))))
            *c = (uint32_t)i;
    }
    for (size_t i = 0; i < n_tracks; i++) {
        const tr_track *tk = tr_track_get(t, (uint32_t)i);
        const st_track *st = &tracks[i];
        if (!st->samples) continue;
        if (s->opts.main_thread && (tk->process >= n_proc || chosen[tk->process] != i)) continue;
        const tr_process *p = tr_process_get(t, tk->process);
        s->members[s->n_members++] = (tr_stree_member){
            .track = (uint32_t)i,
            .process = tk->process,
            .rank = p ? p->rank : -1,
            .pid = p ? p->pid : -1,
            .tid = tk->tid,
            .stack = st->stack,
            .ts = st->ts,
            .samples = st->samples,
            .changes = st->changes,
            .last_change = st->last_change,
            .entries = st->entries,
        };
    }
    tr_free(chosen);
    return TR_OK;
}

/* ---- frames as the tree groups them ---- */

struct tr_stree_acc {
    const tr_trace *t;
    tr_stree *s;
    tr_stree out;     /* the tree being made: its options, then its members and nodes */
    st_track *tracks; /* by track */
    size_t n_tracks;  /* of tracks */
    tr_map child;     /* (node << 32 | frame key) -> node */
    tr_map fkey;      /* (function << 32 | file) -> key, for TR_STREE_BY_FILE */
    tr_vec nodes;     /* tr_stree_node */
    tr_vec path;      /* uint32_t model frames, outermost first */
    int8_t *count;    /* per model frame: 1 when it is the counted function, -1 unknown */
    size_t n_count;   /* of count */
};
typedef struct tr_stree_acc st_build;

/* The key frame F is grouped by; UINT32_MAX when out of memory. */
static uint32_t st_frame_key(st_build *b, uint32_t f)
{
    const tr_frame *fr = tr_frame_get(b->t, f);
    switch (b->s->opts.frames) {
    case TR_STREE_BY_FUNCTION:
        return fr->function;
    case TR_STREE_BY_FILE: {
        int is_new;
        uint32_t *slot = tr_map_slot(&b->fkey, (uint64_t)fr->function << 32 | fr->file, &is_new);
        if (!slot) return UINT32_MAX;
        if (is_new) *slot = (uint32_t)(b->fkey.n - 1);
        return *slot;
    }
    default:
        return f;
    }
}

/* Fills B->path with STACK's frames, outermost first, as the options keep them. */
static int st_path(st_build *b, uint32_t stack)
{
    b->path.len = 0;
    for (uint32_t st = stack; st != 0 && st != TR_NONE; st = tr_stack_parent(b->t, st)) {
        uint32_t f = tr_stack_frame(b->t, st);
        if (b->s->opts.python_only && tr_frame_get(b->t, f)->is_native) continue;
        uint32_t *slot = tr_vec_push(&b->path);
        if (!slot) return TR_FATAL;
        *slot = f;
    }
    uint32_t *p = b->path.data;
    for (size_t i = 0, j = b->path.len; i + 1 < j; i++, j--) {
        uint32_t x = p[i];
        p[i] = p[j - 1];
        p[j - 1] = x;
    }
    uint32_t cut = b->s->opts.max_depth;
    if (cut && b->path.len > cut) b->path.len = cut;
    return TR_OK;
}

/* A 64-bit digest of B->path as grouped: equal digests, equal places. */
static uint64_t st_path_digest(st_build *b)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL;
    for (size_t i = 0; i < b->path.len; i++)
        h = tr_hash_mix(h ^ st_frame_key(b, TR_VEC_AT(&b->path, uint32_t, i)));
    return h;
}

/* ---- the tree ---- */

static uint32_t st_node_add(st_build *b, uint32_t parent, uint32_t frame)
{
    tr_stree_node *n = tr_vec_push(&b->nodes);
    if (!n) return TR_NONE;
    uint32_t depth = parent == TR_NONE ? 0 : TR_VEC_AT(&b->nodes, tr_stree_node, parent).depth + 1;
    *n = (tr_stree_node){parent, TR_NONE, TR_NONE, frame, depth, 0, 0, 0};
    return (uint32_t)(b->nodes.len - 1);
}

/* Inserts member M's path; sets its leaf. */
static int st_insert(st_build *b, tr_stree_member *m)
{
    if (st_path(b, m->stack) != TR_OK) return TR_FATAL;
    uint32_t node = 0;
    for (size_t i = 0; i < b->path.len; i++) {
        uint32_t f = TR_VEC_AT(&b->path, uint32_t, i), key = st_frame_key(b, f);
        int is_new;
        uint32_t *slot =
            key == UINT32_MAX ? NULL : tr_map_slot(&b->child, (uint64_t)node << 32 | key, &is_new);
        if (!slot) return TR_FATAL;
        if (is_new && (*slot = st_node_add(b, node, f)) == TR_NONE) return TR_FATAL;
        node = *slot;
    }
    m->leaf = node;
    return TR_OK;
}

/* Whether model frame F is the counted function. */
static int st_counted(st_build *b, uint32_t f)
{
    if (b->count[f] < 0) {
        const char *fn = tr_str_get(b->t, tr_frame_get(b->t, f)->function, NULL);
        b->count[f] = (int8_t)(strcmp(fn, b->s->opts.counted) == 0);
    }
    return b->count[f];
}

/* Room for N tracks: the trace's may grow while a stream hands samples out. */
static int st_tracks_grow(st_build *b, size_t n)
{
    size_t old = b->n_tracks;
    if (tr_an_grow(&b->tracks, &b->n_tracks, n, sizeof *b->tracks, 0) != TR_OK) return TR_FATAL;
    for (size_t i = old; i < b->n_tracks; i++) b->tracks[i].last_change = INT64_MIN;
    return TR_OK;
}

/* The 3D view, a sample at a time: changes between a track's consecutive samples, and entries. */
int tr_stree_acc_add(tr_stree_acc *b, const tr_row_event *x, tr_error *e)
{
    const tr_event_rec *ev = &x->rec;
    if (ev->kind != TR_EV_SAMPLE || ev->track >= tr_track_count(b->t)) return TR_OK;
    if (st_tracks_grow(b, (size_t)ev->track + 1) != TR_OK) return tr_error_nomem(e);
    st_track *st = &b->tracks[ev->track];
    if (st_path(b, ev->stack) != TR_OK) return tr_error_nomem(e);
    uint64_t d = st_path_digest(b);
    if (st->samples && d != st->digest) {
        st->changes++;
        st->last_change = ev->ts;
    }
    st->digest = d;
    st->samples++;
    st->stack = ev->stack;
    st->ts = ev->ts;
    if (!b->out.opts.counted) return TR_OK;
    if (tr_an_grow(&b->count, &b->n_count, tr_frame_count(b->t), 1, -1) != TR_OK)
        return tr_error_nomem(e);
    int has = 0;
    for (size_t k = 0; k < b->path.len && !has; k++)
        has = st_counted(b, TR_VEC_AT(&b->path, uint32_t, k));
    if (has && !st->had) st->entries++;
    st->had = (uint8_t)has;
    return TR_OK;
}

/* ---- ordering ---- */

static const tr_trace *st_sort_trace; /* qsort has no user pointer */
static const tr_stree_node *st_sort_nodes;
static const uint32_t *st_sort_count;

static int st_text_cmp(const tr_trace *t, uint32_t fa, uint32_t fb)
{
    const tr_frame *a = tr_frame_get(t, fa), *b = tr_frame_get(t, fb);
    int c = strcmp(tr_str_get(t, a->function, NULL), tr_str_get(t, b->function, NULL));
    if (c == 0) c = strcmp(tr_str_get(t, a->file, NULL), tr_str_get(t, b->file, NULL));
    if (c == 0) c = (a->line > b->line) - (a->line < b->line);
    return c;
}

/* Children of one parent: most members first, then by frame text. */
static int st_child_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const tr_stree_node *na = &st_sort_nodes[a], *nb = &st_sort_nodes[b];
    if (na->parent != nb->parent) return na->parent < nb->parent ? -1 : 1;
    if (st_sort_count[a] != st_sort_count[b]) return st_sort_count[a] > st_sort_count[b] ? -1 : 1;
    int c = st_text_cmp(st_sort_trace, na->frame, nb->frame);
    return c ? c : (a > b) - (a < b);
}

/* Links every node's children in display order; COUNT[n] = members under n. */
static int st_link_children(const tr_trace *t, tr_stree *s, const uint32_t *count)
{
    size_t n = s->n_nodes;
    uint32_t *kids = tr_malloc((n ? n : 1) * sizeof *kids);
    if (!kids) return TR_FATAL;
    for (size_t i = 1; i < n; i++) kids[i - 1] = (uint32_t)i;
    st_sort_trace = t;
    st_sort_nodes = s->nodes;
    st_sort_count = count;
    if (n > 2) tr_qsort(kids, n - 1, sizeof *kids, st_child_cmp);
    for (size_t i = n - 1; i-- > 0;) {
        tr_stree_node *c = &s->nodes[kids[i]], *p = &s->nodes[c->parent];
        c->next_sibling = p->first_child;
        p->first_child = kids[i];
    }
    tr_free(kids);
    return TR_OK;
}

/* Depth-first preorder numbers and subtree sizes; then every node's member run. */
static int st_number(tr_stree *s, const uint32_t *ends)
{
    size_t n = s->n_nodes;
    uint32_t *pre = tr_malloc(n * sizeof *pre), *size = tr_malloc(n * sizeof *size);
    uint32_t *stack = tr_malloc(n * sizeof *stack), *start = tr_calloc(n + 1, sizeof *start);
    int rc = pre && size && stack && start ? TR_OK : TR_FATAL;
    size_t sp = 0, next = 0;
    if (rc == TR_OK) stack[sp++] = 0;
    while (rc == TR_OK && sp) {
        uint32_t v = stack[--sp];
        pre[v] = (uint32_t)next++;
        /* Push children in reverse so the first child is numbered first. */
        size_t mark = sp;
        for (uint32_t c = s->nodes[v].first_child; c != TR_NONE; c = s->nodes[c].next_sibling)
            stack[sp++] = c;
        for (size_t i = mark, j = sp; i + 1 < j; i++, j--) {
            uint32_t x = stack[i];
            stack[i] = stack[j - 1];
            stack[j - 1] = x;
        }
    }
    for (size_t v = 0; rc == TR_OK && v < n; v++) size[v] = 1;
    for (size_t v = n; rc == TR_OK && v-- > 1;) size[s->nodes[v].parent] += size[v];
    /* start[p]: members whose leaf's preorder number is below p. */
    for (size_t v = 0; rc == TR_OK && v < n; v++) start[pre[v] + 1] = ends[v];
    for (size_t p = 0; rc == TR_OK && p < n; p++) start[p + 1] += start[p];
    for (size_t v = 0; rc == TR_OK && v < n; v++) {
        s->nodes[v].lo = start[pre[v]];
        s->nodes[v].hi = start[pre[v] + size[v]];
        s->nodes[v].ends = ends[v];
    }
    /* order: members by their leaf's preorder number, stable. */
    for (size_t m = 0; rc == TR_OK && m < s->n_members; m++)
        s->order[start[pre[s->members[m].leaf]]++] = (uint32_t)m;
    tr_free(pre);
    tr_free(size);
    tr_free(stack);
    tr_free(start);
    return rc;
}

static int st_finish(const tr_trace *t, tr_stree *s)
{
    size_t n = s->n_nodes;
    uint32_t *ends = tr_calloc(n, sizeof *ends), *count = tr_calloc(n, sizeof *count);
    s->order = tr_malloc((s->n_members ? s->n_members : 1) * sizeof *s->order);
    int rc = ends && count && s->order ? TR_OK : TR_FATAL;
    for (size_t m = 0; rc == TR_OK && m < s->n_members; m++) ends[s->members[m].leaf]++;
    for (size_t v = 0; rc == TR_OK && v < n; v++) count[v] = ends[v];
    /* Nodes are made after their parents: adding from the last one up sums subtrees. */
    for (size_t v = n; rc == TR_OK && v-- > 1;) count[s->nodes[v].parent] += count[v];
    if (rc == TR_OK) rc = st_link_children(t, s, count);
    if (rc == TR_OK) rc = st_number(s, ends);
    tr_free(ends);
    tr_free(count);
    return rc;
}

int tr_stree_acc_new(const tr_trace *t, const tr_stree_opts *o, tr_stree_acc **out, tr_error *e)
{
    st_build *b = tr_calloc(1, sizeof *b);
    *out = NULL;
    if (!b) return tr_error_nomem(e);
    b->t = t;
    b->s = &b->out;
    if (o) b->out.opts = *o;
    tr_vec_init(&b->nodes, sizeof(tr_stree_node));
    tr_vec_init(&b->path, sizeof(uint32_t));
    *out = b;
    return TR_OK;
}

/* The members from the tracks' last samples, their paths merged into the tree, its order. */
static int st_build_all(st_build *b)
{
    tr_stree *s = b->s;
    int rc = st_tracks_grow(b, tr_track_count(b->t));
    if (rc == TR_OK) rc = st_pick_members(b->t, s, b->tracks);
    if (rc == TR_OK && st_node_add(b, TR_NONE, TR_NONE) == TR_NONE) rc = TR_FATAL;
    for (size_t m = 0; rc == TR_OK && m < s->n_members; m++) rc = st_insert(b, &s->members[m]);
    if (rc == TR_OK) {
        s->nodes = b->nodes.data;
        s->n_nodes = b->nodes.len;
        tr_vec_init(&b->nodes, sizeof(tr_stree_node));
        rc = st_finish(b->t, s);
    }
    return rc;
}

int tr_stree_acc_end(tr_stree_acc *b, tr_stree *out, tr_error *e)
{
    int rc = st_build_all(b);
    *out = b->out;
    memset(&b->out, 0, sizeof b->out);
    if (rc != TR_OK) {
        tr_stree_fini(out);
        return tr_error_nomem(e);
    }
    return TR_OK;
}

void tr_stree_acc_free(tr_stree_acc *b)
{
    if (!b) return;
    tr_map_fini(&b->child);
    tr_map_fini(&b->fkey);
    tr_vec_fini(&b->nodes);
    tr_vec_fini(&b->path);
    tr_free(b->count);
    tr_free(b->tracks);
    tr_stree_fini(&b->out);
    tr_free(b);
}

static int feed_stree(void *user, const tr_row_event *x, tr_error *e)
{
    return tr_stree_acc_add(user, x, e);
}

int tr_stree_build(const tr_trace *t, const tr_stree_opts *o, tr_stree *out, tr_error *e)
{
    memset(out, 0, sizeof *out);
    if (o) out->opts = *o;
    tr_stree_acc *b;
    int rc = tr_stree_acc_new(t, o, &b, e);
    if (rc == TR_OK) rc = tr_stat_feed_model(t, feed_stree, b, e);
    if (rc == TR_OK) rc = tr_stree_acc_end(b, out, e);
    tr_stree_acc_free(b);
    return rc;
}

void tr_stree_fini(tr_stree *s)
{
    tr_free(s->members);
    tr_free(s->order);
    tr_free(s->nodes);
    memset(s, 0, sizeof *s);
}

/* ---- splits and the member furthest behind ---- */

/* Members of node N not on its largest way (a child, or ending at N). */
static uint32_t st_minority(const tr_stree *s, uint32_t n)
{
    uint32_t most = s->nodes[n].ends;
    for (uint32_t c = s->nodes[n].first_child; c != TR_NONE; c = s->nodes[c].next_sibling)
        if (tr_stree_count(s, c) > most) most = tr_stree_count(s, c);
    return tr_stree_count(s, n) - most;
}

static const tr_stree *st_split_tree;

static int st_split_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    uint32_t ma = st_minority(st_split_tree, a), mb = st_minority(st_split_tree, b);
    if (ma != mb) return ma < mb ? -1 : 1;
    uint32_t da = st_split_tree->nodes[a].depth, db = st_split_tree->nodes[b].depth;
    if (da != db) return da < db ? -1 : 1;
    return (a > b) - (a < b);
}

size_t tr_stree_splits(const tr_stree *s, uint32_t **out)
{
    *out = tr_malloc((s->n_nodes ? s->n_nodes : 1) * sizeof **out);
    if (!*out) return 0;
    size_t n = 0;
    for (size_t v = 0; v < s->n_nodes; v++) {
        const tr_stree_node *nd = &s->nodes[v];
        if (nd->first_child == TR_NONE) continue;
        int two = s->nodes[nd->first_child].next_sibling != TR_NONE;
        if (two || nd->ends) (*out)[n++] = (uint32_t)v;
    }
    st_split_tree = s;
    if (n > 1) tr_qsort(*out, n, sizeof **out, st_split_cmp);
    return n;
}

/*
** At split N: the child at the lowest line of a function that another child
** is in at a higher line (an earlier place in the same loop), or TR_NONE.
*/
static uint32_t st_earlier_in_loop(const tr_trace *t, const tr_stree *s, uint32_t n)
{
    uint32_t best = TR_NONE;
    for (uint32_t a = s->nodes[n].first_child; a != TR_NONE; a = s->nodes[a].next_sibling) {
        const tr_frame *fa = tr_frame_get(t, s->nodes[a].frame);
        for (uint32_t c = s->nodes[n].first_child; c != TR_NONE; c = s->nodes[c].next_sibling) {
            const tr_frame *fc = tr_frame_get(t, s->nodes[c].frame);
            if (fc->function != fa->function || fc->file != fa->file || fc->line <= fa->line)
                continue;
            if (best == TR_NONE || fa->line < tr_frame_get(t, s->nodes[best].frame)->line) best = a;
        }
    }
    return best;
}

static uint32_t st_fewest_entries(const tr_stree *s)
{
    uint32_t best = UINT32_MAX;
    for (size_t m = 0; m < s->n_members; m++) {
        const tr_stree_member *a = &s->members[m];
        if (best == UINT32_MAX || a->entries < s->members[best].entries ||
            (a->entries == s->members[best].entries &&
             a->last_change < s->members[best].last_change))
            best = (uint32_t)m;
    }
    return best;
}

/*
** The first member of the smallest way out of split N that is not the
** majority's: a child, or the members ending at N (they come first in N's run).
*/
static uint32_t st_smallest_way(const tr_stree *s, uint32_t n)
{
    const tr_stree_node *nd = &s->nodes[n];
    uint32_t major = nd->first_child, ends = nd->ends;
    int ends_major = ends > tr_stree_count(s, major);
    uint32_t best = TR_NONE, best_n = UINT32_MAX;
    for (uint32_t c = nd->first_child; c != TR_NONE; c = s->nodes[c].next_sibling) {
        if (c == major && !ends_major) continue;
        if (tr_stree_count(s, c) <= best_n) best = c, best_n = tr_stree_count(s, c);
    }
    if (ends && !ends_major && ends < best_n) return s->order[nd->lo];
    return best == TR_NONE ? s->order[nd->lo] : s->order[s->nodes[best].lo];
}

/* A member that never moved over several samples while another did, or UINT32_MAX. */
static uint32_t st_stuck(const tr_stree *s)
{
    uint32_t stuck = UINT32_MAX;
    int moved = 0;
    for (size_t m = 0; m < s->n_members; m++) {
        const tr_stree_member *mb = &s->members[m];
        moved |= mb->changes > 0;
        if (mb->samples > 1 && !mb->changes && stuck == UINT32_MAX) stuck = (uint32_t)m;
    }
    return moved ? stuck : UINT32_MAX;
}

uint32_t tr_stree_behind(const tr_trace *t, const tr_stree *s, const char **rule)
{
    if (s->opts.counted) {
        *rule = "fewest entries into the counted function, then the earliest last change";
        return s->n_members > 1 ? st_fewest_entries(s) : UINT32_MAX;
    }
    uint32_t *splits;
    size_t n = tr_stree_splits(s, &splits);
    uint32_t found = TR_NONE;
    for (size_t i = 0; i < n; i++) { /* the deepest split with an earlier line wins */
        uint32_t c = st_earlier_in_loop(t, s, splits[i]);
        if (c != TR_NONE && (found == TR_NONE || s->nodes[c].depth > s->nodes[found].depth))
            found = c;
    }
    uint32_t member = UINT32_MAX;
    if (found != TR_NONE) {
        *rule = "at the deepest split, the lowest line of a function others are in at a later "
                "line (earlier in the loop)";
        member = s->order[s->nodes[found].lo];
    } else if (n) {
        *rule = "the smallest group off the majority's path at the most telling split";
        member = st_smallest_way(s, splits[0]);
    } else if ((member = st_stuck(s)) != UINT32_MAX) {
        *rule = "the first member whose stack did not change over the dumps while others moved";
    } else {
        *rule = "all members are on one path";
    }
    tr_free(splits);
    return member;
}
