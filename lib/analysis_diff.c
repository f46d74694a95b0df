/*
** analysis_diff.c: the diff of two runs.
**
** Each run is summarised by the analyses it already has (ops, GPU kernels,
** hot stacks, I/O); every summary row becomes one side of a tr_diff_row,
** keyed by kind and text.  Sorting the rows of both runs by that key puts
** the two sides of a name next to each other, where they are folded into
** one row; rows that are the same in both runs are dropped, and the rest
** are ordered by the size of their effect.
*/
#include "analysis_impl.h"

#include <math.h>
#include <string.h>

const char *tr_diff_kind_name(int kind)
{
    static const char *const names[TR_DIFF_KIND_COUNT] = {"ops", "kernels", "frames", "io_files",
                                                          "io_ranks"};
    return kind >= 0 && kind < TR_DIFF_KIND_COUNT ? names[kind] : "?";
}

void tr_diff_fini(tr_diff *d)
{
    tr_free(d->rows);
    memset(d, 0, sizeof *d);
}

/* ---- one run's rows ---- */

typedef struct df_side {
    const tr_trace *t;
    int side;
    tr_vec *rows;
} df_side;

static tr_diff_row *df_add(df_side *s, int kind, tr_str name, uint64_t count, int64_t value)
{
    tr_diff_row *r = tr_vec_push(s->rows);
    if (!r) return NULL;
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->name = tr_str_get(s->t, name, NULL);
    r->rank = -1;
    r->count[s->side] = count;
    r->value[s->side] = value;
    return r;
}

static int df_ops(df_side *s)
{
    tr_op_stats ops;
    tr_error e = {0};
    if (tr_op_stats_compute(s->t, &ops, &e) != TR_OK) return TR_FATAL;
    int rc = TR_OK;
    for (size_t i = 0; i < ops.n_names && rc == TR_OK; i++) {
        const tr_op_stat *o = &ops.by_name[i];
        if (!df_add(s, TR_DIFF_OP, o->key, o->count, o->total)) rc = TR_FATAL;
    }
    tr_op_stats_fini(&ops);
    return rc;
}

static int df_kernels(df_side *s, const tr_stat_opts *o)
{
    tr_gpu_kernels k;
    tr_error e = {0};
    tr_stat_opts all = *o; /* every kernel, as the ops are every slice */
    all.hta_steps = TR_HTA_STEPS_ALL;
    if (tr_gpu_kernels_compute(s->t, &all, &k, &e) != TR_OK) return TR_FATAL;
    int rc = TR_OK;
    for (size_t i = 0; i < k.n && rc == TR_OK; i++)
        if (!df_add(s, TR_DIFF_KERNEL, k.kernels[i].name, k.kernels[i].count, k.kernels[i].total))
            rc = TR_FATAL;
    tr_gpu_kernels_fini(&k);
    return rc;
}

static int df_frames(df_side *s, const tr_stat_opts *o, uint64_t *samples)
{
    tr_hot_stats h;
    tr_error e = {0};
    tr_stat_opts merged = *o;
    merged.hot_per_thread = 0;
    if (tr_hot_stats_compute(s->t, &merged, &h, &e) != TR_OK) return TR_FATAL;
    *samples = h.merged.samples;
    int rc = TR_OK;
    for (size_t i = 0; i < h.merged.n && rc == TR_OK; i++) {
        const tr_hot_fn *f = &h.merged.fns[i];
        if (!df_add(s, TR_DIFF_FRAME, f->function, f->self, (int64_t)f->total)) rc = TR_FATAL;
    }
    tr_hot_stats_fini(&h);
    return rc;
}

