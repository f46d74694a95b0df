/*
** map.h: a hash map from non-zero 64-bit keys (addresses, thread ids) to
** 64-bit values, for the caches that keep a sample cheap.
*/
#ifndef TS_MAP_H
#define TS_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct ts_map64 {
    uint64_t *keys, *vals; /* key 0 marks an empty slot */
    size_t cap, n;
} ts_map64;

void ts_map64_init(ts_map64 *m);
void ts_map64_fini(ts_map64 *m);
/* The slot of KEY's value, or NULL when absent. */
uint64_t *ts_map64_find(const ts_map64 *m, uint64_t key);
/* Sets KEY to VAL; 0, or -1 when out of memory. */
int ts_map64_put(ts_map64 *m, uint64_t key, uint64_t val);
/* Hash of N bytes, for keying strings. */
uint64_t ts_hash_bytes(const void *p, size_t n);

#endif
