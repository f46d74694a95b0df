/*
** recorder_merge.c: the decoded ranks' records merged by time into the
** model's rows (shared/formats/recorder.md).
**
** The ranks are merged k-way by start time, so the slices arrive already in
** the order freeze wants and need no sort.  Each rank's nesting is found
** first, on the pool's threads (parents by position in the rank).  The
** rows are then appended as one block, sized exactly, and the merge is cut
** by start time into chunks, each merged and put (tr_slice_put) on the
** pool's threads: a rank's starts never go back, so every record that
** starts before a cut is merged ahead of any after it.  The tracks are made
** first, in the order the merge meets them.
*/
#include "recorder_impl.h"
#include "tr_pool.h"

#include <math.h>
#include <stdio.h>

/* Rows a chunk of the merge holds at least: fewer would cost more in splitting than they win. */
#define FILL_CHUNK_MIN 65536
/* The most sampled start times the chunks are cut by. */
#define SPLIT_KEYS 4096
/* Every this many records a rank keeps its tick, to find where a chunk starts in it. */
#define REC_SAMPLE 256

/* A rank's cursor in a chunk's k-way merge: the record at pos, and the rank's columns. */
typedef struct cursor {
    uint64_t key;       /* the record's place in the merge (merge_key); UINT64_MAX once done */
    int64_t start, dur; /* ns, of the record at pos; start INT64_MAX once done */
    uint64_t pos, begin, end; /* the record, and the rank's records in the chunk */
    uint64_t prev;            /* ticks: start of the record at pos (once loaded) */
    const unsigned char *ts;
    const unsigned char *seq; /* a record's terminal id, SEQ_W bytes */
    unsigned seq_w;
    uint32_t *up; /* a record's parent's position, until merged: then the record's row */
    const sig_model *sm;
    const sig_model *sig; /* the record's, looked up when loaded: the fill waits on no load */
    int64_t tid;          /* the last record's thread, and its track */
    uint32_t track;
    int32_t rank;
    int done;
} cursor;

/* A slice still open on a track, for nesting by level. */
typedef struct open_rec {
    uint32_t row;
    uint32_t level;
    uint64_t start, end; /* ticks: for a trace without levels (level_by_ticks) */
} open_rec;

/* ---- a rank's cursor, and the tournament of the cursors ---- */

int64_t rec_ticks_ns(const rec_run *run, uint64_t ticks)
{
    if (run->res_ns) return (int64_t)ticks * run->res_ns;
    return (int64_t)llround((double)ticks * run->res_nsd);
}

/*
** Loads the record at c->pos; returns 0 past the chunk's end, -1 when it ends
** past the limit.  Times stay the exact ticks Recorder's tools print; the
** levels, not the times, say which record is whose child (rec_nest_by_level).
*/
static inline int cursor_load(const rec_model *m, cursor *c)
{
    if (c->pos >= c->end) {
        c->done = 1;
        c->key = UINT64_MAX;
        c->start = INT64_MAX;
        c->dur = 0;
        return 0;
    }
    const unsigned char *p = c->ts + c->pos * 8;
    uint64_t s = c->prev + rec_le32(p), en = c->prev + rec_le32(p + 4);
    if (en > m->limit) return -1;
    /* A rank's turn comes back after every other rank's: too many streams for the hardware to
     * foresee, so its next lines are asked for now (past the end is harmless). */
    __builtin_prefetch(p + 128);
    __builtin_prefetch(c->seq + (c->pos + 16) * c->seq_w);
    __builtin_prefetch(c->up + c->pos + 16);
    c->start = rec_ticks_ns(m->run, s);
    c->dur = rec_ticks_ns(m->run, en) - c->start;
    c->key = m->key_whole
                 ? s << m->key_start | (m->key_dur - (en - s)) << m->key_leaf | (uint64_t)c->rank
                 : (uint64_t)c->start ^ (uint64_t)1 << 63;
    c->prev = s;
    c->sig = &c->sm[rec_seq_at(c->seq, c->seq_w, c->pos)];
    return 1;
}

/*
** A tournament of K cursors (a power of two; those past the ranks are done):
** node[0] names the winner, node[1..K-1] the loser of each match with its
** key, so that the next winner takes log2 K comparisons along one leaf's
** path.  A leaf is a rank.  The order is the start, then the longer record
** (the parent) first, then the lower leaf; a done cursor goes last.  The key
** says all of that in 64 bits when the trace's ticks and durations fit
** (merge_key), else the start alone, and equal keys look at the rest (then
** frequent, on ticks of a microsecond, but rarely so when the key is whole).
** A match is a comparison and a swap by masks: the winner is a coin toss,
** and the compiler made branches of ?:.
*/
__extension__ typedef unsigned __int128 tkey;

