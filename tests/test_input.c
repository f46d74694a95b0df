/* test_input.c: tr_source and tr_input (lib/source.c, lib/input.c). */

#include "tr_input.h"
#include "tr_mem.h"
#include "tr_test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The path of testdata/input/NAME. */
static const char *data_path(const char *name)
{
    return tr_test_join(tr_test_src("testdata/input"), name);
}

/*
** Every stream of S as "[name]" followed by its lines, each line ending in
** "\n"; names lose PREFIX.  Returns the status that ended the reading.
*/
static int dump(tr_source *s, const char *prefix, tr_buf *out, tr_error *e)
{
    size_t plen = prefix ? strlen(prefix) : 0;
    tr_input *in;
    int rc;
    while ((rc = tr_source_next(s, &in, e)) == TR_OK) {
        const char *name = tr_input_name(in);
        if (plen && strncmp(name, prefix, plen) == 0) name += plen;
        tr_buf_addf(out, "[%s]\n", name);
        tr_line line;
        while ((rc = tr_input_getline(in, &line, e)) == TR_OK) {
            CHECK_INT(strlen(line.p), line.len);
            tr_buf_add(out, line.p, line.len);
            tr_buf_addc(out, '\n');
        }
        if (rc != TR_END) return rc;
    }
    return rc;
}

/* Open PATH and dump it; the text, or NULL on failure (then *E says why). */
static char *dump_path(const char *path, const char *prefix, int *kind)
{
    tr_source *s;
    tr_error e = {0};
    tr_buf out;
    tr_buf_init(&out, 0);
    int rc = tr_source_open(&s, path, &e);
    CHECK_INT(rc, TR_OK);
    if (rc != TR_OK) return NULL;
    if (kind) *kind = tr_source_kind(s);
    rc = dump(s, prefix, &out, &e);
    CHECK_INT(rc, TR_END);
    tr_source_close(s);
    if (!out.cap) tr_buf_grow(&out, 1);
    return out.p;
}

#define TEXT_LINES "first line\nsecond line\n\nlast line without newline\n"

TR_TEST(plain_lines)
{
    const char *path = data_path("text.txt");
    tr_source *s;
    tr_error e = {0};
    CHECK_INT(tr_source_open(&s, path, &e), TR_OK);
    CHECK_INT(tr_source_kind(s), TR_SOURCE_STREAM);
    CHECK_STR(tr_source_path(s), path);
    size_t n = 1;
    CHECK(tr_source_listing(s, &n) == NULL && n == 0);
    tr_input *in;
    CHECK_INT(tr_source_next(s, &in, &e), TR_OK);
    CHECK_STR(tr_input_name(in), path);
    static const struct {
        const char *text;
        uint64_t offset;
    } want[] = {
        {"first line", 0}, {"second line", 12}, {"", 24}, {"last line without newline", 25}};
    tr_line line;
    for (size_t i = 0; i < 4; i++) {
        CHECK_INT(tr_input_getline(in, &line, &e), TR_OK);
        CHECK_STR(line.p, want[i].text);
        CHECK_INT(line.len, strlen(want[i].text));
        CHECK_INT(line.no, i + 1);
        CHECK_INT(line.offset, want[i].offset);
    }
    tr_loc loc = tr_input_loc(in, &line, 6);
    CHECK_STR(loc.file, path);
    CHECK_INT(loc.line, 4);
    CHECK_INT(loc.col, 6);
    CHECK_INT(loc.offset, 25 + 5 + 1);
    CHECK_INT(tr_input_offset(in), 50);
    CHECK_INT(tr_input_getline(in, &line, &e), TR_END);
    CHECK_INT(tr_input_getline(in, &line, &e), TR_END);
    CHECK_INT(tr_source_next(s, &in, &e), TR_END);
    CHECK_INT(tr_source_next(s, &in, &e), TR_END);
    tr_source_close(s);
    tr_source_close(NULL);
}

TR_TEST(compressed)
{
    static const char *const names[] = {"text.txt.gz", "text.txt.zst", "text.txt.xz",
                                        "text.txt.bz2"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        int kind = -1;
        const char *path = data_path(names[i]);
        char *got = dump_path(path, path, &kind);
        CHECK_INT(kind, TR_SOURCE_STREAM);
        CHECK_STR(got, "[]\n" TEXT_LINES);
        tr_free(got);
    }
}

TR_TEST(archives)
{
    static const char *const names[] = {"two.tar", "two.tar.gz", "two.zip"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        int kind = -1;
        const char *path = data_path(names[i]);
        char *got = dump_path(path, path, &kind);
        CHECK_INT(kind, TR_SOURCE_ARCHIVE);
        /* The directory entry dir/ yields nothing. */
        CHECK_STR(got, "[:a.txt]\napple\n[:dir/b.txt]\nbanana\nberry\n");
        tr_free(got);
    }
}

