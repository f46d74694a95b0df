/*
** chrome.c: Chrome Trace Event JSON (shared/formats/chrome.md), including
** PyTorch profiler (Kineto) traces.
**
** The reader streams: a window of the decompressed input is scanned by a JSON
** scanner of our own, one event object at a time, and each event goes into
** the model before the next is read.  The scan of an event also flattens its
** args, so their text is read once.  An event must fit in the window (up to
** EVENT_MAX); the values of top-level keys that are not events are kept as
** metadata when small and skipped in constant memory when not.  Nothing
** builds a tree of the document.
**
** What each phase becomes:
**   B/E, X       slices on the thread's track (E closes the innermost B), with
**                their thread clock times (tts, tdur)
**   i/I/R        instants with their scope
**   C            one counter track per series
**   M            process/thread names, sort indexes, labels (applied whenever
**                they arrive); other M events go into the input's metadata
**   b/n/e, S/T/p/F  slices and instants on async tracks keyed by cat and id
**   s/t/f, bind_id  flows, bound to slices when the input ends
**   P, samples   samples whose stacks come from stackFrames; V8's Profile and
**                ProfileChunk also unpack their CPU profile into samples
**   N/O/D ( ) v/V c  instants on their thread, with the phase as category
** GPU streams of Kineto traces (kernels, memcpys) become GPU tracks.
*/
#include "chrome_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const cj_const_text[K_COUNT] = {
    [K_NAME] = "name",
    [K_SORT_INDEX] = "sort_index",
    [K_LABELS] = "labels",
    [K_RANK] = "rank",
    [K_BYTES] = "bytes",
    [K_PH] = "ph",
    [K_CAT] = "cat",
    [K_ID] = "id",
    [K_UNFINISHED] = "unfinished",
    [K_STEP] = "step",
    [K_THREAD_STATE] = "thread_state",
    [K_CLOCK] = "Trace Event timestamps (microseconds, as the trace states them)",
    [K_UNBOUND_FLOWS] = "unbound_flow_points",
};

/* ---- processes and threads ---- */

/*
** The model's pid for a pid token: the number, or below -1 for a string.
** Kineto's "" (its trace-wide events) is named EMPTY: a lane reading "" says nothing.
*/
static int pid_of(cj_rd *r, const jtok *t, int64_t *pid, tr_str *s, const char *empty, int *bad)
{
    *s = 0;
    if (t->type == J_NONE) {
        *pid = -1;
        return 0;
    }
    if (t->type == J_STR) {
        *s = t->n ? cj_tok_intern(r, t, bad) : tr_str_internz(r->t, empty);
        *pid = -2 - (int64_t)*s;
        return 0;
    }
    return cj_tok_int(t, pid);
}

static int is_gpu_cat(const cj_rd *r, tr_str cat)
{
    size_t n;
    const char *s = tr_str_get(r->t, cat, &n);
    return (n == 6 && (memcmp(s, "kernel", 6) == 0 || memcmp(s, "Kernel", 6) == 0)) ||
           (n >= 4 && memcmp(s, "gpu_", 4) == 0) || (n >= 6 && memcmp(s, "Memcpy", 6) == 0) ||
           (n >= 6 && memcmp(s, "Memset", 6) == 0);
}

/* Whether S is the thread of the (PID, TID) tokens, as written. */
static inline int thread_seen_is(const thread_seen *s, const jtok *pidt, const jtok *tidt)
{
    return s->thread != TR_NONE && pidt->n == s->pid.n && tidt->n == s->tid.n &&
           pidt->type == s->pid.type && tidt->type == s->tid.type && pidt->type != J_NONE &&
           cj_same_bytes(pidt->p, s->pid.p, pidt->n) &&
           (tidt->type == J_NONE || cj_same_bytes(tidt->p, s->tid.p, tidt->n));
}

/* cj_thread_of past the threads seen lately: out of line, so their test saves no registers. */
static CJ_SLOW uint32_t thread_find(cj_rd *r, const jtok *pidt, const jtok *tidt, int *bad)
{
    int64_t pid, tid;
    tr_str ps, ts;
    if (pid_of(r, pidt, &pid, &ps, "trace-wide (pid \"\")", bad) != 0) return TR_NONE;
    if (tidt->type == J_NONE) {
        tid = pid;
        ts = ps;
    } else if (pid_of(r, tidt, &tid, &ts, "trace-wide (tid \"\")", bad) != 0) {
        return TR_NONE;
    }
    uint64_t a = (uint64_t)pid, b = (uint64_t)tid;
    uint32_t id = cj_map_get(&r->thread_map, a, b);
    if (id == TR_NONE) {
        uint32_t proc = tr_process_intern(r->t, r->input, pid);
        thread_st *th = tr_vec_push(&r->threads);
        if (!th) r->oom = 1;
        if (proc == TR_NONE || !th) return TR_NONE;
        id = (uint32_t)(r->threads.len - 1);
        th->process = proc;
        th->track = TR_NONE;
        th->tid = ts ? -1 : tid;
        th->tid_str = ts;
        tr_vec_init(&th->opens, sizeof(open_slice));
        tr_vec_init(&th->held, sizeof(held_slice));
        tr_process *p = tr_process_at(r->t, proc);
        if (ps && !p->name) p->name = ps;
        if (cj_map_put(&r->thread_map, a, b, id) != TR_OK) {
            r->oom = 1;
            return TR_NONE;
        }
    }
    /* Tokens point into the window, which an event never outlives. */
    r->seen[1] = r->seen[0];
    r->seen[0] = (thread_seen){id, *pidt, *tidt};
    return id;
}

/*
** The thread of (PID, TID) tokens, added when new; TR_NONE when a pid/tid
** is not a number or a string.  A missing tid is the pid (Perfetto).
*/
uint32_t cj_thread_of(cj_rd *r, const jtok *pidt, const jtok *tidt, int *bad)
{
    if (thread_seen_is(&r->seen[0], pidt, tidt)) return r->seen[0].thread;
    if (thread_seen_is(&r->seen[1], pidt, tidt)) return r->seen[1].thread;
    return thread_find(r, pidt, tidt, bad);
}

thread_st *cj_thread_at(cj_rd *r, uint32_t id)
{
    return &TR_VEC_AT(&r->threads, thread_st, id);
}

