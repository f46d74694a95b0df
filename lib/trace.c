/*
** trace.c: the model while it is being filled: strings, inputs, processes,
** tracks, events and flows (args: trace_args.c; frames and stacks: stacks.c).
*/
#include "trace_impl.h"
#include "tr_map.h"
#include "tr_pool.h"

#include <string.h>

/* ---- the trace ---- */

/*
** The key of a track is stored beside it: tracks are few, and keeping the key
** lets a reader rename a track without breaking lookups.
*/
typedef struct track_slot {
    tr_track track;
    tr_str key;
} track_slot;

int model_grow_columns(void **cols[], const size_t sizes[], size_t ncols, size_t cap)
{
    for (size_t i = 0; i < ncols; i++) {
        if (cap > SIZE_MAX / sizes[i]) return TR_FATAL;
        void *p = tr_realloc(*cols[i], cap * sizes[i]);
        if (!p) return TR_FATAL;
        *cols[i] = p;
    }
    return TR_OK;
}

tr_trace *tr_trace_new(void)
{
    tr_trace *t = tr_calloc(1, sizeof *t);
    if (!t) return NULL;
    tr_arena_init(&t->text);
    tr_vec_init(&t->strs, sizeof(str_entry));
    tr_vec_init(&t->inputs, sizeof(tr_input_info));
    tr_vec_init(&t->processes, sizeof(tr_process));
    tr_vec_init(&t->process_hosts, sizeof(tr_str));
    tr_vec_init(&t->tracks, sizeof(track_slot));
    tr_vec_init(&t->frames, sizeof(tr_frame));
    tr_vec_init(&t->stacks, sizeof(stack_node));
    tr_vec_init(&t->args, 1);
    tr_vec_init(&t->arg_wide, sizeof(uint64_t));
    tr_vec_init(&t->set_start, sizeof(uint32_t));
    tr_vec_init(&t->skipped, sizeof(tr_skipped));
    tr_vec_init(&t->set_shape, sizeof(uint8_t));
    tr_vec_init(&t->building_kt, sizeof(uint32_t));
    tr_vec_init(&t->shape_words, sizeof(uint32_t));
    tr_vec_init(&t->shape_start, sizeof(uint32_t));
    tr_vec_init(&t->slices.wide_dur, sizeof(int64_t));
    t->slices.cat = model_col_new(1, 0, 0);
    t->slices.bytes = model_col_new(4, -1, -1);
    t->instants.track = model_col_new(1, 0, 0);
    t->instants.name = model_col_new(1, 0, 0);
    t->instants.cat = model_col_new(1, 0, 0);
    t->instants.scope = model_col_new(1, 0, TR_SCOPE_THREAD);
    t->instants.bytes = model_col_new(4, -1, -1); /* -1, no size, is stored as 0 */
    t->flows.from_kind = model_col_new(1, 0, 0);
    t->flows.to_kind = model_col_new(1, 0, 0);
    t->flows.cat = model_col_new(1, 0, 0);
    t->flows.id = model_col_new(4, 0, 0);
    model_args_init(t);
    str_entry *empty = tr_vec_push(&t->strs);
    stack_node *root = tr_vec_push(&t->stacks);
    if (!empty || !root) {
        tr_trace_free(t);
        return NULL;
    }
    empty->p = "";
    empty->json_clean = 1;
    root->parent = TR_NONE;
    root->frame = TR_NONE;
    return t;
}

void tr_trace_free(tr_trace *t)
{
    if (!t) return;
    tr_arena_fini(&t->text);
    tr_vec_fini(&t->strs);
    tr_free(t->str_index.slots);
    tr_vec_fini(&t->inputs);
    tr_vec_fini(&t->skipped);
    tr_vec_fini(&t->processes);
    tr_vec_fini(&t->process_hosts);
    tr_free(t->process_index.slots);
    tr_vec_fini(&t->tracks);
    tr_free(t->track_index.slots);
    slice_table *s = &t->slices;
    tr_free(s->ts), tr_free(s->dur), tr_free(s->bytes.p), tr_free(s->track), tr_free(s->name);
    tr_free(s->cat.p), tr_free(s->args), tr_free(s->parent), tr_free(s->depth);
    tr_free(s->thread_ts), tr_free(s->thread_dur);
    tr_map_fini(&s->wide);
    tr_vec_fini(&s->wide_dur);
    instant_table *in = &t->instants;
    tr_free(in->ts), tr_free(in->track.p), tr_free(in->name.p), tr_free(in->args);
    tr_free(in->cat.p), tr_free(in->scope.p), tr_free(in->bytes.p);
    tr_free(t->counters.ts), tr_free(t->counters.value), tr_free(t->counters.track);
    tr_free(t->samples.ts), tr_free(t->samples.track), tr_free(t->samples.stack);
    tr_free(t->samples.args);
    tr_vec_fini(&t->frames);
    tr_free(t->frame_index.slots);
    tr_vec_fini(&t->stacks);
    tr_free(t->stack_index.slots);
    flow_table *fl = &t->flows;
    tr_free(fl->from), tr_free(fl->to), tr_free(fl->name);
    tr_free(fl->from_kind.p), tr_free(fl->to_kind.p), tr_free(fl->cat.p), tr_free(fl->id.p);
    tr_vec_fini(&t->args);
    tr_vec_fini(&t->arg_wide);
    tr_vec_fini(&t->set_start);
    tr_vec_fini(&t->set_shape);
    tr_vec_fini(&t->building_kt);
    model_args_fini(t);
    tr_vec_fini(&t->shape_words);
    tr_vec_fini(&t->shape_start);
    tr_free(t->shape_index.slots);
    tr_free(t);
}

