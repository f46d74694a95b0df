/* utf8.c: UTF-8 validation and encoding (tr_utf8.h). */
#include "tr_utf8.h"

#include <string.h>

#define WORD_ONES  0x0101010101010101ull
#define WORD_HIGHS 0x8080808080808080ull

size_t tr_utf8_first_bad(const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            /* A byte's high bit survives (b - 1) | b exactly when b is 0 or >= 0x80. */
            if (!(((w - WORD_ONES) | w) & WORD_HIGHS)) {
                i += 8;
                continue;
            }
        }
        size_t sub, k = tr_utf8_seq(p + i, n - i, &sub);
        if (!k) return i;
        i += k;
    }
    return n;
}

int tr_utf8_put(tr_buf *b, uint32_t cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp, n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xc0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xe0 | cp >> 12), u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (char)(0x80 | (cp & 0x3f)), n = 3;
    } else {
        u[0] = (char)(0xf0 | cp >> 18), u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), u[3] = (char)(0x80 | (cp & 0x3f)), n = 4;
    }
    return tr_buf_add(b, u, n);
}
