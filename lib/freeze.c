/* freeze.c: sorting the tables by time, nesting slices, and reading them back. */
#include "model_impl.h"

#include <string.h>

/*
** The order of rows in every table: by time, then (slices only, DUR not
** NULL) the longer first, then input order.
*/
static inline int row_before(const int64_t *ts, const int64_t *dur, uint32_t a, uint32_t b)
{
    if (ts[a] != ts[b]) return ts[a] < ts[b];
    if (dur && dur[a] != dur[b]) return dur[a] > dur[b]; /* the longer one encloses the other */
    return a < b;
}

/* Merge sort of the N rows at A, using B (N rows) as room; returns the sorted array. */
static uint32_t *merge_rows(const int64_t *ts, const int64_t *dur, uint32_t *a, uint32_t *b,
                            size_t n)
{
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) b[k++] = row_before(ts, dur, a[j], a[i]) ? a[j++] : a[i++];
            while (i < mid) b[k++] = a[i++];
            while (j < hi) b[k++] = a[j++];
        }
        uint32_t *swap = a;
        a = b;
        b = swap;
    }
    return a;
}

/*
** The row numbers 0..N-1 in table order; NULL when out of memory, or (with
** *SORTED set) when the rows are in order already.
*/
static uint32_t *sort_rows(const int64_t *ts, const int64_t *dur, size_t n, int *sorted)
{
    *sorted = 1;
    for (size_t i = 1; i < n && *sorted; i++)
        if (row_before(ts, dur, (uint32_t)i, (uint32_t)(i - 1))) *sorted = 0;
    if (*sorted) return NULL;
    uint32_t *a = tr_malloc(n * sizeof *a);
    if (!a) return NULL;
    for (size_t i = 0; i < n; i++) a[i] = (uint32_t)i;
    /*
    ** Readers append nearly in time order (a slice when it ends, just after
    ** the slices it encloses), so insertion sort finishes in a few steps a
    ** row.  A budget of moves keeps other input from going quadratic: past
    ** it, merge sort takes over (any permutation is fine, ties go by row).
    */
    size_t budget = 8 * n + 1024;
    size_t i = 1;
    for (; i < n; i++) {
        uint32_t r = a[i];
        size_t j = i;
        while (j > 0 && row_before(ts, dur, r, a[j - 1]) && budget) {
            a[j] = a[j - 1];
            j--;
            budget--;
        }
        a[j] = r;
        if (!budget) break;
    }
    if (i == n) return a;
    uint32_t *b = tr_malloc(n * sizeof *b);
    if (!b) {
        tr_free(a);
        return NULL;
    }
    uint32_t *out = merge_rows(ts, dur, a, b, n);
    tr_free(out == a ? b : a);
    return out;
}

/* Puts column COL (N elements of SIZE bytes) in the order ORDER gives, through TMP. */
static void permute(void *col, size_t size, size_t n, const uint32_t *order, void *tmp)
{
    unsigned char *c = col;
    switch (size) {
    case 8: {
        uint64_t *t = tmp, *v = col;
        for (size_t i = 0; i < n; i++) t[i] = v[order[i]];
        break;
    }
    case 4: {
        uint32_t *t = tmp, *v = col;
        for (size_t i = 0; i < n; i++) t[i] = v[order[i]];
        break;
    }
    default:
        for (size_t i = 0; i < n; i++)
            memcpy((unsigned char *)tmp + i * size, c + (size_t)order[i] * size, size);
    }
    memcpy(c, tmp, n * size);
}

