/* test_output.c: tr_output (lib/output.c). */

#include "tr_input.h"
#include "tr_mem.h"
#include "tr_output.h"
#include "tr_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A fresh directory NAME in the scratch directory; its path. */
static const char *fresh_dir(const char *name)
{
    static char bufs[4][4096];
    static int next;
    char *p = bufs[next++ % 4];
    char cmd[8192];
    snprintf(p, sizeof bufs[0], "%s/%s", tr_test_tmpdir(), name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", p, p);
    CHECK_INT(system(cmd), 0);
    return p;
}

/* How many entries DIR holds (dot names included, "." and ".." not). */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) n++;
    closedir(d);
    return n;
}

static int write_str(tr_output *o, const char *s, tr_error *e)
{
    return tr_output_write(o, s, strlen(s), e);
}

TR_TEST(compression_by_name)
{
    CHECK_INT(tr_output_compression("out.json.gz"), TR_COMPRESS_GZIP);
    CHECK_INT(tr_output_compression("OUT.GZ"), TR_COMPRESS_GZIP);
    CHECK_INT(tr_output_compression("a/b.lines.zst"), TR_COMPRESS_ZSTD);
    CHECK_INT(tr_output_compression("out.json"), TR_COMPRESS_NONE);
    CHECK_INT(tr_output_compression(".gz"), TR_COMPRESS_NONE);
    CHECK_INT(tr_output_compression("gz"), TR_COMPRESS_NONE);
    CHECK_INT(tr_output_compression("-"), TR_COMPRESS_NONE);
}

TR_TEST(write_commit)
{
    const char *dir = fresh_dir("commit");
    const char *path = tr_test_join(dir, "out.txt");
    tr_output *o;
    tr_error e = {0};
    mode_t old = umask(022);
    CHECK_INT(tr_output_open(&o, path, &e), TR_OK);
    umask(old);
    CHECK_STR(tr_output_path(o), path);
    CHECK(!tr_output_is_tty(o));
    /* Nothing at the target until the commit; the temporary file is beside it. */
    const char *tmp = tr_output_temp_path(o);
    CHECK(tmp != NULL);
    CHECK(access(path, F_OK) != 0);
    if (tmp) {
        /* ".out.txt.tmp-<pid>-<host hash>-XXXXXX" */
        char stem[64];
        int n = snprintf(stem, sizeof stem, ".out.txt.tmp-%ld-", (long)getpid());
        CHECK(strncmp(tmp, tr_test_join(dir, stem), strlen(dir) + 1 + (size_t)n) == 0);
        CHECK_INT(strlen(tmp), strlen(dir) + 1 + (size_t)n + 8 + 1 + 6);
        struct stat st;
        CHECK(stat(tmp, &st) == 0 && (st.st_mode & 0777) == 0644);
    }
    /* Small writes, one larger than the buffer, small again. */
    tr_buf want;
    tr_buf_init(&want, 0);
    for (int i = 0; i < 1000; i++) {
        char line[32];
        snprintf(line, sizeof line, "line %d\n", i);
        CHECK_INT(write_str(o, line, &e), TR_OK);
        tr_buf_adds(&want, line);
    }
    size_t big = 600 * 1024;
    char *blob = malloc(big);
    CHECK(blob != NULL);
    if (blob) {
        memset(blob, 'b', big);
        CHECK_INT(tr_output_write(o, blob, big, &e), TR_OK);
        tr_buf_add(&want, blob, big);
        free(blob);
    }
    CHECK_INT(write_str(o, "end\n", &e), TR_OK);
    tr_buf_adds(&want, "end\n");
    CHECK_INT(tr_output_commit(o, &e), TR_OK);

    size_t n = 0;
    char *got = tr_test_slurp(path, &n);
    CHECK(got != NULL && n == want.len && memcmp(got, want.p, n) == 0);
    free(got);
    tr_buf_fini(&want);
    CHECK_INT(count_entries(dir), 1);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
}

TR_TEST(commit_replaces)
{
    const char *dir = fresh_dir("replace");
    const char *path = tr_test_join(dir, "out.txt");
    tr_test_write_text(path, "old contents\n");
    tr_output *o;
    tr_error e = {0};
    CHECK_INT(tr_output_open(&o, path, &e), TR_OK);
    CHECK_INT(write_str(o, "new\n", &e), TR_OK);
    char *got = tr_test_slurp(path, NULL);
    CHECK_STR(got, "old contents\n");
    free(got);
    CHECK_INT(tr_output_commit(o, &e), TR_OK);
    got = tr_test_slurp(path, NULL);
    CHECK_STR(got, "new\n");
    free(got);
    CHECK_INT(count_entries(dir), 1);
}