/* The thread's track, added at its first event; GPU streams (kernels, copies) get GPU tracks. */
uint32_t cj_track_of(cj_rd *r, uint32_t thread, tr_str cat)
{
    thread_st *th = cj_thread_at(r, thread);
    if (th->track != TR_NONE) return th->track;
    /*
    ** Decided by the first event alone (or our writer's hint), never by
    ** metadata, which Kineto writes last: the same file read in another
    ** order must give the same tracks.
    */
    int gpu = th->gpu || is_gpu_cat(r, cat);
    th->track = tr_track_intern(r->t, th->process, gpu ? TR_TRACK_GPU : TR_TRACK_THREAD, th->tid,
                                th->tid_str);
    tr_track *tk = tr_track_at(r->t, th->track);
    if (tk) {
        if (th->name) tk->name = th->name;
        tk->sort_index = th->sort_index;
    }
    return th->track;
}

/* ---- events ---- */

/*
** Event timestamps stay on the trace's own clock (its zero is the origin):
** the first timestamp of a file is not its earliest, a stream cannot shift
** what it has already added, and rank files of one job share that clock, so
** several of them line up in one model as they were recorded.
*/
int64_t cj_rel_ts(cj_rd *r, int64_t ns)
{
    if (!r->have_origin || ns < r->origin) r->origin = ns;
    r->have_origin = 1;
    return ns;
}

/* The thread clock time token TOK states (checked by timed_event), else TR_TIME_NONE. */
static int64_t thread_time(const jtok *tok)
{
    int64_t ns;
    return tok->type != J_NONE && cj_tok_us(tok, &ns) == 0 ? ns : TR_TIME_NONE;
}

/*
** B and E: as Perfetto's importer, the slice's thread time starts at the
** B's tts and lasts to the E's (no E, or a side without tts: no duration).
*/
static int phase_be(cj_rd *r, const cev *ev, char ph, int64_t ts, tr_str name, tr_str cat,
                    uint32_t th, int *bad)
{
    thread_st *t = cj_thread_at(r, th);
    if (ph == 'B') {
        open_slice *o = tr_vec_push(&t->opens);
        if (!o) return tr_error_nomem(r->e);
        o->ts = ts;
        o->name = name;
        o->cat = cat;
        o->off = ev->off;
        o->args = cj_event_args(r, ev, NULL, bad);
        o->bind = cj_bind_key(r, ev, bad);
        o->flow_in = ev->flow_in.type == J_TRUE;
        o->flow_out = ev->flow_out.type == J_TRUE;
        o->tts = thread_time(&ev->tts);
        o->tdur = TR_TIME_NONE;
        return TR_OK;
    }
    if (!t->opens.len)
        return cj_warn_at(r, ev->off, "%s event with no open B on its thread: dropped", "E");
    open_slice o = TR_VEC_AT(&t->opens, open_slice, t->opens.len - 1);
    t->opens.len--;
    int rc = TR_OK;
    if (name && o.name && name != o.name)
        rc = cj_warn_at(r, ev->off, "E event's name differs from its B's (\"%s\"): closed anyway",
                        tr_str_get(r->t, o.name, NULL));
    if (rc == TR_OK && ts < o.ts)
        rc = cj_warn_at(r, ev->off, "E event before its B: %s", "zero-length slice");
    if (rc != TR_OK) return rc;
    int64_t end_tts = thread_time(&ev->tts);
    if (o.tts != TR_TIME_NONE && end_tts != TR_TIME_NONE) o.tdur = end_tts - o.tts;
    uint32_t track = cj_track_of(r, th, o.cat);
    uint32_t args = cj_args_merge(r, o.args, &ev->args, 0, bad);
    held_slice h = {
        o, track, args, (uint32_t)t->opens.len, ts > o.ts ? ts - o.ts : 0, cj_bytes_of(r, args)};
    return cj_hold(r, &t->opens, &t->held, &h);
}

/* The async track of EV: (cat, id, scope[, pid when local]). */
static uint32_t async_of(cj_rd *r, const cev *ev, uint32_t th, tr_str cat, tr_str name, int *bad)
{
    tr_buf_reset(&r->key);
    size_t n;
    const char *s = tr_str_get(r->t, cat, &n);
    tr_buf_add(&r->key, s, n);
    tr_buf_addc(&r->key, '\x1f');
    int local;
    /* cj_id_text uses scratch, key holds the text being built */
    if (cj_id_text(r, ev, &r->key, &local, bad) != 0) return TR_NONE;
    if (ev->scope.type == J_STR) {
        tr_buf_addc(&r->key, '\x1f');
        tr_buf_add(&r->key, ev->scope.p, ev->scope.n);
    }
    uint32_t proc = cj_thread_at(r, th)->process;
    if (local) tr_buf_addf(&r->key, "\x1fpid %u", proc);
    tr_str key = cj_intern(r, r->key.p, r->key.len);
    uint32_t id = cj_map_get(&r->async_map, key, 0);
    if (id != TR_NONE) return id;
    async_st *a = tr_vec_push(&r->asyncs);
    if (!a) {
        r->oom = 1;
        return TR_NONE;
    }
    id = (uint32_t)(r->asyncs.len - 1);
    tr_vec_init(&a->opens, sizeof(open_slice));
    tr_vec_init(&a->held, sizeof(held_slice));
    a->first_ts = INT64_MAX;
    a->first_name = 0;
    a->track = tr_track_intern(r->t, proc, TR_TRACK_ASYNC, -1, key);
    tr_track *tk = tr_track_at(r->t, a->track);
    if (tk) tk->name = name;
    if (cj_map_put(&r->async_map, key, 0, id) == TR_OK) return id;
    r->oom = 1;
    return TR_NONE;
}

