/*
** speedscope.c: speedscope's own JSON file format (what py-spy record -f
** speedscope writes), one profile per thread.
**
** What becomes what:
**   samples of a track   a "sampled" profile: each sample's stack, root first,
**                        weighed by its "count" arg (1 when none) as the
**                        folded writer weighs it; unit "none".  A sample with
**                        an empty stack is left out, as folded output does.
**   slices of a track    an "evented" profile: an O event at a slice's start
**                        and a C at its end, in nanoseconds from the trace's
**                        origin.  Speedscope wants the events nested: a slice
**                        that outlives its enclosing one is cut at that end.
**   frames               "shared.frames": every stack frame of the model
**                        (function, file, line) then every slice name.
** A track with both samples and slices gives two profiles.  Counters,
** instants and flows have no place in the format.  The readers are asked for
** no slices made of stack samples (samples_only): the samples are there.
*/
#include "tr_map.h"
#include "tr_text.h"
#include "tr_writer.h"

#include <string.h>

#define FLUSH_AT ((size_t)256 * 1024)

/* Appends a string literal. */
#define LIT(b, s) tr_buf_add((b), (s), sizeof(s) - 1)

typedef struct sp_w {
    const tr_trace *t;
    tr_output *out;
    const tr_filter *filter;
    tr_buf b;
    tr_slices sl;
    tr_samples sa;
    tr_map names;      /* slice name -> its frame index */
    uint32_t n_frames; /* model frames: indexes 0 .. n_frames - 1 */
    uint32_t *order;   /* rows grouped by track (slices, then samples) */
    uint32_t *start;   /* track -> its first entry in order; n_tracks + 1 of them */
    tr_vec open;       /* int64_t: the open slices' ends, then their frames */
    int profiles;      /* written so far, for the separators */
} sp_w;

/* ---- the frames ---- */

static int sp_flush(sp_w *w, tr_error *e)
{
    if (w->b.len < FLUSH_AT) return TR_OK;
    int rc = tr_output_write(w->out, w->b.p, w->b.len, e);
    tr_buf_reset(&w->b);
    return rc;
}

static int sp_keep(const sp_w *w, int kind, uint32_t row, int64_t ts)
{
    tr_event ev = {kind, row, ts};
    return !w->filter || w->filter->keep(w->filter->user, w->t, &ev);
}

/* One frame of shared.frames: {"name","file","line"}. */
static int sp_frame(sp_w *w, tr_str name, tr_str file, int32_t line)
{
    int rc = LIT(&w->b, "\n{\"name\":");
    rc |= tr_buf_add_json_id(&w->b, w->t, name);
    if (file) {
        rc |= LIT(&w->b, ",\"file\":");
        rc |= tr_buf_add_json_id(&w->b, w->t, file);
    }
    if (line > 0) {
        rc |= LIT(&w->b, ",\"line\":");
        rc |= tr_buf_add_int(&w->b, line);
    }
    return rc | tr_buf_addc(&w->b, '}');
}

/* shared.frames: the model's frames by id, then the names of the slices kept. */
static int sp_frames(sp_w *w, tr_error *e)
{
    const tr_trace *t = w->t;
    int rc =
        LIT(&w->b, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
                   "\"exporter\":\"tracecat " TRACECAT_VERSION "\",\n\"shared\":{\"frames\":[");
    w->n_frames = (uint32_t)tr_frame_count(t);
    for (uint32_t i = 0; i < w->n_frames && rc == TR_OK; i++) {
        const tr_frame *f = tr_frame_get(t, i);
        if (i) rc |= tr_buf_addc(&w->b, ',');
        rc |= sp_frame(w, f->function, f->file, f->line);
        if (rc == TR_OK) rc = sp_flush(w, e);
    }
    uint32_t next = w->n_frames;
    for (size_t i = 0; i < w->sl.n && rc == TR_OK; i++) {
        if (!sp_keep(w, TR_EV_SLICE, (uint32_t)i, w->sl.ts[i])) continue;
        int is_new;
        uint32_t *slot = tr_map_slot(&w->names, w->sl.name[i], &is_new);
        if (!slot) return tr_error_nomem(e);
        if (!is_new) continue;
        *slot = next++;
        if (next > 1) rc |= tr_buf_addc(&w->b, ',');
        rc |= sp_frame(w, w->sl.name[i], 0, 0);
        if (rc == TR_OK) rc = sp_flush(w, e);
    }
    return rc | LIT(&w->b, "]},\n\"profiles\":[");
}

/* ---- the profiles ---- */

