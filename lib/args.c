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
    uint32_t from; /* 0: sealed here; else arg_from index + 1: taken whole by a merge */
} arg_chunk;

/*
** A trace whose chunks a merge took whole: their payloads were delta coded
** by its keys, and their shapes and strings are its ids, renamed as decoded.
*/
typedef struct arg_from {
    uint32_t *words, *start; /* its shapes, as shape_words and shape_start */
    uint32_t *shape;         /* its shape id -> ours */
    uint32_t *str;           /* its string id -> ours */
    size_t nwords, nshapes, nstr;
} arg_from;

static atomic_uint_fast64_t next_uid = 1;

void model_args_init(tr_trace *t)
{
    tr_vec_init(&t->chunks, sizeof(arg_chunk));
    tr_vec_init(&t->seal_buf, sizeof(uint64_t));
    tr_vec_init(&t->arg_from, sizeof(arg_from));
    t->args_raw_max = TR_ARGS_RAW_DEFAULT;
    t->uid = atomic_fetch_add(&next_uid, 1);
}

void model_args_fini(tr_trace *t)
{
    for (size_t i = 0; i < t->chunks.len; i++) tr_free(TR_VEC_AT(&t->chunks, arg_chunk, i).z);
    tr_vec_fini(&t->chunks);
    for (size_t i = 0; i < t->arg_from.len; i++) {
        arg_from *f = &TR_VEC_AT(&t->arg_from, arg_from, i);
        tr_free(f->words);
        tr_free(f->start);
        tr_free(f->shape);
        tr_free(f->str);
    }
    tr_vec_fini(&t->arg_from);
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
    size_t n =
        t->sealed_bytes + t->chunks.cap * sizeof(arg_chunk) + t->seal_buf.cap * sizeof(uint64_t) +
        (t->seal_ctx ? ZSTD_sizeof_CCtx(t->seal_ctx) : 0) + t->arg_from.cap * sizeof(arg_from);
    for (size_t i = 0; i < t->arg_from.len; i++) {
        const arg_from *f = &TR_VEC_AT(&t->arg_from, arg_from, i);
        n += (f->nwords + 2 * f->nshapes + f->nstr) * sizeof(uint32_t);
    }
    return n;
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
    size_t p = TR_VEC_AT(&t->set_start, uint32_t, s / MODEL_SET_ANCHOR);
    for (; s < k; s++) p = model_pay_skip(t->args.data, p, shape_of(t, model_raw_shape(t, s))[0]);
    return (uint32_t)p;
}

/*
** Raw set S's bytes as tr_args_end counts them (model_args_raw_full): 8,
** its payloads' and 8 a wide value.  *P is its first byte, then the next
** set's.
*/
static size_t raw_set_bytes(const tr_trace *t, size_t s, size_t *p)
{
    const uint32_t *w = shape_of(t, model_raw_shape(t, s));
    size_t q = model_pay_skip(t->args.data, *p, w[0]), bytes = 8 + (q - *p);
    for (uint32_t i = 0; i < w[0]; i++) bytes += 8 * (size_t)is_wide(w[1 + i]);
    *p = q;
    return bytes;
}