static int phase_async(cj_rd *r, const cev *ev, char ph, int64_t ts, tr_str name, tr_str cat,
                       uint32_t th, int *bad)
{
    uint32_t id = async_of(r, ev, th, cat, name, bad);
    if (id == TR_NONE) {
        if (tr_trace_status(r->t, r->e) != TR_OK || cj_lost(r)) return tr_error_nomem(r->e);
        char what[2] = {ph, 0};
        return cj_warn_at(r, ev->off, "async event '%s' without an id: dropped", what);
    }
    async_st *a = &TR_VEC_AT(&r->asyncs, async_st, id);
    if (ph == 'b' || ph == 'S') {
        open_slice *o = tr_vec_push(&a->opens);
        if (!o) return tr_error_nomem(r->e);
        memset(o, 0, sizeof *o);
        o->tts = o->tdur = TR_TIME_NONE; /* not defined for async slices (as in Perfetto) */
        o->ts = ts;
        o->name = name;
        o->cat = cat;
        o->off = ev->off;
        o->args = cj_event_args(r, ev, NULL, bad);
        return TR_OK;
    }
    if (ph == 'e' || ph == 'F') {
        /* the innermost open begin of that name, else the innermost one */
        size_t k = a->opens.len;
        while (k > 0 && name && TR_VEC_AT(&a->opens, open_slice, k - 1).name != name) k--;
        if (k == 0) k = a->opens.len;
        if (k == 0)
            return cj_warn_at(r, ev->off, "async end '%s' without a begin: dropped",
                              ph == 'e' ? "e" : "F");
        open_slice o = TR_VEC_AT(&a->opens, open_slice, k - 1);
        memmove(&TR_VEC_AT(&a->opens, open_slice, k - 1), &TR_VEC_AT(&a->opens, open_slice, k),
                (a->opens.len - k) * sizeof o);
        a->opens.len--;
        uint32_t args = cj_args_merge(r, o.args, &ev->args, 0, bad);
        cj_async_name(a, &o);
        held_slice h = {
            o, a->track, args, (uint32_t)(k - 1), ts > o.ts ? ts - o.ts : 0, cj_bytes_of(r, args)};
        return cj_hold(r, &a->opens, &a->held, &h);
    }
    /* n, T, p: a step or instant on the async track */
    int64_t bytes;
    uint32_t args = cj_event_args(r, ev, &bytes, bad);
    if (tr_instant_add(r->t, a->track, ts, name, cat, TR_SCOPE_THREAD, bytes, args) == TR_NONE)
        return tr_error_nomem(r->e);
    return TR_OK;
}

/* A counter value given as text, read as Perfetto's importer reads it (strtod, all of it), else
 * NaN. */
static double counter_text(const jtok *v)
{
    char tmp[64];
    if (v->n == 0 || v->n >= sizeof tmp) return NAN;
    memcpy(tmp, v->p, v->n);
    tmp[v->n] = '\0';
    char *end;
    double d = strtod(tmp, &end);
    return *end == '\0' ? d : NAN;
}

/*
** The next member of a C event's args (an object): its key and its value
** (J_NONE for a container); from the records the scan of the event made
** (REC, N of them, *I the next), else scanned again at *PP.  0 past the last.
*/
static int counter_member(cj_rd *r, const arg_rec *rec, size_t n, size_t *i, const char **pp,
                          jtok *k, jtok *v)
{
    *k = *v = (jtok){NULL, 0, J_NONE, 0, 0};
    if (rec) {
        while (*i < n && rec[*i].depth) (*i)++; /* an object's members: it is no number */
        if (*i == n) return 0;
        *k = rec[*i].key;
        if (rec[*i].val.type != J_OBJ && rec[*i].val.type != J_ARR) *v = rec[*i].val;
        (*i)++;
        return 1;
    }
    const char *p = *pp;
    if (*p != '"') return 0;
    cj_scan_str(&r->js, &p, k);
    p = cj_jws(cj_jws(p) + 1);
    if (*p == '{' || *p == '[')
        p = cj_value_end(p);
    else
        cj_scan_scalar(&r->js, &p, v);
    p = cj_jws(p);
    if (*p == ',') p = cj_jws(p + 1);
    *pp = p;
    return 1;
}

static int phase_counter(cj_rd *r, const cev *ev, int64_t ts, tr_str name, uint32_t th, int *bad)
{
    if (ev->args.type != J_OBJ)
        return cj_warn_at(r, ev->off, "C event without %s: dropped", "args");
    uint32_t proc = cj_thread_at(r, th)->process;
    const char *p = cj_jws(ev->args.p + 1);
    size_t nn;
    const char *ns = tr_str_get(r->t, name, &nn);
    tr_buf id;
    tr_buf_init(&id, 0);
    int local, has_id = cj_id_text(r, ev, &id, &local, bad) == 0, added = 0, rc = TR_OK;
    /* the members as the scan of the event recorded them (not read again), unless too many */
    const arg_rec *rec = r->recs_over ? NULL : r->recs.data;
    size_t nrec = r->recs.len, i = 0, at = 0;
    jtok k, v;
    for (; rc == TR_OK && counter_member(r, rec, nrec, &i, &p, &k, &v); at++) {
        double value = NAN;
        if (v.type == J_NUM)
            value = cj_tok_double(&v);
        else if (v.type == J_STR)
            value = counter_text(&v);
        size_t kn;
        const char *ks = cj_str_text(&k, &r->scratch, &kn, bad);
        /*
        ** The track this member's position gave in the events of its kind,
        ** when its series is the same: same name and process, no id, and the
        ** key after the name.
        */
        memo_series *c = ev->memo && !has_id && at < MEMO_KEYS ? &ev->memo->series[at] : NULL;
        uint32_t track = TR_NONE;
        if (c && !isnan(value) && c->series && c->name == name && c->process == proc) {
            size_t sn, off = nn ? nn + 1 : 0;
            const char *st = tr_str_get(r->t, c->series, &sn);
            if (sn == off + kn && cj_same_bytes(st + off, ks, kn)) track = c->track;
        }
        if (track == TR_NONE) {
            /* "<name> <key>" (Perfetto), or just the name when the key repeats it */
            tr_buf_reset(&r->key);
            tr_buf_add(&r->key, ns, nn);
            if (has_id) {
                tr_buf_add(&r->key, " id: ", 5);
                tr_buf_add(&r->key, id.p, id.len);
            }
            if (has_id || kn != nn || memcmp(ks, ns, nn) != 0) {
                if (r->key.len) tr_buf_addc(&r->key, ' ');
                tr_buf_add(&r->key, ks, kn);
            }
            if (isnan(value)) {
                rc = cj_warn_at(r, ev->off, "C event: series '%s' is not a number: skipped",
                                r->key.p);
                continue;
            }
            tr_str series = cj_intern_key(r);
            track = tr_track_intern(r->t, proc, TR_TRACK_COUNTER, -1, series);
            if (c && series && track != TR_NONE && (!nn || r->key.len == nn + 1 + kn))
                *c = (memo_series){name, series, proc, track};
        }
        if (tr_counter_add(r->t, track, ts, value) == TR_NONE) rc = tr_error_nomem(r->e);
        added++;
    }
    r->oom |= id.nomem;
    tr_buf_fini(&id);
    if (rc == TR_OK && !added && ev->args.n)
        rc = cj_warn_at(r, ev->off, "C event without numeric %s: dropped", "args");
    return rc;
}