int tr_trace_status(const tr_trace *t, tr_error *e)
{
    return t->failed ? tr_error_nomem(e) : TR_OK;
}

unsigned tr_trace_read_failures(const tr_trace *t)
{
    return atomic_load_explicit(&t->read_failures, memory_order_relaxed);
}

int tr_trace_reads_ok(const tr_trace *t, unsigned mark, tr_error *e)
{
    return tr_trace_read_failures(t) == mark ? TR_OK : tr_error_nomem(e);
}

int tr_trace_frozen(const tr_trace *t)
{
    return t->frozen;
}

void tr_trace_set_threads(tr_trace *t, int threads)
{
    t->threads = threads > 0 ? threads : 0;
}

int tr_trace_threads(const tr_trace *t)
{
    return t->threads;
}

/* ---- strings ---- */

typedef struct str_key {
    const char *s;
    size_t n;
} str_key;

static int str_eq(const tr_trace *t, uint32_t row, const void *key)
{
    const str_key *k = key;
    const str_entry *e = &TR_VEC_AT(&t->strs, str_entry, row);
    return e->len == k->n && memcmp(e->p, k->s, k->n) == 0;
}

static tr_str str_store(tr_trace *t, const char *s, size_t n)
{
    if (n > UINT32_MAX || t->strs.len >= TR_NONE) {
        t->failed = 1;
        return 0;
    }
    char *copy = tr_arena_strndup(&t->text, s, n);
    str_entry *e = copy ? tr_vec_push(&t->strs) : NULL;
    if (!e) {
        t->failed = 1;
        return 0;
    }
    e->p = copy;
    e->len = (uint32_t)n;
    e->json_clean = model_json_clean_prefix(s, n) == n;
    return (tr_str)(t->strs.len - 1);
}

tr_str tr_str_intern(tr_trace *t, const char *s, size_t n)
{
    if (n == 0 || t->failed) return 0;
    uint32_t hash = (uint32_t)tr_hash_bytes(s, n);
    str_key key = {s, n};
    size_t slot;
    uint32_t row = index_find(t, &t->str_index, hash, str_eq, &key, &slot);
    if (row != TR_NONE) return row;
    if (slot == SIZE_MAX) return 0;
    tr_str id = str_store(t, s, n);
    if (id) index_insert(&t->str_index, slot, hash, id);
    return id;
}

tr_str tr_str_internz(tr_trace *t, const char *s)
{
    return tr_str_intern(t, s, strlen(s));
}

tr_str tr_str_add(tr_trace *t, const char *s, size_t n)
{
    if (n == 0 || t->failed) return 0;
    return str_store(t, s, n);
}

tr_str tr_str_again(tr_trace *t, tr_str s)
{
    if (s == 0 || s >= t->strs.len || t->failed) return 0;
    str_entry *e = t->strs.len < TR_NONE ? tr_vec_push(&t->strs) : NULL;
    if (!e) {
        t->failed = 1;
        return 0;
    }
    *e = TR_VEC_AT(&t->strs, str_entry, s); /* strings are never changed: the text is shared */
    return (tr_str)(t->strs.len - 1);
}

const char *tr_str_get(const tr_trace *t, tr_str s, size_t *len)
{
    const str_entry *e = model_str_entry(t, s);
    if (len) *len = e->len;
    return e->p;
}

size_t tr_str_count(const tr_trace *t)
{
    return t->strs.len;
}

int model_str_interned(const tr_trace *t, tr_str s)
{
    const str_entry *e = model_str_entry(t, s);
    const row_index *ix = &t->str_index;
    if (s == 0 || s >= t->strs.len || ix->cap == 0) return 0;
    uint32_t hash = (uint32_t)tr_hash_bytes(e->p, e->len);
    for (size_t j = hash & (ix->cap - 1); ix->slots[j]; j = (j + 1) & (ix->cap - 1))
        if ((uint32_t)(ix->slots[j] >> 32) == hash && (uint32_t)ix->slots[j] - 1 == s) return 1;
    return 0;
}

/* ---- inputs ---- */

uint32_t tr_input_add(tr_trace *t, const char *path, const char *format)
{
    if (!appendable(t)) return TR_NONE;
    tr_input_info *in = tr_vec_push(&t->inputs);
    if (!in) {
        t->failed = 1;
        return TR_NONE;
    }
    in->path = tr_str_internz(t, path);
    in->format = tr_str_internz(t, format);
    in->origin_unix_ns = INT64_MIN;
    in->rank = -1;
    in->dropped_first_ts = INT64_MAX;
    return (uint32_t)(t->inputs.len - 1);
}

tr_input_info *tr_input_at(tr_trace *t, uint32_t id)
{
    return id < t->inputs.len ? &TR_VEC_AT(&t->inputs, tr_input_info, id) : NULL;
}

const tr_input_info *tr_input_get(const tr_trace *t, uint32_t id)
{
    return id < t->inputs.len ? &TR_VEC_AT(&t->inputs, tr_input_info, id) : NULL;
}