typedef struct tnode {
    uint64_t key;
    uint32_t leaf;
} tnode;

typedef struct tourney {
    cursor *c;
    tnode *node;
    size_t k;
    int whole; /* the keys are whole: their low bits are the leaf */
} tourney;

/* The whole order as one 128-bit number: the start, then minus the duration. */
static tkey cursor_key(const cursor *c)
{
    uint64_t neg_dur = (uint64_t)(c->done ? INT64_MAX : -c->dur) ^ ((uint64_t)1 << 63);
    return (tkey)((uint64_t)c->start ^ ((uint64_t)1 << 63)) << 64 | neg_dur;
}

static int leaf_before(const tourney *tv, uint32_t a, uint32_t b)
{
    tkey ka = cursor_key(&tv->c[a]), kb = cursor_key(&tv->c[b]);
    return ka < kb || (ka == kb && a < b);
}

static void tourney_build(tourney *tv, uint32_t *win)
{
    for (size_t i = 0; i < tv->k; i++) win[tv->k + i] = (uint32_t)i;
    for (size_t n = tv->k - 1; n >= 1; n--) {
        uint32_t a = win[2 * n], b = win[2 * n + 1];
        int b_wins = leaf_before(tv, b, a);
        uint32_t lose = b_wins ? a : b;
        win[n] = b_wins ? b : a;
        tv->node[n] = (tnode){tv->c[lose].key, lose};
    }
    tv->node[0].leaf = tv->k > 1 ? win[1] : 0;
}

/* Cursor I moved on: its matches again, from its leaf up. */
static void tourney_replay(tourney *tv, uint32_t i)
{
    uint32_t w = i;
    uint64_t wk = tv->c[i].key;
    size_t n = (i + tv->k) >> 1;
    if (tv->whole) {
        /* no two keys are equal but those of done cursors: a match is a min and a max */
        for (; n; n >>= 1) {
            uint64_t lk = tv->node[n].key, lo = lk < wk ? lk : wk;
            tv->node[n].key = lk ^ wk ^ lo;
            wk = lo;
        }
        tv->node[0].leaf = (uint32_t)(wk & (tv->k - 1));
        return;
    }
    for (; n; n >>= 1) {
        tnode *nd = &tv->node[n];
        uint64_t lk = nd->key;
        uint32_t l = nd->leaf;
        int swap = lk < wk;
        if (__builtin_expect(lk == wk, 0)) swap = leaf_before(tv, l, w);
        uint64_t m = 0 - (uint64_t)swap, xk = (wk ^ lk) & m;
        uint32_t xl = (w ^ l) & (uint32_t)m;
        nd->key = lk ^ xk;
        nd->leaf = l ^ xl;
        wk ^= xk;
        w ^= xl;
    }
    tv->node[0].leaf = w;
}

/* ---- tracks and nesting ---- */

tid_track *rec_track_for(rec_model *m, rank_out *ro, int32_t rank, int64_t tid)
{
    if (ro->last && tid == ro->last->tid) return ro->last;
    for (size_t i = 0; i < ro->tracks.len; i++) {
        tid_track *tt = &TR_VEC_AT(&ro->tracks, tid_track, i);
        if (tt->tid == tid) return ro->last = tt;
    }
    char name[64];
    int len = tid ? snprintf(name, sizeof name, "thread %lld", (long long)tid)
                  : snprintf(name, sizeof name, "rank %d", (int)rank);
    tr_str key = tr_str_intern(m->t, name, (size_t)len);
    uint32_t track = tr_track_intern(m->t, ro->process, TR_TRACK_THREAD, tid ? tid : -1, key);
    tid_track *tt = tr_vec_push(&ro->tracks);
    if (!tt || track == TR_NONE) return NULL;
    tt->tid = tid;
    tt->track = track;
    tr_track_at(m->t, track)->nesting = TR_NEST_GIVEN;
    tr_vec_init(&tt->open, sizeof(open_rec));
    return ro->last = tt;
}