/* Flows v1: s, t, f. */
static int phase_flow(cj_rd *r, const cev *ev, char ph, int64_t ts, tr_str name, tr_str cat,
                      uint32_t th, int *bad)
{
    size_t n;
    tr_buf_reset(&r->key);
    const char *s = tr_str_get(r->t, cat, &n);
    tr_buf_add(&r->key, s, n);
    tr_buf_addc(&r->key, '\x1f');
    s = tr_str_get(r->t, name, &n);
    tr_buf_add(&r->key, s, n);
    tr_buf_addc(&r->key, '\x1f');
    int local;
    if (cj_id_text(r, ev, &r->key, &local, bad) != 0)
        return cj_warn_at(r, ev->off, "flow event '%s' without an id: dropped",
                          ph == 's'   ? "s"
                          : ph == 't' ? "t"
                                      : "f");
    tr_str key = cj_flow_key(r, r->key.p, r->key.len);
    /* s and t bind to the slice they are in (Perfetto's importer); f to the next, or with bp "e" */
    int enclose = ph != 'f' || cj_tok_eq(&ev->bp, "e");
    return cj_flow_point(r, key, name, cat, cj_track_of(r, th, cat), TR_NONE, ts, ph,
                         enclose ? FP_ENCLOSE : 0, ev->off);
}

/* The category that names a phase without a table of its own. */
static const char *odd_phase_cat(char ph)
{
    switch (ph) {
    case 'N':
        return "object_created";
    case 'O':
        return "object_snapshot";
    case 'D':
        return "object_destroyed";
    case '(':
        return "context_enter";
    case ')':
        return "context_leave";
    case 'v':
        return "memory_dump";
    case 'V':
        return "memory_dump_global";
    case 'c':
        return "clock_sync";
    case 'P':
        return "sample_data";
    default:
        return NULL;
    }
}

/* A phase the model has no table for: an instant with its args, phase, cat and id. */
static int phase_odd(cj_rd *r, const cev *ev, char ph, int64_t ts, tr_str name, tr_str cat,
                     uint32_t th, int *bad)
{
    tr_args_begin(r->t);
    cj_add_args(r, &ev->args, 1, bad);
    char phs[2] = {ph, 0};
    tr_args_str(r->t, r->c[K_PH], cj_intern(r, phs, 1));
    if (cat) tr_args_str(r->t, r->c[K_CAT], cat);
    tr_buf_reset(&r->raw);
    int local;
    if (cj_id_text(r, ev, &r->raw, &local, bad) == 0)
        tr_args_str(r->t, r->c[K_ID], cj_intern(r, r->raw.p, r->raw.len));
    uint32_t args = tr_args_end(r->t);
    tr_str label = tr_str_internz(r->t, odd_phase_cat(ph));
    uint32_t track = cj_track_of(r, th, cat);
    if (tr_instant_add(r->t, track, ts, name, label, TR_SCOPE_THREAD, -1, args) == TR_NONE)
        return tr_error_nomem(r->e);
    return TR_OK;
}

/* X: a complete slice, with its flow v2 ends. */
static int phase_x(cj_rd *r, const cev *ev, int64_t ts, int64_t dur, tr_str name, tr_str cat,
                   uint32_t th, int *bad)
{
    /* a skipped event says nothing of its bad bytes */
    if (ev->dur.type == J_NONE || dur < 0) *bad = 0;
    if (ev->dur.type == J_NONE)
        return cj_warn_at(r, ev->off, "X event without %s: skipped", "\"dur\"");
    if (dur < 0) return cj_warn_at(r, ev->off, "X event with a negative %s: skipped", "\"dur\"");
    int64_t bytes;
    uint32_t args = cj_event_args(r, ev, &bytes, bad);
    uint32_t track = cj_track_of(r, th, cat), row;
    open_slice o = {ts,
                    name,
                    cat,
                    args,
                    ev->off,
                    cj_bind_key(r, ev, bad),
                    ev->flow_in.type == J_TRUE,
                    ev->flow_out.type == J_TRUE,
                    thread_time(&ev->tts),
                    thread_time(&ev->tdur)};
    thread_st *t = cj_thread_at(r, th);
    if (t->opens.len && TR_VEC_AT(&t->opens, open_slice, t->opens.len - 1).ts == ts) {
        held_slice h = {o, track, args, (uint32_t)t->opens.len, dur, bytes};
        return cj_hold(r, &t->opens, &t->held, &h);
    }
    int rc = cj_slice_add(r, track, ts, dur, name, cat, bytes, args, o.tts, o.tdur, &row);
    if (rc != TR_OK) return rc;
    return o.bind ? cj_flow_v2(r, &o, track, row) : TR_OK;
}

/* i, I, R: an instant with its scope. */
static int phase_instant(cj_rd *r, const cev *ev, char ph, int64_t ts, tr_str name, tr_str cat,
                         uint32_t th, int *bad)
{
    int scope = TR_SCOPE_THREAD;
    if (ph != 'R' && ev->s.type == J_STR && ev->s.n == 1)
        scope = ev->s.p[0] == 'g'   ? TR_SCOPE_GLOBAL
                : ev->s.p[0] == 'p' ? TR_SCOPE_PROCESS
                                    : TR_SCOPE_THREAD;
    int64_t bytes;
    uint32_t args = cj_event_args(r, ev, &bytes, bad);
    if (tr_instant_add(r->t, cj_track_of(r, th, cat), ts, name, cat, scope, bytes, args) == TR_NONE)
        return tr_error_nomem(r->e);
    return TR_OK;
}

/* T without an id but with a dur: Perfetto's thread state, a slice named by the state. */
static int phase_state(cj_rd *r, const cev *ev, int64_t ts, int64_t dur, tr_str name, tr_str cat,
                       uint32_t th, int *bad)
{
    int64_t bytes;
    uint32_t args = cj_event_args(r, ev, &bytes, bad);
    uint32_t row;
    return cj_slice_add(r, cj_track_of(r, th, cat), ts, dur < 0 ? 0 : dur, name,
                        r->c[K_THREAD_STATE], bytes, args, TR_TIME_NONE, TR_TIME_NONE, &row);
}

/* P: a sample (sf or stack), or an instant that may carry a V8 profile. */
static int phase_sample(cj_rd *r, const cev *ev, int64_t ts, tr_str name, tr_str cat, uint32_t th,
                        int *bad)
{
    int rc;
    if (ev->sf.type != J_NONE || ev->stack.type == J_ARR) {
        if (ev->sf.type != J_NONE && ev->stack.type != J_NONE &&
            (rc = cj_warn_at(r, ev->off, "P event with both %s: sf used", "sf and stack")) != TR_OK)
            return rc;
        uint32_t args = cj_event_args(r, ev, NULL, bad);
        return cj_add_pending_sample(r, cj_track_of(r, th, cat), ts, &ev->sf, &ev->stack, args,
                                     ev->off, bad);
    }
    /* V8 profiles stay instants (their args as they are) and add samples */
    rc = phase_odd(r, ev, 'P', ts, name, cat, th, bad);
    int chunk = cj_tok_eq(&ev->name, "ProfileChunk");
    if (rc == TR_OK && (chunk || cj_tok_eq(&ev->name, "Profile")))
        rc = cj_v8_profile(r, ev, chunk, ts, cat, th, bad);
    return rc;
}

