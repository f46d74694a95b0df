/* freeze.c: sorting the tables by time, nesting slices, and reading them back. */
#include "model_impl.h"
#include "tr_pool.h"

#include <string.h>

/* What a table is sorted by: TS, and for slices (S not NULL) their durations. */
typedef struct sort_key {
    const int64_t *ts;
    const slice_table *s;
    const uint8_t *given; /* tracks whose slices keep the source's sequence, or NULL */
    size_t n_tracks;
    size_t ordered; /* the first rows known to be in order (instant_table) */
} sort_key;

/* Slice R's duration as the sort sees it: 0 on tracks whose nesting is given. */
static inline int64_t key_dur(const sort_key *k, uint32_t r)
{
    uint32_t tk = k->s->track[r];
    if (k->given && tk < k->n_tracks && k->given[tk]) return 0;
    return model_slice_dur(k->s, r);
}

/*
** The order of rows in every table: by time, then (slices only) the longer
** first, then input order.
*/
static inline int row_before(const sort_key *k, uint32_t a, uint32_t b)
{
    if (k->ts[a] != k->ts[b]) return k->ts[a] < k->ts[b];
    if (k->s) {
        int64_t da = key_dur(k, a), db = key_dur(k, b);
        if (da != db) return da > db; /* the longer one encloses the other */
    }
    return a < b;
}

/* Merges the sorted rows A[I..I_END) and A[J..J_END) into B from K on. */
static void merge_into(const sort_key *key, const uint32_t *a, uint32_t *b, size_t i, size_t i_end,
                       size_t j, size_t j_end, size_t k)
{
    while (i < i_end && j < j_end) b[k++] = row_before(key, a[j], a[i]) ? a[j++] : a[i++];
    while (i < i_end) b[k++] = a[i++];
    while (j < j_end) b[k++] = a[j++];
}

/* Merges the sorted rows A[LO..MID) and A[MID..HI) into B[LO..HI). */
static void merge_two(const sort_key *key, const uint32_t *a, uint32_t *b, size_t lo, size_t mid,
                      size_t hi)
{
    merge_into(key, a, b, lo, mid, mid, hi, lo);
}

/* Merge sort of the N rows at A, using B (N rows) as room; returns the sorted array. */
static uint32_t *merge_rows(const sort_key *key, uint32_t *a, uint32_t *b, size_t n)
{
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            merge_two(key, a, b, lo, mid, hi);
        }
        uint32_t *swap = a;
        a = b;
        b = swap;
    }
    return a;
}

/*
** How many of the first C rows that merging A[LO..MID) and A[MID..HI) gives
** come from the first run (no two rows tie: the row breaks ties).
*/
static size_t merge_split(const sort_key *key, const uint32_t *a, size_t lo, size_t mid, size_t hi,
                          size_t c)
{
    size_t left = mid - lo, right = hi - mid;
    size_t p = c > right ? c - right : 0, p_hi = c < left ? c : left;
    while (p < p_hi) {
        size_t m = p + (p_hi - p) / 2;
        if (row_before(key, a[lo + m], a[mid + c - m - 1]))
            p = m + 1;
        else
            p_hi = m;
    }
    return p;
}

/* One pass of merge_runs: every pair of runs, each merge cut into PIECES that threads share. */
typedef struct runs_pass {
    const sort_key *key;
    const uint32_t *a;
    uint32_t *b;
    const size_t *end;
    size_t n_runs, pieces;
} runs_pass;

/* Piece JOB % PIECES of the merge of pair JOB / PIECES: its rows of the output, found apart. */
static int merge_piece(void *user, size_t job)
{
    const runs_pass *p = user;
    size_t r = job / p->pieces * 2, piece = job % p->pieces;
    size_t lo = r ? p->end[r - 1] : 0, mid = p->end[r], hi = p->end[r + 1 < p->n_runs ? r + 1 : r],
           n = hi - lo;
    size_t c0 = tr_pool_part(n, p->pieces, piece), c1 = tr_pool_part(n, p->pieces, piece + 1);
    size_t l0 = merge_split(p->key, p->a, lo, mid, hi, c0),
           l1 = merge_split(p->key, p->a, lo, mid, hi, c1);
    merge_into(p->key, p->a, p->b, lo + l0, lo + l1, mid + c0 - l0, mid + c1 - l1, lo + c0);
    return TR_OK;
}

