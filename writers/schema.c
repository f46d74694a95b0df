/*
** schema.c: the SQL schema's tables and views, their columns, and how each
** column of a row is read from the model (schema_impl.h).
**
** Model rows keep their numbers as ids (slice.id is the slice's row), so ids
** are stable for one trace and flows and parents need no remapping.  Text id
** 0 ("") and the model's "none" values (-1, TR_NONE, INT64_MIN) are nulls.
** A value SQLite would store differently from what it is given (NaN as
** NULL, a uint above INT64_MAX as a real) is given here as SQLite stores it,
** so a Parquet file holds what the database holds.
*/
#include "schema_impl.h"
#include "tr_analysis.h"
#include "tr_text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- the context ---- */

/* Whether T has an input the io table lists (a Recorder trace). */
static int sc_has_recorder(const tr_trace *t)
{
    for (size_t i = 0; i < tr_input_count(t); i++) {
        const tr_input_info *in = tr_input_get(t, (uint32_t)i);
        if (strcmp(tr_str_get(t, in->format, NULL), "recorder") == 0) return 1;
    }
    return 0;
}

int tr_sc_open(tr_sc_ctx *c, const tr_trace *t, const tr_filter *filter, tr_error *e)
{
    memset(c, 0, sizeof *c);
    c->t = t;
    tr_vec_init(&c->io_calls, sizeof(tr_io_call));
    if (sc_has_recorder(t)) {
        /* The io table's files and offsets are the I/O analysis's (derived where no arg says). */
        tr_io_stats io;
        if (tr_io_calls(t, NULL, &io, &c->io_calls, e) != TR_OK) return TR_FATAL;
        tr_io_stats_fini(&io);
    }
    tr_trace_slices(t, &c->sl);
    tr_trace_instants(t, &c->in);
    tr_trace_counters(t, &c->co);
    tr_trace_samples(t, &c->sa);
    tr_buf_init(&c->scratch, 0);
    c->n_sets = tr_args_sets(t);
    c->id_set = 1;
    if (!filter) return TR_OK;
    size_t n[TR_EV_KIND_COUNT] = {c->sl.n, c->in.n, c->co.n, c->sa.n};
    for (int k = 0; k < TR_EV_KIND_COUNT; k++)
        if (!(c->keep[k] = tr_calloc(n[k] ? n[k] : 1, 1))) return tr_error_nomem(e);
    tr_iter it;
    tr_event ev;
    tr_iter_init(&it, t);
    while (tr_iter_next(&it, &ev))
        c->keep[ev.kind][ev.row] = filter->keep(filter->user, t, &ev) != 0;
    return TR_OK;
}

int tr_sc_check(const tr_sc_ctx *c, int rc, tr_error *e)
{
    return rc == TR_OK && c->scratch.nomem ? tr_error_nomem(e) : rc;
}

void tr_sc_close(tr_sc_ctx *c)
{
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) tr_free(c->keep[k]);
    tr_free(c->set_first);
    tr_free(c->set_first32);
    tr_free(c->set_args);
    tr_buf_fini(&c->scratch);
    tr_vec_fini(&c->io_calls);
}

void tr_sc_copy(tr_sc_ctx *own, const tr_sc_ctx *c)
{
    *own = *c;
    tr_buf_init(&own->scratch, 0);
    own->args_set = 0;
    own->set_args = NULL;
    own->set_args_n = own->set_args_cap = 0;
}

void tr_sc_copy_end(tr_sc_ctx *own, const tr_sc_ctx *c)
{
    if (own->set_first != c->set_first) tr_free(own->set_first);
    if (own->set_first32 != c->set_first32) tr_free(own->set_first32);
    tr_free(own->set_args);
    tr_buf_fini(&own->scratch);
}

int tr_sc_kept(const tr_sc_ctx *c, int kind, size_t row)
{
    return !c->keep[kind] || c->keep[kind][row];
}

int tr_sc_thread_track(const tr_sc_ctx *c, uint32_t track)
{
    const tr_track *k = tr_track_get(c->t, track);
    return k && k->kind != TR_TRACK_COUNTER && k->kind != TR_TRACK_ASYNC;
}

size_t tr_sc_flow_count(const tr_sc_ctx *c)
{
    return c->flows ? c->n_flows : tr_flow_count(c->t);
}

int tr_sc_flow_get(const tr_sc_ctx *c, uint32_t row, tr_flow *out)
{
    if (!c->flows) return tr_flow_get(c->t, row, out);
    memset(out, 0, sizeof *out);
    if (row >= c->n_flows) return 0;
    *out = c->flows[row];
    return 1;
}

int tr_sc_ref_kept(const tr_sc_ctx *c, tr_ref ref)
{
    int kind = TR_REF_KIND(ref);
    /* a stream's ends are bound to rows, or name no event (no filter applies) */
    if (c->flows) return kind == TR_EV_SLICE || kind == TR_EV_INSTANT;
    size_t n = kind == TR_EV_SLICE ? c->sl.n : kind == TR_EV_INSTANT ? c->in.n : 0;
    return TR_REF_ROW(ref) < n && tr_sc_kept(c, kind, TR_REF_ROW(ref));
}

int tr_sc_event_kind(int rows)
{
    switch (rows) {
    case TR_SC_ROWS_SLICE:
        return TR_EV_SLICE;
    case TR_SC_ROWS_INSTANT:
        return TR_EV_INSTANT;
    case TR_SC_ROWS_COUNTER:
        return TR_EV_COUNTER;
    case TR_SC_ROWS_SAMPLE:
        return TR_EV_SAMPLE;
    default:
        return -1;
    }
}

/* ---- values ---- */

static void v_int(tr_sc_value *v, int64_t x)
{
    v->i = x;
}

static void v_opt(tr_sc_value *v, int64_t x, int64_t none)
{
    v->is_null = x == none;
    v->i = x;
}

/* Model text: "" is NULL, the id is the dictionary key. */
static void v_str(const tr_sc_ctx *c, tr_sc_value *v, tr_str s)
{
    v->is_null = s == 0;
    v->s = tr_str_get(c->t, s, &v->n);
    v->key = s;
}

