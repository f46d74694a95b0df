/*
** stree_print.c: the stack prefix tree (tr_stree.h) as text, JSON and DOT,
** with member sets written the way people read them ("ranks 0-63 except 17").
*/
#include "tr_stree.h"
#include "tr_text.h"

#include <stdlib.h>
#include <string.h>

/* Runs of a sorted set longer than this are cut short with a count. */
#define ST_MAX_RUNS 8

/* ---- member sets ---- */

static int st_cmp_i64(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

/* Sorted distinct ids of members order[LO..HI): ranks when all have one, else pids. */
static size_t st_ids(const tr_stree *s, uint32_t lo, uint32_t hi, int64_t *ids, int *by_rank)
{
    *by_rank = 1;
    for (uint32_t i = lo; i < hi; i++) *by_rank &= s->members[s->order[i]].rank >= 0;
    for (uint32_t i = lo; i < hi; i++) {
        const tr_stree_member *m = &s->members[s->order[i]];
        ids[i - lo] = *by_rank ? m->rank : m->pid;
    }
    size_t n = hi - lo, k = 0;
    if (n > 1) tr_qsort(ids, n, sizeof *ids, st_cmp_i64);
    for (size_t i = 0; i < n; i++)
        if (k == 0 || ids[i] != ids[k - 1]) ids[k++] = ids[i];
    return k;
}

/* "0-3, 7, 9-12", at most ST_MAX_RUNS runs. */
static int st_runs(tr_buf *b, const int64_t *v, size_t n)
{
    int rc = TR_OK;
    size_t runs = 0;
    for (size_t i = 0; i < n && rc == TR_OK; runs++) {
        size_t j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1) j++;
        if (runs == ST_MAX_RUNS) {
            rc = tr_buf_addf(b, ", ... (%zu in all)", n);
            break;
        }
        rc = tr_buf_addf(b, "%s%lld", runs ? ", " : "", (long long)v[i]);
        if (rc == TR_OK && j > i)
            rc = tr_buf_addf(b, "%s%lld", j == i + 1 ? ", " : "-", (long long)v[j]);
        i = j + 1;
    }
    return rc;
}

/* "0-63 except 17, 40" when a few holes in one range say it best. */
static int st_except(tr_buf *b, const int64_t *v, size_t n)
{
    int64_t span = v[n - 1] - v[0] + 1, holes = span - (int64_t)n;
    if (n < 4 || holes < 1 || holes > 3) return 0;
    int rc = tr_buf_addf(b, "%lld-%lld except ", (long long)v[0], (long long)v[n - 1]);
    int64_t want = v[0];
    int first = 1;
    for (size_t i = 0; i < n && rc == TR_OK; i++, want++) {
        for (; want < v[i] && rc == TR_OK; want++, first = 0)
            rc = tr_buf_addf(b, "%s%lld", first ? "" : ", ", (long long)want);
    }
    return rc == TR_OK ? 1 : -1;
}

int tr_stree_members_text(const tr_trace *t, const tr_stree *s, uint32_t lo, uint32_t hi, tr_buf *b)
{
    (void)t;
    if (hi <= lo) return tr_buf_adds(b, "none");
    int64_t *ids = tr_malloc((hi - lo) * sizeof *ids);
    if (!ids) return TR_FATAL;
    int by_rank;
    size_t k = st_ids(s, lo, hi, ids, &by_rank);
    const char *word = by_rank ? (k == 1 ? "rank " : "ranks ") : "pid ";
    int rc = tr_buf_adds(b, word);
    int done = rc == TR_OK ? st_except(b, ids, k) : 0;
    if (done < 0) rc = TR_FATAL;
    if (rc == TR_OK && !done) rc = st_runs(b, ids, k);
    if (rc == TR_OK && hi - lo > k) rc = tr_buf_addf(b, " (%u threads)", hi - lo);
    tr_free(ids);
    return rc;
}

int tr_stree_frame_text(const tr_trace *t, const tr_stree *s, uint32_t n, tr_buf *b)
{
    if (s->nodes[n].frame == TR_NONE) return tr_buf_adds(b, "(all)");
    const tr_frame *f = tr_frame_get(t, s->nodes[n].frame);
    size_t fl;
    const char *file = tr_str_get(t, f->file, &fl);
    int rc = tr_buf_adds(b, tr_str_get(t, f->function, NULL));
    if (rc != TR_OK || s->opts.frames == TR_STREE_BY_FUNCTION || !fl) return rc;
    if (s->opts.frames == TR_STREE_BY_FILE || f->line <= 0) return tr_buf_addf(b, " (%s)", file);
    return tr_buf_addf(b, " (%s:%d)", file, (int)f->line);
}

