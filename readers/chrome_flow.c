/*
** chrome_flow.c: what only the end of a Chrome input settles: flow points
** bound to slices (the slices of the whole input are known then), the B
** and async slices never closed, names for what the trace left unnamed,
** and the input's info.
*/
#include "chrome_impl.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- flow points ---- */

/* A flow id for the model: the number, a hex string's value, else a hash of the text. */
uint64_t cj_flow_id_num(const char *s, size_t n)
{
    uint64_t v = 0;
    size_t i = 0;
    if (n > 2 && s[0] == '0' && (s[1] | 0x20) == 'x') {
        for (i = 2; i < n && i < 18 && cj_is_hex(s[i]); i++)
            v = v << 4 | (uint64_t)(s[i] <= '9' ? s[i] - '0' : (s[i] | 0x20) - 'a' + 10);
        if (i == n) return v;
    } else {
        for (i = 0; i < n && cj_is_digit(s[i]) && v <= (UINT64_MAX - 9) / 10; i++)
            v = v * 10 + (uint64_t)(s[i] - '0');
        if (i == n && n) return v;
    }
    uint64_t h = 0x9E3779B97F4A7C15ULL;
    for (i = 0; i < n; i++) h = tr_hash_mix(h ^ (unsigned char)s[i]);
    return h;
}

int cj_flow_point(cj_rd *r, tr_str key, tr_str name, tr_str cat, uint32_t track, uint32_t row,
                  int64_t ts, char ph, int bits, uint64_t off)
{
    flow_pt pt = {.key = key,
                  .name = name,
                  .cat = cat,
                  .track = track,
                  .row = row,
                  .seq = r->n_points++,
                  .ts = ts,
                  .off_lo = (uint32_t)off,
                  .off_hi = (uint16_t)(off >> 32),
                  .ph = ph,
                  .bits = (uint8_t)bits};
    if (r->forgets) return cj_bind_point(r, &pt);
    /* into the room reserved from the input's size: no call to clear it first */
    flow_pt *f = r->flows.len < r->flows.cap ? &TR_VEC_AT(&r->flows, flow_pt, r->flows.len++)
                                             : tr_vec_push(&r->flows);
    if (!f) return tr_error_nomem(r->e);
    *f = pt;
    return TR_OK;
}

/*
** The flow id of point F, from its identity: flow v2's is its bind_id text's
** (with "v2"), flow v1's the text after its cat and name (cj_flow_id_num).
*/
static uint64_t flow_pt_id(cj_rd *r, const flow_pt *f)
{
    size_t n, at = 0, cn, nn;
    if (!(f->bits & FP_V2)) {
        tr_str_get(r->t, f->cat, &cn);
        tr_str_get(r->t, f->name, &nn);
        at = cn + nn + 2;
        /* an identity kept as a prefix and an id, the prefix its cat and name: that id */
        uint64_t v = f->key < r->idents.len ? TR_VEC_AT(&r->idents, uint64_t, f->key) : 0;
        if (f->key < r->idents.len && v >> 60 != IDENT_TEXT && r->pres[v >> 60].n == at)
            return v & IDENT_ID;
    }
    const char *s = cj_flow_key_text(r, f->key, &n);
    if (at > n) at = n;
    return cj_flow_id_num(s + at, n - at);
}

/* Flow v2: a slice that carries bind_id with flow_in/flow_out (both: a step, as in Perfetto). */
int cj_flow_v2(cj_rd *r, const open_slice *o, uint32_t track, uint32_t row)
{
    if (!o->bind || (!o->flow_in && !o->flow_out)) return TR_OK;
    char ph = o->flow_in && o->flow_out ? 't' : o->flow_in ? 'f' : 's';
    return cj_flow_point(r, o->bind, 0, 0, track, row, o->ts, ph, FP_ENCLOSE | FP_V2, o->off);
}

/* The bind_id key of flow v2 (namespaced apart from v1 keys), 0 when none. */
tr_str cj_bind_key(cj_rd *r, const cev *ev, int *bad)
{
    if (ev->bind_id.type != J_STR && ev->bind_id.type != J_NUM) return 0;
    tr_buf_reset(&r->raw);
    tr_buf_add(&r->raw, "v2\x1f", 3);
    if (ev->bind_id.type == J_NUM) {
        tr_buf_add(&r->raw, ev->bind_id.p, ev->bind_id.n);
    } else {
        size_t n;
        const char *s = cj_str_text(&ev->bind_id, &r->scratch, &n, bad);
        tr_buf_add(&r->raw, s, n);
    }
    return cj_flow_key(r, r->raw.p, r->raw.len);
}