/*
** Whether what memo M keeps from tokens A and B (ev_memo.tok's K and L)
** stands for EV's: each is in M's start (EV's own, unscanned) or in
** neither, and no later member of EV repeated a key.
*/
static inline int memo_fits(const ev_memo *m, const cev *ev, const jtok *a, int k, const jtok *b,
                            int l)
{
    return !ev->dup && (m->tok[k].type != J_NONE || a->type == J_NONE) &&
           (m->tok[l].type != J_NONE || b->type == J_NONE);
}

/* The name and category of EV, interned: as its start's memo keeps them, else kept there. */
static inline void event_strs(cj_rd *r, const cev *ev, tr_str *name, tr_str *cat, int *bad)
{
    ev_memo *m = ev->memo;
    int fits = m && memo_fits(m, ev, &ev->cat, 1, &ev->name, 2);
    if (fits && m->has_strs) {
        *name = m->name;
        *cat = m->cat;
        return;
    }
    int b = 0;
    *name = cj_tok_intern(r, &ev->name, &b);
    *cat = cj_tok_intern(r, &ev->cat, &b);
    *bad |= b;
    /* text that was not valid UTF-8 warns each time; an id of 0 may be a failure */
    if (fits && !b && (*name || ev->name.type != J_STR || !ev->name.n) &&
        (*cat || ev->cat.type != J_STR || !ev->cat.n)) {
        m->name = *name;
        m->cat = *cat;
        m->has_strs = 1;
    }
}

/* The event EV of phase PH at TS on thread TH into the model. */
static int phase(cj_rd *r, const cev *ev, char ph, int64_t ts, int64_t dur, uint32_t th, int *bad)
{
    tr_str name, cat;
    event_strs(r, ev, &name, &cat, bad);
    /* the name predicts the first args key (key_after): events of a name list the same keys */
    r->last_key = name;
    switch (ph) {
    case 'X':
        return phase_x(r, ev, ts, dur, name, cat, th, bad);
    case 'B':
    case 'E':
        return phase_be(r, ev, ph, ts, name, cat, th, bad);
    case 'i':
    case 'I':
    case 'R':
        return phase_instant(r, ev, ph, ts, name, cat, th, bad);
    case 'C':
        return phase_counter(r, ev, ts, name, th, bad);
    case 'T':
        if (ev->id.type == J_NONE && ev->id2.type == J_NONE && ev->dur.type != J_NONE)
            return phase_state(r, ev, ts, dur, name, cat, th, bad);
        /* fall through - Catapult's legacy async step */
    case 'b':
    case 'n':
    case 'e':
    case 'S':
    case 'p':
    case 'F':
        return phase_async(r, ev, ph, ts, name, cat, th, bad);
    case 's':
    case 't':
    case 'f':
        return phase_flow(r, ev, ph, ts, name, cat, th, bad);
    case 'P':
        return phase_sample(r, ev, ts, name, cat, th, bad);
    default:
        return phase_odd(r, ev, ph, ts, name, cat, th, bad);
    }
}

/* An event that is not M: its phase, times and thread checked, then its phase's work. */
static int timed_event(cj_rd *r, const cev *ev, char ph, int *bad)
{
    int64_t ts = 0, dur = 0;
    static const unsigned char known[128] = {
        ['B'] = 1, ['E'] = 1, ['X'] = 1, ['i'] = 1, ['I'] = 1, ['R'] = 1, ['C'] = 1,
        ['b'] = 1, ['n'] = 1, ['e'] = 1, ['S'] = 1, ['T'] = 1, ['p'] = 1, ['F'] = 1,
        ['s'] = 1, ['t'] = 1, ['f'] = 1, ['P'] = 1, ['N'] = 1, ['O'] = 1, ['D'] = 1,
        ['('] = 1, [')'] = 1, ['v'] = 1, ['V'] = 1, ['c'] = 1};
    if ((unsigned char)ph >= 128 || !known[(unsigned char)ph]) {
        char what[2] = {ph, 0};
        return cj_warn_at(r, ev->off, "unknown phase '%s': skipped", what);
    }
    if (ev->ts.type == J_NONE || cj_tok_us(&ev->ts, &ts) != 0)
        return cj_warn_at(r, ev->off, "event without a valid %s: skipped", "\"ts\"");
    if (ev->dur.type != J_NONE && cj_tok_us(&ev->dur, &dur) != 0)
        return cj_warn_at(r, ev->off, "event with an invalid %s: skipped", "\"dur\"");
    if ((ev->tts.type != J_NONE && cj_tok_us(&ev->tts, &(int64_t){0}) != 0) ||
        (ev->tdur.type != J_NONE && cj_tok_us(&ev->tdur, &(int64_t){0}) != 0))
        return cj_warn_at(r, ev->off, "event with an invalid %s: skipped", "\"tts\" or \"tdur\"");
    ev_memo *m = ev->memo;
    int fits = m && memo_fits(m, ev, &ev->pid, 3, &ev->tid, 4), b = 0;
    uint32_t th = fits && m->has_thread ? m->thread : cj_thread_of(r, &ev->pid, &ev->tid, &b);
    if (fits && !b && th != TR_NONE) {
        m->thread = th;
        m->has_thread = 1;
    }
    *bad |= b;
    if (th == TR_NONE) {
        if (tr_trace_status(r->t, r->e) != TR_OK || cj_lost(r)) return tr_error_nomem(r->e);
        *bad = 0; /* a skipped event says nothing of its bad bytes */
        return cj_warn_at(r, ev->off, "event with an invalid %s: skipped", "pid or tid");
    }
    return phase(r, ev, ph, cj_rel_ts(r, ts), dur, th, bad);
}

static int handle_event(cj_rd *r, const cev *ev)
{
    int bad = 0, rc = TR_OK;
    if (ev->ph.type == J_NONE) {
        /* {} ends arrays in JAX traces: skipped without a word */
        if (!ev->keys) return TR_OK;
        return cj_warn_at(r, ev->off, "event without %s: skipped", "\"ph\"");
    }
    if (ev->ph.type != J_STR || ev->ph.n == 0)
        return cj_warn_at(r, ev->off, "event whose %s is not a phase letter: skipped", "\"ph\"");
    if (ev->dup && (rc = cj_warn_at(r, ev->off, "event with a %s: the last value is used",
                                    "duplicate key")) != TR_OK)
        return rc;
    char ph = ev->ph.p[0];
    rc = ph == 'M' ? cj_meta_event(r, ev, &bad) : timed_event(r, ev, ph, &bad);
    if (rc == TR_OK && bad) rc = cj_warn_at(r, ev->off, "%s replaced by U+FFFD", "invalid UTF-8");
    if (rc == TR_OK && tr_trace_status(r->t, r->e) != TR_OK) rc = TR_FATAL;
    return rc;
}

