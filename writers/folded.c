/*
** folded.c: folded stacks, "frame;frame;...;frame COUNT" a line, root first,
** as flamegraph.pl, inferno and speedscope read them (py-spy record -f raw).
**
** Every sample with a non-empty stack counts once, or by its "count" arg (a
** folded input's weight).  Equal stacks are summed; lines come in the order
** their stack first appears in time order (a stream hands the samples over
** as read, TR_WRITE_ANY_ORDER: each line keeps its first sample's time and
** number, and the lines are sorted by them when samples came out of order).
** A frame is written as py-spy
** writes it: "function (file:line)", "function (file)" when the line is
** unknown, "function" when there is no file.  Names are not escaped (the
** format has no escapes), only line breaks become spaces.
**
** tr_write_opts.folded_prefix adds py-spy's root frames: 'process PID:"NAME"'
** (TR_FOLDED_PROCESS, as --subprocesses) and "thread (TID)" or "thread (TID):
** NAME" (TR_FOLDED_THREAD, as --threads); stacks are then summed per process
** or per thread.
*/
#include "tr_writer.h"
#include "tr_map.h"
#include "tr_text.h"

#include <string.h>

#define FLUSH_AT       ((size_t)256 * 1024)
#define FW_CHUNK       16 /* frames are copied in chunks of this many bytes, past their end */
#define FW_AHEAD       4  /* lines whose stack is fetched ahead of the one being written */
#define FW_AHEAD_NODES 30 /* nodes of it fetched, five (a cache line of 12-byte nodes) apart */
#define FW_ROOM_MAX    ((size_t)1 << 20) /* room made for a line without summing its length */
#define FW_SMALL       2048 /* entries grown by doubling; then room for FW_ROOM at once */
#define FW_ROOM        ((size_t)1 << 20) /* 32 MiB of address space, faulted in as used */
#define FW_RECENT      16                /* lines kept for the frames they start with */
#define FW_RECENT_N    128               /* of each, this many frames at most */
#define FW_SHARED_MIN  1024              /* records in again before stacks may count as shared */

typedef struct fw_entry {
    uint32_t owner; /* track or process row + 1, 0 = none */
    uint32_t stack;
    uint64_t weight;
    int64_t ts;   /* the first sample's time */
    uint64_t seq; /* and its number among the samples (tr_event_rec.seq) */
} fw_entry;

/*
** The samples of an owner and stack met before, summed as an entry is, and
** how many entries there were when the first of them came.
*/
typedef struct fw_again {
    fw_entry s;
    size_t at;
} fw_again;

/*
** A line written lately, still in folded_w.b: the first frames of its stack
** and where each one's text (with its ';') ends, from the line's first.
*/
typedef struct fw_recent {
    uint64_t gen; /* folded_w.gen when written */
    size_t start; /* where its first frame's text is in folded_w.b */
    uint32_t depth;
    uint32_t frames[FW_RECENT_N];
    uint32_t ends[FW_RECENT_N];
} fw_recent;

typedef struct folded_w {
    const tr_trace *t;
    tr_buf b;
    tr_vec entries;       /* fw_entry */
    tr_vec seen;          /* uint64_t: a bit for each stack some sample has */
    tr_vec again;         /* fw_again: samples of stacks met before, counted in at the end */
    tr_map again_index;   /* (owner << 32 | stack) -> again */
    tr_map index;         /* (owner << 32 | stack) -> entry, once shared */
    int shared;           /* threads share stacks: seen, again and again_index are done with */
    tr_vec frames;        /* uint32_t: a stack's frames, root first */
    tr_buf ftext;         /* every frame's text, rendered once: lines repeat frames */
    size_t *fat;          /* frame i and a ';' are ftext.p[fat[i] .. fat[i + 1]) */
    size_t fmax;          /* the longest frame's text, with its ';' */
    int streamed;         /* events came one by one: the lines are written at the end */
    int64_t last;         /* the latest sample's time so far */
    int unordered;        /* a sample came before one of an earlier time: the lines need sorting */
    uint32_t weight_args; /* the arg set whose weight is weight, TR_NONE before the first */
    uint64_t weight;
    uint64_t gen;                /* flushes of b so far */
    fw_recent recent[FW_RECENT]; /* the latest lines of a few roots */
    unsigned char by_root[64];   /* root frame % 64 -> the recent line of that root + 1 */
    unsigned next_recent;
} folded_w;

