/*
** chrome.c: the Trace Event JSON writer (object form).
**
** One event a line, so outputs diff well; the text streams through a buffer
** flushed every FLUSH_AT bytes, never the whole document in memory.  Chrome's
** pid is the process row + 1 and its tid the track row + 1: inputs may share
** source pids, so those go into the metadata args instead.
**
** It writes what readers/chrome.c reads back to an equal model: slices of
** async tracks as b/e pairs (id = the track), samples as the "samples" and
** "stackFrames" keys (one frame per stack node, with the frame's file, line
** and nativeness as extra keys), ranks, sort indexes and labels in metadata
** events, and 64-bit integer args exactly.
*/
#include "chrome_writer_impl.h"
#include "tr_align.h"
#include "tr_map.h"
#include "tr_pool.h"
#include "tr_writer.h"
#include "tr_text.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define FLUSH_AT ((size_t)256 * 1024)

static int add_str(tr_buf *b, const tr_trace *t, tr_str s)
{
    return tr_buf_add_json_id(b, t, s);
}

/* Starts an event object on its own line. */
static int event_open(chrome_w *w)
{
    return w->events++ ? LIT(&w->b, ",\n{") : LIT(&w->b, "\n{");
}

static int flush(chrome_w *w, tr_error *e)
{
    int rc = tr_output_write(w->out, w->b.p, w->b.len, e);
    tr_buf_reset(&w->b);
    return rc;
}

/*
** The pid of PROCESS: its group's row + 1, or (kineto) the source's: a
** number, or the name when the source gave a string ("pid":"Spans").
*/
static int add_pid(tr_buf *b, const chrome_w *w, uint32_t process)
{
    const tr_process *p = tr_process_get(w->t, process);
    if (!w->kineto) return tr_buf_add_int(b, (int64_t)w->group[process] + 1);
    return p->pid >= 0 ? tr_buf_add_int(b, p->pid) : tr_buf_add_json_id(b, w->t, p->name);
}

/* The tid of TRACK: its row + 1, or (kineto) the source's number, else its name. */
static int add_tid(tr_buf *b, const chrome_w *w, uint32_t track)
{
    const tr_track *tk = tr_track_get(w->t, track);
    if (!w->kineto) return tr_buf_add_int(b, (int64_t)track + 1);
    if (tk->tid >= 0) return tr_buf_add_int(b, tk->tid);
    if (tk->kind == TR_TRACK_THREAD) return tr_buf_add_json_id(b, w->t, tk->name);
    return tr_buf_add_int(b, 0); /* counter series and async tracks are named by their events */
}

/* ,"pid":P,"tid":T of track TRACK, into B. */
static int pid_tid_text(tr_buf *b, const chrome_w *w, uint32_t track)
{
    int rc = LIT(b, ",\"pid\":");
    rc |= add_pid(b, w, tr_track_get(w->t, track)->process);
    rc |= LIT(b, ",\"tid\":");
    rc |= add_tid(b, w, track);
    return rc;
}

/* Every event names its track: the text is made once per track (ids_prepare) and copied. */
static int ids_prepare(chrome_w *w)
{
    size_t n = tr_track_count(w->t);
    w->id_end = tr_malloc((n ? n : 1) * sizeof *w->id_end);
    if (!w->id_end) return TR_FATAL;
    for (size_t i = 0; i < n; i++) {
        if (pid_tid_text(&w->ids, w, (uint32_t)i) != TR_OK) return TR_FATAL;
        w->id_end[i] = w->ids.len;
    }
    return TR_OK;
}

static int add_pid_tid(chrome_w *w, uint32_t track)
{
    size_t start = track ? w->id_end[track - 1] : 0;
    return tr_buf_add(&w->b, w->ids.p + start, w->id_end[track] - start);
}

static int add_ts(tr_buf *b, int64_t ns)
{
    return tr_buf_add_fixed(b, ns, 3, 3); /* microseconds */
}

/*
** Opens ,"args":{ with the pairs of SET and no closing brace, so the caller
** can add its own pairs; *EMPTY tells whether a comma must come first.
*/
static int args_open(chrome_w *w, uint32_t set, int *empty)
{
    int rc = LIT(&w->b, ",\"args\":");
    rc |= tr_buf_add_json_args(&w->b, w->t, set);
    if (rc) return rc;
    w->b.p[--w->b.len] = '\0'; /* the '}' */
    *empty = w->b.p[w->b.len - 1] == '{';
    return TR_OK;
}

/* ,"args":{...} of SET, plus "bytes" when BYTES >= 0 and SET has none. */
static int add_args_bytes(chrome_w *w, uint32_t set, int64_t bytes)
{
    tr_arg a;
    int with_bytes = bytes >= 0 && !(set && tr_args_find(w->t, set, "bytes", &a));
    if (!set && !with_bytes) return TR_OK;
    int empty, rc = args_open(w, set, &empty);
    if (rc) return rc;
    if (with_bytes) {
        rc |= empty ? LIT(&w->b, "\"bytes\":") : LIT(&w->b, ",\"bytes\":");
        rc |= tr_buf_add_int(&w->b, bytes);
    }
    return rc | tr_buf_addc(&w->b, '}');
}

/* ,"name":"..." and ,"cat":"..." (left out when empty). */
static int add_name_cat(chrome_w *w, tr_str name, tr_str cat)
{
    int rc = LIT(&w->b, "\"name\":");
    rc |= add_str(&w->b, w->t, name);
    if (cat) {
        rc |= LIT(&w->b, ",\"cat\":");
        rc |= add_str(&w->b, w->t, cat);
    }
    return rc;
}