/*
** Nesting follows the records' levels: the sequence is in start order and a
** record of level L closes every open record of level >= L; the innermost
** one left is its parent.  Timestamps are truncated deltas, so a child can
** start at its parent's end tick and a sibling end a tick after the next one
** starts: time containment would get both wrong (the tracks are
** TR_NEST_GIVEN).
*/
int rec_nest_by_level(tid_track *tt, uint32_t row, uint32_t level, uint64_t start, uint64_t end,
                      uint32_t *parent)
{
    tr_vec *open = &tt->open;
    while (open->len && TR_VEC_AT(open, open_rec, open->len - 1).level >= level) open->len--;
    *parent = open->len ? TR_VEC_AT(open, open_rec, open->len - 1).row : TR_NONE;
    /* once per record: the call only when the stack must grow */
    open_rec *o =
        open->len < open->cap ? &TR_VEC_AT(open, open_rec, open->len++) : tr_vec_push(open);
    if (!o) return TR_FATAL;
    *o = (open_rec){row, level, start, end};
    return TR_OK;
}

/*
** The level of a record of a trace that stores none (G3's store_call_depth
** off: every depth byte is 0): the open records that hold its ticks, ends
** included, as a truncated child may end on its parent's end tick; one of
** no length holds nothing.
*/
static uint32_t level_by_ticks(const tid_track *tt, uint64_t start, uint64_t end)
{
    size_t k = tt->open.len;
    while (k) {
        const open_rec *o = &TR_VEC_AT(&tt->open, open_rec, k - 1);
        if (o->end >= end && o->end > o->start && o->start <= start) break;
        k--;
    }
    return (uint32_t)k;
}

/* ---- each rank's nesting, before the merge (on the pool's threads) ---- */

/* A rank whose timestamps run past what nanoseconds can hold. */
int rec_merge_overflow(rec_model *m, int32_t bad, tr_error *e)
{
    char name[32], path[1024];
    snprintf(name, sizeof name, m->run->gen == REC_G3 ? "recorder.ts" : "%d.ts", (int)bad);
    tr_loc loc = {rec_path(m->run->dir, name, path, sizeof path), 0, 0, 0};
    return tr_errorf(e, TR_E_FORMAT, &loc,
                     "rank %d's timestamps run past what nanoseconds can hold", (int)bad);
}

/* RK's open records on thread TID, by position (made on first use). */
static tid_track *nest_for(rec_rank *rk, int64_t tid)
{
    for (size_t i = 0; i < rk->nest.len; i++) {
        tid_track *tt = &TR_VEC_AT(&rk->nest, tid_track, i);
        if (tt->tid == tid) return tt;
    }
    tid_track *tt = tr_vec_push(&rk->nest);
    if (!tt) return NULL;
    tt->tid = tid;
    tr_vec_init(&tt->open, sizeof(open_rec));
    return tt;
}

/* rec_nest_rank for W-byte terminal ids (a constant where it is inlined). */
static inline __attribute__((always_inline)) int
nest_rank_w(const rec_run *run, rec_rank *rk, const rec_cst *cst, uint32_t *up, unsigned w)
{
    int levels = run->gen != REC_G3 || run->g3_flags[5]; /* G3 header byte 9: store_call_depth */
    tid_track *tt = NULL;
    uint64_t prev = 0;
    int64_t dur_min = 0, dur_max = 0;
    int bad_order = 0;
    uint64_t overflow = 0;
    tr_vec_init(&rk->nest, sizeof(tid_track));
    rk->up = up;
    rk->samp = tr_malloc((size_t)((rk->n + REC_SAMPLE - 1) / REC_SAMPLE + 1) * sizeof *rk->samp);
    rk->used = tr_calloc(cst->n ? cst->n : 1, 1);
    rk->nested = -1;
    if (!rk->samp || !rk->used) return TR_FATAL;
    /* in locals: the stores to USED, bytes, could alias every field they come from */
    const unsigned char *seq = rk->seq, *ts = rk->ts.p;
    const rec_sig *sig = cst->sig;
    unsigned char *used = rk->used;
    uint64_t *samp = rk->samp, n = rk->n, limit = run->limit;
    int whole_ns = run->res_ns != 0;
    for (uint64_t pos = 0; pos < n; pos++) {
        uint32_t id = rec_seq_at(seq, w, pos);
        const rec_sig *s = &sig[id];
        const unsigned char *p = ts + pos * 8;
        uint64_t start = prev + rec_le32(p), end = prev + rec_le32(p + 4);
        if (pos % REC_SAMPLE == 0) samp[pos / REC_SAMPLE] = prev;
        prev = start;
        overflow |= end > limit;
        int64_t dur = (int64_t)(end - start);
        dur_min = dur < dur_min ? dur : dur_min;
        dur_max = dur > dur_max ? dur : dur_max;
        /* ns as the merge orders them: a fractional resolution may round both ends to one */
        if (end < start && (whole_ns || rec_ticks_ns(run, end) < rec_ticks_ns(run, start)))
            bad_order = 1;
        used[id] = 1;
        if (!tt || tt->tid != s->tid) tt = nest_for(rk, s->tid);
        if (!tt) return TR_FATAL;
        uint32_t level = levels ? s->level : level_by_ticks(tt, start, end);
        if (rec_nest_by_level(tt, (uint32_t)pos, level, start, end, &up[pos]) != TR_OK)
            return TR_FATAL;
    }
    rk->bad_order = bad_order;
    rk->overflow = overflow != 0;
    rk->last_start = prev;
    rk->dur_min = dur_min;
    rk->dur_max = dur_max;
    rk->nested = 1;
    return TR_OK;
}