/* ---- text ---- */

/* Node N's way down to where it splits again or ends: "a > b > c". */
static int st_way(const tr_trace *t, const tr_stree *s, uint32_t n, tr_buf *b)
{
    int rc = tr_stree_frame_text(t, s, n, b);
    uint32_t steps = 0;
    for (uint32_t c = s->nodes[n].first_child; rc == TR_OK && c != TR_NONE && !s->nodes[n].ends;
         c = s->nodes[c].first_child) {
        if (s->nodes[c].next_sibling != TR_NONE) break;
        if (++steps > 3) {
            rc = tr_buf_adds(b, " > ...");
            break;
        }
        rc = tr_buf_adds(b, " > ");
        if (rc == TR_OK) rc = tr_stree_frame_text(t, s, c, b);
        n = c;
    }
    return rc;
}

static int st_branch(const tr_trace *t, const tr_stree *s, uint32_t lo, uint32_t hi, uint32_t way,
                     tr_buf *b)
{
    int rc = tr_buf_addf(b, "    %6u  ", hi - lo);
    if (rc == TR_OK) rc = tr_stree_members_text(t, s, lo, hi, b);
    if (rc == TR_OK) rc = tr_buf_adds(b, "\n            -> ");
    if (rc == TR_OK) rc = way == TR_NONE ? tr_buf_adds(b, "(stop here)") : st_way(t, s, way, b);
    return rc == TR_OK ? tr_buf_adds(b, "\n") : rc;
}

static int st_text_splits(const tr_trace *t, const tr_stree *s, tr_buf *b)
{
    uint32_t *splits;
    size_t n = tr_stree_splits(s, &splits);
    if (!splits) return TR_FATAL;
    int rc = tr_buf_adds(b, n ? "where members part (the odd ones out first):\n"
                              : "all members are on one path\n");
    for (size_t i = 0; i < n && rc == TR_OK; i++) {
        const tr_stree_node *nd = &s->nodes[splits[i]];
        rc = tr_buf_adds(b, "  at ");
        if (rc == TR_OK) rc = tr_stree_frame_text(t, s, splits[i], b);
        if (rc == TR_OK)
            rc = tr_buf_addf(b, " (depth %u, %u members):\n", nd->depth, nd->hi - nd->lo);
        if (rc == TR_OK && nd->ends) rc = st_branch(t, s, nd->lo, nd->lo + nd->ends, TR_NONE, b);
        for (uint32_t c = nd->first_child; rc == TR_OK && c != TR_NONE;
             c = s->nodes[c].next_sibling)
            rc = st_branch(t, s, s->nodes[c].lo, s->nodes[c].hi, c, b);
    }
    tr_free(splits);
    return rc;
}

/* The whole tree, one node a line; member sets where they differ from the parent's. */
static int st_text_tree(const tr_trace *t, const tr_stree *s, tr_buf *b)
{
    int rc = tr_buf_adds(b, "the tree (members, frame):\n");
    uint32_t n = s->nodes[0].first_child;
    while (rc == TR_OK && n != TR_NONE) {
        const tr_stree_node *nd = &s->nodes[n];
        rc = tr_buf_addf(b, "%*s%u  ", (int)(2 * nd->depth), "", nd->hi - nd->lo);
        if (rc == TR_OK) rc = tr_stree_frame_text(t, s, n, b);
        if (rc == TR_OK && tr_stree_count(s, nd->parent) != nd->hi - nd->lo) {
            rc = tr_buf_adds(b, "  [");
            if (rc == TR_OK) rc = tr_stree_members_text(t, s, nd->lo, nd->hi, b);
            if (rc == TR_OK) rc = tr_buf_adds(b, "]");
        }
        if (rc == TR_OK && nd->ends && nd->first_child != TR_NONE)
            rc = tr_buf_addf(b, "  (%u stop here)", nd->ends);
        if (rc == TR_OK) rc = tr_buf_adds(b, "\n");
        /* Preorder: down, else along, else up and along. */
        if (nd->first_child != TR_NONE) {
            n = nd->first_child;
            continue;
        }
        while (n != TR_NONE && s->nodes[n].next_sibling == TR_NONE) n = s->nodes[n].parent;
        if (n != TR_NONE) n = s->nodes[n].next_sibling;
    }
    return rc;
}

