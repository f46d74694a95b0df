/*
** tr_utf8.h: UTF-8, checked and encoded in one place (the input layer's
** line cleaning, Chrome's JSON strings).
*/
#ifndef TR_UTF8_H
#define TR_UTF8_H

#include <stddef.h>
#include <stdint.h>

#include "tr_mem.h"

/*
** tr_utf8_seq: the UTF-8 sequence at P
** ^Returns the length (1 to 4) of the valid sequence at P (N > 0 bytes
** left), or 0 when it is invalid: a stray or overlong lead, a surrogate,
** past U+10FFFF, cut short, or a NUL byte.  ^*SUB is then the bytes of its
** maximal subpart, what one U+FFFD replaces (Unicode 15, section 3.9).
** Inline: the scans that call it go byte by byte.
*/
static inline size_t tr_utf8_seq(const unsigned char *p, size_t n, size_t *sub)
{
    unsigned char c = p[0], lo = 0x80, hi = 0xbf;
    size_t need;
    *sub = 1;
    if (c == 0) return 0;
    if (c < 0x80) return 1;
    if (c < 0xc2 || c > 0xf4) return 0;
    if (c < 0xe0) {
        need = 1;
    } else if (c < 0xf0) {
        need = 2;
        if (c == 0xe0) lo = 0xa0;
        if (c == 0xed) hi = 0x9f; /* no surrogates */
    } else {
        need = 3;
        if (c == 0xf0) lo = 0x90;
        if (c == 0xf4) hi = 0x8f; /* nothing past U+10FFFF */
    }
    if (n < 2 || p[1] < lo || p[1] > hi) return 0;
    size_t i = 2;
    while (i <= need && i < n && p[i] >= 0x80 && p[i] <= 0xbf) i++;
    if (i <= need) {
        *sub = i;
        return 0;
    }
    return need + 1;
}

/* ^The index of the first NUL or invalid byte among the N at P, or N. */
size_t tr_utf8_first_bad(const unsigned char *p, size_t n);

/*
** tr_utf8_put: append code point CP to B as UTF-8
** ^CP must be below U+110000; a surrogate is written as its three bytes.
** ^Returns what tr_buf_add returns.
*/
int tr_utf8_put(tr_buf *b, uint32_t cp);

#endif
