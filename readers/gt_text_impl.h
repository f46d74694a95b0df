/*
** gt_text_impl.h: the GT reader's character classes and short-string
** helpers, for gt.c alone: a header of their own keeps gt.c short, and
** static inline keeps them inlined in its line loop as before.
*/
#ifndef TR_GT_TEXT_IMPL_H
#define TR_GT_TEXT_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- character classes (ASCII; bytes >= 0x80 count as word characters, as
** most non-ASCII text in Python's \w does) ---- */

static inline int gt_digit(char c)
{
    return (unsigned)(c - '0') < 10;
}

/* \w as a table: detail keys and values are scanned a byte at a time. */
#define GT_W(c)                                                                                    \
    (((c) >= '0' && (c) <= '9') || ((c) >= 'a' && (c) <= 'z') || ((c) >= 'A' && (c) <= 'Z') ||     \
     (c) == '_' || (c) >= 0x80)
#define GT_W4(c)  GT_W(c), GT_W((c) + 1), GT_W((c) + 2), GT_W((c) + 3)
#define GT_W16(c) GT_W4(c), GT_W4((c) + 4), GT_W4((c) + 8), GT_W4((c) + 12)
#define GT_W64(c) GT_W16(c), GT_W16((c) + 16), GT_W16((c) + 32), GT_W16((c) + 48)
static const unsigned char gt_word_class[256] = {GT_W64(0), GT_W64(64), GT_W64(128), GT_W64(192)};

static inline int gt_word(char c)
{
    return gt_word_class[(unsigned char)c];
}

static inline int gt_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static inline char gt_lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c | 0x20) : c;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define GT_LITTLE_ENDIAN 1 /* the first byte of a loaded word is its lowest */
#else
#define GT_LITTLE_ENDIAN 0
#endif

#define GT_SPACES 0x2020202020202020ULL

/*
** Strips spaces and tabs at both ends; GT pads fields with spaces, skipped
** eight at a time.  A byte above ' ' is neither space nor tab: one test of
** each end settles what most fields need (they seldom start padded, and the
** details do not end so).
*/
static inline void gt_trim(const char **p, size_t *n)
{
    const char *s = *p;
    size_t len = *n;
    uint64_t w;
    if (len && (unsigned char)s[0] <= ' ') {
        while (GT_LITTLE_ENDIAN && len >= 8) {
            memcpy(&w, s, 8);
            w ^= GT_SPACES;
            size_t k = w ? (size_t)__builtin_ctzll(w) >> 3 : 8;
            s += k, len -= k;
            if (k < 8) break;
        }
        while (len && (s[0] == ' ' || s[0] == '\t')) s++, len--;
    }
    if (len && (unsigned char)s[len - 1] <= ' ') {
        while (GT_LITTLE_ENDIAN && len >= 8) {
            memcpy(&w, s + len - 8, 8);
            w ^= GT_SPACES;
            size_t k = w ? (size_t)__builtin_clzll(w) >> 3 : 8;
            len -= k;
            if (k < 8) break;
        }
        while (len && (s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
    }
    *p = s;
    *n = len;
}

/* Whether the N bytes at S contain NEEDLE (lowercase), ignoring ASCII case. */
static inline int gt_icontains(const char *s, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++) {
        size_t k = 0;
        while (k < m && gt_lower(s[i + k]) == needle[k]) k++;
        if (k == m) return 1;
    }
    return 0;
}

/*
** S (N >= 1 bytes) as two words such that, for N <= 16, equal words and
** lengths mean equal strings: overlapping loads cover every byte.  Fixed-size
** loads only, so the words never go through memory.
*/
static inline void gt_words(const char *s, size_t n, uint64_t *head, uint64_t *tail)
{
    uint32_t a, b;
    if (n >= 8) {
        memcpy(head, s, 8);
        memcpy(tail, s + n - 8, 8);
    } else if (n >= 4) {
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        *head = a | (uint64_t)b << 32;
        *tail = 0;
    } else {
        *head = (unsigned char)s[0] | (uint64_t)(unsigned char)s[n / 2] << 8 |
                (uint64_t)(unsigned char)s[n - 1] << 16;
        *tail = 0;
    }
}

/*
** The set, of a cache's 2^BITS, of a string's words: the top bits of one
** product, which every input bit reaches (names such as "auto_worker_0".."3"
** differ in their last, most significant byte).  One multiply, where a full
** mix takes two in a row: the caches are asked several times a line.
*/
static inline size_t gt_set_of(uint64_t head, uint64_t tail, size_t n, unsigned bits)
{
    return (size_t)((((head + n) ^ (tail << 32 | tail >> 32)) * 0x9E3779B97F4A7C15ULL) >>
                    (64 - bits));
}

/* Whether the N (<= 32) bytes at A and B are the same: overlapping word loads, no call. */
static inline int gt_same(const char *a, const char *b, size_t n)
{
    uint64_t x0, x1, y0, y1;
    if (n < 8) {
        for (size_t i = 0; i < n; i++)
            if (a[i] != b[i]) return 0;
        return 1;
    }
    memcpy(&x0, a, 8);
    memcpy(&y0, b, 8);
    memcpy(&x1, a + n - 8, 8);
    memcpy(&y1, b + n - 8, 8);
    uint64_t d = (x0 ^ y0) | (x1 ^ y1);
    if (n > 16) {
        memcpy(&x0, a + 8, 8);
        memcpy(&y0, b + 8, 8);
        memcpy(&x1, a + n - 16, 8);
        memcpy(&y1, b + n - 16, 8);
        d |= (x0 ^ y0) | (x1 ^ y1);
    }
    return d == 0;
}

#endif