/*
** Merges the sorted runs of A (run R ends at END[R], N_RUNS of them) two by
** two until one is left, through B, on THREADS threads; returns the sorted
** array.  Each merge is cut where the output's rows are (merge_split), so
** the last one, of two halves, is shared too.
*/
static uint32_t *merge_runs(const sort_key *key, uint32_t *a, uint32_t *b, size_t *end,
                            size_t n_runs, int threads)
{
    size_t pieces = (size_t)tr_pool_parts(threads, end[n_runs - 1], TR_POOL_ROWS);
    while (n_runs > 1) {
        size_t pairs = (n_runs + 1) / 2;
        runs_pass p = {key, a, b, end, n_runs, pieces};
        tr_pool_run(tr_pool_threads(threads, pairs * pieces), pairs * pieces, merge_piece, &p);
        for (size_t r = 0; r < pairs; r++) end[r] = end[2 * r + 1 < n_runs ? 2 * r + 1 : 2 * r];
        n_runs = pairs;
        uint32_t *swap = a;
        a = b;
        b = swap;
    }
    return a;
}

typedef struct order_check {
    const sort_key *key;
    size_t from, n, parts; /* rows FROM..N are checked */
    unsigned char out_of_order[TR_POOL_MAX];
} order_check;

/* Part J's rows each after the one before; an out-of-order part stops the later ones. */
static int check_part(void *user, size_t j)
{
    order_check *c = user;
    size_t lo = c->from + tr_pool_part(c->n - c->from, c->parts, j),
           hi = c->from + tr_pool_part(c->n - c->from, c->parts, j + 1);
    for (size_t i = lo ? lo : 1; i < hi; i++)
        if (row_before(c->key, (uint32_t)i, (uint32_t)(i - 1))) {
            c->out_of_order[j] = 1;
            return TR_FATAL;
        }
    return TR_OK;
}

/* Whether the N rows are in order already, checked in parts on THREADS threads. */
static int in_order(const sort_key *key, size_t n, int threads)
{
    if (key->ordered >= n) return 1;
    size_t from = key->ordered ? key->ordered - 1 : 0;
    order_check c = {key, from, n, (size_t)tr_pool_parts(threads, n - from, TR_POOL_ROWS), {0}};
    tr_pool_run((int)c.parts, c.parts, check_part, &c);
    for (size_t j = 0; j < c.parts; j++)
        if (c.out_of_order[j]) return 0;
    return 1;
}

/*
** The most runs sort_rows merges (past them it merge sorts all rows), and
** the farthest a row moves back in a run (the next input's first rows
** would walk back through the whole previous one).
*/
#define MAX_RUNS 4096
#define MAX_WALK 4096

/*
** Rows LO..HI of A, set to LO..HI-1 and cut into runs, each sorted by
** insertion; the runs' ends go to END (ROOM of them at most), *N_RUNS of
** them.  Returns where it stopped: HI, or before when the room ran out.
**
** Readers append nearly in time order (a slice when it ends, just after
** the slices it encloses), so insertion sort finishes in a few steps a
** row; inputs read one after another are runs of that kind, each back at
** the timeline's start.  A row before its run's first starts the next
** run, and so does one that would move back more than MAX_WALK rows or
** overrun the run's budget of moves (8 a row), which keeps other input
** from going quadratic; the runs are merged.
*/
static size_t insert_runs(const sort_key *key, uint32_t *a, size_t lo, size_t hi, size_t *end,
                          size_t room, size_t *n_runs)
{
    for (size_t i = lo; i < hi; i++) a[i] = (uint32_t)i;
    size_t start = lo, budget = 1024, i = lo + 1;
    *n_runs = 0;
    for (; i < hi; i++) {
        uint32_t r = a[i];
        size_t j = i;
        budget += 8;
        int fits = !row_before(key, r, a[start]); /* then a[start] stops the walk back */
        if (fits) {
            size_t most = budget < MAX_WALK ? budget : MAX_WALK;
            while (i - j < most && row_before(key, r, a[j - 1])) j--;
            fits = !row_before(key, r, a[j - 1]);
        }
        if (fits) {
            memmove(a + j + 1, a + j, (i - j) * sizeof *a);
            a[j] = r;
            budget -= i - j;
            continue;
        }
        if (*n_runs + 1 == room) break;
        end[(*n_runs)++] = i;
        start = i;
        budget = 1024;
    }
    end[(*n_runs)++] = hi;
    return i < hi ? i : hi;
}

/* The rows cut into parts that threads sort into runs apart (insert_runs). */
typedef struct runs_parts {
    const sort_key *key;
    uint32_t *a;
    size_t *end; /* part J's runs end at end[J * room ...] */
    size_t room, parts;
    size_t cut[TR_POOL_MAX + 1];
    size_t n_runs[TR_POOL_MAX];
    int short_of_room[TR_POOL_MAX];
} runs_parts;

static int runs_part(void *user, size_t j)
{
    runs_parts *p = user;
    size_t hi = p->cut[j + 1];
    p->short_of_room[j] = insert_runs(p->key, p->a, p->cut[j], hi, p->end + j * p->room, p->room,
                                      &p->n_runs[j]) != hi;
    return TR_OK;
}

