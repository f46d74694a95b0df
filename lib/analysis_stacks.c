/*
** analysis_stacks.c: hot functions of sampled stacks (hangs: stree.c).
**
** Samples are first counted per distinct stack (per thread and stack for the
** per-thread tables), so each stack's path is walked once however often it
** was sampled: a dump sequence repeats a few thousand stacks millions of times.
** The counting is an accumulator (tr_hot_acc), so a stream's samples need no
** more than the counts; the stacks and frames stay in the trace.
*/
#include "analysis_impl.h"

#include <stdlib.h>
#include <string.h>

typedef struct stack_count {
    uint32_t track, stack;
    uint64_t n;
} stack_count;

static const tr_trace *hot_sort_trace;
static int hot_by_total;

static int hot_cmp(const void *pa, const void *pb)
{
    const tr_hot_fn *a = pa, *b = pb;
    uint64_t x1 = hot_by_total ? a->total : a->self, y1 = hot_by_total ? b->total : b->self;
    uint64_t x2 = hot_by_total ? a->self : a->total, y2 = hot_by_total ? b->self : b->total;
    if (x1 != y1) return x1 > y1 ? -1 : 1;
    if (x2 != y2) return x2 > y2 ? -1 : 1;
    int c = tr_an_strcmp(hot_sort_trace, a->function, b->function);
    return c ? c : tr_an_strcmp(hot_sort_trace, a->file, b->file);
}

void tr_hot_table_sort(const tr_trace *t, tr_hot_table *h, int by_total)
{
    hot_sort_trace = t;
    hot_by_total = by_total;
    tr_qsort(h->fns, h->n, sizeof *h->fns, hot_cmp);
}

/*
** One table from the stack counts V[0..N): self for the innermost frame's
** function, total once per sample for each function on the path.
*/
static int hot_table(const tr_trace *t, const stack_count *v, size_t n, tr_hot_table *h)
{
    tr_map fns;
    tr_vec out, seen; /* seen: per function, the last stack walk that counted it */
    tr_vec_init(&out, sizeof(tr_hot_fn));
    tr_vec_init(&seen, sizeof(size_t));
    if (tr_map_init(&fns, 256) != TR_OK) return TR_FATAL;
    int rc = TR_FATAL;
    for (size_t i = 0; i < n; i++) {
        /* No frames, no function: left out as from the flame graph, but counted. */
        if (v[i].stack == 0) {
            h->frameless += v[i].n;
            continue;
        }
        h->samples += v[i].n;
        int leaf = 1;
        for (uint32_t st = v[i].stack; st != 0; st = tr_stack_parent(t, st), leaf = 0) {
            const tr_frame *f = tr_frame_get(t, tr_stack_frame(t, st));
            if (!f) break;
            int is_new;
            uint32_t *slot = tr_map_slot(&fns, (uint64_t)f->function << 32 | f->file, &is_new);
            if (!slot) goto done;
            if (is_new) {
                tr_hot_fn *fn = tr_vec_push(&out);
                size_t *s = tr_vec_push(&seen);
                if (!fn || !s) goto done;
                fn->function = f->function;
                fn->file = f->file;
                *s = SIZE_MAX;
                *slot = (uint32_t)(out.len - 1);
            }
            tr_hot_fn *fn = &TR_VEC_AT(&out, tr_hot_fn, *slot);
            size_t *s = &TR_VEC_AT(&seen, size_t, *slot);
            if (leaf) fn->self += v[i].n;
            /* Recursion: a function counts once per sample in total. */
            if (*s != i) fn->total += v[i].n;
            *s = i;
        }
    }
    h->fns = out.data;
    h->n = out.len;
    out.data = NULL;
    tr_hot_table_sort(t, h, 0);
    rc = TR_OK;
done:
    tr_vec_fini(&out);
    tr_vec_fini(&seen);
    tr_map_fini(&fns);
    return rc;
}

static int sc_cmp(const void *pa, const void *pb)
{
    const stack_count *a = pa, *b = pb;
    if (a->track != b->track) return a->track < b->track ? -1 : 1;
    return (a->stack > b->stack) - (a->stack < b->stack);
}