size_t tr_input_count(const tr_trace *t)
{
    return t->inputs.len;
}

/* ---- skipped ---- */

uint32_t tr_skipped_add(tr_trace *t, const char *path, const char *owner, int why)
{
    if (!appendable(t)) return TR_NONE;
    tr_skipped *s = tr_vec_push(&t->skipped);
    if (!s) {
        t->failed = 1;
        return TR_NONE;
    }
    s->path = tr_str_internz(t, path);
    s->owner = owner ? tr_str_internz(t, owner) : 0;
    s->why = why;
    return (uint32_t)(t->skipped.len - 1);
}

const tr_skipped *tr_skipped_get(const tr_trace *t, uint32_t i)
{
    return i < t->skipped.len ? &TR_VEC_AT(&t->skipped, tr_skipped, i) : NULL;
}

size_t tr_skipped_count(const tr_trace *t)
{
    return t->skipped.len;
}

/* ---- processes ---- */

typedef struct process_key {
    uint32_t input;
    tr_str host;
    int64_t pid;
} process_key;

static uint32_t process_hash(const process_key *k)
{
    return (uint32_t)tr_hash_mix(((uint64_t)k->input << 40) ^ ((uint64_t)k->host << 20) ^
                                 (uint64_t)k->pid);
}

static int process_eq(const tr_trace *t, uint32_t row, const void *key)
{
    const process_key *k = key;
    const tr_process *p = &TR_VEC_AT(&t->processes, tr_process, row);
    return p->input == k->input && p->pid == k->pid &&
           TR_VEC_AT(&t->process_hosts, tr_str, row) == k->host;
}

uint32_t tr_process_intern_on(tr_trace *t, uint32_t input, tr_str host, int64_t pid)
{
    if (!appendable(t)) return TR_NONE;
    process_key key = {input, host, pid};
    size_t slot;
    uint32_t hash = process_hash(&key);
    uint32_t row = index_find(t, &t->process_index, hash, process_eq, &key, &slot);
    if (row != TR_NONE || slot == SIZE_MAX) return row;
    tr_process *p = tr_vec_push(&t->processes);
    tr_str *h = p ? tr_vec_push(&t->process_hosts) : NULL;
    if (!h) {
        if (p) t->processes.len--;
        t->failed = 1;
        return TR_NONE;
    }
    *h = host;
    p->input = input;
    p->pid = pid;
    p->host = host;
    const tr_input_info *in = tr_input_get(t, input);
    p->rank = in ? in->rank : -1;
    row = (uint32_t)(t->processes.len - 1);
    index_insert(&t->process_index, slot, hash, row);
    return row;
}

uint32_t tr_process_intern(tr_trace *t, uint32_t input, int64_t pid)
{
    return tr_process_intern_on(t, input, 0, pid);
}

tr_str model_process_key_host(const tr_trace *t, uint32_t id)
{
    return id < t->process_hosts.len ? TR_VEC_AT(&t->process_hosts, tr_str, id) : 0;
}

tr_process *tr_process_at(tr_trace *t, uint32_t id)
{
    return id < t->processes.len ? &TR_VEC_AT(&t->processes, tr_process, id) : NULL;
}

const tr_process *tr_process_get(const tr_trace *t, uint32_t id)
{
    return id < t->processes.len ? &TR_VEC_AT(&t->processes, tr_process, id) : NULL;
}

size_t tr_process_count(const tr_trace *t)
{
    return t->processes.len;
}

/* ---- tracks ---- */

/* A track's identity; its name may change after creation, so the key is kept apart. */
typedef struct track_key {
    uint32_t process;
    int kind;
    int64_t tid;
    tr_str key;
} track_key;

static uint32_t track_hash(const track_key *k)
{
    uint64_t h = tr_hash_mix(((uint64_t)k->process << 32) ^ ((uint64_t)k->kind << 24) ^ k->key);
    return (uint32_t)tr_hash_mix(h ^ (uint64_t)k->tid);
}

static int track_eq(const tr_trace *t, uint32_t row, const void *key)
{
    const track_key *k = key;
    const track_slot *s = &TR_VEC_AT(&t->tracks, track_slot, row);
    return s->track.process == k->process && s->track.kind == k->kind && s->track.tid == k->tid &&
           s->key == k->key;
}

uint32_t tr_track_intern(tr_trace *t, uint32_t process, int kind, int64_t tid, tr_str key)
{
    if (!appendable(t)) return TR_NONE;
    track_key k = {process, kind, tid, key};
    size_t slot;
    uint32_t hash = track_hash(&k);
    uint32_t row = index_find(t, &t->track_index, hash, track_eq, &k, &slot);
    if (row != TR_NONE || slot == SIZE_MAX) return row;
    track_slot *s = tr_vec_push(&t->tracks);
    if (!s) {
        t->failed = 1;
        return TR_NONE;
    }
    s->track.process = process;
    s->track.kind = (uint8_t)kind;
    s->track.tid = tid;
    s->track.name = key;
    s->key = key;
    row = (uint32_t)(t->tracks.len - 1);
    index_insert(&t->track_index, slot, hash, row);
    return row;
}

tr_track *tr_track_at(tr_trace *t, uint32_t id)
{
    return id < t->tracks.len ? &TR_VEC_AT(&t->tracks, track_slot, id).track : NULL;
}

