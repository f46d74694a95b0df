/*
** parquet_stream.c: a stream's events written as Parquet files as they
** come, for parquet.c's writer (its tr_writer.event, .flows and .part_end).
**
** A stream's events (tr_writer.event) go into their tables' files as they
** come: each event table of each part has its file open, and its rows
** gather for one row group (row_group_rows of them) that is then written,
** so the files are those the model gives, byte for byte.  The part of an
** event is its process's (input, rank), met as the events come; the arg sets
** and stacks a part's events use are marked for its args, callsite and
** frame files.  At the end, when the dictionaries and flows are final, the
** other tables are written as for a model, and each part gets an empty file
** of the event tables it had no rows of.  The free space is checked, as for
** a model, with what is known: at the first event (the files' least size)
** and again at the end (the dictionaries').
*/
#include "parquet_writer_impl.h"

/* ---- a stream's parts and their files ---- */

/* A streamed table's file for one part: its rows gather for a row group. */
typedef struct pq_sfile {
    pq_file_ctx ctx;
    tr_pq_column cols[MAX_COLS];
    tr_output *out;
    tr_pq_file *f;
    tr_buf path;
    tr_vec rows; /* tr_row_event */
} pq_sfile;

/* A part as the stream meets it. */
struct pq_spart {
    pq_part part;
    pq_sfile *files[MAX_EVENT_TABLES]; /* by event table, NULL: no row yet */
    tr_vec sets, stacks;               /* uint8_t by id: its events used it */
};

static pq_stream *stream_new(pq_dataset *ds, const tr_trace *t)
{
    pq_stream *st = tr_calloc(1, sizeof *st);
    if (!st) return NULL;
    st->t = t;
    st->w.ds = ds;
    st->w.sc.t = t; /* the event getters read the dictionaries; the rest is read at the end */
    tr_buf_init(&st->w.sc.scratch, 0);
    tr_rows_init(&st->rows, ds->o->partition_rank);
    tr_vec_init(&st->proc_part, sizeof(uint32_t));
    for (size_t i = 0; i < tr_sc_n_tables && st->n_tables < MAX_EVENT_TABLES; i++)
        if (tr_sc_tables[i].get && tr_sc_event_kind(tr_sc_tables[i].rows) >= 0)
            st->tables[st->n_tables++] = &tr_sc_tables[i];
    ds->stream = st;
    return st;
}

/* The part of TRACK's process, made when the stream first meets it. */
static pq_spart *stream_part(pq_stream *st, uint32_t track)
{
    const tr_track *k = tr_track_get(st->t, track);
    const tr_process *pr = k ? tr_process_get(st->t, k->process) : NULL;
    if (!pr) return NULL;
    while (st->proc_part.len <= k->process) {
        uint32_t *p = tr_vec_push(&st->proc_part);
        if (!p) return NULL;
        *p = NO_PART;
    }
    uint32_t *at = &TR_VEC_AT(&st->proc_part, uint32_t, k->process);
    int32_t rank = st->w.ds->o->partition_rank ? pr->rank : -1;
    for (size_t i = 0; i < st->n_parts && *at == NO_PART; i++)
        if (st->parts[i]->part.input == pr->input && st->parts[i]->part.rank == rank)
            *at = (uint32_t)i;
    if (*at != NO_PART) return st->parts[*at];
    pq_spart **grown = tr_realloc(st->parts, (st->n_parts + 1) * sizeof *grown);
    if (!grown) return NULL;
    st->parts = grown;
    pq_spart *sp = tr_calloc(1, sizeof *sp);
    if (!sp) return NULL;
    tr_vec_init(&sp->sets, 1);
    tr_vec_init(&sp->stacks, 1);
    st->parts[st->n_parts] = sp;
    if (pq_part_fill(&st->w, &sp->part, pr->input, rank)) return NULL;
    *at = (uint32_t)st->n_parts++;
    return sp;
}

/* Marks ID in MARKS; 1 when it was marked already. */
static int mark(tr_vec *marks, uint32_t id, int *was)
{
    while (marks->len <= id)
        if (!tr_vec_push(marks)) return TR_FATAL;
    *was = TR_VEC_AT(marks, uint8_t, id);
    TR_VEC_AT(marks, uint8_t, id) = 1;
    return TR_OK;
}