/* ---- the document's structure ---- */

/*
** Up to *BUDGET events of the traceEvents array (or of the document, when it
** is the array); at its ']' (or, for the document, its end) the state moves on.
*/
static int events_step(cj_rd *r, int *budget)
{
    cev ev;
    char c;
    for (; *budget > 0; (*budget)--) {
        /* the next event's '{' in the window (its padding ends the data), or a refill */
        const char *p = cj_blanks(r->buf + r->pos);
        int rc = TR_OK, st = S_OK;
        if (*p == '{') {
            r->pos = (size_t)(p - r->buf);
            c = '{';
        } else if ((rc = cj_win_ws(r, &c)) != TR_OK) {
            return rc;
        }
        if (c == ']' || (!c && r->form_array)) {
            /* an array form without its ']': as viewers do, keep what came */
            r->pos += c == ']';
            r->state = r->form_array ? ST_TAIL : ST_AFTER_KEY;
            return TR_OK;
        }
        if (!c)
            return cj_fail_at(
                r, cj_off_of(r, r->buf + r->pos), TR_E_FORMAT,
                "trace ends inside traceEvents (the object form may not be cut short)");
        if (c != '{')
            return cj_fail_at(r, cj_off_of(r, r->buf + r->pos), TR_E_FORMAT,
                              "invalid trace: an event is not a JSON object");
        uint64_t at = cj_off_of(r, r->buf + r->pos);
        /* an event whole in the window, scanned without the indirect call; else scanned again */
        const char *q = r->buf + r->pos;
        if (cj_unit_event(r, &q, &ev) == S_OK && (size_t)(q - (r->buf + r->pos)) <= EVENT_MAX)
            r->pos = (size_t)(q - r->buf);
        else if ((rc = cj_win_unit(r, cj_unit_event, &ev, EVENT_MAX, &st)) != TR_OK)
            return rc;
        if (st == S_ERR) return cj_fail_at(r, at, TR_E_LIMIT, "event larger than 64 MiB");
        if (st == S_MORE) {
            if (!r->form_array) return cj_fail_at(r, at, TR_E_FORMAT, "trace ends inside an event");
            r->pos = r->end;
            r->state = ST_TAIL;
            return cj_warn_at(r, at, "%s",
                              "trace cut short: its last, incomplete event is dropped");
        }
        if ((rc = handle_event(r, &ev)) != TR_OK) return rc;
        /* "}," as nearly every writer puts it, without a call (the padding ends the data) */
        if (r->buf[r->pos] == ',') {
            r->pos++;
            continue;
        }
        if ((rc = cj_win_ws(r, &c)) != TR_OK) return rc;
        if (c == ',') {
            r->pos++;
        } else if (c != ']' && c != 0) {
            return cj_fail_at(r, cj_off_of(r, r->buf + r->pos), TR_E_FORMAT,
                              "invalid JSON: expected ',' or ']' after an event");
        }
    }
    return TR_OK;
}

/* The key of a stackFrames entry, kept in r->raw (it must survive a refill). */
static int container_key(cj_rd *r)
{
    char c;
    int rc, st, bad = 0;
    jtok key = {NULL, 0, J_NONE, 0, 0};
    if ((rc = cj_win_unit(r, cj_unit_str, &key, EVENT_MAX, &st)) != TR_OK) return rc;
    if (st != S_OK)
        return cj_fail_at(r, cj_off_of(r, r->buf + r->pos), TR_E_FORMAT, "trace ends early");
    tr_str kid = cj_tok_intern(r, &key, &bad);
    if ((rc = cj_win_ws(r, &c)) != TR_OK) return rc;
    if (c != ':')
        return cj_fail_at(r, cj_off_of(r, r->buf + r->pos), TR_E_FORMAT,
                          "invalid JSON: expected ':'");
    r->pos++;
    if ((rc = cj_win_ws(r, &c)) != TR_OK) return rc;
    size_t kn;
    const char *ks = tr_str_get(r->t, kid, &kn);
    tr_buf_reset(&r->raw);
    tr_buf_add(&r->raw, ks, kn);
    return TR_OK;
}

/* One element of the container: a stackFrames entry or a samples entry. */
static int container_elem(cj_rd *r)
{
    int rc, st;
    jtok val;
    if (r->open == '{' && (rc = container_key(r)) != TR_OK) return rc;
    uint64_t at = cj_off_of(r, r->buf + r->pos);
    if ((rc = cj_win_unit(r, cj_unit_value, &val, EVENT_MAX, &st)) != TR_OK) return rc;
    if (st != S_OK)
        return cj_fail_at(r, at, st == S_ERR ? TR_E_LIMIT : TR_E_FORMAT,
                          st == S_ERR ? "value larger than 64 MiB" : "trace ends early");
    if (r->open == '{') {
        jtok id = {r->raw.p, r->raw.len, J_STR, 0, 0};
        if (val.type != J_OBJ)
            return cj_warn_at(r, at, "stackFrames entry is not %s: skipped", "an object");
        return cj_handle_frame(r, &id, &val);
    }
    if (val.type != J_OBJ)
        return cj_warn_at(r, at, "samples entry is not %s: skipped", "an object");
    return cj_handle_sample(r, &val);
}

/* Up to *BUDGET elements of a top-level "samples" array or "stackFrames" object. */
static int container_step(cj_rd *r, int *budget)
{
    char c, close = r->open == '[' ? ']' : '}';
    for (; *budget > 0; (*budget)--) {
        int rc;
        if ((rc = cj_win_ws(r, &c)) != TR_OK) return rc;
        if (c == close) {
            r->pos++;
            r->state = ST_AFTER_KEY;
            return TR_OK;
        }
        if (!c)
            return cj_fail_at(r, cj_off_of(r, r->buf + r->pos), TR_E_FORMAT, "trace ends early");
        if ((rc = container_elem(r)) != TR_OK) return rc;
        if ((rc = cj_win_ws(r, &c)) != TR_OK) return rc;
        if (c == ',')
            r->pos++;
        else if (c != close)
            return cj_fail_at(r, cj_off_of(r, r->buf + r->pos), TR_E_FORMAT,
                              "invalid JSON: expected ','");
    }
    return TR_OK;
}