/*
** Where part J of PARTS of the N rows could start: near its even share, at
** the row that steps back in time the most within the part's first half.
** An input read after another steps back to the timeline's start, so the
** cut falls where the runs change anyway and adds no run to merge.
*/
static size_t runs_cut(const int64_t *ts, size_t n, size_t parts, size_t j)
{
    size_t lo = tr_pool_part(n, parts, j), hi = lo + (tr_pool_part(n, parts, j + 1) - lo) / 2;
    size_t best = lo;
    uint64_t most = 0;
    for (size_t i = lo > 0 ? lo : 1; i < hi; i++)
        if (ts[i] < ts[i - 1] && (uint64_t)ts[i - 1] - (uint64_t)ts[i] > most)
            most = (uint64_t)ts[i - 1] - (uint64_t)ts[i], best = i;
    return best;
}

/*
** The rows in runs: END gets their ends, *N_RUNS of them, on THREADS
** threads.  Returns 0 when a part ran out of room for runs (the rows are
** then in no useful order), else 1.
*/
static int sort_runs(const sort_key *key, uint32_t *a, size_t n, int threads, size_t *end,
                     size_t *n_runs)
{
    runs_parts p = {.key = key, .a = a, .end = end, .parts = 1};
    /*
    ** A cut is kept only where the rows are back at (or before) the time
    ** the part before began: elsewhere (one input, nearly in order) it
    ** would split a run, which would cost a pass of merge_runs.
    */
    size_t most = (size_t)tr_pool_parts(threads, n, TR_POOL_ROWS);
    for (size_t j = 1; j < most; j++) {
        size_t c = runs_cut(key->ts, n, most, j);
        if (key->ts[c] <= key->ts[p.cut[p.parts - 1]]) p.cut[p.parts++] = c;
    }
    p.room = MAX_RUNS / p.parts;
    p.cut[p.parts] = n;
    tr_pool_run((int)p.parts, p.parts, runs_part, &p);
    *n_runs = 0;
    for (size_t j = 0; j < p.parts; j++) {
        if (p.short_of_room[j]) return 0;
        memmove(end + *n_runs, end + j * p.room, p.n_runs[j] * sizeof *end);
        *n_runs += p.n_runs[j];
    }
    return 1;
}

/*
** The row numbers 0..N-1 in table order; NULL when out of memory, or (with
** *SORTED set) when the rows are in order already.  The rows are cut into
** runs (sort_runs) and the runs merged; past MAX_RUNS runs merge sort takes
** over (any permutation is fine: ties go by row).
*/
static uint32_t *sort_rows(const sort_key *key, size_t n, int threads, int *sorted)
{
    if ((*sorted = in_order(key, n, threads)) != 0) return NULL;
    uint32_t *a = tr_malloc(n * sizeof *a), *b = NULL, *out = NULL;
    size_t *end = tr_malloc(MAX_RUNS * sizeof *end), n_runs = 0;
    if (!a || !end) goto done;
    int whole = sort_runs(key, a, n, threads, end, &n_runs);
    if (n_runs == 1 && whole) {
        out = a;
        a = NULL;
    } else if ((b = tr_malloc(n * sizeof *b)) != NULL) {
        out = whole ? merge_runs(key, a, b, end, n_runs, threads) : merge_rows(key, a, b, n);
        if (out == b) b = a;
        a = NULL;
    }
done:
    tr_free(a);
    tr_free(b);
    tr_free(end);
    return out;
}

/* Gathers column COL (N elements of SIZE bytes) into OUT in the order ORDER gives. */
static void gather(const void *col, size_t size, size_t n, const uint32_t *order, void *out)
{
    const unsigned char *c = col;
    switch (size) {
    case 8: {
        uint64_t *o = out;
        const uint64_t *v = col;
        for (size_t i = 0; i < n; i++) o[i] = v[order[i]];
        break;
    }
    case 4: {
        uint32_t *o = out;
        const uint32_t *v = col;
        for (size_t i = 0; i < n; i++) o[i] = v[order[i]];
        break;
    }
    case 2: {
        uint16_t *o = out;
        const uint16_t *v = col;
        for (size_t i = 0; i < n; i++) o[i] = v[order[i]];
        break;
    }
    case 1: {
        uint8_t *o = out;
        const uint8_t *v = col;
        for (size_t i = 0; i < n; i++) o[i] = v[order[i]];
        break;
    }
    default:
        for (size_t i = 0; i < n; i++)
            memcpy((unsigned char *)out + i * size, c + (size_t)order[i] * size, size);
    }
}

/* A column gathered, or the order inverted, in parts on the pool. */
typedef struct gather_job {
    const void *col;
    size_t size, n, parts;
    const uint32_t *order;
    void *out;
} gather_job;