int rec_nest_rank(const rec_run *run, rec_rank *rk, const rec_cst *cst, uint32_t *up)
{
    if (rk->seq_w == 1) return nest_rank_w(run, rk, cst, up, 1);
    if (rk->seq_w == 2) return nest_rank_w(run, rk, cst, up, 2);
    return nest_rank_w(run, rk, cst, up, 4);
}

void rec_nest_free(rec_rank *rk)
{
    for (size_t i = 0; i < rk->nest.len; i++) tr_vec_fini(&TR_VEC_AT(&rk->nest, tid_track, i).open);
    tr_vec_fini(&rk->nest);
    tr_free(rk->samp);
    tr_free(rk->used);
    rk->samp = NULL;
    rk->used = NULL;
}

/* A pool job: rank R's nesting, when its decoding could not find it (no up room). */
static int nest_late(void *user, size_t r)
{
    rec_model *m = user;
    rec_rank *rk = &m->rk[r];
    if (rk->nested) return TR_OK;
    return rec_nest_rank(m->run, rk, m->run->ipc ? &m->run->shared : &rk->cst, rk->up);
}

/* The merge's sizes and the tick limit; the nesting of the ranks that had no up room. */
int rec_merge_start(rec_model *m, tr_error *e)
{
    int32_t n = m->run->ranks;
    size_t late = 0;
    int all = 1;
    for (int32_t r = 0; r < n; r++) {
        m->rows += m->rk[r].n;
        late += m->rk[r].nested ? 0 : (size_t)m->rk[r].n;
        all &= m->rk[r].nested;
    }
    if (m->rows >= TR_NONE - 1) return tr_error_nomem(e); /* positions in a rank are 32-bit */
    m->limit = m->run->limit;
    if (all) return TR_OK;
    if (!(m->up = tr_malloc((late + 1) * sizeof *m->up))) return tr_error_nomem(e);
    size_t at = 0;
    for (int32_t r = 0; r < n; r++) {
        if (m->rk[r].nested) continue;
        m->rk[r].up = m->up + at;
        at += m->rk[r].n;
    }
    tr_pool_run(tr_pool_threads(m->threads, (size_t)n), (size_t)n, nest_late, m);
    for (int32_t r = 0; r < n; r++)
        if (m->rk[r].nested < 0) return tr_error_nomem(e);
    return TR_OK;
}

/* What is still open at each rank's end, as rows, where the calls in flight look for it. */
int rec_nest_end(rec_model *m)
{
    for (int32_t r = 0; r < m->run->ranks; r++) {
        rank_out *o = &m->ro[r];
        const rec_rank *rk = &m->rk[r];
        for (size_t i = 0; i < rk->nest.len; i++) {
            const tid_track *lt = &TR_VEC_AT(&rk->nest, tid_track, i);
            tid_track *tt = rec_track_for(m, o, r, lt->tid);
            if (!tt) return TR_FATAL;
            for (size_t k = 0; k < lt->open.len; k++) {
                open_rec rec = TR_VEC_AT(&lt->open, open_rec, k);
                open_rec *to = tr_vec_push(&tt->open);
                if (!to) return TR_FATAL;
                *to = (open_rec){m->first + rk->up[rec.row], rec.level, rec.start, rec.end};
            }
        }
    }
    return TR_OK;
}