/* An async track's slice: a b/e pair with the track as its id. */
static int write_async_slice(chrome_w *w, const tr_event_rec *r)
{
    int rc = TR_OK;
    for (int end = 0; end < 2; end++) {
        rc |= event_open(w);
        rc |= add_name_cat(w, r->u.s.name, r->u.s.cat);
        rc |= end ? LIT(&w->b, ",\"ph\":\"e\",\"id2\":{\"local\":")
                  : LIT(&w->b, ",\"ph\":\"b\",\"id2\":{\"local\":");
        rc |= tr_buf_add_int(&w->b, (int64_t)r->track + 1);
        rc |= LIT(&w->b, "},\"ts\":");
        rc |= add_ts(&w->b, r->ts + (end ? r->dur : 0));
        rc |= add_pid_tid(w, r->track);
        if (!end) rc |= add_args_bytes(w, r->args, r->bytes);
        rc |= tr_buf_addc(&w->b, '}');
    }
    return rc;
}

static int track_kind(const chrome_w *w, uint32_t track)
{
    return tr_track_get(w->t, track)->kind;
}

static int write_slice(chrome_w *w, const tr_event_rec *r)
{
    if (track_kind(w, r->track) == TR_TRACK_ASYNC) return write_async_slice(w, r);
    int rc = event_open(w);
    rc |= add_name_cat(w, r->u.s.name, r->u.s.cat);
    rc |= LIT(&w->b, ",\"ph\":\"X\",\"ts\":");
    rc |= add_ts(&w->b, r->ts);
    rc |= LIT(&w->b, ",\"dur\":");
    rc |= add_ts(&w->b, r->dur);
    /* the thread clock, where the source stated it (Chrome's tts, tdur) */
    if (r->thread_ts != TR_TIME_NONE) rc |= LIT(&w->b, ",\"tts\":") | add_ts(&w->b, r->thread_ts);
    if (r->thread_dur != TR_TIME_NONE)
        rc |= LIT(&w->b, ",\"tdur\":") | add_ts(&w->b, r->thread_dur);
    rc |= add_pid_tid(w, r->track);
    rc |= add_args_bytes(w, r->args, r->bytes);
    return rc | tr_buf_addc(&w->b, '}');
}

static int write_instant(chrome_w *w, const tr_event_rec *r)
{
    static const char *const scope[] = {"t", "p", "g"};
    uint8_t s = r->scope;
    int rc = event_open(w);
    rc |= add_name_cat(w, r->u.s.name, r->u.s.cat);
    if (track_kind(w, r->track) == TR_TRACK_ASYNC) {
        /* an async instant: n with the track as its id */
        rc |= LIT(&w->b, ",\"ph\":\"n\",\"id2\":{\"local\":");
        rc |= tr_buf_add_int(&w->b, (int64_t)r->track + 1);
        rc |= LIT(&w->b, "},\"ts\":");
        rc |= add_ts(&w->b, r->ts);
        rc |= add_pid_tid(w, r->track);
        rc |= add_args_bytes(w, r->args, r->bytes);
        return rc | tr_buf_addc(&w->b, '}');
    }
    rc |= LIT(&w->b, ",\"ph\":\"i\",\"s\":\"");
    rc |= tr_buf_adds(&w->b, scope[s <= TR_SCOPE_GLOBAL ? s : TR_SCOPE_THREAD]);
    rc |= LIT(&w->b, "\",\"ts\":");
    rc |= add_ts(&w->b, r->ts);
    rc |= add_pid_tid(w, r->track);
    rc |= add_args_bytes(w, r->args, r->bytes);
    return rc | tr_buf_addc(&w->b, '}');
}

static int write_counter(chrome_w *w, const tr_event_rec *r)
{
    tr_str name = tr_track_get(w->t, r->track)->name;
    int rc = event_open(w);
    rc |= LIT(&w->b, "\"name\":");
    rc |= add_str(&w->b, w->t, name);
    rc |= LIT(&w->b, ",\"ph\":\"C\",\"ts\":");
    rc |= add_ts(&w->b, r->ts);
    rc |= add_pid_tid(w, r->track);
    rc |= LIT(&w->b, ",\"args\":{");
    rc |= add_str(&w->b, w->t, name);
    rc |= tr_buf_addc(&w->b, ':');
    rc |= tr_buf_add_real(&w->b, r->u.value);
    return rc | LIT(&w->b, "}}");
}

/* One sample of the "samples" key: {"ts","pid","tid","sf","args"}. */
static int write_sample(chrome_w *w, const tr_event_rec *r, int first)
{
    int rc = first ? LIT(&w->b, "\n{\"ts\":") : LIT(&w->b, ",\n{\"ts\":");
    rc |= add_ts(&w->b, r->ts);
    rc |= add_pid_tid(w, r->track);
    rc |= LIT(&w->b, ",\"sf\":\"");
    rc |= tr_buf_add_int(&w->b, r->stack);
    rc |= tr_buf_addc(&w->b, '"');
    if (r->args) {
        rc |= LIT(&w->b, ",\"args\":");
        rc |= tr_buf_add_json_args(&w->b, w->t, r->args);
    }
    return rc | tr_buf_addc(&w->b, '}');
}

/* One stack node of the "stackFrames" key: "id":{"name","category","parent",...}. */
static int write_stack_frame(chrome_w *w, uint32_t stack, int first)
{
    const tr_frame *f = tr_frame_get(w->t, tr_stack_frame(w->t, stack));
    uint32_t parent = tr_stack_parent(w->t, stack);
    int rc = first ? LIT(&w->b, "\n\"") : LIT(&w->b, ",\n\"");
    rc |= tr_buf_add_int(&w->b, stack);
    rc |= LIT(&w->b, "\":{\"name\":");
    rc |= add_str(&w->b, w->t, f ? f->function : 0);
    if (f && f->module) {
        rc |= LIT(&w->b, ",\"category\":");
        rc |= add_str(&w->b, w->t, f->module);
    }
    if (parent != 0 && parent != TR_NONE) {
        rc |= LIT(&w->b, ",\"parent\":\"");
        rc |= tr_buf_add_int(&w->b, parent);
        rc |= tr_buf_addc(&w->b, '"');
    }
    if (f && f->file) {
        rc |= LIT(&w->b, ",\"file\":");
        rc |= add_str(&w->b, w->t, f->file);
    }
    if (f && f->line) {
        rc |= LIT(&w->b, ",\"line\":");
        rc |= tr_buf_add_int(&w->b, f->line);
    }
    if (f && f->is_native) rc |= LIT(&w->b, ",\"native\":true");
    return rc | tr_buf_addc(&w->b, '}');
}