const tr_track *tr_track_get(const tr_trace *t, uint32_t id)
{
    return id < t->tracks.len ? &TR_VEC_AT(&t->tracks, track_slot, id).track : NULL;
}

size_t tr_track_count(const tr_trace *t)
{
    return t->tracks.len;
}

tr_str model_track_key(const tr_trace *t, uint32_t id)
{
    return id < t->tracks.len ? TR_VEC_AT(&t->tracks, track_slot, id).key : 0;
}

const char *tr_track_kind_name(int kind)
{
    static const char *const names[TR_TRACK_KIND_COUNT] = {"thread",  "worker", "client", "rank",
                                                           "counter", "async",  "gpu"};
    return kind >= 0 && kind < TR_TRACK_KIND_COUNT ? names[kind] : "?";
}

/* ---- events ---- */

/* Makes room for one more row in a table whose columns are listed in COLS. */
static int table_room(tr_trace *t, size_t n, size_t *cap, void **cols[], const size_t sizes[],
                      size_t ncols)
{
    if (n < *cap) return 1;
    if (n >= TR_NONE - 1) {
        t->failed = 1;
        return 0;
    }
    size_t ncap = *cap ? *cap * 2 : 1024;
    if (model_grow_columns(cols, sizes, ncols, ncap) != TR_OK) {
        t->failed = 1;
        return 0;
    }
    *cap = ncap;
    return 1;
}

void model_slice_columns(slice_table *s, void **cols[], size_t sizes[], size_t *n)
{
    void **always[] = {(void **)&s->ts, (void **)&s->dur, (void **)&s->track, (void **)&s->name,
                       (void **)&s->args};
    static const size_t always_sizes[] = {8, 4, 4, 4, 4};
    size_t k = 0;
    for (; k < sizeof always / sizeof *always; k++) cols[k] = always[k], sizes[k] = always_sizes[k];
    if (s->parent) cols[k] = (void **)&s->parent, sizes[k++] = 4;
    if (s->depth) cols[k] = (void **)&s->depth, sizes[k++] = 2;
    if (s->cat.p) cols[k] = &s->cat.p, sizes[k++] = s->cat.size;
    if (s->bytes.p) cols[k] = &s->bytes.p, sizes[k++] = s->bytes.size;
    if (s->thread_ts) cols[k] = (void **)&s->thread_ts, sizes[k++] = 8;
    if (s->thread_dur) cols[k] = (void **)&s->thread_dur, sizes[k++] = 8;
    *n = k;
}

void model_table_columns(tr_trace *t, int kind, model_cols *out)
{
    static const size_t instant_sizes[] = {8, 4}, counter_sizes[] = {8, 8, 4},
                        sample_sizes[] = {8, 4, 4, 4};
    const size_t *sizes = NULL;
    size_t k = 0;
    if (kind == TR_EV_SLICE) {
        model_slice_columns(&t->slices, out->col, out->size, &out->ncols);
        out->n = &t->slices.n, out->cap = &t->slices.cap;
        return;
    } else if (kind == TR_EV_INSTANT) {
        instant_table *s = &t->instants;
        void **cols[] = {(void **)&s->ts, (void **)&s->args};
        for (; k < 2; k++) out->col[k] = cols[k], out->size[k] = instant_sizes[k];
        model_col *opt[] = {&s->track, &s->name, &s->cat, &s->scope, &s->bytes};
        for (size_t j = 0; j < 5; j++)
            if (opt[j]->p) out->col[k] = &opt[j]->p, out->size[k++] = opt[j]->size;
        out->n = &s->n, out->cap = &s->cap, out->ncols = k;
        return;
    } else if (kind == TR_EV_COUNTER) {
        counter_table *s = &t->counters;
        void **cols[] = {(void **)&s->ts, (void **)&s->value, (void **)&s->track};
        for (; k < 3; k++) out->col[k] = cols[k];
        sizes = counter_sizes, out->n = &s->n, out->cap = &s->cap;
    } else {
        sample_table *s = &t->samples;
        void **cols[] = {(void **)&s->ts, (void **)&s->track, (void **)&s->stack,
                         (void **)&s->args};
        for (; k < 4; k++) out->col[k] = cols[k];
        sizes = sample_sizes, out->n = &s->n, out->cap = &s->cap;
    }
    for (size_t i = 0; i < k; i++) out->size[i] = sizes[i];
    out->ncols = k;
}

/* Room for one more row of table KIND; the slow half of the appends. */
static TRACE_SLOW int event_room(tr_trace *t, int kind)
{
    model_cols c;
    model_table_columns(t, kind, &c);
    return appendable(t) && table_room(t, *c.n, c.cap, c.col, c.size, c.ncols);
}

