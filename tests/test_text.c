/* test_text.c: number parsing and formatting, JSON text (lib/text.c). */
#include "tr_test.h"
#include "tr_text.h"

#include <math.h>
#include <stdlib.h>

static int64_t dur(const char *s, int *rc)
{
    int64_t ns = 12345;
    *rc = tr_parse_duration(s, &ns);
    return ns;
}

TR_TEST(parse_duration_units)
{
    int rc;
    CHECK_INT(dur("1.5s", &rc), 1500000000);
    CHECK_INT(rc, 0);
    CHECK_INT(dur("2", &rc), 2000000000);
    CHECK_INT(rc, 0);
    CHECK_INT(dur("200ms", &rc), 200000000);
    CHECK_INT(dur("30us", &rc), 30000);
    CHECK_INT(rc, 0);
    CHECK_INT(dur("30\xc2\xb5s", &rc), 30000); /* MICRO SIGN */
    CHECK_INT(rc, 0);
    CHECK_INT(dur("30\xce\xbcs", &rc), 30000); /* GREEK SMALL LETTER MU */
    CHECK_INT(rc, 0);
    CHECK_INT(dur("10ns", &rc), 10);
    CHECK_INT(dur("0.000000001s", &rc), 1);
    CHECK_INT(dur("-1.25ms", &rc), -1250000);
    CHECK_INT(rc, 0);
    CHECK_INT(dur("0", &rc), 0);
    CHECK_INT(rc, 0);
    CHECK_INT(dur("007s", &rc), 7000000000);
    CHECK_INT(dur("1.5ns", &rc), 2); /* below a nanosecond rounds half away from zero */
    CHECK_INT(dur("-1.5ns", &rc), -2);
    CHECK_INT(dur("1.49ns", &rc), 1);
}

TR_TEST(parse_duration_errors)
{
    int rc;
    const char *bad[] = {"",   "s",    "-",      "1.5 s", " 1s",   "1s ",  "1m",
                         "1h", ".5s",  "5.s",    "1..5s", "1.5.2", "+1s",  "1e3",
                         "1S", "--1s", "1.5sec", "ms",    "1-s",   "0x10", "1.5µ"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t v = dur(bad[i], &rc);
        if (rc != -1) fprintf(stderr, "  accepted \"%s\"\n", bad[i]);
        CHECK_INT(rc, -1);
        CHECK_INT(v, 12345); /* untouched on failure */
    }
    /* 9223372036 s is the largest whole second count that fits */
    CHECK_INT(dur("9223372036s", &rc), 9223372036000000000);
    CHECK_INT(rc, 0);
    CHECK_INT(dur("9223372036.854775807s", &rc), INT64_MAX);
    CHECK_INT(rc, 0);
    dur("9223372036.854775808s", &rc);
    CHECK_INT(rc, -1);
    dur("9223372037s", &rc);
    CHECK_INT(rc, -1);
    dur("99999999999999999999999999ns", &rc);
    CHECK_INT(rc, -1);
    CHECK_INT(dur("9223372036854775807ns", &rc), INT64_MAX);
    CHECK_INT(rc, 0);
    dur("9223372036854775808ns", &rc);
    CHECK_INT(rc, -1);
}

static int64_t dec(const char *s, int64_t unit, int *rc)
{
    int64_t ns = -7;
    *rc = tr_parse_decimal_ns(s, strlen(s), unit, &ns);
    return ns;
}

