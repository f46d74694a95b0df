/*
** trace_args.c: a trace's arg sets as readers build them (tr_args_begin ..
** tr_args_end, or whole in a known shape: tr_args_shaped) and as they are
** read back; the shapes a set's keys and tags are interned as.  The raw sets'
** sealing into compressed chunks is args.c's.
*/
#include "trace_impl.h"

#include <float.h>
#include <string.h>

/* ---- args ---- */

void tr_args_begin(tr_trace *t)
{
    t->args.len = t->building;
    t->building_kt.len = 0;
    t->building_h = 0;
}

/*
** A set's shape is hashed as its entries are pushed, a multiply each, so
** that tr_args_end, once a set, does not go over them again to find it.
*/
static inline uint64_t shape_hash_step(uint64_t h, uint32_t kt)
{
    return (h + kt + 1) * 0x9E3779B97F4A7C15ULL;
}

/* Appends X to V (a vector of uint32_t); 0 when out of memory. */
static int push_u32(tr_vec *v, uint32_t x)
{
    if (v->len >= v->cap && tr_vec_reserve(v, v->len + 1) != TR_OK) return 0;
    ((uint32_t *)v->data)[v->len++] = x;
    return 1;
}

/* Room in args for N more payloads and the slack past them; 0 when out of memory. */
static int args_room(tr_trace *t, size_t n)
{
    size_t want = t->args.len + n * MODEL_PAY_MAX + MODEL_PAY_SLACK;
    return want <= t->args.cap || tr_vec_reserve(&t->args, want) == TR_OK;
}

/* Raw sets' bytes stay below 2^32: set_start keeps 32-bit offsets. */
#define ARGS_BYTES_MAX (UINT32_MAX - 64)

/*
** The slow half of args_push: out of line, so the common case (room, a
** narrow value) stays a few instructions that save no registers.  PAYLOAD
** is the value itself, or WIDE's index in arg_wide when IS_WIDE.
*/
static TRACE_SLOW void args_push_slow(tr_trace *t, tr_str key, unsigned tag, uint32_t payload,
                                      int is_wide, uint64_t wide)
{
    if (!appendable(t)) return;
    if (key >= (1u << ARG_KEY_BITS) || t->args.len >= ARGS_BYTES_MAX) {
        t->failed = 1;
        return;
    }
    if (is_wide) {
        uint64_t *slot = t->arg_wide.len < UINT32_MAX ? tr_vec_push(&t->arg_wide) : NULL;
        if (!slot) {
            t->failed = 1;
            return;
        }
        *slot = wide;
        payload = (uint32_t)(t->arg_wide.len - 1);
    }
    size_t i = t->building_kt.len;
    if (!args_room(t, 1) || !push_u32(&t->building_kt, key << 3 | tag)) {
        t->failed = 1;
        return;
    }
    model_pay_put(t->args.data, &t->args.len, &t->building_desc, i, payload);
    t->building_h = shape_hash_step(t->building_h, key << 3 | tag);
}

static inline void args_push(tr_trace *t, tr_str key, unsigned tag, uint32_t payload)
{
    size_t n = t->args.len, k = t->building_kt.len;
    if (n + MODEL_PAY_MAX + MODEL_PAY_SLACK <= t->args.cap && k < t->building_kt.cap &&
        key < (1u << ARG_KEY_BITS) && n < ARGS_BYTES_MAX && !(t->failed | t->frozen)) {
        model_pay_put(t->args.data, &n, &t->building_desc, k, payload);
        ((uint32_t *)t->building_kt.data)[k] = key << 3 | tag;
        t->args.len = n;
        t->building_kt.len = k + 1;
        t->building_h = shape_hash_step(t->building_h, key << 3 | tag);
    } else {
        args_push_slow(t, key, tag, payload, 0, 0);
    }
}

void tr_args_int(tr_trace *t, tr_str key, int64_t v)
{
    if (v >= INT32_MIN && v <= INT32_MAX)
        args_push(t, key, ARG_INT32, (uint32_t)(int32_t)v);
    else
        args_push_slow(t, key, ARG_INT64, 0, 1, (uint64_t)v);
}

void tr_args_uint(tr_trace *t, tr_str key, uint64_t v)
{
    if (v <= UINT32_MAX)
        args_push(t, key, ARG_UINT32, (uint32_t)v);
    else
        args_push_slow(t, key, ARG_UINT64, 0, 1, v);
}

void tr_args_real(tr_trace *t, tr_str key, double v)
{
    uint64_t bits, back_bits = 0;
    memcpy(&bits, &v, sizeof bits);
    float f = 0;
    /* In range (NaN is not), and the float's double is the same bits (-0.0 stays). */
    if (v >= -FLT_MAX && v <= FLT_MAX) {
        f = (float)v;
        double back = f;
        memcpy(&back_bits, &back, sizeof back_bits);
    }
    if (back_bits == bits) {
        uint32_t fb;
        memcpy(&fb, &f, sizeof fb);
        args_push(t, key, ARG_FLOAT, fb);
    } else {
        args_push_slow(t, key, ARG_REAL, 0, 1, bits);
    }
}