/* ---- the merge's plan: chunks by start time, and the tracks ---- */

static void tourney_close(tourney *tv)
{
    tr_free(tv->c);
    tr_free(tv->node);
}

/*
** The cursors of every rank from LO to HI (a chunk's cuts, or all records)
** in a tournament; *BAD is the first rank, in rank order, whose first record
** ends past the limit.
*/
static int tourney_open(rec_model *m, const cut *lo, const cut *hi, tourney *tv, int32_t *bad)
{
    int32_t n = m->run->ranks;
    size_t k = 1;
    while (k < (size_t)n) k *= 2;
    tv->k = k;
    tv->whole = m->key_whole;
    tv->c = tr_malloc(k * sizeof *tv->c);
    tv->node = tr_malloc(k * sizeof *tv->node);
    uint32_t *win = tr_malloc(2 * k * sizeof *win);
    if (!tv->c || !tv->node || !win) {
        tr_free(win);
        tourney_close(tv);
        return TR_FATAL;
    }
    *bad = -1;
    for (size_t i = 0; i < k; i++) {
        cursor *c = &tv->c[i];
        if (i >= (size_t)n) {
            *c = (cursor){.key = UINT64_MAX, .start = INT64_MAX, .rank = INT32_MAX, .done = 1};
            continue;
        }
        const rec_rank *rk = &m->rk[i];
        rank_out *o = &m->ro[i];
        *c = (cursor){.pos = lo[i].pos,
                      .begin = lo[i].pos,
                      .end = hi[i].pos,
                      .prev = lo[i].prev,
                      .ts = rk->ts.p,
                      .seq = rk->seq,
                      .seq_w = rk->seq_w,
                      .up = rk->up,
                      .sm = o->sm,
                      .track = TR_NONE,
                      .rank = (int32_t)i};
        if (cursor_load(m, c) < 0 && *bad < 0) *bad = (int32_t)i;
    }
    tourney_build(tv, win);
    tr_free(win);
    return TR_OK;
}

/*
** The first record of RK at or after NS, starting from the sample before it:
** the first sample whose tick (the start of the record before it) is at or
** after NS is found in the samples alone, whose record then starts at or
** after NS too; the timestamps are read from the sample before it on.
*/
static cut cut_at(const rec_run *run, const rec_rank *rk, int64_t ns)
{
    size_t lo = 0, hi = (size_t)((rk->n + REC_SAMPLE - 1) / REC_SAMPLE);
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (rec_ticks_ns(run, rk->samp[mid]) < ns)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return (cut){0, 0};
    cut c = {(uint64_t)(lo - 1) * REC_SAMPLE, rk->samp[lo - 1]};
    for (; c.pos < rk->n; c.pos++) {
        uint64_t tick = c.prev + rec_le32(rk->ts.p + c.pos * 8);
        if (rec_ticks_ns(run, tick) >= ns) break;
        c.prev = tick;
    }
    return c;
}

/*
** KEY's N times in order, from RUNS runs each in order already (RUN_END[R]
** is where run R ends; it is overwritten): the runs merged two at a time
** through TMP, in log2 RUNS passes.  Returns KEY or TMP, whichever holds them.
*/
static int64_t *merge_runs(int64_t *key, int64_t *tmp, size_t *run_end, size_t runs)
{
    for (; runs > 1; runs = (runs + 1) / 2) {
        size_t lo = 0;
        for (size_t r = 0; r < runs; r += 2) {
            size_t mid = run_end[r], hi = r + 1 < runs ? run_end[r + 1] : mid, i = lo, j = mid;
            size_t o = lo;
            while (i < mid && j < hi) tmp[o++] = key[j] < key[i] ? key[j++] : key[i++];
            while (i < mid) tmp[o++] = key[i++];
            while (j < hi) tmp[o++] = key[j++];
            run_end[r / 2] = lo = hi;
        }
        int64_t *swap = key;
        key = tmp;
        tmp = swap;
    }
    return key;
}