TR_TEST(directory)
{
    char cmd[8192];
    const char *dir = tr_test_tmp("dir");
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s' && mkdir -p '%s/sub/deeper' '%s/.git' && cp '%s' '%s/z.gz' && "
             "cp '%s' '%s/sub/inner.tar' && ln -s ../a.txt '%s/sub/link.txt' && "
             "ln -s sub '%s/dirlink' && ln -s nowhere '%s/dangling'",
             dir, dir, dir, data_path("text.txt.gz"), dir, data_path("two.tar"), dir, dir, dir,
             dir);
    CHECK_INT(system(cmd), 0);
    char p[4096];
    static const struct {
        const char *rel, *text;
    } files[] = {{"a.txt", "A\n"},    {"B.txt", "upper\n"},        {"a.b", "dot\n"},
                 {".hidden", "no\n"}, {".git/config", "no\n"},     {"sub/c.txt", "c1\nc2"},
                 {"sub/.x", "no\n"},  {"sub/deeper/d.txt", "d\n"}, {"empty.txt", ""}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i].rel);
        tr_test_write(p, files[i].text, strlen(files[i].text));
    }

    tr_source *s;
    tr_error e = {0};
    /* A trailing slash does not double in the names. */
    snprintf(p, sizeof p, "%s/", dir);
    CHECK_INT(tr_source_open(&s, p, &e), TR_OK);
    CHECK_INT(tr_source_kind(s), TR_SOURCE_DIR);
    size_t n = 0;
    const char *const *list = tr_source_listing(s, &n);
    static const char *const order[] = {"B.txt",         "a.b",          "a.txt",
                                        "empty.txt",     "sub/c.txt",    "sub/deeper/d.txt",
                                        "sub/inner.tar", "sub/link.txt", "z.gz"};
    CHECK_INT(n, sizeof order / sizeof order[0]);
    for (size_t i = 0; i < n && i < sizeof order / sizeof order[0]; i++)
        CHECK_STR(list[i], order[i]);

    tr_buf out;
    tr_buf_init(&out, 0);
    snprintf(p, sizeof p, "%s/", dir);
    CHECK_INT(dump(s, p, &out, &e), TR_END);
    CHECK_STR(out.p, "[B.txt]\nupper\n[a.b]\ndot\n[a.txt]\nA\n[empty.txt]\n[sub/c.txt]\nc1\nc2\n"
                     "[sub/deeper/d.txt]\nd\n[sub/inner.tar:a.txt]\napple\n"
                     "[sub/inner.tar:dir/b.txt]\nbanana\nberry\n[sub/link.txt]\nA\n"
                     "[z.gz]\n" TEXT_LINES);
    tr_buf_fini(&out);
    tr_source_close(s);
}

TR_TEST(stdin_pipe)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        /* The writer: 20000 lines, more than one pipe buffer. */
        close(fds[0]);
        char line[32];
        for (int i = 1; i <= 20000; i++) {
            int n = snprintf(line, sizeof line, "line %d\n", i);
            if (write(fds[1], line, (size_t)n) != n) _exit(1);
        }
        _exit(0);
    }
    close(fds[1]);
    int saved = dup(0);
    CHECK(dup2(fds[0], 0) == 0);
    close(fds[0]);

    tr_source *s;
    tr_error e = {0};
    CHECK_INT(tr_source_open(&s, "-", &e), TR_OK);
    CHECK_INT(tr_source_kind(s), TR_SOURCE_STREAM);
    tr_input *in;
    CHECK_INT(tr_source_next(s, &in, &e), TR_OK);
    CHECK_STR(tr_input_name(in), "-");
    tr_line line;
    int count = 0, rc;
    char want[32];
    while ((rc = tr_input_getline(in, &line, &e)) == TR_OK) {
        snprintf(want, sizeof want, "line %d", ++count);
        if (strcmp(line.p, want) != 0) {
            CHECK_STR(line.p, want);
            break;
        }
    }
    CHECK_INT(rc, TR_END);
    CHECK_INT(count, 20000);
    CHECK_INT(tr_source_next(s, &in, &e), TR_END);
    tr_source_close(s);

    dup2(saved, 0);
    close(saved);
    int status;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TR_TEST(truncated_gz)
{
    const char *path = data_path("truncated.gz");
    tr_source *s;
    tr_error e = {0};
    CHECK_INT(tr_source_open(&s, path, &e), TR_OK);
    tr_input *in;
    CHECK_INT(tr_source_next(s, &in, &e), TR_OK);
    tr_line line;
    int rc;
    uint64_t lines = 0;
    while ((rc = tr_input_getline(in, &line, &e)) == TR_OK) {
        if (strcmp(line.p, "trace line") != 0) CHECK_STR(line.p, "trace line");
        lines++;
    }
    CHECK_INT(rc, TR_FAIL);
    CHECK_INT(e.code, TR_E_FORMAT);
    CHECK_STR(e.file, path);
    /* libarchive hands out 64 KiB blocks and fails on the twelfth. */
    CHECK_INT(e.offset, 11 * 65536 + 1);
    CHECK(strstr(e.msg, "truncated gzip input") != NULL);
    CHECK_INT(lines, 11 * 65536 / 11);
    /* The failure sticks. */
    tr_error e2 = {0};
    CHECK_INT(tr_input_getline(in, &line, &e2), TR_FAIL);
    CHECK_INT(e2.offset, e.offset);
    tr_source_close(s);

    /* Cut inside the first block, the failure comes at open, at byte 0. */
    char buf[30];
    FILE *f = fopen(data_path("text.txt.gz"), "rb");
    CHECK(f && fread(buf, 1, sizeof buf, f) == sizeof buf);
    if (f) fclose(f);
    CHECK_INT(tr_source_open_memory(&s, "cut.gz", buf, sizeof buf, &e), TR_FAIL);
    CHECK(s == NULL);
    CHECK_INT(e.code, TR_E_FORMAT);
    CHECK_STR(e.file, "cut.gz");
    CHECK_INT(e.offset, 1);
}

