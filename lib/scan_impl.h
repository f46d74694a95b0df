/*
** scan_impl.h: the 16-byte line scanner of the readers that take their lines
** in place, unchecked (tr_input_span_raw): one pass finds a line's end and
** any NUL or byte >= 0x80, after which the line is left to
** tr_input_getline: it replaces NULs and invalid UTF-8 (valid UTF-8 passes
** unchanged, but is not told apart here); and the compare of a line's bytes
** with ones cached before.  Not part of the API: static inline, so that
** they stay inlined in each reader's line loop.
*/
#ifndef TR_SCAN_IMPL_H
#define TR_SCAN_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h> /* SSE2 is part of x86-64: the scan uses it there */
#endif

/*
** For the 16 bytes at P: returns the mask of the bytes equal to C (bit J
** for P[J]); bit J of *NLS is set when P[J] is '\n', of *BAD when it is a
** NUL or a byte >= 0x80.
*/
static inline uint32_t tr_scan16(const char *p, char c, uint32_t *nls, uint32_t *bad)
{
#ifdef __SSE2__
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    *nls = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n')));
    *bad = (uint32_t)_mm_movemask_epi8(_mm_or_si128(v, _mm_cmpeq_epi8(v, _mm_setzero_si128())));
    return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c)));
#else
    uint32_t m = 0, l = 0, b = 0;
    for (unsigned j = 0; j < 16; j++) {
        m |= (uint32_t)(p[j] == c) << j;
        l |= (uint32_t)(p[j] == '\n') << j;
        b |= (uint32_t)((unsigned char)p[j] - 1u >= 0x7fu) << j;
    }
    *nls = l, *bad = b;
    return m;
#endif
}

#ifdef __SSE2__
static inline __m128i tr_xor16(const char *a, const char *b)
{
    return _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)a),
                         _mm_loadu_si128((const __m128i *)(const void *)b));
}
#endif

/*
** Whether the N bytes at A and B are equal (N >= 8): 16 or 8 bytes a step,
** the last step overlapping, no call and no early exit; the first four
** steps unrolled (a frame line or a GT record's head is 20 to 100 bytes).
*/
static inline int tr_same_bytes(const char *a, const char *b, size_t n)
{
#ifdef __SSE2__
    if (n >= 16) {
        __m128i d = _mm_or_si128(tr_xor16(a, b), tr_xor16(a + n - 16, b + n - 16));
        if (n > 32) d = _mm_or_si128(d, tr_xor16(a + 16, b + 16));
        if (n > 48) d = _mm_or_si128(d, tr_xor16(a + 32, b + 32));
        for (size_t i = 48; i + 16 < n; i += 16) d = _mm_or_si128(d, tr_xor16(a + i, b + i));
        return _mm_movemask_epi8(_mm_cmpeq_epi8(d, _mm_setzero_si128())) == 0xffff;
    }
#endif
    uint64_t x, y, d = 0;
    for (size_t i = 0; i + 8 < n; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        d |= x ^ y;
    }
    memcpy(&x, a + n - 8, 8);
    memcpy(&y, b + n - 8, 8);
    return (d | (x ^ y)) == 0;
}

#endif