/* Seals raw sets [A, B) into a chunk; TR_FATAL when out of memory. */
static int seal_chunk(tr_trace *t, size_t a, size_t b)
{
    const unsigned char *pay = t->args.data;
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
        p = model_pay_get(pay, p, w[0], d); /* the values, made deltas in place */
        for (uint32_t i = 0; i < w[0]; i++) {
            uint32_t v = *d, slot = delta_slot(w[1 + i]);
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
    *c = (arg_chunk){z, t->sealed, (uint32_t)n, (uint32_t)npay, (uint32_t)nwide, (uint32_t)zlen, 0};
    t->sealed += (uint32_t)n;
    t->sealed_bytes += zlen;
    return TR_OK;
}

/*
** Moves raw sets [A, end) to the front, their wide values renumbered from 0
** and their kept first bytes made again (no more of them than before).  A
** renumbered payload takes no more bytes than it did, so each is read
** before it is written over, and written with its own bytes alone (its
** group's byte last).
*/
static void keep_tail(tr_trace *t, size_t a)
{
    static const uint32_t mask[4] = {0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF};
    uint32_t *start = t->set_start.data;
    unsigned char *pay = t->args.data;
    uint64_t *wide = t->arg_wide.data;
    size_t nraw = t->set_shape.len, p = a < nraw ? model_raw_start(t, a) : t->args.len, q = 0,
           k = 0;
    for (size_t s = a; s < nraw; s++) {
        const uint32_t *w = shape_of(t, model_raw_shape(t, s));
        if ((s - a) % MODEL_SET_ANCHOR == 0) start[(s - a) / MODEL_SET_ANCHOR] = (uint32_t)q;
        for (uint32_t i = 0; i < w[0]; i += 4) {
            unsigned old = pay[p++], made = 0;
            size_t desc = q++;
            for (uint32_t j = 0; j < 4 && i + j < w[0]; j++) {
                unsigned c = old >> (2 * j) & 3;
                uint32_t x;
                memcpy(&x, pay + p, sizeof x);
                x = model_pay_le(x) & mask[c];
                p += c + 1;
                if (is_wide(w[1 + i + j])) {
                    wide[k] = wide[x]; /* indexes grow set after set: K never passes them */
                    x = (uint32_t)k++;
                }
                unsigned cx = model_pay_class(x);
                uint32_t le = model_pay_le(x);
                memmove(pay + q, &le, cx + 1);
                q += cx + 1;
                made |= cx << (2 * j);
            }
            pay[desc] = (unsigned char)made;
        }
    }
    unsigned char *shape = t->set_shape.data;
    memmove(shape, shape + a * t->set_shape.elem, (nraw - a) * t->set_shape.elem);
    t->args.len = q;
    t->raw_moved++;
    t->set_shape.len = nraw - a;
    t->set_start.len = (nraw - a + MODEL_SET_ANCHOR - 1) / MODEL_SET_ANCHOR;
    t->arg_wide.len = k;
    t->building = t->args.len;
}

void model_args_seal(tr_trace *t)
{
    size_t nraw = t->set_shape.len, a = 0, p = nraw ? model_raw_start(t, 0) : 0;
    while (a < nraw && !t->failed) {
        /* Bytes counted as tr_args_end counts the raw sets. */
        size_t b = a, bytes = 0;
        while (b < nraw && b - a < MODEL_CHUNK_SETS && bytes < MODEL_CHUNK_BYTES)
            bytes += raw_set_bytes(t, b++, &p);
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

#define RAW_STREAMS 16

typedef struct raw_pos {
    uint32_t next; /* set id + 1 of the set read (0: none) */
    uint32_t at;   /* its end in args */
} raw_pos;

typedef struct chunk_cache {
    chunk_view v[CACHE_SLOTS];
    ZSTD_DCtx *dctx;
    uint32_t *raw; /* a raw set's payloads, decoded (model_args_set) */
    size_t raw_cap;
    /*
    ** Where the raw set after each of the last RAW_STREAMS read starts:
    ** readers go set after set, or through a few inputs' sets at once (a
    ** merged model written in time order), and skip no payloads then.
    */
    uint64_t raw_uid;
    uint32_t raw_moved;
    unsigned raw_victim, raw_last;
    raw_pos raw_pos[RAW_STREAMS];
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
    tr_free(c->raw);
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
    const arg_from *f = ch->from ? &TR_VEC_AT(&t->arg_from, arg_from, ch->from - 1) : NULL;
    for (uint32_t s = 0; s < ch->n; s++) {
        /* A chunk taken whole was coded by its trace's keys; its shapes and strings are renamed. */
        const uint32_t *w = f ? f->words + f->start[shape[s]] : shape_of(t, shape[s]);
        if (f) shape[s] = f->shape[shape[s]];
        start[s] = p;
        for (uint32_t i = 0; i < w[0]; i++, p++) {
            uint32_t slot = delta_slot(w[1 + i]), x = pay[p] + last[slot];
            last[slot] = x;
            pay[p] = f && (w[1 + i] & 7) == ARG_STR ? f->str[x] : x;
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

/* An arg set cannot be read for want of memory: the trace counts it (model_args_set). */
static void set_unread(const tr_trace *t)
{
    atomic_fetch_add_explicit(&((tr_trace *)t)->read_failures, 1, memory_order_relaxed);
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
        const uint32_t *w = shape_of(t, shape);
        chunk_cache *c = cache_get();
        if (!c) {
            set_unread(t);
            return;
        }
        if (w[0] > c->raw_cap) {
            uint32_t *p = tr_realloc(c->raw, w[0] * sizeof *p);
            if (!p) {
                set_unread(t);
                return;
            }
            c->raw = p;
            c->raw_cap = w[0];
        }
        if (c->raw_uid != t->uid || c->raw_moved != t->raw_moved) {
            memset(c->raw_pos, 0, sizeof c->raw_pos);
            c->raw_uid = t->uid;
            c->raw_moved = t->raw_moved;
        }
        unsigned k = c->raw_last; /* most reads follow the read before */
        if (c->raw_pos[k].next != set)
            for (k = 0; k < RAW_STREAMS && c->raw_pos[k].next != set; k++) continue;
        size_t p = k < RAW_STREAMS ? c->raw_pos[k].at : model_raw_start(t, idx);
        p = model_pay_get(t->args.data, p, w[0], c->raw);
        if (k == RAW_STREAMS) k = c->raw_victim++ % RAW_STREAMS;
        c->raw_pos[k] = (raw_pos){set + 1, (uint32_t)p};
        c->raw_last = k;
        out->val = c->raw;
        out->wide = t->arg_wide.data;
    } else {
        const chunk_view *v = chunk_view_of(t, idx);
        if (!v) {
            set_unread(t);
            return;
        }
        idx -= v->first;
        shape = v->shape[idx];
        out->val = v->pay + v->start[idx];
        out->wide = v->wide;
    }
    const uint32_t *w = shape_of(t, shape);
    out->n = w[0];
    out->kt = w + 1;
}

/* ---- merging: sealed chunks are taken whole ---- */

/* Copies N uint32_t from P (NULL when out of memory; N may be 0). */
static uint32_t *dup_u32(const uint32_t *p, size_t n)
{
    uint32_t *q = tr_malloc((n ? n : 1) * sizeof *q);
    if (q && n) memcpy(q, p, n * sizeof *q);
    return q;
}

/*
** Adds to DST how to read chunks coded by shapes WORDS/START (NSHAPES of
** them): SHAPE maps them to DST's, and STR (NSTR) renames their strings;
** SHAPE and STR are DST's from then on.  Returns its index + 1, 0 when out
** of memory (SHAPE and STR are freed then).
*/
static uint32_t from_add(tr_trace *dst, const uint32_t *words, size_t nwords, const uint32_t *start,
                         size_t nshapes, uint32_t *shape, uint32_t *str, size_t nstr)
{
    arg_from f = {
        dup_u32(words, nwords), dup_u32(start, nshapes), shape, str, nwords, nshapes, nstr};
    arg_from *slot = f.words && f.start && f.shape && f.str ? tr_vec_push(&dst->arg_from) : NULL;
    if (!slot) {
        tr_free(f.words);
        tr_free(f.start);
        tr_free(f.shape);
        tr_free(f.str);
        return 0;
    }
    *slot = f;
    return (uint32_t)dst->arg_from.len;
}

/* DST's shape of each of SRC's (MAP), keys renamed by STR; TR_FATAL when out of memory. */
static int shapes_map(tr_trace *dst, const tr_trace *src, const uint32_t *str, uint32_t *map)
{
    tr_vec kt;
    tr_vec_init(&kt, sizeof(uint32_t));
    int rc = TR_OK;
    for (size_t k = 0; k < src->shape_start.len && rc == TR_OK; k++) {
        const uint32_t *w = shape_of(src, (uint32_t)k);
        rc = tr_vec_reserve(&kt, w[0] ? w[0] : 1);
        uint32_t *out = kt.data;
        for (uint32_t i = 0; i < w[0] && rc == TR_OK; i++) {
            uint32_t key = str[w[1 + i] >> 3];
            if (key >= (1u << ARG_KEY_BITS)) rc = TR_FATAL;
            out[i] = key << 3 | (w[1 + i] & 7);
        }
        if (rc == TR_OK && (map[k] = model_shape_intern(dst, out, w[0])) == TR_NONE) rc = TR_FATAL;
    }
    tr_vec_fini(&kt);
    return rc;
}

/* Seals every raw set of T, the last chunk perhaps not whole: chunks must precede raw sets. */
static int seal_all(tr_trace *t)
{
    size_t nraw = t->set_shape.len, a = 0, p = nraw ? model_raw_start(t, 0) : 0;
    while (a < nraw) {
        size_t b = a, bytes = 0;
        while (b < nraw && b - a < MODEL_CHUNK_SETS && bytes < MODEL_CHUNK_BYTES)
            bytes += raw_set_bytes(t, b++, &p);
        if (seal_chunk(t, a, b) != TR_OK) return TR_FATAL;
        a = b;
    }
    keep_tail(t, nraw);
    return TR_OK;
}

/* Takes SRC's chunk CH whole, read through DST's arg_from FROM (index + 1). */
static int chunk_take(tr_trace *dst, const arg_chunk *ch, uint32_t from)
{
    unsigned char *z = tr_malloc(ch->zlen);
    arg_chunk *c = z ? tr_vec_push(&dst->chunks) : NULL;
    if (!c) {
        tr_free(z);
        return TR_FATAL;
    }
    memcpy(z, ch->z, ch->zlen);
    *c = *ch;
    c->z = z;
    c->first = dst->sealed;
    c->from = from;
    dst->sealed += ch->n;
    dst->sealed_bytes += ch->zlen;
    return TR_OK;
}

/* SRC's chunks, each read through what it was read through in SRC, then renamed by MAP and STR. */
static int chunks_take(tr_trace *dst, const tr_trace *src, const uint32_t *map, const uint32_t *str)
{
    uint32_t *from =
        tr_calloc(src->arg_from.len + 1, sizeof *from); /* SRC's 0, arg_from -> DST's */
    int rc = from ? TR_OK : TR_FATAL;
    for (size_t i = 0; i < src->chunks.len && rc == TR_OK; i++) {
        const arg_chunk *ch = &TR_VEC_AT(&src->chunks, arg_chunk, i);
        if (!from[ch->from] && !ch->from) {
            uint32_t *sh = dup_u32(map, src->shape_start.len), *s = dup_u32(str, src->strs.len);
            from[0] = sh && s ? from_add(dst, src->shape_words.data, src->shape_words.len,
                                         src->shape_start.data, src->shape_start.len, sh, s,
                                         src->strs.len)
                              : 0;
            if (!sh || !s) {
                tr_free(sh);
                tr_free(s);
            }
        } else if (!from[ch->from]) {
            /* Taken whole by SRC too: its renaming, then SRC's to DST's. */
            const arg_from *f = &TR_VEC_AT(&src->arg_from, arg_from, ch->from - 1);
            uint32_t *sh = tr_malloc((f->nshapes ? f->nshapes : 1) * sizeof *sh);
            uint32_t *s = tr_malloc((f->nstr ? f->nstr : 1) * sizeof *s);
            for (size_t k = 0; sh && k < f->nshapes; k++) sh[k] = map[f->shape[k]];
            for (size_t k = 0; s && k < f->nstr; k++) s[k] = str[f->str[k]];
            from[ch->from] =
                sh && s ? from_add(dst, f->words, f->nwords, f->start, f->nshapes, sh, s, f->nstr)
                        : 0;
            if (!sh || !s) {
                tr_free(sh);
                tr_free(s);
            }
        }
        rc = from[ch->from] ? chunk_take(dst, ch, from[ch->from]) : TR_FATAL;
    }
    tr_free(from);
    return rc;
}

/* SRC's raw sets appended as raw sets: shapes by MAP, strings by STR, wide values copied. */
static int raw_take(tr_trace *dst, const tr_trace *src, const uint32_t *map, const uint32_t *str)
{
    const uint64_t *wide = src->arg_wide.data;
    for (size_t k = 0; k < src->set_shape.len; k++) {
        uint32_t shape = model_raw_shape(src, k);
        const uint32_t *w = shape_of(src, shape);
        model_set ms; /* read set after set: each found where the last ended */
        model_args_set(src, (uint32_t)(src->sealed + k + 1), &ms);
        size_t n = w[0], at = dst->args.len, end = at, desc = 0;
        if (ms.n != n) return TR_FATAL; /* out of memory reading it */
        if (at + n * MODEL_PAY_MAX >= UINT32_MAX - 64 || model_args_sets(dst) >= TR_NONE - 1 ||
            tr_vec_reserve(&dst->args, at + n * MODEL_PAY_MAX + MODEL_PAY_SLACK) != TR_OK)
            return TR_FATAL;
        unsigned char *out = dst->args.data;
        for (size_t i = 0; i < n; i++) {
            unsigned tag = w[1 + i] & 7;
            uint32_t v = ms.val[i];
            if (tag == ARG_STR) v = str[v];
            if (is_wide(w[1 + i])) {
                uint64_t *slot =
                    dst->arg_wide.len < UINT32_MAX ? tr_vec_push(&dst->arg_wide) : NULL;
                if (!slot) return TR_FATAL;
                *slot = wide[v];
                v = (uint32_t)(dst->arg_wide.len - 1);
            }
            model_pay_put(out, &end, &desc, i, v);
        }
        dst->building = at;
        if (!model_set_push(dst, map[shape])) return TR_FATAL;
        dst->args.len = dst->building = end;
        if (model_args_raw_full(dst)) model_args_seal(dst);
        if (dst->failed) return TR_FATAL;
    }
    return TR_OK;
}

int model_args_merge(tr_trace *dst, const tr_trace *src, const uint32_t *str)
{
    uint32_t *map = tr_malloc((src->shape_start.len ? src->shape_start.len : 1) * sizeof *map);
    int rc = map ? shapes_map(dst, src, str, map) : TR_FATAL;
    if (rc == TR_OK && src->chunks.len) rc = seal_all(dst);
    if (rc == TR_OK) rc = chunks_take(dst, src, map, str);
    if (rc == TR_OK) rc = raw_take(dst, src, map, str);
    tr_free(map);
    if (rc != TR_OK) dst->failed = 1;
    return rc;
}