static int gather_part(void *user, size_t j)
{
    const gather_job *g = user;
    size_t lo = tr_pool_part(g->n, g->parts, j), hi = tr_pool_part(g->n, g->parts, j + 1);
    gather(g->col, g->size, hi - lo, g->order + lo, (unsigned char *)g->out + lo * g->size);
    return TR_OK;
}

/* The inverse of the order: out[order[i]] = i. */
static int invert_part(void *user, size_t j)
{
    const gather_job *g = user;
    uint32_t *inv = g->out;
    size_t lo = tr_pool_part(g->n, g->parts, j), hi = tr_pool_part(g->n, g->parts, j + 1);
    for (size_t i = lo; i < hi; i++) inv[g->order[i]] = (uint32_t)i;
    return TR_OK;
}

/*
** Sorts one table by KEY: COLS point to its columns, which may move.  On
** return *NEW_ROW maps an old row to its new one (NULL when the table was
** already in order).
*/
static int sort_table(size_t n, const sort_key *key, int threads, void **cols[],
                      const size_t sizes[], size_t ncols, uint32_t **new_row)
{
    int sorted;
    *new_row = NULL;
    uint32_t *order = sort_rows(key, n, threads, &sorted);
    if (sorted) return TR_OK;
    if (!order) return TR_FATAL;
    size_t widest = 0;
    for (size_t c = 0; c < ncols; c++) widest = sizes[c] > widest ? sizes[c] : widest;
    void *room = tr_malloc(n * widest);
    if (!room) {
        tr_free(order);
        return TR_FATAL;
    }
    /*
    ** A column is gathered into ROOM, which becomes the column, and its old
    ** block (room for n rows at least) is the next one's room: widest first,
    ** so that it fits.  Nothing is copied back.
    */
    unsigned char placed[MODEL_SLICE_COLS] = {0}; /* no table has more columns than slices */
    gather_job g = {
        .n = n, .parts = (size_t)tr_pool_parts(threads, n, TR_POOL_ROWS), .order = order};
    size_t last = 0;
    for (size_t k = 0; k < ncols; k++) {
        size_t c = ncols;
        for (size_t j = 0; j < ncols; j++)
            if (!placed[j] && (c == ncols || sizes[j] > sizes[c])) c = j;
        placed[c] = 1;
        last = sizes[c];
        g.col = *cols[c];
        g.size = sizes[c];
        g.out = room;
        tr_pool_run((int)g.parts, g.parts, gather_part, &g);
        void *old = *cols[c];
        *cols[c] = room;
        room = old;
    }
    /* The last block left holds n rows of the narrowest column: the inverse fits when 4 bytes do.
     */
    uint32_t *inv = last >= sizeof *inv ? room : tr_malloc(n * sizeof *inv);
    if (inv != room) tr_free(room);
    if (!inv) {
        tr_free(order);
        return TR_FATAL;
    }
    g.out = inv;
    tr_pool_run((int)g.parts, g.parts, invert_part, &g);
    tr_free(order);
    *new_row = inv;
    return TR_OK;
}

typedef struct open_count {
    const slice_table *s;
    size_t parts, open[TR_POOL_MAX];
} open_count;

static int count_open_part(void *user, size_t j)
{
    open_count *c = user;
    const slice_table *s = c->s;
    size_t open = 0, hi = tr_pool_part(s->n, c->parts, j + 1);
    for (size_t i = tr_pool_part(s->n, c->parts, j); i < hi; i++)
        open += s->dur[i] == TR_DUR_WIDE && model_slice_dur(s, i) < 0;
    c->open[j] = open;
    return TR_OK;
}