/* The "stackFrames" key after the samples: every stack node. */
static int write_stack_frames(chrome_w *w, tr_error *e)
{
    int rc = LIT(&w->b, "],\n\"stackFrames\":{");
    size_t n = tr_stack_count(w->t);
    for (size_t i = 1; i < n && !rc; i++) {
        rc = write_stack_frame(w, (uint32_t)i, i == 1);
        if (!rc && w->b.len >= FLUSH_AT && (rc = flush(w, e)) != TR_OK) return rc;
    }
    return rc | LIT(&w->b, "},");
}

/*
** The "samples" and "stackFrames" keys, when there are samples to write.  A
** sample with an empty stack (an idle thread in a py-spy sequence) is left out:
** Catapult's importer rejects the whole file for a sample without "sf", and the
** folded writer and the flame graph leave it out too, so all totals agree.
*/
static int write_samples(chrome_w *w, const tr_filter *filter, tr_error *e)
{
    int rc = TR_OK, first = 1;
    for (size_t i = 0; i < w->sa.n && !rc; i++) {
        tr_event ev = {TR_EV_SAMPLE, (uint32_t)i, w->sa.ts[i]};
        if (w->sa.stack[i] == 0) continue;
        if (filter && !filter->keep(filter->user, w->t, &ev)) continue;
        if (first) rc = LIT(&w->b, "\n\"samples\":[");
        tr_event_rec r;
        tr_event_rec_get(w->t, &ev, &r);
        rc |= write_sample(w, &r, first);
        first = 0;
        if (!rc && w->b.len >= FLUSH_AT && (rc = flush(w, e)) != TR_OK) return rc;
    }
    if (first) return rc;
    return rc ? rc : write_stack_frames(w, e);
}

/* ---- flows ---- */

/* The event REF points at, if it is a row of a table; 0 when not. */
static int ref_event(const chrome_w *w, tr_ref ref, tr_event *ev, uint32_t *track)
{
    uint32_t row = TR_REF_ROW(ref);
    ev->kind = TR_REF_KIND(ref);
    ev->row = row;
    switch (ev->kind) {
    case TR_EV_SLICE:
        if (row >= w->sl.n) return 0;
        ev->ts = w->sl.ts[row];
        *track = w->sl.track[row];
        return 1;
    case TR_EV_INSTANT:
        if (row >= w->in.n) return 0;
        ev->ts = w->in.ts[row];
        *track = tr_instant_track(&w->in, row);
        return 1;
    case TR_EV_COUNTER:
        if (row >= w->co.n) return 0;
        ev->ts = w->co.ts[row];
        *track = w->co.track[row];
        return 1;
    case TR_EV_SAMPLE:
        if (row >= w->sa.n) return 0;
        ev->ts = w->sa.ts[row];
        *track = w->sa.track[row];
        return 1;
    default:
        return 0;
    }
}

static int end_cmp(const void *a, const void *b)
{
    const flow_end *x = a, *y = b;
    if (x->row != y->row) return x->row < y->row ? -1 : 1;
    if (x->flow != y->flow) return x->flow < y->flow ? -1 : 1;
    return (int)x->is_to - (int)y->is_to;
}

/* Lists the two ends of flow FLOW, at REFS (from, to). */
static int flow_ends_add(chrome_w *w, uint32_t flow, const tr_ref refs[2])
{
    for (int k = 0; k < 2; k++) {
        flow_end *fe = tr_vec_push(&w->ends[TR_REF_KIND(refs[k])]);
        if (!fe) return TR_FATAL;
        fe->row = TR_REF_ROW(refs[k]);
        fe->flow = flow;
        fe->is_to = (uint32_t)k;
    }
    return TR_OK;
}

static void flow_ends_sort(chrome_w *w)
{
    for (int k = 0; k < TR_EV_KIND_COUNT; k++)
        if (w->ends[k].len > 1)
            tr_qsort(w->ends[k].data, w->ends[k].len, sizeof(flow_end), end_cmp);
}

/*
** Sorts V's ends, all on rows under ROWS, by row: a counting sort, stable,
** and they were listed by flow, from before to, so ties keep end_cmp's order
** (qsort took ~12 ms for the 320 k ends of 8 Kineto inputs).
*/
static int flow_ends_by_row(tr_vec *v, size_t rows)
{
    if (v->len < 2) return TR_OK;
    if (v->len > UINT32_MAX) {
        tr_qsort(v->data, v->len, sizeof(flow_end), end_cmp);
        return TR_OK;
    }
    uint32_t *at = tr_calloc(rows + 1, sizeof *at);
    flow_end *sorted = tr_malloc(v->len * sizeof *sorted);
    if (!at || !sorted) {
        tr_free(at);
        tr_free(sorted);
        return TR_FATAL;
    }
    const flow_end *fe = v->data;
    for (size_t i = 0; i < v->len; i++) at[fe[i].row + 1]++;
    for (size_t r = 1; r <= rows; r++) at[r] += at[r - 1];
    for (size_t i = 0; i < v->len; i++) sorted[at[fe[i].row]++] = fe[i];
    memcpy(v->data, sorted, v->len * sizeof *sorted);
    tr_free(at);
    tr_free(sorted);
    return TR_OK;
}

/* Lists the ends of every flow whose two events are written, by table and row. */
static int flows_prepare(chrome_w *w, const tr_filter *filter)
{
    size_t n = tr_flow_count(w->t);
    for (size_t i = 0; i < n; i++) {
        tr_flow fl;
        const tr_flow *f = &fl;
        tr_flow_get(w->t, (uint32_t)i, &fl);
        tr_event ev[2];
        uint32_t track;
        if (!ref_event(w, f->from, &ev[0], &track) || !ref_event(w, f->to, &ev[1], &track))
            continue;
        if (filter &&
            !(filter->keep(filter->user, w->t, &ev[0]) && filter->keep(filter->user, w->t, &ev[1])))
            continue;
        if (flow_ends_add(w, (uint32_t)i, (tr_ref[2]){f->from, f->to})) return TR_FATAL;
    }
    const size_t rows[TR_EV_KIND_COUNT] = {[TR_EV_SLICE] = w->sl.n,
                                           [TR_EV_INSTANT] = w->in.n,
                                           [TR_EV_COUNTER] = w->co.n,
                                           [TR_EV_SAMPLE] = w->sa.n};
    for (int k = 0; k < TR_EV_KIND_COUNT; k++)
        if (flow_ends_by_row(&w->ends[k], rows[k]) != TR_OK) return TR_FATAL;
    return TR_OK;
}

