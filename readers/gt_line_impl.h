/*
** gt_line_impl.h: the GT reader's line recognition, for gt.c alone: digits
** read as words, the line's class and time, SIZE, the record's head (found
** in a cache before the split), and the pipe and [TAPE] forms parsed into a
** gt_rec.  A header of its own keeps gt.c short; included once, by gt.c, so
** the compiler sees these beside the line loop as before.
*/
#ifndef TR_GT_LINE_IMPL_H
#define TR_GT_LINE_IMPL_H

#include "gt_impl.h"
#include "gt_text_impl.h"

#include <string.h>

/* The value of the eight digits of W, the first in its lowest byte (little-endian). */
static inline uint64_t gt_digits8_value(uint64_t w)
{
    w -= 0x3030303030303030ULL;
    w = w * 10 + (w >> 8); /* pairs of digits, then pairs of pairs */
    return (((w & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
            (((w >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >>
           32;
}

/*
** The value of the D (1 to 8) digits that end at END, read as one word (the
** eight bytes before END must be readable; little-endian): bytes before the
** digits count as '0'.  Returns 0 when one of the D is not a digit.
*/
static inline int gt_digits8(const char *end, size_t d, uint64_t *v)
{
    uint64_t w, low = d < 8 ? ((uint64_t)1 << (8 * (8 - d))) - 1 : 0;
    memcpy(&w, end - 8, 8);
    w = (w & ~low) | (0x3030303030303030ULL & low);
    /* Every byte 0x30..0x39: high nibble 3, and adding 6 keeps it 3. */
    if (((w & 0xF0F0F0F0F0F0F0F0ULL) |
         (((w + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4)) != 0x3333333333333333ULL)
        return 0;
    *v = gt_digits8_value(w);
    return 1;
}

/*
** Which of the 8 bytes of W (little-endian) are not digits: a byte of the
** result is 0 for a digit.  Exact up to the first that is not one (adding 6
** carries out of none before it); past it a digit may show as none (a carry
** from a byte >= 0xFA), never the reverse.
*/
static inline uint64_t gt_not_digits8(uint64_t w)
{
    return ((w & 0xF0F0F0F0F0F0F0F0ULL) ^ 0x3030303030303030ULL) |
           (((w + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) ^ 0x3030303030303030ULL);
}

enum { GT_TEXT, GT_PIPE, GT_TAPE };

/*
** Skips "\d+(\.\d+)?" from *I; returns 1 with *I after it, or 0.  On the
** way it reads the number as seconds, exactly, into *NS when it has at most
** nine digits on either side of the point (GT writes three decimals), else
** sets *NS to -1: gt_time reads it then.
*/
static inline int gt_skip_number(const char *p, size_t n, size_t *i, int64_t *ns)
{
    static const uint64_t pow10[10] = {1,      10,      100,      1000,      10000,
                                       100000, 1000000, 10000000, 100000000, 1000000000};
    size_t k = *i, d = k, f = 0;
    uint64_t ip = 0, frac = 0; /* they wrap past 19 digits, harmlessly: then *NS is -1 */
    while (k < n && gt_digit(p[k])) ip = ip * 10 + (uint64_t)(p[k++] - '0');
    if (k == d) return 0;
    size_t nd = k - d;
    if (k < n && p[k] == '.') {
        size_t f0 = ++k;
        while (k < n && gt_digit(p[k])) frac = frac * 10 + (uint64_t)(p[k++] - '0');
        if (k == f0) return 0;
        f = k - f0;
    }
    *ns = nd <= 9 && f <= 9 ? (int64_t)(ip * GT_NS_PER_S + frac * pow10[9 - f]) : -1;
    *i = k;
    return 1;
}

/*
** What a line looks like: GT_PIPE when it starts like a record
** ("\s*\d+(\.\d+)?s |"), GT_TAPE when it starts with "[TAPE", else GT_TEXT.
** *START is where the time (or the '[') begins, *END where a GT_PIPE time ends,
** *NS its value as gt_skip_number reads it.
*/
static inline int gt_classify(const char *p, size_t n, size_t *start, size_t *end, int64_t *ns)
{
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t')) i++;
    *start = i;
    if (i < n && p[i] == '[')
        return n - i >= 5 && memcmp(p + i, "[TAPE", 5) == 0 ? GT_TAPE : GT_TEXT;
    if (!gt_skip_number(p, n, &i, ns)) return GT_TEXT;
    *end = i;
    return n - i >= 3 && p[i] == 's' && p[i + 1] == ' ' && p[i + 2] == '|' ? GT_PIPE : GT_TEXT;
}

/*
** A SIZE field: " *[0-9]+(\.[0-9]+)?(B|KB|MB)" (trimmed), in binary units,
** rounded half up to whole bytes.  Returns 1 and sets *BYTES, 0 when the text
** is not a size (so it is DETAILS), -1 when it is one too large for int64.
*/
static inline int gt_parse_size(const char *s, size_t n, int64_t *bytes)
{
    size_t i = 0, ndec = 0;
    uint64_t ip = 0, frac = 0, scale = 1;
    int overflow = 0;
    for (; i < n && gt_digit(s[i]); i++) {
        if (ip > (UINT64_MAX - 9) / 10)
            overflow = 1;
        else
            ip = ip * 10 + (uint64_t)(s[i] - '0');
    }
    if (i == 0) return 0;
    if (i < n && s[i] == '.') {
        size_t f = ++i;
        /* Nine decimals are far below a byte even in MB; later ones are ignored. */
        for (; i < n && gt_digit(s[i]); i++) {
            if (i - f < 9) {
                frac = frac * 10 + (uint64_t)(s[i] - '0');
                scale *= 10;
                ndec++;
            }
        }
        if (i == f) return 0;
    }
    int shift; /* the units are binary: B, KB = 2^10, MB = 2^20 */
    size_t rest = n - i;
    if (rest == 1 && s[i] == 'B')
        shift = 0;
    else if (rest == 2 && s[i] == 'K' && s[i + 1] == 'B')
        shift = 10;
    else if (rest == 2 && s[i] == 'M' && s[i + 1] == 'B')
        shift = 20;
    else
        return 0;
    /* ip * unit plus at most one unit of fraction must fit */
    if (overflow || ip >= ((uint64_t)1 << (63 - shift)) - 1) return -1;
    /* GT writes KB with 1 decimal and MB with 2: constant divisors there */
    uint64_t part = (frac << shift) + scale / 2;
    part = ndec == 0 ? 0 : ndec == 1 ? part / 10 : ndec == 2 ? part / 100 : part / scale;
    *bytes = (int64_t)((ip << shift) + part);
    return 1;
}

/*
** The elapsed time "\d+(\.\d+)?" (already checked) as nanoseconds, exactly:
** NS when gt_skip_number could read it, else the general parser.
*/
static inline int gt_time(const char *s, size_t n, int64_t ns, int64_t *out)
{
    *out = ns;
    return ns >= 0 ? 0 : tr_parse_decimal_ns(s, n, GT_NS_PER_S, out);
}

/*
** SIZE as GT writes it, " *\d{1,7}B" filling the field [S, E) of P (the 9
** bytes before E readable), read as a word without trimming it first: 1
** and *BYTES, as gt_parse_size gives them, or 0 for it to decide.
*/
static inline int gt_size_fast(const char *p, size_t s, size_t e, int64_t *bytes)
{
    if (!GT_LITTLE_ENDIAN || e < s + 2 || e < 9 || p[e - 1] != 'B') return 0;
    uint64_t v, w;
    memcpy(&v, p + e - 9, 8);
    /*
    ** Digits from the top down: a carry (from a byte >= 0xFA below) can only
    ** make a digit look like none, and then the spaces' check fails.
    */
    uint64_t t = gt_not_digits8(v);
    if (!t) return 0;
    size_t d = (size_t)__builtin_clzll(t) >> 3, pad = e - 1 - d - s;
    if (!d || d > e - 1 - s || pad > 8 || e < 9 + d) return 0;
    if (pad) {
        /* the spaces before: the top PAD bytes of the word before the digits */
        memcpy(&w, p + e - 9 - d, 8);
        if ((w ^ GT_SPACES) >> (8 * (8 - pad))) return 0;
    }
    uint64_t low = ((uint64_t)1 << (8 * (8 - d))) - 1;
    *bytes = (int64_t)gt_digits8_value((v & ~low) | (0x3030303030303030ULL & low));
    return 1;
}

/*
** The head of the pipe-form line P (N bytes readable) when its SEQ field
** starts at S0 as GT writes it ("#\d{1,8} | "): its slot when known, else
** NULL; R keeps where the head starts and its set, to add it.
*/
static inline gt_head_slot *gt_head_find(gt_rd *g, const char *p, size_t s0, size_t n, gt_rec *r)
{
    r->known = NULL;
    r->head_set = NULL;
    r->head_n = 0;
    if (s0 + 12 + GT_HEAD_WINDOW > n || p[s0] != '#') return NULL;
    /* The SEQ's digits, read as a word */
    uint64_t v, low;
    memcpy(&v, p + s0 + 1, 8);
    uint64_t t = gt_not_digits8(v);
    size_t d = t ? (size_t)__builtin_ctzll(t) >> 3 : 8;
    if (!d || memcmp(p + s0 + 1 + d, " | ", 3) != 0) return NULL;
    low = d < 8 ? ((uint64_t)1 << (8 * (8 - d))) - 1 : 0;
    r->seq =
        (int64_t)gt_digits8_value(((v << (8 * (8 - d))) & ~low) | (0x3030303030303030ULL & low));
    const char *h = p + s0 + 4 + d;
    size_t room = n - (size_t)(h - p);
    uint64_t x = 0, y = 0, w[2];
    for (size_t k = 0; k < GT_HEAD_WINDOW; k += 16) {
        memcpy(w, h + k, 16);
        x ^= w[0], y ^= w[1];
    }
    gt_head_slot *sl = &g->heads[gt_set_of(x, y, 0, GT_HEAD_BITS) * 2];
    r->head = h;
    r->head_set = sl;
    for (int k = 0; k < 2; k++, sl++) {
        /* the head and the " | " after it (11 bytes at least), the last load overlapping */
        size_t len = sl->n + 3u;
        if (sl->n && len <= room && tr_same_bytes(sl->text, h, len)) return r->known = sl;
    }
    return NULL;
}

/*
** A head not known (where gt_head_find left R) that can be added: short
** enough, with the separator after it, and clean.
*/
static inline void gt_head_fields(const char *p, const gt_field *f, size_t nf, gt_rec *r)
{
    size_t h = (size_t)(r->head - p);
    if (nf < 5 || f[1].s != h || f[3].e + 3 - h > GT_HEAD_MAX) return;
    for (size_t k = h; k < f[3].e + 3; k++)
        if ((unsigned char)p[k] - 1u >= 0x7fu) return; /* what gt_split calls not whole */
    r->head_n = f[3].e - h;
    r->head_f[0] = f[1].e - h;
    r->head_f[1] = f[2].s - h;
    r->head_f[2] = f[2].e - h;
    r->head_f[3] = f[3].s - h;
}

/* The SEQ field F[0] into R: NULL, or what is wrong with it (*COL set). */
static inline const char *gt_parse_seq(const char *p, const gt_field *f, gt_rec *r, size_t *col)
{
    *col = f[0].s + 1;
    if (f[0].e - f[0].s < 2 || p[f[0].s] != '#') return "expected '#<seq>' as the second field";
    uint64_t seq = 0; /* wraps past 19 digits, harmlessly: the checked parser redoes those */
    size_t nd = f[0].e - f[0].s - 1;
    if (GT_LITTLE_ENDIAN && nd <= 8 && f[0].e >= 8) {
        if (!gt_digits8(p + f[0].e, nd, &seq)) return "expected '#<seq>' as the second field";
    } else {
        for (size_t k = f[0].s + 1; k < f[0].e; k++) {
            unsigned d = (unsigned)(p[k] - '0');
            if (d > 9) return "expected '#<seq>' as the second field";
            seq = seq * 10 + d;
        }
    }
    r->seq = (int64_t)seq;
    /* 18 digits cannot overflow; longer ones go through the checked parser */
    if (nd > 18 && tr_parse_int64(p + f[0].s + 1, nd, &r->seq) != 0)
        return "sequence number out of range";
    return NULL;
}

/*
** Parses a pipe-form line that gt_classify accepted: the time is [T0, I),
** NS as gt_classify read it.  The line ends at its first '\n' before *N,
** else at *N: *N becomes its length and *WHOLE says what gt_split says.
** Returns NULL and fills R, or says what is wrong and sets *COL (1-based).
*/
static inline const char *gt_parse_pipe(gt_rd *g, const char *p, size_t *np, size_t t0, size_t i,
                                        int64_t ns, gt_rec *r, size_t *col, int *whole)
{
    size_t n = *np;
    *col = t0 + 1;
    if (gt_time(p + t0, i - t0, ns, &r->ts) != 0) return "elapsed time out of range";
    /* "s |" is known to follow; the separator needs its trailing space too */
    if (i + 4 > n || p[i + 3] != ' ') {
        *col = i + 2;
        return "expected ' | #<seq> | ' after the elapsed time";
    }
    /* At most 6 fields in all: SEQ, EVENT, SOURCE, COMMAND, F6, rest. */
    gt_field f[6];
    size_t nf;
    const gt_head_slot *k = gt_head_find(g, p, i + 4, n, r);
    if (k) {
        /* The head's bytes, the same as the slot's, split as they were there. */
        size_t h = (size_t)(r->head - p);
        f[0] = (gt_field){i + 4, h - 3};
        f[1] = (gt_field){h, h + k->f1e};
        f[2] = (gt_field){h + k->f2s, h + k->f2e};
        f[3] = (gt_field){h + k->f3s, h + k->n};
        nf = gt_split(p, h + k->n + 3, n, 5, f, 4, np, whole);
    } else {
        nf = gt_split(p, i + 4, n, 5, f, 0, np, whole);
    }
    n = *np;
    if (!k) {
        const char *why = gt_parse_seq(p, f, r, col);
        if (why) return why;
    }
    if (nf < 4) {
        *col = f[nf - 1].s + 1;
        return "expected 5 fields: T | #SEQ | EVENT | SOURCE | COMMAND";
    }
    if (k) {
        r->ev = r->head + k->ev_at, r->ev_n = k->ev_n;
        r->src = r->head + k->src_at, r->src_n = k->src_n;
        r->cmd = r->head + k->cmd_at, r->cmd_n = k->cmd_n;
    } else {
        r->ev = p + f[1].s, r->ev_n = f[1].e - f[1].s;
        r->src = p + f[2].s, r->src_n = f[2].e - f[2].s;
        r->cmd = p + f[3].s, r->cmd_n = f[3].e - f[3].s;
        gt_trim(&r->ev, &r->ev_n);
        gt_trim(&r->src, &r->src_n);
        gt_trim(&r->cmd, &r->cmd_n);
        *col = f[1].s + 1;
        if (!r->ev_n) return "empty event type";
        *col = f[2].s + 1;
        if (!r->src_n) return "empty source";
        if (r->head_set) gt_head_fields(p, f, nf, r);
    }
    r->size = -1;
    r->det = NULL;
    r->det_n = 0;
    r->tape = 0;
    if (nf == 4) {
        /* visualize wants another '|' after COMMAND, spaced or not */
        r->vis_match = memchr(p + f[3].s, '|', f[3].e - f[3].s) != NULL;
        return NULL;
    }
    r->vis_match = 1;
    int sz = gt_size_fast(p, f[4].s, f[4].e, &r->size);
    if (!sz) {
        const char *f6 = p + f[4].s;
        size_t f6_n = f[4].e - f[4].s;
        gt_trim(&f6, &f6_n);
        sz = gt_parse_size(f6, f6_n, &r->size);
    }
    if (sz < 0) {
        *col = f[4].s + 1;
        return "size out of range";
    }
    if (sz > 0) {
        r->det = nf > 5 ? p + f[5].s : NULL;
        r->det_n = nf > 5 ? f[5].e - f[5].s : 0;
    } else {
        r->size = -1;
        r->det = p + f[4].s;
        r->det_n = n - f[4].s;
    }
    if (r->det && !g->no_args) gt_trim(&r->det, &r->det_n); /* only args read it */
    return NULL;
}

/*
** Parses "[TAPE <t>s] EVENT | CLIENT | COMMAND | DETAILS" (105d6f8) from I.
** Returns NULL and fills R, or says what is wrong and sets *COL.
*/
static inline const char *gt_parse_tape(const char *p, size_t n, size_t i, gt_rec *r, size_t *col)
{
    *col = i + 1;
    if (n - i < 6 || p[i + 5] != ' ') return "expected '[TAPE <t>s]'";
    size_t t0 = i + 6;
    i = t0;
    *col = t0 + 1;
    int64_t ns;
    if (!gt_skip_number(p, n, &i, &ns) || n - i < 2 || p[i] != 's' || p[i + 1] != ']')
        return "expected '[TAPE <t>s]'";
    if (gt_time(p + t0, i - t0, ns, &r->ts) != 0) return "elapsed time out of range";
    gt_field f[4];
    size_t end;
    int whole;
    size_t nf = gt_split(p, i + 2, n, 3, f, 0, &end, &whole);
    *col = i + 3;
    if (nf < 3) return "expected EVENT | CLIENT | COMMAND after '[TAPE <t>s]'";
    r->ev = p + f[0].s, r->ev_n = f[0].e - f[0].s;
    r->src = p + f[1].s, r->src_n = f[1].e - f[1].s;
    r->cmd = p + f[2].s, r->cmd_n = f[2].e - f[2].s;
    r->det = nf > 3 ? p + f[3].s : NULL;
    r->det_n = nf > 3 ? f[3].e - f[3].s : 0;
    gt_trim(&r->ev, &r->ev_n);
    gt_trim(&r->src, &r->src_n);
    gt_trim(&r->cmd, &r->cmd_n);
    if (r->det) gt_trim(&r->det, &r->det_n);
    if (!r->ev_n) return "empty event type";
    *col = f[1].s + 1;
    if (!r->src_n) return "empty client";
    r->seq = -1;
    r->size = -1;
    r->tape = 1;
    r->head_n = 0;
    r->known = NULL;
    r->head_set = NULL;
    r->vis_match = 0; /* visualize's pattern needs "<t>s | #<seq>" */
    return NULL;
}

#endif
