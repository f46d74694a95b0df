/*
** analysis_gpu_events.c: the GPU events the HTA breakdowns read.
**
** The GPU events of tr_analysis.h (Kineto's device slices with a stream)
** are collected into a flat array with their kernel type (HTA's patterns,
** types.py) and, through their correlation ids, the start of the CUDA
** runtime call that launched them.  analysis_gpu_breakdown.c sorts and
** sums them.
*/
#include "analysis_gpu_impl.h"

#include <string.h>

/* ---- kernel types and names ---- */

static int gb_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* HTA's ComputeKernelGroupingPattern, whose matches are not computation. */
static int gb_not_compute(const char *n)
{
    static const char *const pre[] = {"nccl",        "Stream Wait Event",
                                      "runFunction", "hip",
                                      "job_exe",     "packet",
                                      "pe_exe",      "cpum_exe_subgraph",
                                      "hccl",        "collective_subgraph_execution"};
    static const char *const sub[] = {"Memcpy", "Memset", "dma", "Sync"};
    for (size_t i = 0; i < sizeof pre / sizeof *pre; i++)
        if (gb_prefix(n, pre[i])) return 1;
    for (size_t i = 0; i < sizeof sub / sizeof *sub; i++)
        if (strstr(n, sub[i])) return 1;
    /* cuda.*LaunchKernel, anchored at the start as re.match is */
    return gb_prefix(n, "cuda") && strstr(n + 4, "LaunchKernel") != NULL;
}

int tr_kernel_type_of(const char *n)
{
    if (gb_prefix(n, "nccl") || gb_prefix(n, "hip") || gb_prefix(n, "hccl") ||
        strstr(n, "ncclKernel"))
        return TR_KTYPE_COMM;
    if (gb_prefix(n, "Memcpy") || gb_prefix(n, "Memset") || gb_prefix(n, "dma"))
        return TR_KTYPE_MEMORY;
    return gb_not_compute(n) ? TR_KTYPE_OTHER : TR_KTYPE_COMPUTE;
}

const char *tr_kernel_type_name(int type)
{
    static const char *const names[TR_KTYPE_COUNT] = {"communication", "memory", "computation",
                                                      "other"};
    return type >= 0 && type < TR_KTYPE_COUNT ? names[type] : "?";
}

const char *tr_idle_class_name(int cls)
{
    static const char *const names[TR_IDLE_COUNT] = {"host wait", "kernel wait", "other"};
    return cls >= 0 && cls < TR_IDLE_COUNT ? names[cls] : "?";
}

void tr_kernel_short_name(tr_buf *b, const char *name)
{
    if (tr_kernel_type_of(name) == TR_KTYPE_MEMORY || !strpbrk(name, "<(")) {
        tr_buf_adds(b, name);
        return;
    }
    /* HTA's bracket stack over the name without "->": a closer pops back to its opener. */
    size_t start = b->len;
    for (const char *p = name; *p; p++) {
        if (p[0] == '-' && p[1] == '>') {
            p++;
            continue;
        }
        char open = *p == '>' ? '<' : *p == ')' ? '(' : 0;
        if (!open) {
            tr_buf_addc(b, *p);
            continue;
        }
        while (b->len > start && b->p[b->len - 1] != open) b->len--;
        if (b->len > start) b->len--;
        b->p[b->len] = '\0';
    }
    const char *sp = strrchr(b->p + start, ' ');
    if (sp) {
        size_t n = strlen(sp + 1);
        memmove(b->p + start, sp + 1, n + 1);
        b->len = start + n;
    }
}

/* ---- the GPU events ---- */

enum { GB_NONE = 0, GB_DEVICE, GB_SYNC, GB_TRACK };

static int gb_cat_kind(const char *c)
{
    static const char *const dev[] = {"kernel", "gpu_memcpy", "gpu_memset", "mtia_ccp_events"};
    for (size_t i = 0; i < sizeof dev / sizeof *dev; i++)
        if (strcmp(c, dev[i]) == 0) return GB_DEVICE;
    if (strcmp(c, "cuda_sync") == 0) return GB_SYNC;
    return strcmp(c, "gpu_user_annotation") == 0 ? GB_NONE : GB_TRACK;
}

