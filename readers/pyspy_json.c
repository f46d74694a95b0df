/*
** pyspy_json.c: py-spy's JSON outputs, read with jansson.
**
** `py-spy dump --json`: an array with one object per thread (pid, thread_id,
** thread_name, os_thread_id, active, owns_gil, frames innermost first with
** name, filename, short_filename, module, line and --locals).  One sample per
** thread at time 0, as for a text dump.
**
** `py-spy record -f speedscope` (and other speedscope files): shared frames
** and one profile per thread.  A "sampled" profile's samples are root-first
** frame lists, each lasting its weight, so sample i is at the sum of the
** weights before it; consecutive samples give slices by the open-stacks rule
** unless tr_read_opts.no_stack_slices.  An "evented" profile's open/close
** events are slices themselves.  py-spy names a profile 'Thread TID "NAME"'
** or 'Process PID Thread TID "NAME"'; other names become the track's name.
**
** Both are documents, not streams: the whole input is parsed at once when
** the reader opens (these files are small next to dump sequences; a cap
** guards the memory), then each call of next turns up to TR_READ_BATCH
** threads, samples or events of it into the model.
*/
#include "pyspy_impl.h"

#include "tr_stack_slices.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PJ_MAX ((size_t)1 << 30) /* 1 GiB of JSON is past what these tools write */

/* The speedscope profile being read. */
typedef struct pj_prof {
    int started; /* its track and arrays are set */
    json_t *p;
    uint32_t track;
    int64_t unit;
    int64_t at;      /* sampled: the time of the next sample; evented: of the last event (ns) */
    json_t *samples; /* sampled: the stacks, and how long each lasts */
    json_t *weights;
    json_t *events; /* evented */
    tr_str cat;
} pj_prof;

typedef struct pj_rd {
    tr_trace *t;
    tr_input *in;
    tr_diag *diag;
    uint32_t input;
    uint64_t warnings;
    tr_stack_slicer *slicer;
    tr_buf scratch;
    tr_vec frames; /* uint32_t: evented, the open frames */
    tr_vec rows;   /* uint32_t: evented, their slices, open until closed */

    json_t *root;
    size_t item; /* the dump's next thread, or speedscope's current profile */
    size_t k;    /* the profile's next sample or event */
    pj_prof prof;
    json_t *shared; /* speedscope: shared.frames */
    uint32_t *ids;  /* ... as frame ids, TR_NONE until made */
} pj_rd;

static int pj_warn(pj_rd *r, tr_error *e, const char *what)
{
    tr_loc loc = {tr_input_name(r->in), 0, 0, 0};
    r->warnings++;
    return tr_warnf(r->diag, e, &loc, "%s", what) == TR_FAIL ? TR_FAIL : TR_OK;
}

/* A warning about event K of speedscope profile r->item. */
static int pj_warn_event(pj_rd *r, tr_error *e, const char *what)
{
    char msg[192];
    snprintf(msg, sizeof msg, "speedscope: profile %zu, event %zu: %s", r->item, r->k, what);
    return pj_warn(r, e, msg);
}

static const char *pj_str(json_t *o, const char *key, size_t *n)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v)) return NULL;
    *n = json_string_length(v);
    return json_string_value(v);
}

/*
** V units of UNIT ns as ns, clamped to what int64 holds (and NaN to 0):
** rounded, not truncated (0.0157 ms is 15700 ns, though 0.0157 * 1e6 is
** 15699.999...), and an integer exactly.
*/
static int64_t pj_ns(json_t *v, int64_t unit)
{
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        if (i > INT64_MAX / unit) return INT64_MAX;
        if (i < INT64_MIN / unit) return INT64_MIN;
        return (int64_t)i * unit;
    }
    double ns = json_number_value(v) * (double)unit;
    if (!(ns == ns)) return 0;
    if (ns >= 9.2e18) return INT64_MAX;
    if (ns <= -9.2e18) return INT64_MIN;
    return (int64_t)llround(ns);
}

static int64_t pj_int(json_t *o, const char *key, int64_t dflt)
{
    json_t *v = json_object_get(o, key);
    if (json_is_integer(v)) return (int64_t)json_integer_value(v);
    if (json_is_real(v)) return pj_ns(v, 1);
    return dflt;
}

