/*
** chrome_json.c: the Chrome reader's JSON scanner and its window on the
** input.  The scanner of our own validates as it goes and hands out tokens
** pointing into the window; an event is scanned once, its args flattened in
** the same pass (chrome_args.c puts them in the model).  An event must fit
** in the window (up to EVENT_MAX); a top-level value of any size can be
** streamed past in constant memory.  Nothing builds a tree of the document.
*/
#include "chrome_impl.h"
#include "tr_utf8.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

/* ---- JSON tokens ---- */

static int jerr(jscan *j, const char *at, const char *what)
{
    j->err_at = at;
    j->err = what;
    return S_ERR;
}

/* At a zero byte: the data ends here (more may come) or the input holds a NUL. */
static int jstop(jscan *j, const char *p, const char *what)
{
    if (p >= j->end) return j->eof ? jerr(j, p, "unexpected end of input") : S_MORE;
    return jerr(j, p, what);
}

/* Passes the ':' after a key and the blanks around it: ": ", as most writers put it, in one test.
 */
static inline int pass_colon(jscan *j, const char **pp)
{
    const char *p = *pp;
    if (memcmp(p, ": ", 2) == 0 && (unsigned char)p[2] > ' ') { /* one 16-bit compare */
        *pp = p + 2;
        return S_OK;
    }
    p = cj_jws(p);
    if (*p != ':') return *p ? jerr(j, p, "expected ':'") : jstop(j, p, "NUL byte");
    *pp = cj_jws(p + 1);
    return S_OK;
}

/* The first byte at or after P that ends a run of plain string content. */
static inline const char *str_run(const char *p)
{
#if defined(__SSE2__) && defined(__GNUC__)
    /* sixteen bytes at a time (the window's zero padding covers the last load) */
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'),
                  blank = _mm_set1_epi8(' ');
    for (;; p += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        /* signed: bytes >= 0x80 are negative, below ' ' as control characters are */
        __m128i stop =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
                         _mm_cmplt_epi8(v, blank));
        unsigned mask = (unsigned)_mm_movemask_epi8(stop);
        if (mask) return p + __builtin_ctz(mask);
    }
#else
    /* eight bytes at a time: a byte's high bit marks '"', '\\', < 0x20 or >= 0x80 */
    for (;; p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t q = w ^ 0x2222222222222222ULL, b = w ^ 0x5c5c5c5c5c5c5c5cULL;
        uint64_t spec = (((q - 0x0101010101010101ULL) & ~q) | ((b - 0x0101010101010101ULL) & ~b) |
                         (w - 0x2020202020202020ULL) | w) &
                        0x8080808080808080ULL;
        if (!spec) continue;
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* borrows only carry upwards: the lowest marked byte is a true stop */
        return p + (__builtin_ctzll(spec) >> 3);
#else
        for (unsigned char c; (c = (unsigned char)*p) != '"' && c != '\\' && c >= 0x20 && c < 0x80;)
            p++;
        return p;
#endif
    }
#endif
}

/* str_body once a run stops short of the closing quote: escapes, high bytes, errors. */
static int str_body_slow(jscan *j, const char **pp, int *flags)
{
    const char *p = *pp;
    for (;;) {
        p = str_run(p);
        unsigned char c = (unsigned char)*p;
        if (c == '"') break;
        if (c >= 0x80) {
            *flags |= JF_HIGH;
            p++;
            continue;
        }
        if (c == '\\') {
            *flags |= JF_ESC;
            char e = p[1];
            if (e == 'u') {
                for (int k = 2; k < 6; k++) {
                    if (!p[k] && p + k >= j->end) {
                        *pp = p;
                        return jstop(j, p + k, "");
                    }
                    if (!cj_is_hex(p[k])) return jerr(j, p, "bad \\u escape in string");
                }
                p += 6;
                continue;
            }
            if (e && strchr("\"\\/bfnrt", e)) {
                p += 2;
                continue;
            }
            if (!e && p + 1 >= j->end) {
                *pp = p;
                return jstop(j, p + 1, "");
            }
            return jerr(j, p, "bad escape in string");
        }
        if (!c && p >= j->end) {
            *pp = p;
            return jstop(j, p, "");
        }
        return jerr(j, p, c ? "control character in string" : "NUL byte in string");
    }
    *pp = p;
    return S_OK;
}

/*
** Advances *PP through string content up to the closing quote (left at it).
** S_MORE leaves *PP where scanning can resume (never inside an escape).
*/
static inline int str_body(jscan *j, const char **pp, int *flags)
{
    const char *p = str_run(*pp);
    *pp = p;
    if (*p == '"') return S_OK;
    /*
    ** The slow path gets copies: a caller's pointer whose address went to a
    ** function not inlined would live in memory through the whole scan.
    */
    const char *q = p;
    int f = *flags, rc = str_body_slow(j, &q, &f);
    *pp = q;
    *flags = f;
    return rc;
}

/* A string token at *PP (its opening quote); *PP ends after the closing quote. */
static inline int scan_str(jscan *j, const char **pp, jtok *t)
{
    const char *p = *pp + 1;
    int flags = 0, rc = str_body(j, &p, &flags);
    if (rc != S_OK) return rc;
    t->p = *pp + 1;
    t->n = (size_t)(p - t->p);
    t->type = J_STR;
    t->flags = flags;
    *pp = p + 1;
    return S_OK;
}

/* The literal WORD at P (true, false, null, NaN, Infinity). */
static int scan_word(jscan *j, const char *p, const char *word)
{
    for (size_t k = 0; word[k]; k++) {
        if (p[k] == word[k]) continue;
        return p[k] ? jerr(j, p, "invalid literal") : jstop(j, p + k, "invalid literal");
    }
    return S_OK;
}