void tr_trace_expect(tr_trace *t, const tr_expect *x)
{
    if (t->failed || t->frozen) return;
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) {
        model_cols c;
        model_table_columns(t, k, &c);
        size_t want = *c.n + x->events[k];
        if (x->events[k] && want > *c.cap && want < TR_NONE - 1 &&
            model_grow_columns(c.col, c.size, c.ncols, want) == TR_OK)
            *c.cap = want;
    }
    /*
    ** Sets expected to pass half the raw allowance are sealed from the
    ** start: kept raw, they would stay in the peak however large the rest
    ** of the model grows (a 1 GB Kineto trace's, 95 MiB, were a third of
    ** its info's), while sealing them costs a few percent of the load.
    */
    if (x->sets * 8 + x->args * 4 > t->args_raw_max / 2) t->args_raw_max = 0;
    /* A failed reserve leaves the vector as it was: the room is advice. */
    /* Raw sets are sealed past args_raw_max bytes: room for more would go unused. */
    size_t sets = x->sets < t->args_raw_max / 8 ? x->sets : t->args_raw_max / 8;
    size_t args = x->args < t->args_raw_max / 4 ? x->args : t->args_raw_max / 4;
    /* Stored in 1-4 bytes each and a byte a group of four (model_pay_put). */
    (void)tr_vec_reserve(&t->args, t->args.len + args * 4 + MODEL_PAY_SLACK);
    (void)tr_vec_reserve(&t->set_start, t->set_start.len + sets / MODEL_SET_ANCHOR + 1);
    (void)tr_vec_reserve(&t->set_shape, t->set_shape.len + sets);
    model_cols fc;
    model_flow_columns(&t->flows, &fc);
    if (x->flows && t->flows.n + x->flows > t->flows.cap && t->flows.n + x->flows < TR_NONE - 1 &&
        model_grow_columns(fc.col, fc.size, fc.ncols, t->flows.n + x->flows) == TR_OK)
        t->flows.cap = t->flows.n + x->flows;
    if (x->strs) (void)tr_vec_reserve(&t->strs, t->strs.len + x->strs);
    if (x->text) (void)tr_arena_reserve(&t->text, x->text);
    /* The stack index holds a few of the nodes (stacks.c): it grows as it needs. */
    if (x->stacks) (void)tr_vec_reserve(&t->stacks, t->stacks.len + x->stacks);
}

int model_slice_set_dur(slice_table *s, size_t i, int64_t dur)
{
    if (dur >= 0 && dur < TR_DUR_WIDE) {
        s->dur[i] = (uint32_t)dur;
        return TR_OK;
    }
    int is_new;
    uint32_t *k = tr_map_slot(&s->wide, i, &is_new);
    if (!k) return TR_FATAL;
    if (is_new) {
        int64_t *d = s->wide_dur.len < UINT32_MAX - 1 ? tr_vec_push(&s->wide_dur) : NULL;
        if (!d) return TR_FATAL;
        *k = (uint32_t)(s->wide_dur.len - 1);
    }
    ((int64_t *)s->wide_dur.data)[*k] = dur;
    s->dur[i] = TR_DUR_WIDE;
    return TR_OK;
}

int model_slice_make_column(slice_table *s, void **col, size_t size, int fill)
{
    void *p = tr_malloc((s->cap ? s->cap : 1) * size);
    if (!p) return TR_FATAL;
    memset(p, fill, s->n * size);
    *col = p;
    return TR_OK;
}

int model_slice_make_thread_time(slice_table *s)
{
    if (model_slice_make_column(s, (void **)&s->thread_ts, 8, 0) != TR_OK) return TR_FATAL;
    if (model_slice_make_column(s, (void **)&s->thread_dur, 8, 0) != TR_OK) {
        tr_free(s->thread_ts);
        s->thread_ts = NULL;
        return TR_FATAL;
    }
    for (size_t i = 0; i < s->n; i++) s->thread_ts[i] = s->thread_dur[i] = TR_TIME_NONE;
    return TR_OK;
}

/* The slow half of tr_slice_add: a column to make, or a duration for the side table. */
static TRACE_SLOW uint32_t slice_add_rare(tr_trace *t, size_t i, int64_t dur, tr_str cat,
                                          int64_t bytes)
{
    slice_table *s = &t->slices;
    if (model_col_set(&s->cat, i, s->cap, cat) != TR_OK ||
        model_col_set(&s->bytes, i, s->cap, bytes) != TR_OK ||
        model_slice_set_dur(s, i, dur) != TR_OK) {
        t->failed = 1;
        return TR_NONE;
    }
    if (s->thread_ts) s->thread_ts[i] = s->thread_dur[i] = TR_TIME_NONE;
    s->n = i + 1;
    return (uint32_t)i;
}

uint32_t tr_slice_add(tr_trace *t, uint32_t track, int64_t ts, int64_t dur, tr_str name, tr_str cat,
                      int64_t bytes, uint32_t args)
{
    slice_table *s = &t->slices;
    if ((s->n >= s->cap || (t->failed | t->frozen)) && !event_room(t, TR_EV_SLICE)) return TR_NONE;
    size_t i = s->n;
    s->ts[i] = ts;
    s->track[i] = track;
    s->name[i] = name;
    s->args[i] = args;
    if (s->parent) s->parent[i] = TR_NONE;
    uint64_t xc = model_col_offset(&s->cat, cat), xb = model_col_offset(&s->bytes, bytes);
    if ((xc > s->cat.span) | (xb > s->bytes.span) || dur < 0 || dur >= TR_DUR_WIDE)
        return slice_add_rare(t, i, dur, cat, bytes);
    s->dur[i] = (uint32_t)dur;
    model_col_store(&s->cat, i, xc);
    model_col_store(&s->bytes, i, xb);
    if (s->thread_ts) s->thread_ts[i] = s->thread_dur[i] = TR_TIME_NONE;
    s->n = i + 1;
    return (uint32_t)i;
}