static int pj_is_native(const char *file, size_t n, const char *module)
{
    if (module) return 1;
    if (n == 0 || file[0] == '<') return 0;
    return !(n >= 3 && memcmp(file + n - 3, ".py", 3) == 0);
}

static uint32_t pj_frame(pj_rd *r, const char *fn, size_t fn_n, const char *file, size_t file_n,
                         int64_t line, const char *module, size_t module_n)
{
    tr_frame f;
    memset(&f, 0, sizeof f);
    f.function = tr_str_intern(r->t, fn, fn_n);
    f.file = tr_str_intern(r->t, file, file_n);
    f.module = module ? tr_str_intern(r->t, module, module_n) : 0;
    f.line = line > 0 && line <= INT32_MAX ? (int32_t)line : 0;
    f.is_native = pj_is_native(file, file_n, module);
    return tr_frame_intern(r->t, &f);
}

/* ---- dump --json ---- */

static int pj_dump_thread(pj_rd *r, json_t *th, tr_error *e)
{
    tr_trace *t = r->t;
    int64_t pid = pj_int(th, "pid", -1);
    int64_t tid = pj_int(th, "os_thread_id", -1);
    if (tid < 0) tid = pj_int(th, "thread_id", -1);
    uint32_t proc = tr_process_intern(t, r->input, pid);
    tr_process *pr = tr_process_at(t, proc);
    if (!pr) return tr_error_nomem(e);
    json_t *pi = json_object_get(th, "process_info");
    size_t n;
    const char *cmd = json_is_object(pi) ? pj_str(pi, "command_line", &n) : NULL;
    if (cmd && n && !pr->name) pr->name = tr_str_intern(t, cmd, n);
    uint32_t track = tr_track_intern(t, proc, TR_TRACK_THREAD, tid, 0);
    tr_track *tk = tr_track_at(t, track);
    if (!tk) return tr_error_nomem(e);
    const char *name = pj_str(th, "thread_name", &n);
    if (name && n) {
        tk->name = tr_str_intern(t, name, n);
    } else if (!tk->name) {
        tr_buf_reset(&r->scratch);
        if (tr_buf_addf(&r->scratch, "Thread %lld", (long long)tid)) return tr_error_nomem(e);
        tk->name = tr_str_intern(t, r->scratch.p, r->scratch.len);
    }
    json_t *frames = json_object_get(th, "frames");
    size_t depth = json_is_array(frames) ? json_array_size(frames) : 0;
    /* Innermost first: push from the end. */
    uint32_t stack = 0;
    for (size_t i = depth; i > 0; i--) {
        json_t *f = json_array_get(frames, i - 1);
        size_t fn_n = 0, file_n = 0, mod_n = 0;
        const char *fn = pj_str(f, "name", &fn_n);
        const char *file = pj_str(f, "short_filename", &file_n);
        if (!file) file = pj_str(f, "filename", &file_n);
        const char *mod = pj_str(f, "module", &mod_n);
        uint32_t frame = pj_frame(r, fn ? fn : "?", fn ? fn_n : 1, file ? file : "", file_n,
                                  pj_int(f, "line", 0), mod, mod_n);
        stack = tr_stack_push(t, stack, frame);
        if (stack == TR_NONE) return tr_error_nomem(e);
    }
    int active = json_is_true(json_object_get(th, "active"));
    int gil = json_is_true(json_object_get(th, "owns_gil"));
    tr_args_begin(t);
    tr_args_str(t, tr_str_internz(t, "state"),
                tr_str_internz(t, active ? (gil ? "active+gil" : "active") : "idle"));
    for (size_t i = 0; i < depth; i++) {
        json_t *locals = json_object_get(json_array_get(frames, i), "locals");
        for (size_t k = 0; json_is_array(locals) && k < json_array_size(locals); k++) {
            json_t *l = json_array_get(locals, k);
            size_t ln = 0, vn = 0;
            const char *lname = pj_str(l, "name", &ln);
            const char *repr = pj_str(l, "repr", &vn);
            if (!lname) continue;
            tr_buf_reset(&r->scratch);
            if (tr_buf_addf(&r->scratch, "%s.%zu.",
                            json_is_true(json_object_get(l, "arg")) ? "args" : "locals", i) ||
                tr_buf_add(&r->scratch, lname, ln))
                return tr_error_nomem(e);
            tr_args_str(t, tr_str_intern(t, r->scratch.p, r->scratch.len),
                        repr ? tr_str_add(t, repr, vn) : tr_str_internz(t, "?"));
        }
    }
    tr_sample_add(t, track, 0, stack, tr_args_end(t));
    return tr_trace_status(t, e);
}