/* A file with line 1 short and line 2 LEN bytes of 'x' then END. */
static const char *long_line_file(size_t len, const char *end)
{
    const char *path = tr_test_tmp("long.txt");
    size_t elen = strlen(end);
    char *p = malloc(len + elen + 32);
    CHECK(p != NULL);
    if (!p) return path;
    memcpy(p, "short\n", 6);
    memset(p + 6, 'x', len);
    memcpy(p + 6 + len, end, elen);
    memcpy(p + 6 + len + elen, "tail\n", 5);
    tr_test_write(path, p, 6 + len + elen + 5);
    free(p);
    return path;
}

static int read_long(const char *path, size_t max, tr_error *e, size_t *len2)
{
    tr_source *s;
    tr_input *in;
    tr_line line;
    int rc = tr_source_open(&s, path, e);
    CHECK_INT(rc, TR_OK);
    if (rc != TR_OK) return rc;
    CHECK_INT(tr_source_next(s, &in, e), TR_OK);
    if (max) tr_input_set_line_max(in, max);
    while ((rc = tr_input_getline(in, &line, e)) == TR_OK)
        if (line.no == 2) *len2 = line.len;
    tr_source_close(s);
    return rc;
}

TR_TEST(line_limit)
{
    const size_t max = TR_LINE_MAX_DEFAULT;
    tr_error e = {0};
    size_t len2 = 0;
    /* Exactly the cap, with "\n", "\r\n" or the end of the file: fine. */
    CHECK_INT(read_long(long_line_file(max, "\n"), 0, &e, &len2), TR_END);
    CHECK_INT(len2, max);
    len2 = 0;
    CHECK_INT(read_long(long_line_file(max, "\r\n"), 0, &e, &len2), TR_END);
    CHECK_INT(len2, max);

    /* One byte over: a TR_E_LIMIT error naming line 2. */
    CHECK_INT(read_long(long_line_file(max + 1, "\n"), 0, &e, &len2), TR_FAIL);
    CHECK_INT(e.code, TR_E_LIMIT);
    CHECK_INT(e.line, 2);
    CHECK_INT(e.offset, 7);
    CHECK_STR(e.msg, "line 2 longer than 1048576 bytes");
    /* Far over, without any newline: still an error, not an allocation. */
    CHECK_INT(read_long(long_line_file(8 * max, ""), 0, &e, &len2), TR_FAIL);
    CHECK_INT(e.code, TR_E_LIMIT);
    CHECK_INT(e.line, 2);

    /* A small cap set by the caller. */
    CHECK_INT(read_long(long_line_file(10, "\n"), 10, &e, &len2), TR_END);
    CHECK_INT(read_long(long_line_file(11, "\r\n"), 10, &e, &len2), TR_FAIL);
    CHECK_STR(e.msg, "line 2 longer than 10 bytes");
}

static const char BAD_TEXT[] = "plain\n"
                               "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80\n" /* valid UTF-8 */
                               "ab\0c\xff"
                               "d\xe2\x82z\xed\xa0\x80\xc0\xaf\xf4\x90\x80\x80"
                               "e\xe2\x82\n"
                               "fine\n";