/* Model text that is never NULL ("" stays ""). */
static void v_text(const tr_sc_ctx *c, tr_sc_value *v, tr_str s)
{
    v_str(c, v, s);
    v->is_null = 0;
}

static void v_const(tr_sc_value *v, const char *s, uint64_t key)
{
    v->s = s;
    v->n = strlen(s);
    v->key = key;
}

/* ---- trace_input, process, thread, track ---- */

static const tr_sc_column input_cols[] = {{"id", TR_SC_INT, 0, NULL},
                                          {"path", TR_SC_TEXT, 0, NULL},
                                          {"format", TR_SC_TEXT, 0, NULL},
                                          {"origin", TR_SC_TEXT, TR_SC_NULL, NULL},
                                          {"origin_unix_ns", TR_SC_INT, TR_SC_NULL, NULL},
                                          {"clock", TR_SC_TEXT, TR_SC_NULL, NULL},
                                          {"rank", TR_SC_INT, TR_SC_NULL | TR_SC_RANK, NULL},
                                          {"lines_skipped", TR_SC_INT, 0, NULL},
                                          {"warnings", TR_SC_INT, 0, NULL},
                                          {"arg_set_id", TR_SC_INT, TR_SC_NULL, NULL}};

static void get_input(tr_sc_ctx *c, int col, uint64_t key, tr_sc_value *v)
{
    const tr_input_info *in = tr_input_get(c->t, (uint32_t)key);
    switch (col) {
    case 0:
        v_int(v, (int64_t)key);
        break;
    case 1:
        v_text(c, v, in->path);
        break;
    case 2:
        v_text(c, v, in->format);
        break;
    case 3:
        v_str(c, v, in->origin_wall);
        break;
    case 4:
        v_opt(v, in->origin_unix_ns, INT64_MIN);
        break;
    case 5:
        v_str(c, v, in->clock);
        break;
    case 6:
        v_opt(v, in->rank, -1);
        break;
    case 7:
        v_int(v, (int64_t)in->lines_skipped);
        break;
    case 8:
        v_int(v, (int64_t)in->warnings);
        break;
    default:
        v_opt(v, in->meta, 0);
        break;
    }
}

static const tr_sc_column process_cols[] = {{"upid", TR_SC_INT, 0, NULL},
                                            {"pid", TR_SC_INT, TR_SC_NULL, NULL},
                                            {"name", TR_SC_TEXT, TR_SC_NULL, NULL},
                                            {"rank", TR_SC_INT, TR_SC_NULL | TR_SC_RANK, NULL},
                                            {"host", TR_SC_TEXT, TR_SC_NULL, NULL},
                                            {"labels", TR_SC_TEXT, TR_SC_NULL, NULL},
                                            {"sort_index", TR_SC_INT, TR_SC_NULL, NULL},
                                            {"input_id", TR_SC_INT, 0, NULL}};

static void get_process(tr_sc_ctx *c, int col, uint64_t key, tr_sc_value *v)
{
    const tr_process *pr = tr_process_get(c->t, (uint32_t)key);
    switch (col) {
    case 0:
        v_int(v, (int64_t)key);
        break;
    case 1:
        v_opt(v, pr->pid, -1);
        break;
    case 2:
        v_str(c, v, pr->name);
        break;
    case 3:
        v_opt(v, pr->rank, -1);
        break;
    case 4:
        v_str(c, v, pr->host);
        break;
    case 5:
        v_str(c, v, pr->labels);
        break;
    case 6:
        v_opt(v, pr->sort_index, 0);
        break;
    default:
        v_int(v, pr->input);
        break;
    }
}

static const tr_sc_column thread_cols[] = {{"utid", TR_SC_INT, 0, NULL},
                                           {"tid", TR_SC_INT, TR_SC_NULL, NULL},
                                           {"name", TR_SC_TEXT, TR_SC_NULL, NULL},
                                           {"upid", TR_SC_INT, 0, NULL}};

static void get_thread(tr_sc_ctx *c, int col, uint64_t key, tr_sc_value *v)
{
    const tr_track *k = tr_track_get(c->t, (uint32_t)key);
    switch (col) {
    case 0:
        v_int(v, (int64_t)key);
        break;
    case 1:
        v_opt(v, k->tid, -1);
        break;
    case 2:
        v_str(c, v, k->name);
        break;
    default:
        v_int(v, k->process);
        break;
    }
}

static const tr_sc_column track_cols[] = {{"id", TR_SC_INT, 0, NULL},
                                          {"name", TR_SC_TEXT, TR_SC_NULL, NULL},
                                          {"kind", TR_SC_TEXT, 0, NULL},
                                          {"upid", TR_SC_INT, 0, NULL},
                                          {"utid", TR_SC_INT, TR_SC_NULL, NULL},
                                          {"tid", TR_SC_INT, TR_SC_NULL, NULL},
                                          {"sort_index", TR_SC_INT, TR_SC_NULL, NULL}};

static void get_track(tr_sc_ctx *c, int col, uint64_t key, tr_sc_value *v)
{
    const tr_track *k = tr_track_get(c->t, (uint32_t)key);
    switch (col) {
    case 0:
        v_int(v, (int64_t)key);
        break;
    case 1:
        v_str(c, v, k->name);
        break;
    case 2:
        v_const(v, tr_track_kind_name(k->kind), (uint64_t)k->kind);
        break;
    case 3:
        v_int(v, k->process);
        break;
    case 4:
        v_opt(v, tr_sc_thread_track(c, (uint32_t)key) ? (int64_t)key : -1, -1);
        break;
    case 5:
        v_opt(v, k->tid, -1);
        break;
    default:
        v_opt(v, k->sort_index, 0);
        break;
    }
}

/* ---- events ---- */

static const tr_sc_column slice_cols[] = {{"id", TR_SC_INT, 0, NULL},
                                          {"ts", TR_SC_INT, 0, NULL},
                                          {"dur", TR_SC_INT, 0, NULL},
                                          {"track_id", TR_SC_INT, 0, NULL},
                                          {"category", TR_SC_TEXT, TR_SC_NULL, NULL},
                                          {"name", TR_SC_TEXT, TR_SC_NULL, NULL},
                                          {"depth", TR_SC_INT, 0, NULL},
                                          {"parent_id", TR_SC_INT, TR_SC_NULL, NULL},
                                          {"arg_set_id", TR_SC_INT, TR_SC_NULL, NULL},
                                          {"bytes", TR_SC_INT, TR_SC_NULL, NULL},
                                          {"thread_ts", TR_SC_INT, TR_SC_NULL, NULL},
                                          {"thread_dur", TR_SC_INT, TR_SC_NULL, NULL}};