void tr_args_bool(tr_trace *t, tr_str key, int v)
{
    args_push(t, key, ARG_BOOL, v != 0);
}

void tr_args_str(tr_trace *t, tr_str key, tr_str v)
{
    args_push(t, key, ARG_STR, v);
}

/* ---- arg shapes: the keys and tags of a set, interned ---- */

static const uint32_t *shape_words(const tr_trace *t, uint32_t shape)
{
    return (const uint32_t *)t->shape_words.data + TR_VEC_AT(&t->shape_start, uint32_t, shape);
}

static int shape_eq(const tr_trace *t, uint32_t row, const void *key)
{
    const tr_vec *kt = key;
    const uint32_t *w = shape_words(t, row), *k = kt->data;
    if (w[0] != kt->len) return 0;
    /* A few words: a loop beats a call to memcmp. */
    for (size_t i = 0; i < kt->len; i++)
        if (w[1 + i] != k[i]) return 0;
    return 1;
}

/* The shape of the set under construction, added if new; TR_NONE when out of memory. */
static uint32_t shape_intern(tr_trace *t)
{
    const tr_vec *kt = &t->building_kt;
    /* A reader's sets take a few shapes again and again: the memo answers most without a probe. */
    uint32_t *memo = &t->shape_memo[t->building_h >> 58];
    if (*memo && shape_eq(t, *memo - 1, kt)) return *memo - 1;
    uint32_t hash = (uint32_t)tr_hash_mix(t->building_h ^ kt->len);
    size_t slot;
    uint32_t row = index_find(t, &t->shape_index, hash, shape_eq, kt, &slot);
    if (row != TR_NONE) *memo = row + 1;
    if (row != TR_NONE || slot == SIZE_MAX) return row;
    size_t at = t->shape_words.len;
    if (at + kt->len + 1 > UINT32_MAX || t->shape_start.len >= TR_NONE - 1 ||
        tr_vec_reserve(&t->shape_words, at + kt->len + 1) != TR_OK ||
        !push_u32(&t->shape_start, (uint32_t)at)) {
        t->failed = 1;
        return TR_NONE;
    }
    uint32_t *w = (uint32_t *)t->shape_words.data + at;
    w[0] = (uint32_t)kt->len;
    memcpy(w + 1, kt->data, kt->len * sizeof(uint32_t));
    t->shape_words.len = at + kt->len + 1;
    row = (uint32_t)(t->shape_start.len - 1);
    index_insert(&t->shape_index, slot, hash, row);
    *memo = row + 1;
    return row;
}

uint32_t model_shape_intern(tr_trace *t, const uint32_t *kt, size_t n)
{
    tr_args_begin(t);
    for (size_t i = 0; i < n; i++) {
        if (!push_u32(&t->building_kt, kt[i])) {
            t->failed = 1;
            return TR_NONE;
        }
        t->building_h = shape_hash_step(t->building_h, kt[i]);
    }
    uint32_t shape = shape_intern(t);
    tr_args_begin(t);
    return shape;
}

/* Makes the shapes of the raw sets 4 bytes each: a shape id has passed 254. */
static TRACE_SLOW int shapes_widen(tr_trace *t)
{
    tr_vec w;
    tr_vec_init(&w, sizeof(uint32_t));
    if (tr_vec_reserve(&w, t->set_shape.cap) != TR_OK) return 0;
    for (size_t k = 0; k < t->set_shape.len; k++)
        ((uint32_t *)w.data)[k] = ((const uint8_t *)t->set_shape.data)[k];
    w.len = t->set_shape.len;
    tr_vec_fini(&t->set_shape);
    t->set_shape = w;
    return 1;
}

/* model_set_push, inline in tr_args_end and tr_args_shaped: a set's last step. */
static inline int set_push(tr_trace *t, uint32_t shape)
{
    tr_vec *v = &t->set_shape;
    if (v->len % MODEL_SET_ANCHOR == 0 && !push_u32(&t->set_start, (uint32_t)t->building)) return 0;
    if (v->elem == 1 && shape >= UINT8_MAX && !shapes_widen(t)) return 0;
    if (v->elem != 1) return push_u32(v, shape);
    if (v->len >= v->cap && tr_vec_reserve(v, v->len + 1) != TR_OK) return 0;
    ((uint8_t *)v->data)[v->len++] = (uint8_t)shape;
    return 1;
}

int model_set_push(tr_trace *t, uint32_t shape)
{
    return set_push(t, shape);
}