TR_TEST(bad_bytes)
{
    tr_source *s;
    tr_input *in;
    tr_line line;
    tr_error e = {0};
    tr_test_warns log = {0};
    tr_diag diag = {tr_test_on_warn, &log, 0, 0};
    CHECK_INT(tr_source_open_memory(&s, "bad.txt", BAD_TEXT, sizeof BAD_TEXT - 1, &e), TR_OK);
    CHECK_INT(tr_source_next(s, &in, &e), TR_OK);
    tr_input_set_diag(in, &diag);
    CHECK_INT(tr_input_getline(in, &line, &e), TR_OK);
    CHECK_STR(line.p, "plain");
    CHECK_INT(tr_input_getline(in, &line, &e), TR_OK);
    CHECK_STR(line.p, "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80");
    CHECK_INT(log.n, 0);

    CHECK_INT(tr_input_getline(in, &line, &e), TR_OK);
    CHECK_INT(line.no, 3);
    /*
    ** NUL, 0xff, a cut 3-byte sequence (one U+FFFD for both bytes), a
    ** surrogate (3), an overlong 2-byte form (2), a code point past U+10FFFF
    ** (4), and a cut sequence at the end.
    */
#define R "\xef\xbf\xbd"
    CHECK_STR(line.p, "ab" R "c" R "d" R "z" R R R R R R R R R "e" R);
#undef R
    CHECK_INT(line.len, strlen(line.p));
    CHECK_INT(log.n, 1);
    CHECK_INT(diag.warnings, 1);
    CHECK_STR(log.last.file, "bad.txt");
    CHECK_INT(log.last.line, 3);
    CHECK_INT(log.last.col, 3);
    CHECK_INT(log.last.offset, line.offset + 3);
    CHECK_STR(log.last.msg, "NUL byte replaced by U+FFFD");

    CHECK_INT(tr_input_getline(in, &line, &e), TR_OK);
    CHECK_STR(line.p, "fine");
    CHECK_INT(line.no, 4);
    CHECK_INT(log.n, 1);
    CHECK_INT(tr_input_getline(in, &line, &e), TR_END);
    tr_source_close(s);

    /* The first bad byte names itself; no diag only counts nothing. */
    static const char bad2[] = "ok \xfe\x00 x";
    CHECK_INT(tr_source_open_memory(&s, "bad2.txt", bad2, sizeof bad2 - 1, &e), TR_OK);
    CHECK_INT(tr_source_next(s, &in, &e), TR_OK);
    tr_input_set_diag(in, &diag);
    CHECK_INT(tr_input_getline(in, &line, &e), TR_OK);
    CHECK_STR(line.p, "ok \xef\xbf\xbd\xef\xbf\xbd x");
    CHECK_INT(log.last.col, 4);
    CHECK_STR(log.last.msg, "invalid UTF-8 (byte 0xfe) replaced by U+FFFD");
    tr_source_close(s);
    CHECK_INT(tr_source_open_memory(&s, "bad2.txt", bad2, sizeof bad2 - 1, &e), TR_OK);
    CHECK_INT(tr_source_next(s, &in, &e), TR_OK);
    CHECK_INT(tr_input_getline(in, &line, &e), TR_OK);
    CHECK_STR(line.p, "ok \xef\xbf\xbd\xef\xbf\xbd x");
    tr_source_close(s);
}

TR_TEST(bad_bytes_strict)
{
    tr_source *s;
    tr_input *in;
    tr_line line;
    tr_error e = {0};
    tr_test_warns log = {0};
    tr_diag diag = {tr_test_on_warn, &log, 1, 0};
    CHECK_INT(tr_source_open_memory(&s, "bad.txt", BAD_TEXT, sizeof BAD_TEXT - 1, &e), TR_OK);
    CHECK_INT(tr_source_next(s, &in, &e), TR_OK);
    tr_input_set_diag(in, &diag);
    CHECK_INT(tr_input_getline(in, &line, &e), TR_OK);
    CHECK_INT(tr_input_getline(in, &line, &e), TR_OK);
    CHECK_INT(tr_input_getline(in, &line, &e), TR_FAIL);
    CHECK_INT(e.code, TR_E_FORMAT);
    CHECK_STR(e.file, "bad.txt");
    CHECK_INT(e.line, 3);
    CHECK_INT(e.col, 3);
    CHECK_INT(log.n, 0);
    tr_source_close(s);
}