static void get_slice(tr_sc_ctx *c, int col, uint64_t r, tr_sc_value *v)
{
    const tr_slices *s = &c->sl;
    const tr_row_event *x = c->cur[TR_EV_SLICE];
    switch (col) {
    case 0:
        v_int(v, (int64_t)r);
        break;
    case 1:
        v_int(v, x ? x->rec.ts : s->ts[r]);
        break;
    case 2:
        v_int(v, x ? x->rec.dur : tr_slice_dur(s, r));
        break;
    case 3:
        v_int(v, x ? x->rec.track : s->track[r]);
        break;
    case 4:
        v_str(c, v, x ? x->rec.u.s.cat : tr_slice_cat(s, r));
        break;
    case 5:
        v_str(c, v, x ? x->rec.u.s.name : s->name[r]);
        break;
    case 6:
        v_int(v, x ? x->depth : s->depth[r]);
        break;
    case 7: {
        /* a parent the filter dropped is no parent */
        uint32_t parent = x ? x->parent : s->parent[r];
        int none = parent == TR_NONE || !tr_sc_kept(c, TR_EV_SLICE, parent);
        v_opt(v, none ? -1 : (int64_t)parent, -1);
        break;
    }
    case 8:
        v_opt(v, x ? x->rec.args : s->args[r], 0);
        break;
    case 9:
        v_opt(v, x ? x->rec.bytes : tr_slice_bytes(s, r), -1);
        break;
    case 10:
        v_opt(v, x ? x->rec.thread_ts : tr_slice_thread_ts(s, r), TR_TIME_NONE);
        break;
    default:
        v_opt(v, x ? x->rec.thread_dur : tr_slice_thread_dur(s, r), TR_TIME_NONE);
        break;
    }
}

static const tr_sc_column instant_cols[] = {{"id", TR_SC_INT, 0, NULL},
                                            {"ts", TR_SC_INT, 0, NULL},
                                            {"track_id", TR_SC_INT, 0, NULL},
                                            {"category", TR_SC_TEXT, TR_SC_NULL, NULL},
                                            {"name", TR_SC_TEXT, TR_SC_NULL, NULL},
                                            {"scope", TR_SC_TEXT, 0, NULL},
                                            {"arg_set_id", TR_SC_INT, TR_SC_NULL, NULL},
                                            {"bytes", TR_SC_INT, TR_SC_NULL, NULL}};

static void get_instant(tr_sc_ctx *c, int col, uint64_t r, tr_sc_value *v)
{
    static const char *const scopes[] = {"thread", "process", "global"};
    const tr_instants *s = &c->in;
    const tr_row_event *x = c->cur[TR_EV_INSTANT];
    switch (col) {
    case 0:
        v_int(v, (int64_t)r);
        break;
    case 1:
        v_int(v, x ? x->rec.ts : s->ts[r]);
        break;
    case 2:
        v_int(v, x ? x->rec.track : tr_instant_track(s, r));
        break;
    case 3:
        v_str(c, v, x ? x->rec.u.s.cat : tr_instant_cat(s, r));
        break;
    case 4:
        v_str(c, v, x ? x->rec.u.s.name : tr_instant_name(s, r));
        break;
    case 5: {
        unsigned sc = x ? x->rec.scope : (unsigned)tr_instant_scope(s, r);
        unsigned scope = sc < 3 ? sc : 0;
        v_const(v, scopes[scope], scope);
        break;
    }
    case 6:
        v_opt(v, x ? x->rec.args : s->args[r], 0);
        break;
    default:
        v_opt(v, x ? x->rec.bytes : tr_instant_bytes(s, r), -1);
        break;
    }
}

static const tr_sc_column counter_cols[] = {{"id", TR_SC_INT, 0, NULL},
                                            {"ts", TR_SC_INT, 0, NULL},
                                            {"track_id", TR_SC_INT, 0, NULL},
                                            {"value", TR_SC_REAL, 0, NULL}};

static void get_counter(tr_sc_ctx *c, int col, uint64_t r, tr_sc_value *v)
{
    const tr_row_event *x = c->cur[TR_EV_COUNTER];
    switch (col) {
    case 0:
        v_int(v, (int64_t)r);
        break;
    case 1:
        v_int(v, x ? x->rec.ts : c->co.ts[r]);
        break;
    case 2:
        v_int(v, x ? x->rec.track : c->co.track[r]);
        break;
    default:
        v->d = x ? x->rec.u.value : c->co.value[r];
        break;
    }
}

static const tr_sc_column sample_cols[] = {{"id", TR_SC_INT, 0, NULL},
                                           {"ts", TR_SC_INT, 0, NULL},
                                           {"track_id", TR_SC_INT, 0, NULL},
                                           {"utid", TR_SC_INT, TR_SC_NULL, NULL},
                                           {"callsite_id", TR_SC_INT, TR_SC_NULL, NULL},
                                           {"arg_set_id", TR_SC_INT, TR_SC_NULL, NULL},
                                           {"weight", TR_SC_INT, 0, NULL}};

/* A folded input's line stands for "count" samples (as the folded writer reads it). */
static uint32_t sample_args(const tr_sc_ctx *c, size_t r)
{
    return c->cur[TR_EV_SAMPLE] ? c->cur[TR_EV_SAMPLE]->rec.args : c->sa.args[r];
}

static uint32_t sample_track(const tr_sc_ctx *c, size_t r)
{
    return c->cur[TR_EV_SAMPLE] ? c->cur[TR_EV_SAMPLE]->rec.track : c->sa.track[r];
}

static uint32_t sample_stack_id(const tr_sc_ctx *c, size_t r)
{
    return c->cur[TR_EV_SAMPLE] ? c->cur[TR_EV_SAMPLE]->rec.stack : c->sa.stack[r];
}