void tr_slice_set_thread_time(tr_trace *t, uint32_t row, int64_t ts, int64_t dur)
{
    slice_table *s = &t->slices;
    if (row >= s->n || t->frozen || (ts == TR_TIME_NONE && dur == TR_TIME_NONE)) return;
    if (!s->thread_ts && model_slice_make_thread_time(s) != TR_OK) {
        t->failed = 1;
        return;
    }
    s->thread_ts[row] = ts;
    s->thread_dur[row] = dur;
}

void tr_trace_drop_events(tr_trace *t)
{
    if (t->frozen) return;
    t->slices.n = t->instants.n = t->counters.n = t->samples.n = 0;
    t->instants.ordered = 0;
    t->slices.wide_dur.len = 0;
    tr_map_fini(&t->slices.wide);
    memset(&t->slices.wide, 0, sizeof t->slices.wide);
    t->flows.n = 0;
}

void tr_slice_end(tr_trace *t, uint32_t row, int64_t end_ts)
{
    if (row >= t->slices.n || t->frozen) return;
    int64_t dur = end_ts - t->slices.ts[row];
    if (model_slice_set_dur(&t->slices, row, dur < 0 ? 0 : dur) != TR_OK) t->failed = 1;
}

int64_t tr_slice_dur_wide(const tr_trace *t, size_t row)
{
    return row < t->slices.n ? model_slice_dur(&t->slices, row) : 0;
}

void tr_slice_set_parent(tr_trace *t, uint32_t row, uint32_t parent)
{
    slice_table *s = &t->slices;
    if (row >= s->n || t->frozen) return;
    if (parent != TR_NONE && (parent >= row || s->track[parent] != s->track[row])) return;
    if (!s->parent && model_slice_make_column(s, (void **)&s->parent, 4, 0xff) != TR_OK) {
        t->failed = 1;
        return;
    }
    s->parent[row] = parent;
}

int tr_slice_reserve(tr_trace *t, size_t n)
{
    slice_table *s = &t->slices;
    if (!appendable(t)) return TR_FATAL;
    if (n <= s->cap - s->n) return TR_OK;
    void **cols[MODEL_SLICE_COLS];
    size_t sizes[MODEL_SLICE_COLS], ncols;
    model_slice_columns(s, cols, sizes, &ncols);
    if (n >= TR_NONE - 1 - s->n || model_grow_columns(cols, sizes, ncols, s->n + n) != TR_OK) {
        t->failed = 1;
        return TR_FATAL;
    }
    s->cap = s->n + n;
    return TR_OK;
}

void tr_slice_prefault(tr_trace *t, size_t j, size_t parts)
{
    slice_table *s = &t->slices;
    void **cols[MODEL_SLICE_COLS];
    size_t sizes[MODEL_SLICE_COLS], ncols, room = s->cap - s->n;
    model_slice_columns(s, cols, sizes, &ncols);
    size_t lo = s->n + tr_pool_part(room, parts, j), hi = s->n + tr_pool_part(room, parts, j + 1);
    for (size_t i = 0; i < ncols && lo < hi; i++)
        tr_mem_populate((char *)*cols[i] + lo * sizes[i], (hi - lo) * sizes[i]);
}

uint32_t tr_slice_add_rows(tr_trace *t, size_t n, int cat, int bytes)
{
    slice_table *s = &t->slices;
    if (tr_slice_reserve(t, n) != TR_OK) return TR_NONE;
    /*
    ** The puts state parents, from threads: the column is made here, and
    ** so are category and size whenever a put's may differ from the rows
    ** before; the size as wide as the puts' (BYTES) and the rows' need.
    */
    int make_cat = s->cat.size < 4 && (cat || s->cat.p || s->cat.same != 0);
    int width = bytes > 4 || s->bytes.size == 8 ||
                        (uint64_t)s->bytes.same - (uint64_t)s->bytes.bias > UINT32_MAX
                    ? 8
                    : 4;
    int make_bytes = s->bytes.size != width && (bytes || s->bytes.p || s->bytes.same != -1);
    if ((!s->parent && model_slice_make_column(s, (void **)&s->parent, 4, 0xff) != TR_OK) ||
        (make_cat && model_col_make(&s->cat, s->n, s->cap, 4) != TR_OK) ||
        (make_bytes && model_col_make(&s->bytes, s->n, s->cap, width) != TR_OK)) {
        t->failed = 1;
        return TR_NONE;
    }
    uint32_t first = (uint32_t)s->n;
    s->n += n;
    return first;
}

int tr_slice_put(tr_trace *t, uint32_t row, uint32_t track, int64_t ts, int64_t dur, tr_str name,
                 tr_str cat, int64_t bytes, uint32_t args, uint32_t parent)
{
    slice_table *s = &t->slices;
    uint64_t xb = model_col_offset(&s->bytes, bytes);
    if (row >= s->n || t->frozen || xb > s->bytes.span) return TR_FATAL;
    s->ts[row] = ts;
    s->track[row] = track;
    s->name[row] = name;
    s->args[row] = args;
    s->parent[row] = parent < row ? parent : TR_NONE;
    model_col_put(&s->cat, row, cat);
    model_col_store(&s->bytes, row, xb);
    if (s->thread_ts) s->thread_ts[row] = s->thread_dur[row] = TR_TIME_NONE;
    int fits = dur >= 0 && dur < TR_DUR_WIDE;
    s->dur[row] = fits ? (uint32_t)dur : 0;
    return fits ? TR_OK : TR_END;
}