/* Up to TR_READ_BATCH threads of the dump; TR_END after the last. */
static int pj_dump_step(pj_rd *r, tr_error *e)
{
    for (int b = 0; b < TR_READ_BATCH; b++, r->item++) {
        if (r->item >= json_array_size(r->root)) return TR_END;
        json_t *th = json_array_get(r->root, r->item);
        int rc = json_is_object(th)
                     ? pj_dump_thread(r, th, e)
                     : pj_warn(r, e, "py-spy --json: an array item is not a thread object");
        if (rc != TR_OK) return rc;
    }
    return TR_OK;
}

/* ---- speedscope ---- */

static int64_t pj_unit_ns(const char *unit)
{
    if (!unit) return 1000000000;
    if (strcmp(unit, "milliseconds") == 0) return 1000000;
    if (strcmp(unit, "microseconds") == 0) return 1000;
    if (strcmp(unit, "nanoseconds") == 0) return 1;
    return 1000000000; /* seconds, and unitless weights counted as seconds */
}

/* The track of a profile named 'Process PID Thread TID "NAME"' or anything else. */
static uint32_t pj_profile_track(pj_rd *r, const char *name, size_t n)
{
    tr_trace *t = r->t;
    int64_t pid = -1, tid = -1;
    const char *p = name, *end = name + n;
    char *stop;
    if (n > 8 && memcmp(p, "Process ", 8) == 0) {
        pid = strtoll(p + 8, &stop, 10);
        p = stop;
        if (p < end && *p == ' ') p++;
    }
    const char *tname = NULL;
    size_t tname_n = 0;
    if (end - p > 7 && memcmp(p, "Thread ", 7) == 0) {
        tid = strtoll(p + 7, &stop, 0);
        p = stop;
        if (end - p >= 3 && p[0] == ' ' && p[1] == '"' && end[-1] == '"') {
            tname = p + 2;
            tname_n = (size_t)(end - 1 - tname);
        }
    } else {
        p = name;
    }
    uint32_t proc = tr_process_intern(t, r->input, pid < 0 ? -1 : pid);
    if (tid < 0) return tr_track_intern(t, proc, TR_TRACK_THREAD, -1, tr_str_intern(t, name, n));
    uint32_t track = tr_track_intern(t, proc, TR_TRACK_THREAD, tid, 0);
    tr_track *tk = tr_track_at(t, track);
    if (tk && !tk->name) {
        if (tname_n) {
            tk->name = tr_str_intern(t, tname, tname_n);
        } else {
            tr_buf_reset(&r->scratch);
            if (tr_buf_addf(&r->scratch, "Thread %lld", (long long)tid) == TR_OK)
                tk->name = tr_str_intern(t, r->scratch.p, r->scratch.len);
        }
    }
    return track;
}

/* FRAMES[i] as a frame id, made once: IDS caches them (TR_NONE = not yet). */
static uint32_t pj_shared_frame(pj_rd *r, json_t *frames, uint32_t *ids, size_t i)
{
    if (ids[i] != TR_NONE) return ids[i];
    json_t *f = json_array_get(frames, i);
    size_t fn_n = 0, file_n = 0;
    const char *fn = pj_str(f, "name", &fn_n);
    const char *file = pj_str(f, "file", &file_n);
    ids[i] = pj_frame(r, fn ? fn : "?", fn ? fn_n : 1, file ? file : "", file_n,
                      pj_int(f, "line", 0), NULL, 0);
    return ids[i];
}