TR_TEST(abort_keeps_old)
{
    const char *dir = fresh_dir("abort");
    const char *path = tr_test_join(dir, "out.json.gz");
    tr_test_write_text(path, "old\n");
    static const char *const names[] = {"out.json.gz", "plain.txt"};
    for (size_t i = 0; i < 2; i++) {
        tr_output *o;
        tr_error e = {0};
        CHECK_INT(tr_output_open(&o, tr_test_join(dir, names[i]), &e), TR_OK);
        CHECK_INT(write_str(o, "half an output", &e), TR_OK);
        CHECK_INT(count_entries(dir), 2);
        tr_output_abort(o);
    }
    tr_output_abort(NULL);
    char *got = tr_test_slurp(path, NULL);
    CHECK_STR(got, "old\n");
    free(got);
    CHECK_INT(count_entries(dir), 1);
}

TR_TEST(unwritable_dir)
{
    if (geteuid() == 0) {
        /* Root writes anywhere; failed_write covers the failure path instead. */
        fprintf(stderr, "note: unwritable_dir skipped when run as root\n");
        return;
    }
    const char *dir = fresh_dir("ro");
    const char *path = tr_test_join(dir, "out.txt");
    tr_test_write_text(path, "old\n");
    CHECK(chmod(dir, 0555) == 0);
    tr_output *o = (tr_output *)1;
    tr_error e = {0};
    CHECK_INT(tr_output_open(&o, path, &e), TR_FAIL);
    CHECK(o == NULL);
    CHECK_INT(e.code, TR_E_IO);
    CHECK_INT(e.sys_errno, EACCES);
    CHECK_STR(e.file, path);
    chmod(dir, 0755);
    char *got = tr_test_slurp(path, NULL);
    CHECK_STR(got, "old\n");
    free(got);
    CHECK_INT(count_entries(dir), 1);
}

TR_TEST(failed_write)
{
    /* A file size limit makes write() fail with EFBIG, even for root. */
    static const char *const names[] = {"out.txt", "out.txt.gz", "out.txt.zst"};
    const char *dir = fresh_dir("full");
    struct rlimit old, lim;
    CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    size_t big = 4 << 20;
    char *blob = malloc(big);
    CHECK(blob != NULL);
    if (!blob) return;
    /* Random bytes, so that compression does not shrink them under the limit. */
    srand(7);
    for (size_t i = 0; i < big; i++) blob[i] = (char)(rand() >> 7);
    for (size_t i = 0; i < 3; i++) {
        const char *path = tr_test_join(dir, names[i]);
        tr_test_write_text(path, "old\n");
        tr_output *o;
        tr_error e = {0};
        CHECK_INT(tr_output_open(&o, path, &e), TR_OK);
        lim = old;
        lim.rlim_cur = 1 << 20;
        CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
        int rc = tr_output_write(o, blob, big, &e);
        if (rc == TR_OK)
            rc = tr_output_commit(o, &e);
        else {
            /* Later writes and the commit report the failure again. */
            CHECK_INT(write_str(o, "more", &e), TR_FAIL);
            CHECK_INT(tr_output_commit(o, &e), TR_FAIL);
        }
        CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
        CHECK_INT(rc, TR_FAIL);
        CHECK_INT(e.code, TR_E_IO);
        CHECK_INT(e.sys_errno, EFBIG);
        CHECK_STR(e.file, path);
        char *got = tr_test_slurp(path, NULL);
        CHECK_STR(got, "old\n");
        free(got);
        CHECK_INT(count_entries(dir), (int)i + 1);
    }
    free(blob);
    signal(SIGXFSZ, old_handler);
}

/* Read PATH back through the input layer: its one stream's bytes. */
static char *read_back(const char *path, size_t *n)
{
    tr_source *s;
    tr_input *in;
    tr_error e = {0};
    tr_buf b;
    tr_buf_init(&b, 0);
    CHECK_INT(tr_source_open(&s, path, &e), TR_OK);
    CHECK_INT(tr_source_next(s, &in, &e), TR_OK);
    char chunk[65536];
    size_t got;
    while (tr_input_read(in, chunk, sizeof chunk, &got, &e) == TR_OK && got)
        tr_buf_add(&b, chunk, got);
    tr_source_close(s);
    *n = b.len;
    if (!b.cap) tr_buf_grow(&b, 1);
    return b.p;
}

