/* text.c: number and duration parsing, fixed-point formatting, JSON text. */
#include "tr_text.h"
#include "model_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint64_t pow10_u64[20] = {1u,
                                       10u,
                                       100u,
                                       1000u,
                                       10000u,
                                       100000u,
                                       1000000u,
                                       10000000u,
                                       100000000u,
                                       1000000000u,
                                       10000000000u,
                                       100000000000u,
                                       1000000000000u,
                                       10000000000000u,
                                       100000000000000u,
                                       1000000000000000u,
                                       10000000000000000u,
                                       100000000000000000u,
                                       1000000000000000000u,
                                       10000000000000000000u};

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Applies the sign to a magnitude already checked to fit (2^63 only when negative). */
static int64_t apply_sign(uint64_t u, int neg)
{
    return neg && u ? -(int64_t)(u - 1) - 1 : (int64_t)u;
}

int tr_parse_int64(const char *s, size_t n, int64_t *v)
{
    size_t i = 0;
    int neg = n > 0 && s[0] == '-';
    if (neg) i++;
    if (i == n) return -1;
    uint64_t lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t u = 0;
    for (; i < n; i++) {
        unsigned d = (unsigned)((unsigned char)s[i] - '0');
        if (d > 9 || u > (lim - d) / 10) return -1;
        u = u * 10 + d;
    }
    *v = apply_sign(u, neg);
    return 0;
}

/* Howard Hinnant's days_from_civil: eras of 400 years, March-based years. */
int64_t tr_days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int tr_parse_decimal_ns(const char *s, size_t n, int64_t unit_ns, int64_t *ns)
{
    if (unit_ns <= 0) return -1;
    uint64_t unit = (uint64_t)unit_ns;
    size_t i = 0;
    int neg = n > 0 && s[0] == '-';
    if (neg) i++;
    size_t int_start = i;
    uint64_t ip = 0;
    for (; i < n && is_digit(s[i]); i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (ip > (UINT64_MAX - d) / 10) return -1;
        ip = ip * 10 + d;
    }
    if (i == int_start) return -1;
    size_t frac_start = i, frac_end = i;
    if (i < n) {
        if (s[i] != '.') return -1;
        frac_start = ++i;
        while (i < n && is_digit(s[i])) i++;
        if (i == frac_start || i != n) return -1;
        frac_end = i;
    }
    /*
    ** The fraction times UNIT, by Horner's rule from the last digit:
    ** R = (d * unit + R') / 10.  Carrying only floor(R') loses nothing, since
    ** a fractional part below 1 cannot change floor((N + f) / 10), so the
    ** result is exact in 64 bits; the last step's remainder rounds half up.
    */
    uint64_t q = 0;
    if (frac_start < frac_end) {
        if (unit > UINT64_MAX / 10) return -1;
        uint64_t x = 0;
        for (size_t k = frac_end; k-- > frac_start;) {
            x = (uint64_t)(s[k] - '0') * unit + q;
            q = x / 10;
        }
        q += x % 10 >= 5;
    }
    if (q > (uint64_t)INT64_MAX || ip > ((uint64_t)INT64_MAX - q) / unit) return -1;
    *ns = apply_sign(ip * unit + q, neg);
    return 0;
}

int tr_parse_duration(const char *s, int64_t *ns)
{
    size_t i = s[0] == '-';
    while (is_digit(s[i]) || s[i] == '.') i++;
    const char *u = s + i;
    int64_t unit;
    if (!*u || strcmp(u, "s") == 0)
        unit = 1000000000;
    else if (strcmp(u, "ms") == 0)
        unit = 1000000;
    else if (strcmp(u, "us") == 0 || strcmp(u, "\xc2\xb5s") == 0 || strcmp(u, "\xce\xbcs") == 0)
        unit = 1000; /* "us", MICRO SIGN and GREEK SMALL LETTER MU */
    else if (strcmp(u, "ns") == 0)
        unit = 1;
    else
        return -1;
    return tr_parse_decimal_ns(s, i, unit, ns);
}

