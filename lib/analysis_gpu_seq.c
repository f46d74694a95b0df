/*
** analysis_gpu_seq.c: HTA's frequent CUDA kernel sequences.
**
** HTA's get_frequent_cuda_kernel_sequences: the roots are the CPU slices
** whose name contains the operator text and that lie at the shallowest
** depth any such slice has on their rank; the GPU events a root launched
** (through runtime calls nested under it, joined by correlation id in
** analysis_gpu_events.c) in start order make its pattern "op|kernel|...".
** Patterns are counted with the roots' CPU time and their kernels' GPU time.
*/
#include "analysis_gpu_impl.h"

#include <string.h>

typedef struct gs_hit {
    uint32_t root, kernel; /* slice rows */
    int64_t ts, dur;       /* the kernel's start and duration */
} gs_hit;

typedef struct gs_ctx {
    const tr_trace *t;
    tr_slices s;
    const tr_stat_opts *o;
    const tr_gx_set *g; /* its cutoffs: HTA's profiler-step filter */
    int8_t *match;      /* by string id: the name contains the operator text (-1 unknown) */
    uint8_t *is_gpu;    /* by slice row */
    int32_t *min_rank;  /* [rank + 1]: the shallowest depth of a match; INT32_MAX none */
    size_t n_ranks;
} gs_ctx;

static int32_t gs_rank(const gs_ctx *c, size_t row)
{
    return tr_process_get(c->t, tr_track_get(c->t, c->s.track[row])->process)->rank;
}

static size_t gs_rank_slot(const gs_ctx *c, int32_t rank)
{
    return rank < 0 || (size_t)rank + 1 >= c->n_ranks ? 0 : (size_t)rank + 1;
}

/* A CPU slice (kept by HTA's step filter) whose name contains the operator text. */
static int gs_matches(gs_ctx *c, size_t row)
{
    if (c->is_gpu[row] || !tr_gx_cpu_kept(c->g, c->t, &c->s, row)) return 0;
    int8_t *m = &c->match[c->s.name[row]];
    if (*m < 0) {
        const char *op = c->o->seq_op ? c->o->seq_op : "aten::";
        *m = strstr(tr_str_get(c->t, c->s.name[row], NULL), op) != NULL;
    }
    return *m;
}

/* The shallowest depth of a matching slice, per rank. */
static void gs_min_depths(gs_ctx *c)
{
    for (size_t i = 0; i < c->n_ranks; i++) c->min_rank[i] = INT32_MAX;
    for (size_t i = 0; i < c->s.n; i++) {
        if (!gs_matches(c, i)) continue;
        int32_t *d = &c->min_rank[gs_rank_slot(c, gs_rank(c, i))];
        if (c->s.depth[i] < *d) *d = c->s.depth[i];
    }
}

/* The root over launch row L: its ancestor at its rank's shallowest depth, if that matches. */
static uint32_t gs_root_of(gs_ctx *c, uint32_t l)
{
    int32_t want = c->min_rank[gs_rank_slot(c, gs_rank(c, l))];
    if (want == INT32_MAX || c->s.depth[l] < want) return TR_NONE;
    while (c->s.depth[l] > want) l = c->s.parent[l];
    return gs_matches(c, l) ? l : TR_NONE;
}

static int gs_hit_cmp(const void *pa, const void *pb)
{
    const gs_hit *a = pa, *b = pb;
    if (a->root != b->root) return a->root < b->root ? -1 : 1;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    return (a->kernel > b->kernel) - (a->kernel < b->kernel);
}

static int gs_hits(gs_ctx *c, const tr_gx_set *g, tr_vec *hits)
{
    const tr_gx_ev *v = g->ev.data;
    for (size_t i = 0; i < g->ev.len; i++) {
        if (v[i].launch_row == TR_NONE) continue;
        uint32_t root = gs_root_of(c, v[i].launch_row);
        if (root == TR_NONE) continue;
        gs_hit *h = tr_vec_push(hits);
        if (!h) return TR_FATAL;
        *h = (gs_hit){.root = root, .kernel = v[i].row, .ts = v[i].s, .dur = v[i].e - v[i].s};
    }
    tr_qsort(hits->data, hits->len, sizeof(gs_hit), gs_hit_cmp);
    return TR_OK;
}