/* The arg set and the stack (with its callers) event EV uses, marked in its part. */
static int mark_uses(pq_stream *st, pq_spart *sp, const tr_event_rec *ev)
{
    int was;
    if (ev->kind != TR_EV_COUNTER && ev->args && mark(&sp->sets, ev->args, &was)) return TR_FATAL;
    for (uint32_t s = ev->kind == TR_EV_SAMPLE ? ev->stack : 0; s; s = tr_stack_parent(st->t, s)) {
        if (mark(&sp->stacks, s, &was)) return TR_FATAL;
        if (was) break;
    }
    return TR_OK;
}

/* Writes the rows gathered in F as a row group. */
static int sfile_flush(pq_sfile *f, tr_error *e)
{
    f->ctx.evs = f->rows.data;
    int rc = tr_pq_file_rows(f->f, f->rows.len, pq_file_get, &f->ctx, e);
    f->rows.len = 0;
    return rc;
}

/* Adds row X to table I's file of part SP, opening it first; a full row group is written. */
static int sfile_add(pq_stream *st, pq_spart *sp, size_t i, const tr_row_event *x, tr_error *e)
{
    pq_sfile *f = sp->files[i];
    if (!f) {
        if (!(f = sp->files[i] = tr_calloc(1, sizeof *f))) return tr_error_nomem(e);
        tr_buf_init(&f->path, 0);
        tr_vec_init(&f->rows, sizeof(tr_row_event));
        f->ctx = (pq_file_ctx){.w = &st->w, .tb = st->tables[i], .part = &sp->part};
        int rc = pq_file_start(&st->w, &f->ctx, f->cols, &f->path, &f->out, &f->f, e);
        if (rc) return rc;
    }
    tr_row_event *at = tr_vec_push(&f->rows);
    if (!at) return tr_error_nomem(e);
    *at = *x;
    return f->rows.len >= st->w.ds->lim.row_group_rows ? sfile_flush(f, e) : TR_OK;
}

/* The stream, made at its first event or at its flows after the free space is checked. */
static int stream_get(pq_dataset *ds, const tr_trace *t, pq_stream **st, tr_error *e)
{
    if ((*st = ds->stream) != NULL) return TR_OK;
    int rc = pq_check_space(ds, t, e);
    if (rc) return rc;
    return (*st = stream_new(ds, t)) ? TR_OK : tr_error_nomem(e);
}

/* ---- the events ---- */

int pq_event(tr_write *run, const tr_trace *t, const tr_event_rec *ev, tr_error *e)
{
    pq_stream *st;
    int grc = stream_get(run->state, t, &st, e);
    if (grc) return grc;
    tr_row_event x;
    if (tr_rows_next(&st->rows, ev, &x)) return tr_error_nomem(e);
    pq_spart *sp = stream_part(st, ev->track);
    if (!sp) {
        if (tr_track_get(t, ev->track)) return tr_error_nomem(e);
        return TR_OK; /* an event of no track is in no part, as in part_of (parquet.c) */
    }
    if (mark_uses(st, sp, ev)) return tr_error_nomem(e);
    int rc = TR_OK;
    for (size_t i = 0; i < st->n_tables && !rc; i++) {
        const tr_sc_table *tb = st->tables[i];
        if (tr_sc_event_kind(tb->rows) != ev->kind) continue;
        st->w.sc.cur[ev->kind] = &x;
        int keep = !tb->where || tb->where(&st->w.sc, x.row);
        st->w.sc.cur[ev->kind] = NULL;
        if (keep) rc = sfile_add(st, sp, i, &x, e);
    }
    return rc;
}

int pq_flows(tr_write *run, const tr_trace *t, tr_flow *f, size_t n, tr_error *e)
{
    pq_stream *st;
    int rc = stream_get(run->state, t, &st, e);
    if (rc) return rc;
    st->streaming = 1;
    st->flows = f;
    st->n_flows = n;
    return TR_OK;
}

/* ---- the end of a part ---- */

/* The streamed part that is final part P, or NULL. */
static pq_spart *stream_match(const pq_stream *st, const pq_part *p)
{
    for (size_t i = 0; i < st->n_parts; i++)
        if (st->parts[i]->part.input == p->input && st->parts[i]->part.rank == p->rank)
            return st->parts[i];
    return NULL;
}