/* Adds sample S to entry EN, as if it had come after the entry's other samples. */
static void fw_merge(fw_entry *en, const fw_entry *s)
{
    en->weight += s->weight;
    /* samples come in their order, so only an earlier time makes one the first */
    if (s->ts < en->ts) {
        en->ts = s->ts;
        en->seq = s->seq;
    }
}

/*
** Counts in the samples of stacks met before (w->again), each owner and
** stack's to its entry, found by looking the entry up in again_index.  An
** owner's samples of a stack only another owner had before (with
** --folded-prefix) make an entry, put where it would have been made when
** the first came; again and its map are then freed.
*/
static int fw_count_again(folded_w *w)
{
    size_t n = w->entries.len, late = 0;
    if (!w->again.len) return TR_OK;
    uint64_t *seen = w->seen.data;
    fw_again *ag = w->again.data;
    memset(seen, 0, w->seen.len * sizeof(uint64_t));
    for (size_t i = 0; i < w->again.len; i++)
        seen[ag[i].s.stack / 64] |= (uint64_t)1 << (ag[i].s.stack % 64);
    fw_entry *en = w->entries.data;
    for (size_t i = 0; i < n; i++) {
        if (!(seen[en[i].stack / 64] >> (en[i].stack % 64) & 1)) continue;
        uint32_t a = tr_map_find(&w->again_index, (uint64_t)en[i].owner << 32 | en[i].stack);
        if (a == UINT32_MAX) continue;
        fw_merge(&en[i], &ag[a].s);
        ag[a].at = SIZE_MAX; /* counted in */
    }
    tr_map_fini(&w->again_index);
    for (size_t i = 0; i < w->again.len; i++)
        if (ag[i].at != SIZE_MAX) ag[late++] = ag[i]; /* in their order: at grows */
    if (late && tr_vec_reserve(&w->entries, n + late) != TR_OK) return TR_FATAL;
    /*
    ** The entries made here go back where they came, before the first entry
    ** made after them: merged in place from the end.
    */
    en = w->entries.data;
    for (size_t i = n, k = n + late, j = late; j; i--) {
        for (; j && ag[j - 1].at == i; j--) en[--k] = ag[j - 1].s;
        if (i) en[--k] = en[i - 1];
    }
    w->entries.len = n + late;
    tr_vec_fini(&w->again);
    tr_vec_init(&w->again, sizeof(fw_again));
    return TR_OK;
}

/* Counts in the samples met again and puts every entry in w->index, where the samples count now. */
static int fw_share(folded_w *w)
{
    if (fw_count_again(w) != TR_OK) return TR_FATAL;
    tr_vec_fini(&w->seen);
    tr_vec_init(&w->seen, sizeof(uint64_t));
    w->shared = 1;
    int is_new;
    for (size_t i = 0; i < w->entries.len; i++) {
        const fw_entry *en = &TR_VEC_AT(&w->entries, fw_entry, i);
        uint32_t *slot = tr_map_slot(&w->index, (uint64_t)en->owner << 32 | en->stack, &is_new);
        if (!slot) return TR_FATAL;
        *slot = (uint32_t)i;
    }
    return TR_OK;
}