/*
** Sorts one table (DUR: the slices' durations, NULL for other tables).  On
** return *NEW_ROW maps an old row to its new one (NULL when the table was
** already in order).
*/
static int sort_table(size_t n, const int64_t *ts, const int64_t *dur, void *cols[],
                      const size_t sizes[], size_t ncols, uint32_t **new_row)
{
    int sorted;
    *new_row = NULL;
    uint32_t *order = sort_rows(ts, dur, n, &sorted);
    if (sorted) return TR_OK;
    if (!order) return TR_FATAL;
    /* One scratch column for all, then the inverse: new_row[order[i]] = i. */
    size_t widest = 0;
    for (size_t c = 0; c < ncols; c++) widest = sizes[c] > widest ? sizes[c] : widest;
    void *tmp = tr_malloc(n * widest);
    uint32_t *inv = tr_malloc(n * sizeof *inv);
    if (!tmp || !inv) {
        tr_free(tmp);
        tr_free(inv);
        tr_free(order);
        return TR_FATAL;
    }
    for (size_t c = 0; c < ncols; c++) permute(cols[c], sizes[c], n, order, tmp);
    for (size_t i = 0; i < n; i++) inv[order[i]] = (uint32_t)i;
    tr_free(tmp);
    tr_free(order);
    *new_row = inv;
    return TR_OK;
}

/* Open slices end where their input's events end. */
static int close_open_slices(tr_trace *t)
{
    slice_table *s = &t->slices;
    size_t open = 0;
    for (size_t i = 0; i < s->n; i++) open += s->dur[i] < 0;
    if (open == 0) return TR_OK;
    size_t n_inputs = t->inputs.len ? t->inputs.len : 1, n_tracks = t->tracks.len;
    int64_t *end = tr_malloc(n_inputs * sizeof *end);
    /* Each track's input, looked up once rather than once an event. */
    uint32_t *input = tr_malloc((n_tracks ? n_tracks : 1) * sizeof *input);
    if (!end || !input) {
        tr_free(end);
        tr_free(input);
        return TR_FATAL;
    }
    for (size_t i = 0; i < n_inputs; i++) end[i] = INT64_MIN;
    int all_first = 1; /* every track is of input 0 (one input read): nothing to look up */
    for (size_t i = 0; i < n_tracks; i++) {
        const tr_process *p = tr_process_get(t, tr_track_get(t, (uint32_t)i)->process);
        input[i] = p ? p->input : 0;
        all_first &= input[i] == 0;
    }
#define TRACK_INPUT(track) (!all_first && (track) < n_tracks ? input[track] : 0)
#define SPAN(tab, endexpr)                                                                         \
    for (size_t i = 0; i < (tab).n; i++) {                                                         \
        uint32_t in = TRACK_INPUT((tab).track[i]);                                                 \
        int64_t e = (endexpr);                                                                     \
        if (in < n_inputs && e > end[in]) end[in] = e;                                             \
    }
    SPAN(t->slices, s->dur[i] >= 0 ? tr_time_add(s->ts[i], s->dur[i]) : s->ts[i])
    SPAN(t->instants, t->instants.ts[i])
    SPAN(t->counters, t->counters.ts[i])
    SPAN(t->samples, t->samples.ts[i])
#undef SPAN
    for (size_t i = 0; i < s->n; i++) {
        if (s->dur[i] >= 0) continue;
        uint32_t in = TRACK_INPUT(s->track[i]);
        int64_t e = in < n_inputs ? end[in] : s->ts[i];
        s->dur[i] = e > s->ts[i] ? e - s->ts[i] : 0;
    }
#undef TRACK_INPUT
    tr_free(end);
    tr_free(input);
    return TR_OK;
}

/* Whether track TK's slices carry the parents their reader stated. */
static int nest_given(const tr_trace *t, uint32_t tk)
{
    const tr_track *track = tr_track_get(t, tk);
    return track && track->nesting == TR_NEST_GIVEN;
}

/* The depth of slice I from its stated parents; rows before I have theirs already. */
static uint16_t given_depth(const slice_table *s, size_t i)
{
    uint32_t d = 0;
    for (uint32_t p = s->parent[i]; p != TR_NONE && d < UINT16_MAX; p = s->parent[p]) {
        if (p < i) {
            d += (uint32_t)s->depth[p] + 1;
            break;
        }
        d++;
    }
    return d > UINT16_MAX ? UINT16_MAX : (uint16_t)d;
}