/*
** A flow's identity.  They grow with the input (one a kernel launch in
** Kineto), so a sink that forgets counts them in its budget
** (tr_sink.reader_bytes), told every 4096 new ones.
*/
/*
** Splits identity S (N bytes) into the text up to its last '\x1f' (*AT
** bytes) and the decimal id after it, *ID, when the id is written as its
** value is (digits, no leading zero): then two identities are the same
** text exactly when they split into the same prefix and id.
*/
static int split_decimal(const char *s, size_t n, size_t *at, uint64_t *id)
{
    size_t i = n;
    while (i > 0 && n - i <= 18 && cj_is_digit(s[i - 1])) i--;
    if (i == n || n - i > 18 || !i || s[i - 1] != '\x1f' || (s[i] == '0' && n - i > 1)) return 0;
    uint64_t v = 0;
    for (size_t k = i; k < n; k++) v = v * 10 + (uint64_t)(s[k] - '0');
    *at = i;
    *id = v;
    return 1;
}

/*
** The slot of id ID after prefix S (N bytes) in the pages, made when
** missing; NULL when the identity is not kept there.  Whether it is
** depends on the identity alone: a prefix or page missing once the pages
** are full stays missing.  They fill up past FLOW_PRES prefixes, or when
** the pages hold 8 slots an identity (ids far apart): then the index
** takes the new ones.
*/
static tr_str *page_slot(cj_rd *r, const char *s, size_t n, uint64_t id)
{
    uint64_t page_no = id / FLOW_PAGE;
    uint32_t pre = r->last_pre;
    if (r->last_page && page_no == r->last_page_no && r->pres[pre].n == n &&
        memcmp(r->pres[pre].text, s, n) == 0)
        return &r->last_page[id % FLOW_PAGE];
    for (pre = 0; pre < r->n_pres; pre++)
        if (r->pres[pre].n == n && memcmp(r->pres[pre].text, s, n) == 0) break;
    if (pre == r->n_pres) {
        if (r->pages_full || n > FLOW_PRELEN || r->n_pres == FLOW_PRES) {
            r->pages_full = 1;
            return NULL;
        }
        memcpy(r->pres[pre].text, s, n);
        r->pres[pre].n = n;
        r->n_pres++;
    }
    uint32_t row = cj_map_get(&r->page_map, pre, page_no);
    tr_str *page = NULL;
    if (row != TR_NONE) {
        page = TR_VEC_AT(&r->pages, tr_str *, row);
    } else {
        tr_str **at = NULL;
        if (!r->pages_full && (r->pages.len < 64 || r->pages.len * FLOW_PAGE <= 8 * r->paged) &&
            (page = tr_calloc(FLOW_PAGE, sizeof *page)) != NULL && (at = tr_vec_push(&r->pages)) &&
            cj_map_put(&r->page_map, pre, page_no, (uint32_t)(r->pages.len - 1)) != TR_OK) {
            r->pages.len--;
            at = NULL;
        }
        if (!at) { /* full, or out of memory: the index takes the new ones */
            tr_free(page);
            r->pages_full = 1;
            return NULL;
        }
        *at = page;
    }
    r->last_pre = pre;
    r->last_page_no = page_no;
    r->last_page = page;
    return &page[id % FLOW_PAGE];
}

/* A new identity, what it is V (r->idents); 0 when out of memory. */
static tr_str ident_new(cj_rd *r, uint64_t v)
{
    uint64_t *e = r->idents.len < TR_NONE - 1 ? tr_vec_push(&r->idents) : NULL;
    if (!e) {
        r->oom = 1; /* the read fails (cj_lost): its flows would be missing */
        return 0;
    }
    *e = v;
    return (tr_str)(r->idents.len - 1);
}