/*
** Counts sample S (its weight, time and number).  A stack no sample had
** before makes an entry (most samples of a dump sequence do: a hash map of
** them all took 6 of a 386 MB dump's 45 MiB, its pages faulted in and its
** slots each a cache miss); a bit a stack tells which did.  The samples of
** the others are summed by owner and stack in a map of their own, and
** counted in at the end (fw_count_again).  When threads share their stacks
** (a pool's workers, every owner a record of its own there), that map and
** its records would outgrow a map of all entries: once they are a quarter
** of the entries, they are counted in and every entry goes in w->index,
** which counts the samples from then on (fw_share).
*/
static int fw_add(folded_w *w, const fw_entry *s)
{
    int is_new;
    if (s->ts < w->last)
        w->unordered = 1;
    else
        w->last = s->ts;
    uint32_t *slot = NULL;
    if (w->shared) {
        slot = tr_map_slot(&w->index, (uint64_t)s->owner << 32 | s->stack, &is_new);
        if (!slot) return TR_FATAL;
        if (!is_new) {
            fw_merge(&TR_VEC_AT(&w->entries, fw_entry, *slot), s);
            return TR_OK;
        }
        *slot = (uint32_t)w->entries.len;
    } else {
        size_t word = s->stack / 64;
        uint64_t bit = (uint64_t)1 << (s->stack % 64);
        if (word >= w->seen.len) {
            size_t n = w->seen.len, want = word + 1 > 2 * n ? word + 1 : 2 * n;
            if (tr_vec_reserve(&w->seen, want) != TR_OK) return TR_FATAL;
            memset((uint64_t *)w->seen.data + n, 0, (want - n) * sizeof(uint64_t));
            w->seen.len = want;
        }
        uint64_t *seen = w->seen.data;
        if (seen[word] & bit) {
            slot = tr_map_slot(&w->again_index, (uint64_t)s->owner << 32 | s->stack, &is_new);
            if (!slot) return TR_FATAL;
            if (!is_new) {
                fw_merge(&TR_VEC_AT(&w->again, fw_again, *slot).s, s);
                return TR_OK;
            }
            *slot = (uint32_t)w->again.len;
            fw_again *a = tr_vec_push(&w->again);
            if (!a) return TR_FATAL;
            *a = (fw_again){*s, w->entries.len};
            return w->again.len < FW_SHARED_MIN || w->again.len < w->entries.len / 4 ? TR_OK
                                                                                     : fw_share(w);
        }
        seen[word] |= bit;
    }
    /*
    ** Past a few thousand stacks, room for a million at once: doubling a
    ** heap block copies it each time and faults its pages in 4 KiB at a
    ** time, while a block this large is mapped in huge pages (tr_mem.h)
    ** and its untouched room costs nothing.
    */
    if (w->entries.len >= FW_SMALL && w->entries.cap < FW_ROOM &&
        tr_vec_reserve(&w->entries, FW_ROOM) != TR_OK)
        return TR_FATAL;
    fw_entry *en = tr_vec_push(&w->entries);
    if (!en) return TR_FATAL;
    *en = *s;
    return TR_OK;
}

/* Appends N bytes with line breaks made spaces, so a line stays one line. */
static int fw_text(tr_buf *b, const char *s, size_t n)
{
    size_t start = b->len;
    if (tr_buf_add(b, s, n) != TR_OK) return TR_FATAL;
    for (char *p = b->p + start, *end = p + n; p < end; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    return TR_OK;
}

static int fw_str(tr_buf *b, const tr_trace *t, tr_str s)
{
    size_t n;
    const char *p = tr_str_get(t, s, &n);
    return fw_text(b, p, n);
}

/* Renders every frame as py-spy writes it, and a ';', into w->ftext. */
static int fw_frames_prepare(folded_w *w)
{
    size_t n = tr_frame_count(w->t);
    w->fat = tr_malloc((n + 1) * sizeof *w->fat);
    if (!w->fat) return TR_FATAL;
    int rc = TR_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        const tr_frame *f = tr_frame_get(w->t, (uint32_t)i);
        size_t file_n;
        tr_str_get(w->t, f->file, &file_n);
        w->fat[i] = w->ftext.len;
        rc |= fw_str(&w->ftext, w->t, f->function);
        if (file_n) {
            rc |= tr_buf_add(&w->ftext, " (", 2);
            rc |= fw_str(&w->ftext, w->t, f->file);
            if (f->line > 0) rc |= tr_buf_addc(&w->ftext, ':') | tr_buf_add_int(&w->ftext, f->line);
            rc |= tr_buf_addc(&w->ftext, ')');
        }
        /* with the ';' that follows it in a line: a line is then its frames' texts in a row */
        rc |= tr_buf_addc(&w->ftext, ';');
    }
    w->fat[n] = w->ftext.len;
    for (size_t i = 0; i < n; i++)
        if (w->fat[i + 1] - w->fat[i] > w->fmax) w->fmax = w->fat[i + 1] - w->fat[i];
    /* a chunk copied from the last frame reads past it */
    if (rc == TR_OK && (rc = tr_buf_grow(&w->ftext, FW_CHUNK)) == TR_OK)
        memset(w->ftext.p + w->ftext.len, 0, FW_CHUNK);
    return rc;
}