static CJ_SLOW int scan_num_slow(jscan *j, const char **pp, jtok *t)
{
    const char *p = *pp, *s = p;
    int flags = JF_INT;
    uint64_t m = 0; /* wraps past 19 digits: used only under JF_MANT */
    if (*p == '-') p++;
    if (*p == 'I') {
        int rc = scan_word(j, p, "Infinity");
        if (rc != S_OK) return rc;
        p += 8;
        flags = JF_ODD;
    } else {
        const char *d = p;
        if (*p == '0') {
            p++;
        } else if (cj_is_digit(*p)) {
            while (cj_is_digit(*p)) m = m * 10 + (uint64_t)(*p++ - '0');
        } else {
            return *p ? jerr(j, p, "invalid number") : jstop(j, p, "invalid number");
        }
        size_t whole = (size_t)(p - d), frac = 0;
        if (*p == '.') {
            flags = 0;
            p++;
            if (!cj_is_digit(*p)) return *p ? jerr(j, p, "invalid number") : jstop(j, p, "");
            d = p;
            while (cj_is_digit(*p)) m = m * 10 + (uint64_t)(*p++ - '0');
            frac = (size_t)(p - d);
        }
        if (*p != 'e' && *p != 'E') {
            if (whole <= 15 && frac <= 3) flags |= JF_MANT | (int)frac << JF_FRAC_SHIFT;
        } else {
            flags = 0;
            p++;
            if (*p == '+' || *p == '-') p++;
            if (!cj_is_digit(*p)) return *p ? jerr(j, p, "invalid number") : jstop(j, p, "");
            while (cj_is_digit(*p)) p++;
        }
    }
    /* A number that reaches the end of the data may go on in the next read. */
    if (p >= j->end && !j->eof) return S_MORE;
    if ((size_t)(p - s) > NUM_MAX) return jerr(j, s, "number too long");
    t->p = s;
    t->n = (size_t)(p - s);
    t->type = J_NUM;
    t->flags = flags;
    t->mant = m;
    *pp = p;
    return S_OK;
}

/* M followed by the digits at *PP, passed two at a time (half the branches). */
static inline uint64_t pass_digits(const char **pp, uint64_t m)
{
    const char *p = *pp;
    while (cj_is_digit(p[0]) && cj_is_digit(p[1])) {
        m = m * 100 + (uint64_t)((p[0] - '0') * 10 + (p[1] - '0'));
        p += 2;
    }
    if (cj_is_digit(*p)) m = m * 10 + (uint64_t)(*p++ - '0');
    *pp = p;
    return m;
}

/*
** A number token at *PP, inline for what nearly every number is: digits
** without a sign, at most 15 of them, then at most 3 after a point, ended
** inside the data.  Anything else (a sign, an exponent, more digits, an
** error, the data's end) goes to scan_num_slow from the start.
*/
static inline int scan_num(jscan *j, const char **pp, jtok *t)
{
    const char *s = *pp, *p = s;
    uint64_t m = (uint64_t)(*p - '0');
    int flags = JF_INT | JF_MANT;
    if (m > 9) return scan_num_slow(j, pp, t);
    p++;
    if (m) /* a leading 0 is the whole part */
        m = pass_digits(&p, m);
    if (*p == '.') {
        const char *d = ++p;
        m = pass_digits(&p, m);
        size_t frac = (size_t)(p - d);
        if (!frac || frac > 3 || d - s > 16) return scan_num_slow(j, pp, t);
        flags = JF_MANT | (int)frac << JF_FRAC_SHIFT;
    } else if (p - s > 15) {
        return scan_num_slow(j, pp, t);
    }
    if (*p == 'e' || *p == 'E' || p >= j->end) return scan_num_slow(j, pp, t);
    t->p = s;
    t->n = (size_t)(p - s);
    t->type = J_NUM;
    t->flags = flags;
    t->mant = m;
    *pp = p;
    return S_OK;
}

/* A scalar (string, number, literal) at *PP. */
static inline int scan_scalar(jscan *j, const char **pp, jtok *t)
{
    const char *p = *pp;
    static const struct {
        char c;
        const char *word;
        int type, flags;
    } lits[] = {{'t', "true", J_TRUE, 0},
                {'f', "false", J_FALSE, 0},
                {'n', "null", J_NULL, 0},
                {'N', "NaN", J_NUM, JF_ODD}};
    if (*p == '"') return scan_str(j, pp, t);
    if (*p == '-' || cj_is_digit(*p) || *p == 'I') return scan_num(j, pp, t);
    for (size_t i = 0; i < sizeof lits / sizeof lits[0]; i++) {
        if (*p != lits[i].c) continue;
        int rc = scan_word(j, p, lits[i].word);
        if (rc != S_OK) return rc;
        t->p = p;
        t->n = strlen(lits[i].word);
        t->type = lits[i].type;
        t->flags = lits[i].flags;
        *pp = p + t->n;
        return S_OK;
    }
    return *p ? jerr(j, p, "expected a JSON value") : jstop(j, p, "expected a JSON value");
}

/* The scanners for the other files; the event and args scans here inline them. */
int cj_scan_str(jscan *j, const char **pp, jtok *t)
{
    return scan_str(j, pp, t);
}

int cj_scan_scalar(jscan *j, const char **pp, jtok *t)
{
    return scan_scalar(j, pp, t);
}