static int64_t sample_weight(const tr_sc_ctx *c, size_t r)
{
    tr_arg a;
    uint32_t set = sample_args(c, r);
    if (!set || !tr_args_find(c->t, set, "count", &a)) return 1;
    if (a.type == TR_ARG_UINT) return (int64_t)(a.v.u > INT64_MAX ? INT64_MAX : a.v.u);
    return a.v.i > 0 ? a.v.i : 0;
}

static int64_t sample_utid(const tr_sc_ctx *c, size_t r)
{
    uint32_t track = sample_track(c, r);
    return tr_sc_thread_track(c, track) ? (int64_t)track : -1;
}

static void get_sample(tr_sc_ctx *c, int col, uint64_t r, tr_sc_value *v)
{
    const tr_row_event *x = c->cur[TR_EV_SAMPLE];
    switch (col) {
    case 0:
        v_int(v, (int64_t)r);
        break;
    case 1:
        v_int(v, x ? x->rec.ts : c->sa.ts[r]);
        break;
    case 2:
        v_int(v, sample_track(c, r));
        break;
    case 3:
        v_opt(v, sample_utid(c, r), -1);
        break;
    case 4:
        v_opt(v, sample_stack_id(c, r), 0);
        break;
    case 5:
        v_opt(v, sample_args(c, r), 0);
        break;
    default:
        v_int(v, sample_weight(c, r));
        break;
    }
}

/* ---- flow ---- */

static const tr_sc_column flow_cols[] = {{"id", TR_SC_INT, 0, NULL},
                                         {"slice_out", TR_SC_INT, TR_SC_NULL, NULL},
                                         {"slice_in", TR_SC_INT, TR_SC_NULL, NULL},
                                         {"instant_out", TR_SC_INT, TR_SC_NULL, NULL},
                                         {"instant_in", TR_SC_INT, TR_SC_NULL, NULL},
                                         {"name", TR_SC_TEXT, TR_SC_NULL, NULL},
                                         {"category", TR_SC_TEXT, TR_SC_NULL, NULL},
                                         {"flow_id", TR_SC_INT, 0, NULL}};

/* A flow end: its row when it is of KIND, else NULL. */
static void ref_col(tr_sc_value *v, tr_ref ref, int kind)
{
    v_opt(v, TR_REF_KIND(ref) == kind ? (int64_t)TR_REF_ROW(ref) : -1, -1);
}

static void get_flow(tr_sc_ctx *c, int col, uint64_t key, tr_sc_value *v)
{
    tr_flow fl;
    const tr_flow *f = &fl;
    tr_sc_flow_get(c, (uint32_t)key, &fl);
    switch (col) {
    case 0:
        v_int(v, (int64_t)key);
        break;
    case 1:
        ref_col(v, f->from, TR_EV_SLICE);
        break;
    case 2:
        ref_col(v, f->to, TR_EV_SLICE);
        break;
    case 3:
        ref_col(v, f->from, TR_EV_INSTANT);
        break;
    case 4:
        ref_col(v, f->to, TR_EV_INSTANT);
        break;
    case 5:
        v_str(c, v, f->name);
        break;
    case 6:
        v_str(c, v, f->cat);
        break;
    default:
        v_int(v, (int64_t)f->id);
        break;
    }
}

/* ---- args ---- */

/* display_value: the value as text, as SQLite's CAST gives it. */
static const char args_display_sql[] =
    "CASE value_type WHEN 'string' THEN string_value WHEN 'real' THEN CAST(real_value AS TEXT)"
    " WHEN 'bool' THEN CASE int_value WHEN 0 THEN 'false' ELSE 'true' END"
    " ELSE CAST(coalesce(int_value, real_value) AS TEXT) END";

static const tr_sc_column args_cols[] = {
    {"arg_set_id", TR_SC_INT, 0, NULL},
    {"id", TR_SC_INT, 0, NULL},
    {"flat_key", TR_SC_TEXT, 0, "key"},
    {"key", TR_SC_TEXT, 0, NULL},
    {"int_value", TR_SC_INT, TR_SC_NULL, NULL},
    {"string_value", TR_SC_TEXT, TR_SC_NULL, NULL},
    {"real_value", TR_SC_REAL, TR_SC_NULL, NULL},
    {"value_type", TR_SC_TEXT, 0, NULL},
    {"display_value", TR_SC_TEXT, TR_SC_NULL, args_display_sql}};

/*
** A real as SQLite's CAST(real AS TEXT) writes it ("%!.15g"): 15 digits, and
** a ".0" when there is no decimal point ("2.0", "1.0e+20"); zero is "0.0".
*/
static int sqlite_real(tr_buf *b, double d)
{
    if (d == 0) return tr_buf_adds(b, "0.0");
    if (isinf(d)) return tr_buf_adds(b, d < 0 ? "-Inf" : "Inf");
    char tmp[40];
    snprintf(tmp, sizeof tmp, "%.15g", d);
    if (strchr(tmp, '.')) return tr_buf_adds(b, tmp);
    char *exp = strchr(tmp, 'e');
    if (!exp) return tr_buf_addf(b, "%s.0", tmp);
    return tr_buf_addf(b, "%.*s.0%s", (int)(exp - tmp), tmp, exp);
}

/* The value as text, as the SQLite view's display_value. */
static void display_value(tr_sc_ctx *c, const tr_arg *a, tr_sc_value *v)
{
    tr_buf *b = &c->scratch;
    tr_buf_reset(b);
    int rc = TR_OK;
    switch (a->type) {
    case TR_ARG_STR:
        v_text(c, v, a->v.s);
        v->key = TR_SC_NO_KEY;
        return;
    case TR_ARG_BOOL:
        v_const(v, a->v.i ? "true" : "false", TR_SC_NO_KEY);
        return;
    case TR_ARG_UINT:
        /* above INT64_MAX SQLite holds it as a real */
        rc = a->v.u > INT64_MAX ? sqlite_real(b, (double)a->v.u)
                                : tr_buf_addf(b, "%llu", (unsigned long long)a->v.u);
        break;
    case TR_ARG_REAL:
        if (isnan(a->v.d)) {
            v->is_null = 1; /* SQLite stores NaN as NULL */
            return;
        }
        rc = sqlite_real(b, a->v.d);
        break;
    default:
        rc = tr_buf_add_int(b, a->v.i);
        break;
    }
    v->is_null = rc != TR_OK;
    v->transient = 1;
    v->s = b->p;
    v->n = b->len;
    v->key = TR_SC_NO_KEY;
}