/* Groups ROWS (N of them, tracks TRACK) by track into w->order, stably. */
static int sp_group(sp_w *w, const uint32_t *track, size_t n, size_t n_tracks)
{
    tr_free(w->order);
    w->order = tr_malloc((n ? n : 1) * sizeof *w->order);
    if (!w->order) return TR_FATAL;
    memset(w->start, 0, (n_tracks + 1) * sizeof *w->start);
    for (size_t i = 0; i < n; i++) w->start[track[i] + 1]++;
    for (size_t k = 0; k < n_tracks; k++) w->start[k + 1] += w->start[k];
    for (size_t i = 0; i < n; i++) w->order[w->start[track[i]]++] = (uint32_t)i;
    /* start[k] is now where track k ends: shift back */
    memmove(w->start + 1, w->start, n_tracks * sizeof *w->start);
    w->start[0] = 0;
    return TR_OK;
}

/* "name":"process / lane" of TRACK, and its type and unit. */
static int sp_profile_open(sp_w *w, uint32_t track, const char *type, const char *unit)
{
    const tr_track *tk = tr_track_get(w->t, track);
    const tr_process *p = tr_process_get(w->t, tk->process);
    tr_buf name;
    tr_buf_init(&name, 0);
    size_t n;
    const char *s = tr_str_get(w->t, p->name, &n);
    int rc = n ? tr_buf_add(&name, s, n) : tr_buf_addf(&name, "pid %lld", (long long)p->pid);
    rc |= tr_buf_adds(&name, " / ");
    s = tr_str_get(w->t, tk->name, &n);
    rc |= n ? tr_buf_add(&name, s, n)
            : tr_buf_addf(&name, "%s %lld", tr_track_kind_name(tk->kind), (long long)tk->tid);
    rc |= w->profiles++ ? LIT(&w->b, ",\n{\"name\":") : LIT(&w->b, "\n{\"name\":");
    rc |= tr_buf_add_json_str(&w->b, name.p, name.len);
    tr_buf_fini(&name);
    rc |= tr_buf_addf(&w->b, ",\"type\":\"%s\",\"unit\":\"%s\"", type, unit);
    return rc;
}

/* The sampled profile of the samples in order[from, to) (one track's). */
static int sp_sampled(sp_w *w, uint32_t track, size_t from, size_t to, tr_error *e)
{
    const tr_trace *t = w->t;
    uint64_t total = 0;
    int rc = TR_OK, any = 0;
    for (size_t i = from; i < to && rc == TR_OK; i++) {
        uint32_t r = w->order[i];
        if (w->sa.stack[r] == 0 || !sp_keep(w, TR_EV_SAMPLE, r, w->sa.ts[r])) continue;
        if (!any++)
            rc |= sp_profile_open(w, track, "sampled", "none") | LIT(&w->b, ",\"samples\":[");
        uint32_t depth = tr_stack_depth(t, w->sa.stack[r]);
        int64_t *f = tr_vec_reserve(&w->open, depth) == TR_OK ? w->open.data : NULL;
        if (!f) return tr_error_nomem(e);
        uint32_t s = w->sa.stack[r];
        for (uint32_t d = depth; d > 0 && s; s = tr_stack_parent(t, s))
            f[--d] = tr_stack_frame(t, s);
        rc |= any > 1 ? LIT(&w->b, ",[") : tr_buf_addc(&w->b, '[');
        for (uint32_t d = 0; d < depth; d++) {
            if (d) rc |= tr_buf_addc(&w->b, ',');
            rc |= tr_buf_add_int(&w->b, f[d]);
        }
        rc |= tr_buf_addc(&w->b, ']');
        total += tr_sample_weight(t, w->sa.args[r]);
        if (rc == TR_OK) rc = sp_flush(w, e);
    }
    if (!any || rc != TR_OK) return rc;
    rc |= LIT(&w->b, "],\"weights\":[");
    for (size_t i = from, k = 0; i < to && rc == TR_OK; i++) {
        uint32_t r = w->order[i];
        if (w->sa.stack[r] == 0 || !sp_keep(w, TR_EV_SAMPLE, r, w->sa.ts[r])) continue;
        if (k++) rc |= tr_buf_addc(&w->b, ',');
        rc |= tr_buf_add_int(&w->b, (int64_t)tr_sample_weight(t, w->sa.args[r]));
        if (rc == TR_OK) rc = sp_flush(w, e);
    }
    rc |= LIT(&w->b, "],\"startValue\":0,\"endValue\":");
    return rc | tr_buf_add_int(&w->b, (int64_t)total) | tr_buf_addc(&w->b, '}');
}

/* One O or C event. */
static int sp_event(sp_w *w, char type, int64_t at, int64_t frame, int *first)
{
    int rc = *first ? LIT(&w->b, "{\"type\":\"") : LIT(&w->b, ",{\"type\":\"");
    *first = 0;
    rc |= tr_buf_addc(&w->b, type);
    rc |= LIT(&w->b, "\",\"at\":");
    rc |= tr_buf_add_int(&w->b, at);
    rc |= LIT(&w->b, ",\"frame\":");
    return rc | tr_buf_add_int(&w->b, frame) | tr_buf_addc(&w->b, '}');
}

