/*
** scan_impl.h: the 16-byte line scanner of the readers that take their lines
** in place, unchecked (tr_input_span_raw): one pass finds a line's end and
** any NUL or byte >= 0x80, after which the line is left to
** tr_input_getline: it replaces NULs and invalid UTF-8 (valid UTF-8 passes
** unchanged, but is not told apart here).  Not part of the API: static
** inline, so that it stays inlined in each reader's line loop.
*/
#ifndef TR_SCAN_IMPL_H
#define TR_SCAN_IMPL_H

#include <stdint.h>
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

#endif