/* A top-level key and its ':'; *KID its string. */
static int object_key(cj_rd *r, tr_str *kid)
{
    char c;
    int rc, st, bad = 0;
    jtok key = {NULL, 0, J_NONE, 0, 0};
    if ((rc = cj_win_unit(r, cj_unit_str, &key, EVENT_MAX, &st)) != TR_OK) return rc;
    if (st != S_OK)
        return cj_fail_at(r, cj_off_of(r, r->buf + r->pos), st == S_ERR ? TR_E_LIMIT : TR_E_FORMAT,
                          "trace ends inside a key");
    *kid = cj_tok_intern(r, &key, &bad);
    if ((rc = cj_win_ws(r, &c)) != TR_OK) return rc;
    if (c != ':')
        return cj_fail_at(r, cj_off_of(r, r->buf + r->pos), TR_E_FORMAT,
                          "invalid JSON: expected ':'");
    r->pos++;
    return TR_OK;
}

/*
** One member of the top-level object: traceEvents, samples and stackFrames
** are read element by element in the states they start; other values are
** kept as metadata.
*/
static int keys_step(cj_rd *r)
{
    char c;
    int rc;
    if ((rc = cj_win_ws(r, &c)) != TR_OK) return rc;
    if (c == '}') {
        /* {"foo": 1} is JSON, not a trace: nothing to read is not an empty trace. */
        if (!r->has_events)
            return cj_fail_at(r, cj_off_of(r, r->buf + r->pos), TR_E_FORMAT,
                              "not a Chrome trace: a JSON object without traceEvents");
        r->pos++;
        r->state = ST_TAIL;
        return TR_OK;
    }
    if (!c)
        return cj_fail_at(r, cj_off_of(r, r->buf + r->pos), TR_E_FORMAT,
                          "trace ends before its closing '}'");
    if (c != '"')
        return cj_fail_at(r, cj_off_of(r, r->buf + r->pos), TR_E_FORMAT,
                          "invalid JSON: expected a string key");
    tr_str kid = 0;
    if ((rc = object_key(r, &kid)) != TR_OK || (rc = cj_win_ws(r, &c)) != TR_OK) return rc;
    uint64_t at = cj_off_of(r, r->buf + r->pos);
    const char *k = tr_str_get(r->t, kid, NULL);
    r->state = ST_AFTER_KEY;
    if (strcmp(k, "traceEvents") == 0) {
        if (c != '[') return cj_fail_at(r, at, TR_E_FORMAT, "traceEvents is not an array");
        r->pos++;
        r->form_array = 0;
        r->has_events = 1;
        r->state = ST_EVENTS;
    } else if ((strcmp(k, "samples") == 0 && c == '[') ||
               (strcmp(k, "stackFrames") == 0 && c == '{')) {
        r->pos++;
        r->open = c;
        r->has_events = 1;
        r->state = ST_CONTAINER;
    } else if (strcmp(k, "systemTraceEvents") == 0 && c == '{') {
        rc = cj_read_system_object(r);
    } else if (strcmp(k, "systemTraceEvents") == 0) {
        /* ftrace text: not read here, only skipped (Catapult also writes []) */
        if (c != '"' && c != '[')
            rc = cj_warn_at(r, at, "%s is not a string: ignored", "systemTraceEvents");
        if (rc == TR_OK) rc = cj_win_skip_stream(r);
    } else {
        rc = cj_read_meta_value(r, kid);
    }
    return rc;
}

/* After a top-level member: ',' or the closing '}'. */
static int after_key(cj_rd *r)
{
    char c;
    int rc = cj_win_ws(r, &c);
    if (rc != TR_OK) return rc;
    if (c == ',') {
        r->pos++;
    } else if (c != '}') {
        return cj_fail_at(r, cj_off_of(r, r->buf + r->pos), TR_E_FORMAT,
                          c ? "invalid JSON: expected ',' or '}'"
                            : "trace ends before its closing '}'");
    }
    r->state = ST_KEYS;
    return TR_OK;
}

/* The start of the document: '[' (the array form) or '{' (the object form). */
static int doc_start(cj_rd *r)
{
    char c;
    int rc = cj_win_fill(r, 0);
    if (rc != TR_OK) return rc;
    /* a UTF-8 byte order mark is allowed */
    if (r->end >= 3 && memcmp(r->buf, "\xef\xbb\xbf", 3) == 0) r->pos = 3;
    if ((rc = cj_win_ws(r, &c)) != TR_OK) return rc;
    if (c != '[' && c != '{')
        return cj_fail_at(r, cj_off_of(r, r->buf + r->pos), TR_E_FORMAT,
                          "not a Trace Event JSON file: it must start with '{' or '['");
    r->pos++;
    r->form_array = c == '[';
    r->state = c == '[' ? ST_EVENTS : ST_KEYS;
    return TR_OK;
}

/* After the document: anything but blanks is ignored, with a word. */
static int doc_tail(cj_rd *r)
{
    char c;
    int rc = cj_win_ws(r, &c);
    if (rc == TR_OK && c)
        rc = cj_warn_at(r, cj_off_of(r, r->buf + r->pos), "%s",
                        "bytes after the end of the JSON document ignored");
    r->state = ST_OPENS;
    return rc;
}

/* ---- the reader ---- */

/* One step of the reader's state machine, using up *BUDGET records at most. */
static int chrome_step(cj_rd *r, int *budget)
{
    switch (r->state) {
    case ST_START:
        return doc_start(r);
    case ST_EVENTS:
        return events_step(r, budget);
    case ST_KEYS:
        (*budget)--;
        return keys_step(r);
    case ST_AFTER_KEY:
        return after_key(r);
    case ST_CONTAINER:
        return container_step(r, budget);
    case ST_TAIL:
        return doc_tail(r);
    case ST_OPENS:
        r->state = ST_SAMPLES;
        return cj_finish_opens(r);
    case ST_SAMPLES:
        return cj_finish_samples(r, budget);
    default:
        return cj_finish_end(r, budget);
    }
}

static int chrome_next(void *rd, tr_error *e)
{
    cj_rd *r = rd;
    r->e = e;
    int budget = TR_READ_BATCH, rc = TR_OK;
    while (rc == TR_OK && budget > 0 && r->state != ST_DONE) rc = chrome_step(r, &budget);
    if (rc == TR_OK && cj_lost(r)) rc = tr_error_nomem(e);
    if (rc != TR_OK) return rc;
    return r->state == ST_DONE ? TR_END : TR_OK;
}