TR_TEST(parse_decimal_exact)
{
    int rc;
    CHECK_INT(dec("0.107", 1000000000, &rc), 107000000);
    CHECK_INT(rc, 0);
    CHECK_INT(dec("1234.567", 1000000000, &rc), 1234567000000);
    CHECK_INT(dec("1234.567", 1000, &rc), 1234567);
    CHECK_INT(dec("0.3", 1000000000, &rc), 300000000);
    CHECK_INT(dec("1691.123456789", 1000000000, &rc), 1691123456789);
    CHECK_INT(dec("-0.107", 1000000000, &rc), -107000000);
    CHECK_INT(rc, 0);
    CHECK_INT(dec("17", 1, &rc), 17);
    CHECK_INT(dec("1.0005", 1000, &rc), 1001); /* half a ns rounds away from zero */
    CHECK_INT(dec("1.0004999", 1000, &rc), 1000);
    CHECK_INT(dec("-1.0005", 1000, &rc), -1001);
    CHECK_INT(dec("0.1234567891", 1000000000, &rc), 123456789);
    CHECK_INT(dec("0.00000000050", 1000000000, &rc), 1);
    /* a unit that is not a power of ten: a third of a minute */
    CHECK_INT(dec("0.333333333333333333333", 60000000000, &rc), 20000000000);
    CHECK_INT(dec("1.5", 60000000000, &rc), 90000000000);
    /* a prefix of a longer text: N bounds the parse */
    int64_t v;
    CHECK_INT(tr_parse_decimal_ns("12.5|x", 4, 1000, &v), 0);
    CHECK_INT(v, 12500);
    CHECK_INT(tr_parse_decimal_ns("12.5|x", 5, 1000, &v), -1);
    const char *bad[] = {"", "-", ".", "1.", ".1", "1e3", "1,5", " 1", "+1", "0x1", "1.2.3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_INT(dec(bad[i], 1000, &rc), -7);
        CHECK_INT(rc, -1);
    }
    dec("1", 0, &rc);
    CHECK_INT(rc, -1);
    dec("9223372036854775.808", 1000, &rc);
    CHECK_INT(rc, -1);
    CHECK_INT(dec("9223372036854775.807", 1000, &rc), INT64_MAX);
    CHECK_INT(rc, 0);
}

TR_TEST(parse_int64)
{
    int64_t v = 0;
    CHECK_INT(tr_parse_int64("0", 1, &v), 0);
    CHECK_INT(v, 0);
    CHECK_INT(tr_parse_int64("-42", 3, &v), 0);
    CHECK_INT(v, -42);
    CHECK_INT(tr_parse_int64("9223372036854775807", 19, &v), 0);
    CHECK_INT(v, INT64_MAX);
    CHECK_INT(tr_parse_int64("-9223372036854775808", 20, &v), 0);
    CHECK(v == INT64_MIN);
    CHECK_INT(tr_parse_int64("9223372036854775808", 19, &v), -1);
    CHECK_INT(tr_parse_int64("-9223372036854775809", 20, &v), -1);
    CHECK_INT(tr_parse_int64("", 0, &v), -1);
    CHECK_INT(tr_parse_int64("-", 1, &v), -1);
    CHECK_INT(tr_parse_int64("12a", 3, &v), -1);
    CHECK_INT(tr_parse_int64("1.0", 3, &v), -1);
    CHECK_INT(tr_parse_int64("123", 2, &v), 0);
    CHECK_INT(v, 12);
}

static const char *fixed(tr_buf *b, int64_t v, int scale, int decimals)
{
    tr_buf_reset(b);
    CHECK_INT(tr_buf_add_fixed(b, v, scale, decimals), TR_OK);
    return b->p;
}