/*
** Open slices end where their input's events end.  An open slice's duration,
** negative, is in the side table of wide ones: while none there is negative,
** no row is open, and the rows are not read.
*/
static int close_open_slices(tr_trace *t)
{
    slice_table *s = &t->slices;
    const int64_t *wide = s->wide_dur.data;
    size_t k = 0;
    while (k < s->wide_dur.len && wide[k] >= 0) k++;
    if (k == s->wide_dur.len) return TR_OK;
    open_count c = {s, (size_t)tr_pool_parts(t->threads, s->n, TR_POOL_ROWS), {0}};
    tr_pool_run((int)c.parts, c.parts, count_open_part, &c);
    size_t open = 0;
    for (size_t j = 0; j < c.parts; j++) open += c.open[j];
    if (open == 0) return TR_OK;
    size_t n_inputs = t->inputs.len ? t->inputs.len : 1, n_tracks = t->tracks.len;
    int64_t *end = tr_malloc(n_inputs * sizeof *end);
    /* Each track's input, looked up once rather than once an event. */
    uint32_t *input = tr_malloc((n_tracks ? n_tracks : 1) * sizeof *input);
    if (!end || !input) {
        tr_free(end);
        tr_free(input);
        return TR_FATAL;
    }
    for (size_t i = 0; i < n_inputs; i++) end[i] = INT64_MIN;
    int all_first = 1; /* every track is of input 0 (one input read): nothing to look up */
    for (size_t i = 0; i < n_tracks; i++) {
        const tr_process *p = tr_process_get(t, tr_track_get(t, (uint32_t)i)->process);
        input[i] = p ? p->input : 0;
        all_first &= input[i] == 0;
    }
#define TRACK_INPUT(track) (!all_first && (track) < n_tracks ? input[track] : 0)
#define SPAN(tab, from, trackexpr, endexpr)                                                        \
    for (size_t i = (from); i < (tab).n; i++) {                                                    \
        uint32_t in = TRACK_INPUT(trackexpr);                                                      \
        int64_t e = (endexpr);                                                                     \
        if (in < n_inputs && e > end[in]) end[in] = e;                                             \
    }
    /* Instants in order (one input's): the last of them ends latest, the rest are not read. */
    size_t in_from = all_first && t->instants.ordered ? t->instants.ordered - 1 : 0;
    SPAN(t->slices, 0, s->track[i],
         model_slice_dur(s, i) >= 0 ? tr_time_add(s->ts[i], model_slice_dur(s, i)) : s->ts[i])
    SPAN(t->instants, in_from, (uint32_t)model_col_get(&t->instants.track, i), t->instants.ts[i])
    SPAN(t->counters, 0, t->counters.track[i], t->counters.ts[i])
    SPAN(t->samples, 0, t->samples.track[i], t->samples.ts[i])
#undef SPAN
    int rc = TR_OK;
    for (size_t i = 0; i < s->n; i++) {
        if (model_slice_dur(s, i) >= 0) continue;
        uint32_t in = TRACK_INPUT(s->track[i]);
        int64_t e = in < n_inputs ? end[in] : s->ts[i];
        rc |= model_slice_set_dur(s, i, e > s->ts[i] ? e - s->ts[i] : 0);
    }
#undef TRACK_INPUT
    tr_free(end);
    tr_free(input);
    return rc ? TR_FATAL : TR_OK;
}

/* Whether track TK's slices carry the parents their reader stated. */
static int nest_given(const tr_trace *t, uint32_t tk)
{
    const tr_track *track = tr_track_get(t, tk);
    return track && track->nesting == TR_NEST_GIVEN;
}

/* The depth of slice I from its stated parents; rows before I have theirs already. */
static uint16_t given_depth(const slice_table *s, size_t i)
{
    uint32_t d = 0;
    for (uint32_t p = s->parent[i]; p != TR_NONE && d < UINT16_MAX; p = s->parent[p]) {
        if (p < i) {
            d += (uint32_t)s->depth[p] + 1;
            break;
        }
        d++;
    }
    return d > UINT16_MAX ? UINT16_MAX : (uint16_t)d;
}

/*
** Depths from stated parents in parts on several threads.  A part takes the
** depth of a parent in the part; a row whose parents lead to an earlier part
** (or to such a row) waits, marked in WAIT, for the walk in row order that
** follows, where given_depth finds every earlier row's depth made.
*/
typedef struct given_nest {
    slice_table *s;
    size_t n_tracks, parts;
    uint64_t *wait; /* a bit a row */
} given_nest;

static int given_part(void *user, size_t j)
{
    given_nest *g = user;
    slice_table *s = g->s;
    size_t lo = tr_pool_part(s->n, g->parts, j), hi = tr_pool_part(s->n, g->parts, j + 1);
    for (size_t i = lo; i < hi; i++) {
        if (s->track[i] >= g->n_tracks) {
            s->depth[i] = 0;
            continue;
        }
        uint32_t d = 0;
        int waits = 0;
        for (uint32_t p = s->parent[i]; p != TR_NONE && d < UINT16_MAX; p = s->parent[p]) {
            if (p < i) {
                waits = p < lo || (g->wait[p / 64] >> (p % 64) & 1);
                if (!waits) d += (uint32_t)s->depth[p] + 1;
                break;
            }
            d++;
        }
        if (waits)
            g->wait[i / 64] |= (uint64_t)1 << (i % 64);
        else
            s->depth[i] = d > UINT16_MAX ? UINT16_MAX : (uint16_t)d;
    }
    return TR_OK;
}

/* Every track's nesting given: the depths in parts; TR_FATAL (nothing done) when out of memory. */
static int nest_given_parts(tr_trace *t)
{
    slice_table *s = &t->slices;
    given_nest g = {s, t->tracks.len, (size_t)tr_pool_parts(t->threads, s->n, TR_POOL_ROWS), NULL};
    if (!(g.wait = tr_calloc(s->n / 64 + 1, sizeof *g.wait))) return TR_FATAL;
    tr_pool_run((int)g.parts, g.parts, given_part, &g);
    for (size_t w = 0; w <= s->n / 64; w++)
        for (uint64_t bits = g.wait[w]; bits; bits &= bits - 1) {
            size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
            s->depth[i] = given_depth(s, i);
        }
    tr_free(g.wait);
    return TR_OK;
}