static void chrome_close(void *rd)
{
    cj_rd *r = rd;
    if (!r) return;
    for (size_t i = 0; i < r->threads.len; i++) {
        tr_vec_fini(&cj_thread_at(r, (uint32_t)i)->opens);
        tr_vec_fini(&cj_thread_at(r, (uint32_t)i)->held);
    }
    for (size_t i = 0; i < r->asyncs.len; i++) {
        tr_vec_fini(&TR_VEC_AT(&r->asyncs, async_st, i).opens);
        tr_vec_fini(&TR_VEC_AT(&r->asyncs, async_st, i).held);
    }
    cj_bind_close(r);
    tr_vec_fini(&r->threads);
    tr_vec_fini(&r->asyncs);
    tr_vec_fini(&r->flows);
    cj_flow_keys_fini(r);
    tr_vec_fini(&r->samples);
    tr_vec_fini(&r->frames);
    tr_vec_fini(&r->profs);
    tr_vec_fini(&r->meta);
    tr_vec_fini(&r->recs);
    cj_map_fini(&r->thread_map);
    cj_map_fini(&r->async_map);
    cj_map_fini(&r->frame_map);
    cj_map_fini(&r->prof_map);
    cj_map_fini(&r->node_map);
    tr_buf_fini(&r->skip.stack);
    tr_buf_fini(&r->scratch);
    tr_buf_fini(&r->key);
    tr_buf_fini(&r->raw);
    tr_free(r->buf);
    tr_free(r);
}

/*
** Input bytes a slice, counter, arg value, set and flow take in a Kineto
** trace (pretty-printed, with its args; a flow, two points, a kernel
** launch).  Other Chrome traces spend more a slice, which leaves room
** unused.  It sizes the model up front (tr_sink_expect).
*/
static const tr_expect cj_bytes_per = {{330, 0, 1000, 0}, 55, 300, 0, 2000, 0, 0};
/* Without args (tr_read_opts.no_args) the events of a Kineto trace make no set. */
static const tr_expect cj_bytes_per_no_args = {{330, 0, 1000, 0}, 0, 0, 0, 2000, 0, 0};

static int chrome_open(void **rd, const tr_read_ctx *c, tr_error *e)
{
    cj_rd *r = tr_calloc(1, sizeof *r);
    *rd = r;
    if (!r) return tr_error_nomem(e);
    tr_trace *t = tr_sink_trace(c->sink);
    r->t = t;
    r->in = c->in;
    r->e = e;
    r->diag = c->opts ? c->opts->diag : NULL;
    r->input = c->input;
    r->sink = c->sink;
    r->forgets = c->sink->forget;
    r->rank = -1;
    r->base_ns = INT64_MIN;
    r->seen[0].thread = r->seen[1].thread = TR_NONE;
    tr_slices sl;
    tr_trace_slices(t, &sl);
    r->first_slice = (uint32_t)sl.n;
    for (int i = 0; i < K_COUNT; i++) r->c[i] = tr_str_internz(t, cj_const_text[i]);
    tr_buf_init(&r->skip.stack, 0);
    tr_buf_init(&r->scratch, 0);
    tr_buf_init(&r->key, 0);
    tr_buf_init(&r->raw, 0);
    tr_vec_init(&r->threads, sizeof(thread_st));
    tr_vec_init(&r->asyncs, sizeof(async_st));
    tr_vec_init(&r->flows, sizeof(flow_pt));
    r->flow_keys = tr_trace_new();
    tr_vec_init(&r->idents, sizeof(uint64_t));
    tr_vec_init(&r->ident_of, sizeof(uint32_t));
    tr_vec_init(&r->pages, sizeof(tr_str *));
    tr_vec_init(&r->samples, sizeof(pend_sample));
    tr_vec_init(&r->frames, sizeof(sframe));
    tr_vec_init(&r->profs, sizeof(v8_prof));
    tr_vec_init(&r->meta, sizeof(meta_kv));
    tr_vec_init(&r->recs, sizeof(arg_rec));
    tr_vec_init(&r->group, sizeof(flow_pt));
    r->no_args = c->opts && c->opts->no_args;
    tr_sink_expect(c->sink, tr_input_size(c->in),
                   r->no_args ? &cj_bytes_per_no_args : &cj_bytes_per);
    /* two points a flow; a reader that forgets keeps only those that made none */
    if (!r->forgets) (void)tr_vec_reserve(&r->flows, (size_t)(tr_input_size(c->in) / 1000));
    /* identity 0 is none: an empty text */
    uint64_t *none = tr_vec_push(&r->idents);
    if (none) *none = IDENT_TEXT << 60;
    r->buf = tr_malloc(WINDOW_INIT);
    r->cap = WINDOW_INIT;
    if (!r->buf || !r->flow_keys || !none || tr_trace_status(t, NULL) != TR_OK)
        return tr_error_nomem(e);
    return cj_bind_open(r, c->opts);
}

/* ---- probing ---- */

/*
** '{' or '[' first (after a BOM and blanks), then, in what the probe sees,
** the marks of a trace: "traceEvents", or "ph" with "ts"/"name" in an array.
*/
static int chrome_probe(const tr_peek *pk)
{
    if (!pk->head) return 0;
    const char *p = (const char *)pk->head;
    size_t n = pk->head_len, i = 0;
    if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) i = 3;
    while (i < n && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t')) i++;
    if (i >= n || (p[i] != '{' && p[i] != '[')) return 0;
    int has_ph = 0, has_events = 0;
    for (size_t k = i; k + 4 <= n; k++) {
        if (p[k] != '"') continue;
        if (memcmp(p + k, "\"ph\"", 4) == 0) has_ph = 1;
        if (k + 13 <= n && memcmp(p + k, "\"traceEvents\"", 13) == 0) has_events = 1;
    }
    if (has_events) return 95;
    if (has_ph) return 90;
    /* an array that starts with an object: a trace cut very short, or with long args first */
    size_t j = i + 1;
    while (j < n && (p[j] == ' ' || p[j] == '\n' || p[j] == '\r' || p[j] == '\t')) j++;
    if (p[i] == '[' && (j == n || p[j] == '{' || p[j] == ']')) return 40;
    return p[i] == '{' && (j < n && p[j] == '"') ? 30 : 0;
}

const tr_reader tr_reader_chrome = {
    .abi = TR_READER_ABI,
    .name = "chrome",
    .description =
        "Chrome Trace Event JSON (chrome://tracing, Perfetto, PyTorch profiler / Kineto)",
    .extensions = "json",
    .probe = chrome_probe,
    .open = chrome_open,
    .next = chrome_next,
    .close = chrome_close,
    .streams = 1,
    .thread_time = 1,
};
