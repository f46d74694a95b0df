/*
** analysis_ranks.c: stragglers across ranks.
**
** Per rank: busy time (the union of the slices of all its tracks), I/O time
** (its outermost I/O calls, as the io section counts them) and mean step
** time (slices named like the step pattern).  A value is an outlier when it
** is more than k median absolute deviations from the median, and more than
** 1% of the median away, so that ranks that all agree to the nanosecond
** (MAD 0) do not flag noise.
*/
#include "analysis_impl.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

const char *tr_rank_metric_name(int metric)
{
    static const char *const names[TR_METRIC_COUNT] = {"busy", "io", "step"};
    return metric >= 0 && metric < TR_METRIC_COUNT ? names[metric] : "?";
}

void tr_straggler_stats_fini(tr_straggler_stats *s)
{
    tr_free(s->rows);
    memset(s, 0, sizeof *s);
}

static int cmp_i64(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

/* The median of N values, sorting them; the mean of the middle two for even N. */
static int64_t median_of(int64_t *v, size_t n)
{
    tr_qsort(v, n, sizeof *v, cmp_i64);
    return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

static int row_cmp(const void *pa, const void *pb)
{
    const tr_rank_row *a = pa, *b = pb;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    return (a->process > b->process) - (a->process < b->process);
}

typedef struct unit_state {
    int64_t cur_s, cur_e, step_sum;
} unit_state;

struct tr_straggler_acc {
    const tr_trace *t;
    const char *glob; /* step names */
    double k;
    tr_straggler_stats rows; /* the units, their sums so far */
    tr_map units;
    uint32_t *unit_of_process; /* UINT32_MAX: not a unit (no rank while others have one) */
    unit_state *st;
    size_t n_str;
    int8_t *is_step; /* by string id: 1, 0, or -1 not looked up */
};

static uint64_t unit_key(int32_t rank, uint32_t process)
{
    return rank >= 0 ? (uint64_t)(uint32_t)rank : (1ull << 32) | process;
}

static int rank_units(tr_straggler_acc *c)
{
    size_t np = tr_process_count(c->t);
    int any_rank = 0;
    for (size_t p = 0; p < np; p++) any_rank |= tr_process_get(c->t, (uint32_t)p)->rank >= 0;
    c->unit_of_process = tr_malloc((np ? np : 1) * sizeof *c->unit_of_process);
    if (!c->unit_of_process) return TR_FATAL;
    tr_vec rows;
    tr_vec_init(&rows, sizeof(tr_rank_row));
    for (size_t p = 0; p < np; p++) {
        int32_t rank = tr_process_get(c->t, (uint32_t)p)->rank;
        c->unit_of_process[p] = UINT32_MAX;
        if (any_rank && rank < 0) continue;
        int is_new;
        uint32_t *slot =
            tr_map_slot(&c->units, unit_key(any_rank ? rank : -1, (uint32_t)p), &is_new);
        if (!slot) goto oom;
        if (is_new) {
            tr_rank_row *r = tr_vec_push(&rows);
            if (!r) goto oom;
            r->rank = any_rank ? rank : -1;
            r->process = (uint32_t)p;
            *slot = (uint32_t)(rows.len - 1);
        }
        c->unit_of_process[p] = *slot;
    }
    c->rows.rows = rows.data;
    c->rows.n = rows.len;
    return TR_OK;
oom:
    tr_vec_fini(&rows);
    return TR_FATAL;
}

int tr_straggler_acc_new(const tr_trace *t, const tr_stat_opts *o, tr_straggler_acc **out,
                         tr_error *e)
{
    tr_straggler_acc *c = tr_calloc(1, sizeof *c);
    *out = NULL;
    if (!c) return tr_error_nomem(e);
    c->t = t;
    c->k = o->mad_k;
    c->glob = o->step_glob ? o->step_glob : "ProfilerStep*";
    c->n_str = tr_str_count(t);
    size_t n_str = c->n_str ? c->n_str : 1;
    c->is_step = tr_malloc(n_str);
    if (!c->is_step || tr_map_init(&c->units, 16) != TR_OK || rank_units(c) != TR_OK ||
        !(c->st = tr_malloc((c->rows.n ? c->rows.n : 1) * sizeof *c->st))) {
        tr_straggler_acc_free(c);
        return tr_error_nomem(e);
    }
    memset(c->is_step, -1, n_str);
    for (size_t u = 0; u < c->rows.n; u++) c->st[u] = (unit_state){INT64_MIN, INT64_MIN, 0};
    *out = c;
    return TR_OK;
}

/* Busy time (the union of the unit's slices) and steps, a slice at a time. */
int tr_straggler_acc_add(tr_straggler_acc *c, const tr_row_event *x, tr_error *e)
{
    (void)e;
    const tr_event_rec *ev = &x->rec;
    if (ev->kind != TR_EV_SLICE || ev->u.s.name >= c->n_str) return TR_OK;
    if (c->rows.n < 2) return TR_OK;
    uint32_t u = c->unit_of_process[tr_track_get(c->t, ev->track)->process];
    if (u == UINT32_MAX) return TR_OK;
    unit_state *us = &c->st[u];
    tr_rank_row *r = &c->rows.rows[u];
    int64_t end = ev->ts + (ev->dur > 0 ? ev->dur : 0);
    if (us->cur_e == INT64_MIN || ev->ts > us->cur_e) {
        if (us->cur_e != INT64_MIN) r->value[TR_METRIC_BUSY] += us->cur_e - us->cur_s;
        us->cur_s = ev->ts;
        us->cur_e = end;
    } else if (end > us->cur_e) {
        us->cur_e = end;
    }
    int8_t *step = &c->is_step[ev->u.s.name];
    if (*step < 0) *step = fnmatch(c->glob, tr_str_get(c->t, ev->u.s.name, NULL), 0) == 0;
    if (*step) {
        r->steps++;
        us->step_sum += end - ev->ts;
    }
    return TR_OK;
}

/* The I/O time of each unit, as the io section counts it. */
static void rank_io(const tr_map *units, tr_straggler_stats *out, const tr_io_stats *io)
{
    for (size_t i = 0; i < io->n_ranks; i++) {
        const tr_io_rank *r = &io->ranks[i];
        uint32_t u = tr_map_find(units, unit_key(r->rank, r->process));
        if (u != UINT32_MAX) out->rows[u].value[TR_METRIC_IO] = r->c.time;
    }
    out->has[TR_METRIC_IO] = io->n_ranks > 0;
}

/* Median, MAD and the outlier flags of one metric over the units that have it. */
static void rank_verdict(tr_straggler_stats *out, int m, int64_t *tmp)
{
    size_t n = 0;
    for (size_t u = 0; u < out->n; u++)
        if (out->rows[u].value[m] >= 0) tmp[n++] = out->rows[u].value[m];
    if (m != TR_METRIC_IO) out->has[m] = n >= 2;
    if (!out->has[m] || n < 2) return;
    int64_t med = median_of(tmp, n);
    for (size_t i = 0; i < n; i++) tmp[i] = tmp[i] > med ? tmp[i] - med : med - tmp[i];
    int64_t mad = median_of(tmp, n);
    out->median[m] = med;
    out->mad[m] = mad;
    double limit = out->k * (double)mad, floor = (double)(med < 0 ? -med : med) / 100.0;
    for (size_t u = 0; u < out->n; u++) {
        int64_t v = out->rows[u].value[m];
        if (v < 0) continue;
        double d = (double)v - (double)med, ad = d < 0 ? -d : d;
        if (ad > limit && ad > floor) out->rows[u].outlier[m] = d > 0 ? 1 : -1;
    }
}

int tr_straggler_acc_end(tr_straggler_acc *c, const tr_io_stats *io, tr_straggler_stats *out,
                         tr_error *e)
{
    memset(out, 0, sizeof *out);
    out->k = c->k;
    if (c->rows.n < 2) return TR_OK;
    *out = c->rows;
    out->k = c->k;
    memset(&c->rows, 0, sizeof c->rows);
    for (size_t u = 0; u < out->n; u++) {
        tr_rank_row *r = &out->rows[u];
        if (c->st[u].cur_e != INT64_MIN)
            r->value[TR_METRIC_BUSY] += c->st[u].cur_e - c->st[u].cur_s;
        r->value[TR_METRIC_STEP] = r->steps ? c->st[u].step_sum / (int64_t)r->steps : -1;
    }
    rank_io(&c->units, out, io);
    int64_t *tmp = tr_malloc(out->n * sizeof *tmp);
    if (!tmp) {
        tr_straggler_stats_fini(out);
        return tr_error_nomem(e);
    }
    for (int m = 0; m < TR_METRIC_COUNT; m++) rank_verdict(out, m, tmp);
    tr_free(tmp);
    tr_qsort(out->rows, out->n, sizeof *out->rows, row_cmp);
    return TR_OK;
}

void tr_straggler_acc_free(tr_straggler_acc *c)
{
    if (!c) return;
    tr_free(c->rows.rows);
    tr_free(c->unit_of_process);
    tr_free(c->st);
    tr_free(c->is_step);
    tr_map_fini(&c->units);
    tr_free(c);
}

static int feed_stragglers(void *user, const tr_row_event *x, tr_error *e)
{
    return tr_straggler_acc_add(user, x, e);
}

int tr_straggler_stats_compute(const tr_trace *t, const tr_stat_opts *o, tr_straggler_stats *out,
                               tr_error *e)
{
    memset(out, 0, sizeof *out);
    out->k = o->mad_k;
    tr_straggler_acc *c;
    tr_io_stats io = {0};
    int rc = tr_straggler_acc_new(t, o, &c, e);
    if (rc == TR_OK) rc = tr_stat_feed_model(t, feed_stragglers, c, e);
    /* Fewer than 2 units give no rows: their I/O is not needed. */
    if (rc == TR_OK && c->rows.n >= 2) rc = tr_io_stats_compute(t, o, &io, e);
    if (rc == TR_OK) rc = tr_straggler_acc_end(c, &io, out, e);
    tr_io_stats_fini(&io);
    tr_straggler_acc_free(c);
    return rc;
}