TR_TEST(compressed_roundtrip)
{
    const char *dir = fresh_dir("comp");
    static const struct {
        const char *name;
        unsigned char magic[4];
    } cases[] = {{"out.json.gz", {0x1f, 0x8b, 8, 0}}, {"out.lines.zst", {0x28, 0xb5, 0x2f, 0xfd}}};
    tr_buf want;
    tr_buf_init(&want, 0);
    for (int i = 0; i < 200000; i++) tr_buf_addf(&want, "%d|event %d|%x\n", i, i % 97, i * 7919);
    for (size_t c = 0; c < 2; c++) {
        const char *path = tr_test_join(dir, cases[c].name);
        tr_output *o;
        tr_error e = {0};
        CHECK_INT(tr_output_open(&o, path, &e), TR_OK);
        CHECK(tr_output_temp_path(o) == NULL);
        /* In uneven pieces. */
        for (size_t at = 0; at < want.len;) {
            size_t k = want.len - at < 1000 + at % 5000 ? want.len - at : 1000 + at % 5000;
            CHECK_INT(tr_output_write(o, want.p + at, k, &e), TR_OK);
            at += k;
        }
        CHECK_INT(tr_output_commit(o, &e), TR_OK);
        size_t n = 0;
        char *raw = tr_test_slurp(path, &n);
        CHECK(raw && n > 4 && n < want.len / 2 && memcmp(raw, cases[c].magic, 4) == 0);
        /* gzip: no time stamp, so the output is reproducible. */
        if (c == 0 && raw) CHECK(!raw[4] && !raw[5] && !raw[6] && !raw[7]);
        free(raw);
        char *got = read_back(path, &n);
        CHECK(n == want.len && memcmp(got, want.p, n) == 0);
        tr_free(got);
    }
    /* An empty output still decompresses, to nothing. */
    const char *path = tr_test_join(dir, "empty.gz");
    tr_output *o;
    tr_error e = {0};
    CHECK_INT(tr_output_open(&o, path, &e), TR_OK);
    CHECK_INT(tr_output_commit(o, &e), TR_OK);
    size_t n = 1;
    tr_free(read_back(path, &n));
    CHECK_INT(n, 0);
    tr_buf_fini(&want);
    CHECK_INT(count_entries(dir), 3);
}

TR_TEST(to_stdout)
{
    const char *dir = fresh_dir("stdout");
    const char *path = tr_test_join(dir, "captured");
    fflush(stdout);
    int saved = dup(1);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0 && dup2(fd, 1) == 1);
    close(fd);
    tr_output *o;
    tr_error e = {0};
    CHECK_INT(tr_output_open(&o, "-", &e), TR_OK);
    CHECK(tr_output_temp_path(o) == NULL);
    CHECK(!tr_output_is_tty(o));
    CHECK_STR(tr_output_path(o), "-");
    CHECK_INT(write_str(o, "to stdout\n", &e), TR_OK);
    CHECK_INT(tr_output_commit(o, &e), TR_OK);
    /* Standard output stays open. */
    CHECK(write(1, "after\n", 6) == 6);
    dup2(saved, 1);
    close(saved);
    char *got = tr_test_slurp(path, NULL);
    CHECK_STR(got, "to stdout\nafter\n");
    free(got);
    CHECK_INT(count_entries(dir), 1);
}

TR_TEST(device_target)
{
    /* /dev/null is written in place, never replaced by a rename. */
    tr_output *o;
    tr_error e = {0};
    CHECK_INT(tr_output_open(&o, "/dev/null", &e), TR_OK);
    CHECK(tr_output_temp_path(o) == NULL);
    CHECK_INT(write_str(o, "discarded\n", &e), TR_OK);
    CHECK_INT(tr_output_commit(o, &e), TR_OK);
    struct stat st;
    CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));

    /* A directory is refused. */
    const char *dir = fresh_dir("isdir");
    CHECK_INT(tr_output_open(&o, dir, &e), TR_FAIL);
    CHECK_INT(e.sys_errno, EISDIR);
}

TR_TEST(cleanup_all)
{
    const char *dir = fresh_dir("cleanup");
    tr_output *a, *b, *c;
    tr_error e = {0};
    CHECK_INT(tr_output_open(&a, tr_test_join(dir, "a.txt"), &e), TR_OK);
    CHECK_INT(tr_output_open(&b, tr_test_join(dir, "b.txt.zst"), &e), TR_OK);
    CHECK_INT(tr_output_open(&c, tr_test_join(dir, "c.txt"), &e), TR_OK);
    tr_output_abort(b);
    CHECK_INT(count_entries(dir), 2);
    tr_output_cleanup_all();
    CHECK_INT(count_entries(dir), 0);
    /* What a signal handler leaves behind is still freed (and not found) later. */
    tr_output_abort(a);
    tr_output_abort(c);
    CHECK_INT(count_entries(dir), 0);
}