int tr_parse_size(const char *s, uint64_t *bytes)
{
    static const char units[] = "KMGT";
    uint64_t v = 0;
    size_t i = 0;
    for (; is_digit(s[i]); i++) {
        if (v > (UINT64_MAX - 9) / 10) return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (i == 0) return -1;
    const char *u = s + i;
    unsigned shift = 0;
    const char *at = *u ? strchr(units, *u & ~0x20) : NULL;
    if (at) {
        shift = 10 * (unsigned)(at - units + 1);
        u++;
        if (strcmp(u, "iB") == 0 || strcmp(u, "B") == 0) u += strlen(u);
    }
    if (*u || (shift && v > UINT64_MAX >> shift)) return -1;
    *bytes = v << shift;
    return 0;
}

/* ---- formatting ---- */

static const char digit_pairs[] = "00010203040506070809"
                                  "10111213141516171819"
                                  "20212223242526272829"
                                  "30313233343536373839"
                                  "40414243444546474849"
                                  "50515253545556575859"
                                  "60616263646566676869"
                                  "70717273747576777879"
                                  "80818283848586878889"
                                  "90919293949596979899";

/* Writes U's digits so they end just before END; returns where they start. */
static char *put_u64(char *end, uint64_t u)
{
    while (u >= 100) {
        unsigned r = (unsigned)(u % 100);
        u /= 100;
        end -= 2;
        memcpy(end, digit_pairs + 2 * r, 2);
    }
    if (u >= 10) {
        end -= 2;
        memcpy(end, digit_pairs + 2 * u, 2);
    } else {
        *--end = (char)('0' + u);
    }
    return end;
}

/* The length of U as text, with a '-' when NEG. */
static inline size_t int_len(uint64_t u, int neg)
{
    /* From the bit length (1233 / 4096 ~ log10(2)) the digits are N or N + 1; 0 has one. */
    size_t bits = 64 - (size_t)__builtin_clzll(u | 1);
    size_t n = (bits * 1233) >> 12;
    return n + ((u | 1) >= pow10_u64[n]) + (neg != 0);
}

/* Writes U (negated when NEG) at P, which has room for int_len bytes; returns the end. */
static inline char *put_int_at(char *p, uint64_t u, int neg)
{
    char *end = p + int_len(u, neg);
    if (neg) *p = '-';
    put_u64(end, u);
    return end;
}

static int add_u64(tr_buf *b, uint64_t u, int neg)
{
    size_t n = int_len(u, neg);
    if (n >= b->cap - b->len) {
        int rc = tr_buf_grow(b, n);
        if (rc != TR_OK) return rc;
    }
    put_u64(b->p + b->len + n, u);
    if (neg) b->p[b->len] = '-';
    b->len += n;
    b->p[b->len] = '\0';
    return TR_OK;
}

int tr_buf_add_int(tr_buf *b, int64_t v)
{
    return add_u64(b, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
}

/* U / 10^SCALE and the remainder in *REM; the writers' scales divide by constants (multiplies). */
static inline uint64_t div_pow10(uint64_t u, int scale, uint64_t *rem)
{
    uint64_t q;
    switch (scale) {
    case 3:
        q = u / 1000u;
        break;
    case 6:
        q = u / 1000000u;
        break;
    case 9:
        q = u / 1000000000u;
        break;
    default:
        q = u / pow10_u64[scale];
    }
    *rem = u - q * pow10_u64[scale];
    return q;
}

int tr_buf_add_fixed(tr_buf *b, int64_t v, int scale_digits, int decimals)
{
    if (scale_digits < 0 || scale_digits > 19 || decimals < 0) return TR_FAIL;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    int scale = scale_digits;
    if (decimals < scale) {
        /* Round half away from zero; no overflow, as u <= 2^63 and d / 2 <= 5e18. */
        uint64_t d = pow10_u64[scale - decimals];
        u = u / d + (u % d >= d / 2);
        scale = decimals;
    }
    uint64_t fp, ip = div_pow10(u, scale, &fp);
    if (22 + (size_t)decimals >= b->cap - b->len) {
        int rc = tr_buf_grow(b, 22 + (size_t)decimals);
        if (rc != TR_OK) return rc;
    }
    char *p = put_int_at(b->p + b->len, ip, v < 0 && u != 0);
    if (decimals > 0) {
        *p++ = '.';
        /* SCALE digits of FP, zero-padded, two at a time from the right. */
        int k = scale;
        for (; k >= 2; k -= 2) {
            memcpy(p + k - 2, digit_pairs + 2 * (fp % 100), 2);
            fp /= 100;
        }
        if (k) p[0] = (char)('0' + fp);
        p += scale;
        for (int z = scale; z < decimals; z++) *p++ = '0';
    }
    *p = '\0';
    b->len = (size_t)(p - b->p);
    return TR_OK;
}

int tr_buf_add_real(tr_buf *b, double v)
{
    static const double pow10_d[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6};
    if (!isfinite(v)) return tr_buf_add(b, "null", 4);
    double a = v < 0 ? -v : v; /* no libm needed */
    if (a < 1e15 && v == (double)(int64_t)v) return tr_buf_add_int(b, (int64_t)v);
    /*
    ** Fast path for values with few decimals (most counters): N / 10^K is
    ** correctly rounded, as both are exact doubles, so equality with V proves
    ** the text "N / 10^K" reads back as V.
    */
    if (a < 1e9) {
        for (int k = 1; k <= 6; k++) {
            double s = v * pow10_d[k];
            int64_t n = (int64_t)s;
            if ((double)n == s && (double)n / pow10_d[k] == v) {
                int rc = tr_buf_add_fixed(b, n, k, k);
                while (rc == TR_OK && b->p[b->len - 1] == '0') b->p[--b->len] = '\0';
                return rc;
            }
        }
    }
    char tmp[32]; /* "%.17g" of a double is at most 24 bytes */
    int len = snprintf(tmp, sizeof tmp, "%.15g", v);
    if (strtod(tmp, NULL) != v) {
        len = snprintf(tmp, sizeof tmp, "%.16g", v);
        if (strtod(tmp, NULL) != v) len = snprintf(tmp, sizeof tmp, "%.17g", v);
    }
    return tr_buf_add(b, tmp, (size_t)len);
}

/*
** One spelling of a duration for every table and line a person reads
** (tracestat, tracecat info, traceviz's titles): the largest unit that keeps
** the number at or above 1, with 3 decimals for seconds and 1 below.  A table
** cell stays one short token (no space: awk and cut see one field; at most 7
** characters below 1000 s) with about four significant digits, enough to
** compare rows; 133.000ms claimed a precision nobody reads in a table and
** widened every column.  Exact nanoseconds are in the JSON and CSV outputs.
*/
int tr_buf_add_duration(tr_buf *b, int64_t ns)
{
    double v = (double)ns;
    double m = v < 0 ? -v : v;
    if (m >= 1e9) return tr_buf_addf(b, "%.3fs", v / 1e9);
    if (m >= 1e6) return tr_buf_addf(b, "%.1fms", v / 1e6);
    if (m >= 1e3) return tr_buf_addf(b, "%.1fus", v / 1e3);
    return tr_buf_addf(b, "%lldns", (long long)ns);
}

int tr_buf_add_size(tr_buf *b, int64_t bytes)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024) return tr_buf_addf(b, "%lld B", (long long)bytes);
    double v = (double)bytes / 1024;
    int u = 0;
    while (v >= 1024 && u < 3) v /= 1024, u++;
    return tr_buf_addf(b, "%.1f %s", v, units[u]);
}

