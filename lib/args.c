/* args.c: sealed arg sets: the oldest raw sets compressed a chunk at a time, decoded as read. */
#include "model_impl.h"
#include "tr_mem.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <zstd.h>

/* zstd's level 1: level 3 saves 2 % more, level -5 keeps twice the bytes, for the same CPU. */
#define SEAL_LEVEL 1
/*
** Decoded chunks a thread keeps: readers in time order visit a few, and the
** Parquet writer reads a row group's args (128 Ki, about 11 chunks) once a
** column, so the cache holds a row group's worth.
*/
#define CACHE_SLOTS 16
#define DELTA_SLOTS 64 /* payloads are stored less the last of their key's slot */

typedef struct arg_chunk {
    unsigned char *z;        /* zstd frame of: the wide values, the shapes, the payload deltas */
    uint32_t first;          /* set id - 1 of the chunk's first set */
    uint32_t n, npay, nwide; /* sets, payloads, wide values */
    uint32_t zlen;
} arg_chunk;

static atomic_uint_fast64_t next_uid = 1;

void model_args_init(tr_trace *t)
{
    tr_vec_init(&t->chunks, sizeof(arg_chunk));
    tr_vec_init(&t->seal_buf, sizeof(uint64_t));
    t->args_raw_max = TR_ARGS_RAW_DEFAULT;
    t->uid = atomic_fetch_add(&next_uid, 1);
}

void model_args_fini(tr_trace *t)
{
    for (size_t i = 0; i < t->chunks.len; i++) tr_free(TR_VEC_AT(&t->chunks, arg_chunk, i).z);
    tr_vec_fini(&t->chunks);
    tr_vec_fini(&t->seal_buf);
    ZSTD_freeCCtx(t->seal_ctx);
}

void tr_trace_args_raw(tr_trace *t, size_t bytes)
{
    t->args_raw_max = bytes;
}

void model_args_seal_end(tr_trace *t)
{
    tr_vec_fini(&t->seal_buf);
    ZSTD_freeCCtx(t->seal_ctx);
    t->seal_ctx = NULL;
}

size_t model_args_sealed_bytes(const tr_trace *t)
{
    return t->sealed_bytes + t->chunks.cap * sizeof(arg_chunk) +
           t->seal_buf.cap * sizeof(uint64_t) + (t->seal_ctx ? ZSTD_sizeof_CCtx(t->seal_ctx) : 0);
}

static const uint32_t *shape_of(const tr_trace *t, uint32_t shape)
{
    return (const uint32_t *)t->shape_words.data + TR_VEC_AT(&t->shape_start, uint32_t, shape);
}

static int is_wide(uint32_t kt)
{
    unsigned tag = kt & 7;
    return tag == ARG_REAL || tag == ARG_INT64 || tag == ARG_UINT64;
}

static unsigned delta_slot(uint32_t kt)
{
    return (kt * 2654435761u) >> 26;
}

uint32_t model_raw_start(const tr_trace *t, size_t k)
{
    size_t s = k - k % MODEL_SET_ANCHOR;
    uint32_t p = TR_VEC_AT(&t->set_start, uint32_t, s / MODEL_SET_ANCHOR);
    for (; s < k; s++) p += shape_of(t, model_raw_shape(t, s))[0];
    return p;
}