static void skip_reset(jskip *k)
{
    tr_buf_reset(&k->stack);
    k->outer = 0;
    k->want = W_VALUE;
    k->in_str = 0;
}

static int skip_after_value(jskip *k)
{
    k->want = k->stack.len ? W_COMMA_OR_CLOSE : W_DONE;
    return k->want == W_DONE;
}

#define SKIP_GO 2 /* skip_token: the value goes on */

/* A container of the skipped value closes at *PP: S_OK when that ends the value. */
static inline int skip_close(jskip *k, const char **pp)
{
    k->stack.p[--k->stack.len] = '\0';
    (*pp)++;
    return skip_after_value(k) ? S_OK : SKIP_GO;
}

/* A value where one is wanted: a container opens, or a string or scalar passes. */
static inline int skip_value(jscan *j, jskip *k, const char **pp, char c, int stream)
{
    if (c == '{' || c == '[') {
        if (k->outer + k->stack.len >= DEPTH_MAX) return jerr(j, *pp, "nesting too deep");
        if (tr_buf_addc(&k->stack, c) != TR_OK) return jerr(j, *pp, "out of memory");
        k->want = c == '{' ? W_KEY_OR_CLOSE : W_VALUE_OR_CLOSE;
        (*pp)++;
        return SKIP_GO;
    }
    if (c == '"' && stream) {
        k->in_str = 1;
        k->str_is_key = 0;
        (*pp)++;
        return SKIP_GO;
    }
    jtok t;
    int rc = scan_scalar(j, pp, &t);
    if (rc != S_OK) return rc;
    return skip_after_value(k) ? S_OK : SKIP_GO;
}

/* A key where one is wanted, or the object's end. */
static inline int skip_key(jscan *j, jskip *k, const char **pp, char c, int stream)
{
    if (c == '}') return skip_close(k, pp);
    if (c != '"') return jerr(j, *pp, "expected a string key");
    if (stream) {
        k->in_str = 1;
        k->str_is_key = 1;
        (*pp)++;
        return SKIP_GO;
    }
    jtok t;
    int rc = scan_str(j, pp, &t);
    if (rc == S_OK) k->want = W_COLON;
    return rc == S_OK ? SKIP_GO : rc;
}