TR_TEST(peek_then_getline)
{
    tr_source *s;
    tr_input *in;
    tr_line line;
    tr_error e = {0};
    const unsigned char *p;
    size_t n;
    CHECK_INT(tr_source_open(&s, data_path("text.txt.gz"), &e), TR_OK);
    CHECK_INT(tr_source_next(s, &in, &e), TR_OK);
    CHECK_INT(tr_input_peek(in, &p, &n, 5, &e), TR_OK);
    CHECK(n >= 5 && memcmp(p, "first", 5) == 0);
    /* More than there is: the whole stream. */
    CHECK_INT(tr_input_peek(in, &p, &n, TR_PEEK_SIZE, &e), TR_OK);
    CHECK_INT(n, 50);
    CHECK(memcmp(p, "first line\r\n", 12) == 0);
    CHECK_INT(tr_input_offset(in), 0);
    CHECK_INT(tr_input_getline(in, &line, &e), TR_OK);
    CHECK_STR(line.p, "first line");
    CHECK_INT(line.no, 1);
    /* Peek after a line shows what follows; read takes bytes as they are. */
    CHECK_INT(tr_input_peek(in, &p, &n, 6, &e), TR_OK);
    CHECK(n >= 6 && memcmp(p, "second", 6) == 0);
    char buf[8];
    size_t got = 0;
    CHECK_INT(tr_input_read(in, buf, 7, &got, &e), TR_OK);
    CHECK_INT(got, 7);
    CHECK(memcmp(buf, "second ", 7) == 0);
    CHECK_INT(tr_input_offset(in), 19);
    CHECK_INT(tr_input_getline(in, &line, &e), TR_OK);
    CHECK_STR(line.p, "line");
    CHECK_INT(line.offset, 19);
    char rest[64];
    CHECK_INT(tr_input_read(in, rest, sizeof rest, &got, &e), TR_OK);
    CHECK_INT(got, 26);
    CHECK(memcmp(rest, "\nlast line without newline", 26) == 0);
    CHECK_INT(tr_input_read(in, rest, sizeof rest, &got, &e), TR_OK);
    CHECK_INT(got, 0);
    CHECK_INT(tr_input_getline(in, &line, &e), TR_END);
    tr_source_close(s);
}

TR_TEST(empty_inputs)
{
    static const char *const names[] = {"empty.txt", "empty.gz", "nodata.gz"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        tr_source *s;
        tr_input *in;
        tr_line line;
        tr_error e = {0};
        const unsigned char *p;
        size_t n = 1;
        CHECK_INT(tr_source_open(&s, data_path(names[i]), &e), TR_OK);
        CHECK_INT(tr_source_kind(s), TR_SOURCE_STREAM);
        CHECK_INT(tr_source_next(s, &in, &e), TR_OK);
        CHECK_INT(tr_input_peek(in, &p, &n, TR_PEEK_SIZE, &e), TR_OK);
        CHECK_INT(n, 0);
        CHECK_INT(tr_input_getline(in, &line, &e), TR_END);
        CHECK_INT(tr_source_next(s, &in, &e), TR_END);
        tr_source_close(s);
    }
    /* Memory too, including no memory at all. */
    tr_source *s;
    tr_input *in;
    tr_line line;
    tr_error e = {0};
    CHECK_INT(tr_source_open_memory(&s, "nothing", NULL, 0, &e), TR_OK);
    CHECK_INT(tr_source_next(s, &in, &e), TR_OK);
    CHECK_INT(tr_input_getline(in, &line, &e), TR_END);
    tr_source_close(s);
}

TR_TEST(open_errors)
{
    tr_source *s = (tr_source *)1;
    tr_error e = {0};
    const char *path = tr_test_tmp("does-not-exist.log");
    CHECK_INT(tr_source_open(&s, path, &e), TR_FAIL);
    CHECK(s == NULL);
    CHECK_INT(e.code, TR_E_IO);
    CHECK_INT(e.sys_errno, ENOENT);
    CHECK_STR(e.file, path);
    char buf[1024];
    CHECK(strstr(tr_error_format(&e, buf, sizeof buf), "No such file or directory") != NULL);
}

TR_TEST(memory_archive)
{
    FILE *f = fopen(data_path("two.tar.gz"), "rb");
    CHECK(f != NULL);
    if (!f) return;
    char buf[1024];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    tr_source *s;
    tr_error e = {0};
    tr_buf out;
    tr_buf_init(&out, 0);
    CHECK_INT(tr_source_open_memory(&s, "mem", buf, n, &e), TR_OK);
    CHECK_INT(tr_source_kind(s), TR_SOURCE_ARCHIVE);
    CHECK_STR(tr_source_path(s), "mem");
    CHECK_INT(dump(s, NULL, &out, &e), TR_END);
    CHECK_STR(out.p, "[mem:a.txt]\napple\n[mem:dir/b.txt]\nbanana\nberry\n");
    tr_buf_fini(&out);
    tr_source_close(s);
}

typedef struct progress_log {
    int calls;
    uint64_t last_done, total;
    int monotonic;
} progress_log;