TR_TEST(add_fixed)
{
    tr_buf b;
    tr_buf_init(&b, 0);
    CHECK_STR(fixed(&b, 1234567, 9, 9), "0.001234567");
    CHECK_STR(fixed(&b, 1234567, 3, 3), "1234.567");
    CHECK_STR(fixed(&b, 0, 3, 3), "0.000");
    CHECK_STR(fixed(&b, 5, 3, 3), "0.005");
    CHECK_STR(fixed(&b, -5, 3, 3), "-0.005");
    CHECK_STR(fixed(&b, -1234567, 9, 9), "-0.001234567");
    CHECK_STR(fixed(&b, -3000000000, 9, 9), "-3.000000000");
    CHECK_STR(fixed(&b, 42, 0, 0), "42");
    CHECK_STR(fixed(&b, 42, 0, 2), "42.00");
    CHECK_STR(fixed(&b, 1234567, 9, 6), "0.001235"); /* rounds half away from zero */
    CHECK_STR(fixed(&b, 1234500, 9, 6), "0.001235");
    CHECK_STR(fixed(&b, 1234499, 9, 6), "0.001234");
    CHECK_STR(fixed(&b, -1234500, 9, 6), "-0.001235");
    CHECK_STR(fixed(&b, 999999999, 9, 3), "1.000");
    CHECK_STR(fixed(&b, -400, 9, 6), "0.000000"); /* no "-0" */
    CHECK_STR(fixed(&b, 1500, 3, 0), "2");
    CHECK_STR(fixed(&b, INT64_MAX, 9, 9), "9223372036.854775807");
    CHECK_STR(fixed(&b, INT64_MIN, 9, 9), "-9223372036.854775808");
    CHECK_STR(fixed(&b, INT64_MIN, 3, 0), "-9223372036854776");
    CHECK_STR(fixed(&b, INT64_MIN, 19, 19), "-0.9223372036854775808");
    /* appends */
    tr_buf_reset(&b);
    tr_buf_adds(&b, "ts=");
    tr_buf_add_fixed(&b, 1, 3, 3);
    CHECK_STR(b.p, "ts=0.001");
    CHECK_INT(b.len, 8);
    CHECK_INT(tr_buf_add_fixed(&b, 1, 20, 3), TR_FAIL);
    CHECK_INT(tr_buf_add_fixed(&b, 1, 3, -1), TR_FAIL);
    CHECK_STR(b.p, "ts=0.001");
    tr_buf_fini(&b);
}

TR_TEST(add_int)
{
    tr_buf b;
    tr_buf_init(&b, 0);
    int64_t vals[] = {0, 1, -1, 9, 10, 99, 100, 12345, -987654321, INT64_MAX, INT64_MIN};
    const char *want[] = {"0",
                          "1",
                          "-1",
                          "9",
                          "10",
                          "99",
                          "100",
                          "12345",
                          "-987654321",
                          "9223372036854775807",
                          "-9223372036854775808"};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        tr_buf_reset(&b);
        CHECK_INT(tr_buf_add_int(&b, vals[i]), TR_OK);
        CHECK_STR(b.p, want[i]);
    }
    /* a capped buffer refuses and stays as it was */
    tr_buf c;
    tr_buf_init(&c, 4);
    CHECK_INT(tr_buf_add_int(&c, 12), TR_OK);
    CHECK(tr_buf_add_int(&c, 12345) != TR_OK);
    CHECK_STR(c.p, "12");
    tr_buf_fini(&c);
    tr_buf_fini(&b);
}

static const char *real(tr_buf *b, double v)
{
    tr_buf_reset(b);
    CHECK_INT(tr_buf_add_real(b, v), TR_OK);
    return b->p;
}

TR_TEST(add_real_shortest)
{
    tr_buf b;
    tr_buf_init(&b, 0);
    CHECK_STR(real(&b, 3.0), "3");
    CHECK_STR(real(&b, -3.0), "-3");
    CHECK_STR(real(&b, 0.0), "0");
    CHECK_STR(real(&b, -0.0), "0");
    CHECK_STR(real(&b, 0.1), "0.1");
    CHECK_STR(real(&b, 1.5), "1.5");
    CHECK_STR(real(&b, -2.25), "-2.25");
    CHECK_STR(real(&b, 123.456), "123.456");
    CHECK_STR(real(&b, 0.1 + 0.2), "0.30000000000000004");
    CHECK_STR(real(&b, 1.0 / 3.0), "0.3333333333333333");
    CHECK_STR(real(&b, 1e15), "1e+15");
    CHECK_STR(real(&b, 999999999999999.0), "999999999999999");
    CHECK_STR(real(&b, 1e300), "1e+300");
    CHECK_STR(real(&b, 1.5e-7), "1.5e-07");
    CHECK_STR(real(&b, NAN), "null");
    CHECK_STR(real(&b, INFINITY), "null");
    CHECK_STR(real(&b, -INFINITY), "null");
    /* every form reads back as the same double */
    double vals[] = {0.1,
                     2.675,
                     1e-5,
                     123456.789012,
                     3.14159265358979,
                     1.7976931348623157e308,
                     -0.000123,
                     9007199254740993.0,
                     4.35,
                     0.000001,
                     5e-324,
                     -1e-300};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        real(&b, vals[i]);
        CHECK(strtod(b.p, NULL) == vals[i]);
        CHECK(strchr(b.p, 'n') == NULL);
    }
    tr_buf_fini(&b);
}