/*
** Depth and parent: each track keeps its innermost open slice while walking
** in time order; tracks whose nesting is given keep their stated parents.
*/
static int nest_slices(tr_trace *t, const uint8_t *given, int all_given)
{
    slice_table *s = &t->slices;
    size_t n_tracks = t->tracks.len;
    /* made now, not sorted: no parent was stated, or none was before the sort; every row's
     * depth is written below, not filled first: the parts' threads touch their pages first */
    if ((!s->parent && model_slice_make_column(s, (void **)&s->parent, 4, 0xff) != TR_OK) ||
        (!s->depth && !(s->depth = tr_malloc((s->cap ? s->cap : 1) * sizeof *s->depth))))
        return TR_FATAL;
    if (all_given && tr_pool_parts(t->threads, s->n, TR_POOL_ROWS) > 1 &&
        nest_given_parts(t) == TR_OK)
        return TR_OK;
    uint32_t *open = tr_malloc((n_tracks ? n_tracks : 1) * sizeof *open);
    if (!open) return TR_FATAL;
    for (size_t i = 0; i < n_tracks; i++) open[i] = TR_NONE;
    for (size_t i = 0; i < s->n; i++) {
        uint32_t tk = s->track[i];
        if (tk >= n_tracks) {
            s->depth[i] = 0;
            continue;
        }
        if (given && given[tk]) {
            s->depth[i] = given_depth(s, i);
            continue;
        }
        uint32_t cur = open[tk];
        /* Slices that ended by now are closed; a zero-length one encloses nothing. */
        while (cur != TR_NONE &&
               (tr_time_add(s->ts[cur], model_slice_dur(s, cur)) <= s->ts[i] || s->dur[cur] == 0))
            cur = s->parent[cur];
        s->parent[i] = cur;
        s->depth[i] = cur == TR_NONE                ? 0
                      : s->depth[cur] == UINT16_MAX ? UINT16_MAX
                                                    : (uint16_t)(s->depth[cur] + 1);
        open[tk] = (uint32_t)i;
    }
    tr_free(open);
    return TR_OK;
}

/* The rows ROWS of flow ends of kinds KINDS follow their events' sort. */
static void remap(uint32_t *rows, const model_col *kinds, size_t n,
                  uint32_t *const new_row[TR_EV_KIND_COUNT])
{
    for (size_t i = 0; i < n; i++) {
        int64_t kind = model_col_get(kinds, i);
        if (kind >= 0 && kind < TR_EV_KIND_COUNT && new_row[kind]) rows[i] = new_row[kind][rows[i]];
    }
}

/* The tracks whose nesting is given, in *GIVEN (NULL when none is); *ALL when every one is. */
static int given_tracks(const tr_trace *t, uint8_t **given, int *all)
{
    size_t n_tracks = t->tracks.len, any = 0;
    *given = NULL;
    for (size_t i = 0; i < n_tracks; i++) any += nest_given(t, (uint32_t)i);
    *all = any && any == n_tracks;
    if (!any) return TR_OK;
    if (!(*given = tr_malloc(n_tracks))) return TR_FATAL;
    for (size_t i = 0; i < n_tracks; i++) (*given)[i] = (uint8_t)nest_given(t, (uint32_t)i);
    return TR_OK;
}

/* Stated parents and the side table's durations name rows before the sort: they follow. */
static int remap_slice_rows(slice_table *s, const uint32_t *new_row)
{
    if (!new_row) return TR_OK;
    for (size_t i = 0; s->parent && i < s->n; i++)
        if (s->parent[i] != TR_NONE) s->parent[i] = new_row[s->parent[i]];
    tr_map moved = {0};
    for (size_t j = 0; j < s->wide.cap; j++) {
        if (s->wide.vals[j] == UINT32_MAX || s->wide.keys[j] >= s->n) continue;
        uint32_t row = new_row[s->wide.keys[j]];
        if (s->dur[row] != TR_DUR_WIDE) continue; /* the slice's duration fits again */
        int is_new;
        uint32_t *k = tr_map_slot(&moved, row, &is_new);
        if (!k) {
            tr_map_fini(&moved);
            return TR_FATAL;
        }
        *k = s->wide.vals[j];
    }
    tr_map_fini(&s->wide);
    s->wide = moved;
    return TR_OK;
}