/* One sample of a sampled profile: its stack at the time reached so far. */
static int pj_sample(pj_rd *r, json_t *s, tr_error *e)
{
    pj_prof *pf = &r->prof;
    size_t n_frames = json_array_size(r->shared);
    uint32_t stack = 0;
    for (size_t k = 0; k < json_array_size(s); k++) {
        json_t *ix = json_array_get(s, k);
        if (!json_is_integer(ix) || json_integer_value(ix) < 0 ||
            (size_t)json_integer_value(ix) >= n_frames) {
            int rc = pj_warn(r, e, "speedscope: a sample names a frame that does not exist");
            if (rc != TR_OK) return rc;
            continue;
        }
        uint32_t frame = pj_shared_frame(r, r->shared, r->ids, (size_t)json_integer_value(ix));
        stack = frame == TR_NONE ? TR_NONE : tr_stack_push(r->t, stack, frame);
        if (stack == TR_NONE) return tr_error_nomem(e);
    }
    int64_t ts = pf->at;
    tr_sample_add(r->t, pf->track, ts, stack, 0);
    if (r->slicer && tr_stack_slicer_sample(r->slicer, pf->track, ts, stack) != TR_OK)
        return tr_error_nomem(e);
    json_t *w = json_array_get(pf->weights, r->k);
    /* each weight in whole ns, summed exactly: a double sum drifts */
    if (json_is_number(w)) pf->at = tr_time_add(pf->at, pj_ns(w, pf->unit));
    return tr_trace_status(r->t, e);
}

/* The end of a sampled profile: its stacks close at endValue. */
static int pj_sampled_end(pj_rd *r, tr_error *e)
{
    pj_prof *pf = &r->prof;
    json_t *ev = json_object_get(pf->p, "endValue");
    if (json_is_number(ev) && pj_ns(ev, pf->unit) > pf->at) pf->at = pj_ns(ev, pf->unit);
    if (r->slicer && tr_stack_slicer_end_track(r->slicer, pf->track, pf->at) != TR_OK)
        return tr_error_nomem(e);
    return tr_trace_status(r->t, e);
}

/* One open/close event of an evented profile: each matching pair is a slice. */
static int pj_event(pj_rd *r, json_t *ev, tr_error *e)
{
    pj_prof *pf = &r->prof;
    const char *type = json_string_value(json_object_get(ev, "type"));
    json_t *fi = json_object_get(ev, "frame"), *atv = json_object_get(ev, "at");
    if (!type || !json_is_integer(fi) || json_integer_value(fi) < 0 ||
        (size_t)json_integer_value(fi) >= json_array_size(r->shared) || !json_is_number(atv))
        return pj_warn(r, e, "speedscope: a malformed event");
    int64_t ts = pj_ns(atv, pf->unit);
    uint32_t frame = pj_shared_frame(r, r->shared, r->ids, (size_t)json_integer_value(fi));
    if (frame == TR_NONE) return tr_error_nomem(e);
    if (ts > pf->at) pf->at = ts;
    int rc = TR_OK;
    if (strcmp(type, "O") == 0) {
        /* Added when opened, so that of two with one start and end the outer comes first:
         * the model orders such ties by input order, and the stack says which encloses. */
        uint32_t *f = tr_vec_push(&r->frames), *row = tr_vec_push(&r->rows);
        if (!f || !row) return tr_error_nomem(e);
        *f = frame;
        *row = tr_slice_add(r->t, pf->track, ts, -1, tr_frame_get(r->t, frame)->function, pf->cat,
                            -1, 0);
    } else if (strcmp(type, "C") != 0) {
        return pj_warn_event(r, e, "neither an open (O) nor a close (C): not read");
    } else if (!r->frames.len) {
        return pj_warn_event(r, e, "a close with no frame open: not read");
    } else {
        size_t k = --r->frames.len;
        r->rows.len--;
        /* speedscope refuses the file; the innermost open frame is what it closes */
        if (TR_VEC_AT(&r->frames, uint32_t, k) != frame)
            rc = pj_warn_event(r, e,
                               "closes another frame than the innermost open one: that "
                               "one is closed");
        tr_slice_end(r->t, TR_VEC_AT(&r->rows, uint32_t, k), ts);
    }
    return rc == TR_OK ? tr_trace_status(r->t, e) : rc;
}