static const char *jstr(tr_buf *b, const char *s, size_t n)
{
    tr_buf_reset(b);
    CHECK_INT(tr_buf_add_json_str(b, s, n), TR_OK);
    return b->p;
}

TR_TEST(json_escape)
{
    tr_buf b;
    tr_buf_init(&b, 0);
    CHECK_STR(jstr(&b, "", 0), "\"\"");
    CHECK_STR(jstr(&b, "plain", 5), "\"plain\"");
    CHECK_STR(jstr(&b, "a\"b\\c", 5), "\"a\\\"b\\\\c\"");
    CHECK_STR(jstr(&b, "\n\t\r\b\f", 5), "\"\\n\\t\\r\\b\\f\"");
    CHECK_STR(jstr(&b, "\x01x\x1f\x7f", 4), "\"\\u0001x\\u001f\x7f\"");
    CHECK_STR(jstr(&b, "a\0b", 3), "\"a\\u0000b\"");
    CHECK_STR(jstr(&b, "caf\xc3\xa9 \xe2\x86\x92", 9), "\"caf\xc3\xa9 \xe2\x86\x92\"");
    CHECK_STR(jstr(&b, "/path/x", 7), "\"/path/x\"");
    CHECK_STR(jstr(&b, "abcdef", 3), "\"abc\"");
    tr_buf_fini(&b);
}

TR_TEST(json_args)
{
    tr_trace *t = tr_trace_new();
    CHECK(t != NULL);
    tr_buf b;
    tr_buf_init(&b, 0);
    CHECK_INT(tr_buf_add_json_args(&b, t, 0), TR_OK);
    CHECK_STR(b.p, "{}");
    tr_args_begin(t);
    tr_args_int(t, tr_str_internz(t, "n"), -5);
    tr_args_uint(t, tr_str_internz(t, "u"), UINT64_MAX);
    tr_args_real(t, tr_str_internz(t, "r"), 0.5);
    tr_args_str(t, tr_str_internz(t, "s"), tr_str_internz(t, "a\"b\n"));
    tr_args_bool(t, tr_str_internz(t, "yes"), 1);
    tr_args_bool(t, tr_str_internz(t, "no"), 0);
    tr_args_real(t, tr_str_internz(t, "k\"ey"), NAN);
    uint32_t set = tr_args_end(t);
    CHECK(set != 0);
    tr_buf_reset(&b);
    CHECK_INT(tr_buf_add_json_args(&b, t, set), TR_OK);
    CHECK_STR(b.p, "{\"n\":-5,\"u\":18446744073709551615,\"r\":0.5,\"s\":\"a\\\"b\\n\","
                   "\"yes\":true,\"no\":false,\"k\\\"ey\":null}");
    tr_buf_fini(&b);
    tr_trace_free(t);
}

