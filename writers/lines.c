/*
** lines.c: one event a line, tab-separated, for grep, awk and cut.
**
** Columns: kind, ts, dur, process, track, category, name, value, args.
** Times are seconds from the origin with 9 decimals; text columns have their
** tabs, line breaks and other control characters turned into spaces
** (tr_buf_add_text) so a row stays one row and stays text.
*/
#include "tr_writer.h"
#include "tr_text.h"

#define FLUSH_AT ((size_t)256 * 1024)

#define LIT(b, s) tr_buf_add((b), (s), sizeof(s) - 1)

typedef struct lines_w {
    const tr_trace *t;
    tr_buf b;
    tr_buf names;    /* per track "process\ttrack", rendered once */
    size_t *name_at; /* track i's text is names.p[name_at[i] .. name_at[i + 1]) */
    size_t named;    /* tracks rendered so far */
    tr_vec frames;   /* uint32_t: a stack's frames, root first */
} lines_w;

/* Appends N bytes of text with tabs, line breaks and other control characters made spaces. */
static int add_field(tr_buf *b, const char *s, size_t n)
{
    return tr_buf_add_text(b, s, n, TR_TEXT_FIELD);
}

static int add_str_field(tr_buf *b, const tr_trace *t, tr_str s)
{
    size_t n;
    const char *p = tr_str_get(t, s, &n);
    return add_field(b, p, n);
}

/*
** Renders the process and track columns of the tracks made since the last
** call once: most rows repeat them.  A stream writes rows while its input
** is read, so tracks are added as rows name them.
*/
static int names_prepare(lines_w *w)
{
    const tr_trace *t = w->t;
    size_t n = tr_track_count(t);
    size_t *at = tr_realloc(w->name_at, (n + 1) * sizeof *at);
    if (!at) return TR_FATAL;
    w->name_at = at;
    int rc = TR_OK;
    for (size_t i = w->named; i < n && !rc; i++) {
        const tr_track *tk = tr_track_get(t, (uint32_t)i);
        const tr_process *p = tr_process_get(t, tk->process);
        at[i] = w->names.len;
        if (p->name) {
            rc |= add_str_field(&w->names, t, p->name);
        } else if (p->pid >= 0) {
            rc |= LIT(&w->names, "pid ");
            rc |= tr_buf_add_int(&w->names, p->pid);
        }
        rc |= tr_buf_addc(&w->names, '\t');
        rc |= add_str_field(&w->names, t, tk->name);
    }
    at[n] = w->names.len;
    w->named = n;
    return rc;
}

/* The stack's function names, root first, joined by ';'. */
static int add_stack(lines_w *w, uint32_t stack)
{
    uint32_t depth = tr_stack_depth(w->t, stack);
    if (tr_vec_reserve(&w->frames, depth) != TR_OK) return TR_FATAL;
    uint32_t *f = w->frames.data;
    for (uint32_t i = depth; i > 0 && stack != 0; stack = tr_stack_parent(w->t, stack))
        f[--i] = tr_stack_frame(w->t, stack);
    int rc = TR_OK;
    for (uint32_t i = 0; i < depth; i++) {
        const tr_frame *fr = tr_frame_get(w->t, f[i]);
        size_t n;
        const char *fn = tr_str_get(w->t, fr ? fr->function : 0, &n);
        if (i > 0) rc |= tr_buf_addc(&w->b, ';');
        rc |= n ? add_field(&w->b, fn, n) : tr_buf_addc(&w->b, '?');
    }
    return rc;
}

/* Kind, ts, dur (DUR < 0: empty), process, track: the columns every row starts with. */
static int row_open(lines_w *w, const char *kind, size_t kind_len, int64_t ts, int64_t dur,
                    uint32_t track)
{
    tr_buf *b = &w->b;
    int rc = tr_buf_add(b, kind, kind_len);
    rc |= tr_buf_addc(b, '\t');
    rc |= tr_buf_add_fixed(b, ts, 9, 9);
    rc |= tr_buf_addc(b, '\t');
    if (dur >= 0) rc |= tr_buf_add_fixed(b, dur, 9, 9);
    rc |= tr_buf_addc(b, '\t');
    rc |= tr_buf_add(b, w->names.p + w->name_at[track], w->name_at[track + 1] - w->name_at[track]);
    return rc | tr_buf_addc(b, '\t');
}

/* Category, name, bytes (when >= 0) and args: the tail of slices and instants. */
static int row_close(lines_w *w, tr_str cat, tr_str name, int64_t bytes, uint32_t args)
{
    tr_buf *b = &w->b;
    int rc = add_str_field(b, w->t, cat);
    rc |= tr_buf_addc(b, '\t');
    rc |= add_str_field(b, w->t, name);
    rc |= tr_buf_addc(b, '\t');
    if (bytes >= 0) rc |= tr_buf_add_int(b, bytes);
    rc |= tr_buf_addc(b, '\t');
    rc |= tr_buf_add_json_args(b, w->t, args);
    return rc | tr_buf_addc(b, '\n');
}