/*
** A stream's flows: their ends name events by seq (an end that names no
** event has kind TR_EV_KIND_COUNT), found by ends_find as the events come.
** Samples are written under their own key after the other events, so ends
** on them are left out (no streaming reader makes flows to samples).
*/
static int flows_prepare_stream(chrome_w *w, const tr_flow *f, size_t n)
{
    w->flows = f;
    for (size_t i = 0; i < n; i++) {
        if (TR_REF_KIND(f[i].from) >= TR_EV_SAMPLE || TR_REF_KIND(f[i].to) >= TR_EV_SAMPLE)
            continue;
        if (flow_ends_add(w, (uint32_t)i, (tr_ref[2]){f[i].from, f[i].to})) return TR_FATAL;
    }
    flow_ends_sort(w);
    return TR_OK;
}

/* The first of V's flow ends (sorted by row) on row ROW or after. */
static size_t ends_from(const tr_vec *v, size_t row)
{
    const flow_end *fe = v->data;
    size_t lo = 0, hi = v->len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (fe[mid].row < row)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/*
** Where the ends on the event of seq SEQ start in V (sorted by seq), or
** V->len: at *NEXT when the events come in seq order, as a log's do, else
** found by bisection.
*/
static size_t ends_find(const tr_vec *v, uint32_t seq, const size_t *next)
{
    const flow_end *fe = v->data;
    if (*next < v->len && fe[*next].row == seq && (*next == 0 || fe[*next - 1].row < seq))
        return *next;
    size_t lo = ends_from(v, seq);
    return lo < v->len && fe[lo].row == seq ? lo : v->len;
}

/*
** Writes the flow ends at ENDS[kind][*I ..] whose row is KEY, just after
** event R (the ends sit on it: their time and track are its); *I moves past
** them.
*/
static int write_flow_ends(chrome_w *w, const tr_event_rec *r, uint32_t key, size_t *i)
{
    const tr_vec *v = &w->ends[r->kind];
    int rc = TR_OK;
    for (; *i < v->len; ++*i) {
        const flow_end *fe = &TR_VEC_AT(v, flow_end, *i);
        if (fe->row > key) break;
        if (fe->row < key) continue; /* the filter dropped it after all */
        tr_flow fl;
        const tr_flow *f = w->flows ? &w->flows[fe->flow] : &fl;
        if (!w->flows) tr_flow_get(w->t, fe->flow, &fl);
        rc |= event_open(w);
        rc |= add_name_cat(w, f->name, f->cat);
        rc |= fe->is_to ? LIT(&w->b, ",\"ph\":\"f\",\"bp\":\"e\",\"id\":")
                        : LIT(&w->b, ",\"ph\":\"s\",\"id\":");
        /* The row, not the source's id: ids from different inputs may clash. */
        rc |= tr_buf_add_int(&w->b, (int64_t)fe->flow + 1);
        rc |= LIT(&w->b, ",\"ts\":");
        rc |= add_ts(&w->b, r->ts);
        rc |= add_pid_tid(w, r->track);
        rc |= tr_buf_addc(&w->b, '}');
    }
    return rc;
}

/* ---- metadata ---- */

/*
** One "M" event: {"name":WHAT,"ph":"M","pid":P,"tid":T,"args":{ -- the
** caller closes it; P of PROCESS, T of TRACK or 0 when TRACK is TR_NONE.
*/
static int meta_open(chrome_w *w, const char *what, uint32_t process, uint32_t track)
{
    int rc = event_open(w);
    rc |= LIT(&w->b, "\"name\":\"");
    rc |= tr_buf_adds(&w->b, what);
    rc |= LIT(&w->b, "\",\"ph\":\"M\",\"pid\":");
    rc |= add_pid(&w->b, w, process);
    rc |= LIT(&w->b, ",\"tid\":");
    rc |= track == TR_NONE ? tr_buf_addc(&w->b, '0') : add_tid(&w->b, w, track);
    return rc | LIT(&w->b, ",\"args\":{");
}

/* The name of process P as its metadata shows it. */
static int add_process_name(chrome_w *w, const tr_process *p, uint32_t pid)
{
    if (p->name) return add_str(&w->b, w->t, p->name);
    /* Unnamed: say which source pid it was, else which process. */
    int rc = p->pid >= 0 ? LIT(&w->b, "\"pid ") : LIT(&w->b, "\"process ");
    rc |= tr_buf_add_int(&w->b, p->pid >= 0 ? p->pid : (int64_t)pid);
    return rc | tr_buf_addc(&w->b, '"');
}

static int write_process_meta(chrome_w *w, uint32_t id)
{
    const tr_process *p = tr_process_get(w->t, id);
    uint32_t pid = id + 1;
    if (w->group[id] != id) return TR_OK; /* the group's first process speaks for it */
    if (w->grouped[id] && p->rank >= 0) {
        int rc = meta_open(w, "process_name", id, TR_NONE);
        rc |= LIT(&w->b, "\"name\":\"rank ");
        rc |= tr_buf_add_int(&w->b, p->rank);
        rc |= LIT(&w->b, "\",\"rank\":");
        rc |= tr_buf_add_int(&w->b, p->rank);
        return rc | LIT(&w->b, "}}");
    }
    int rc = meta_open(w, "process_name", id, TR_NONE);
    rc |= LIT(&w->b, "\"name\":");
    rc |= add_process_name(w, p, pid);
    if (p->pid >= 0) {
        rc |= LIT(&w->b, ",\"source_pid\":");
        rc |= tr_buf_add_int(&w->b, p->pid);
    }
    if (p->rank >= 0) {
        rc |= LIT(&w->b, ",\"rank\":");
        rc |= tr_buf_add_int(&w->b, p->rank);
    }
    if (p->host) {
        rc |= LIT(&w->b, ",\"host\":");
        rc |= add_str(&w->b, w->t, p->host);
    }
    rc |= LIT(&w->b, "}}");
    if (p->sort_index != 0) {
        rc |= meta_open(w, "process_sort_index", id, TR_NONE);
        rc |= LIT(&w->b, "\"sort_index\":");
        rc |= tr_buf_add_int(&w->b, p->sort_index);
        rc |= LIT(&w->b, "}}");
    }
    if (p->labels) {
        rc |= meta_open(w, "process_labels", id, TR_NONE);
        rc |= LIT(&w->b, "\"labels\":");
        rc |= add_str(&w->b, w->t, p->labels);
        rc |= LIT(&w->b, "}}");
    }
    return rc;
}

static int write_track_meta(chrome_w *w, uint32_t id)
{
    const tr_track *tk = tr_track_get(w->t, id);
    /* counter series and async tracks are named by their events */
    if (tk->kind == TR_TRACK_COUNTER || tk->kind == TR_TRACK_ASYNC) return TR_OK;
    int rc = meta_open(w, "thread_name", tk->process, id);
    rc |= LIT(&w->b, "\"name\":");
    if (w->grouped[tk->process]) {
        /* In a rank's group the lane says which of its processes it is: "proc / lane". */
        tr_buf name;
        tr_buf_init(&name, 0);
        const tr_process *p = tr_process_get(w->t, tk->process);
        size_t n;
        const char *pn = tr_str_get(w->t, p->name, &n);
        if (n)
            rc |= tr_buf_add(&name, pn, n);
        else
            rc |= tr_buf_addf(&name, "pid %lld", (long long)p->pid);
        rc |= tr_buf_adds(&name, " / ");
        pn = tr_str_get(w->t, tk->name, &n);
        if (n)
            rc |= tr_buf_add(&name, pn, n);
        else
            rc |= tr_buf_addf(&name, "%s %lld", tr_track_kind_name(tk->kind), (long long)tk->tid);
        rc |= tr_buf_add_json_str(&w->b, name.p, name.len);
        tr_buf_fini(&name);
    } else if (tk->name) {
        rc |= add_str(&w->b, w->t, tk->name);
    } else {
        /* Unnamed: its kind, and its source tid when it has one. */
        rc |= tr_buf_addc(&w->b, '"');
        rc |= tr_buf_adds(&w->b, tr_track_kind_name(tk->kind));
        if (tk->tid >= 0) {
            rc |= tr_buf_addc(&w->b, ' ');
            rc |= tr_buf_add_int(&w->b, tk->tid);
        }
        rc |= tr_buf_addc(&w->b, '"');
    }
    if (tk->tid >= 0) {
        rc |= LIT(&w->b, ",\"source_tid\":");
        rc |= tr_buf_add_int(&w->b, tk->tid);
    }
    if (tk->kind == TR_TRACK_GPU) rc |= LIT(&w->b, ",\"kind\":\"gpu\"");
    rc |= LIT(&w->b, "}}");
    if (tk->sort_index != 0) {
        rc |= meta_open(w, "thread_sort_index", tk->process, id);
        rc |= LIT(&w->b, "\"sort_index\":");
        rc |= tr_buf_add_int(&w->b, tk->sort_index);
        rc |= LIT(&w->b, "}}");
    }
    return rc;
}

/* The closing part: displayTimeUnit and otherData (generator, inputs, ranks). */
static int write_tail(chrome_w *w)
{
    const tr_trace *t = w->t;
    size_t n_in = tr_input_count(t);
    int rc = TR_OK;
    if (w->kineto && n_in > 0 && tr_input_get(t, 0)->meta) {
        uint32_t set = tr_input_get(t, 0)->meta;
        rc |= chrome_top_members(w, set, 0, tr_args_count(t, set), 0, 1);
    }
    rc |= LIT(&w->b, "\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"generator\":"
                     "\"tracecat " TRACECAT_VERSION "\"");
    if (n_in > 0 && tr_input_get(t, 0)->origin_wall) {
        rc |= LIT(&w->b, ",\"origin_wall\":");
        rc |= add_str(&w->b, t, tr_input_get(t, 0)->origin_wall);
    }
    rc |= LIT(&w->b, ",\n\"inputs\":[");
    for (size_t i = 0; i < n_in; i++) {
        const tr_input_info *in = tr_input_get(t, (uint32_t)i);
        rc |= i ? LIT(&w->b, ",\n{\"path\":") : LIT(&w->b, "\n{\"path\":");
        rc |= add_str(&w->b, t, in->path);
        rc |= LIT(&w->b, ",\"format\":");
        rc |= add_str(&w->b, t, in->format);
        if (in->clock) {
            rc |= LIT(&w->b, ",\"clock\":");
            rc |= add_str(&w->b, t, in->clock);
        }
        if (in->origin_wall) {
            rc |= LIT(&w->b, ",\"origin_wall\":");
            rc |= add_str(&w->b, t, in->origin_wall);
        }
        if (in->rank >= 0) {
            rc |= LIT(&w->b, ",\"rank\":");
            rc |= tr_buf_add_int(&w->b, in->rank);
        }
        if (in->placed != TR_PLACED_AS_IS) {
            rc |= LIT(&w->b, ",\"placed\":\"");
            rc |= tr_buf_adds(&w->b, tr_align_how_name(in->placed));
            rc |= LIT(&w->b, "\",\"offset_ns\":");
            rc |= tr_buf_add_int(&w->b, in->offset_ns);
        }
        if (in->meta) {
            rc |= LIT(&w->b, ",\"meta\":");
            rc |= tr_buf_add_json_args(&w->b, t, in->meta);
        }
        rc |= tr_buf_addc(&w->b, '}');
    }
    rc |= LIT(&w->b, "],\n\"ranks\":{");
    int first = 1;
    for (size_t i = 0; i < tr_process_count(t); i++) {
        const tr_process *p = tr_process_get(t, (uint32_t)i);
        if (p->rank < 0 || w->group[i] != i) continue;
        rc |= first ? LIT(&w->b, "\"") : LIT(&w->b, ",\"");
        rc |= tr_buf_add_int(&w->b, (int64_t)i + 1);
        rc |= LIT(&w->b, "\":");
        rc |= tr_buf_add_int(&w->b, p->rank);
        first = 0;
    }
    return rc | LIT(&w->b, "}}}\n");
}

/* The opening: the processes' and tracks' metadata events. */
static int write_head(chrome_w *w, tr_error *e)
{
    const tr_trace *t = w->t;
    int rc = LIT(&w->b, "{\"traceEvents\":[");
    for (size_t i = 0; i < tr_process_count(t) && !rc; i++) {
        rc = write_process_meta(w, (uint32_t)i);
        if (!rc && w->b.len >= FLUSH_AT && (rc = flush(w, e)) != TR_OK) return rc;
    }
    for (size_t i = 0; i < tr_track_count(t) && !rc; i++) {
        rc = write_track_meta(w, (uint32_t)i);
        if (!rc && w->b.len >= FLUSH_AT && (rc = flush(w, e)) != TR_OK) return rc;
    }
    return rc ? tr_error_nomem(e) : TR_OK;
}

/* One event of traceEvents; samples go to the "samples" key. */
static int write_event(chrome_w *w, const tr_event_rec *r)
{
    switch (r->kind) {
    case TR_EV_SLICE:
        return write_slice(w, r);
    case TR_EV_INSTANT:
        return write_instant(w, r);
    case TR_EV_COUNTER:
        return write_counter(w, r);
    default:
        return TR_OK;
    }
}

/*
** The events of IT (and their flow ends) before time UNTIL, or to the end
** when LAST; with FLUSH, the text goes out every FLUSH_AT bytes.
*/
static int write_span(chrome_w *w, tr_iter *it, int64_t until, int last, const tr_filter *filter,
                      int flush_too, tr_error *e)
{
    const tr_trace *t = w->t;
    tr_event ev;
    tr_event_rec r;
    int rc = TR_OK;
    while (!rc && tr_iter_next(it, &ev) && (last || ev.ts < until)) {
        if (filter && !filter->keep(filter->user, t, &ev)) continue;
        tr_event_rec_get(t, &ev, &r);
        rc = write_event(w, &r);
        if (!rc && w->ends[ev.kind].len) rc = write_flow_ends(w, &r, ev.row, &w->next_end[ev.kind]);
        if (rc) return tr_error_nomem(e);
        if (flush_too && w->b.len >= FLUSH_AT) rc = flush(w, e);
    }
    return rc;
}

/* ---- events on several threads ----
**
** traceEvents is cut by time into spans of about SPAN_EVENTS events, which
** the pool's threads format apart, each into a buffer of its own, and write
** in order.  Every event before a cut comes before it in tr_iter's order,
** whatever its table (tr_iter_seek), and a span's flow ends start at the
** first on its first row, so the bytes are those one thread writes.  A span
** formatted before its turn is parked, and the thread goes on with the next
** one: the thread whose turn it is writes the parked spans that follow its
** own.  Writing is a third of the work, so threads that waited for their
** turn lost a tenth of the wall time.  At most PARKED spans a thread wait;
** past them a thread waits for its turn, for those before it, which were
** started before it.
*/
#define SPAN_EVENTS 4096
#define PARKED      2

/* A span formatted before its turn. */
typedef struct parked {
    int ready;
    int rc; /* the formatting's */
    size_t events;
    tr_buf b;
    tr_error err;
} parked;

typedef struct spans {
    chrome_w *w;
    const tr_filter *filter;
    int64_t *cut; /* span J: the events at cut[J] or after, before cut[J + 1] */
    size_t n;
    pthread_mutex_t lock;
    pthread_cond_t turn;
    size_t written; /* the spans written */
    int failed;     /* a span failed: the ones after it write nothing */
    size_t failed_span;
    tr_error err;
    int any;       /* an event was written before: a span's first comma stays */
    parked *park;  /* span J waits in park[J % n_park] */
    size_t n_park; /* PARKED a thread */
    tr_buf *spare; /* buffers written out, for the next spans */
    size_t n_spare;
} spans;

/* Span J's text into W->b, its events counted from 1 (each starts with a comma). */
static int span_format(spans *s, size_t j, chrome_w *w, tr_error *e)
{
    tr_iter it;
    tr_iter_init(&it, w->t);
    tr_iter_seek(&it, s->cut[j]);
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) w->next_end[k] = ends_from(&w->ends[k], it.pos[k]);
    w->events = 1;
    return write_span(w, &it, j + 1 < s->n ? s->cut[j + 1] : 0, j + 1 == s->n, s->filter, 0, e);
}

