/*
** trace_impl.h: what the files that fill the model share (trace.c, stacks.c):
** the row index of its dictionaries, the append check, the cold-path mark.
** Inline, so the appends readers call millions of times stay as fast as in
** one file.
*/
#ifndef TRACE_IMPL_H
#define TRACE_IMPL_H

#include "model_impl.h"

#include <string.h>

/*
** The slow halves of the appends readers call millions of times stay out
** of line, so the common case saves no registers.
*/
#if defined(__GNUC__)
#define TRACE_SLOW __attribute__((noinline, cold))
#else
#define TRACE_SLOW
#endif

/* ---- row_index: open addressing with linear probing ---- */

typedef int (*row_eq_fn)(const tr_trace *t, uint32_t row, const void *key);

/* Rehashes IX into CAP slots (a power of two, above its row count). */
static inline int index_resize(row_index *ix, size_t cap)
{
    uint64_t *slots = tr_calloc(cap, sizeof *slots);
    if (!slots) return TR_FATAL;
    for (size_t i = 0; i < ix->cap; i++) {
        uint64_t v = ix->slots[i];
        if (!v) continue;
        size_t j = (v >> 32) & (cap - 1);
        while (slots[j]) j = (j + 1) & (cap - 1);
        slots[j] = v;
    }
    tr_free(ix->slots);
    ix->slots = slots;
    ix->cap = cap;
    return TR_OK;
}

static inline int index_grow(row_index *ix)
{
    return index_resize(ix, ix->cap ? ix->cap * 2 : 64);
}

/*
** Finds the row equal to KEY under HASH; on a miss returns TR_NONE and sets
** *SLOT to where it would go (after growing, so the caller may insert).
** Slots keep their row's hash, so a probe past another row seldom has to
** look at that row.
*/
static inline uint32_t index_find(tr_trace *t, row_index *ix, uint32_t hash, row_eq_fn eq,
                                  const void *key, size_t *slot)
{
    if ((ix->n + 1) * 4 > ix->cap * 3 && index_grow(ix) != TR_OK) {
        t->failed = 1;
        *slot = SIZE_MAX;
        return TR_NONE;
    }
    size_t j = hash & (ix->cap - 1);
    for (uint64_t v; (v = ix->slots[j]) != 0; j = (j + 1) & (ix->cap - 1)) {
        uint32_t row = (uint32_t)v - 1;
        if ((uint32_t)(v >> 32) == hash && eq(t, row, key)) {
            *slot = j;
            return row;
        }
    }
    *slot = j;
    return TR_NONE;
}

static inline void index_insert(row_index *ix, size_t slot, uint32_t hash, uint32_t row)
{
    ix->slots[slot] = (uint64_t)hash << 32 | (row + 1);
    ix->n++;
}

/* Appending to a frozen trace is a programming error; it is refused like an OOM. */
static inline int appendable(tr_trace *t)
{
    if (t->frozen) t->failed = 1;
    return !t->failed;
}

#endif