/* 2026-11-22, GT benchmark: clean strings skip the escaper, eight bytes at a time. */
TR_TEST(json_escape_every_position)
{
    tr_buf b, want;
    tr_buf_init(&b, 0);
    tr_buf_init(&want, 0);
    static const char special[] = {'"', '\\', '\n', '\x01', '\x1f'};
    static const char *const escaped[] = {"\\\"", "\\\\", "\\n", "\\u0001", "\\u001f"};
    char s[24];
    for (size_t n = 1; n <= sizeof s; n++) {
        for (size_t at = 0; at < n; at++) {
            for (size_t k = 0; k < sizeof special; k++) {
                memset(s, 'a', n);
                s[n - 1] = '\xc3'; /* bytes >= 0x80 go as they are */
                s[at] = special[k];
                tr_buf_reset(&want);
                tr_buf_addc(&want, '"');
                for (size_t i = 0; i < n; i++)
                    i == at ? tr_buf_adds(&want, escaped[k]) : tr_buf_addc(&want, s[i]);
                tr_buf_addc(&want, '"');
                CHECK_STR(jstr(&b, s, n), want.p);
            }
        }
    }
    tr_buf_fini(&want);
    tr_buf_fini(&b);
}

/* 2026-11-22, GT benchmark: the fast path of args (clean keys) and the slow one beside it. */
TR_TEST(json_args_paths)
{
    tr_trace *t = tr_trace_new();
    CHECK(t != NULL);
    tr_buf b;
    tr_buf_init(&b, 0);
    tr_str q = tr_str_internz(t, "q\"k");
    tr_args_begin(t);
    tr_args_bool(t, q, 1);
    tr_args_int(t, q, INT64_MIN);
    tr_args_int(t, tr_str_internz(t, "i"), INT32_MIN);
    tr_args_int(t, tr_str_internz(t, "j"), (int64_t)INT32_MAX + 1);
    tr_args_uint(t, tr_str_internz(t, "u"), 0);
    tr_args_bool(t, tr_str_internz(t, "f"), 0);
    tr_args_str(t, tr_str_internz(t, "s"), tr_str_add(t, "free text", 9));
    tr_args_str(t, tr_str_internz(t, "e"), 0);
    uint32_t set = tr_args_end(t);
    CHECK_INT(tr_buf_add_json_args(&b, t, set), TR_OK);
    CHECK_STR(b.p, "{\"q\\\"k\":true,\"q\\\"k\":-9223372036854775808,\"i\":-2147483648,"
                   "\"j\":2147483648,\"u\":0,\"f\":false,\"s\":\"free text\",\"e\":\"\"}");
    tr_buf_reset(&b);
    CHECK_INT(tr_buf_add_json_id(&b, t, q), TR_OK);
    CHECK_INT(tr_buf_add_json_id(&b, t, tr_str_internz(t, "plain")), TR_OK);
    CHECK_INT(tr_buf_add_json_id(&b, t, 12345678), TR_OK); /* an unknown id is "" */
    CHECK_STR(b.p, "\"q\\\"k\"\"plain\"\"\"");
    /* A capped buffer takes an object that just fits. */
    tr_buf c;
    tr_buf_init(&c, 8);
    tr_args_begin(t);
    tr_args_int(t, tr_str_internz(t, "n"), 12);
    CHECK_INT(tr_buf_add_json_args(&c, t, tr_args_end(t)), TR_OK);
    CHECK_STR(c.p, "{\"n\":12}");
    tr_buf_fini(&c);
    tr_buf_fini(&b);
    tr_trace_free(t);
}

/* 2026-11-22, GT benchmark: integers are sized from their bit length. */
TR_TEST(add_int_digit_edges)
{
    tr_buf b;
    tr_buf_init(&b, 0);
    char want[32];
    uint64_t p = 1;
    for (int k = 0; k < 19; k++, p *= 10) {
        int64_t vals[] = {(int64_t)p - 1, (int64_t)p, (int64_t)p + 1, -(int64_t)p, 1 - (int64_t)p};
        for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
            tr_buf_reset(&b);
            CHECK_INT(tr_buf_add_int(&b, vals[i]), TR_OK);
            snprintf(want, sizeof want, "%lld", (long long)vals[i]);
            CHECK_STR(b.p, want);
        }
    }
    tr_buf_fini(&b);
}
