/* map.c: ts_map64 over tr_map: the keys' rows, and the values in a vector. */
#include "map_impl.h"

#include <string.h>

void ts_map64_init(ts_map64 *m)
{
    memset(m, 0, sizeof *m);
    tr_vec_init(&m->vals, sizeof(uint64_t));
}

void ts_map64_fini(ts_map64 *m)
{
    tr_map_fini(&m->rows);
    tr_vec_fini(&m->vals);
}

uint64_t *ts_map64_find(const ts_map64 *m, uint64_t key)
{
    uint32_t row = key ? tr_map_find(&m->rows, key) : UINT32_MAX;
    return row == UINT32_MAX ? NULL : &TR_VEC_AT(&m->vals, uint64_t, row);
}

int ts_map64_put(ts_map64 *m, uint64_t key, uint64_t val)
{
    if (!key) return -1;
    int is_new;
    uint32_t *row = tr_map_slot(&m->rows, key, &is_new);
    if (!row) return -1;
    if (is_new) {
        uint64_t *slot = tr_vec_push(&m->vals);
        if (!slot) return -1;
        *row = (uint32_t)(m->vals.len - 1);
    }
    TR_VEC_AT(&m->vals, uint64_t, *row) = val;
    return 0;
}
