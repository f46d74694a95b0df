/*
** map_impl.h: a map from non-zero 64-bit keys (addresses, thread ids, hashes of
** names) to 64-bit values (pointers, rows), for the caches that keep a
** sample cheap: the tree's one map (tr_map.h) from the key to a row of the
** values.
*/
#ifndef TS_MAP_H
#define TS_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "tr_map.h"
#include "tr_mem.h"

typedef struct ts_map64 {
    tr_map rows; /* key -> row of vals */
    tr_vec vals; /* uint64_t */
} ts_map64;

void ts_map64_init(ts_map64 *m);
void ts_map64_fini(ts_map64 *m);
/* The slot of KEY's value, or NULL when absent (always for key 0); valid until the next put. */
uint64_t *ts_map64_find(const ts_map64 *m, uint64_t key);
/* Sets KEY to VAL; 0, or -1 for key 0 or when out of memory. */
int ts_map64_put(ts_map64 *m, uint64_t key, uint64_t val);

#endif