/*
** Chunk J holds the records that start in [S_J, S_J+1), S_J the start time
** that about CHUNK_AT[J] of the sampled records start before: the merge puts
** every record that starts before S_J ahead of any that starts at it or
** later (a rank's starts never go back), so the chunks merged apart, from
** their cuts, are the whole merge, wherever the cuts fall.  So the samples
** are thinned to at most SPLIT_KEYS, which still place every cut within a
** fraction of a percent of the rows; each is the start before a sampled
** record (its tick kept by the nesting: the timestamps are not read again),
** and a rank's are in order, so the ranks' are merged, not sorted (0.17 ->
** 0.05 ms for 4 ranks).
*/
static int split_chunks(rec_model *m)
{
    const rec_run *run = m->run;
    size_t ranks = (size_t)run->ranks, n = 0;
    for (size_t r = 0; r < ranks; r++) n += (size_t)((m->rk[r].n + REC_SAMPLE - 1) / REC_SAMPLE);
    uint64_t step = (uint64_t)REC_SAMPLE * ((n + SPLIT_KEYS - 1) / SPLIT_KEYS);
    n = 0;
    for (size_t r = 0; r < ranks; r++) n += (size_t)((m->rk[r].n + step - 1) / step);
    int64_t *key = tr_malloc((n ? 2 * n : 1) * sizeof *key);
    size_t *run_end = tr_malloc((ranks ? ranks : 1) * sizeof *run_end);
    if (!key || !run_end) {
        tr_free(key);
        tr_free(run_end);
        return TR_FATAL;
    }
    n = 0;
    for (size_t r = 0; r < ranks; r++) {
        const rec_rank *rk = &m->rk[r];
        for (uint64_t pos = 0; pos < rk->n; pos += step)
            key[n++] = rec_ticks_ns(run, rk->samp[pos / REC_SAMPLE]);
        run_end[r] = n;
    }
    const int64_t *in_order = merge_runs(key, key + n, run_end, ranks);
    for (size_t j = 1; j < m->n_chunks; j++)
        for (size_t r = 0; r < ranks; r++)
            m->cut[j * ranks + r] = cut_at(run, &m->rk[r], in_order[m->chunk_at[j] * n / m->rows]);
    tr_free(key);
    tr_free(run_end);
    return TR_OK;
}

static unsigned bits(uint64_t x)
{
    return x ? 64 - (unsigned)__builtin_clzll(x) : 0;
}

/*
** Whether the merge's key can be whole: start ticks, then the longest
** duration minus the record's, then the leaf, in 63 bits, which orders as
** the nanoseconds do when a tick is a whole number of them.
*/
static void merge_key(rec_model *m, int overflow)
{
    size_t ranks = (size_t)m->run->ranks, k = 1;
    while (k < ranks) k *= 2;
    uint64_t start = 0;
    int64_t lo = 0, hi = 0;
    for (size_t r = 0; r < ranks; r++) {
        const rec_rank *o = &m->rk[r];
        start = o->last_start > start ? o->last_start : start;
        lo = o->dur_min < lo ? o->dur_min : lo;
        hi = o->dur_max > hi ? o->dur_max : hi;
    }
    if (overflow || !m->run->res_ns || start > m->limit) return;
    m->key_leaf = bits(k - 1);
    m->key_start = bits((uint64_t)hi - (uint64_t)lo) + m->key_leaf;
    m->key_dur = (uint64_t)hi;
    m->key_whole = m->key_start + bits(start) <= 63;
}

/* Where the chunk after the one from row AT ends, of ROWS merged on T threads (0: one chunk). */
static size_t chunk_next(size_t rows, size_t t, size_t at)
{
    size_t left = rows - at, size = t ? left / (2 * t) : left;
    size = size > FILL_CHUNK_MIN ? size : FILL_CHUNK_MIN;
    return size < left ? at + size : rows;
}

