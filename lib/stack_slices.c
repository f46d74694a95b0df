/* stack_slices.c: the open-stacks rule (see tr_stack_slices.h). */
#include "tr_stack_slices.h"

#include "tr_mem.h"

#include <string.h>

/* An open frame: where it started. */
typedef struct open_frame {
    uint32_t frame;
    int64_t start;
} open_frame;

/* What the slicer knows of one track; indexed by track id. */
typedef struct track_state {
    int used;
    uint32_t process;
    uint32_t stack; /* the previous sample's stack */
    int64_t last;   /* the previous sample's time */
    int64_t end;    /* where the open frames close at the finish */
    tr_vec open;    /* open_frame, root first */
} track_state;

/* A frame's slice name and args, made once per frame. */
typedef struct frame_label {
    tr_str name;
    uint32_t args;
    int done;
} frame_label;

struct tr_stack_slicer {
    tr_trace *t;
    int failed;
    tr_vec tracks; /* track_state */
    tr_vec labels; /* frame_label by frame id */
    tr_vec path;   /* uint32_t: the new stack's frames, root first */
    tr_buf text;
    tr_str cat, k_function, k_file, k_line;
};

tr_stack_slicer *tr_stack_slicer_new(tr_trace *t)
{
    tr_stack_slicer *s = tr_calloc(1, sizeof *s);
    if (!s) return NULL;
    s->t = t;
    tr_vec_init(&s->tracks, sizeof(track_state));
    tr_vec_init(&s->labels, sizeof(frame_label));
    tr_vec_init(&s->path, sizeof(uint32_t));
    tr_buf_init(&s->text, 0);
    s->cat = tr_str_internz(t, "stack");
    s->k_function = tr_str_internz(t, "function");
    s->k_file = tr_str_internz(t, "file");
    s->k_line = tr_str_internz(t, "line");
    return s;
}

void tr_stack_slicer_free(tr_stack_slicer *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->tracks.len; i++)
        tr_vec_fini(&TR_VEC_AT(&s->tracks, track_state, i).open);
    tr_vec_fini(&s->tracks);
    tr_vec_fini(&s->labels);
    tr_vec_fini(&s->path);
    tr_buf_fini(&s->text);
    tr_free(s);
}

static track_state *state_of(tr_stack_slicer *s, uint32_t track)
{
    while (s->tracks.len <= track) {
        track_state *st = tr_vec_push(&s->tracks);
        if (!st) return NULL;
        tr_vec_init(&st->open, sizeof(open_frame));
    }
    return &TR_VEC_AT(&s->tracks, track_state, track);
}

/* putils' label "function (file:line)", and the args, of frame FRAME. */
static frame_label *label_of(tr_stack_slicer *s, uint32_t frame)
{
    while (s->labels.len <= frame)
        if (!tr_vec_push(&s->labels)) return NULL;
    frame_label *l = &TR_VEC_AT(&s->labels, frame_label, frame);
    if (l->done) return l;
    tr_trace *t = s->t;
    const tr_frame *f = tr_frame_get(t, frame);
    if (!f) return NULL;
    size_t fn_n, file_n;
    const char *fn = tr_str_get(t, f->function, &fn_n);
    const char *file = tr_str_get(t, f->file, &file_n);
    tr_buf_reset(&s->text);
    int rc = tr_buf_add(&s->text, fn, fn_n);
    if (file_n) {
        rc |= tr_buf_add(&s->text, " (", 2);
        rc |= tr_buf_add(&s->text, file, file_n);
        if (f->line > 0) rc |= tr_buf_addf(&s->text, ":%ld", (long)f->line);
        rc |= tr_buf_addc(&s->text, ')');
    }
    if (rc != TR_OK) return NULL;
    /* The label is also the frame's identity, so it is interned once. */
    l->name = tr_str_intern(t, s->text.p, s->text.len);
    tr_args_begin(t);
    tr_args_str(t, s->k_function, f->function);
    if (file_n) tr_args_str(t, s->k_file, f->file);
    if (f->line > 0) tr_args_int(t, s->k_line, f->line);
    l->args = tr_args_end(t);
    l->done = 1;
    return l;
}

