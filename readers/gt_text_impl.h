/*
** gt_text_impl.h: the GT reader's character classes, short-string helpers
** and field scanner, for gt.c alone: a header of their own keeps gt.c
** short, and static inline keeps them inlined in its line loop as before.
*/
#ifndef TR_GT_TEXT_IMPL_H
#define TR_GT_TEXT_IMPL_H

#include "scan_impl.h"

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

/* ---- fields ---- */

/*
** For the 16 bytes at P: bit J of *BARS is set when P[J] is '|', of *NLS
** when it is '\n', of *BAD when it is a NUL or a byte >= 0x80.
*/
static inline void gt_scan16(const char *p, uint32_t *bars, uint32_t *nls, uint32_t *bad)
{
    *bars = tr_scan16(p, '|', nls, bad);
}

/*
** A field [s, e) of a line.  Start and end side by side: kept in two arrays,
** the compiler read two starts (or ends) in one 16-byte load, which waited
** on the two 8-byte stores gt_split had just made (a failed store
** forwarding: an eighth of gt_parse_pipe's time).
*/
typedef struct gt_field {
    size_t s, e;
} gt_field;

/*
** Splits the line that goes on from POS at up to MAX " | " separators, in
** one pass over it, 32 bytes at a time (16 near N): the pass also finds the
** line's end, its first '\n' before N - 1, and checks its bytes, so that a
** line read in place is read once.  The fields go to F (room for MAX + 1)
** after the NF found before POS (the bytes before it are then known), the
** count is returned; *END is where the line ends ('\n', else N), *WHOLE
** 1 when a '\n' ends it and it holds no NUL and no byte >= 0x80.  A
** separator's '|' sits at least one byte into the field it ends, so in
** "a | | b" only the first '|' separates.
*/
static inline size_t gt_split(const char *p, size_t pos, size_t n, size_t max, gt_field *f,
                              size_t nf, size_t *end, int *whole)
{
    size_t first = pos + 1; /* where the next separator's '|' may be */
    uint32_t dirty = 0;
    *whole = 0;
    /* A '|' needs the byte after it, so the last byte is never read. */
    for (size_t base = pos; base + 1 < n;) {
        size_t count = n - 1 - base;
        uint32_t m, nl, bad;
        if (count >= 32) {
            uint32_t m2, nl2, bad2;
            gt_scan16(p + base, &m, &nl, &bad);
            gt_scan16(p + base + 16, &m2, &nl2, &bad2);
            m |= m2 << 16, nl |= nl2 << 16, bad |= bad2 << 16;
            count = 32;
        } else if (count >= 16) {
            gt_scan16(p + base, &m, &nl, &bad);
            count = 16;
        } else if (n - 1 >= 16) {
            /* The last sixteen bytes, overlapping what was scanned already. */
            gt_scan16(p + n - 17, &m, &nl, &bad);
            m >>= 16 - count, nl >>= 16 - count, bad >>= 16 - count;
        } else {
            m = nl = bad = 0;
            for (size_t j = 0; j < count; j++) {
                m |= (uint32_t)(p[base + j] == '|') << j;
                nl |= (uint32_t)(p[base + j] == '\n') << j;
                bad |= (uint32_t)((unsigned char)p[base + j] - 1u >= 0x7fu) << j;
            }
        }
        uint32_t before = nl ? (1u << __builtin_ctz(nl)) - 1 : UINT32_MAX;
        m &= before;
        dirty |= bad & before;
        for (; m && nf < max; m &= m - 1) {
            size_t j = base + (size_t)__builtin_ctz(m);
            if (j < first || p[j - 1] != ' ' || p[j + 1] != ' ') continue;
            f[nf].s = pos;
            f[nf].e = j - 1;
            nf++;
            pos = j + 2;
            first = pos + 1;
        }
        if (nl) {
            n = base + (size_t)__builtin_ctz(nl);
            *whole = dirty == 0;
            break;
        }
        base += count;
    }
    f[nf].s = pos;
    f[nf].e = n;
    *end = n;
    return nf + 1;
}

#endif
