/* map.c: open addressing with linear probing; never shrinks. */
#include "map.h"

#include <string.h>

#include "tr_mem.h"

void ts_map64_init(ts_map64 *m)
{
    memset(m, 0, sizeof *m);
}

void ts_map64_fini(ts_map64 *m)
{
    tr_free(m->keys);
    tr_free(m->vals);
    memset(m, 0, sizeof *m);
}

static size_t slot_of(uint64_t key, size_t cap)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

uint64_t *ts_map64_find(const ts_map64 *m, uint64_t key)
{
    if (!m->cap || !key) return NULL;
    for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key) return &m->vals[i];
        if (m->keys[i] == 0) return NULL;
    }
}

static void put_slot(uint64_t *keys, uint64_t *vals, size_t cap, uint64_t key, uint64_t val)
{
    size_t i = slot_of(key, cap);
    while (keys[i] != 0 && keys[i] != key) i = (i + 1) & (cap - 1);
    keys[i] = key;
    vals[i] = val;
}

int ts_map64_put(ts_map64 *m, uint64_t key, uint64_t val)
{
    if (!key) return -1;
    uint64_t *slot = ts_map64_find(m, key);
    if (slot) {
        *slot = val;
        return 0;
    }
    if ((m->n + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        uint64_t *keys = tr_calloc(cap, sizeof *keys), *vals = tr_calloc(cap, sizeof *vals);
        if (!keys || !vals) {
            tr_free(keys);
            tr_free(vals);
            return -1;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->keys[i]) put_slot(keys, vals, cap, m->keys[i], m->vals[i]);
        tr_free(m->keys);
        tr_free(m->vals);
        m->keys = keys;
        m->vals = vals;
        m->cap = cap;
    }
    put_slot(m->keys, m->vals, m->cap, key, val);
    m->n++;
    return 0;
}

uint64_t ts_hash_bytes(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 0x100000001b3ULL;
    return h ? h : 1;
}