/*
** The id of arg I of SET: its place among all the trace's args, whatever the
** filter drops.  Sets read in id order (the SQLite writer, which binds the
** last few again for its last insert) are counted as the cursor moves; the
** first step far back (Parquet reads a row group's args a column at a time)
** makes the table of every set's first id, 4 bytes a set while the trace
** holds fewer than 2^32 args, else 8.  Without the memory for it the cursor
** walks back.
*/
static void arg_id_table(tr_sc_ctx *c)
{
    uint64_t n_args = 0;
    for (size_t s = 1; s <= c->n_sets; s++) n_args += tr_args_count(c->t, (uint32_t)s);
    if (n_args < UINT32_MAX)
        c->set_first32 = tr_malloc((c->n_sets + 1) * sizeof *c->set_first32);
    else
        c->set_first = tr_malloc((c->n_sets + 1) * sizeof *c->set_first);
    uint64_t first = 0;
    for (size_t s = 1; s <= c->n_sets && (c->set_first || c->set_first32); s++) {
        if (c->set_first32)
            c->set_first32[s] = (uint32_t)first;
        else
            c->set_first[s] = first;
        first += tr_args_count(c->t, (uint32_t)s);
    }
}

static uint64_t arg_id(tr_sc_ctx *c, uint32_t set, uint32_t i)
{
    if (!c->set_first && !c->set_first32 && set + 64 < c->id_set) arg_id_table(c);
    if (c->set_first32) return c->set_first32[set] + i;
    if (c->set_first) return c->set_first[set] + i;
    while (c->id_set > set) c->id_first -= tr_args_count(c->t, --c->id_set);
    for (; c->id_set < set; c->id_set++) c->id_first += tr_args_count(c->t, c->id_set);
    return c->id_first + i;
}

/* Arg I of SET, its set's args fetched in one lookup when they are not at hand. */
static const tr_arg *set_arg(tr_sc_ctx *c, uint32_t set, uint32_t i)
{
    static const tr_arg none;
    /* the next set in id order: the cursor (arg_id) passes the set at hand without a lookup */
    if (c->args_set && c->args_set == c->id_set && set == c->id_set + 1) {
        c->id_first += c->set_args_n;
        c->id_set = set;
    }
    if (set != c->args_set) {
        size_t n = tr_args_get(c->t, set, c->set_args, c->set_args_cap);
        if (n > c->set_args_cap) {
            tr_arg *p = tr_realloc(c->set_args, n * sizeof *p);
            if (!p) {
                c->args_set = 0;
                tr_args_at(c->t, set, i, &c->arg);
                return &c->arg;
            }
            c->set_args = p;
            c->set_args_cap = n;
            tr_args_get(c->t, set, p, n);
        }
        c->set_args_n = n;
        c->args_set = set;
    }
    return i < c->set_args_n ? &c->set_args[i] : &none;
}

static void get_arg(tr_sc_ctx *c, int col, uint64_t key, tr_sc_value *v)
{
    static const char *const types[] = {"int", "real", "string", "bool", "uint"};
    uint32_t set = (uint32_t)(key >> 32), i = (uint32_t)key;
    const tr_arg a = *set_arg(c, set, i);
    int type = a.type >= 0 && a.type < 5 ? a.type : 0;
    switch (col) {
    case 0:
        v_int(v, set);
        break;
    case 1:
        v_int(v, (int64_t)arg_id(c, set, i));
        break;
    case 2:
    case 3:
        v_text(c, v, a.key);
        break;
    case 4:
        v->is_null = !(type == TR_ARG_INT || type == TR_ARG_BOOL ||
                       (type == TR_ARG_UINT && a.v.u <= INT64_MAX));
        v->i = type == TR_ARG_UINT ? (int64_t)a.v.u : a.v.i;
        break;
    case 5:
        if (type == TR_ARG_STR)
            v_text(c, v, a.v.s);
        else
            v->is_null = 1;
        break;
    case 6:
        /* a uint above INT64_MAX keeps its magnitude as a real */
        v->is_null =
            !((type == TR_ARG_REAL && !isnan(a.v.d)) || (type == TR_ARG_UINT && a.v.u > INT64_MAX));
        v->d = type == TR_ARG_REAL ? a.v.d : (double)a.v.u;
        break;
    case 7:
        v_const(v, types[type], (uint64_t)type);
        break;
    default:
        display_value(c, &a, v);
        break;
    }
}

/* ---- stacks ---- */

static const tr_sc_column frame_cols[] = {{"id", TR_SC_INT, 0, NULL},
                                          {"name", TR_SC_TEXT, TR_SC_NULL, NULL},
                                          {"file", TR_SC_TEXT, TR_SC_NULL, NULL},
                                          {"line", TR_SC_INT, TR_SC_NULL, NULL},
                                          {"module", TR_SC_TEXT, TR_SC_NULL, NULL},
                                          {"is_native", TR_SC_INT, 0, NULL}};

static void get_frame(tr_sc_ctx *c, int col, uint64_t key, tr_sc_value *v)
{
    const tr_frame *f = tr_frame_get(c->t, (uint32_t)key);
    switch (col) {
    case 0:
        v_int(v, (int64_t)key);
        break;
    case 1:
        v_str(c, v, f->function);
        break;
    case 2:
        v_str(c, v, f->file);
        break;
    case 3:
        v_opt(v, f->line, 0);
        break;
    case 4:
        v_str(c, v, f->module);
        break;
    default:
        v_int(v, f->is_native != 0);
        break;
    }
}

static const tr_sc_column callsite_cols[] = {{"id", TR_SC_INT, 0, NULL},
                                             {"depth", TR_SC_INT, 0, NULL},
                                             {"parent_id", TR_SC_INT, TR_SC_NULL, NULL},
                                             {"frame_id", TR_SC_INT, 0, NULL}};