/* ---- JSON ---- */

/* Bytes a JSON string cannot hold as they are: controls, '"' and '\\'. */
static const unsigned char json_escaped[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,         1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ['"'] = 1, ['\\'] = 1,
};

#define WORD_ONES  0x0101010101010101ULL
#define WORD_HIGHS 0x8080808080808080ULL

/* Non-zero in the high bits exactly when one of the 8 bytes in W is one json_escaped flags. */
static inline uint64_t json_word_dirty(uint64_t w)
{
    uint64_t quote = w ^ (WORD_ONES * '"'), bslash = w ^ (WORD_ONES * '\\');
    /* hasless(w, 0x20) and haszero() of the other two; bytes >= 0x80 never flag. */
    return ((w - WORD_ONES * 0x20) & ~w) | ((quote - WORD_ONES) & ~quote) |
           ((bslash - WORD_ONES) & ~bslash);
}

/*
** Words are checked whole, the last one overlapping the one before, so a
** clean string (nearly all of them) never goes byte by byte.
*/
size_t model_json_clean_prefix(const char *s, size_t n)
{
    size_t i = 0;
    uint64_t w;
    if (n >= 8) {
        for (; i + 8 <= n; i += 8) {
            memcpy(&w, s + i, 8);
            if (json_word_dirty(w) & WORD_HIGHS) break;
        }
        if (i + 8 > n) {
            memcpy(&w, s + n - 8, 8);
            if (!(json_word_dirty(w) & WORD_HIGHS)) return n;
        }
    } else if (n >= 4) {
        uint32_t lo, hi;
        memcpy(&lo, s, 4);
        memcpy(&hi, s + n - 4, 4);
        if (!(json_word_dirty(lo | (uint64_t)hi << 32) & WORD_HIGHS)) return n;
    }
    while (i < n && !json_escaped[(unsigned char)s[i]]) i++;
    return i;
}