/* The end of an evented profile: frames left open close at endValue (or its last event). */
static int pj_evented_end(pj_rd *r, tr_error *e)
{
    pj_prof *pf = &r->prof;
    size_t open = r->frames.len;
    if (!open) return TR_OK;
    json_t *ev = json_object_get(pf->p, "endValue");
    int64_t end = json_is_number(ev) && pj_ns(ev, pf->unit) > pf->at ? pj_ns(ev, pf->unit) : pf->at;
    for (size_t k = 0; k < open; k++) tr_slice_end(r->t, TR_VEC_AT(&r->rows, uint32_t, k), end);
    r->frames.len = r->rows.len = 0;
    char msg[128];
    snprintf(msg, sizeof msg,
             "speedscope: profile %zu: %zu frame%s never closed: closed at its end", r->item, open,
             open == 1 ? "" : "s");
    int rc = pj_warn(r, e, msg);
    return rc == TR_OK ? tr_trace_status(r->t, e) : rc;
}

/* Starts profile r->item: 1 when it is sampled or evented, 0 when it is skipped. */
static int pj_prof_start(pj_rd *r, int *rc, tr_error *e)
{
    pj_prof *pf = &r->prof;
    json_t *prof = json_array_get(json_object_get(r->root, "profiles"), r->item);
    size_t name_n = 0;
    const char *name = pj_str(prof, "name", &name_n);
    const char *type = json_string_value(json_object_get(prof, "type"));
    memset(pf, 0, sizeof *pf);
    pf->p = prof;
    pf->track = pj_profile_track(r, name ? name : "profile", name ? name_n : 7);
    pf->unit = pj_unit_ns(json_string_value(json_object_get(prof, "unit")));
    r->k = 0;
    *rc = TR_OK;
    if (pf->track == TR_NONE) {
        *rc = tr_error_nomem(e);
    } else if (type && strcmp(type, "sampled") == 0) {
        pf->samples = json_object_get(prof, "samples");
        pf->weights = json_object_get(prof, "weights");
        json_t *sv = json_object_get(prof, "startValue");
        pf->at = json_is_number(sv) ? pj_ns(sv, pf->unit) : 0;
    } else if (type && strcmp(type, "evented") == 0) {
        pf->events = json_object_get(prof, "events");
        pf->cat = tr_str_internz(r->t, "stack");
        r->frames.len = r->rows.len = 0;
    } else {
        *rc = pj_warn(r, e, "speedscope: a profile that is neither sampled nor evented");
        return 0;
    }
    pf->started = 1;
    return *rc == TR_OK;
}

/* Up to TR_READ_BATCH samples or events of the profiles; TR_END after the last. */
static int pj_speedscope_step(pj_rd *r, tr_error *e)
{
    json_t *profiles = json_object_get(r->root, "profiles");
    pj_prof *pf = &r->prof;
    for (int b = 0; b < TR_READ_BATCH;) {
        int rc = TR_OK;
        if (!pf->started) {
            if (r->item >= json_array_size(profiles)) return TR_END;
            if (!pj_prof_start(r, &rc, e)) r->item++;
            if (rc != TR_OK) return rc;
            continue;
        }
        json_t *list = pf->events ? pf->events : pf->samples;
        if (r->k < json_array_size(list)) {
            json_t *x = json_array_get(list, r->k);
            rc = pf->events ? pj_event(r, x, e) : pj_sample(r, x, e);
            r->k++;
            b++;
        } else {
            rc = pf->events ? pj_evented_end(r, e) : pj_sampled_end(r, e);
            pf->started = 0;
            r->item++;
        }
        if (rc != TR_OK) return rc;
    }
    return TR_OK;
}

/* ---- the whole document ---- */

static int pj_slurp(tr_input *in, tr_buf *b, tr_error *e)
{
    for (;;) {
        if (tr_buf_grow(b, 65536) != TR_OK) {
            tr_loc loc = {tr_input_name(in), 0, 0, 0};
            return b->max && b->len + 65536 > b->max
                       ? tr_errorf(e, TR_E_LIMIT, &loc, "JSON document larger than %zu bytes",
                                   b->max)
                       : tr_error_nomem(e);
        }
        size_t got;
        int rc = tr_input_read(in, b->p + b->len, 65536, &got, e);
        if (rc != TR_OK) return rc;
        if (got == 0) return TR_OK;
        b->len += got;
        b->p[b->len] = '\0';
    }
}