static void on_progress(void *user, const char *name, uint64_t done, uint64_t total)
{
    progress_log *p = user;
    (void)name;
    if (done < p->last_done) p->monotonic = 0;
    p->calls++;
    p->last_done = done;
    p->total = total;
}

TR_TEST(progress)
{
    /* 10 MB in 1 MiB lines of 'p': reported every 4 MiB and at the end. */
    const char *path = tr_test_tmp("big.txt");
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    static char chunk[1 << 20];
    memset(chunk, 'p', sizeof chunk - 1);
    chunk[sizeof chunk - 1] = '\n';
    for (int i = 0; i < 10; i++) fwrite(chunk, 1, sizeof chunk, f);
    fclose(f);

    tr_source *s;
    tr_input *in;
    tr_line line;
    tr_error e = {0};
    progress_log log = {0, 0, 0, 1};
    CHECK_INT(tr_source_open(&s, path, &e), TR_OK);
    tr_source_set_progress(s, on_progress, &log);
    CHECK_INT(tr_source_next(s, &in, &e), TR_OK);
    int lines = 0;
    while (tr_input_getline(in, &line, &e) == TR_OK) lines++;
    CHECK_INT(lines, 10);
    CHECK_INT(log.calls, 3); /* 4 MiB, 8 MiB, the end */
    CHECK(log.monotonic);
    CHECK_INT(log.total, 10 << 20);
    CHECK_INT(log.last_done, 10 << 20);
    tr_source_close(s);
}

/*
** A plain file is read from the file itself, not through libarchive: one cut
** short while read ends where it now ends, one that grows is read on, as
** libarchive reads them.
*/
TR_TEST(plain_file_changes)
{
    const char *path = tr_test_tmp("changing.txt");
    static char text[1 << 20];
    for (size_t i = 0; i < sizeof text; i += 16) memcpy(text + i, "fifteen bytes..\n", 16);
    tr_test_write(path, text, sizeof text);

    tr_source *s;
    tr_input *in;
    tr_line line;
    tr_error e = {0};
    CHECK_INT(tr_source_open(&s, path, &e), TR_OK);
    CHECK_INT(tr_source_next(s, &in, &e), TR_OK);
    CHECK_INT(tr_input_size(in), sizeof text);
    CHECK_INT(tr_input_getline(in, &line, &e), TR_OK);
    CHECK_STR(line.p, "fifteen bytes..");
    CHECK(truncate(path, 600000) == 0);
    int rc, lines = 1;
    while ((rc = tr_input_getline(in, &line, &e)) == TR_OK) lines++;
    CHECK_INT(rc, TR_END);
    /* The first fill read 256 KiB before the cut; the rest ends at byte 600000. */
    CHECK_INT(lines, 600000 / 16);
    CHECK_INT(tr_input_offset(in), 600000);
    tr_source_close(s);

    tr_test_write(path, text, 4096);
    CHECK_INT(tr_source_open(&s, path, &e), TR_OK);
    CHECK_INT(tr_source_next(s, &in, &e), TR_OK);
    FILE *f = fopen(path, "ab");
    CHECK(f && fwrite(text, 1, 4096, f) == 4096);
    if (f) fclose(f);
    char buf[16384];
    size_t got, total = 0;
    while ((rc = tr_input_read(in, buf, sizeof buf, &got, &e)) == TR_OK && got) total += got;
    CHECK_INT(rc, TR_OK);
    CHECK_INT(total, 8192);
    tr_source_close(s);
}

TR_TEST(alloc_failures)
{
    /* Every allocation in turn fails: a clean TR_FATAL, never a crash or a leak. */
    const char *dir = tr_test_tmp("fdir");
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s' && mkdir -p '%s/s' && cp '%s' '%s/s/t.tar' && cp '%s' '%s/s/p.zip'", dir,
             dir, data_path("two.tar"), dir, data_path("packed.zip"), dir);
    CHECK_INT(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/x.txt", dir);
    tr_test_write(cmd, "a\xff\n", 3);
    for (uint64_t n = 1; n < 200; n++) {
        tr_error e = {0};
        tr_buf out;
        tr_source *s;
        tr_buf_init(&out, 0);
        tr_alloc_fail_after(n);
        int rc = tr_source_open(&s, dir, &e);
        if (rc == TR_OK) {
            rc = dump(s, NULL, &out, &e);
            tr_source_close(s);
        }
        tr_alloc_fail_after(0);
        tr_buf_fini(&out);
        if (rc == TR_END) break;
        CHECK(n < 199); /* the loop reached a run without failure */
        CHECK_INT(rc, TR_FATAL);
        CHECK_INT(e.code, TR_E_NOMEM);
    }
}