/* ---- patterns ---- */

typedef struct gs_table {
    tr_vec seqs;  /* tr_kernel_seq */
    tr_vec names; /* tr_str: each pattern's kernels */
    tr_map by_hash;
} gs_table;

static uint64_t gs_hash(int32_t rank, tr_str op, const gs_hit *h, const tr_slices *s, size_t n)
{
    uint64_t x = tr_hash_mix((uint64_t)(uint32_t)rank << 32 | op);
    for (size_t i = 0; i < n; i++) x = tr_hash_mix(x ^ s->name[h[i].kernel]);
    return x;
}

static int gs_same(const gs_table *tb, const tr_kernel_seq *q, int32_t rank, tr_str op,
                   const gs_hit *h, const tr_slices *s, size_t n)
{
    if (q->rank != rank || q->op != op || q->n_kernels != n) return 0;
    const tr_str *names = &TR_VEC_AT(&tb->names, tr_str, q->first);
    for (size_t i = 0; i < n; i++)
        if (names[i] != s->name[h[i].kernel]) return 0;
    return 1;
}

/* The pattern of the N hits H of one root, added when new; NULL when out of memory. */
static tr_kernel_seq *gs_pattern(gs_table *tb, const gs_ctx *c, const gs_hit *h, size_t n)
{
    int32_t rank = gs_rank(c, h->root);
    tr_str op = c->s.name[h->root];
    uint64_t key = gs_hash(rank, op, h, &c->s, n);
    for (;; key++) { /* a collision probes the next key */
        int is_new;
        uint32_t *slot = tr_map_slot(&tb->by_hash, key, &is_new);
        if (!slot) return NULL;
        if (!is_new) {
            tr_kernel_seq *q = &TR_VEC_AT(&tb->seqs, tr_kernel_seq, *slot);
            if (gs_same(tb, q, rank, op, h, &c->s, n)) return q;
            continue;
        }
        *slot = (uint32_t)tb->seqs.len;
        tr_kernel_seq *q = tr_vec_push(&tb->seqs);
        if (!q || tr_vec_reserve(&tb->names, tb->names.len + n) != TR_OK) return NULL;
        *q = (tr_kernel_seq){.rank = rank, .op = op, .first = tb->names.len, .n_kernels = n};
        for (size_t i = 0; i < n; i++) *(tr_str *)tr_vec_push(&tb->names) = c->s.name[h[i].kernel];
        return q;
    }
}

static int gs_count(gs_table *tb, const gs_ctx *c, const gs_hit *h, size_t n)
{
    size_t min = c->o->seq_min;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        int64_t gpu = 0;
        for (; j < n && h[j].root == h[i].root; j++) gpu += h[j].dur;
        if (j - i >= min) {
            tr_kernel_seq *q = gs_pattern(tb, c, &h[i], j - i);
            if (!q) return TR_FATAL;
            uint32_t r = h[i].root;
            int64_t b = c->s.ts[r], e = tr_an_end(&c->s, r);
            if (c->o->hta_rounding) b = -tr_gx_floor_us(-b), e = tr_gx_floor_us(e);
            q->count++;
            q->gpu_total += gpu;
            q->cpu_total += e > b ? e - b : 0;
        }
        i = j;
    }
    return TR_OK;
}

/* ---- order: rank, count descending, then the pattern's text "op|k1|k2" ---- */

static const tr_kernel_seqs *gs_sort_out; /* tr_qsort's comparator has no context */
static const tr_trace *gs_sort_trace;

static const char *gs_part(const tr_kernel_seq *q, size_t i)
{
    tr_str id = i ? gs_sort_out->names[q->first + i - 1] : q->op;
    return tr_str_get(gs_sort_trace, id, NULL);
}