/*
** Copies the N bytes at S to O in whole chunks, so past its end up to a
** chunk: a frame is 20 to 100 bytes, and a call to memcpy for each of a
** line's 50 frames cost more than the copy (7.5 M calls for 322 MB).
*/
static inline void fw_copy(char *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i += FW_CHUNK) memcpy(o + i, s + i, FW_CHUNK);
}

/* "Thread TOKEN" is the name readers give unnamed threads: TOKEN is the id as printed. */
static int fw_thread(folded_w *w, const tr_track *tk)
{
    size_t n;
    const char *name = tr_str_get(w->t, tk->name, &n);
    int rc = tr_buf_add(&w->b, "thread (", 8);
    if (n > 7 && memcmp(name, "Thread ", 7) == 0 && !memchr(name + 7, ' ', n - 7)) {
        rc |= fw_text(&w->b, name + 7, n - 7);
        return rc | tr_buf_add(&w->b, ");", 2);
    }
    rc |= tr_buf_add_int(&w->b, tk->tid);
    if (n) {
        rc |= tr_buf_add(&w->b, "): ", 3);
        rc |= fw_text(&w->b, name, n);
        return rc | tr_buf_addc(&w->b, ';');
    }
    return rc | tr_buf_add(&w->b, ");", 2);
}