tr_str cj_flow_key(cj_rd *r, const char *s, size_t n)
{
    size_t had = r->idents.len, at;
    uint64_t id;
    tr_str key = 0, *slot = split_decimal(s, n, &at, &id) ? page_slot(r, s, at, id) : NULL;
    if (slot) {
        /* split_decimal's ids have at most 18 digits: below 2^60 */
        if (!*slot && (*slot = ident_new(r, (uint64_t)r->last_pre << 60 | id)) != 0) r->paged++;
        key = *slot;
    } else {
        tr_str str = tr_str_intern(r->flow_keys, s, n);
        uint32_t *of = r->ident_of.data;
        if (str && str < r->ident_of.len) {
            key = of[str];
        } else if (str && tr_vec_reserve(&r->ident_of, (size_t)str + 1) == TR_OK) {
            of = r->ident_of.data;
            while (r->ident_of.len <= str) of[r->ident_of.len++] = 0;
            key = of[str] = ident_new(r, IDENT_TEXT << 60 | str);
        } else if (str) {
            r->oom = 1;
        }
    }
    if (r->forgets && had % 4096 == 0 && r->idents.len > had)
        r->sink->reader_bytes =
            tr_trace_memory(r->flow_keys) + r->pages.len * FLOW_PAGE * sizeof(tr_str) +
            r->idents.cap * sizeof(uint64_t) + r->ident_of.cap * sizeof(uint32_t);
    return key;
}

const char *cj_flow_key_text(cj_rd *r, tr_str key, size_t *n)
{
    uint64_t v = key < r->idents.len ? TR_VEC_AT(&r->idents, uint64_t, key) : IDENT_TEXT << 60;
    if (v >> 60 == IDENT_TEXT) return tr_str_get(r->flow_keys, (tr_str)(v & IDENT_ID), n);
    const flow_pre *pre = &r->pres[v >> 60];
    tr_buf_reset(&r->raw);
    tr_buf_add(&r->raw, pre->text, pre->n);
    tr_buf_addf(&r->raw, "%llu", (unsigned long long)(v & IDENT_ID));
    if (n) *n = r->raw.len;
    return r->raw.p;
}

void cj_flow_keys_fini(cj_rd *r)
{
    for (size_t i = 0; i < r->pages.len; i++) tr_free(TR_VEC_AT(&r->pages, tr_str *, i));
    tr_vec_fini(&r->pages);
    cj_map_fini(&r->page_map);
    tr_vec_fini(&r->idents);
    tr_vec_fini(&r->ident_of);
    tr_trace_free(r->flow_keys);
}

/*
** A slice into the model, with its thread time TTS, TDUR (TR_TIME_NONE when
** the event has none); *ROW its row in the whole load (tr_sink.dropped), the
** one flows name.  A reader that forgets keeps its key for binding.
*/
int cj_slice_add(cj_rd *r, uint32_t track, int64_t ts, int64_t dur, tr_str name, tr_str cat,
                 int64_t bytes, uint32_t args, int64_t tts, int64_t tdur, uint32_t *row)
{
    *row = tr_slice_add(r->t, track, ts, dur, name, cat, bytes, args);
    if (*row == TR_NONE) return tr_error_nomem(r->e);
    if (tts != TR_TIME_NONE || tdur != TR_TIME_NONE)
        tr_slice_set_thread_time(r->t, *row, tts, tdur);
    *row += (uint32_t)r->sink->dropped[TR_EV_SLICE];
    return r->forgets ? cj_bind_slice(r, track, ts, dur, *row) : TR_OK;
}

/* Closes open slice O, DUR long (-1: still open), on TRACK, with its thread time. */
int cj_close_open(cj_rd *r, const open_slice *o, uint32_t track, int64_t dur, uint32_t args)
{
    uint32_t row;
    int rc = cj_slice_add(r, track, o->ts, dur, o->name, o->cat, cj_bytes_of(r, args), args, o->tts,
                          o->tdur, &row);
    return rc == TR_OK ? cj_flow_v2(r, o, track, row) : rc;
}

/*
** A's track is named by its earliest slice (the least name at a tie),
** whatever the file order: kept as they come, since a reader that forgets
** cannot look back.
*/
void cj_async_name(async_st *a, const open_slice *o)
{
    if (o->ts < a->first_ts || (o->ts == a->first_ts && o->name < a->first_name)) {
        a->first_ts = o->ts;
        a->first_name = o->name;
    }
}