/* Appends the N bytes at S escaped, from CLEAN on (the bytes before need none), and the '"'. */
static int json_str_escape(tr_buf *b, const char *s, size_t n, size_t clean)
{
    static const char hex[] = "0123456789abcdef";
    int rc = tr_buf_add(b, s, clean);
    size_t run = clean;
    for (size_t i = clean; i < n && rc == TR_OK; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!json_escaped[c]) continue;
        char esc[6] = {'\\', 0, '0', '0', hex[c >> 4], hex[c & 15]};
        size_t elen = 2;
        switch (c) {
        case '"':
            esc[1] = '"';
            break;
        case '\\':
            esc[1] = '\\';
            break;
        case '\n':
            esc[1] = 'n';
            break;
        case '\t':
            esc[1] = 't';
            break;
        case '\r':
            esc[1] = 'r';
            break;
        case '\b':
            esc[1] = 'b';
            break;
        case '\f':
            esc[1] = 'f';
            break;
        default:
            esc[1] = 'u';
            elen = 6;
        }
        rc = tr_buf_add(b, s + run, i - run);
        if (rc == TR_OK) rc = tr_buf_add(b, esc, elen);
        run = i + 1;
    }
    if (rc == TR_OK) rc = tr_buf_add(b, s + run, n - run);
    return rc == TR_OK ? tr_buf_addc(b, '"') : rc;
}

int tr_buf_add_json_str(tr_buf *b, const char *s, size_t n)
{
    /* Writers call this for every name, key and value: clean text goes in one copy. */
    if (n + 2 >= b->cap - b->len) {
        int rc = tr_buf_grow(b, n + 2);
        if (rc != TR_OK) return rc;
    }
    size_t clean = model_json_clean_prefix(s, n);
    char *d = b->p + b->len;
    *d = '"';
    if (clean < n) {
        b->len++;
        return json_str_escape(b, s, n, clean);
    }
    memcpy(d + 1, s, n);
    d[n + 1] = '"';
    d[n + 2] = '\0';
    b->len += n + 2;
    return TR_OK;
}

int tr_buf_add_json_id(tr_buf *b, const tr_trace *t, tr_str s)
{
    const str_entry *e = model_str_entry(t, s);
    size_t n = e->len;
    if (!e->json_clean) return tr_buf_add_json_str(b, e->p, n);
    if (n + 2 >= b->cap - b->len) {
        int rc = tr_buf_grow(b, n + 2);
        if (rc != TR_OK) return rc;
    }
    char *d = b->p + b->len;
    d[0] = '"';
    memcpy(d + 1, e->p, n);
    d[n + 1] = '"';
    d[n + 2] = '\0';
    b->len += n + 2;
    return TR_OK;
}

