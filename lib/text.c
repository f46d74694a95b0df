/* text.c: number and duration parsing, fixed-point formatting, JSON text. */
#include "tr_text.h"
#include "model.h"

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

static int add_u64(tr_buf *b, uint64_t u, int neg)
{
    char tmp[24]; /* a sign and 20 digits */
    char *end = tmp + sizeof tmp;
    char *p = put_u64(end, u);
    if (neg) *--p = '-';
    return tr_buf_add(b, p, (size_t)(end - p));
}

int tr_buf_add_int(tr_buf *b, int64_t v)
{
    return add_u64(b, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
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
    uint64_t ip = u / pow10_u64[scale], fp = u % pow10_u64[scale];
    int rc = tr_buf_grow(b, 22 + (size_t)decimals);
    if (rc != TR_OK) return rc;
    char *p = b->p + b->len;
    if (v < 0 && u != 0) *p++ = '-';
    char tmp[20];
    char *start = put_u64(tmp + sizeof tmp, ip);
    size_t ni = (size_t)(tmp + sizeof tmp - start);
    memcpy(p, start, ni);
    p += ni;
    if (decimals > 0) {
        *p++ = '.';
        for (int k = scale; k-- > 0;) {
            p[k] = (char)('0' + fp % 10);
            fp /= 10;
        }
        p += scale;
        memset(p, '0', (size_t)(decimals - scale));
        p += decimals - scale;
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

/* ---- JSON ---- */

/* Bytes a JSON string cannot hold as they are: controls, '"' and '\\'. */
static const unsigned char json_escaped[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,         1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ['"'] = 1, ['\\'] = 1,
};

int tr_buf_add_json_str(tr_buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    int rc = tr_buf_grow(b, n + 2);
    if (rc != TR_OK) return rc;
    b->p[b->len++] = '"';
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
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
        if ((rc = tr_buf_add(b, s + run, i - run)) != TR_OK) return rc;
        if ((rc = tr_buf_add(b, esc, elen)) != TR_OK) return rc;
        run = i + 1;
    }
    if ((rc = tr_buf_add(b, s + run, n - run)) != TR_OK) return rc;
    return tr_buf_addc(b, '"');
}

int tr_buf_add_json_args(tr_buf *b, const tr_trace *t, uint32_t set)
{
    size_t first, end;
    model_args_span(t, set, &first, &end);
    const uint64_t *args = t->args.data;
    int rc = tr_buf_addc(b, '{');
    for (size_t i = first; i < end && rc == TR_OK; i++) {
        size_t len;
        if (i > first) rc = tr_buf_addc(b, ',');
        const char *key = tr_str_get(t, model_arg_key(args[i]), &len);
        if (rc == TR_OK) rc = tr_buf_add_json_str(b, key, len);
        if (rc == TR_OK) rc = tr_buf_addc(b, ':');
        if (rc != TR_OK) break;
        uint64_t v;
        switch (model_arg_value(t, args[i], &v)) {
        case TR_ARG_INT:
            rc = tr_buf_add_int(b, (int64_t)v);
            break;
        case TR_ARG_UINT:
            rc = add_u64(b, v, 0);
            break;
        case TR_ARG_REAL: {
            double d;
            memcpy(&d, &v, sizeof d);
            rc = tr_buf_add_real(b, d);
            break;
        }
        case TR_ARG_BOOL:
            rc = v ? tr_buf_add(b, "true", 4) : tr_buf_add(b, "false", 5);
            break;
        default: {
            const char *s = tr_str_get(t, (tr_str)v, &len);
            rc = tr_buf_add_json_str(b, s, len);
            break;
        }
        }
    }
    return rc == TR_OK ? tr_buf_addc(b, '}') : rc;
}