TR_TEST(alloc_failures)
{
    char dir[4096]; /* the join below runs more often than tr_test_join has buffers */
    snprintf(dir, sizeof dir, "%s", fresh_dir("nomem"));
    static const char *const names[] = {"o.txt", "o.txt.gz", "o.txt.zst"};
    for (size_t i = 0; i < 3; i++) {
        for (uint64_t n = 1; n < 20; n++) {
            tr_output *o;
            tr_error e = {0};
            tr_alloc_fail_after(n);
            int rc = tr_output_open(&o, tr_test_join(dir, names[i]), &e);
            tr_alloc_fail_after(0);
            if (rc == TR_OK) {
                CHECK_INT(write_str(o, "x\n", &e), TR_OK);
                CHECK_INT(tr_output_commit(o, &e), TR_OK);
                break;
            }
            CHECK_INT(rc, TR_FATAL);
            CHECK_INT(e.code, TR_E_NOMEM);
            CHECK(count_entries(dir) == (int)i);
        }
    }
    CHECK_INT(count_entries(dir), 3);
}

/* ---- stale temporary files, datasets ---- */

/* A pid that is gone: a child's, reaped. */
static long dead_pid(void)
{
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    CHECK(pid > 0);
    waitpid(pid, NULL, 0);
    return (long)pid;
}

/* Makes file DIR/NAME holding TEXT (a directory when TEXT is NULL). */
static void make(const char *dir, const char *name, const char *text)
{
    const char *path = tr_test_join(dir, name);
    if (!text) {
        CHECK_INT(mkdir(path, 0777), 0);
        return;
    }
    FILE *fp = fopen(path, "w");
    CHECK(fp != NULL);
    if (fp) {
        fputs(text, fp);
        fclose(fp);
    }
}

static int exists(const char *dir, const char *name)
{
    return access(tr_test_join(dir, name), F_OK) == 0;
}

/* What an output's temporary name says about its host: "-<8 hex>-" after the pid. */
static void host_tag(const char *dir, char *tag, size_t n)
{
    tr_output *o;
    tr_error e = {0};
    CHECK_INT(tr_output_open(&o, tr_test_join(dir, "probe"), &e), TR_OK);
    const char *tmp = strstr(tr_output_temp_path(o), ".tmp-");
    const char *dash = tmp ? strchr(tmp + 5, '-') : NULL;
    snprintf(tag, n, "%.8s", dash ? dash + 1 : "");
    tr_output_abort(o);
}

/* A target's temporary names from runs that are gone are removed; others' are kept. */
TR_TEST(stale_temporaries_swept)
{
    const char *dir = fresh_dir("stale");
    char tag[16], not_tag[16], name[128], live[128], other[128], tree[128];
    host_tag(dir, tag, sizeof tag);
    snprintf(not_tag, sizeof not_tag, "%s", tag);
    not_tag[0] = not_tag[0] == '0' ? '1' : '0';
    long dead = dead_pid();
    snprintf(name, sizeof name, ".out.txt.tmp-%ld-%s-abcdef", dead, tag);
    snprintf(tree, sizeof tree, ".out.txt.tmp-%ld-%s-ghijkl", dead, tag);
    snprintf(live, sizeof live, ".out.txt.tmp-%ld-%s-mnopqr", (long)getppid(), tag);
    snprintf(other, sizeof other, ".out.txt.tmp-%ld-%s-stuvwx", dead, not_tag);
    make(dir, name, "half");
    make(dir, tree, NULL);
    make(tr_test_join(dir, tree), "part", "half");
    make(dir, live, "live");
    make(dir, other, "another host's");
    make(dir, ".other.txt.tmp-1-00000000-abcdef", "another target's");
    tr_output *o;
    tr_error e = {0};
    CHECK_INT(tr_output_open(&o, tr_test_join(dir, "out.txt"), &e), TR_OK);
    CHECK(!exists(dir, name));
    CHECK(!exists(dir, tree));
    CHECK(exists(dir, live));
    CHECK(exists(dir, other));
    CHECK(exists(dir, ".other.txt.tmp-1-00000000-abcdef"));
    CHECK_INT(tr_output_commit(o, &e), TR_OK);
    CHECK_INT(count_entries(dir), 4);
}