/*
** Appends "key":value of arg I of MS, with a comma first unless I is 0.
** Writers print millions of these: with room made once, the clean case
** writes through a pointer instead of appending piece by piece.
*/
static int add_json_arg(tr_buf *b, const tr_trace *t, const model_set *ms, size_t i)
{
    uint32_t arg = ms->kt[i];
    int first = i == 0;
    const str_entry *k = model_str_entry(t, model_arg_key(arg)), *sv = NULL;
    uint64_t v;
    int type = model_arg_value(ms, i, &v);
    if (type == TR_ARG_STR) sv = model_str_entry(t, (tr_str)v);
    int neg = type == TR_ARG_INT && (int64_t)v < 0;
    if (neg) v = 0 - v;
    if (!k->json_clean || (sv && !sv->json_clean) || type == TR_ARG_REAL) {
        int rc = first ? TR_OK : tr_buf_addc(b, ',');
        if (rc == TR_OK) rc = tr_buf_add_json_id(b, t, model_arg_key(arg));
        if (rc == TR_OK) rc = tr_buf_addc(b, ':');
        if (rc != TR_OK) return rc;
        if (sv) return tr_buf_add_json_id(b, t, (tr_str)v);
        if (type == TR_ARG_BOOL) return v ? tr_buf_add(b, "true", 4) : tr_buf_add(b, "false", 5);
        if (type != TR_ARG_REAL) return add_u64(b, v, neg);
        double d;
        memcpy(&d, &v, sizeof d);
        return tr_buf_add_real(b, d);
    }
    /* [,]"key": and the value */
    size_t vlen = sv ? (size_t)sv->len + 2 : type == TR_ARG_BOOL ? 5 - (v != 0) : int_len(v, neg);
    size_t need = (size_t)k->len + 3 + !first + vlen;
    if (need >= b->cap - b->len) {
        int rc = tr_buf_grow(b, need);
        if (rc != TR_OK) return rc;
    }
    char *p = b->p + b->len;
    if (!first) *p++ = ',';
    *p++ = '"';
    memcpy(p, k->p, k->len);
    p += k->len;
    *p++ = '"';
    *p++ = ':';
    if (sv) {
        *p = '"';
        memcpy(p + 1, sv->p, sv->len);
        p[vlen - 1] = '"';
    } else if (type == TR_ARG_BOOL) {
        memcpy(p, v ? "true" : "false", vlen);
    } else {
        if (neg) *p = '-';
        put_u64(p + vlen, v);
    }
    p += vlen;
    *p = '\0';
    b->len = (size_t)(p - b->p);
    return TR_OK;
}

int tr_buf_add_json_args(tr_buf *b, const tr_trace *t, uint32_t set)
{
    model_set ms;
    model_args_set(t, set, &ms);
    int rc = tr_buf_addc(b, '{');
    for (size_t i = 0; i < ms.n && rc == TR_OK; i++) rc = add_json_arg(b, t, &ms, i);
    return rc == TR_OK ? tr_buf_addc(b, '}') : rc;
}

/* ---- control characters ---- */

/* The length of the control character at P (N > 0 bytes left), or 0. */
static size_t text_control(const unsigned char *p, size_t n, unsigned how)
{
    if (p[0] < 0x20) return (how & TR_TEXT_KEEP_NL) && p[0] == '\n' ? 0 : 1;
    if (p[0] == 0x7f) return 1;
    return p[0] == 0xc2 && n > 1 && p[1] >= 0x80 && p[1] <= 0x9f ? 2 : 0;
}

int tr_buf_add_text(tr_buf *b, const char *s, size_t n, unsigned how)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, done = 0;
    int rc = TR_OK;
    while (i < n && rc == TR_OK) {
        size_t c = text_control(p + i, n - i, how);
        if (c == 0) {
            i++;
            continue;
        }
        rc = tr_buf_add(b, s + done, i - done);
        if (how & TR_TEXT_FIELD) rc |= tr_buf_addc(b, ' ');
        for (size_t k = 0; k < c && !(how & TR_TEXT_FIELD); k++)
            rc |= tr_buf_addf(b, "\\x%02x", p[i + k]);
        i += c;
        done = i;
    }
    return rc == TR_OK ? tr_buf_add(b, s + done, n - done) : rc;
}

int tr_buf_text_from(tr_buf *b, size_t from, unsigned how)
{
    const unsigned char *p = (const unsigned char *)b->p + from;
    size_t n = b->len - from, i = 0;
    while (i < n && text_control(p + i, n - i, how) == 0) i++;
    if (i == n) return TR_OK;
    tr_buf tail;
    tr_buf_init(&tail, 0);
    int rc = tr_buf_add_text(&tail, b->p + from + i, n - i, how);
    b->len = from + i;
    if (rc == TR_OK) rc = tr_buf_add(b, tail.p, tail.len);
    tr_buf_fini(&tail);
    return rc;
}