/* Closes the open slices that end by TS (all when TS is INT64_MAX); the last end seen. */
static int sp_close(sp_w *w, int64_t ts, int64_t *last, int *first)
{
    int rc = TR_OK;
    int64_t *o = w->open.data;
    while (w->open.len >= 2 && o[w->open.len - 2] <= ts) {
        *last = o[w->open.len - 2];
        rc |= sp_event(w, 'C', *last, o[w->open.len - 1], first);
        w->open.len -= 2;
    }
    return rc;
}

/* The evented profile of the slices in order[from, to) (one track's, in time order). */
static int sp_evented(sp_w *w, uint32_t track, size_t from, size_t to, tr_error *e)
{
    int rc = TR_OK, any = 0, first = 1;
    int64_t start = 0, last = 0;
    w->open.len = 0;
    for (size_t i = from; i < to && rc == TR_OK; i++) {
        uint32_t r = w->order[i];
        if (!sp_keep(w, TR_EV_SLICE, r, w->sl.ts[r])) continue;
        if (!any++) {
            rc |= sp_profile_open(w, track, "evented", "nanoseconds") | LIT(&w->b, ",\"events\":[");
            start = last = w->sl.ts[r];
        }
        rc |= sp_close(w, w->sl.ts[r], &last, &first);
        int64_t end =
            tr_time_add(w->sl.ts[r], tr_slice_dur(&w->sl, r) > 0 ? tr_slice_dur(&w->sl, r) : 0);
        int64_t *o = w->open.data;
        if (w->open.len && end > o[w->open.len - 2]) end = o[w->open.len - 2];
        int64_t *top = tr_vec_push(&w->open);
        int64_t *frame = top ? tr_vec_push(&w->open) : NULL;
        if (!frame) return tr_error_nomem(e);
        top = frame - 1;
        *top = end;
        *frame = tr_map_find(&w->names, w->sl.name[r]);
        rc |= sp_event(w, 'O', w->sl.ts[r], *frame, &first);
        if (rc == TR_OK) rc = sp_flush(w, e);
    }
    if (!any || rc != TR_OK) return rc;
    rc |= sp_close(w, INT64_MAX, &last, &first);
    rc |= LIT(&w->b, "],\"startValue\":");
    rc |= tr_buf_add_int(&w->b, start);
    rc |= LIT(&w->b, ",\"endValue\":");
    return rc | tr_buf_add_int(&w->b, last) | tr_buf_addc(&w->b, '}');
}

/* Every track's profiles: the evented ones, then the sampled ones, by track. */
static int sp_profiles(sp_w *w, tr_error *e)
{
    size_t n_tracks = tr_track_count(w->t);
    w->start = tr_malloc((n_tracks + 1) * sizeof *w->start);
    if (!w->start || sp_group(w, w->sl.track, w->sl.n, n_tracks) != TR_OK) return tr_error_nomem(e);
    int rc = TR_OK;
    for (size_t k = 0; k < n_tracks && rc == TR_OK; k++)
        if (tr_track_get(w->t, (uint32_t)k)->kind != TR_TRACK_COUNTER)
            rc = sp_evented(w, (uint32_t)k, w->start[k], w->start[k + 1], e);
    if (rc != TR_OK) return rc == TR_FATAL ? tr_error_nomem(e) : rc;
    if (sp_group(w, w->sa.track, w->sa.n, n_tracks) != TR_OK) return tr_error_nomem(e);
    for (size_t k = 0; k < n_tracks && rc == TR_OK; k++)
        rc = sp_sampled(w, (uint32_t)k, w->start[k], w->start[k + 1], e);
    if (rc != TR_OK) return rc == TR_FATAL ? tr_error_nomem(e) : rc;
    if (LIT(&w->b, "\n]}\n") != TR_OK) return tr_error_nomem(e);
    return TR_OK;
}

static int speedscope_add(tr_write *run, const tr_trace *t, tr_error *e)
{
    sp_w w;
    memset(&w, 0, sizeof w);
    w.t = t;
    w.out = run->out;
    w.filter = run->opts->filter;
    tr_buf_init(&w.b, 0);
    tr_vec_init(&w.open, sizeof(int64_t));
    tr_trace_slices(t, &w.sl);
    tr_trace_samples(t, &w.sa);
    int rc = sp_frames(&w, e);
    if (rc == TR_FATAL) rc = tr_error_nomem(e);
    if (rc == TR_OK) rc = sp_profiles(&w, e);
    if (rc == TR_OK) rc = tr_output_write(w.out, w.b.p, w.b.len, e);
    tr_buf_fini(&w.b);
    tr_vec_fini(&w.open);
    tr_map_fini(&w.names);
    tr_free(w.order);
    tr_free(w.start);
    return rc;
}

const tr_writer tr_writer_speedscope = {
    .abi = TR_WRITER_ABI,
    .name = "speedscope",
    .description = "speedscope JSON, one profile per thread (sampled and evented)",
    .extensions = "speedscope",
    .binary = 0,
    .samples_only = 1,
    .add = speedscope_add,
};