/* Category kinds by string id; *KINETO set when some slice has a device category. */
static int8_t *gb_cat_kinds(const tr_trace *t, const tr_slices *s, int *kineto)
{
    size_t n_str = tr_str_count(t);
    int8_t *k = tr_malloc(n_str ? n_str : 1);
    if (!k) return NULL;
    memset(k, -1, n_str);
    *kineto = 0;
    for (size_t i = 0; i < s->n; i++) {
        int8_t *c = &k[tr_slice_cat(s, i)];
        if (*c < 0) *c = (int8_t)gb_cat_kind(tr_str_get(t, tr_slice_cat(s, i), NULL));
        if (*c == GB_DEVICE || *c == GB_SYNC) *kineto = 1;
    }
    return k;
}

static int gb_is_event(const tr_trace *t, const tr_slices *s, size_t i, int kind, int kineto)
{
    tr_arg a;
    if (kineto)
        return (kind == GB_DEVICE || kind == GB_SYNC) && tr_args_find(t, s->args[i], "stream", &a);
    return kind != GB_NONE && tr_track_get(t, s->track[i])->kind == TR_TRACK_GPU;
}

static uint32_t gb_device(tr_gx_set *g, uint32_t process)
{
    if (g->dev_of[process] == UINT32_MAX) {
        g->dev_proc[g->n_dev] = process;
        g->dev_of[process] = g->n_dev++;
    }
    return g->dev_of[process];
}

/* An int arg KEY of args SET, or -1. */
static int64_t gb_int_arg(const tr_trace *t, uint32_t set, const char *key)
{
    tr_arg a;
    if (!set || !tr_args_find(t, set, key, &a)) return -1;
    if (a.type == TR_ARG_INT) return a.v.i;
    return a.type == TR_ARG_UINT && a.v.u <= INT64_MAX ? (int64_t)a.v.u : -1;
}

/* A launch candidate: the first slice of a correlation id in an input. */
typedef struct gb_corr {
    uint32_t row, input;
    int64_t corr;
} gb_corr;

/* The index in ROWS of correlation id CORR of input IN, or UINT32_MAX; *KEY: its key or a free one.
 */
static uint32_t gb_corr_find(const tr_map *by, const tr_vec *rows, uint32_t in, int64_t corr,
                             uint64_t *key)
{
    /* Keys mix both; a clash probes the next key. */
    for (*key = tr_hash_mix((uint64_t)corr) ^ in;; ++*key) {
        uint32_t k = tr_map_find(by, *key);
        if (k == UINT32_MAX) return k;
        const gb_corr *c = &TR_VEC_AT(rows, gb_corr, k);
        if (c->input == in && c->corr == corr) return k;
    }
}

/* The first non-GPU slice of each correlation id per input, into BY and ROWS. */
static int gb_corr_index(const tr_trace *t, const tr_slices *s, const uint8_t *is_gpu, tr_map *by,
                         tr_vec *rows)
{
    for (size_t i = 0; i < s->n; i++) {
        if (is_gpu[i] || !s->args[i]) continue;
        int64_t c = gb_int_arg(t, s->args[i], "correlation");
        if (c < 0) continue;
        uint32_t in = tr_gx_input_of(t, s, i);
        uint64_t key;
        if (gb_corr_find(by, rows, in, c, &key) != UINT32_MAX) continue;
        int is_new;
        uint32_t *slot = tr_map_slot(by, key, &is_new);
        gb_corr *v = slot ? tr_vec_push(rows) : NULL;
        if (!v) return TR_FATAL;
        *slot = (uint32_t)(rows->len - 1);
        *v = (gb_corr){.row = (uint32_t)i, .input = in, .corr = c};
    }
    return TR_OK;
}

/*
** The launch of every event: the other slice of its input with the same
** "correlation" arg (the CUDA runtime call), as HTA joins them per rank;
** its times rounded as the events' with HTA's rounding (ROUND).
*/
static int gb_launches(const tr_trace *t, const tr_slices *s, tr_gx_set *g, const int64_t *corr,
                       const uint8_t *is_gpu, int round)
{
    tr_map by_corr = {0};
    tr_vec rows;
    tr_vec_init(&rows, sizeof(gb_corr));
    int rc = gb_corr_index(t, s, is_gpu, &by_corr, &rows);
    for (size_t i = 0; i < g->ev.len && rc == TR_OK; i++) {
        tr_gx_ev *ev = &TR_VEC_AT(&g->ev, tr_gx_ev, i);
        uint64_t key;
        uint32_t k = corr[i] < 0 ? UINT32_MAX
                                 : gb_corr_find(&by_corr, &rows, tr_gx_input_of(t, s, ev->row),
                                                corr[i], &key);
        if (k == UINT32_MAX) continue;
        uint32_t row = TR_VEC_AT(&rows, gb_corr, k).row;
        int64_t b = s->ts[row], e = tr_an_end(s, row);
        if (round) b = -tr_gx_floor_us(-b), e = tr_gx_floor_us(e);
        ev->launch_row = row;
        ev->launch = b;
        ev->launch_end = e < b ? b : e;
    }
    tr_map_fini(&by_corr);
    tr_vec_fini(&rows);
    return rc;
}