static int sort_slices(tr_trace *t, const uint8_t *given, uint32_t **new_row)
{
    slice_table *s = &t->slices;
    void **cols[MODEL_SLICE_COLS];
    size_t ssizes[MODEL_SLICE_COLS], n;
    model_slice_columns(s, cols, ssizes, &n);
    sort_key key = {s->ts, s, given, t->tracks.len, 0};
    int rc = sort_table(s->n, &key, t->threads, cols, ssizes, n, new_row);
    if (rc == TR_OK) rc = remap_slice_rows(s, *new_row);
    return rc;
}

/*
** Gives back the room the columns grew into and nothing will fill now
** (a quarter of them on average: they double): large blocks shrink in place.
*/
static void shrink_columns(size_t n, size_t *cap, void **cols[], const size_t sizes[], size_t ncols)
{
    if (n == *cap) return;
    for (size_t i = 0; i < ncols; i++) {
        void *p = tr_realloc(*cols[i], (n ? n : 1) * sizes[i]);
        if (p) *cols[i] = p;
    }
    *cap = n; /* a failed shrink leaves a bigger block, which is no harm */
}

/* Shrinks V to its length and SLACK elements more. */
static void shrink_vec(tr_vec *v, size_t slack)
{
    if (v->len == 0 || v->len + slack >= v->cap) return;
    void *p = tr_realloc(v->data, (v->len + slack) * v->elem);
    if (p) v->data = p;
    v->cap = v->len + slack;
}

static void shrink_tables(tr_trace *t)
{
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) {
        model_cols c;
        model_table_columns(t, k, &c);
        shrink_columns(*c.n, c.cap, c.col, c.size, c.ncols);
    }
    model_cols fc;
    model_flow_columns(&t->flows, &fc);
    shrink_columns(t->flows.n, &t->flows.cap, fc.col, fc.size, fc.ncols);
    tr_vec *vecs[] = {&t->arg_wide, &t->set_start, &t->set_shape, &t->strs, &t->chunks};
    for (size_t i = 0; i < sizeof vecs / sizeof *vecs; i++) shrink_vec(vecs[i], 0);
    shrink_vec(&t->args, MODEL_PAY_SLACK); /* a payload is read 4 bytes at a time */
    model_args_seal_end(t);
}

/* nest_slices as a job, beside the sorts of the other tables (it reads only the slices). */
typedef struct nest_job {
    tr_trace *t;
    const uint8_t *given;
    int all_given;
    int rc;
} nest_job;

static int nest_run(void *user, size_t job)
{
    (void)job;
    nest_job *nj = user;
    nj->rc = nest_slices(nj->t, nj->given, nj->all_given);
    return nj->rc;
}

/*
** Sorts the tables by time, remaps the flows' ends to the new rows and nests
** the slices; with threads, the slices nest on a thread of their own once
** sorted, while the other tables sort (8 Kineto inputs merged: 4.8 ms of
** nesting beside 3.5 of sorting the counters).
*/
static int sort_and_nest(tr_trace *t)
{
    uint32_t *new_row[TR_EV_KIND_COUNT] = {0};
    uint8_t *given = NULL;
    int all_given = 0;
    int rc = given_tracks(t, &given, &all_given);
    if (rc == TR_OK) rc = sort_slices(t, given, &new_row[TR_EV_SLICE]);
    nest_job nj = {t, given, all_given, TR_OK};
    tr_pool_task nesting = {0};
    int beside = rc == TR_OK && tr_pool_threads(t->threads, 2) > 1;
    if (beside) tr_pool_spawn(&nesting, nest_run, &nj);

    model_cols ic;
    model_table_columns(t, TR_EV_INSTANT, &ic);
    sort_key ikey = {t->instants.ts, NULL, NULL, 0, t->instants.ordered};
    if (rc == TR_OK)
        rc = sort_table(t->instants.n, &ikey, t->threads, ic.col, ic.size, ic.ncols,
                        &new_row[TR_EV_INSTANT]);

    counter_table *c = &t->counters;
    void **ccols[] = {(void **)&c->ts, (void **)&c->value, (void **)&c->track};
    static const size_t csizes[] = {8, 8, 4};
    sort_key ckey = {c->ts, NULL, NULL, 0, 0};
    if (rc == TR_OK)
        rc = sort_table(c->n, &ckey, t->threads, ccols, csizes, 3, &new_row[TR_EV_COUNTER]);

    sample_table *sm = &t->samples;
    void **smcols[] = {(void **)&sm->ts, (void **)&sm->track, (void **)&sm->stack,
                       (void **)&sm->args};
    static const size_t smsizes[] = {8, 4, 4, 4};
    sort_key smkey = {sm->ts, NULL, NULL, 0, 0};
    if (rc == TR_OK)
        rc = sort_table(sm->n, &smkey, t->threads, smcols, smsizes, 4, &new_row[TR_EV_SAMPLE]);

    if (rc == TR_OK) {
        flow_table *fl = &t->flows;
        remap(fl->from, &fl->from_kind, fl->n, new_row);
        remap(fl->to, &fl->to_kind, fl->n, new_row);
        if (!beside) nest_run(&nj, 0);
    }
    tr_pool_join(&nesting);
    if (rc == TR_OK) rc = nj.rc;
    tr_free(given);
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) tr_free(new_row[k]);
    return rc;
}