/* Where the block goes, how many chunks merge it and where each starts. */
int rec_merge_plan(rec_model *m, tr_error *e)
{
    size_t base[TR_EV_KIND_COUNT], ranks = (size_t)m->run->ranks;
    tr_trace_event_counts(m->t, base);
    if (m->rows >= TR_NONE - 1 - base[TR_EV_SLICE]) return tr_error_nomem(e);
    m->first = (uint32_t)base[TR_EV_SLICE];
    int overflow = 0;
    for (size_t r = 0; r < ranks; r++) overflow |= m->rk[r].overflow;
    merge_key(m, overflow);
    /*
    ** One chunk on one thread.  Else each takes a 2T-th of the rows left, at
    ** least FILL_CHUNK_MIN: the threads take the chunks in order as they come
    ** free, so the small last ones even out their ends (with 4T equal ones, a
    ** thread whose pages came slower left the other idle for most of one).
    */
    size_t t = m->threads == 1 || overflow ? 0 : (size_t)tr_pool_threads(m->threads, SIZE_MAX);
    m->n_chunks = 1;
    for (size_t at = chunk_next(m->rows, t, 0); at < m->rows; at = chunk_next(m->rows, t, at))
        m->n_chunks++;
    m->cut = tr_calloc((m->n_chunks + 1) * ranks, sizeof *m->cut);
    m->chunk_at = tr_calloc(m->n_chunks + 1, sizeof *m->chunk_at);
    if (!m->cut || !m->chunk_at) return tr_error_nomem(e);
    /* the rows aimed at first; then the rows the cuts give */
    for (size_t j = 1; j < m->n_chunks; j++)
        m->chunk_at[j] = chunk_next(m->rows, t, m->chunk_at[j - 1]);
    for (size_t r = 0; r < ranks; r++) m->cut[m->n_chunks * ranks + r].pos = m->rk[r].n;
    if (m->n_chunks > 1 && split_chunks(m) != TR_OK) return tr_error_nomem(e);
    for (size_t j = 0; j <= m->n_chunks; j++) {
        m->chunk_at[j] = 0;
        for (size_t r = 0; r < ranks; r++) m->chunk_at[j] += (size_t)m->cut[j * ranks + r].pos;
    }
    return TR_OK;
}

/*
** The tracks, made in the order their first records come in the merge (as
** appending row by row made them): the merge runs on one thread until every
** thread has been seen, or, when a rank ends too late, to the record that
** says so first.
*/
int rec_merge_tracks(rec_model *m, tr_error *e)
{
    size_t want = 0, have = 0, ranks = (size_t)m->run->ranks;
    int overflow = 0;
    for (size_t r = 0; r < ranks; r++) {
        want += m->rk[r].nest.len;
        overflow |= m->rk[r].overflow;
    }
    if (!want) return TR_OK;
    tourney tv;
    int32_t bad;
    if (tourney_open(m, m->cut, m->cut + m->n_chunks * ranks, &tv, &bad) != TR_OK)
        return tr_error_nomem(e);
    int rc = bad >= 0 ? rec_merge_overflow(m, bad, e) : TR_OK;
    while (rc == TR_OK && (have < want || overflow)) {
        uint32_t i = tv.node[0].leaf;
        cursor *cu = &tv.c[i];
        if (cu->done) break;
        rank_out *o = &m->ro[cu->rank];
        size_t before = o->tracks.len;
        if (!rec_track_for(m, o, cu->rank, cu->sig->tid)) {
            rc = tr_error_nomem(e);
            break;
        }
        have += o->tracks.len - before;
        cu->pos++;
        if (cursor_load(m, cu) < 0)
            rc = rec_merge_overflow(m, cu->rank, e);
        else
            tourney_replay(&tv, i);
    }
    tourney_close(&tv);
    return rc;
}

/* ---- the chunks merged and put (on the pool's threads) ---- */

/* The track of RO's thread TID, which rec_merge_tracks made (read-only: fill jobs share it). */
static uint32_t track_of(const rank_out *ro, int64_t tid)
{
    for (size_t i = 0; i < ro->tracks.len; i++) {
        const tid_track *tt = &TR_VEC_AT(&ro->tracks, tid_track, i);
        if (tt->tid == tid) return tt->track;
    }
    return TR_NONE;
}

/* A duration too long for the row, set by tr_slice_end once the jobs are done. */
typedef struct wide_end {
    uint32_t row;
    int64_t end;
} wide_end;

/* A row whose parent is in an earlier chunk: its row is known once the jobs are done. */
typedef struct late_parent {
    uint32_t row, up;
    int32_t rank;
} late_parent;

/* One fill job: a chunk, merged and put. */
typedef struct fill_job {
    tr_vec wide; /* wide_end */
    tr_vec late; /* late_parent */
    int rc;
} fill_job;

typedef struct fill_pool {
    rec_model *m;
    fill_job *job;
} fill_pool;