/* Event table I's file of each final part: the streamed one finished, or an empty one. */
static int stream_table(pq_stream *st, size_t i, tr_error *e)
{
    pq_w *w = &st->w;
    int rc = TR_OK;
    for (uint32_t p = 0; p < w->n_parts && !rc; p++) {
        pq_spart *sp = stream_match(st, &w->parts[p]);
        pq_sfile *f = sp ? sp->files[i] : NULL;
        if (!f) {
            rc = pq_write_file(w, st->tables[i], p, (pq_rows){0}, e);
            continue;
        }
        rc = f->rows.len ? sfile_flush(f, e) : TR_OK;
        rc = pq_file_finish(st->tables[i], f->out, f->f, &f->path, rc, e);
        f->out = NULL;
        f->f = NULL;
        tr_vec_fini(&f->rows); /* a row group's records: room for the tables after */
    }
    return rc;
}

/* The marks of each final part (empty for a part no event was in). */
static int stream_marks(pq_stream *st, tr_vec **sets, tr_vec **stacks)
{
    pq_w *w = &st->w;
    *sets = tr_calloc(w->n_parts ? w->n_parts : 1, sizeof **sets);
    *stacks = tr_calloc(w->n_parts ? w->n_parts : 1, sizeof **stacks);
    if (!*sets || !*stacks) return TR_FATAL;
    for (uint32_t p = 0; p < w->n_parts; p++) {
        pq_spart *sp = stream_match(st, &w->parts[p]);
        if (sp) (*sets)[p] = sp->sets, (*stacks)[p] = sp->stacks;
    }
    w->set_marks = *sets;
    w->stack_marks = *stacks;
    return TR_OK;
}

/* At the end: the final parts, then every table, the event tables from their files. */
int pq_stream_finish(pq_stream *st, tr_error *e)
{
    pq_w *w = &st->w;
    tr_rows_flows(&st->rows, st->flows, st->n_flows);
    int rc = tr_sc_check(&w->sc, TR_OK, e);
    tr_sc_close(&w->sc);
    if (!rc) rc = pq_check_space(w->ds, st->t, e);
    if (!rc) rc = tr_sc_open(&w->sc, st->t, NULL, e);
    w->sc.flows = st->flows;
    w->sc.n_flows = st->n_flows;
    w->rows = &st->rows;
    if (!rc) rc = pq_prepare(w, e);
    tr_vec *sets = NULL, *stacks = NULL;
    if (!rc && stream_marks(st, &sets, &stacks)) rc = tr_error_nomem(e);
    size_t ev_table = 0;
    for (size_t i = 0; i < tr_sc_n_tables && !rc; i++) {
        const tr_sc_table *tb = &tr_sc_tables[i];
        if (!tb->get) continue;
        if (ev_table < st->n_tables && tb == st->tables[ev_table])
            rc = stream_table(st, ev_table++, e);
        else
            rc = pq_write_table(w, tb, e);
    }
    tr_free(sets);
    tr_free(stacks);
    return tr_sc_check(&w->sc, rc, e);
}

void pq_stream_free(pq_stream *st)
{
    for (size_t i = 0; i < st->n_parts; i++) {
        pq_spart *sp = st->parts[i];
        for (size_t k = 0; k < MAX_EVENT_TABLES; k++) {
            pq_sfile *f = sp->files[k];
            if (!f) continue;
            tr_pq_file_free(f->f);
            tr_output_abort(f->out);
            tr_buf_fini(&f->path);
            tr_vec_fini(&f->rows);
            tr_free(f);
        }
        tr_vec_fini(&sp->sets);
        tr_vec_fini(&sp->stacks);
        tr_free(sp->part.name);
        tr_free(sp);
    }
    tr_free(st->parts);
    tr_vec_fini(&st->proc_part);
    tr_rows_fini(&st->rows);
    pq_finish(&st->w);
    tr_free(st);
}

/* An input's part streamed: its files finished, its stream freed for the next input's. */
int pq_part_end(tr_write *run, const tr_trace *t, tr_error *e)
{
    (void)t;
    pq_dataset *ds = run->state;
    pq_stream *st = ds->stream;
    int rc = st && st->streaming ? pq_stream_finish(st, e) : TR_OK;
    if (rc) pq_remove_parts(&st->w); /* the new tree holds whole parts only, as after add */
    if (st) pq_stream_free(st);
    ds->stream = NULL;
    run->keep |= rc == TR_OK;
    return rc;
}