/* Members whose samples never changed (stuck) and those that moved, over several dumps. */
static int st_text_progress(const tr_trace *t, const tr_stree *s, tr_buf *b)
{
    uint32_t multi = 0, stuck = 0;
    for (size_t m = 0; m < s->n_members; m++) {
        multi += s->members[m].samples > 1;
        stuck += s->members[m].samples > 1 && s->members[m].changes == 0;
    }
    if (!multi) return TR_OK;
    int rc = tr_buf_addf(
        b, "progress over the dumps: %u of %u members with several samples moved, %u did not\n",
        multi - stuck, multi, stuck);
    for (size_t m = 0; m < s->n_members && rc == TR_OK; m++) {
        const tr_stree_member *mb = &s->members[m];
        if (mb->samples < 2 || mb->changes) continue;
        const tr_track *tk = tr_track_get(t, mb->track);
        rc = tr_buf_addf(b, "    no progress in %u samples: ", mb->samples);
        if (rc == TR_OK)
            rc = mb->rank >= 0 ? tr_buf_addf(b, "rank %d", (int)mb->rank)
                               : tr_buf_addf(b, "pid %lld", (long long)mb->pid);
        if (rc == TR_OK) rc = tr_buf_addf(b, " %s\n", tr_str_get(t, tk->name, NULL));
    }
    return rc;
}

static int st_text_behind(const tr_trace *t, const tr_stree *s, tr_buf *b)
{
    const char *rule;
    uint32_t m = tr_stree_behind(t, s, &rule);
    if (m == UINT32_MAX) return TR_OK;
    const tr_stree_member *mb = &s->members[m];
    int rc = tr_buf_adds(b, "furthest behind: ");
    if (rc == TR_OK)
        rc = mb->rank >= 0 ? tr_buf_addf(b, "rank %d", (int)mb->rank)
                           : tr_buf_addf(b, "pid %lld", (long long)mb->pid);
    if (rc == TR_OK)
        rc = tr_buf_addf(b, " %s, in ", tr_str_get(t, tr_track_get(t, mb->track)->name, NULL));
    if (rc == TR_OK) rc = tr_stree_frame_text(t, s, mb->leaf, b);
    if (rc == TR_OK) rc = tr_buf_addf(b, "\n    rule: %s\n", rule);
    return rc;
}

int tr_stree_text(const tr_trace *t, const tr_stree *s, tr_buf *b)
{
    static const char *const by[] = {"function, file and line", "function and file", "function"};
    int rc = tr_buf_addf(b, "stack tree of %zu members (frames told apart by %s)\n", s->n_members,
                         by[s->opts.frames < 0 || s->opts.frames > 2 ? 0 : s->opts.frames]);
    if (rc == TR_OK && !s->n_members) return tr_buf_adds(b, "no stack samples\n");
    if (rc == TR_OK) rc = st_text_splits(t, s, b);
    if (rc == TR_OK) rc = st_text_behind(t, s, b);
    if (rc == TR_OK) rc = st_text_progress(t, s, b);
    if (rc == TR_OK) rc = st_text_tree(t, s, b);
    return rc;
}

/* ---- JSON ---- */

static int st_json_member(const tr_trace *t, const tr_stree_member *m, tr_buf *b)
{
    int rc = tr_buf_addf(b, "{\"rank\":%d,\"pid\":%lld,\"tid\":%lld,\"thread\":", (int)m->rank,
                         (long long)m->pid, (long long)m->tid);
    if (rc == TR_OK) rc = tr_buf_add_json_id(b, t, tr_track_get(t, m->track)->name);
    if (rc == TR_OK)
        rc = tr_buf_addf(b, ",\"node\":%u,\"samples\":%u,\"changes\":%u,\"entries\":%u}", m->leaf,
                         m->samples, m->changes, m->entries);
    return rc;
}

static int st_json_node(const tr_trace *t, const tr_stree *s, uint32_t n, tr_buf *b)
{
    const tr_stree_node *nd = &s->nodes[n];
    int rc = tr_buf_addf(b, "{\"id\":%u,\"parent\":%d,\"depth\":%u,\"count\":%u,\"ends\":%u", n,
                         nd->parent == TR_NONE ? -1 : (int)nd->parent, nd->depth, nd->hi - nd->lo,
                         nd->ends);
    if (rc == TR_OK && nd->frame != TR_NONE) {
        const tr_frame *f = tr_frame_get(t, nd->frame);
        rc = tr_buf_adds(b, ",\"function\":");
        if (rc == TR_OK) rc = tr_buf_add_json_id(b, t, f->function);
        if (rc == TR_OK && s->opts.frames != TR_STREE_BY_FUNCTION) {
            rc = tr_buf_adds(b, ",\"file\":");
            if (rc == TR_OK) rc = tr_buf_add_json_id(b, t, f->file);
        }
        if (rc == TR_OK && s->opts.frames == TR_STREE_BY_LINE)
            rc = tr_buf_addf(b, ",\"line\":%d", (int)f->line);
    }
    tr_buf set;
    tr_buf_init(&set, 0);
    if (rc == TR_OK) rc = tr_stree_members_text(t, s, nd->lo, nd->hi, &set);
    if (rc == TR_OK) rc = tr_buf_adds(b, ",\"members\":");
    if (rc == TR_OK) rc = tr_buf_add_json_str(b, set.p, set.len);
    tr_buf_fini(&set);
    return rc == TR_OK ? tr_buf_adds(b, "}") : rc;
}