/* The size of a block that holds offset X (a value less BIAS), SIZE bytes a row or more. */
static int col_size(uint64_t x, int size)
{
    int need = x <= UINT8_MAX ? 1 : x <= UINT32_MAX ? 4 : 8;
    return need > size ? need : size;
}

int model_col_make(model_col *c, size_t n, size_t cap, int size)
{
    model_col made = *c;
    /* rows of one value so far that the block could not hold (a first size of 5 GB) */
    if (!c->p && n) size = col_size((uint64_t)c->same - (uint64_t)c->bias, size);
    made.size = (uint8_t)size;
    made.lo = size == 8 ? 0 : (uint64_t)c->bias;
    made.span = size == 8 ? UINT64_MAX : size == 4 ? UINT32_MAX : UINT8_MAX;
    if (!(made.p = tr_malloc((cap ? cap : 1) * made.size))) return TR_FATAL;
    for (size_t r = 0; r < n; r++) model_col_put(&made, r, model_col_get(c, r));
    tr_free(c->p);
    *c = made;
    return TR_OK;
}

int model_col_set(model_col *c, size_t i, size_t cap, int64_t v)
{
    if (!c->p && i == 0) {
        c->same = v;
        c->lo = (uint64_t)v;
        return TR_OK;
    }
    if (!model_col_fits(c, v)) {
        int size = col_size((uint64_t)v - (uint64_t)c->bias, c->p ? c->size : c->narrow);
        if (model_col_make(c, i, cap, size) != TR_OK) return TR_FATAL;
    }
    model_col_put(c, i, v);
    return TR_OK;
}

/*
** The slow half of tr_instant_add: room to make, or a value its column does
** not hold as it is; then the append again, which fits.  Apart, so that the
** fast half calls nothing and keeps no registers.
*/
static TRACE_SLOW uint32_t instant_add_slow(tr_trace *t, uint32_t track, int64_t ts, tr_str name,
                                            tr_str cat, int scope, int64_t bytes, uint32_t args)
{
    instant_table *s = &t->instants;
    if ((s->n >= s->cap || (t->failed | t->frozen)) && !event_room(t, TR_EV_INSTANT))
        return TR_NONE;
    if (model_col_set(&s->track, s->n, s->cap, track) != TR_OK ||
        model_col_set(&s->name, s->n, s->cap, name) != TR_OK ||
        model_col_set(&s->cat, s->n, s->cap, cat) != TR_OK ||
        model_col_set(&s->scope, s->n, s->cap, (uint8_t)scope) != TR_OK ||
        model_col_set(&s->bytes, s->n, s->cap, bytes) != TR_OK) {
        t->failed = 1;
        return TR_NONE;
    }
    return tr_instant_add(t, track, ts, name, cat, scope, bytes, args);
}

uint32_t tr_instant_add(tr_trace *t, uint32_t track, int64_t ts, tr_str name, tr_str cat, int scope,
                        int64_t bytes, uint32_t args)
{
    instant_table *s = &t->instants;
    size_t i = s->n;
    uint64_t xc = model_col_offset(&s->cat, cat), xs = model_col_offset(&s->scope, (uint8_t)scope),
             xb = model_col_offset(&s->bytes, bytes), xk = model_col_offset(&s->track, track),
             xn = model_col_offset(&s->name, name);
    /* one branch for all: a GT log's instants all fit */
    if (i >= s->cap || (t->failed | t->frozen) ||
        ((xc > s->cat.span) | (xs > s->scope.span) | (xb > s->bytes.span) | (xk > s->track.span) |
         (xn > s->name.span)))
        return instant_add_slow(t, track, ts, name, cat, scope, bytes, args);
    model_col_store(&s->track, i, xk);
    model_col_store(&s->name, i, xn);
    model_col_store(&s->cat, i, xc);
    model_col_store(&s->scope, i, xs);
    model_col_store(&s->bytes, i, xb);
    s->n = i + 1;
    s->ts[i] = ts;
    s->args[i] = args;
    if (s->ordered == i && (i == 0 || ts >= s->ts[i - 1])) s->ordered = i + 1;
    return (uint32_t)i;
}

uint32_t tr_counter_add(tr_trace *t, uint32_t track, int64_t ts, double value)
{
    counter_table *s = &t->counters;
    if ((s->n >= s->cap || (t->failed | t->frozen)) && !event_room(t, TR_EV_COUNTER))
        return TR_NONE;
    size_t i = s->n++;
    s->ts[i] = ts;
    s->value[i] = value;
    s->track[i] = track;
    return (uint32_t)i;
}

uint32_t tr_sample_add(tr_trace *t, uint32_t track, int64_t ts, uint32_t stack, uint32_t args)
{
    sample_table *s = &t->samples;
    if ((s->n >= s->cap || (t->failed | t->frozen)) && !event_room(t, TR_EV_SAMPLE)) return TR_NONE;
    size_t i = s->n++;
    s->ts[i] = ts;
    s->track[i] = track;
    s->stack[i] = stack;
    s->args[i] = args;
    return (uint32_t)i;
}