/* Stack 0 is the empty stack: callsites start at 1 and a root's parent is NULL. */
static void get_callsite(tr_sc_ctx *c, int col, uint64_t key, tr_sc_value *v)
{
    uint32_t s = (uint32_t)key;
    switch (col) {
    case 0:
        v_int(v, s);
        break;
    case 1:
        v_int(v, (int64_t)tr_stack_depth(c->t, s) - 1);
        break;
    case 2:
        v_opt(v, tr_stack_parent(c->t, s), 0);
        break;
    default:
        v_int(v, tr_stack_frame(c->t, s));
        break;
    }
}

/* ---- views ---- */

/* Recorder's calls: the layer is the category, path/offset are args. */
static const tr_sc_column io_cols[] = {{"slice_id", TR_SC_INT, 0, NULL},
                                       {"rank", TR_SC_INT, TR_SC_NULL | TR_SC_RANK, NULL},
                                       {"thread", TR_SC_INT, TR_SC_NULL, NULL},
                                       {"ts", TR_SC_INT, 0, NULL},
                                       {"dur", TR_SC_INT, 0, NULL},
                                       {"function", TR_SC_TEXT, TR_SC_NULL, NULL},
                                       {"layer", TR_SC_TEXT, TR_SC_NULL, NULL},
                                       {"path", TR_SC_TEXT, TR_SC_NULL, NULL},
                                       {"offset", TR_SC_INT, TR_SC_NULL, NULL},
                                       {"bytes", TR_SC_INT, TR_SC_NULL, NULL},
                                       {"file_offset", TR_SC_INT, TR_SC_NULL, NULL},
                                       {"module", TR_SC_TEXT, TR_SC_NULL, NULL},
                                       {"excluded", TR_SC_INT, 0, NULL},
                                       {"failed", TR_SC_INT, 0, NULL}};

/* The slices of Recorder inputs. */
static int io_where(const tr_sc_ctx *c, uint64_t r)
{
    if (c->cur[TR_EV_SLICE]) return 0; /* a stream: Recorder directories never stream */
    const tr_track *k = tr_track_get(c->t, c->sl.track[r]);
    const tr_process *p = k ? tr_process_get(c->t, k->process) : NULL;
    const tr_input_info *in = p ? tr_input_get(c->t, p->input) : NULL;
    return in && strcmp(tr_str_get(c->t, in->format, NULL), "recorder") == 0;
}

/* args.int_value of KEY in slice R's args: ints, bools and uints up to INT64_MAX. */
static void io_int_arg(const tr_sc_ctx *c, size_t r, const char *key, tr_sc_value *v)
{
    tr_arg a;
    v->is_null = 1;
    if (!c->sl.args[r] || !tr_args_find(c->t, c->sl.args[r], key, &a)) return;
    if (a.type == TR_ARG_INT || a.type == TR_ARG_BOOL)
        v->is_null = 0, v->i = a.v.i;
    else if (a.type == TR_ARG_UINT && a.v.u <= INT64_MAX)
        v->is_null = 0, v->i = (int64_t)a.v.u;
}

/* The I/O analysis's row for slice R, or NULL (binary search: the rows are in slice order). */
static const tr_io_call *io_call(const tr_sc_ctx *c, uint64_t r)
{
    const tr_io_call *v = c->io_calls.data;
    size_t lo = 0, hi = c->io_calls.len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].row < r)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->io_calls.len && v[lo].row == r ? &v[lo] : NULL;
}

static void get_io(tr_sc_ctx *c, int col, uint64_t r, tr_sc_value *v)
{
    const tr_slices *s = &c->sl;
    const tr_track *k = tr_track_get(c->t, s->track[r]);
    const tr_io_call *call = col >= 7 && col != 9 && col != 11 ? io_call(c, r) : NULL;
    tr_arg a;
    switch (col) {
    case 0:
        v_int(v, (int64_t)r);
        break;
    case 1: {
        const tr_process *pr = tr_process_get(c->t, k->process);
        v_opt(v, pr ? pr->rank : -1, -1);
        break;
    }
    case 2:
        v_opt(v, k->tid, -1);
        break;
    case 3:
        v_int(v, s->ts[r]);
        break;
    case 4:
        v_int(v, tr_slice_dur(s, r));
        break;
    case 5:
        v_str(c, v, s->name[r]);
        break;
    case 6:
        v_str(c, v, tr_slice_cat(s, r));
        break;
    case 7:
        /* The file's one spelling, an MPI handle's open path; else the path arg's text. */
        if (call)
            v_text(c, v, call->path);
        else if (s->args[r] && tr_args_find(c->t, s->args[r], "path", &a) && a.type == TR_ARG_STR)
            v_text(c, v, a.v.s);
        else
            v->is_null = 1;
        break;
    case 8:
        if (call && call->offset >= 0)
            v_int(v, call->offset);
        else
            io_int_arg(c, r, "offset", v);
        break;
    case 9:
        v_opt(v, tr_slice_bytes(s, r), -1);
        break;
    case 10:
        v_opt(v, call ? call->file_offset : -1, -1);
        break;
    case 12:
        /* Under Darshan's excluded directories: tracestat leaves the call out. */
        v_int(v, call && call->excluded);
        break;
    case 13:
        v_int(v, call && call->failed);
        break;
    default: {
        /* Darshan's module, from the function name: Recorder's layer says POSIX for fopen. */
        int m = tr_io_module_of(tr_str_get(c->t, s->name[r], NULL));
        if (m < 0)
            v->is_null = 1;
        else
            v_const(v, tr_io_module_name(m), (uint64_t)m);
        break;
    }
    }
}

/*
** One row per GT log record; dur is that of the request or worker round
** trip the record opens (the slice on its lane whose seq arg is the
** record's), found through a materialized table SQLite indexes on the fly.
** ^Schema 4's definition, through the view args: files before schema 5 that
** lack the view get this one.
*/
static const char gt_op_v4_sql[] =
    "WITH op AS MATERIALIZED (SELECT s.track_id AS track_id,"
    " a.int_value AS seq, s.id AS slice_id, s.dur AS dur FROM slice s JOIN args a"
    " ON a.arg_set_id = s.arg_set_id AND a.key = 'seq'"
    " WHERE s.category IN ('gt.client', 'gt.worker'))"
    " SELECT i.id AS instant_id, t.name AS lane, i.seq AS seq, i.name AS event,"
    " i.command AS command, i.bytes AS bytes, i.ts AS ts, op.dur AS dur,"
    " op.slice_id AS slice_id"
    " FROM (SELECT i.*, (SELECT int_value FROM args a WHERE a.arg_set_id = i.arg_set_id"
    " AND a.key = 'seq') AS seq, (SELECT string_value FROM args a WHERE"
    " a.arg_set_id = i.arg_set_id AND a.key = 'command') AS command FROM instant i"
    " WHERE i.category = 'gt') i JOIN track t ON t.id = i.track_id"
    " LEFT JOIN op ON op.track_id = i.track_id AND op.seq = i.seq";