/* The rest of IN into OUT with tr_input_read, in small pieces. */
static int read_rest(tr_input *in, tr_buf *out, tr_error *e)
{
    char chunk[1000];
    size_t got;
    int rc;
    tr_buf_reset(out);
    while ((rc = tr_input_read(in, chunk, sizeof chunk, &got, e)) == TR_OK && got)
        tr_buf_add(out, chunk, got);
    return rc;
}

TR_TEST(compressed_members)
{
    /* Each member is decompressed by content; the tar.gz one is not unpacked. */
    size_t text_n, tar_n;
    char *text = tr_test_slurp(data_path("text.txt"), &text_n);
    char *tar = tr_test_slurp(data_path("two.tar"), &tar_n);
    CHECK(text && tar);
    if (!text || !tar) return;
    static const struct {
        const char *name, *want; /* want NULL: text.txt, "tar": two.tar */
    } members[] = {{"a.txt", "apple\n"}, {"b.txt.gz", NULL}, {"c.txt.zst", NULL},
                   {"d.gz", ""},         {"e.txt", ""},      {"two.tar.gz", "tar"}};
    char cmd[8192];
    const char *gz = tr_test_tmp("packed.tar.gz");
    snprintf(cmd, sizeof cmd, "gzip -n -c '%s' > '%s'", data_path("packed.tar"), gz);
    CHECK_INT(system(cmd), 0);
    const char *paths[] = {data_path("packed.tar"), gz};
    for (size_t i = 0; i < 2; i++) {
        tr_source *s;
        tr_input *in;
        tr_error e = {0};
        tr_buf got, name;
        tr_buf_init(&got, 0);
        tr_buf_init(&name, 0);
        progress_log log = {0, 0, 0, 1};
        CHECK_INT(tr_source_open(&s, paths[i], &e), TR_OK);
        CHECK_INT(tr_source_kind(s), TR_SOURCE_ARCHIVE);
        tr_source_set_progress(s, on_progress, &log);
        for (size_t m = 0; m < sizeof members / sizeof members[0]; m++) {
            CHECK_INT(tr_source_next(s, &in, &e), TR_OK);
            if (!in) break;
            tr_buf_reset(&name);
            tr_buf_addf(&name, "%s:%s", paths[i], members[m].name);
            CHECK_STR(tr_input_name(in), name.p);
            const char *want = members[m].want ? members[m].want : text;
            size_t want_n = members[m].want ? strlen(want) : text_n;
            if (want && strcmp(want, "tar") == 0) {
                want = tar;
                want_n = tar_n;
            }
            /* What a probe sees is decompressed too. */
            const unsigned char *p;
            size_t n;
            CHECK_INT(tr_input_peek(in, &p, &n, TR_PEEK_SIZE, &e), TR_OK);
            CHECK(n >= (want_n < TR_PEEK_SIZE ? want_n : TR_PEEK_SIZE) && n <= want_n);
            CHECK(memcmp(p, want, n < want_n ? n : want_n) == 0);
            CHECK_INT(read_rest(in, &got, &e), TR_OK);
            CHECK_INT(got.len, want_n);
            CHECK(got.len == want_n && memcmp(got.p, want, want_n) == 0);
            CHECK_INT(tr_input_offset(in), want_n);
        }
        CHECK_INT(tr_source_next(s, &in, &e), TR_END);
        /*
        ** Progress counts the file's own bytes, not the members': in the
        ** plain tar, up to the end of two.tar.gz's data block (the end
        ** blocks are read after the last stream); in the gzip one, all.
        */
        struct stat st;
        CHECK(stat(paths[i], &st) == 0);
        CHECK(log.monotonic);
        CHECK_INT(log.total, st.st_size);
        CHECK_INT(log.last_done, i == 0 ? 5632 : st.st_size);
        tr_buf_fini(&got);
        tr_buf_fini(&name);
        tr_source_close(s);
    }
    tr_free(text);
    tr_free(tar);

    /* A zip with a member in each compression. */
    const char *zip = data_path("packed.zip");
    int kind = -1;
    char *out = dump_path(zip, zip, &kind);
    CHECK_INT(kind, TR_SOURCE_ARCHIVE);
    CHECK_STR(out, "[:text.txt.bz2]\n" TEXT_LINES "[:text.txt.gz]\n" TEXT_LINES
                   "[:text.txt.xz]\n" TEXT_LINES);
    tr_free(out);
}