static int fw_line(folded_w *w, const fw_entry *en, unsigned prefix)
{
    const tr_trace *t = w->t;
    int rc = TR_OK;
    if (en->owner) {
        uint32_t row = en->owner - 1;
        const tr_track *tk = prefix & TR_FOLDED_THREAD ? tr_track_get(t, row) : NULL;
        const tr_process *p = tr_process_get(t, tk ? tk->process : row);
        if (prefix & TR_FOLDED_PROCESS && p && p->pid >= 0) {
            rc |= tr_buf_add(&w->b, "process ", 8);
            rc |= tr_buf_add_int(&w->b, p->pid);
            rc |= tr_buf_add(&w->b, ":\"", 2);
            rc |= fw_str(&w->b, t, p->name);
            rc |= tr_buf_add(&w->b, "\";", 2);
        }
        if (tk && tk->tid >= 0) rc |= fw_thread(w, tk);
    }
    uint32_t room = w->frames.cap < UINT32_MAX ? (uint32_t)w->frames.cap : UINT32_MAX;
    uint32_t depth = tr_stack_frames(t, en->stack, w->frames.data, room);
    if (depth > room) {
        if (tr_vec_reserve(&w->frames, depth) != TR_OK) return TR_FATAL;
        tr_stack_frames(t, en->stack, w->frames.data, depth);
    }
    const uint32_t *f = w->frames.data;
    /*
    ** Room for the line once, then plain copies: its longest frames' worth,
    ** or, when that is much, its length summed.
    */
    size_t len = depth * w->fmax;
    if (w->fmax >= FW_ROOM_MAX / ((size_t)depth + 1))
        for (uint32_t i = len = 0; i < depth; i++) len += w->fat[f[i] + 1] - w->fat[f[i]];
    if (rc ||
        (len + FW_CHUNK >= w->b.cap - w->b.len && tr_buf_grow(&w->b, len + FW_CHUNK) != TR_OK))
        return TR_FATAL;
    /* In locals: the stores through O could alias W, which would be read again each frame. */
    char *line = w->b.p + w->b.len, *o = line;
    const size_t *fat = w->fat;
    const char *text = w->ftext.p;
    uint32_t i = 0;
    if (depth) {
        /*
        ** A thread's stack keeps its root part from one sample to the
        ** next: the frames this line shares with the latest line of the
        ** same root are copied from that line's text in one piece.  That
        ** line's record becomes this one's.
        */
        unsigned slot = w->by_root[f[0] % 64];
        fw_recent *rec = slot ? &w->recent[slot - 1] : NULL;
        if (rec && rec->gen == w->gen && rec->depth && rec->frames[0] == f[0]) {
            uint32_t m = depth < rec->depth ? depth : rec->depth;
            while (i < m && rec->frames[i] == f[i]) i++;
            memcpy(o, w->b.p + rec->start, rec->ends[i - 1]);
            o += rec->ends[i - 1];
            o[-1] = ';'; /* a ' ' where that line ends */
        } else {
            slot = w->next_recent++ % FW_RECENT + 1;
            w->by_root[f[0] % 64] = (unsigned char)slot;
            rec = &w->recent[slot - 1];
        }
        rec->gen = w->gen;
        rec->start = (size_t)(line - w->b.p);
        rec->depth = depth < FW_RECENT_N ? depth : FW_RECENT_N;
        for (; i < rec->depth; i++) {
            size_t n = fat[f[i] + 1] - fat[f[i]];
            fw_copy(o, text + fat[f[i]], n);
            o += n;
            rec->frames[i] = f[i];
            rec->ends[i] = (uint32_t)(o - line);
        }
    }
    for (; i < depth; i++) {
        size_t n = fat[f[i] + 1] - fat[f[i]];
        fw_copy(o, text + fat[f[i]], n);
        o += n;
    }
    w->b.len = (size_t)(o - w->b.p) - (depth > 0);
    w->b.p[w->b.len] = '\0';
    rc |= tr_buf_addc(&w->b, ' ');
    rc |= tr_buf_add_int(&w->b, (int64_t)en->weight);
    return rc | tr_buf_addc(&w->b, '\n');
}

/* Counts one sample: by its stack, and by its thread or process when a prefix names them. */
static int fw_sample(folded_w *w, unsigned prefix, uint32_t track, uint32_t stack, uint32_t args,
                     int64_t ts, uint64_t seq)
{
    if (stack == 0) return TR_OK;
    uint32_t owner = 0;
    if (prefix & TR_FOLDED_THREAD)
        owner = track + 1;
    else if (prefix & TR_FOLDED_PROCESS)
        owner = tr_track_get(w->t, track)->process + 1;
    /* A dump's samples share a few arg sets (their states): the weight of the last is kept. */
    if (args != w->weight_args) {
        w->weight_args = args;
        w->weight = tr_sample_weight(w->t, args);
    }
    fw_entry s = {owner, stack, w->weight, ts, seq};
    return fw_add(w, &s);
}

static int fw_collect(folded_w *w, const tr_write_opts *o)
{
    const tr_trace *t = w->t;
    const tr_filter *filter = o->filter;
    tr_samples s;
    tr_trace_samples(t, &s);
    for (size_t i = 0; i < s.n; i++) {
        if (filter) {
            tr_event ev = {TR_EV_SAMPLE, (uint32_t)i, s.ts[i]};
            if (!filter->keep(filter->user, t, &ev)) continue;
        }
        if (fw_sample(w, o->folded_prefix, s.track[i], s.stack[i], s.args[i], s.ts[i], i) != TR_OK)
            return TR_FATAL;
    }
    return TR_OK;
}