static int write_row(lines_w *w, const tr_event_rec *ev)
{
    int rc;
    switch (ev->kind) {
    case TR_EV_SLICE:
        rc = row_open(w, "slice", 5, ev->ts, ev->dur, ev->track);
        return rc | row_close(w, ev->u.s.cat, ev->u.s.name, ev->bytes, ev->args);
    case TR_EV_INSTANT:
        rc = row_open(w, "instant", 7, ev->ts, -1, ev->track);
        return rc | row_close(w, ev->u.s.cat, ev->u.s.name, ev->bytes, ev->args);
    case TR_EV_COUNTER:
        rc = row_open(w, "counter", 7, ev->ts, -1, ev->track);
        rc |= LIT(&w->b, "\t\t"); /* no category, no name */
        rc |= tr_buf_add_real(&w->b, ev->u.value);
        return rc | LIT(&w->b, "\t{}\n");
    default:
        rc = row_open(w, "sample", 6, ev->ts, -1, ev->track);
        rc |= tr_buf_addc(&w->b, '\t'); /* no category */
        rc |= add_stack(w, ev->stack);
        rc |= LIT(&w->b, "\t\t"); /* no value */
        rc |= tr_buf_add_json_args(&w->b, w->t, ev->args);
        return rc | tr_buf_addc(&w->b, '\n');
    }
}

/* A track's names are rendered at the first row on it: by then they are final. */
static int lines_row(lines_w *w, tr_output *out, const tr_trace *t, const tr_event_rec *ev,
                     tr_error *e)
{
    if (w->t != t) {
        w->t = t;
        w->named = 0;
        tr_buf_reset(&w->names);
    }
    if (ev->track >= w->named && names_prepare(w) != TR_OK) return tr_error_nomem(e);
    if (write_row(w, ev) != TR_OK) return tr_error_nomem(e);
    if (w->b.len < FLUSH_AT) return TR_OK;
    int rc = tr_output_write(out, w->b.p, w->b.len, e);
    tr_buf_reset(&w->b);
    return rc;
}

static int lines_begin(tr_write *run, tr_error *e)
{
    lines_w *w = tr_calloc(1, sizeof *w);
    run->state = w;
    if (!w) return tr_error_nomem(e);
    tr_buf_init(&w->b, 0);
    tr_buf_init(&w->names, 0);
    tr_vec_init(&w->frames, sizeof(uint32_t));
    if (tr_buf_grow(&w->b, FLUSH_AT + 4096) == TR_OK &&
        (!run->opts->header ||
         !LIT(&w->b, "#kind\tts\tdur\tprocess\ttrack\tcategory\tname\tvalue\targs\n")))
        return TR_OK;
    /* end is not called after a failed begin */
    tr_buf_fini(&w->b);
    tr_free(w);
    run->state = NULL;
    return tr_error_nomem(e);
}

static int lines_add(tr_write *run, const tr_trace *t, tr_error *e)
{
    const tr_filter *filter = run->opts->filter;
    tr_iter it;
    tr_event ev;
    tr_event_rec rec;
    int rc = TR_OK;
    tr_iter_init(&it, t);
    while (rc == TR_OK && tr_iter_next(&it, &ev)) {
        if (filter && !filter->keep(filter->user, t, &ev)) continue;
        tr_event_rec_get(t, &ev, &rec);
        rc = lines_row(run->state, run->out, t, &rec, e);
    }
    return rc;
}

static int lines_event(tr_write *run, const tr_trace *t, const tr_event_rec *ev, tr_error *e)
{
    return lines_row(run->state, run->out, t, ev, e);
}

static int lines_end(tr_write *run, int rc, tr_error *e)
{
    lines_w *w = run->state;
    if (!w) return rc;
    if (rc == TR_OK) rc = tr_output_write(run->out, w->b.p, w->b.len, e);
    tr_buf_fini(&w->b);
    tr_buf_fini(&w->names);
    tr_free(w->name_at);
    tr_vec_fini(&w->frames);
    tr_free(w);
    return rc;
}

const tr_writer tr_writer_lines = {
    .abi = TR_WRITER_ABI,
    .name = "lines",
    .description = "one event a line, tab-separated (grep, awk, cut)",
    .extensions = "tsv,lines,txt",
    .binary = 0,
    .begin = lines_begin,
    .add = lines_add,
    .end = lines_end,
    .event = lines_event,
};