/* Seals raw sets [A, B) into a chunk; TR_FATAL when out of memory. */
static int seal_chunk(tr_trace *t, size_t a, size_t b)
{
    const uint32_t *pay = t->args.data;
    const uint64_t *wide_in = t->arg_wide.data;
    size_t n = b - a, p0 = model_raw_start(t, a), npay = 0, nwide = 0;
    for (size_t s = a; s < b; s++) {
        const uint32_t *w = shape_of(t, model_raw_shape(t, s));
        for (uint32_t i = 0; i < w[0]; i++) nwide += is_wide(w[1 + i]);
        npay += w[0];
    }
    size_t raw = nwide * 8 + (n + npay) * 4, bound = ZSTD_compressBound(raw);
    if (tr_vec_reserve(&t->seal_buf, (raw + bound) / 8 + 2) != TR_OK) return TR_FATAL;
    uint64_t *wide = t->seal_buf.data;
    uint32_t *words = (uint32_t *)(wide + nwide), *d = words + n, last[DELTA_SLOTS] = {0};
    for (size_t s = a; s < b; s++) words[s - a] = model_raw_shape(t, s);
    size_t p = p0, k = 0;
    for (size_t s = a; s < b; s++) {
        const uint32_t *w = shape_of(t, words[s - a]);
        for (uint32_t i = 0; i < w[0]; i++, p++) {
            uint32_t v = pay[p], slot = delta_slot(w[1 + i]);
            if (is_wide(w[1 + i])) {
                wide[k] = wide_in[v];
                v = (uint32_t)k++;
            }
            *d++ = v - last[slot];
            last[slot] = v;
        }
    }
    if (!t->seal_ctx && !(t->seal_ctx = ZSTD_createCCtx())) return TR_FATAL;
    unsigned char *zbuf = (unsigned char *)wide + raw;
    size_t zlen = ZSTD_compressCCtx(t->seal_ctx, zbuf, bound, wide, raw, SEAL_LEVEL);
    arg_chunk *c = ZSTD_isError(zlen) ? NULL : tr_vec_push(&t->chunks);
    unsigned char *z = c ? tr_malloc(zlen) : NULL;
    if (!z) {
        if (c) t->chunks.len--;
        return TR_FATAL;
    }
    memcpy(z, zbuf, zlen);
    *c = (arg_chunk){z, t->sealed, (uint32_t)n, (uint32_t)npay, (uint32_t)nwide, (uint32_t)zlen};
    t->sealed += (uint32_t)n;
    t->sealed_bytes += zlen;
    return TR_OK;
}

/*
** Moves raw sets [A, end) to the front, their wide values renumbered from 0
** and their kept first payloads made again (no more of them than before).
*/
static void keep_tail(tr_trace *t, size_t a)
{
    uint32_t *start = t->set_start.data, *pay = t->args.data;
    uint64_t *wide = t->arg_wide.data;
    size_t nraw = t->set_shape.len, p0 = a < nraw ? model_raw_start(t, a) : t->args.len, p = p0,
           k = 0;
    for (size_t s = a; s < nraw; s++) {
        const uint32_t *w = shape_of(t, model_raw_shape(t, s));
        if ((s - a) % MODEL_SET_ANCHOR == 0) start[(s - a) / MODEL_SET_ANCHOR] = (uint32_t)(p - p0);
        for (uint32_t i = 0; i < w[0]; i++, p++) {
            if (!is_wide(w[1 + i])) continue;
            wide[k] = wide[pay[p]]; /* indexes grow set after set: K never passes them */
            pay[p] = (uint32_t)k++;
        }
    }
    memmove(pay, pay + p0, (t->args.len - p0) * sizeof *pay);
    unsigned char *shape = t->set_shape.data;
    memmove(shape, shape + a * t->set_shape.elem, (nraw - a) * t->set_shape.elem);
    t->args.len -= p0;
    t->set_shape.len = nraw - a;
    t->set_start.len = (nraw - a + MODEL_SET_ANCHOR - 1) / MODEL_SET_ANCHOR;
    t->arg_wide.len = k;
    t->building = t->args.len;
}

void model_args_seal(tr_trace *t)
{
    size_t nraw = t->set_shape.len, a = 0;
    while (a < nraw && !t->failed) {
        /* Bytes counted as tr_args_end counts the raw sets. */
        size_t b = a, bytes = 0;
        while (b < nraw && b - a < MODEL_CHUNK_SETS && bytes < MODEL_CHUNK_BYTES) {
            const uint32_t *w = shape_of(t, model_raw_shape(t, b++));
            bytes += 8 + 4 * (size_t)w[0];
            for (uint32_t i = 0; i < w[0]; i++) bytes += 8 * (size_t)is_wide(w[1 + i]);
        }
        if (b - a < MODEL_CHUNK_SETS && bytes < MODEL_CHUNK_BYTES) break; /* not a whole chunk */
        if (seal_chunk(t, a, b) != TR_OK) t->failed = 1;
        a = b;
    }
    /* None sealed: wide values of abandoned sets made the raw bytes look a chunk; they go. */
    if (!t->failed) keep_tail(t, a);
}

/* ---- reading: each thread decodes chunks into a cache of its own ---- */

typedef struct chunk_view {
    uint64_t uid; /* the trace's (0: empty) */
    uint32_t first, n;
    const uint64_t *wide;
    const uint32_t *shape, *pay, *start;
    uint64_t *buf; /* the decoded frame, then the sets' first payloads */
    size_t cap;    /* uint64_t */
    unsigned long used;
} chunk_view;

typedef struct chunk_cache {
    chunk_view v[CACHE_SLOTS];
    ZSTD_DCtx *dctx;
    unsigned long clock;
    int last; /* the slot read last: most reads hit it */
} chunk_cache;