static int fill_chunk(void *user, size_t j)
{
    fill_pool *fp = user;
    rec_model *m = fp->m;
    fill_job *job = &fp->job[j];
    size_t ranks = (size_t)m->run->ranks;
    tourney tv;
    int32_t bad;
    if (tourney_open(m, m->cut + j * ranks, m->cut + (j + 1) * ranks, &tv, &bad) != TR_OK)
        return job->rc = TR_FATAL;
    int rc = TR_OK;
    for (size_t at = m->chunk_at[j]; at < m->chunk_at[j + 1] && rc == TR_OK; at++) {
        uint32_t i = tv.node[0].leaf;
        cursor *cu = &tv.c[i];
        uint64_t pos = cu->pos;
        const sig_model *s = cu->sig;
        if (s->tid != cu->tid || cu->track == TR_NONE) {
            cu->tid = s->tid;
            cu->track = track_of(&m->ro[cu->rank], s->tid);
        }
        uint32_t row = m->first + (uint32_t)at, up = cu->up[pos], parent = TR_NONE;
        cu->up[pos] = (uint32_t)at; /* read once, here: the parents after it look up its row */
        if (up != TR_NONE && up >= cu->begin) {
            parent = m->first + cu->up[up];
        } else if (up != TR_NONE) {
            late_parent *lp = tr_vec_push(&job->late);
            if (lp) *lp = (late_parent){row, up, cu->rank};
            rc = lp ? TR_OK : TR_FATAL;
        }
        int64_t dur = cu->dur < 0 ? 0 : cu->dur;
        int put = tr_slice_put(m->t, row, cu->track, cu->start, dur, s->name, s->cat, s->bytes,
                               s->args, parent);
        if (put == TR_END) {
            wide_end *w = tr_vec_push(&job->wide);
            if (w) *w = (wide_end){row, cu->start + dur};
            put = w ? TR_OK : TR_FATAL;
        }
        if (rc == TR_OK) rc = put;
        cu->pos++;
        cursor_load(m, cu);
        tourney_replay(&tv, i);
    }
    tourney_close(&tv);
    return job->rc = rc;
}

/* The merged rows into the model: one block, its chunks merged and put on the pool's threads. */
int rec_fill_rows(rec_model *m, tr_error *e)
{
    size_t n_chunks = m->rows ? m->n_chunks : 0;
    fill_job *job = tr_calloc(n_chunks ? n_chunks : 1, sizeof *job);
    if (!job) return tr_error_nomem(e);
    int rc = TR_OK, bytes = 0; /* the width the sizes need (tr_slice_add_rows) */
    /* Room for the calls in flight too, which come after: the block is the table's size. */
    size_t fly = 0;
    for (int32_t r = 0; r < m->run->ranks; r++) {
        const rec_rank *rk = &m->rk[r];
        const rec_cst *c = m->run->ipc ? &m->run->shared : &rk->cst;
        fly += rk->fly.n;
        /* a size column only when a record has a size; 4 bytes a row while they fit */
        for (uint32_t i = 0; i < c->n; i++) {
            int64_t b = m->ro[r].sm[i].bytes;
            if (rk->used[i] && b != -1)
                bytes = b < -1 || b > (int64_t)UINT32_MAX - 1 ? 8 : bytes | 4;
        }
    }
    if (tr_slice_reserve(m->t, m->rows + fly) != TR_OK ||
        tr_slice_add_rows(m->t, m->rows, m->rows > 0, bytes) != m->first)
        rc = tr_error_nomem(e);
    for (size_t j = 0; j < n_chunks; j++) {
        tr_vec_init(&job[j].wide, sizeof(wide_end));
        tr_vec_init(&job[j].late, sizeof(late_parent));
    }
    fill_pool fp = {m, job};
    if (rc == TR_OK) tr_pool_run(tr_pool_threads(m->threads, n_chunks), n_chunks, fill_chunk, &fp);
    for (size_t j = 0; j < n_chunks; j++) {
        if (rc == TR_OK && job[j].rc != TR_OK) rc = tr_error_nomem(e);
        for (size_t i = 0; rc == TR_OK && i < job[j].wide.len; i++) {
            const wide_end *w = &TR_VEC_AT(&job[j].wide, wide_end, i);
            tr_slice_end(m->t, w->row, w->end);
        }
        for (size_t i = 0; rc == TR_OK && i < job[j].late.len; i++) {
            const late_parent *lp = &TR_VEC_AT(&job[j].late, late_parent, i);
            tr_slice_set_parent(m->t, lp->row, m->first + m->rk[lp->rank].up[lp->up]);
        }
        tr_vec_fini(&job[j].wide);
        tr_vec_fini(&job[j].late);
    }
    tr_free(job);
    return rc == TR_OK ? tr_trace_status(m->t, e) : rc;
}
