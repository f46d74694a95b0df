/* Unit tests of arenas, growable arrays, capped buffers and fault injection. */
#include "tr_test.h"

#include "tr_error.h"
#include "tr_mem.h"

#include <stdint.h>

TR_TEST(arena_alignment_and_big_blocks)
{
    tr_arena a;
    tr_arena_init(&a);
    char *small = tr_arena_alloc(&a, 3);
    char *big = tr_arena_alloc(&a, 1 << 20);
    char *after = tr_arena_alloc(&a, 5);
    CHECK(small && big && after);
    CHECK(((uintptr_t)small & 7) == 0 && ((uintptr_t)after & 7) == 0);
    /* A one-off big block must not waste the head block's free room. */
    CHECK(after == small + 8);
    char *s = tr_arena_strndup(&a, "hello world", 5);
    CHECK_STR(s, "hello");
    tr_arena_fini(&a);
    CHECK(a.head == NULL && a.total == 0);
}

TR_TEST(vec_push_grows_and_zeroes)
{
    tr_vec v;
    tr_vec_init(&v, sizeof(uint64_t));
    for (int i = 0; i < 10000; i++) {
        uint64_t *p = tr_vec_push(&v);
        CHECK(p && *p == 0);
        *p = (uint64_t)i * 3;
    }
    CHECK_INT(v.len, 10000);
    CHECK_INT(TR_VEC_AT(&v, uint64_t, 9999), 29997);
    tr_vec_fini(&v);
}

TR_TEST(buf_cap_refuses_growth)
{
    tr_buf b;
    tr_buf_init(&b, 8);
    CHECK_STR(b.p, "");
    CHECK_INT(tr_buf_adds(&b, "12345678"), TR_OK);
    CHECK_INT(tr_buf_addc(&b, '9'), TR_FAIL);
    CHECK_STR(b.p, "12345678");
    tr_buf_reset(&b);
    CHECK_INT(tr_buf_addf(&b, "%d-%s", 42, "x"), TR_OK);
    CHECK_STR(b.p, "42-x");
    tr_buf_fini(&b);
}

TR_TEST(alloc_fault_injection)
{
    tr_alloc_fail_after(2);
    void *a = tr_malloc(10);
    void *b = tr_malloc(10);
    tr_alloc_fail_after(0);
    void *c = tr_malloc(10);
    CHECK(a != NULL);
    CHECK(b == NULL);
    CHECK(c != NULL);
    tr_free(a);
    tr_free(c);
}

TR_TEST(error_format_locations)
{
    tr_error e;
    char buf[600];
    tr_loc loc = {"run.log", 12, 7, 0};
    CHECK_INT(tr_errorf(&e, TR_E_FORMAT, &loc, "expected '%c'", '|'), TR_FAIL);
    CHECK_STR(tr_error_format(&e, buf, sizeof buf), "run.log:12:7: expected '|'");
    tr_loc off = {"-", 0, 0, 101};
    tr_errorf(&e, TR_E_FORMAT, &off, "truncated");
    CHECK_STR(tr_error_format(&e, buf, sizeof buf), "<stdin>: byte 100: truncated");
    CHECK_INT(tr_error_nomem(&e), TR_FATAL);
    tr_diag d = {0};
    CHECK_INT(tr_warnf(&d, &e, &loc, "bad"), TR_WARN);
    CHECK_INT(d.warnings, 1);
    d.strict = 1;
    CHECK_INT(tr_warnf(&d, &e, &loc, "bad %d", 2), TR_FAIL);
    CHECK_STR(e.msg, "bad 2");
}