/* One token of the value being skipped, its first byte C at *PP (past blanks). */
static inline int skip_token(jscan *j, jskip *k, const char **pp, char c, int stream)
{
    switch (k->want) {
    case W_VALUE_OR_CLOSE:
        if (c == ']') return skip_close(k, pp);
        return skip_value(j, k, pp, c, stream);
    case W_VALUE:
        return skip_value(j, k, pp, c, stream);
    case W_KEY_OR_CLOSE:
        return skip_key(j, k, pp, c, stream);
    case W_COLON:
        if (c != ':') return jerr(j, *pp, "expected ':'");
        (*pp)++;
        k->want = W_VALUE;
        return SKIP_GO;
    default: { /* W_COMMA_OR_CLOSE */
        char open = k->stack.p[k->stack.len - 1];
        if (c == ',') {
            k->want = open == '{' ? W_KEY_OR_CLOSE : W_VALUE_OR_CLOSE;
            (*pp)++;
            return SKIP_GO;
        }
        if ((c == '}' && open == '{') || (c == ']' && open == '[')) return skip_close(k, pp);
        return jerr(j, *pp, open == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
    }
    }
}

static int skip_run(jscan *j, jskip *k, const char **pp, int stream)
{
    const char *p = *pp;
    for (;;) {
        if (k->in_str) {
            int flags = 0, rc = str_body(j, &p, &flags);
            if (rc != S_OK) {
                *pp = p;
                return rc;
            }
            p++;
            k->in_str = 0;
            if (k->str_is_key)
                k->want = W_COLON;
            else if (skip_after_value(k))
                break;
        }
        p = cj_jws(p);
        *pp = p;
        char c = *p;
        if (!c) {
            if (p >= j->end) return j->eof ? jerr(j, p, "unexpected end of input") : S_MORE;
            return jerr(j, p, "NUL byte");
        }
        /* a token cut short leaves *PP at its start, where the same state goes on */
        const char *q = p;
        int rc = skip_token(j, k, &q, c, stream);
        if (rc != SKIP_GO && rc != S_OK) return rc;
        p = q;
        if (rc == S_OK) break;
    }
    *pp = p;
    return S_OK;
}

/* ---- strings and numbers ---- */

static uint32_t hex4(const char *p)
{
    uint32_t v = 0;
    for (int k = 0; k < 4; k++) {
        char c = p[k];
        v = v << 4 | (uint32_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

/* What cj_str_text (chrome_impl.h) cannot hand out as it is: escapes and bytes >= 0x80. */
const char *cj_str_unescape(const jtok *t, tr_buf *out, size_t *n, int *bad)
{
    if (t->type != J_STR) {
        *n = 0;
        return "";
    }
    tr_buf_reset(out);
    const char *p = t->p, *end = t->p + t->n;
    while (p < end) {
        unsigned char c = (unsigned char)*p;
        if (c == '\\') {
            char e = p[1];
            if (e == 'u') {
                uint32_t cp = hex4(p + 2);
                p += 6;
                if (cp >= 0xd800 && cp < 0xdc00 && p + 6 <= end && p[0] == '\\' && p[1] == 'u') {
                    uint32_t lo = hex4(p + 2);
                    if (lo >= 0xdc00 && lo < 0xe000) {
                        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                        p += 6;
                    }
                }
                if (cp >= 0xd800 && cp < 0xe000) cp = 0xfffd; /* a lone surrogate */
                tr_utf8_put(out, cp);
                continue;
            }
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            const char *k = strchr(from, e);
            tr_buf_addc(out, k ? to[k - from] : e);
            p += 2;
        } else if (c < 0x80) {
            const char *s = p;
            while (p < end && *p != '\\' && (unsigned char)*p < 0x80) p++;
            tr_buf_add(out, s, (size_t)(p - s));
        } else {
            size_t sub, k = tr_utf8_seq((const unsigned char *)p, (size_t)(end - p), &sub);
            if (k) {
                tr_buf_add(out, p, k);
                p += k;
            } else {
                tr_utf8_put(out, 0xfffd);
                *bad = 1;
                p++;
            }
        }
    }
    *n = out->len;
    return out->p;
}

/*
** The value of number token T, as strtod gives it.  Most numbers have at
** most 15 significant digits and no exponent: an exact integer over an exact
** power of ten, whose quotient IEEE division rounds correctly, as strtod
** does.  The others go through strtod (NUM_MAX bounds the copy).
*/
double cj_tok_double(const jtok *t)
{
    static const double pow10[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    const char *p = t->p, *end = t->p + t->n;
    int neg = p < end && *p == '-', digits = 0, frac = -1;
    if (t->type == J_NUM && (t->flags & JF_MANT) &&
        t->n - (size_t)neg - !(t->flags & JF_INT) <= 15) {
        double d = (double)t->mant / pow10[JF_FRAC(t->flags)]; /* the digits the scan parsed */
        return neg ? -d : d;
    }
    uint64_t m = 0;
    for (p += neg; p < end && digits <= 15; p++) {
        if (cj_is_digit(*p)) {
            m = m * 10 + (uint64_t)(*p - '0');
            digits++;
            frac += frac >= 0;
        } else if (*p == '.' && frac < 0) {
            frac = 0;
        } else {
            break;
        }
    }
    if (p == end && digits && digits <= 15) {
        double d = (double)m / pow10[frac > 0 ? frac : 0];
        return neg ? -d : d;
    }
    char tmp[NUM_MAX + 1];
    size_t n = t->n < NUM_MAX ? t->n : NUM_MAX;
    memcpy(tmp, t->p, n);
    tmp[n] = '\0';
    return strtod(tmp, NULL);
}

/*
** The N bytes at S as microseconds with at most 15 digits and 3 decimals,
** as nearly every timestamp is: whole nanoseconds, exact in integers, as
** tr_parse_decimal_ns gives them (it takes the rest).  Returns 0 or -1.
*/
static int us_short(const char *s, size_t n, int64_t *ns)
{
    static const uint64_t scale[4] = {1000, 100, 10, 1};
    size_t i = s[0] == '-', start = i, frac = 0;
    uint64_t v = 0;
    for (; i < n && cj_is_digit(s[i]) && i - start < 15; i++) v = v * 10 + (uint64_t)(s[i] - '0');
    if (i == start) return -1;
    if (i < n && s[i] == '.')
        for (i++; i < n && cj_is_digit(s[i]) && frac < 3; i++, frac++)
            v = v * 10 + (uint64_t)(s[i] - '0');
    if (i != n || s[i - 1] == '.') return -1;
    *ns = s[0] == '-' ? -(int64_t)(v * scale[frac]) : (int64_t)(v * scale[frac]);
    return 0;
}

/*
** A timestamp or duration in microseconds as ns: a number, or a string
** holding one (Perfetto accepts "200.5" but not "100a").  Returns 0 or -1.
*/
int cj_tok_us(const jtok *t, int64_t *ns)
{
    static const uint64_t scale[4] = {1000, 100, 10, 1};
    if (t->type == J_NUM && (t->flags & JF_MANT)) { /* what us_short would give */
        uint64_t v = t->mant * scale[JF_FRAC(t->flags)];
        *ns = t->p[0] == '-' ? -(int64_t)v : (int64_t)v;
        return 0;
    }
    if (t->type != J_NUM && t->type != J_STR) return -1;
    if (t->n == 0 || t->n > NUM_MAX || (t->flags & (JF_ESC | JF_HIGH | JF_ODD))) return -1;
    if (us_short(t->p, t->n, ns) == 0 || tr_parse_decimal_ns(t->p, t->n, 1000, ns) == 0) return 0;
    if (t->type == J_STR) {
        /* a string must hold a JSON number and nothing else */
        jscan j = {t->p + t->n, 1, NULL, NULL};
        char tmp[NUM_MAX + WINDOW_PAD];
        memcpy(tmp, t->p, t->n);
        memset(tmp + t->n, 0, WINDOW_PAD);
        const char *p = tmp;
        jtok num;
        j.end = tmp + t->n;
        if (scan_num(&j, &p, &num) != S_OK || p != tmp + t->n || (num.flags & JF_ODD)) return -1;
    }
    double us = cj_tok_double(t);
    if (!(fabs(us) < 9.2e15)) return -1; /* NaN, or past int64 ns */
    *ns = (int64_t)llround(us * 1000.0);
    return 0;
}

/* An integer id (pid, tid, sort index): numbers, truncated; 0 or -1. */
int cj_tok_int(const jtok *t, int64_t *v)
{
    if (t->type != J_NUM || (t->flags & JF_ODD)) return -1;
    if (cj_tok_small_int(t, v) || ((t->flags & JF_INT) && tr_parse_int64(t->p, t->n, v) == 0))
        return 0;
    double d = cj_tok_double(t);
    if (!(fabs(d) < 9.2e18)) return -1;
    *v = (int64_t)d;
    return 0;
}

/* ---- the window ---- */

/*
** Makes more input available: keeps buf[KEEP, end), reads at least READ_MIN
** more (and as much as is kept, so restarting a long value stays linear).
** Sets eof at the end of the stream.
*/
int cj_win_fill(cj_rd *r, size_t keep)
{
    size_t live = r->end - keep;
    if (keep) {
        memmove(r->buf, r->buf + keep, live);
        r->base += keep;
        r->pos -= keep;
        r->end = live;
    }
    size_t want = live > READ_MIN ? live : READ_MIN;
    if (r->cap - r->end - WINDOW_PAD < want) {
        size_t cap = r->cap;
        while (cap - r->end - WINDOW_PAD < want) cap *= 2;
        char *p = tr_realloc(r->buf, cap);
        if (!p) return tr_error_nomem(r->e);
        r->buf = p;
        r->cap = cap;
    }
    size_t room = r->cap - r->end - WINDOW_PAD, got = 0;
    while (got < room && !r->eof) {
        size_t n;
        int rc = tr_input_read(r->in, r->buf + r->end + got, room - got, &n, r->e);
        if (rc != TR_OK) return rc;
        if (n == 0) r->eof = 1;
        got += n;
        if (got >= want) break;
    }
    r->end += got;
    memset(r->buf + r->end, 0, WINDOW_PAD);
    r->seen[0].thread = r->seen[1].thread = TR_NONE; /* their tokens pointed into the old window */
    r->js.end = r->buf + r->end;
    r->js.eof = r->eof;
    return TR_OK;
}

/* A syntax error at the scanner's position. */
static int syntax_error(cj_rd *r)
{
    tr_loc loc = cj_loc_at(r, cj_off_of(r, r->js.err_at));
    return tr_errorf(r->e, TR_E_FORMAT, &loc, "invalid JSON: %s", r->js.err);
}

/* Skips whitespace, refilling; *C is the next byte (0 at the end of input). */
int cj_win_ws(cj_rd *r, char *c)
{
    for (;;) {
        const char *p = cj_blanks(r->buf + r->pos);
        r->pos = (size_t)(p - r->buf);
        if (r->pos < r->end || r->eof) {
            *c = r->pos < r->end ? *p : 0;
            if (!*c && r->pos < r->end) {
                r->js.err_at = p;
                r->js.err = "NUL byte";
                return syntax_error(r);
            }
            return TR_OK;
        }
        int rc = cj_win_fill(r, r->pos);
        if (rc != TR_OK) return rc;
    }
}

/*
** Scans one unit (a token, an event, a kept value) with FN from pos, refilling
** and restarting while it needs more, up to LIMIT bytes.  S_MORE comes back
** only at the end of input.
*/
int cj_win_unit(cj_rd *r, unit_fn fn, void *arg, size_t limit, int *st)
{
    *st = S_OK;
    for (;;) {
        const char *p = r->buf + r->pos;
        int rc = fn(r, &p, arg);
        if (rc == S_OK && (size_t)(p - (r->buf + r->pos)) > limit) {
            *st = S_ERR;
            return TR_OK;
        }
        if (rc == S_OK) {
            r->pos = (size_t)(p - r->buf);
            return TR_OK;
        }
        /* the input ended inside the unit: the caller decides what that means */
        if (rc == S_ERR && r->eof && r->js.err_at >= r->js.end) rc = S_MORE;
        if (rc == S_ERR) return syntax_error(r);
        if (r->eof) {
            *st = S_MORE;
            return TR_OK;
        }
        if (r->end - r->pos >= limit) {
            *st = S_ERR;
            return TR_OK;
        }
        if ((rc = cj_win_fill(r, r->pos)) != TR_OK) return rc;
    }
}

int cj_unit_str(cj_rd *r, const char **pp, void *arg)
{
    return scan_str(&r->js, pp, arg);
}

int cj_unit_value(cj_rd *r, const char **pp, void *arg)
{
    jtok *t = arg;
    const char *s = *pp;
    if (*s != '{' && *s != '[') return scan_scalar(&r->js, pp, t);
    skip_reset(&r->skip);
    int rc = skip_run(&r->js, &r->skip, pp, 0);
    if (rc != S_OK) return rc;
    t->p = s;
    t->n = (size_t)(*pp - s);
    t->type = *s == '{' ? J_OBJ : J_ARR;
    t->flags = 0;
    return S_OK;
}

/* Streams past a value of any size without keeping it. */
int cj_win_skip_stream(cj_rd *r)
{
    skip_reset(&r->skip);
    for (;;) {
        const char *p = r->buf + r->pos;
        int rc = skip_run(&r->js, &r->skip, &p, 1);
        r->pos = (size_t)(p - r->buf);
        if (rc == S_OK) return TR_OK;
        if (rc == S_ERR) return syntax_error(r);
        if ((rc = cj_win_fill(r, r->pos)) != TR_OK) return rc;
    }
}

/* ---- values already checked ---- */

/* The end of the validated value at P. */
const char *cj_value_end(const char *p)
{
    if (*p == '"') {
        p++;
        while (*p != '"') p += *p == '\\' ? 2 : 1;
        return p + 1;
    }
    if (*p != '{' && *p != '[') {
        while (*p && !strchr(",}] \t\r\n:", *p)) p++;
        return p;
    }
    size_t depth = 0;
    do {
        if (*p == '"') {
            p = cj_value_end(p);
            continue;
        }
        if (*p == '{' || *p == '[') depth++;
        if (*p == '}' || *p == ']') depth--;
        p++;
    } while (depth);
    return p;
}

/* ---- an event's args, flattened as they are scanned ---- */

/*
** Where the next member of the event's args is scanned: the record after
** the last (scanned in place, not copied), or SPARE when EMIT or full.
*/
static inline arg_rec *arg_slot(cj_rd *r, int emit, arg_rec *spare)
{
    if (!emit && r->recs.len < ARG_RECS &&
        (r->recs.len < r->recs.cap || tr_vec_reserve(&r->recs, r->recs.len + 1) == TR_OK))
        return &TR_VEC_AT(&r->recs, arg_rec, r->recs.len);
    return spare;
}

/* Records member A (from arg_slot) of the event's args, or (EMIT) adds it to the set under
 * construction. */
static void arg_put(cj_rd *r, const arg_rec *a, const arg_rec *spare, int emit, int *bad)
{
    if (emit)
        cj_arg_emit(r, a, bad);
    else if (a != spare)
        r->recs.len++;
    else
        r->recs_over = 1;
}

/* Whether the text at P is that of cache entry C. */
static inline int same_text(const jscan *j, const char *p, const text_ent *c)
{
    return c->n && (size_t)(j->end - p) >= c->n && memcmp(p, c->raw, c->n) == 0;
}

/*
** The object at *PP (its '{'), validated as skip_run would (same errors,
** trailing commas too) and flattened in the same pass: nested objects as
** dotted keys (to ARGS_DEPTH), arrays and deeper values as compact JSON text,
** null as NaN.  EMIT adds the members to the set under construction (the
** text is known valid, so this cannot fail; BAD is set on invalid UTF-8),
** else they are recorded for cj_emit_recs: a scan restarted after a refill
** must not have added anything.
*/
int cj_args_scan(cj_rd *r, const char **pp, int depth, int emit, int *bad)
{
    jscan *j = &r->js;
    const char *p = cj_jws(*pp + 1);
    int rc = S_OK;
    while (*p != '}') {
        arg_rec spare, *a = arg_slot(r, emit, &spare);
        a->depth = depth;
        a->open = 0;
        a->text = 0;
        if (*p != '"') return *p ? jerr(j, p, "expected a string key") : jstop(j, p, "NUL byte");
        if ((rc = scan_str(j, &p, &a->key)) != S_OK) return rc;
        if ((rc = pass_colon(j, &p)) != S_OK) return rc;
        if (*p == '{' && depth + 1 < ARGS_DEPTH) {
            a->open = 1;
            a->val = (jtok){NULL, 0, J_NONE, 0, 0};
            arg_put(r, a, &spare, emit, bad); /* before its members: A moves no more */
            const char *q = p;                /* copies, as in str_body */
            rc = cj_args_scan(r, &q, depth + 1, emit, bad);
            p = q;
        } else if (*p == '{' || *p == '[') {
            const char *s = p;
            const text_ent *c = emit ? NULL : cj_text_slot(r, p);
            if (c && !same_text(j, p, c)) c++;
            if (emit) {
                p = cj_value_end(p);
            } else if (same_text(j, p, c)) {
                p += c->n; /* bytes met before: valid, and their text is known */
                a->text = c->id;
            } else {
                /* an event's args start at depth 0: the nesting skip_run counts from there */
                const char *q = p;
                skip_reset(&r->skip);
                r->skip.outer = (size_t)depth + 1;
                rc = skip_run(j, &r->skip, &q, 0);
                p = q;
            }
            a->val = (jtok){s, (size_t)(p - s), *s == '{' ? J_OBJ : J_ARR, 0, 0};
            if (rc == S_OK) arg_put(r, a, &spare, emit, bad);
        } else if (!*p) {
            return jstop(j, p, "NUL byte");
        } else if ((rc = scan_scalar(j, &p, &a->val)) == S_OK) {
            arg_put(r, a, &spare, emit, bad);
        }
        if (rc != S_OK) return rc;
        if (memcmp(p, ", ", 2) == 0 && (unsigned char)p[2] > ' ') {
            p += 2; /* ", " likewise */
            continue;
        }
        p = cj_jws(p);
        if (*p == ',') {
            p = cj_jws(p + 1);
            continue; /* a '}' right after is a trailing comma */
        }
        if (*p != '}') return *p ? jerr(j, p, "expected ',' or '}'") : jstop(j, p, "NUL byte");
    }
    *pp = p + 1;
    return S_OK;
}

/* ---- an event ---- */

static jtok *event_slot(cev *ev, const jtok *k)
{
    const char *s = k->p;
    if (k->flags) return NULL;
    switch (k->n) {
    case 1:
        return s[0] == 's' ? &ev->s : NULL;
    case 2:
        if (s[0] == 'p' && s[1] == 'h') return &ev->ph;
        if (s[0] == 't' && s[1] == 's') return &ev->ts;
        if (s[0] == 'i' && s[1] == 'd') return &ev->id;
        if (s[0] == 'b' && s[1] == 'p') return &ev->bp;
        if (s[0] == 's' && s[1] == 'f') return &ev->sf;
        return NULL;
    case 3:
        if (memcmp(s, "cat", 3) == 0) return &ev->cat;
        if (memcmp(s, "dur", 3) == 0) return &ev->dur;
        if (memcmp(s, "pid", 3) == 0) return &ev->pid;
        if (memcmp(s, "tid", 3) == 0) return &ev->tid;
        if (memcmp(s, "id2", 3) == 0) return &ev->id2;
        if (memcmp(s, "tts", 3) == 0) return &ev->tts;
        return NULL;
    case 4:
        if (memcmp(s, "name", 4) == 0) return &ev->name;
        if (memcmp(s, "args", 4) == 0) return &ev->args;
        if (memcmp(s, "tdur", 4) == 0) return &ev->tdur;
        return NULL;
    case 5:
        if (memcmp(s, "stack", 5) == 0) return &ev->stack;
        if (memcmp(s, "scope", 5) == 0) return &ev->scope;
        return NULL;
    case 7:
        if (memcmp(s, "bind_id", 7) == 0) return &ev->bind_id;
        if (memcmp(s, "flow_in", 7) == 0) return &ev->flow_in;
        return NULL;
    case 8:
        return memcmp(s, "flow_out", 8) == 0 ? &ev->flow_out : NULL;
    default:
        return NULL;
    }
}

/* Four bytes as one word, the first lowest (one load where words are little-endian). */
#define CJ_W4(a, b, c, d)                                                                          \
    ((uint32_t)(unsigned char)(a) | (uint32_t)(unsigned char)(b) << 8 |                            \
     (uint32_t)(unsigned char)(c) << 16 | (uint32_t)(unsigned char)(d) << 24)

static inline uint32_t word4(const char *p)
{
    return CJ_W4(p[0], p[1], p[2], p[3]);
}

/*
** The slot of the key at *PP (its opening quote) when it is one of those
** every event has ("ph", "ts", "cat", "name", ...), compared whole with its
** quotes, *PP then past it; else NULL and the key is scanned as any string.
** Bytes past the data are the window's zeros: they match no key.
*/
static inline jtok *known_key(cev *ev, const char **pp)
{
    const char *p = *pp;
    jtok *slot = NULL;
    size_t n = 0;
    if (p[3] == '"') {
        uint32_t w = word4(p);
        n = 2;
        slot = w == CJ_W4('"', 'p', 'h', '"')   ? &ev->ph
               : w == CJ_W4('"', 't', 's', '"') ? &ev->ts
               : w == CJ_W4('"', 'i', 'd', '"') ? &ev->id
               : w == CJ_W4('"', 'b', 'p', '"') ? &ev->bp
                                                : NULL;
    } else if (p[4] == '"') {
        uint32_t w = word4(p + 1);
        n = 3;
        slot = w == CJ_W4('c', 'a', 't', '"')   ? &ev->cat
               : w == CJ_W4('d', 'u', 'r', '"') ? &ev->dur
               : w == CJ_W4('p', 'i', 'd', '"') ? &ev->pid
               : w == CJ_W4('t', 'i', 'd', '"') ? &ev->tid
                                                : NULL;
    } else if (p[5] == '"') {
        uint32_t w = word4(p + 1);
        n = 4;
        slot = w == CJ_W4('n', 'a', 'm', 'e')   ? &ev->name
               : w == CJ_W4('a', 'r', 'g', 's') ? &ev->args
                                                : NULL;
    }
    if (slot) *pp = p + n + 2;
    return slot;
}

/*
** Clears what the scan of an event fills: every token J_NONE and empty.
** Member by member, not memset, which compilers make a rep stos of the 660
** bytes (a tenth of the event's scan); a token's mant is read only under
** JF_MANT, so it is left as it was.
*/
static inline void cev_clear(cev *ev)
{
#define CEV_CLEAR(f) ev->f.p = NULL, ev->f.n = 0, ev->f.type = J_NONE, ev->f.flags = 0
    CEV_CLEAR(ph), CEV_CLEAR(name), CEV_CLEAR(cat), CEV_CLEAR(ts), CEV_CLEAR(dur), CEV_CLEAR(pid);
    CEV_CLEAR(tid), CEV_CLEAR(id), CEV_CLEAR(id2), CEV_CLEAR(s), CEV_CLEAR(bp), CEV_CLEAR(args);
    CEV_CLEAR(sf), CEV_CLEAR(stack), CEV_CLEAR(bind_id), CEV_CLEAR(flow_in), CEV_CLEAR(flow_out);
    CEV_CLEAR(scope), CEV_CLEAR(tts), CEV_CLEAR(tdur);
#undef CEV_CLEAR
    ev->dup = 0;
    ev->memo = NULL;
}
/* the twenty are all of cev's tokens: one added there must be cleared here too */
_Static_assert(offsetof(cev, off) == 20 * sizeof(jtok), "cev_clear misses a token");

/* ---- an event's start, met before ---- */

/*
** Hash H of the bytes before P, extended by the MEMO_BLOCK bytes at P
** (never 0; its top bits pick the entry): four products, then one more.
*/
static inline uint64_t memo_hash(uint64_t h, const char *p)
{
    uint64_t w[4];
    memcpy(w, p, sizeof w);
    h ^= w[0] * 0x9E3779B97F4A7C15ULL + w[1] * 0xC2B2AE3D27D4EB4FULL +
         w[2] * 0x165667B19E3779F9ULL + (w[3] ^ w[3] >> 29);
    return (h * 0xD6E8FEB86659FD93ULL) | 1;
}

/* EV's tokens that an event's start may hold (ev_memo.tok's order). */
static inline jtok *memo_slot(cev *ev, int k)
{
    jtok *const s[5] = {&ev->ph, &ev->cat, &ev->name, &ev->pid, &ev->tid};
    return s[k];
}

/* Keeps the start of the event at S, N bytes, whose tokens EV holds, in M. */
static CJ_SLOW void memo_keep(ev_memo *m, uint64_t h, cev *ev, const char *s, size_t n)
{
    for (int k = 0; k < 5; k++) {
        m->tok[k] = *memo_slot(ev, k);
        m->at[k] = m->tok[k].type != J_NONE ? (uint32_t)(m->tok[k].p - s) : 0;
        m->tok[k].p = NULL;
    }
    memcpy(m->text, s, n);
    m->n = (uint32_t)n;
    m->h = h;
    m->next = NULL;
    m->has_strs = m->has_thread = 0;
    memset(m->keys, 0, sizeof m->keys);
    memset(m->series, 0, sizeof m->series);
}

/*
** Whether the member just scanned into SLOT (its value at V, its slot
** empty before: WAS) may go in an event's start: one of the five keys, a
** scalar value.
*/
static inline int memo_member(cev *ev, const jtok *slot, int was, char v)
{
    return !was && v != '{' && v != '[' &&
           (slot == &ev->ph || slot == &ev->cat || slot == &ev->name || slot == &ev->pid ||
            slot == &ev->tid);
}

/* One event object at *PP into EV (tokens point into the window). */
int cj_unit_event(cj_rd *r, const char **pp, void *arg)
{
    jscan *j = &r->js;
    cev *ev = arg;
    const char *s = *pp, *p = cj_jws(s + 1);
    cev_clear(ev);
    ev->off = cj_off_of(r, s);
    ev->keys = *p != '}'; /* a member follows, or the scan fails */
    /*
    ** Events of one kind start with the same members (ph, cat, name, pid,
    ** tid): bytes met before were valid and scan to the same tokens, so
    ** they are compared whole and their tokens taken.  A start is found by
    ** the hash of its whole blocks (up to MEMO_BLOCKS), tried from one block
    ** on: starts that share their first blocks (names that differ at their
    ** end) have entries of their own.  Otherwise the start is kept (KEEP)
    ** as its members are scanned.
    */
    uint64_t hs[MEMO_BLOCKS], h = 0;
    size_t nb = (size_t)(j->end - s) / MEMO_BLOCK;
    const char *keep_end = NULL; /* after the comma of the start's last member */
    int keep = nb > 0, kept = 0;
    if (nb > MEMO_BLOCKS) nb = MEMO_BLOCKS;
    /* events of a few kinds come in one order again and again: first the start that came next */
    ev_memo *last = r->memo_last, *m = last ? last->next : NULL;
    if (!m || (size_t)(j->end - s) < m->n || memcmp(s, m->text, m->n) != 0) m = NULL;
    for (size_t b = 0; !m && b < nb; b++) {
        hs[b] = h = memo_hash(h, s + b * MEMO_BLOCK);
        m = &r->memo[h >> (64 - MEMO_BITS)];
        if (m->h != h || (size_t)(j->end - s) < m->n || memcmp(s, m->text, m->n) != 0) m = NULL;
    }
    if (m) {
        for (int k = 0; k < 5; k++) {
            if (m->tok[k].type == J_NONE) continue;
            jtok *t = memo_slot(ev, k);
            *t = m->tok[k];
            t->p = s + m->at[k];
        }
        p = cj_jws(s + m->n);
        ev->memo = m;
        keep = 0;
    }
    if (last) last->next = m;
    r->memo_last = m;
    while (*p != '}') {
        if (*p != '"') {
            if (!*p) return jstop(j, p, "NUL byte");
            return jerr(j, p, "expected a string key");
        }
        jtok k, dummy;
        jtok *slot = known_key(ev, &p);
        int rc;
        if (!slot) {
            if ((rc = scan_str(j, &p, &k)) != S_OK) return rc;
            slot = event_slot(ev, &k);
        }
        if ((rc = pass_colon(j, &p)) != S_OK) return rc;
        if (keep && !(slot && memo_member(ev, slot, slot->type != J_NONE, *p))) {
            size_t n = kept ? (size_t)(keep_end - s) : 0, b = n / MEMO_BLOCK;
            if (kept >= MEMO_MIN && n <= MEMO_MAX && b > 0) {
                h = hs[(b < nb ? b : nb) - 1];
                ev->memo = &r->memo[h >> (64 - MEMO_BITS)];
                memo_keep(ev->memo, h, ev, s, n);
                if (last) last->next = ev->memo;
                r->memo_last = ev->memo;
            }
            keep = 0;
        }
        if (!slot) {
            slot = &dummy;
        } else if (slot->type != J_NONE) {
            ev->dup = 1;
        }
        if (slot == &ev->args) {
            r->recs.len = 0; /* a repeated key: the last value counts */
            r->recs_over = 0;
        }
        if (*p == '{' || *p == '[') {
            const char *s = p;
            const char *q = p; /* copies, as in str_body */
            if (slot == &ev->args && *p == '{') {
                rc = cj_args_scan(r, &q, 0, 0, NULL);
            } else {
                skip_reset(&r->skip);
                rc = skip_run(j, &r->skip, &q, 0);
            }
            p = q;
            if (rc != S_OK) return rc;
            slot->p = s;
            slot->n = (size_t)(p - s);
            slot->type = *s == '{' ? J_OBJ : J_ARR;
            slot->flags = 0;
        } else if ((rc = scan_scalar(j, &p, slot)) != S_OK) {
            return rc;
        }
        if (memcmp(p, ", ", 2) == 0 && (unsigned char)p[2] > ' ') {
            keep_end = p + 1, kept++;
            p += 2; /* ", " likewise */
            continue;
        }
        p = cj_jws(p);
        if (*p == ',') {
            keep_end = p + 1, kept++;
            p = cj_jws(p + 1);
            continue;
        }
        if (*p != '}') return *p ? jerr(j, p, "expected ',' or '}'") : jstop(j, p, "NUL byte");
    }
    *pp = p + 1;
    return S_OK;
}
