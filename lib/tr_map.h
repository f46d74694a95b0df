/*
** tr_map.h: the tree's one hash function and one hash map.
**
** Every table that finds things by value (interned strings, reader caches,
** analyses, the sampler's address caches) hashes with tr_hash_mix or
** tr_hash_bytes, and a map from 64-bit keys to 32-bit values (usually a row
** of a vector) is a tr_map.
*/
#ifndef TR_MAP_H
#define TR_MAP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ^MurmurHash3's 64-bit finaliser: every bit of H reaches every bit of the result. */
static inline uint64_t tr_hash_mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TR_HASH_LE 1 /* a word's first byte in memory is its lowest */
#else
#define TR_HASH_LE 0
#endif

/* ^A hash of the N bytes at S, eight at a time. */
static inline uint64_t tr_hash_bytes(const void *p, size_t n)
{
    const unsigned char *s = p;
    size_t all = n;
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 29;
        s += 8;
        n -= 8;
    }
    uint64_t w = 0;
    if (n && TR_HASH_LE && all >= 8) {
        /* One load of the last 8 bytes, shifted: the word a copy of N bytes (a byte loop) makes. */
        memcpy(&w, s + n - 8, 8);
        w >>= 64 - 8 * n;
    } else if (n) {
        memcpy(&w, s, n);
    }
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
    return tr_hash_mix(h);
}

/*
** tr_map: open addressing from uint64 keys to uint32 values; UINT32_MAX
** marks an empty slot, so it is no value.  Zero-initialised is a valid
** empty map (tr_map_slot allocates on first use).
*/
typedef struct tr_map {
    uint64_t *keys;
    uint32_t *vals;
    size_t cap, n;
} tr_map;

/* ^Makes room for HINT keys.  ^TR_OK or TR_FATAL (out of memory). */
int tr_map_init(tr_map *m, size_t hint);
void tr_map_fini(tr_map *m);
/*
** ^The value slot of KEY, adding it (set to UINT32_MAX, *IS_NEW 1) when absent;
** NULL when out of memory.  ^The slot is valid until the next insertion.
*/
uint32_t *tr_map_slot(tr_map *m, uint64_t key, int *is_new);
/* ^The value of KEY, or UINT32_MAX when absent. */
uint32_t tr_map_find(const tr_map *m, uint64_t key);
/*
** ^Starts fetching where KEY would be, for a tr_map_slot or tr_map_find of
** it soon: a caller with many keys at hand fetches them all first, and the
** cache misses overlap.
*/
void tr_map_prefetch(const tr_map *m, uint64_t key);

#endif
