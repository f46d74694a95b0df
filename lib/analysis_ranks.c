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

/*
** The slices of the processes that had one rank (or none) when they were
** added: a stream hands events out before the ranks are all known, so they
** are summed per unit only at the end.
*/
typedef struct unit_part {
    uint32_t unit; /* its unit once settled, UINT32_MAX none */
    int64_t cur_s, cur_e, busy, step_sum;
    uint64_t steps;
} unit_part;

struct tr_straggler_acc {
    const tr_trace *t;
    const char *glob; /* step names */
    double k;
    tr_straggler_stats rows; /* the units, once the ranks are known */
    tr_map units;
    uint32_t *unit_of_process; /* UINT32_MAX: not a unit (no rank while others have one) */
    int settled;               /* rows and units made */
    tr_map part_of;            /* unit_key -> index into parts */
    tr_vec parts;              /* unit_part */
    uint32_t *part_of_process; /* its part, UINT32_MAX none; PART_MOVED: a rank changed */
    size_t n_proc;             /* of part_of_process */
    size_t n_str;              /* of is_step */
    int8_t *is_step;           /* by string id: 1, 0, or -1 not looked up */
};

#define PART_MOVED (UINT32_MAX - 1)

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
    tr_vec_init(&c->parts, sizeof(unit_part));
    if (tr_map_init(&c->units, 16) != TR_OK || tr_map_init(&c->part_of, 16) != TR_OK) {
        tr_straggler_acc_free(c);
        return tr_error_nomem(e);
    }
    *out = c;
    return TR_OK;
}

/* Busy time (the union of the unit's slices) and steps, a slice at a time. */
int tr_straggler_acc_add(tr_straggler_acc *c, const tr_row_event *x, tr_error *e)
{
    (void)e;
    const tr_event_rec *ev = &x->rec;
    if (ev->kind != TR_EV_SLICE || ev->u.s.name >= tr_str_count(c->t)) return TR_OK;
    uint32_t p = tr_track_get(c->t, ev->track)->process;
    int is_new;
    uint32_t *slot = tr_map_slot(&c->part_of, unit_key(tr_process_get(c->t, p)->rank, p), &is_new);
    if (!slot || (is_new && !tr_vec_push(&c->parts)) ||
        tr_an_grow(&c->is_step, &c->n_str, (size_t)ev->u.s.name + 1, 1, -1) != TR_OK ||
        tr_an_grow(&c->part_of_process, &c->n_proc, (size_t)p + 1, sizeof *c->part_of_process,
                   0xff) != TR_OK)
        return tr_error_nomem(e);
    if (is_new) {
        *slot = (uint32_t)(c->parts.len - 1);
        TR_VEC_AT(&c->parts, unit_part, *slot) =
            (unit_part){.unit = UINT32_MAX, .cur_s = INT64_MIN, .cur_e = INT64_MIN};
    }
    uint32_t *pp = &c->part_of_process[p];
    *pp = *pp == UINT32_MAX || *pp == *slot ? *slot : PART_MOVED;
    unit_part *us = &TR_VEC_AT(&c->parts, unit_part, *slot);
    int64_t end = ev->ts + (ev->dur > 0 ? ev->dur : 0);
    if (us->cur_e == INT64_MIN || ev->ts > us->cur_e) {
        if (us->cur_e != INT64_MIN) us->busy += us->cur_e - us->cur_s;
        us->cur_s = ev->ts;
        us->cur_e = end;
    } else if (end > us->cur_e) {
        us->cur_e = end;
    }
    int8_t *step = &c->is_step[ev->u.s.name];
    if (*step < 0) *step = fnmatch(c->glob, tr_str_get(c->t, ev->u.s.name, NULL), 0) == 0;
    if (*step) {
        us->steps++;
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

/*
** The units from the ranks known now, each with the sums of its part.  A
** unit of two parts with slices (processes whose rank came after their
** slices were added) cannot have their union: the model gives it.
*/
static int units_settle(tr_straggler_acc *c, tr_error *e)
{
    if (c->settled) return TR_OK;
    c->settled = 1;
    if (rank_units(c) != TR_OK) return tr_error_nomem(e);
    if (c->rows.n < 2) return TR_OK;
    for (size_t u = 0; u < c->rows.n; u++) c->rows.rows[u].value[TR_METRIC_STEP] = -1;
    int split = 0; /* a part whose processes are in two units now */
    for (size_t p = 0; p < c->n_proc && p < tr_process_count(c->t); p++) {
        uint32_t i = c->part_of_process[p];
        if (i == UINT32_MAX) continue;
        unit_part *pt = i == PART_MOVED ? NULL : &TR_VEC_AT(&c->parts, unit_part, i);
        if (!pt || (pt->unit != UINT32_MAX && pt->unit != c->unit_of_process[p]))
            split = 1;
        else
            pt->unit = c->unit_of_process[p];
    }
    for (size_t i = 0; i < c->parts.len; i++) {
        const unit_part *pt = &TR_VEC_AT(&c->parts, unit_part, i);
        uint32_t u = pt->unit;
        int64_t busy = pt->busy + (pt->cur_e != INT64_MIN ? pt->cur_e - pt->cur_s : 0);
        if (u == UINT32_MAX || (!busy && !pt->steps)) continue;
        tr_rank_row *r = &c->rows.rows[u];
        if (split || r->value[TR_METRIC_BUSY] || r->steps)
            return tr_errorf(e, TR_E_USAGE, NULL,
                             "processes were given a rank after their slices were summed");
        r->value[TR_METRIC_BUSY] = busy;
        r->steps = pt->steps;
        r->value[TR_METRIC_STEP] = pt->steps ? pt->step_sum / (int64_t)pt->steps : -1;
    }
    return TR_OK;
}

int tr_straggler_acc_end(tr_straggler_acc *c, const tr_io_stats *io, tr_straggler_stats *out,
                         tr_error *e)
{
    memset(out, 0, sizeof *out);
    out->k = c->k;
    int rc = units_settle(c, e);
    if (rc != TR_OK) return rc;
    if (c->rows.n < 2) return TR_OK;
    *out = c->rows;
    out->k = c->k;
    memset(&c->rows, 0, sizeof c->rows);
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
    tr_vec_fini(&c->parts);
    tr_free(c->part_of_process);
    tr_free(c->is_step);
    tr_map_fini(&c->units);
    tr_map_fini(&c->part_of);
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
    if (rc == TR_OK) rc = units_settle(c, e);
    /* Fewer than 2 units give no rows: their I/O is not needed. */
    if (rc == TR_OK && c->rows.n >= 2) rc = tr_io_stats_compute(t, o, &io, e);
    if (rc == TR_OK) rc = tr_straggler_acc_end(c, &io, out, e);
    tr_io_stats_fini(&io);
    tr_straggler_acc_free(c);
    return rc;
}