uint64_t tr_sample_weight(const tr_trace *t, uint32_t args)
{
    tr_arg a;
    if (!args || !tr_args_find(t, args, "count", &a)) return 1;
    if (a.type == TR_ARG_UINT) return a.v.u;
    return a.type == TR_ARG_INT && a.v.i > 0 ? (uint64_t)a.v.i : 0;
}

/* ---- flows ---- */

void model_flow_columns(flow_table *f, model_cols *out)
{
    void **cols[] = {(void **)&f->from, (void **)&f->to, (void **)&f->name};
    size_t k = 0;
    for (; k < 3; k++) out->col[k] = cols[k], out->size[k] = 4;
    model_col *opt[] = {&f->from_kind, &f->to_kind, &f->cat, &f->id};
    for (size_t j = 0; j < 4; j++)
        if (opt[j]->p) out->col[k] = &opt[j]->p, out->size[k++] = opt[j]->size;
    out->n = &f->n, out->cap = &f->cap, out->ncols = k;
}

/* The slow half of tr_flow_add, as instant_add_slow's. */
static TRACE_SLOW uint32_t flow_add_slow(tr_trace *t, const tr_flow *f)
{
    flow_table *s = &t->flows;
    model_cols c;
    model_flow_columns(s, &c);
    if (!appendable(t) || !table_room(t, s->n, &s->cap, c.col, c.size, c.ncols)) return TR_NONE;
    if (model_col_set(&s->from_kind, s->n, s->cap, (int64_t)(f->from >> 32)) != TR_OK ||
        model_col_set(&s->to_kind, s->n, s->cap, (int64_t)(f->to >> 32)) != TR_OK ||
        model_col_set(&s->cat, s->n, s->cap, f->cat) != TR_OK ||
        model_col_set(&s->id, s->n, s->cap, (int64_t)f->id) != TR_OK) {
        t->failed = 1;
        return TR_NONE;
    }
    return tr_flow_add(t, f);
}

uint32_t tr_flow_add(tr_trace *t, const tr_flow *f)
{
    flow_table *s = &t->flows;
    size_t i = s->n;
    uint64_t xf = model_col_offset(&s->from_kind, (int64_t)(f->from >> 32)),
             xt = model_col_offset(&s->to_kind, (int64_t)(f->to >> 32)),
             xc = model_col_offset(&s->cat, f->cat), xi = model_col_offset(&s->id, (int64_t)f->id);
    if (i >= s->cap || (t->failed | t->frozen) ||
        ((xf > s->from_kind.span) | (xt > s->to_kind.span) | (xc > s->cat.span) |
         (xi > s->id.span)))
        return flow_add_slow(t, f);
    model_col_store(&s->from_kind, i, xf);
    model_col_store(&s->to_kind, i, xt);
    model_col_store(&s->cat, i, xc);
    model_col_store(&s->id, i, xi);
    s->from[i] = TR_REF_ROW(f->from);
    s->to[i] = TR_REF_ROW(f->to);
    s->name[i] = f->name;
    s->n = i + 1;
    return (uint32_t)i;
}

int tr_flow_get(const tr_trace *t, uint32_t row, tr_flow *out)
{
    const flow_table *s = &t->flows;
    memset(out, 0, sizeof *out);
    if (row >= s->n) return 0;
    out->from = (uint64_t)model_col_get(&s->from_kind, row) << 32 | s->from[row];
    out->to = (uint64_t)model_col_get(&s->to_kind, row) << 32 | s->to[row];
    out->name = s->name[row];
    out->cat = (tr_str)model_col_get(&s->cat, row);
    out->id = (uint64_t)model_col_get(&s->id, row);
    return 1;
}

size_t tr_flow_count(const tr_trace *t)
{
    return t->flows.n;
}

/* ---- size ---- */

static size_t index_bytes(const row_index *ix)
{
    return ix->cap * sizeof *ix->slots;
}

static size_t vec_bytes(const tr_vec *v)
{
    return v->cap * v->elem;
}

size_t tr_trace_memory(const tr_trace *t)
{
    size_t n = sizeof *t + t->text.total;
    n += vec_bytes(&t->strs) + vec_bytes(&t->inputs) + vec_bytes(&t->processes) +
         vec_bytes(&t->process_hosts);
    n += vec_bytes(&t->tracks) + vec_bytes(&t->frames) + vec_bytes(&t->stacks);
    n += vec_bytes(&t->args) + vec_bytes(&t->arg_wide);
    n += vec_bytes(&t->set_start) + vec_bytes(&t->set_shape) + vec_bytes(&t->building_kt);
    n += model_args_sealed_bytes(t);
    n += vec_bytes(&t->shape_words) + vec_bytes(&t->shape_start) + index_bytes(&t->shape_index);
    n += index_bytes(&t->str_index) + index_bytes(&t->process_index);
    n += index_bytes(&t->track_index) + index_bytes(&t->frame_index);
    n += index_bytes(&t->stack_index);
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) {
        model_cols c;
        model_table_columns((tr_trace *)t, k, &c); /* read only: the list the appends grow */
        for (size_t i = 0; i < c.ncols; i++) n += *c.cap * c.size[i];
    }
    model_cols fc;
    model_flow_columns((flow_table *)&t->flows, &fc); /* read only, as above */
    for (size_t i = 0; i < fc.ncols; i++) n += t->flows.cap * fc.size[i];
    n += vec_bytes(&t->slices.wide_dur) + t->slices.wide.cap * 12;
    return n;
}