#define GT_SLICES " WHERE s.category IN ('gt.client', 'gt.worker')"
/* A record's arg KEY as args gives it: from its packed row's SLOT, else from __intrinsic_args. */
#define GT_RECORD_ARG(col, key, slot, type)                                                        \
    " CASE WHEN p.arg_set_id IS NULL THEN (SELECT " col " FROM __intrinsic_args a"                 \
    " WHERE a.arg_set_id = i.arg_set_id AND a.key = '" key                                         \
    "') ELSE CAST(" TR_SQLITE_ARG_PACK_VALUE_AT(slot) "AS " type ") END"
#define GT_SEQ     GT_RECORD_ARG("int_value", "seq", "sk.seq_i", "INTEGER")
#define GT_COMMAND GT_RECORD_ARG("string_value", "command", "sk.command_i", "TEXT")

/*
** The same rows from schema 5's tables: through args, each record's seq and
** command unpacked every arg of its set, and the slices' seqs too: a count
** over a 1 M-line log's took 21.9 G instructions (schema 4: 16.6 G; this
** one 10.8 G).  Here a packed set's value is read from its column: ks holds
** the slots of key seq in each shape, sk each shape's first slot of seq and
** of command (NULL when that arg is not an int, a string: args's int_value,
** string_value are NULL then).  A set is packed or stored as rows, never
** both (writers/sqlite.c, put_args): a record's args come from
** __intrinsic_args only when it has no packed row.  The join on seq first:
** its automatic index compares seqs, which differ, before the lanes, which
** mostly do not.
*/
static const char gt_op_sql[] =
    "WITH ks AS MATERIALIZED (SELECT shape, i, value_type FROM __intrinsic_arg_key"
    " WHERE key = 'seq'), sk AS MATERIALIZED (SELECT k.shape AS shape, (SELECT CASE"
    " b.value_type WHEN 'int' THEN b.i END FROM __intrinsic_arg_key b WHERE b.shape = k.shape"
    " AND b.key = 'seq' ORDER BY b.i LIMIT 1) AS seq_i, (SELECT CASE b.value_type WHEN 'string'"
    " THEN b.i END FROM __intrinsic_arg_key b WHERE b.shape = k.shape AND b.key = 'command'"
    " ORDER BY b.i LIMIT 1) AS command_i FROM __intrinsic_arg_key k GROUP BY k.shape),"
    " op AS MATERIALIZED (SELECT s.track_id AS track_id, a.int_value AS seq, s.id AS slice_id,"
    " s.dur AS dur FROM slice s JOIN __intrinsic_args a ON a.arg_set_id = s.arg_set_id"
    " AND a.key = 'seq'" GT_SLICES " UNION ALL SELECT s.track_id, CAST(CASE k.value_type"
    " WHEN 'int' THEN" TR_SQLITE_ARG_PACK_VALUE "END AS INTEGER), s.id, s.dur FROM slice s"
    " JOIN __intrinsic_arg_pack p ON p.arg_set_id = s.arg_set_id"
    " JOIN ks k ON k.shape = p.shape" GT_SLICES ")"
    " SELECT i.id AS instant_id, t.name AS lane, i.seq AS seq, i.name AS event,"
    " i.command AS command, i.bytes AS bytes, i.ts AS ts, op.dur AS dur,"
    " op.slice_id AS slice_id FROM (SELECT i.id, i.track_id, i.name, i.bytes, i.ts," GT_SEQ
    " AS seq," GT_COMMAND " AS command"
    " FROM instant i LEFT JOIN __intrinsic_arg_pack p ON p.arg_set_id = i.arg_set_id"
    " LEFT JOIN sk ON sk.shape = p.shape WHERE i.category = 'gt') i"
    " JOIN track t ON t.id = i.track_id"
    " LEFT JOIN op ON op.seq = i.seq AND op.track_id = i.track_id";

/* Schema 4's GT args left out of args; since 5 none are (kept for the queries naming it). */
static const char gt_dropped_args_sql[] =
    "SELECT arg_set_id, id, key, int_value, string_value, real_value, value_type"
    " FROM __intrinsic_args WHERE 0";

/* Each callsite's frames root first, built once per query by recursion. */
static const char sample_stack_sql[] =
    "WITH RECURSIVE path(id, depth, stack, leaf) AS ("
    "SELECT c.id, c.depth, coalesce(f.name, '?'), f.name FROM stack_profile_callsite c"
    " JOIN stack_profile_frame f ON f.id = c.frame_id WHERE c.parent_id IS NULL"
    " UNION ALL SELECT c.id, c.depth, path.stack || ';' || coalesce(f.name, '?'), f.name"
    " FROM stack_profile_callsite c JOIN path ON c.parent_id = path.id"
    " JOIN stack_profile_frame f ON f.id = c.frame_id)"
    " SELECT s.id AS id, s.ts AS ts, s.track_id AS track_id, s.utid AS utid,"
    " t.name AS thread, s.callsite_id AS callsite_id, s.weight AS weight,"
    " path.depth + 1 AS depth,"
    " path.leaf AS leaf, path.stack AS stack"
    " FROM stack_sample s JOIN track t ON t.id = s.track_id"
    " LEFT JOIN path ON path.id = s.callsite_id";