static _Thread_local chunk_cache *cache;
static pthread_key_t cache_key; /* frees a thread's cache as it ends */
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static int cache_keyed;

static void cache_free(void *p)
{
    chunk_cache *c = p;
    for (int i = 0; i < CACHE_SLOTS; i++) tr_free(c->v[i].buf);
    ZSTD_freeDCtx(c->dctx);
    tr_free(c);
}

static void cache_key_make(void)
{
    cache_keyed = pthread_key_create(&cache_key, cache_free) == 0;
}

static chunk_cache *cache_get(void)
{
    if (cache) return cache;
    pthread_once(&cache_once, cache_key_make);
    chunk_cache *c = tr_calloc(1, sizeof *c);
    if (!c) return NULL;
    if (cache_keyed) (void)pthread_setspecific(cache_key, c);
    return cache = c;
}

/* Decodes chunk CH of T into V; 0 when out of memory. */
static int chunk_decode(const tr_trace *t, const arg_chunk *ch, chunk_cache *c, chunk_view *v)
{
    size_t words = (size_t)ch->n + ch->npay, raw = (size_t)ch->nwide * 8 + words * 4;
    size_t need = ch->nwide + (words + ch->n) / 2 + 1;
    v->uid = 0;
    if (need > v->cap) {
        uint64_t *p = tr_realloc(v->buf, need * sizeof *p);
        if (!p) return 0;
        v->buf = p;
        v->cap = need;
    }
    if (!c->dctx && !(c->dctx = ZSTD_createDCtx())) return 0;
    size_t got = ZSTD_decompressDCtx(c->dctx, v->buf, raw, ch->z, ch->zlen);
    if (ZSTD_isError(got) || got != raw) return 0;
    uint32_t *shape = (uint32_t *)(v->buf + ch->nwide), *pay = shape + ch->n,
             *start = pay + ch->npay;
    uint32_t last[DELTA_SLOTS] = {0}, p = 0;
    for (uint32_t s = 0; s < ch->n; s++) {
        const uint32_t *w = shape_of(t, shape[s]);
        start[s] = p;
        for (uint32_t i = 0; i < w[0]; i++, p++) {
            uint32_t slot = delta_slot(w[1 + i]);
            pay[p] += last[slot];
            last[slot] = pay[p];
        }
    }
    *v = (chunk_view){t->uid, ch->first, ch->n, v->buf, shape, pay, start, v->buf, v->cap, 0};
    return 1;
}

/* The decoded chunk of sealed set index IDX (set id - 1), or NULL when out of memory. */
static const chunk_view *chunk_view_of(const tr_trace *t, uint32_t idx)
{
    chunk_cache *c = cache_get();
    if (!c) return NULL;
    chunk_view *v = &c->v[c->last], *oldest = &c->v[0];
    if (v->uid == t->uid && idx - v->first < v->n) return v;
    c->clock++;
    for (int i = 0; i < CACHE_SLOTS; i++) {
        v = &c->v[i];
        if (v->uid == t->uid && idx - v->first < v->n) {
            v->used = c->clock;
            c->last = i;
            return v;
        }
        if (v->used < oldest->used) oldest = v;
    }
    const arg_chunk *ch = t->chunks.data;
    size_t lo = 0, hi = t->chunks.len; /* the last chunk that starts at IDX or before */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (ch[mid].first <= idx)
            lo = mid;
        else
            hi = mid;
    }
    if (!chunk_decode(t, &ch[lo], c, oldest)) return NULL;
    oldest->used = c->clock;
    c->last = (int)(oldest - c->v);
    return oldest;
}

void model_args_set(const tr_trace *t, uint32_t set, model_set *out)
{
    out->n = 0;
    out->kt = out->val = NULL;
    out->wide = NULL;
    if (set == 0 || set > model_args_sets(t)) return;
    uint32_t idx = set - 1, shape;
    if (idx >= t->sealed) {
        idx -= t->sealed;
        shape = model_raw_shape(t, idx);
        out->val = (const uint32_t *)t->args.data + model_raw_start(t, idx);
        out->wide = t->arg_wide.data;
    } else {
        const chunk_view *v = chunk_view_of(t, idx);
        if (!v) return;
        idx -= v->first;
        shape = v->shape[idx];
        out->val = v->pay + v->start[idx];
        out->wide = v->wide;
    }
    const uint32_t *w = shape_of(t, shape);
    out->n = w[0];
    out->kt = w + 1;
}