uint32_t tr_args_end(tr_trace *t)
{
    uint32_t shape = TR_NONE;
    if (!t->failed && t->building_kt.len) shape = shape_intern(t);
    if (shape == TR_NONE || model_args_sets(t) >= TR_NONE - 1 || !set_push(t, shape)) {
        if (shape != TR_NONE) t->failed = 1;
        tr_args_begin(t); /* an empty set, or none after a failure: its payloads go */
        return 0;
    }
    t->building = t->args.len;
    t->building_kt.len = 0;
    t->building_h = 0;
    uint32_t set = (uint32_t)model_args_sets(t);
    if (model_args_raw_full(t)) model_args_seal(t);
    return set;
}

uint32_t tr_args_shape(tr_trace *t, const tr_str *key, uint32_t ints, size_t n)
{
    if (n == 0 || n > 32) return 0;
    uint32_t kt[32];
    for (size_t i = 0; i < n; i++) {
        if (key[i] >= (1u << ARG_KEY_BITS)) return 0;
        kt[i] = key[i] << 3 | (ints >> i & 1 ? ARG_INT32 : ARG_STR);
    }
    uint32_t shape = model_shape_intern(t, kt, n);
    return shape == TR_NONE ? 0 : shape + 1;
}

uint32_t tr_args_shaped(tr_trace *t, uint32_t shape, const int64_t *val)
{
    const uint32_t *w = shape_words(t, shape - 1);
    size_t n = w[0], at = t->building, end = at;
    uint64_t wide = 1;
    if (at + n * MODEL_PAY_MAX + MODEL_PAY_SLACK <= t->args.cap && at < ARGS_BYTES_MAX &&
        model_args_sets(t) < TR_NONE - 1 && !(t->failed | t->frozen)) {
        unsigned char *pay = t->args.data;
        /*
        ** tr_args_shape's tags, stored as they are.  A value outside
        ** [0, 2^31) (a negative int, or one the shape's int32 does not hold)
        ** sends the set the long way: checked once for the set, not a branch
        ** an arg.
        */
        uint64_t all = 0;
        for (size_t i = 0; i < n; i += 4) {
            size_t desc = end++, m = n - i < 4 ? n - i : 4;
            unsigned d = 0;
            for (size_t j = 0; j < m; j++) {
                uint32_t x = (uint32_t)val[i + j], le = model_pay_le(x);
                unsigned k = model_pay_class(x);
                all |= (uint64_t)val[i + j];
                memcpy(pay + end, &le, sizeof le);
                end += k + 1;
                d |= k << 2 * j;
            }
            pay[desc] = (unsigned char)d;
        }
        wide = all >> 31;
    }
    if (!wide) {
        t->args.len = end;
        t->building_kt.len = 0;
        t->building_h = 0;
        if (!set_push(t, shape - 1)) {
            t->failed = 1;
            tr_args_begin(t);
            return 0;
        }
        t->building = t->args.len;
        uint32_t set = (uint32_t)model_args_sets(t);
        if (model_args_raw_full(t)) model_args_seal(t);
        return set;
    }
    tr_args_begin(t);
    for (size_t i = 0; i < n; i++) {
        if ((w[1 + i] & 7) == ARG_INT32)
            tr_args_int(t, w[1 + i] >> 3, val[i]);
        else
            tr_args_str(t, w[1 + i] >> 3, (tr_str)val[i]);
    }
    return tr_args_end(t);
}

size_t tr_args_sets(const tr_trace *t)
{
    return model_args_sets(t);
}

size_t tr_args_count(const tr_trace *t, uint32_t set)
{
    model_set ms;
    model_args_set(t, set, &ms);
    return ms.n;
}

void tr_args_at(const tr_trace *t, uint32_t set, size_t i, tr_arg *out)
{
    model_set ms;
    model_args_set(t, set, &ms);
    memset(out, 0, sizeof *out);
    if (i >= ms.n) return;
    out->key = model_arg_key(ms.kt[i]);
    out->type = model_arg_value(&ms, i, &out->v.u);
}

size_t tr_args_get(const tr_trace *t, uint32_t set, tr_arg *out, size_t max)
{
    model_set ms;
    model_args_set(t, set, &ms);
    for (size_t i = 0; i < ms.n && i < max; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].key = model_arg_key(ms.kt[i]);
        out[i].type = model_arg_value(&ms, i, &out[i].v.u);
    }
    return ms.n;
}

int tr_args_find(const tr_trace *t, uint32_t set, const char *key, tr_arg *out)
{
    model_set ms;
    size_t n = strlen(key);
    model_args_set(t, set, &ms);
    /* Writers ask this once an event: lengths and first bytes rule out most keys. */
    for (size_t i = 0; i < ms.n; i++) {
        const str_entry *k = model_str_entry(t, model_arg_key(ms.kt[i]));
        if (k->len == n && (n == 0 || (k->p[0] == key[0] && memcmp(k->p, key, n) == 0))) {
            memset(out, 0, sizeof *out);
            out->key = model_arg_key(ms.kt[i]);
            out->type = model_arg_value(&ms, i, &out->v.u);
            return 1;
        }
    }
    return 0;
}