int tr_stree_json(const tr_trace *t, const tr_stree *s, tr_buf *b)
{
    static const char *const by[] = {"line", "file", "function"};
    int rc = tr_buf_addf(b, "{\"frames\":\"%s\",\"members\":[",
                         by[s->opts.frames < 0 || s->opts.frames > 2 ? 0 : s->opts.frames]);
    for (size_t m = 0; m < s->n_members && rc == TR_OK; m++) {
        if (m) rc = tr_buf_adds(b, ",");
        if (rc == TR_OK) rc = st_json_member(t, &s->members[m], b);
    }
    if (rc == TR_OK) rc = tr_buf_adds(b, "],\"nodes\":[");
    for (size_t n = 0; n < s->n_nodes && rc == TR_OK; n++) {
        if (n) rc = tr_buf_adds(b, ",");
        if (rc == TR_OK) rc = st_json_node(t, s, (uint32_t)n, b);
    }
    uint32_t *splits;
    size_t ns = tr_stree_splits(s, &splits);
    if (rc == TR_OK && !splits) rc = TR_FATAL;
    if (rc == TR_OK) rc = tr_buf_adds(b, "],\"splits\":[");
    for (size_t i = 0; i < ns && rc == TR_OK; i++)
        rc = tr_buf_addf(b, "%s%u", i ? "," : "", splits[i]);
    tr_free(splits);
    const char *rule;
    uint32_t behind = tr_stree_behind(t, s, &rule);
    if (rc == TR_OK)
        rc = tr_buf_addf(
            b, "],\"behind\":{\"member\":%d,\"rule\":", behind == UINT32_MAX ? -1 : (int)behind);
    if (rc == TR_OK) rc = tr_buf_add_json_str(b, rule, strlen(rule));
    return rc == TR_OK ? tr_buf_adds(b, "}}") : rc;
}

/* ---- DOT ---- */

/* Text for a DOT label: quotes and backslashes escaped. */
static int st_dot_str(tr_buf *b, const char *s, size_t n)
{
    int rc = TR_OK;
    for (size_t i = 0; i < n && rc == TR_OK; i++) {
        if (s[i] == '\n') {
            rc = tr_buf_adds(b, "\\n");
            continue;
        }
        if (s[i] == '"' || s[i] == '\\') rc = tr_buf_add(b, "\\", 1);
        if (rc == TR_OK) rc = tr_buf_add(b, (unsigned char)s[i] < 0x20 ? " " : &s[i], 1);
    }
    return rc;
}

int tr_stree_dot(const tr_trace *t, const tr_stree *s, tr_buf *b)
{
    int rc = tr_buf_adds(b, "digraph stack_tree {\n  node [shape=box, fontname=\"monospace\"];\n");
    tr_buf label;
    tr_buf_init(&label, 0);
    for (size_t n = 0; n < s->n_nodes && rc == TR_OK; n++) {
        const tr_stree_node *nd = &s->nodes[n];
        tr_buf_reset(&label);
        rc = tr_stree_frame_text(t, s, (uint32_t)n, &label);
        if (rc == TR_OK) rc = tr_buf_addf(&label, "\n%u: ", nd->hi - nd->lo);
        if (rc == TR_OK) rc = tr_stree_members_text(t, s, nd->lo, nd->hi, &label);
        if (rc == TR_OK) rc = tr_buf_addf(b, "  n%zu [label=\"", n);
        if (rc == TR_OK) rc = st_dot_str(b, label.p, label.len);
        int odd = nd->parent != TR_NONE && s->nodes[nd->parent].first_child != n;
        if (rc == TR_OK) rc = tr_buf_addf(b, "\"%s];\n", odd ? ", color=red" : "");
        if (rc == TR_OK && nd->parent != TR_NONE)
            rc = tr_buf_addf(b, "  n%u -> n%zu [label=\"%u\"];\n", nd->parent, n, nd->hi - nd->lo);
    }
    tr_buf_fini(&label);
    return rc == TR_OK ? tr_buf_adds(b, "}\n") : rc;
}