/* Closes async slice O on A's track. */
int cj_async_close(cj_rd *r, async_st *a, const open_slice *o, int64_t dur, uint32_t args)
{
    cj_async_name(a, o);
    return cj_close_open(r, o, a->track, dur, args);
}

/* ---- binding flow ends to slices ---- */

/* A slice of this input for binding flow ends: by time, the enclosing one first. */
typedef struct slice_key {
    uint32_t row;
    int64_t ts, end;
} slice_key;

static slice_key slice_key_of(const tr_slices *sl, uint32_t row)
{
    int64_t dur = tr_slice_dur(sl, row);
    return (slice_key){row, sl->ts[row], dur < 0 ? INT64_MAX : sl->ts[row] + dur};
}

static int slice_key_cmp(const void *a, const void *b)
{
    const slice_key *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->end != y->end) return x->end > y->end ? -1 : 1; /* the enclosing one first */
    return x->row < y->row ? -1 : x->row > y->row;
}

/* Points of one flow in time order (files put an f before its s): s, then t, then f. */
int cj_flow_cmp(const void *a, const void *b)
{
    const flow_pt *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    int rx = x->ph == 's' ? 0 : x->ph == 't' ? 1 : 2, ry = y->ph == 's' ? 0 : y->ph == 't' ? 1 : 2;
    if (rx != ry) return rx - ry;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
** Puts the N slice rows at ROWS (one track's, in input order) in slice_key
** order.  Files list a thread's slices by start time nearly always, so the
** rows are usually in order already and nothing is sorted.
*/
static int sort_track_rows(const tr_slices *sl, uint32_t *rows, size_t n)
{
    size_t i = 1;
    slice_key a = n ? slice_key_of(sl, rows[0]) : (slice_key){0, 0, 0};
    for (; i < n; i++) {
        slice_key b = slice_key_of(sl, rows[i]); /* each key once: the last is kept */
        if (slice_key_cmp(&a, &b) > 0) break;
        a = b;
    }
    if (i >= n) return TR_OK;
    slice_key *k = tr_malloc(n * sizeof *k);
    if (!k) return TR_FATAL;
    for (i = 0; i < n; i++) k[i] = slice_key_of(sl, rows[i]);
    tr_qsort(k, n, sizeof *k, slice_key_cmp);
    for (i = 0; i < n; i++) rows[i] = k[i].row;
    tr_free(k);
    return TR_OK;
}

/*
** The first of the N ROWS (in time order) at or after TS, searched from
** *AT (where the track's previous end was found) outwards by doubling
** steps, then halving: a track's ends come nearly in time order, so most
** searches touch a few rows near the last instead of a random path of the
** whole track (a cache miss a step).  *AT is left at the answer.
*/
static size_t first_at(const tr_slices *sl, const uint32_t *rows, size_t n, int64_t ts, size_t *at)
{
    size_t lo, hi, step = 1, h = *at < n ? *at : n;
    if (h < n && sl->ts[rows[h]] < ts) { /* forwards: the answer is past h */
        lo = h + 1;
        hi = lo;
        while (hi < n && sl->ts[rows[hi]] < ts) {
            lo = hi + 1;
            hi = step < n - hi ? hi + step : n;
            step *= 2;
        }
    } else { /* backwards: the answer is h or before */
        hi = h;
        lo = hi;
        while (lo > 0 && sl->ts[rows[lo - 1]] >= ts) {
            hi = lo - 1;
            lo = step < hi ? hi - step : 0;
            step *= 2;
        }
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sl->ts[rows[mid]] < ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    *at = lo;
    return lo;
}

/*
** The slice a flow end binds to (enclosing, or the next one) among its
** track's ROWS, or TR_NONE; *AT as for first_at.
*/
static uint32_t bind_point(const tr_slices *sl, const uint32_t *rows, size_t n, const flow_pt *f,
                           size_t *at)
{
    size_t lo = first_at(sl, rows, n, f->ts, at);
    if (!(f->bits & FP_ENCLOSE)) return lo < n ? rows[lo] : TR_NONE;
    /* the deepest slice holding ts: among those starting at ts the last (shortest) */
    size_t i = lo;
    while (i < n && sl->ts[rows[i]] == f->ts) i++;
    for (size_t steps = 0; i > 0 && steps < 256; steps++) {
        slice_key s = slice_key_of(sl, rows[--i]);
        if (s.ts <= f->ts && f->ts <= s.end) return s.row;
    }
    return TR_NONE;
}

/*
** Binds the flow ends that name no slice: the slices of this input on the
** tracks of such ends, grouped by track (first[k] .. first[k + 1] in ROWS)
** and ordered by time on each, then a search per end (first_at).
*/
static int bind_flow_ends(cj_rd *r)
{
    tr_slices sl;
    tr_trace_slices(r->t, &sl);
    size_t ntk = tr_track_count(r->t), n = 0;
    flow_pt *f = r->flows.data;
    size_t *first = tr_calloc(ntk + 1, sizeof *first);
    unsigned char *need = tr_calloc(ntk ? ntk : 1, 1);
    uint32_t *rows = NULL;
    size_t *at = NULL;
    int rc = TR_FATAL;
    if (!first || !need) goto out;
    for (size_t i = 0; i < r->flows.len; i++)
        if (f[i].row == TR_NONE && f[i].track < ntk) need[f[i].track] = 1;
    for (size_t row = r->first_slice; row < sl.n; row++) {
        if (sl.track[row] < ntk && need[sl.track[row]]) {
            first[sl.track[row] + 1]++;
            n++;
        }
    }
    for (size_t k = 0; k < ntk; k++) first[k + 1] += first[k];
    if (!(rows = tr_malloc((n ? n : 1) * sizeof *rows))) goto out;
    /* first[k] counts up as track k is filled, then is put back */
    for (size_t row = r->first_slice; row < sl.n; row++)
        if (sl.track[row] < ntk && need[sl.track[row]])
            rows[first[sl.track[row]]++] = (uint32_t)row;
    for (size_t k = ntk; k > 0; k--) first[k] = first[k - 1];
    first[0] = 0;
    for (size_t k = 0; k < ntk; k++)
        if (need[k] && sort_track_rows(&sl, rows + first[k], first[k + 1] - first[k]) != TR_OK)
            goto out;
    /* where each track's last end was found */
    if (!(at = tr_calloc(ntk ? ntk : 1, sizeof *at))) goto out;
    for (size_t i = 0; i < r->flows.len; i++)
        if (f[i].row == TR_NONE && f[i].track < ntk)
            f[i].row =
                bind_point(&sl, rows + first[f[i].track], first[f[i].track + 1] - first[f[i].track],
                           &f[i], &at[f[i].track]);
    rc = TR_OK;
out:
    tr_free(first);
    tr_free(need);
    tr_free(rows);
    tr_free(at);
    return rc == TR_OK ? TR_OK : tr_error_nomem(r->e);
}

/* Why a flow point made no flow: each is warned at the event's offset. */
enum { DROP_NONE, DROP_NO_SLICE, DROP_NO_START, DROP_LOST_START, DROP_NO_END, DROP_RESTART };

static const char *const drop_text[] = {
    [DROP_NO_SLICE] = "flow event of \"%s\" has no slice on its thread to bind to: dropped",
    [DROP_NO_START] = "flow end of \"%s\" without a start (no 's' with its id): dropped",
    [DROP_LOST_START] = "flow end of \"%s\" whose start was dropped: dropped",
    [DROP_NO_END] = "flow start of \"%s\" never ended (no 'f' with its id): dropped",
    [DROP_RESTART] = "flow start of \"%s\" with the id of an earlier one not ended yet: "
                     "dropped (its ends link to the earlier start)",
};

static int flow_seq_cmp(const void *a, const void *b)
{
    const flow_pt *x = a, *y = b;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Warns of the dropped points in input order; their count is the meta unbound_flows. */
static int warn_dropped_flows(cj_rd *r, uint64_t unbound)
{
    flow_pt *f = r->flows.data;
    tr_qsort(f, r->flows.len, sizeof *f, flow_seq_cmp);
    int rc = TR_OK;
    for (size_t i = 0; i < r->flows.len && rc == TR_OK; i++) {
        if (!cj_flow_pt_drop(&f[i])) continue;
        const char *name =
            f[i].name ? tr_str_get(r->t, f[i].name, NULL) : cj_flow_key_text(r, f[i].key, NULL);
        rc = cj_warn_at(r, cj_flow_pt_off(&f[i]), drop_text[cj_flow_pt_drop(&f[i])], name);
    }
    if (rc == TR_OK) rc = cj_meta_push(r, r->c[K_UNBOUND_FLOWS], TR_ARG_INT, unbound);
    return rc;
}

/*
** The flows of one identity's points F[I..J) in time order, as Perfetto's
** importer links them: a bound 's' starts the flow and another 's' before
** it has linked is ignored; a 't' (a step, or a v2 slice with flow_in and
** flow_out) links from the flow's last point and becomes it; every 'f' links
** from the last point and leaves it so (a Kineto launch ends in several
** kernels).  Unlike Perfetto, which links every later end back to the first
** start, an 's' after the flow has linked starts a new one (Chrome reuses
** ids; Catapult reads them so).
*/
static int chain_one(cj_rd *r, flow_pt *f, size_t i, size_t j, uint64_t *unbound)
{
    flow_pt *from = NULL;
    int lost = 0, used = 0; /* a start without a slice; the start has linked */
    for (size_t q = i; q < j; q++) {
        flow_pt *p = &f[q];
        int drop = p->row == TR_NONE               ? DROP_NO_SLICE
                   : p->ph == 's' && from && !used ? DROP_RESTART
                   : p->ph == 's'                  ? DROP_NONE
                   : !from && lost                 ? DROP_LOST_START
                   : !from                         ? DROP_NO_START
                                                   : DROP_NONE;
        if (drop) {
            (*unbound)++;
            p->bits = (uint8_t)(p->bits | drop << FP_DROP);
            lost |= p->ph == 's' && drop == DROP_NO_SLICE && !from;
            continue;
        }
        if (p->ph == 's') {
            from = p;
            used = 0;
            continue;
        }
        tr_flow fl = {TR_REF(TR_EV_SLICE, from->row), TR_REF(TR_EV_SLICE, p->row),
                      from->name ? from->name : p->name, from->cat ? from->cat : p->cat,
                      flow_pt_id(r, from)};
        if (tr_flow_add(r->t, &fl) == TR_NONE) return tr_error_nomem(r->e);
        used = 1;
        if (p->ph == 't') from = p;
    }
    if (from && !used) {
        (*unbound)++;
        from->bits = (uint8_t)(from->bits | DROP_NO_END << FP_DROP);
    }
    return TR_OK;
}

/* Chains every identity's points: the N points at F, bound and in cj_flow_cmp's order. */
int cj_chain_flows(cj_rd *r, flow_pt *f, size_t n, uint64_t *unbound)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && f[j].key == f[i].key) j++;
        if (chain_one(r, f, i, j, unbound) != TR_OK) return TR_FATAL;
        i = j;
    }
    return TR_OK;
}

/* Flows from the points bound in the model; in a reader that forgets, cj_bind_step did it. */
static int finish_flows(cj_rd *r)
{
    if (tr_trace_status(r->flow_keys, r->e) != TR_OK) return TR_FATAL;
    if (r->forgets) return r->unbound ? warn_dropped_flows(r, r->unbound) : TR_OK;
    if (!r->flows.len) return TR_OK;
    if (bind_flow_ends(r) != TR_OK) return TR_FATAL;
    flow_pt *f = r->flows.data;
    /* points that come as they chain (each flow's s, then its f) need no sort */
    size_t i = 1;
    while (i < r->flows.len && cj_flow_cmp(&f[i - 1], &f[i]) <= 0) i++;
    if (i < r->flows.len) tr_qsort(f, r->flows.len, sizeof *f, cj_flow_cmp);
    uint64_t unbound = 0;
    int rc = cj_chain_flows(r, f, r->flows.len, &unbound);
    if (rc == TR_OK && unbound) rc = warn_dropped_flows(r, unbound);
    return rc;
}

/* ---- the end of the input ---- */

static int held_add(cj_rd *r, const held_slice *h)
{
    uint32_t row;
    int rc = cj_slice_add(r, h->track, h->o.ts, h->dur, h->o.name, h->o.cat, h->bytes, h->args,
                          h->o.tts, h->o.tdur, &row);
    return rc == TR_OK ? cj_flow_v2(r, &h->o, h->track, row) : rc;
}

/*
** Slice H, just ended, whose begin was at index H->wait of the open slices
** OPENS (a B or b popped: OPENS no longer holds it; an X inside them: the
** index past the last), on their track.  It is added now, and after it the
** held ones that waited on it; or held itself, when the open slice around it
** starts with it.  HELD keeps parents before their children.
*/
int cj_hold(cj_rd *r, const tr_vec *opens, tr_vec *held, const held_slice *h)
{
    uint32_t k = h->wait;
    held_slice *v = held->data;
    if (k > 0 && TR_VEC_AT(opens, open_slice, k - 1).ts == h->o.ts) {
        size_t at = 0; /* before its own held ones, which now wait with it */
        while (at < held->len && v[at].wait != k) at++;
        if (!tr_vec_push(held)) return tr_error_nomem(r->e);
        v = held->data;
        memmove(v + at + 1, v + at, (held->len - 1 - at) * sizeof *v);
        v[at] = *h;
        for (size_t i = 0; i < held->len; i++)
            if (v[i].wait >= k) v[i].wait = v[i].wait == k ? k - 1 : v[i].wait - 1;
        v[at].wait = k - 1;
        return TR_OK;
    }
    int rc = held_add(r, h);
    size_t kept = 0;
    for (size_t i = 0; i < held->len; i++) {
        held_slice x = v[i];
        if (x.wait == k) {
            if (rc == TR_OK) rc = held_add(r, &x);
            continue;
        }
        if (x.wait > k) x.wait--; /* the open slices above it moved down */
        v[kept++] = x;
    }
    held->len = kept;
    return rc;
}

/* At the end: OPENS (still open) are added, each followed by the held ones that waited on it. */
static int finish_stack(cj_rd *r, tr_vec *opens, tr_vec *held, uint32_t thread, async_st *a)
{
    int bad = 0, rc = TR_OK;
    for (size_t k = 0; k < opens->len && rc == TR_OK; k++) {
        open_slice *o = &TR_VEC_AT(opens, open_slice, k);
        rc = a ? cj_warn_at(r, o->off, "async slice never ended (\"%s\"): kept open to the end",
                            tr_str_get(r->t, o->name, NULL))
               : cj_warn_at(r, o->off, "B event never ended (\"%s\"): kept open to the end",
                            tr_str_get(r->t, o->name, NULL));
        uint32_t args = cj_args_merge(r, o->args, NULL, 1, &bad);
        if (rc == TR_OK)
            rc = a ? cj_async_close(r, a, o, -1, args)
                   : cj_close_open(r, o, cj_track_of(r, thread, o->cat), -1, args);
        for (size_t i = 0; i < held->len && rc == TR_OK; i++)
            if (TR_VEC_AT(held, held_slice, i).wait == k)
                rc = held_add(r, &TR_VEC_AT(held, held_slice, i));
    }
    held->len = 0;
    return rc;
}

int cj_finish_opens(cj_rd *r)
{
    int rc = TR_OK;
    for (size_t i = 0; i < r->threads.len && rc == TR_OK; i++) {
        thread_st *th = cj_thread_at(r, (uint32_t)i);
        rc = finish_stack(r, &th->opens, &th->held, (uint32_t)i, NULL);
    }
    for (size_t i = 0; i < r->asyncs.len && rc == TR_OK; i++) {
        async_st *a = &TR_VEC_AT(&r->asyncs, async_st, i);
        rc = finish_stack(r, &a->opens, &a->held, 0, a);
    }
    return rc;
}

/*
** Processes of the input that share a name are told apart by their labels:
** Kineto names its CPU process and every GPU "python3.10" and says "CPU",
** "GPU 0" in process_labels, so the GPU lanes say which device.
*/
static void name_by_labels(cj_rd *r)
{
    tr_trace *t = r->t;
    size_t n = tr_process_count(t);
    for (size_t i = 0; i < n; i++) {
        tr_process *p = tr_process_at(t, (uint32_t)i);
        if (p->input != r->input || !p->labels || !p->name) continue;
        int shared = 0;
        for (size_t j = 0; j < n && !shared; j++) {
            const tr_process *q = tr_process_get(t, (uint32_t)j);
            shared = j != i && q->input == r->input && q->name == p->name;
        }
        if (!shared) continue;
        tr_buf_reset(&r->raw);
        tr_buf_addf(&r->raw, "%s (%s)", tr_str_get(t, p->name, NULL),
                    tr_str_get(t, p->labels, NULL));
        p->name = tr_str_intern(t, r->raw.p, r->raw.len);
    }
}

/* Names for what the trace left unnamed, as the chrome writer would print them. */
static void finish_names(cj_rd *r)
{
    tr_trace *t = r->t;
    char tmp[64];
    for (size_t i = 0; i < r->threads.len; i++) {
        thread_st *th = cj_thread_at(r, (uint32_t)i);
        /* a named thread without events still shows */
        if (th->track == TR_NONE && th->name) cj_track_of(r, (uint32_t)i, 0);
    }
    name_by_labels(r);
    for (size_t i = 0; i < tr_process_count(t); i++) {
        tr_process *p = tr_process_at(t, (uint32_t)i);
        if (p->input != r->input) continue;
        if (r->rank >= 0 && p->rank < 0) p->rank = r->rank;
        if (p->name) continue;
        if (p->pid == -1) {
            p->name = tr_str_internz(t, "(no pid)");
        } else {
            snprintf(tmp, sizeof tmp, "pid %lld", (long long)p->pid);
            p->name = tr_str_internz(t, tmp);
        }
    }
    for (size_t i = 0; i < tr_track_count(t); i++) {
        tr_track *tk = tr_track_at(t, (uint32_t)i);
        const tr_process *p = tr_process_get(t, tk->process);
        if (p->input != r->input || tk->name) continue;
        snprintf(tmp, sizeof tmp, "%s %lld", tr_track_kind_name(tk->kind), (long long)tk->tid);
        tk->name = tr_str_internz(t, tmp);
    }
    for (size_t i = 0; i < r->asyncs.len; i++) {
        async_st *a = &TR_VEC_AT(&r->asyncs, async_st, i);
        tr_track *tk = tr_track_at(t, a->track);
        if (tk && a->first_name) tk->name = a->first_name;
    }
}

/* The input's info: origin, clock, warnings and the metadata collected. */
static void finish_info(cj_rd *r)
{
    tr_input_info *info = tr_input_at(r->t, r->input);
    if (!info) return;
    info->clock = r->c[K_CLOCK];
    info->warnings += r->warnings;
    if (r->base_ns != INT64_MIN)
        info->origin_unix_ns = r->base_ns; /* newer Kineto: ts from baseTimeNanoseconds */
    else if (r->have_origin && r->origin > 946684800000000000LL &&
             r->origin < 4102444800000000000LL)
        info->origin_unix_ns = 0; /* epoch microseconds (older Kineto, Chrome on Linux) */
    tr_args_begin(r->t);
    for (size_t i = 0; i < r->meta.len; i++) {
        meta_kv *m = &TR_VEC_AT(&r->meta, meta_kv, i);
        if (m->type == TR_ARG_STR)
            tr_args_str(r->t, m->key, (tr_str)m->bits);
        else if (m->type == TR_ARG_UINT)
            tr_args_uint(r->t, m->key, m->bits);
        else if (m->type == TR_ARG_REAL) {
            double d;
            memcpy(&d, &m->bits, sizeof d);
            tr_args_real(r->t, m->key, d);
        } else if (m->type == TR_ARG_BOOL)
            tr_args_bool(r->t, m->key, m->bits != 0);
        else
            tr_args_int(r->t, m->key, (int64_t)m->bits);
    }
    info->meta = tr_args_end(r->t);
}

/*
** What needed the whole input, after the samples: flows, names, the input's
** info.  A reader that forgets chains its flows first, *BUDGET points a call.
*/
int cj_finish_end(cj_rd *r, int *budget)
{
    if (r->forgets && !r->flows_done) return cj_bind_step(r, budget);
    int rc = finish_flows(r);
    if (rc != TR_OK) return rc;
    if (r->bad_unit &&
        (rc = cj_warn_at(r, 0, "displayTimeUnit is %s: timestamps read as microseconds",
                         "neither \"ms\" nor \"ns\"")) != TR_OK)
        return rc;
    finish_names(r);
    finish_info(r);
    r->state = ST_DONE;
    return tr_trace_status(r->t, r->e);
}