/* Reads DIR/NAME's first bytes into a static buffer ("" when missing). */
static const char *text_of(const char *dir, const char *name)
{
    static char buf[64];
    buf[0] = '\0';
    FILE *fp = fopen(tr_test_join(dir, name), "r");
    if (fp) {
        size_t n = fread(buf, 1, sizeof buf - 1, fp);
        buf[n] = '\0';
        fclose(fp);
    }
    return buf;
}

/* A dataset is replaced whole: the old until commit, then old and new together. */
TR_TEST(dataset_all_or_nothing)
{
    const char *base = fresh_dir("dataset");
    char ds[4200], sub[4300];
    snprintf(ds, sizeof ds, "%s/ds", base);
    snprintf(sub, sizeof sub, "%s/t", ds);
    tr_output *o;
    tr_error e = {0};
    /* absent, aborted: nothing is left, not even an empty directory */
    CHECK_INT(tr_output_open_dir(&o, ds, TR_DIR_ADD, &e), TR_OK);
    make(tr_output_dir(o), "a", "new a");
    tr_output_abort(o);
    CHECK_INT(count_entries(base), 0);
    /* absent, committed */
    CHECK_INT(tr_output_open_dir(&o, ds, TR_DIR_ADD, &e), TR_OK);
    make(tr_output_dir(o), "a", "old a");
    make(tr_output_dir(o), "t", NULL);
    make(tr_test_join(tr_output_dir(o), "t"), "b", "old b");
    CHECK_INT(tr_output_commit(o, &e), TR_OK);
    struct stat before, after;
    CHECK_INT(stat(tr_test_join(ds, "a"), &before), 0);
    /* present: the run writes t/b and c; a is carried over, the same file */
    CHECK_INT(tr_output_open_dir(&o, ds, TR_DIR_ADD, &e), TR_OK);
    const char *tmp = tr_output_dir(o);
    CHECK(strcmp(tmp, ds) != 0);
    make(tmp, "t", NULL);
    make(tr_test_join(tmp, "t"), "b", "new b");
    make(tmp, "c", "new c");
    CHECK_STR(text_of(sub, "b"), "old b");
    CHECK(!exists(ds, "c"));
    CHECK_INT(tr_output_commit(o, &e), TR_OK);
    CHECK_STR(text_of(ds, "a"), "old a");
    CHECK_STR(text_of(sub, "b"), "new b");
    CHECK_STR(text_of(ds, "c"), "new c");
    CHECK_INT(stat(tr_test_join(ds, "a"), &after), 0);
    CHECK(before.st_ino == after.st_ino);
    CHECK_INT(count_entries(base), 1); /* no lock, no temporary, no old tree */
    /* present, aborted: as it was */
    CHECK_INT(tr_output_open_dir(&o, ds, TR_DIR_ADD, &e), TR_OK);
    make(tr_output_dir(o), "a", "newer a");
    tr_output_abort(o);
    CHECK_STR(text_of(ds, "a"), "old a");
    CHECK_INT(count_entries(base), 1);
    CHECK_INT(count_entries(ds), 3);
    /* a file is no dataset */
    make(base, "f", "x");
    CHECK_INT(tr_output_open_dir(&o, tr_test_join(base, "f"), TR_DIR_ADD, &e), TR_FAIL);
    CHECK_INT(e.sys_errno, ENOTDIR);
}

/*
** A run that died between the two renames of the fallback for file systems
** that cannot exchange left the old tree aside and no target: the next run
** puts it back before anything else.
*/
TR_TEST(dataset_old_tree_put_back)
{
    const char *base = fresh_dir("putback");
    char tag[16], old[128], tmp[128], ds[4200];
    host_tag(base, tag, sizeof tag);
    long dead = dead_pid();
    snprintf(old, sizeof old, ".ds.old-%ld-%s-abcdef", dead, tag);
    snprintf(tmp, sizeof tmp, ".ds.tmp-%ld-%s-ghijkl", dead, tag);
    make(base, old, NULL);
    make(tr_test_join(base, old), "a", "old a");
    make(base, tmp, NULL);
    make(tr_test_join(base, tmp), "a", "new a");
    snprintf(ds, sizeof ds, "%s/ds", base);
    tr_output *o;
    tr_error e = {0};
    CHECK_INT(tr_output_open_dir(&o, ds, TR_DIR_ADD, &e), TR_OK);
    CHECK_STR(text_of(ds, "a"), "old a");
    CHECK(!exists(base, old));
    CHECK(!exists(base, tmp));
    tr_output_abort(o);
    CHECK_INT(count_entries(base), 1);
}