/*
** Depth and parent: each track keeps its innermost open slice while walking
** in time order; tracks whose nesting is given keep their stated parents.
*/
static int nest_slices(tr_trace *t, const uint8_t *given)
{
    slice_table *s = &t->slices;
    size_t n_tracks = t->tracks.len;
    uint32_t *open = tr_malloc((n_tracks ? n_tracks : 1) * sizeof *open);
    if (!open) return TR_FATAL;
    for (size_t i = 0; i < n_tracks; i++) open[i] = TR_NONE;
    for (size_t i = 0; i < s->n; i++) {
        uint32_t tk = s->track[i];
        if (tk >= n_tracks) continue;
        if (given && given[tk]) {
            s->depth[i] = given_depth(s, i);
            continue;
        }
        uint32_t cur = open[tk];
        /* Slices that ended by now are closed; a zero-length one encloses nothing. */
        while (cur != TR_NONE &&
               (tr_time_add(s->ts[cur], s->dur[cur]) <= s->ts[i] || s->dur[cur] == 0))
            cur = s->parent[cur];
        s->parent[i] = cur;
        s->depth[i] = cur == TR_NONE                ? 0
                      : s->depth[cur] == UINT16_MAX ? UINT16_MAX
                                                    : (uint16_t)(s->depth[cur] + 1);
        open[tk] = (uint32_t)i;
    }
    tr_free(open);
    return TR_OK;
}

static tr_ref remap(tr_ref r, uint32_t *const new_row[TR_EV_KIND_COUNT])
{
    int kind = TR_REF_KIND(r);
    if (kind < 0 || kind >= TR_EV_KIND_COUNT || !new_row[kind]) return r;
    return TR_REF(kind, new_row[kind][TR_REF_ROW(r)]);
}

/*
** The tracks whose nesting is given (NULL when none is), and the slices'
** sort key: their durations, but 0 on those tracks, so that slices starting
** together keep the source's sequence.  *KEY is S->dur or a new array.
*/
static int given_tracks(const tr_trace *t, uint8_t **given, int64_t **key)
{
    const slice_table *s = &t->slices;
    size_t n_tracks = t->tracks.len, any = 0;
    *given = NULL;
    *key = s->dur;
    for (size_t i = 0; i < n_tracks; i++) any += nest_given(t, (uint32_t)i);
    if (!any) return TR_OK;
    *given = tr_malloc(n_tracks);
    *key = tr_malloc((s->n ? s->n : 1) * sizeof **key);
    if (!*given || !*key) return TR_FATAL;
    for (size_t i = 0; i < n_tracks; i++) (*given)[i] = (uint8_t)nest_given(t, (uint32_t)i);
    for (size_t i = 0; i < s->n; i++)
        (*key)[i] = s->track[i] < n_tracks && (*given)[s->track[i]] ? 0 : s->dur[i];
    return TR_OK;
}

/* Stated parents name rows before the sort: they follow their rows. */
static void remap_parents(slice_table *s, const uint32_t *new_row)
{
    if (!new_row) return;
    for (size_t i = 0; i < s->n; i++)
        if (s->parent[i] != TR_NONE) s->parent[i] = new_row[s->parent[i]];
}

static int sort_slices(tr_trace *t, const int64_t *key, uint32_t **new_row)
{
    slice_table *s = &t->slices;
    void *scols[] = {s->ts, s->dur, s->bytes, s->track, s->name, s->cat, s->args, s->parent};
    static const size_t ssizes[] = {8, 8, 8, 4, 4, 4, 4, 4};
    int rc = sort_table(s->n, s->ts, key, scols, ssizes, 8, new_row);
    if (rc == TR_OK) remap_parents(s, *new_row);
    return rc;
}