static int gb_collect_events(const tr_trace *t, const tr_stat_opts *o, tr_gx_set *g,
                             const int8_t *kinds, int kineto, tr_vec *corr)
{
    tr_slices s;
    tr_trace_slices(t, &s);
    int8_t *types = tr_malloc(tr_str_count(t) ? tr_str_count(t) : 1);
    uint8_t *is_gpu = tr_calloc(s.n ? s.n : 1, 1);
    int rc = types && is_gpu ? TR_OK : TR_FATAL;
    if (types) memset(types, -1, tr_str_count(t));
    for (size_t i = 0; i < s.n && rc == TR_OK; i++) {
        if (!gb_is_event(t, &s, i, kinds[tr_slice_cat(&s, i)], kineto)) continue;
        tr_gx_ev *ev = tr_vec_push(&g->ev);
        int64_t *c = tr_vec_push(corr);
        if (!ev || !c) {
            rc = TR_FATAL;
            break;
        }
        is_gpu[i] = 1;
        *c = gb_int_arg(t, s.args[i], "correlation");
        int8_t *ty = &types[s.name[i]];
        if (*ty < 0) *ty = (int8_t)tr_kernel_type_of(tr_str_get(t, s.name[i], NULL));
        int64_t b = s.ts[i], e = tr_an_end(&s, i);
        if (o->hta_rounding) b = -tr_gx_floor_us(-b), e = tr_gx_floor_us(e);
        *ev = (tr_gx_ev){.row = (uint32_t)i,
                         .track = s.track[i],
                         .dev = gb_device(g, tr_track_get(t, s.track[i])->process),
                         .name = s.name[i],
                         .type = (uint8_t)*ty,
                         .sync = kinds[tr_slice_cat(&s, i)] == GB_SYNC,
                         .s = b,
                         .e = e < b ? b : e,
                         .launch = INT64_MIN,
                         .launch_row = TR_NONE};
    }
    if (rc == TR_OK) rc = gb_launches(t, &s, g, corr->data, is_gpu, o->hta_rounding);
    tr_free(types);
    tr_free(is_gpu);
    return rc;
}

void tr_gx_fini(tr_gx_set *g)
{
    tr_vec_fini(&g->ev);
    tr_free(g->dev_of);
    tr_free(g->dev_proc);
    tr_free(g->cut);
}

/* The devices numbered anew after HTA's step filter dropped events. */
static void gb_renumber(const tr_trace *t, tr_gx_set *g)
{
    memset(g->dev_of, 0xff, tr_process_count(t) * sizeof *g->dev_of);
    g->n_dev = 0;
    tr_gx_ev *v = g->ev.data;
    for (size_t i = 0; i < g->ev.len; i++)
        v[i].dev = gb_device(g, tr_track_get(t, v[i].track)->process);
}

int tr_gx_collect(const tr_trace *t, const tr_stat_opts *o, tr_gx_set *g)
{
    memset(g, 0, sizeof *g);
    tr_vec_init(&g->ev, sizeof(tr_gx_ev));
    size_t np = tr_process_count(t);
    g->dev_of = tr_malloc((np ? np : 1) * sizeof *g->dev_of);
    g->dev_proc = tr_malloc((np ? np : 1) * sizeof *g->dev_proc);
    tr_slices s;
    tr_trace_slices(t, &s);
    int kineto;
    int8_t *kinds = g->dev_of && g->dev_proc ? gb_cat_kinds(t, &s, &kineto) : NULL;
    if (!kinds) return TR_FATAL;
    memset(g->dev_of, 0xff, (np ? np : 1) * sizeof *g->dev_of);
    tr_vec corr;
    tr_vec_init(&corr, sizeof(int64_t));
    int rc = gb_collect_events(t, o, g, kinds, kineto, &corr);
    tr_vec_fini(&corr);
    tr_free(kinds);
    if (rc == TR_OK) rc = tr_gx_steps(t, o, g);
    if (rc == TR_OK && g->cut) gb_renumber(t, g);
    return rc;
}