/*
** Span J's text P->b out, its turn come (S's lock not held); returns with the
** lock held, the buffer back among the spares and the turn passed on.
*/
static void span_out(spans *s, size_t j, parked *p)
{
    size_t skip = !s->any && p->b.len; /* no event before: the first one has no comma */
    if (p->rc == TR_OK) p->rc = tr_output_write(s->w->out, p->b.p + skip, p->b.len - skip, &p->err);
    s->any |= p->events > 1;
    s->w->events += p->events - 1;
    tr_buf_reset(&p->b);
    pthread_mutex_lock(&s->lock);
    if (p->rc != TR_OK && !s->failed) {
        s->failed = 1;
        s->failed_span = j;
        s->err = p->err;
    }
    s->spare[s->n_spare++] = p->b;
    s->written = j + 1;
    pthread_cond_broadcast(&s->turn);
}

/*
** Span J, formatted into P: written when its turn has come, with the
** parked ones after it; else parked, when there is room; else written
** once its turn comes.  Nothing is written after a failed span.
*/
static int span_done(spans *s, size_t j, parked *p)
{
    pthread_mutex_lock(&s->lock);
    while (s->written != j && j - s->written >= s->n_park && !(s->failed && s->failed_span < j))
        pthread_cond_wait(&s->turn, &s->lock);
    if (s->failed && s->failed_span < j) {
        tr_buf_reset(&p->b);
        s->spare[s->n_spare++] = p->b;
        pthread_mutex_unlock(&s->lock);
        return TR_FAIL;
    }
    if (s->written != j) {
        parked *slot = &s->park[j % s->n_park];
        *slot = *p;
        slot->ready = 1;
        pthread_mutex_unlock(&s->lock);
        return TR_OK;
    }
    /* only the thread whose turn it is runs from here to the next turn */
    pthread_mutex_unlock(&s->lock);
    int rc = TR_OK;
    for (;;) {
        span_out(s, j, p);
        if (p->rc != TR_OK && rc == TR_OK) rc = p->rc;
        parked *next = &s->park[(j + 1) % s->n_park];
        if (s->failed || j + 1 == s->n || !next->ready) break;
        *p = *next;
        next->ready = 0;
        j++;
        pthread_mutex_unlock(&s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static int span_job(void *user, size_t j)
{
    spans *s = user;
    chrome_w w = *s->w; /* the trace, ids and flow ends are shared and only read */
    pthread_mutex_lock(&s->lock);
    if (s->n_spare)
        w.b = s->spare[--s->n_spare];
    else
        tr_buf_init(&w.b, 0);
    pthread_mutex_unlock(&s->lock);
    parked p = {.rc = TR_OK};
    p.rc = span_format(s, j, &w, &p.err);
    p.b = w.b;
    p.events = w.events;
    return span_done(s, j, &p);
}

/* The cuts: evenly through the times of the largest table, which are in order. */
static int span_cuts(spans *s, const chrome_w *w)
{
    const tr_slices *sl = &w->sl;
    const int64_t *ts = sl->ts;
    size_t big = sl->n, total = sl->n + w->in.n + w->co.n + w->sa.n;
    if (w->in.n > big) big = w->in.n, ts = w->in.ts;
    if (w->co.n > big) big = w->co.n, ts = w->co.ts;
    if (w->sa.n > big) big = w->sa.n, ts = w->sa.ts;
    s->n = total / SPAN_EVENTS + 1;
    if (!(s->cut = tr_malloc(s->n * sizeof *s->cut))) return TR_FATAL;
    s->cut[0] = INT64_MIN;
    for (size_t j = 1; j < s->n; j++) s->cut[j] = ts[(size_t)((double)j / (double)s->n * big)];
    return TR_OK;
}

/* Every event of traceEvents on THREADS threads; W's buffer is written out first. */
static int write_spans(chrome_w *w, const tr_filter *filter, int threads, tr_error *e)
{
    spans s = {.w = w, .filter = filter, .any = w->events > 0, .n_park = PARKED * (size_t)threads};
    int rc = flush(w, e);
    if (rc) return rc;
    s.spare = tr_calloc(s.n_park + (size_t)threads, sizeof *s.spare);
    s.park = tr_calloc(s.n_park, sizeof *s.park);
    if (!s.spare || !s.park || span_cuts(&s, w)) {
        tr_free(s.spare);
        tr_free(s.park);
        return tr_error_nomem(e);
    }
    pthread_mutex_init(&s.lock, NULL);
    pthread_cond_init(&s.turn, NULL);
    tr_pool_run(threads, s.n, span_job, &s);
    pthread_cond_destroy(&s.turn);
    pthread_mutex_destroy(&s.lock);
    for (size_t i = 0; i < s.n_spare; i++) tr_buf_fini(&s.spare[i]);
    for (size_t i = 0; i < s.n_park; i++)
        if (s.park[i].ready) tr_buf_fini(&s.park[i].b); /* after a failed span */
    tr_free(s.spare);
    tr_free(s.park);
    tr_free(s.cut);
    if (s.failed) *e = s.err;
    return s.failed ? TR_FAIL : TR_OK;
}

static int write_events(chrome_w *w, const tr_filter *filter, int threads, tr_error *e)
{
    int rc = write_head(w, e);
    if (rc) return rc;
    size_t n = w->sl.n + w->in.n + w->co.n + w->sa.n;
    threads = tr_pool_threads(threads, n / SPAN_EVENTS + 1);
    if (threads > 1) {
        rc = write_spans(w, filter, threads, e);
    } else {
        tr_iter it;
        tr_iter_init(&it, w->t);
        rc = write_span(w, &it, 0, 1, filter, 1, e);
    }
    if (rc) return rc;
    rc = LIT(&w->b, "\n],");
    if (!rc) rc = write_samples(w, filter, e);
    if (!rc) rc = write_tail(w);
    if (rc) return tr_error_nomem(e);
    return flush(w, e);
}

/* W's views of trace T's tables, and no flow ends yet: what flows_prepare reads and fills. */
static void chrome_tables(chrome_w *w, const tr_trace *t)
{
    w->t = t;
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) tr_vec_init(&w->ends[k], sizeof(flow_end));
    tr_trace_slices(t, &w->sl);
    tr_trace_instants(t, &w->in);
    tr_trace_counters(t, &w->co);
    tr_trace_samples(t, &w->sa);
}

/*
** Sets W up to write its trace (chrome_tables): the process groups, the
** tracks' ids, the buffer.  The flow ends are not touched.
*/
static int chrome_setup(chrome_w *w, tr_output *out, int kineto, tr_error *e)
{
    const tr_trace *t = w->t;
    w->kineto = kineto;
    w->out = out;
    tr_buf_init(&w->b, 0);
    tr_buf_init(&w->ids, 0);
    size_t n_proc = tr_process_count(t);
    w->group = tr_malloc((n_proc ? n_proc : 1) * sizeof *w->group);
    w->grouped = tr_calloc(n_proc ? n_proc : 1, 1);
    if (w->group && w->grouped) {
        tr_process_groups(t, w->group);
        for (size_t i = 0; i < n_proc; i++)
            if (w->group[i] != i) w->grouped[i] = w->grouped[w->group[i]] = 1;
    }
    if (!w->group || !w->grouped || tr_buf_grow(&w->b, FLUSH_AT + 4096) != TR_OK ||
        ids_prepare(w) != TR_OK)
        return tr_error_nomem(e);
    return kineto ? chrome_kineto_check(w, e) : TR_OK;
}

static void chrome_free(chrome_w *w)
{
    tr_buf_fini(&w->b);
    tr_buf_fini(&w->ids);
    tr_free(w->id_end);
    tr_free(w->group);
    tr_free(w->grouped);
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) tr_vec_fini(&w->ends[k]);
}

/* flows_prepare as a job: run beside chrome_setup, whose process groups walk every event. */
typedef struct flows_job {
    chrome_w *w;
    const tr_filter *filter;
    int rc;
} flows_job;

static int prepare_flows(void *user, size_t job)
{
    (void)job;
    flows_job *f = user;
    f->rc = flows_prepare(f->w, f->filter);
    return f->rc;
}

static int chrome_write(tr_write *run, const tr_trace *t, int kineto, tr_error *e)
{
    chrome_w w;
    memset(&w, 0, sizeof w);
    const tr_filter *filter = run->opts->filter;
    chrome_tables(&w, t);
    flows_job fj = {&w, filter, TR_OK};
    tr_pool_task task = {0};
    if (tr_pool_threads(run->opts->threads, 2) > 1)
        tr_pool_spawn(&task, prepare_flows, &fj);
    else
        prepare_flows(&fj, 0);
    int rc = chrome_setup(&w, run->out, kineto, e);
    tr_pool_join(&task);
    if (rc == TR_OK && fj.rc != TR_OK) rc = tr_error_nomem(e);
    if (rc == TR_OK) rc = write_events(&w, filter, run->opts->threads, e);
    chrome_free(&w);
    return rc;
}

static int chrome_add(tr_write *run, const tr_trace *t, tr_error *e)
{
    return chrome_write(run, t, 0, e);
}

static int kineto_add(tr_write *run, const tr_trace *t, tr_error *e)
{
    return chrome_write(run, t, 1, e);
}

/* ---- streaming ---- */

/*
** The writer asks for its events after the inputs are read
** (TR_WRITE_EVENTS_AFTER): the flows come first, when the processes and
** tracks are final, so the opening is written then; the events follow in
** the model's order and the samples after them, as the model's writer
** writes them.
*/
static int chrome_begin(tr_write *run, tr_error *e)
{
    run->state = tr_calloc(1, sizeof(chrome_w));
    return run->state ? TR_OK : tr_error_nomem(e);
}

static int stream_flows(tr_write *run, const tr_trace *t, tr_flow *f, size_t n, int kineto,
                        tr_error *e)
{
    chrome_w *w = run->state;
    chrome_tables(w, t);
    int rc = chrome_setup(w, run->out, kineto, e);
    if (rc == TR_OK && flows_prepare_stream(w, f, n) != TR_OK) rc = tr_error_nomem(e);
    return rc == TR_OK ? write_head(w, e) : rc;
}

static int chrome_flows(tr_write *run, const tr_trace *t, tr_flow *f, size_t n, tr_error *e)
{
    return stream_flows(run, t, f, n, 0, e);
}

static int kineto_flows(tr_write *run, const tr_trace *t, tr_flow *f, size_t n, tr_error *e)
{
    return stream_flows(run, t, f, n, 1, e);
}

static int chrome_event(tr_write *run, const tr_trace *t, const tr_event_rec *ev, tr_error *e)
{
    (void)t;
    chrome_w *w = run->state;
    int rc = TR_OK;
    if (ev->kind == TR_EV_SAMPLE) {
        if (ev->stack == 0) return TR_OK; /* see write_samples */
        if (!w->in_samples) rc = LIT(&w->b, "\n],\n\"samples\":[");
        rc |= write_sample(w, ev, !w->in_samples);
        w->in_samples = 1;
    } else {
        rc = write_event(w, ev);
        const tr_vec *v = &w->ends[ev->kind];
        size_t at = v->len ? ends_find(v, (uint32_t)ev->seq, &w->next_end[ev->kind]) : v->len;
        if (!rc && at < v->len) {
            rc = write_flow_ends(w, ev, (uint32_t)ev->seq, &at);
            w->next_end[ev->kind] = at;
        }
    }
    if (rc) return tr_error_nomem(e);
    return w->b.len >= FLUSH_AT ? flush(w, e) : TR_OK;
}

static int chrome_end(tr_write *run, int rc, tr_error *e)
{
    chrome_w *w = run->state;
    if (!w) return rc;
    if (rc == TR_OK && w->t) {
        rc = w->in_samples ? write_stack_frames(w, e) : LIT(&w->b, "\n],");
        if (rc == TR_OK) rc = write_tail(w);
        rc = rc ? tr_error_nomem(e) : flush(w, e);
    }
    chrome_free(w);
    tr_free(w);
    return rc;
}

const tr_writer tr_writer_chrome = {
    .abi = TR_WRITER_ABI,
    .name = "chrome",
    .description = "Chrome Trace Event JSON (chrome://tracing, Perfetto UI)",
    .extensions = "json",
    .binary = 0,
    .flags = TR_WRITE_EVENTS_AFTER,
    .begin = chrome_begin,
    .add = chrome_add,
    .end = chrome_end,
    .event = chrome_event,
    .flows = chrome_flows,
};

const tr_writer tr_writer_kineto = {
    .abi = TR_WRITER_ABI,
    .name = "kineto",
    .description = "Chrome JSON as PyTorch's profiler writes it: the source's pids, tids and "
                   "top-level keys (distributedInfo, deviceProperties, ...)",
    .extensions = "",
    .binary = 0,
    .flags = TR_WRITE_EVENTS_AFTER,
    .begin = chrome_begin,
    .add = kineto_add,
    .end = chrome_end,
    .event = chrome_event,
    .flows = kineto_flows,
};