/* The order of the lines: by their first sample, in time order. */
static int fw_cmp(const void *pa, const void *pb)
{
    const fw_entry *a = pa, *b = pb;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Writes a line for every stack counted, in the order each first came. */
static int fw_write(folded_w *w, tr_write *run, tr_error *e)
{
    tr_output *out = run->out;
    unsigned prefix = run->opts->folded_prefix;
    int rc =
        fw_count_again(w) == TR_OK && fw_frames_prepare(w) == TR_OK ? TR_OK : tr_error_nomem(e);
    if (w->unordered) tr_qsort(w->entries.data, w->entries.len, sizeof(fw_entry), fw_cmp);
    for (size_t i = 0; i < w->entries.len && rc == TR_OK; i++) {
        /*
        ** A line's stack is a cache miss of its own: fetched a few lines
        ** ahead, with the nodes made before its last, where the frames it
        ** had new when sampled are (a path is made root first, in a row).
        */
        if (i + FW_AHEAD < w->entries.len) {
            uint32_t st = TR_VEC_AT(&w->entries, fw_entry, i + FW_AHEAD).stack;
            for (uint32_t k = 0; k < FW_AHEAD_NODES && k <= st; k += 5)
                tr_stack_prefetch(w->t, st - k);
        }
        if (fw_line(w, &TR_VEC_AT(&w->entries, fw_entry, i), prefix) != TR_OK)
            rc = tr_error_nomem(e);
        else if (w->b.len >= FLUSH_AT &&
                 (rc = tr_output_write(out, w->b.p, w->b.len, e)) == TR_OK) {
            tr_buf_reset(&w->b);
            w->gen++; /* the lines kept in recent are gone from b */
        }
    }
    if (rc == TR_OK) rc = tr_output_write(out, w->b.p, w->b.len, e);
    return rc;
}

static int folded_begin(tr_write *run, tr_error *e)
{
    folded_w *w = tr_calloc(1, sizeof *w);
    run->state = w;
    if (!w) return tr_error_nomem(e);
    tr_buf_init(&w->b, 0);
    tr_vec_init(&w->entries, sizeof(fw_entry));
    tr_vec_init(&w->seen, sizeof(uint64_t));
    tr_vec_init(&w->again, sizeof(fw_again));
    tr_vec_init(&w->frames, sizeof(uint32_t));
    tr_buf_init(&w->ftext, 0);
    w->last = INT64_MIN;
    w->weight_args = TR_NONE;
    return TR_OK;
}

static int folded_add(tr_write *run, const tr_trace *t, tr_error *e)
{
    folded_w *w = run->state;
    w->t = t;
    if (fw_collect(w, run->opts) != TR_OK) return tr_error_nomem(e);
    return fw_write(w, run, e);
}

/* A stream's samples are counted as they come; the lines are written at the end. */
static int folded_event(tr_write *run, const tr_trace *t, const tr_event_rec *ev, tr_error *e)
{
    folded_w *w = run->state;
    w->t = t;
    w->streamed = 1;
    if (ev->kind != TR_EV_SAMPLE) return TR_OK;
    int rc =
        fw_sample(w, run->opts->folded_prefix, ev->track, ev->stack, ev->args, ev->ts, ev->seq);
    return rc == TR_OK ? TR_OK : tr_error_nomem(e);
}

static int folded_end(tr_write *run, int rc, tr_error *e)
{
    folded_w *w = run->state;
    if (!w) return rc;
    if (rc == TR_OK && w->streamed) rc = fw_write(w, run, e);
    tr_buf_fini(&w->b);
    tr_vec_fini(&w->entries);
    tr_vec_fini(&w->seen);
    tr_vec_fini(&w->again);
    tr_vec_fini(&w->frames);
    tr_map_fini(&w->again_index);
    tr_map_fini(&w->index);
    tr_buf_fini(&w->ftext);
    tr_free(w->fat);
    tr_free(w);
    return rc;
}

const tr_writer tr_writer_folded = {
    .abi = TR_WRITER_ABI,
    .name = "folded",
    .description = "folded stacks 'frame;frame COUNT' (flamegraph.pl, inferno, speedscope)",
    .extensions = "folded,collapsed",
    .binary = 0,
    .begin = folded_begin,
    .add = folded_add,
    .end = folded_end,
    .event = folded_event,
    .flags = TR_WRITE_ANY_ORDER,
    .samples_only = 1,
};
