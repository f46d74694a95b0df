/* map.c: the one hash map (tr_map.h). */
#include "tr_error.h"
#include "tr_map.h"
#include "tr_mem.h"

int tr_map_init(tr_map *m, size_t hint)
{
    size_t cap = 64;
    while (cap < hint * 2) cap *= 2;
    m->n = 0;
    m->cap = cap;
    m->keys = tr_malloc(cap * sizeof *m->keys);
    m->vals = tr_malloc(cap * sizeof *m->vals);
    if (!m->keys || !m->vals) {
        tr_map_fini(m);
        return TR_FATAL;
    }
    memset(m->vals, 0xff, cap * sizeof *m->vals);
    return TR_OK;
}

void tr_map_fini(tr_map *m)
{
    tr_free(m->keys);
    tr_free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
    m->cap = m->n = 0;
}

static size_t map_pos(const tr_map *m, uint64_t key)
{
    size_t mask = m->cap - 1, i = (size_t)tr_hash_mix(key) & mask;
    while (m->vals[i] != UINT32_MAX && m->keys[i] != key) i = (i + 1) & mask;
    return i;
}

static int map_grow(tr_map *m)
{
    tr_map bigger;
    if (tr_map_init(&bigger, m->cap) != TR_OK) return TR_FATAL;
    for (size_t i = 0; i < m->cap; i++) {
        if (m->vals[i] == UINT32_MAX) continue;
        size_t j = map_pos(&bigger, m->keys[i]);
        bigger.keys[j] = m->keys[i];
        bigger.vals[j] = m->vals[i];
    }
    bigger.n = m->n;
    tr_map_fini(m);
    *m = bigger;
    return TR_OK;
}

uint32_t *tr_map_slot(tr_map *m, uint64_t key, int *is_new)
{
    if (!m->cap && tr_map_init(m, 0) != TR_OK) return NULL;
    size_t i = map_pos(m, key);
    if (m->vals[i] != UINT32_MAX) {
        *is_new = 0;
        return &m->vals[i];
    }
    if ((m->n + 1) * 2 > m->cap) {
        if (map_grow(m) != TR_OK) return NULL;
        i = map_pos(m, key);
    }
    m->keys[i] = key;
    m->n++;
    *is_new = 1;
    return &m->vals[i];
}

uint32_t tr_map_find(const tr_map *m, uint64_t key)
{
    return m->cap ? m->vals[map_pos(m, key)] : UINT32_MAX;
}

void tr_map_prefetch(const tr_map *m, uint64_t key)
{
    if (!m->cap) return;
    size_t i = (size_t)tr_hash_mix(key) & (m->cap - 1);
    __builtin_prefetch(&m->vals[i]);
    __builtin_prefetch(&m->keys[i]);
}