static int df_io(df_side *s, const tr_stat_opts *o)
{
    tr_io_stats io;
    tr_error e = {0};
    if (tr_io_stats_compute(s->t, o, &io, &e) != TR_OK) return TR_FATAL;
    int rc = TR_OK;
    for (size_t i = 0; i < io.n_files && rc == TR_OK; i++) {
        const tr_io_file *f = &io.files[i];
        if (!df_add(s, TR_DIFF_IO_FILE, f->path, f->reads + f->writes,
                    f->bytes_read + f->bytes_written))
            rc = TR_FATAL;
    }
    for (size_t i = 0; i < io.n_ranks && rc == TR_OK; i++) {
        const tr_io_rank *r = &io.ranks[i];
        uint64_t calls = 0;
        for (int k = 0; k < TR_IO_KIND_COUNT; k++) calls += r->c.ops[k];
        tr_diff_row *d = df_add(s, TR_DIFF_IO_RANK, 0, calls, r->c.time);
        if (!d) {
            rc = TR_FATAL;
            break;
        }
        d->name = NULL;
        d->rank = r->rank >= 0 ? r->rank : (int32_t)tr_process_get(s->t, r->process)->pid;
        d->bytes[s->side] = r->c.bytes_read + r->c.bytes_written;
    }
    tr_io_stats_fini(&io);
    return rc;
}

static int df_run(const tr_trace *t, int side, const tr_stat_opts *o, tr_vec *rows, tr_diff *out)
{
    df_side s = {t, side, rows};
    int64_t first, last;
    out->span[side] = tr_stat_span(t, &first, &last) ? last - first : 0;
    if (df_ops(&s) != TR_OK || df_kernels(&s, o) != TR_OK ||
        df_frames(&s, o, &out->samples[side]) != TR_OK || df_io(&s, o) != TR_OK)
        return TR_FATAL;
    return TR_OK;
}

/* ---- folding the two runs ---- */

static int df_key_cmp(const tr_diff_row *a, const tr_diff_row *b)
{
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    if (!a->name || !b->name) return (a->rank > b->rank) - (a->rank < b->rank);
    return strcmp(a->name, b->name);
}

static int df_by_key(const void *pa, const void *pb)
{
    return df_key_cmp(pa, pb);
}

static int df_by_effect(const void *pa, const void *pb)
{
    const tr_diff_row *a = pa, *b = pb;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    double ea = fabs(a->effect), eb = fabs(b->effect);
    if (ea != eb) return ea > eb ? -1 : 1;
    return df_key_cmp(a, b);
}

/* Folds rows of equal key (sorted) into the first; returns how many remain. */
static size_t df_fold(tr_diff_row *v, size_t n, const uint64_t *samples)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && df_key_cmp(&v[k - 1], &v[i]) == 0) {
            tr_diff_row *r = &v[k - 1];
            for (int s = 0; s < 2; s++) {
                r->count[s] += v[i].count[s];
                r->value[s] += v[i].value[s];
                r->bytes[s] += v[i].bytes[s];
            }
        } else {
            v[k++] = v[i];
        }
    }
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        tr_diff_row *r = &v[i];
        if (r->count[0] == r->count[1] && r->value[0] == r->value[1] && r->bytes[0] == r->bytes[1])
            continue;
        for (int s = 0; s < 2; s++)
            r->share[s] = samples[s] ? (double)r->value[s] / (double)samples[s] : 0;
        r->effect = r->kind == TR_DIFF_FRAME ? r->share[1] - r->share[0]
                                             : (double)(r->value[1] - r->value[0]);
        v[m++] = *r;
    }
    return m;
}

int tr_diff_compute(const tr_trace *control, const tr_trace *test, const tr_stat_opts *o,
                    tr_diff *out, tr_error *e)
{
    memset(out, 0, sizeof *out);
    tr_vec rows;
    tr_vec_init(&rows, sizeof(tr_diff_row));
    if (df_run(control, 0, o, &rows, out) != TR_OK || df_run(test, 1, o, &rows, out) != TR_OK) {
        tr_vec_fini(&rows);
        return tr_error_nomem(e);
    }
    tr_diff_row *v = rows.data;
    tr_qsort(v, rows.len, sizeof *v, df_by_key);
    out->n = df_fold(v, rows.len, out->samples);
    tr_qsort(v, out->n, sizeof *v, df_by_effect);
    out->rows = v;
    return TR_OK;
}