static const tr_sc_column sample_stack_cols[] = {{"id", TR_SC_INT, 0, NULL},
                                                 {"ts", TR_SC_INT, 0, NULL},
                                                 {"track_id", TR_SC_INT, 0, NULL},
                                                 {"utid", TR_SC_INT, TR_SC_NULL, NULL},
                                                 {"thread", TR_SC_TEXT, TR_SC_NULL, NULL},
                                                 {"callsite_id", TR_SC_INT, TR_SC_NULL, NULL},
                                                 {"weight", TR_SC_INT, 0, NULL},
                                                 {"depth", TR_SC_INT, TR_SC_NULL, NULL},
                                                 {"leaf", TR_SC_TEXT, TR_SC_NULL, NULL},
                                                 {"stack", TR_SC_TEXT, TR_SC_NULL, NULL}};

/* The function of a frame, "?" when it has none, and its length. */
static const char *frame_name(const tr_sc_ctx *c, uint32_t stack, size_t *n)
{
    const tr_frame *f = tr_frame_get(c->t, tr_stack_frame(c->t, stack));
    *n = 1;
    return f && f->function ? tr_str_get(c->t, f->function, n) : "?";
}

/* STACK's frames root first, joined by ';', into scratch. */
static void stack_text(tr_sc_ctx *c, uint32_t stack, tr_sc_value *v)
{
    tr_buf *b = &c->scratch;
    tr_buf_reset(b);
    /* Frames come innermost first: write each at its place from the end. */
    size_t len = 0, n;
    for (uint32_t s = stack; s; s = tr_stack_parent(c->t, s)) {
        frame_name(c, s, &n);
        len += n + (s != stack);
    }
    if (tr_buf_grow(b, len)) {
        v->is_null = 1; /* out of memory: the page build reports it soon enough */
        return;
    }
    size_t end = len;
    for (uint32_t s = stack; s; s = tr_stack_parent(c->t, s)) {
        const char *name = frame_name(c, s, &n);
        if (s != stack) b->p[--end] = ';';
        end -= n;
        memcpy(b->p + end, name, n);
    }
    b->len = len;
    b->p[len] = '\0';
    v->transient = 1;
    v->s = b->p;
    v->n = len;
    v->key = stack;
}

static void get_sample_stack(tr_sc_ctx *c, int col, uint64_t r, tr_sc_value *v)
{
    uint32_t stack = sample_stack_id(c, r);
    switch (col) {
    case 4: {
        const tr_track *k = tr_track_get(c->t, sample_track(c, r));
        v_str(c, v, k ? k->name : 0);
        break;
    }
    case 5:
        v_opt(v, stack, 0);
        break;
    case 6:
        v_int(v, sample_weight(c, r));
        break;
    case 7:
        v_opt(v, stack ? (int64_t)tr_stack_depth(c->t, stack) : -1, -1);
        break;
    case 8: {
        const tr_frame *f = stack ? tr_frame_get(c->t, tr_stack_frame(c->t, stack)) : NULL;
        v_str(c, v, f ? f->function : 0);
        break;
    }
    case 9:
        if (stack)
            stack_text(c, stack, v);
        else
            v->is_null = 1;
        break;
    default:
        get_sample(c, col, r, v); /* id, ts, track_id, utid: stack_sample's */
        break;
    }
}

/* ---- the tables ---- */

#define TABLE(n, c, r, g)                                                                          \
    .name = n, .cols = c, .ncols = (int)(sizeof c / sizeof *c), .rows = r, .get = g
#define VIEW(n, sql) .name = n, .rows = TR_SC_ROWS_VIEW, .view_sql = sql

const tr_sc_table tr_sc_tables[] = {
    {TABLE("trace_input", input_cols, TR_SC_ROWS_INPUT, get_input)},
    {TABLE("process", process_cols, TR_SC_ROWS_PROCESS, get_process)},
    {TABLE("thread", thread_cols, TR_SC_ROWS_THREAD, get_thread)},
    {TABLE("track", track_cols, TR_SC_ROWS_TRACK, get_track)},
    {TABLE("slice", slice_cols, TR_SC_ROWS_SLICE, get_slice)},
    {TABLE("instant", instant_cols, TR_SC_ROWS_INSTANT, get_instant)},
    {TABLE("counter", counter_cols, TR_SC_ROWS_COUNTER, get_counter)},
    {TABLE("flow", flow_cols, TR_SC_ROWS_FLOW, get_flow)},
    /* args is a view over this: computed columns cost nothing to load there. */
    {TABLE("args", args_cols, TR_SC_ROWS_ARG, get_arg), .key2 = 1, .stored_as = "__intrinsic_args"},
    {TABLE("stack_profile_frame", frame_cols, TR_SC_ROWS_FRAME, get_frame)},
    {TABLE("stack_profile_callsite", callsite_cols, TR_SC_ROWS_CALLSITE, get_callsite)},
    {TABLE("stack_sample", sample_cols, TR_SC_ROWS_SAMPLE, get_sample)},
    {VIEW("thread_track", "SELECT id, name, utid, upid FROM track WHERE utid IS NOT NULL")},
    {VIEW("process_track",
          "SELECT id, name, upid FROM track WHERE utid IS NULL AND kind <> 'counter'")},
    {VIEW("counter_track", "SELECT id, name, upid FROM track WHERE kind = 'counter'")},
    {VIEW("cpu_profile_stack_sample", "SELECT id, ts, callsite_id, utid FROM stack_sample")},
    {TABLE("io", io_cols, TR_SC_ROWS_SLICE, get_io), .stored_as = "__intrinsic_io",
     .where = io_where},
    {VIEW("gt_op", gt_op_sql), .old_view_sql = gt_op_v4_sql},
    {VIEW("gt_dropped_args", gt_dropped_args_sql)},
    {TABLE("sample_stack", sample_stack_cols, TR_SC_ROWS_SAMPLE, get_sample_stack),
     .view_sql = sample_stack_sql},
    /* issue 25's GPU views */
    {VIEW("gpu_kernel", tr_sc_gpu_kernel_sql)},
    {VIEW("kernel_launch", tr_sc_kernel_launch_sql)},
    {VIEW("memory_bw", tr_sc_memory_bw_sql)},
    {VIEW("kernel_sequence_root", tr_sc_kernel_sequence_root_sql)},
    {VIEW("kernel_sequence", tr_sc_kernel_sequence_sql)},
    {VIEW("queue_length", tr_sc_queue_length_sql)},
};

const size_t tr_sc_n_tables = sizeof tr_sc_tables / sizeof *tr_sc_tables;