void tr_hot_stats_fini(tr_hot_stats *s)
{
    tr_free(s->merged.fns);
    for (size_t i = 0; i < s->n_threads; i++) tr_free(s->threads[i].fns);
    tr_free(s->threads);
    memset(s, 0, sizeof *s);
}

struct tr_hot_acc {
    const tr_trace *t;
    int per_thread;
    tr_map slot_of; /* track << 32 | stack -> index into counts */
    tr_vec counts;  /* stack_count */
};

int tr_hot_acc_new(const tr_trace *t, const tr_stat_opts *o, tr_hot_acc **out, tr_error *e)
{
    tr_hot_acc *a = tr_calloc(1, sizeof *a);
    *out = NULL;
    if (!a) return tr_error_nomem(e);
    a->t = t;
    a->per_thread = o->hot_per_thread;
    tr_vec_init(&a->counts, sizeof(stack_count));
    if (tr_map_init(&a->slot_of, 1024) != TR_OK) {
        tr_hot_acc_free(a);
        return tr_error_nomem(e);
    }
    *out = a;
    return TR_OK;
}

int tr_hot_acc_add(tr_hot_acc *a, const tr_row_event *x, tr_error *e)
{
    const tr_event_rec *ev = &x->rec;
    if (ev->kind != TR_EV_SAMPLE) return TR_OK;
    int is_new;
    uint32_t *slot = tr_map_slot(&a->slot_of, (uint64_t)ev->track << 32 | ev->stack, &is_new);
    if (!slot) return tr_error_nomem(e);
    if (is_new) {
        stack_count *c = tr_vec_push(&a->counts);
        if (!c) return tr_error_nomem(e);
        c->track = ev->track;
        c->stack = ev->stack;
        *slot = (uint32_t)(a->counts.len - 1);
    }
    TR_VEC_AT(&a->counts, stack_count, *slot).n++;
    return TR_OK;
}

/* The tables from the counts per thread and stack, sorted by thread. */
static int hot_tables(const tr_trace *t, int per_thread, stack_count *v, size_t n,
                      tr_hot_stats *out)
{
    tr_qsort(v, n, sizeof *v, sc_cmp);
    out->merged.track = TR_NONE;
    if (hot_table(t, v, n, &out->merged) != TR_OK) return TR_FATAL;
    if (!per_thread) return TR_OK;
    size_t n_threads = 0;
    for (size_t i = 0; i < n; i++) n_threads += i == 0 || v[i].track != v[i - 1].track;
    out->threads = tr_calloc(n_threads ? n_threads : 1, sizeof *out->threads);
    if (!out->threads) return TR_FATAL;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j].track == v[i].track) j++;
        tr_hot_table *h = &out->threads[out->n_threads++];
        h->track = v[i].track;
        if (hot_table(t, v + i, j - i, h) != TR_OK) return TR_FATAL;
        i = j;
    }
    return TR_OK;
}

int tr_hot_acc_end(tr_hot_acc *a, tr_hot_stats *out, tr_error *e)
{
    memset(out, 0, sizeof *out);
    if (hot_tables(a->t, a->per_thread, a->counts.data, a->counts.len, out) != TR_OK) {
        tr_hot_stats_fini(out);
        return tr_error_nomem(e);
    }
    return TR_OK;
}

void tr_hot_acc_free(tr_hot_acc *a)
{
    if (!a) return;
    tr_map_fini(&a->slot_of);
    tr_vec_fini(&a->counts);
    tr_free(a);
}

static int feed_hot(void *user, const tr_row_event *x, tr_error *e)
{
    return tr_hot_acc_add(user, x, e);
}

int tr_hot_stats_compute(const tr_trace *t, const tr_stat_opts *o, tr_hot_stats *out, tr_error *e)
{
    memset(out, 0, sizeof *out);
    tr_hot_acc *a;
    int rc = tr_hot_acc_new(t, o, &a, e);
    if (rc == TR_OK) rc = tr_stat_feed_model(t, feed_hot, a, e);
    if (rc == TR_OK) rc = tr_hot_acc_end(a, out, e);
    tr_hot_acc_free(a);
    return rc;
}