/*
** Closes the open frames of ST above depth KEEP at TS.  Outer frames are
** added first: freeze keeps that order for slices of equal time and length,
** so the outer one stays the parent.
*/
static int close_above(tr_stack_slicer *s, uint32_t track, track_state *st, size_t keep, int64_t ts)
{
    for (size_t i = keep; i < st->open.len; i++) {
        const open_frame *o = &TR_VEC_AT(&st->open, open_frame, i);
        int64_t dur;
        /* A span past int64 (absurd times in the input) is no slice. */
        if (ts <= o->start || __builtin_sub_overflow(ts, o->start, &dur)) continue;
        frame_label *l = label_of(s, o->frame);
        if (!l) return s->failed = 1, TR_FATAL;
        if (tr_slice_add(s->t, track, o->start, dur, l->name, s->cat, -1, l->args) == TR_NONE)
            return s->failed = 1, TR_FATAL;
    }
    if (st->open.len > keep) st->open.len = keep;
    return TR_OK;
}

int tr_stack_slicer_sample(tr_stack_slicer *s, uint32_t track, int64_t ts, uint32_t stack)
{
    track_state *st = state_of(s, track);
    if (!st) return s->failed = 1, TR_FATAL;
    if (!st->used) {
        const tr_track *tk = tr_track_get(s->t, track);
        st->used = 1;
        st->process = tk ? tk->process : TR_NONE;
        st->last = st->end = ts;
        st->stack = 0;
    }
    if (ts < st->last) ts = st->last;
    st->last = ts;
    if (ts > st->end) st->end = ts;
    if (stack == st->stack && st->open.len == tr_stack_depth(s->t, stack)) return TR_OK;

    uint32_t depth = tr_stack_depth(s->t, stack);
    if (tr_vec_reserve(&s->path, depth) != TR_OK) return s->failed = 1, TR_FATAL;
    uint32_t *path = s->path.data;
    uint32_t at = stack;
    for (uint32_t i = depth; i > 0 && at != 0; at = tr_stack_parent(s->t, at))
        path[--i] = tr_stack_frame(s->t, at);
    size_t common = 0, n_open = st->open.len;
    const open_frame *open = st->open.data;
    while (common < n_open && common < depth && open[common].frame == path[common]) common++;
    if (close_above(s, track, st, common, ts) != TR_OK) return TR_FATAL;
    if (tr_vec_reserve(&st->open, depth) != TR_OK) return s->failed = 1, TR_FATAL;
    for (size_t i = common; i < depth; i++) {
        open_frame *o = tr_vec_push(&st->open);
        o->frame = path[i];
        o->start = ts;
    }
    st->stack = stack;
    return TR_OK;
}

int tr_stack_slicer_sweep(tr_stack_slicer *s, uint32_t process, int64_t ts)
{
    for (size_t i = 0; i < s->tracks.len; i++) {
        track_state *st = &TR_VEC_AT(&s->tracks, track_state, i);
        if (!st->used || st->process != process || st->last == ts || st->open.len == 0) continue;
        if (close_above(s, (uint32_t)i, st, 0, ts) != TR_OK) return TR_FATAL;
        st->stack = 0;
    }
    return TR_OK;
}

int tr_stack_slicer_end_track(tr_stack_slicer *s, uint32_t track, int64_t ts)
{
    if (track >= s->tracks.len) return TR_OK;
    track_state *st = &TR_VEC_AT(&s->tracks, track_state, track);
    if (!st->used) return TR_OK;
    if (ts < st->last) ts = st->last;
    if (ts > st->end) st->end = ts;
    int rc = close_above(s, track, st, 0, ts);
    st->stack = 0;
    return rc;
}

int tr_stack_slicer_finish(tr_stack_slicer *s)
{
    for (size_t i = 0; i < s->tracks.len && !s->failed; i++) {
        track_state *st = &TR_VEC_AT(&s->tracks, track_state, i);
        if (st->used) close_above(s, (uint32_t)i, st, 0, st->end);
    }
    return s->failed ? TR_FATAL : TR_OK;
}