/* strcmp of the two patterns' texts joined with '|', without joining them. */
static int gs_text_cmp(const tr_kernel_seq *a, const tr_kernel_seq *b)
{
    size_t ia = 0, ib = 0;
    const char *pa = gs_part(a, 0), *pb = gs_part(b, 0);
    for (;;) {
        int ca = *pa ? (unsigned char)*pa : ia < a->n_kernels ? '|' : -1;
        int cb = *pb ? (unsigned char)*pb : ib < b->n_kernels ? '|' : -1;
        if (ca != cb) return ca < cb ? -1 : 1;
        if (ca < 0) return 0;
        if (*pa)
            pa++;
        else
            pa = gs_part(a, ++ia);
        if (*pb)
            pb++;
        else
            pb = gs_part(b, ++ib);
    }
}

static int gs_seq_cmp(const void *pa, const void *pb)
{
    const tr_kernel_seq *a = pa, *b = pb;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    if (a->count != b->count) return a->count > b->count ? -1 : 1;
    return gs_text_cmp(a, b);
}

/* ---- the compute function ---- */

void tr_kernel_seqs_fini(tr_kernel_seqs *s)
{
    tr_free(s->seqs);
    tr_free(s->names);
    memset(s, 0, sizeof *s);
}

static int gs_ctx_init(gs_ctx *c, const tr_trace *t, const tr_stat_opts *o, const tr_gx_set *g)
{
    memset(c, 0, sizeof *c);
    c->t = t;
    c->o = o;
    c->g = g;
    tr_trace_slices(t, &c->s);
    size_t n_str = tr_str_count(t), np = tr_process_count(t);
    int32_t max_rank = -1;
    for (size_t p = 0; p < np; p++)
        if (tr_process_get(t, (uint32_t)p)->rank > max_rank) max_rank = tr_process_get(t, p)->rank;
    c->n_ranks = (size_t)max_rank + 2;
    c->match = tr_malloc(n_str ? n_str : 1);
    c->is_gpu = tr_calloc(c->s.n ? c->s.n : 1, 1);
    c->min_rank = tr_malloc(c->n_ranks * sizeof *c->min_rank);
    if (!c->match || !c->is_gpu || !c->min_rank) return TR_FATAL;
    memset(c->match, -1, n_str);
    const tr_gx_ev *v = g->ev.data;
    for (size_t i = 0; i < g->ev.len; i++) c->is_gpu[v[i].row] = 1;
    for (size_t i = 0; i < c->s.n; i++)
        if (tr_track_get(t, c->s.track[i])->kind == TR_TRACK_GPU) c->is_gpu[i] = 1;
    gs_min_depths(c);
    return TR_OK;
}

int tr_kernel_seqs_compute(const tr_trace *t, const tr_stat_opts *o, tr_kernel_seqs *out,
                           tr_error *e)
{
    memset(out, 0, sizeof *out);
    gs_ctx c = {0};
    gs_table tb = {0};
    tr_vec hits;
    tr_vec_init(&hits, sizeof(gs_hit));
    tr_vec_init(&tb.seqs, sizeof(tr_kernel_seq));
    tr_vec_init(&tb.names, sizeof(tr_str));
    tr_gx_set g;
    int rc = tr_gx_collect(t, o, &g);
    if (rc == TR_OK) rc = gs_ctx_init(&c, t, o, &g);
    if (rc == TR_OK) rc = gs_hits(&c, &g, &hits);
    if (rc == TR_OK) rc = gs_count(&tb, &c, hits.data, hits.len);
    tr_gx_fini(&g);
    tr_free(c.match);
    tr_free(c.is_gpu);
    tr_free(c.min_rank);
    tr_vec_fini(&hits);
    tr_map_fini(&tb.by_hash);
    out->seqs = tb.seqs.data;
    out->n = tb.seqs.len;
    out->names = tb.names.data;
    if (rc != TR_OK) {
        tr_kernel_seqs_fini(out);
        return tr_error_nomem(e);
    }
    gs_sort_out = out;
    gs_sort_trace = t;
    tr_qsort(out->seqs, out->n, sizeof *out->seqs, gs_seq_cmp);
    return TR_OK;
}