TR_TEST(members_skipped)
{
    /* Members left unread or half read: the next one still starts right. */
    tr_source *s;
    tr_input *in;
    tr_line line;
    tr_error e = {0};
    CHECK_INT(tr_source_open(&s, data_path("packed.tar"), &e), TR_OK);
    CHECK_INT(tr_source_next(s, &in, &e), TR_OK);
    CHECK_INT(tr_source_next(s, &in, &e), TR_OK);
    CHECK_INT(tr_input_getline(in, &line, &e), TR_OK);
    CHECK_STR(line.p, "first line");
    CHECK_INT(tr_source_next(s, &in, &e), TR_OK);
    CHECK_INT(tr_input_getline(in, &line, &e), TR_OK);
    CHECK_STR(line.p, "first line");
    CHECK_INT(tr_input_getline(in, &line, &e), TR_OK);
    CHECK_STR(line.p, "second line");
    tr_source_close(s);
}

TR_TEST(truncated_member)
{
    const char *path = data_path("truncated.tar");
    char name[4200];
    tr_source *s;
    tr_input *in;
    tr_line line;
    tr_error e = {0};
    CHECK_INT(tr_source_open(&s, path, &e), TR_OK);
    /* Cut inside its first block: next fails, at byte 0 of the member... */
    CHECK_INT(tr_source_next(s, &in, &e), TR_FAIL);
    CHECK(in == NULL);
    CHECK_INT(e.code, TR_E_FORMAT);
    snprintf(name, sizeof name, "%s:cut.gz", path);
    CHECK_STR(e.file, name);
    CHECK_INT(e.offset, 1);
    CHECK(strstr(e.msg, "truncated gzip input") != NULL);

    /* ...and the archive goes on: a member cut later fails where it is cut. */
    CHECK_INT(tr_source_next(s, &in, &e), TR_OK);
    snprintf(name, sizeof name, "%s:truncated.gz", path);
    CHECK_STR(tr_input_name(in), name);
    int rc;
    uint64_t lines = 0;
    while ((rc = tr_input_getline(in, &line, &e)) == TR_OK) {
        if (strcmp(line.p, "trace line") != 0) CHECK_STR(line.p, "trace line");
        lines++;
    }
    CHECK_INT(rc, TR_FAIL);
    CHECK_INT(e.code, TR_E_FORMAT);
    CHECK_STR(e.file, name);
    CHECK_INT(e.offset, 11 * 65536 + 1);
    CHECK(strstr(e.msg, "truncated gzip input") != NULL);
    CHECK_INT(lines, 11 * 65536 / 11);
    char buf[8200];
    snprintf(name, sizeof name, "%s:truncated.gz: byte 720896: ", path);
    CHECK(strncmp(tr_error_format(&e, buf, sizeof buf), name, strlen(name)) == 0);

    CHECK_INT(tr_source_next(s, &in, &e), TR_OK);
    CHECK_INT(tr_input_getline(in, &line, &e), TR_OK);
    CHECK_STR(line.p, "after");
    CHECK_INT(tr_source_next(s, &in, &e), TR_END);
    tr_source_close(s);

    /*
    ** The tar itself cut 3 bytes into a plain member: the member fails with
    ** the tar's own message (its first block is cut short), then the tar.
    */
    size_t n;
    char *tar = tr_test_slurp(data_path("packed.tar"), &n);
    CHECK(tar != NULL);
    if (!tar) return;
    CHECK_INT(tr_source_open_memory(&s, "cut.tar", tar, 512 + 3, &e), TR_OK);
    CHECK_INT(tr_source_next(s, &in, &e), TR_FAIL);
    CHECK_INT(e.code, TR_E_FORMAT);
    CHECK_STR(e.file, "cut.tar:a.txt");
    CHECK_INT(e.offset, 1);
    CHECK(strstr(e.msg, "Truncated tar archive") != NULL); /* later libarchives say more */
    CHECK_INT(tr_source_next(s, &in, &e), TR_FAIL);
    CHECK_STR(e.file, "cut.tar");
    tr_source_close(s);
    tr_free(tar);
}

TR_TEST(sparse_member)
{
    /* Holes read as zeros, a trailing one too. */
    tr_source *s;
    tr_input *in;
    tr_error e = {0};
    tr_buf got;
    tr_buf_init(&got, 0);
    CHECK_INT(tr_source_open(&s, data_path("sparse.tar"), &e), TR_OK);
    CHECK_INT(tr_source_next(s, &in, &e), TR_OK);
    CHECK_INT(read_rest(in, &got, &e), TR_OK);
    CHECK_INT(got.len, 300000);
    if (got.len == 300000) {
        CHECK(memcmp(got.p, "start\n", 6) == 0);
        CHECK(memcmp(got.p + 200000, "end\n", 4) == 0);
        size_t nonzero = 0;
        for (size_t i = 0; i < got.len; i++) nonzero += got.p[i] != 0;
        CHECK_INT(nonzero, 10);
    }
    CHECK_INT(tr_source_next(s, &in, &e), TR_END);
    tr_buf_fini(&got);
    tr_source_close(s);
}