int tr_trace_freeze(tr_trace *t, tr_error *e)
{
    if (t->frozen) return TR_OK;
    if (t->failed) return tr_error_nomem(e);
    uint32_t *new_row[TR_EV_KIND_COUNT] = {0};
    uint8_t *given = NULL;
    int64_t *key = NULL;
    int rc = close_open_slices(t);
    if (rc == TR_OK) rc = given_tracks(t, &given, &key);
    if (rc == TR_OK) rc = sort_slices(t, key, &new_row[TR_EV_SLICE]);
    if (key != t->slices.dur) tr_free(key);

    instant_table *in = &t->instants;
    void *icols[] = {in->ts, in->bytes, in->track, in->name, in->cat, in->args, in->scope};
    static const size_t isizes[] = {8, 8, 4, 4, 4, 4, 1};
    if (rc == TR_OK)
        rc = sort_table(in->n, in->ts, NULL, icols, isizes, 7, &new_row[TR_EV_INSTANT]);

    counter_table *c = &t->counters;
    void *ccols[] = {c->ts, c->value, c->track};
    static const size_t csizes[] = {8, 8, 4};
    if (rc == TR_OK) rc = sort_table(c->n, c->ts, NULL, ccols, csizes, 3, &new_row[TR_EV_COUNTER]);

    sample_table *sm = &t->samples;
    void *smcols[] = {sm->ts, sm->track, sm->stack, sm->args};
    static const size_t smsizes[] = {8, 4, 4, 4};
    if (rc == TR_OK)
        rc = sort_table(sm->n, sm->ts, NULL, smcols, smsizes, 4, &new_row[TR_EV_SAMPLE]);

    if (rc == TR_OK) {
        for (size_t i = 0; i < t->flows.len; i++) {
            tr_flow *f = &TR_VEC_AT(&t->flows, tr_flow, i);
            f->from = remap(f->from, new_row);
            f->to = remap(f->to, new_row);
        }
        rc = nest_slices(t, given);
    }
    tr_free(given);
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) tr_free(new_row[k]);
    if (rc != TR_OK) {
        t->failed = 1;
        return tr_error_nomem(e);
    }
    t->frozen = 1;
    return TR_OK;
}

/* ---- views ---- */

void tr_trace_slices(const tr_trace *t, tr_slices *out)
{
    const slice_table *s = &t->slices;
    *out = (tr_slices){s->n,    s->ts,  s->dur,  s->bytes,  s->track,
                       s->name, s->cat, s->args, s->parent, s->depth};
}

void tr_trace_instants(const tr_trace *t, tr_instants *out)
{
    const instant_table *s = &t->instants;
    *out = (tr_instants){s->n, s->ts, s->bytes, s->track, s->name, s->cat, s->args, s->scope};
}

void tr_trace_counters(const tr_trace *t, tr_counters *out)
{
    const counter_table *s = &t->counters;
    *out = (tr_counters){s->n, s->ts, s->value, s->track};
}

void tr_trace_samples(const tr_trace *t, tr_samples *out)
{
    const sample_table *s = &t->samples;
    *out = (tr_samples){s->n, s->ts, s->track, s->stack, s->args};
}

void tr_trace_event_counts(const tr_trace *t, size_t n[TR_EV_KIND_COUNT])
{
    n[TR_EV_SLICE] = t->slices.n;
    n[TR_EV_INSTANT] = t->instants.n;
    n[TR_EV_COUNTER] = t->counters.n;
    n[TR_EV_SAMPLE] = t->samples.n;
}

/* ---- iteration in one time order ---- */

void tr_iter_init(tr_iter *it, const tr_trace *t)
{
    memset(it, 0, sizeof *it);
    it->t = t;
}

int tr_iter_next(tr_iter *it, tr_event *ev)
{
    const tr_trace *t = it->t;
    int best = -1;
    int64_t best_ts = 0;
    /* Kinds are looked at in priority order, so on equal ts the earlier kind wins. */
#define CONSIDER(kind, tab)                                                                        \
    if (it->pos[kind] < (tab).n && (best < 0 || (tab).ts[it->pos[kind]] < best_ts)) {              \
        best = kind;                                                                               \
        best_ts = (tab).ts[it->pos[kind]];                                                         \
    }
    CONSIDER(TR_EV_SLICE, t->slices)
    CONSIDER(TR_EV_INSTANT, t->instants)
    CONSIDER(TR_EV_COUNTER, t->counters)
    CONSIDER(TR_EV_SAMPLE, t->samples)
#undef CONSIDER
    if (best < 0) return 0;
    ev->kind = best;
    ev->row = (uint32_t)it->pos[best]++;
    ev->ts = best_ts;
    return 1;
}