/* Closes open slices, then sorts and nests when ORDERED (tr_trace_freeze_unordered does not). */
static int freeze(tr_trace *t, int ordered, tr_error *e)
{
    if (t->frozen) return TR_OK;
    if (t->failed) return tr_error_nomem(e);
    int rc = close_open_slices(t);
    if (rc == TR_OK && ordered) rc = sort_and_nest(t);
    if (rc != TR_OK) {
        t->failed = 1;
        return tr_error_nomem(e);
    }
    shrink_tables(t);
    t->frozen = 1;
    return TR_OK;
}

int tr_trace_freeze(tr_trace *t, tr_error *e)
{
    return freeze(t, 1, e);
}

int tr_trace_freeze_unordered(tr_trace *t, tr_error *e)
{
    return freeze(t, 0, e);
}

/* ---- views ---- */

void tr_trace_slices(const tr_trace *t, tr_slices *out)
{
    const slice_table *s = &t->slices;
    *out = (tr_slices){s->n,
                       s->ts,
                       s->track,
                       s->name,
                       s->args,
                       s->parent,
                       s->depth,
                       s->dur,
                       model_col_view(&s->cat),
                       model_col_view(&s->bytes),
                       t,
                       s->thread_ts,
                       s->thread_dur};
}

void tr_trace_instants(const tr_trace *t, tr_instants *out)
{
    const instant_table *s = &t->instants;
    *out = (tr_instants){s->n,
                         s->ts,
                         s->args,
                         model_col_view(&s->track),
                         model_col_view(&s->name),
                         model_col_view(&s->cat),
                         model_col_view(&s->scope),
                         model_col_view(&s->bytes),
                         s->ordered};
}

void tr_trace_counters(const tr_trace *t, tr_counters *out)
{
    const counter_table *s = &t->counters;
    *out = (tr_counters){s->n, s->ts, s->value, s->track};
}

void tr_trace_samples(const tr_trace *t, tr_samples *out)
{
    const sample_table *s = &t->samples;
    *out = (tr_samples){s->n, s->ts, s->track, s->stack, s->args};
}

void tr_trace_event_counts(const tr_trace *t, size_t n[TR_EV_KIND_COUNT])
{
    n[TR_EV_SLICE] = t->slices.n;
    n[TR_EV_INSTANT] = t->instants.n;
    n[TR_EV_COUNTER] = t->counters.n;
    n[TR_EV_SAMPLE] = t->samples.n;
}

/* ---- iteration in one time order ---- */

void tr_iter_init(tr_iter *it, const tr_trace *t)
{
    memset(it, 0, sizeof *it);
    it->t = t;
}

/* The first of the N times at TS (in order) that is at or after AT. */
static size_t first_at(const int64_t *ts, size_t n, int64_t at)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ts[mid] < at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void tr_iter_seek(tr_iter *it, int64_t ts)
{
    const tr_trace *t = it->t;
    it->pos[TR_EV_SLICE] = first_at(t->slices.ts, t->slices.n, ts);
    it->pos[TR_EV_INSTANT] = first_at(t->instants.ts, t->instants.n, ts);
    it->pos[TR_EV_COUNTER] = first_at(t->counters.ts, t->counters.n, ts);
    it->pos[TR_EV_SAMPLE] = first_at(t->samples.ts, t->samples.n, ts);
}

int tr_iter_next(tr_iter *it, tr_event *ev)
{
    const tr_trace *t = it->t;
    int best = -1;
    int64_t best_ts = 0;
    /* Kinds are looked at in priority order, so on equal ts the earlier kind wins. */
#define CONSIDER(kind, tab)                                                                        \
    if (it->pos[kind] < (tab).n && (best < 0 || (tab).ts[it->pos[kind]] < best_ts)) {              \
        best = kind;                                                                               \
        best_ts = (tab).ts[it->pos[kind]];                                                         \
    }
    CONSIDER(TR_EV_SLICE, t->slices)
    CONSIDER(TR_EV_INSTANT, t->instants)
    CONSIDER(TR_EV_COUNTER, t->counters)
    CONSIDER(TR_EV_SAMPLE, t->samples)
#undef CONSIDER
    if (best < 0) return 0;
    ev->kind = best;
    ev->row = (uint32_t)it->pos[best]++;
    ev->ts = best_ts;
    return 1;
}