/* Reads and parses the document: what next then walks. */
static int pj_parse(pj_rd *r, tr_error *e)
{
    tr_buf doc;
    tr_buf_init(&doc, PJ_MAX);
    int rc = pj_slurp(r->in, &doc, e);
    if (rc == TR_OK) {
        json_error_t je;
        r->root = json_loadb(doc.p, doc.len, 0, &je);
        if (!r->root) {
            tr_loc loc = {tr_input_name(r->in), (uint64_t)(je.line > 0 ? je.line : 0),
                          (uint64_t)(je.column > 0 ? je.column : 0), 0};
            rc = tr_errorf(e, TR_E_FORMAT, &loc, "bad JSON: %s", je.text);
        }
    }
    tr_buf_fini(&doc);
    return rc;
}

/* Speedscope: the shared frames, their ids made on first use. */
static int pj_speedscope_open(pj_rd *r, tr_error *e)
{
    r->shared = json_object_get(json_object_get(r->root, "shared"), "frames");
    if (!json_is_array(r->shared) || !json_is_array(json_object_get(r->root, "profiles"))) {
        tr_loc loc = {tr_input_name(r->in), 0, 0, 0};
        return tr_errorf(e, TR_E_FORMAT, &loc, "speedscope: no shared.frames or profiles array");
    }
    size_t n = json_array_size(r->shared);
    r->ids = tr_malloc((n ? n : 1) * sizeof *r->ids);
    if (!r->ids) return tr_error_nomem(e);
    for (size_t i = 0; i < n; i++) r->ids[i] = TR_NONE;
    return TR_OK;
}

static int pj_open(void **rd, const tr_read_ctx *c, tr_error *e)
{
    pj_rd *r = tr_calloc(1, sizeof *r);
    *rd = r;
    if (!r) return tr_error_nomem(e);
    r->t = tr_sink_trace(c->sink);
    r->in = c->in;
    r->input = c->input;
    r->diag = c->opts ? c->opts->diag : NULL;
    tr_buf_init(&r->scratch, 0);
    tr_vec_init(&r->frames, sizeof(uint32_t));
    tr_vec_init(&r->rows, sizeof(uint32_t));
    int rc = pj_parse(r, e);
    if (rc == TR_OK && !(c->opts && c->opts->no_stack_slices) && json_is_object(r->root)) {
        r->slicer = tr_stack_slicer_new(r->t);
        if (!r->slicer) rc = tr_error_nomem(e);
    }
    if (rc != TR_OK || json_is_array(r->root)) return rc;
    if (json_is_object(r->root)) return pj_speedscope_open(r, e);
    tr_loc loc = {tr_input_name(r->in), 1, 1, 0};
    return tr_errorf(e, TR_E_FORMAT, &loc, "not py-spy JSON (want an array or an object)");
}

static int pj_finish(pj_rd *r, tr_error *e)
{
    if (r->slicer && tr_stack_slicer_finish(r->slicer) != TR_OK) return tr_error_nomem(e);
    tr_input_info *info = tr_input_at(r->t, r->input);
    if (info) {
        info->warnings += r->warnings;
        info->clock =
            tr_str_internz(r->t, json_is_object(r->root)
                                     ? "profile time from the first sample (speedscope weights)"
                                     : "none: one dump (its samples at 0)");
    }
    return tr_trace_status(r->t, e);
}

static int pj_next(void *rd, tr_error *e)
{
    pj_rd *r = rd;
    int rc = json_is_object(r->root) ? pj_speedscope_step(r, e) : pj_dump_step(r, e);
    if (rc != TR_END) return rc;
    rc = pj_finish(r, e);
    return rc == TR_OK ? TR_END : rc;
}

static void pj_close(void *rd)
{
    pj_rd *r = rd;
    if (!r) return;
    json_decref(r->root);
    tr_free(r->ids);
    tr_stack_slicer_free(r->slicer);
    tr_buf_fini(&r->scratch);
    tr_vec_fini(&r->frames);
    tr_vec_fini(&r->rows);
    tr_free(r);
}

const tr_reader tr_pyspy_json = {
    .abi = TR_READER_ABI,
    .name = "pyspy",
    .open = pj_open,
    .next = pj_next,
    .close = pj_close,
};
