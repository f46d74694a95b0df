/*
** rows.c: rows, nesting and flow ends on a stream (tr_rows.h).
*/
#include "tr_rows.h"

#include <string.h>

/* A slice still open on its track. */
typedef struct rows_open {
    int64_t ts, end;
    uint32_t row;
    uint16_t depth;
    uint8_t zero; /* a zero-length slice encloses nothing */
} rows_open;

void tr_rows_init(tr_rows *r, int tracks)
{
    memset(r, 0, sizeof *r);
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) {
        tr_vec_init(&r->row_of[k], sizeof(uint32_t));
        tr_vec_init(&r->track_of[k], sizeof(uint32_t));
    }
    tr_vec_init(&r->open, sizeof(tr_vec));
    r->tracks = tracks;
    r->bind_flows = 1;
}

void tr_rows_fini(tr_rows *r)
{
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) {
        tr_vec_fini(&r->row_of[k]);
        tr_vec_fini(&r->track_of[k]);
    }
    for (size_t i = 0; i < r->open.len; i++) tr_vec_fini(&TR_VEC_AT(&r->open, tr_vec, i));
    tr_vec_fini(&r->open);
}

/* Sets V[SEQ] = X, the slots before it that no event took TR_NONE. */
static int put_at(tr_vec *v, uint64_t seq, uint32_t x)
{
    if (seq >= UINT32_MAX) return TR_FATAL;
    if (seq >= v->len) {
        if (tr_vec_reserve(v, seq + 1 > 2 * v->len ? (size_t)seq + 1 : 2 * v->len)) return TR_FATAL;
        uint32_t *p = v->data;
        for (size_t i = v->len; i <= seq; i++) p[i] = TR_NONE;
        v->len = (size_t)seq + 1;
    }
    TR_VEC_AT(v, uint32_t, seq) = x;
    return TR_OK;
}

/* The depth and parent of slice OUT on its track, as freeze's nest_slices gives them. */
static int nest(tr_rows *r, tr_row_event *out)
{
    const tr_event_rec *ev = &out->rec;
    while (r->open.len <= ev->track) {
        tr_vec *v = tr_vec_push(&r->open);
        if (!v) return TR_FATAL;
        tr_vec_init(v, sizeof(rows_open));
    }
    tr_vec *st = &TR_VEC_AT(&r->open, tr_vec, ev->track);
    const rows_open *o = st->data;
    while (st->len && (o[st->len - 1].end <= ev->ts || o[st->len - 1].zero)) st->len--;
    const rows_open *top = st->len ? &o[st->len - 1] : NULL;
    out->parent = top ? top->row : TR_NONE;
    out->parent_ts = top ? top->ts : TR_TIME_NONE;
    out->depth = !top ? 0 : top->depth == UINT16_MAX ? UINT16_MAX : top->depth + 1u;
    rows_open *now = tr_vec_push(st);
    if (!now) return TR_FATAL;
    *now = (rows_open){ev->ts, tr_time_add(ev->ts, ev->dur), (uint32_t)out->row,
                       (uint16_t)out->depth, ev->dur == 0};
    return TR_OK;
}

int tr_rows_next(tr_rows *r, const tr_event_rec *ev, tr_row_event *out)
{
    int k = ev->kind;
    out->rec = *ev;
    out->row = r->n[k]++;
    out->depth = 0;
    out->parent = TR_NONE;
    out->parent_ts = TR_TIME_NONE;
    if (r->bind_flows && put_at(&r->row_of[k], ev->seq, (uint32_t)out->row)) return TR_FATAL;
    if (r->tracks && put_at(&r->track_of[k], out->row, ev->track)) return TR_FATAL;
    return k == TR_EV_SLICE ? nest(r, out) : TR_OK;
}

/* The row of the event that flow end REF names by seq. */
static tr_ref bind(const tr_rows *r, tr_ref ref)
{
    int k = TR_REF_KIND(ref);
    uint32_t seq = TR_REF_ROW(ref);
    if (k < 0 || k >= TR_EV_KIND_COUNT || seq >= r->row_of[k].len)
        return TR_REF(TR_EV_KIND_COUNT, seq);
    uint32_t row = TR_VEC_AT(&r->row_of[k], uint32_t, seq);
    return row == TR_NONE ? TR_REF(TR_EV_KIND_COUNT, seq) : TR_REF(k, row);
}

void tr_rows_flows(const tr_rows *r, tr_flow *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        f[i].from = bind(r, f[i].from);
        f[i].to = bind(r, f[i].to);
    }
}

uint32_t tr_rows_track(const tr_rows *r, tr_ref ref)
{
    int k = TR_REF_KIND(ref);
    if (k < 0 || k >= TR_EV_KIND_COUNT) return TR_NONE;
    const tr_vec *tracks = &r->track_of[k];
    return TR_REF_ROW(ref) < tracks->len ? TR_VEC_AT(tracks, uint32_t, TR_REF_ROW(ref)) : TR_NONE;
}
