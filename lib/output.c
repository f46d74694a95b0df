/*
** output.c: atomic, optionally compressed outputs.
**
** A file target is written to ".<name>.tmp-<pid>-<host>-XXXXXX" beside it
** and renamed over it by tr_output_commit (git's lockfile).  The pid and a
** hash of the host name let a later run on the same target remove what a
** killed run left (output_sweep): only its own host's, only when that pid is
** gone.  The temporary file is created with
** open(O_CREAT | O_EXCL, 0666) rather than mkstemp: mkstemp makes it 0600, and
** the only way to learn the umask for a fchmod is umask() itself, which
** changes the process-wide mask for a moment; with 0666 the kernel applies
** the umask.  Open temporary files are kept in a list that
** tr_output_cleanup_all walks from a signal handler.
**
** A directory target is built the same way: a temporary directory is made
** beside it and renamed to it on commit (rename replaces an empty directory,
** never a full one); abort and the signal handler remove the tree with
** openat/getdents64/unlinkat only.  A dataset directory (TR_DIR_ADD) is built
** the same way too, and published whole (output_publish): under a lock beside
** it, what the dataset holds and the run did not write is hard-linked into the
** new tree, which then takes the old one's place in one
** renameat2(RENAME_EXCHANGE).  At every moment the target's name is the whole
** old tree or the whole new one, whatever kills the run; a concurrent run
** waits for the lock and then keeps what the first one added.
**
** Writes are gathered in one buffer and handed on in large pieces: to the
** file, to libarchive's gzip filter (raw format, one entry) or to zstd.
*/
#include "tr_output.h"
#include "tr_mem.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdatomic.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#define OUTPUT_BUF        (256 * 1024)
#define OUTPUT_TRIES      100 /* temporary names tried before giving up */
#define OUTPUT_ZSTD_LEVEL 3
#define OUTPUT_KICK       ((uint64_t)8 << 20) /* start writing a file back every 8 MiB */
#define OUTPUT_TREE_DEPTH 16                  /* levels a temporary directory is removed to */

struct tr_output {
    char *path;
    char *tmp;      /* the temporary file or directory; NULL for stdout or a device */
    int is_dir;     /* a directory target: tmp is written into */
    int is_dataset; /* TR_DIR_ADD: commit merges the tree into PATH's (output_publish) */
    int in_tree;    /* a file in an open directory output's tree: synced by its commit */
    int fd;
    int is_stdout; /* fd 1, not ours to close */
    int comp;      /* enum tr_compression */
    unsigned char *buf;
    size_t len;

    struct archive *gz; /* gzip through libarchive */
    ZSTD_CCtx *zc;
    unsigned char *zout;
    size_t zout_cap;
    int write_errno;          /* what write() said inside libarchive's callback */
    uint64_t written, kicked; /* bytes written to the file, and handed to writeback */

    int failed; /* sticky: a failed write leaves the output unusable */
    tr_error err;

    _Atomic(tr_output *) next; /* the list of open temporary files */
};

/*
** The list is changed under a mutex; the signal handler only reads it, and
** lock-free atomic pointers let it see either the old or the new link.
*/
static _Atomic(tr_output *) open_list;
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

static void output_register(tr_output *o)
{
    pthread_mutex_lock(&open_lock);
    atomic_store(&o->next, atomic_load(&open_list));
    atomic_store(&open_list, o);
    pthread_mutex_unlock(&open_lock);
}

static void output_unregister(tr_output *o)
{
    pthread_mutex_lock(&open_lock);
    _Atomic(tr_output *) *link = &open_list;
    tr_output *p;
    while ((p = atomic_load(link)) && p != o) link = &p->next;
    if (p) atomic_store(link, atomic_load(&o->next));
    pthread_mutex_unlock(&open_lock);
}

/*
** Removes directory NAME in DIRFD and everything in it, with async-signal-safe
** calls only (a signal handler runs it).  Entries removed while the listing
** is read may hide others from it, so it is read again until a pass is empty.
*/
static void output_remove_tree(int dirfd, const char *name, int depth)
{
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        char buf[4096] __attribute__((aligned(8)));
        for (int again = 1; again;) {
            again = 0;
            long n;
            while ((n = getdents64(fd, buf, sizeof buf)) > 0) {
                for (long off = 0; off < n;) {
                    struct dirent64 *d = (struct dirent64 *)(void *)(buf + off);
                    off += d->d_reclen;
                    const char *s = d->d_name;
                    if (s[0] == '.' && (!s[1] || (s[1] == '.' && !s[2]))) continue;
                    again = 1;
                    if (unlinkat(fd, s, 0) != 0 && errno == EISDIR && depth < OUTPUT_TREE_DEPTH)
                        output_remove_tree(fd, s, depth + 1);
                }
            }
            if (n < 0 || lseek(fd, 0, SEEK_SET) != 0) break;
        }
        close(fd);
    }
    unlinkat(dirfd, name, AT_REMOVEDIR);
}

static void output_remove_temp(const tr_output *o)
{
    if (o->is_dir)
        output_remove_tree(AT_FDCWD, o->tmp, 0);
    else
        unlink(o->tmp);
}

void tr_output_cleanup_all(void)
{
    for (tr_output *o = atomic_load(&open_list); o; o = atomic_load(&o->next))
        output_remove_temp(o);
}

int tr_output_compression(const char *path)
{
    size_t n = strlen(path);
    if (n > 3 && strcasecmp(path + n - 3, ".gz") == 0) return TR_COMPRESS_GZIP;
    if (n > 4 && strcasecmp(path + n - 4, ".zst") == 0) return TR_COMPRESS_ZSTD;
    return TR_COMPRESS_NONE;
}

/* Write all N bytes at P to FD; 0 or the errno. */
static int output_write_fd(int fd, const void *p, size_t n)
{
    const char *s = p;
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return errno;
        if (w == 0) return EIO;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

/*
** Write N bytes at P to the output's file; 0 or the errno.  A temporary
** file is fsync'ed at commit: telling the kernel to write it back as it
** grows lets the disk work while the trace is still being formatted, so
** the fsync waits for the last few MiB instead of the whole file.
*/
static int output_write(tr_output *o, const void *p, size_t n)
{
    int err = output_write_fd(o->fd, p, n);
    o->written += n;
#ifdef SYNC_FILE_RANGE_WRITE
    if (!err && o->tmp && o->written - o->kicked >= OUTPUT_KICK) {
        /*
        ** Whole MiB only: a page under writeback that is written again
        ** (the partly filled last one) would make the next write wait.
        ** Only a hint: if it fails, the fsync at commit does all the work.
        */
        uint64_t end = o->written & ~(((uint64_t)1 << 20) - 1);
        (void)sync_file_range(o->fd, (off_t)o->kicked, (off_t)(end - o->kicked),
                              SYNC_FILE_RANGE_WRITE);
        o->kicked = end;
    }
#endif
    return err;
}

static int output_fail(tr_output *o, int rc, tr_error *e)
{
    o->failed = rc;
    if (e) *e = o->err;
    return rc;
}

static int output_errno(tr_output *o, int err, const char *what, tr_error *e)
{
    tr_loc loc = {o->path, 0, 0, 0};
    return output_fail(o, tr_error_errno(&o->err, err, &loc, "%s", what), e);
}

static la_ssize_t output_gz_write(struct archive *a, void *user, const void *p, size_t n)
{
    tr_output *o = user;
    int err = output_write(o, p, n);
    if (err) {
        o->write_errno = err;
        archive_set_error(a, err, "write error");
        return -1;
    }
    return (la_ssize_t)n;
}

static int output_gz_error(tr_output *o, tr_error *e)
{
    if (o->write_errno) return output_errno(o, o->write_errno, "cannot write", e);
    tr_loc loc = {o->path, 0, 0, 0};
    const char *msg = archive_error_string(o->gz);
    return output_fail(
        o, tr_errorf(&o->err, TR_E_IO, &loc, "gzip: %s", msg ? msg : "unknown libarchive error"),
        e);
}

/* Feed N bytes at P (MODE ZSTD_e_end: and the end of the frame) to zstd. */
static int output_zstd(tr_output *o, const void *p, size_t n, ZSTD_EndDirective mode, tr_error *e)
{
    ZSTD_inBuffer in = {p, n, 0};
    for (;;) {
        ZSTD_outBuffer out = {o->zout, o->zout_cap, 0};
        size_t left = ZSTD_compressStream2(o->zc, &out, &in, mode);
        if (ZSTD_isError(left)) {
            tr_loc loc = {o->path, 0, 0, 0};
            return output_fail(
                o, tr_errorf(&o->err, TR_E_IO, &loc, "zstd: %s", ZSTD_getErrorName(left)), e);
        }
        int err = output_write(o, o->zout, out.pos);
        if (err) return output_errno(o, err, "cannot write", e);
        if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size) return TR_OK;
    }
}

/* Hand N bytes at P on, past the buffer. */
static int output_sink(tr_output *o, const void *p, size_t n, tr_error *e)
{
    if (o->comp == TR_COMPRESS_ZSTD) return output_zstd(o, p, n, ZSTD_e_continue, e);
    if (o->comp == TR_COMPRESS_GZIP) {
        const char *s = p;
        while (n) {
            la_ssize_t w = archive_write_data(o->gz, s, n);
            if (w <= 0) return output_gz_error(o, e);
            s += w;
            n -= (size_t)w;
        }
        return TR_OK;
    }
    int err = output_write(o, p, n);
    return err ? output_errno(o, err, "cannot write", e) : TR_OK;
}

static int output_flush(tr_output *o, tr_error *e)
{
    if (!o->len) return TR_OK;
    int rc = output_sink(o, o->buf, o->len, e);
    o->len = 0;
    return rc;
}

static int output_start_gzip(tr_output *o, tr_error *e)
{
    o->gz = archive_write_new();
    if (!o->gz) return output_fail(o, tr_error_nomem(&o->err), e);
    /* No timestamp in the header, so the same data gives the same file. */
    if (archive_write_add_filter_gzip(o->gz) != ARCHIVE_OK ||
        archive_write_set_filter_option(o->gz, "gzip", "timestamp", NULL) != ARCHIVE_OK ||
        archive_write_set_format_raw(o->gz) != ARCHIVE_OK ||
        archive_write_set_bytes_per_block(o->gz, 0) != ARCHIVE_OK || /* no padding */
        archive_write_open(o->gz, o, NULL, output_gz_write, NULL) != ARCHIVE_OK)
        return output_gz_error(o, e);
    struct archive_entry *entry = archive_entry_new();
    if (!entry) return output_fail(o, tr_error_nomem(&o->err), e);
    archive_entry_set_filetype(entry, AE_IFREG);
    archive_entry_set_pathname(entry, "data");
    int r = archive_write_header(o->gz, entry);
    archive_entry_free(entry);
    return r == ARCHIVE_OK ? TR_OK : output_gz_error(o, e);
}

static int output_start_zstd(tr_output *o, tr_error *e)
{
    o->zout_cap = ZSTD_CStreamOutSize();
    o->zc = ZSTD_createCCtx();
    o->zout = tr_malloc(o->zout_cap);
    if (!o->zc || !o->zout) return output_fail(o, tr_error_nomem(&o->err), e);
    size_t r = ZSTD_CCtx_setParameter(o->zc, ZSTD_c_compressionLevel, OUTPUT_ZSTD_LEVEL);
    if (ZSTD_isError(r)) {
        tr_loc loc = {o->path, 0, 0, 0};
        return output_fail(o, tr_errorf(&o->err, TR_E_IO, &loc, "zstd: %s", ZSTD_getErrorName(r)),
                           e);
    }
    return TR_OK;
}

/* A name no one will guess twice; O_EXCL settles any collision anyway. */
static uint64_t output_random(void)
{
    static atomic_uint_fast64_t counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 16) ^
                 (atomic_fetch_add(&counter, 1) + 1) * 0x9e3779b97f4a7c15ull;
    /* splitmix64's finalizer spreads every input bit over the result. */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The host's mark in temporary names: FNV-1a of its name, as 8 hex digits. */
static unsigned output_host(void)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    uint32_t h = 2166136261u;
    for (const char *s = host; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* Into B: PATH's directory part, then ".<base>." and the N bytes at KIND. */
static int output_sibling(tr_buf *b, const char *path, const char *kind)
{
    const char *slash = strrchr(path, '/');
    int dir_len = slash ? (int)(slash - path) + 1 : 0;
    return tr_buf_addf(b, "%.*s.%s.%s", dir_len, path, path + dir_len, kind);
}

/*
** A new name beside O's target: ".<base>.KIND-<pid>-<host>-XXXXXX" (KIND tmp,
** or old for a dataset's tree moved aside).  NULL when out of memory.
*/
static char *output_temp_name(const tr_output *o, const char *kind)
{
    static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    tr_buf b;
    tr_buf_init(&b, 0);
    if (output_sibling(&b, o->path, kind) ||
        tr_buf_addf(&b, "-%ld-%08x-XXXXXX", (long)getpid(), output_host())) {
        tr_buf_fini(&b);
        return NULL;
    }
    uint64_t r = output_random();
    for (size_t i = b.len - 6; i < b.len; i++, r /= sizeof chars - 1)
        b.p[i] = chars[r % (sizeof chars - 1)];
    return b.p;
}

/*
** Whether NAME (an entry of the target's directory, whose names for this
** target start with the PLEN bytes of ".<base>.") was left by a run on this
** host that is gone; *OLD is set for a dataset's tree moved aside.  A pid
** that is alive, perhaps reused by another program, keeps its files.
*/
static int output_stale(const char *name, size_t plen, const char *host, int *old)
{
    const char *s = name + plen;
    *old = strncmp(s, "old-", 4) == 0;
    if (!*old && strncmp(s, "tmp-", 4) != 0) return 0;
    char *end;
    long pid = strtol(s + 4, &end, 10);
    if (end == s + 4 || *end != '-' || pid <= 0 || strncmp(end + 1, host, 9) != 0) return 0;
    return pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/*
** Removes what killed runs left beside O's target.  A dataset's old tree is
** put back when the target is missing: its run died between the two renames
** of output_swap's fallback, and the old tree is then the whole truth.
*/
static void output_sweep(const tr_output *o)
{
    const char *slash = strrchr(o->path, '/'), *base = slash ? slash + 1 : o->path;
    char host[16], prefix[4096];
    snprintf(host, sizeof host, "%08x-", output_host());
    int plen = snprintf(prefix, sizeof prefix, ".%s.", base);
    tr_buf dir;
    tr_buf_init(&dir, 0);
    int nomem =
        !slash ? tr_buf_adds(&dir, ".")
               : tr_buf_addf(&dir, "%.*s", slash > o->path ? (int)(slash - o->path) : 1, o->path);
    int dfd =
        nomem || plen >= (int)sizeof prefix ? -1 : open(dir.p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    tr_buf_fini(&dir);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0) close(dfd);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        int old;
        if (strncmp(de->d_name, prefix, (size_t)plen) != 0 ||
            !output_stale(de->d_name, (size_t)plen, host, &old))
            continue;
        struct stat st;
        if (old && lstat(o->path, &st) != 0 && errno == ENOENT &&
            renameat(dfd, de->d_name, AT_FDCWD, o->path) == 0)
            continue;
        if (unlinkat(dfd, de->d_name, 0) != 0 && errno == EISDIR)
            output_remove_tree(dfd, de->d_name, 0);
    }
    closedir(d);
}

/* Whether PATH lies in the temporary directory of an open output: nothing stale is there. */
static int output_in_temp_dir(const char *path)
{
    int in = 0;
    pthread_mutex_lock(&open_lock);
    for (tr_output *p = atomic_load(&open_list); p && !in; p = atomic_load(&p->next)) {
        size_t n = p->is_dir ? strlen(p->tmp) : 0;
        in = n && strncmp(path, p->tmp, n) == 0 && path[n] == '/';
    }
    pthread_mutex_unlock(&open_lock);
    return in;
}

/* Create a temporary name beside the target: a file, or a directory when o->is_dir. */
static int output_create_temp(tr_output *o, tr_error *e)
{
    o->in_tree = output_in_temp_dir(o->path);
    if (!o->in_tree) output_sweep(o);
    for (int t = 0; t < OUTPUT_TRIES; t++) {
        tr_free(o->tmp);
        o->tmp = output_temp_name(o, "tmp");
        if (!o->tmp) return output_fail(o, tr_error_nomem(&o->err), e);
        int made;
        if (o->is_dir)
            made = mkdir(o->tmp, 0777) == 0;
        else
            made = (o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666)) >= 0;
        if (made) {
            output_register(o);
            return TR_OK;
        }
        if (errno != EEXIST) break;
    }
    tr_loc loc = {o->path, 0, 0, 0};
    tr_error_errno(&o->err, errno, &loc, "cannot create %s", o->tmp);
    tr_free(o->tmp);
    o->tmp = NULL;
    return output_fail(o, TR_FAIL, e);
}

/* Release everything; a temporary file still there is removed. */
static void output_free(tr_output *o)
{
    if (o->gz) archive_write_free(o->gz);
    ZSTD_freeCCtx(o->zc);
    if (o->fd >= 0 && !o->is_stdout) close(o->fd);
    if (o->tmp) {
        output_remove_temp(o);
        output_unregister(o);
    }
    tr_free(o->tmp);
    tr_free(o->zout);
    tr_free(o->buf);
    tr_free(o->path);
    tr_free(o);
}

/* A new output for PATH (its first N bytes), with a write buffer unless IS_DIR. */
static tr_output *output_new(const char *path, size_t n, int is_dir)
{
    tr_output *o = tr_calloc(1, sizeof *o);
    if (!o) return NULL;
    o->fd = -1;
    o->is_dir = is_dir;
    o->path = tr_malloc(n + 1);
    if (!is_dir) o->buf = tr_malloc(OUTPUT_BUF);
    if (!o->path || (!is_dir && !o->buf)) {
        output_free(o);
        return NULL;
    }
    memcpy(o->path, path, n);
    o->path[n] = '\0';
    return o;
}

int tr_output_open(tr_output **out, const char *path, tr_error *e)
{
    *out = NULL;
    tr_output *o = output_new(path, strlen(path), 0);
    if (!o) return tr_error_nomem(e);

    int rc = TR_OK;
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (strcmp(path, "-") == 0) {
        o->is_stdout = 1;
        o->fd = 1;
    } else if (exists && S_ISDIR(st.st_mode)) {
        rc = output_errno(o, EISDIR, "cannot write", e);
    } else if (exists && !S_ISREG(st.st_mode)) {
        /* A device or FIFO (/dev/null) is written in place: a rename would replace it. */
        o->fd = open(path, O_WRONLY | O_CLOEXEC);
        if (o->fd < 0) rc = output_errno(o, errno, "cannot open", e);
    } else {
        rc = output_create_temp(o, e);
    }
    if (!o->is_stdout) o->comp = tr_output_compression(path);
    if (rc == TR_OK && o->comp == TR_COMPRESS_GZIP) rc = output_start_gzip(o, e);
    if (rc == TR_OK && o->comp == TR_COMPRESS_ZSTD) rc = output_start_zstd(o, e);
    if (rc != TR_OK) {
        output_free(o);
        return rc;
    }
    *out = o;
    return TR_OK;
}

/* mkdir -p of PATH's parent (a copy is cut at each '/'). */
static int output_make_parents(tr_output *o, tr_error *e)
{
    tr_buf b;
    tr_buf_init(&b, 0);
    if (tr_buf_adds(&b, o->path)) return output_fail(o, tr_error_nomem(&o->err), e);
    int rc = TR_OK;
    for (size_t i = 1; i < b.len && !rc; i++) {
        if (b.p[i] != '/') continue;
        b.p[i] = '\0';
        struct stat st;
        if (mkdir(b.p, 0777) != 0 && errno != EEXIST)
            rc = tr_error_errno(&o->err, errno, NULL, "%s: cannot create the directory", b.p);
        else if (stat(b.p, &st) != 0 || !S_ISDIR(st.st_mode))
            rc = tr_errorf(&o->err, TR_E_IO, NULL, "%s: not a directory", b.p);
        b.p[i] = '/';
    }
    tr_buf_fini(&b);
    return rc ? output_fail(o, rc, e) : TR_OK;
}

/*
** A dataset is absent or a directory; a symbolic link to one is followed,
** so the directory it names is the one replaced, not the link.
*/
static int output_check_dataset(tr_output *o, tr_error *e)
{
    struct stat st;
    if (lstat(o->path, &st) != 0) return TR_OK;
    if (S_ISLNK(st.st_mode) && stat(o->path, &st) == 0 && S_ISDIR(st.st_mode)) {
        char *real = realpath(o->path, NULL);
        if (!real) return output_errno(o, errno, "cannot resolve the link", e);
        size_t n = strlen(real) + 1;
        tr_free(o->path);
        o->path = tr_malloc(n);
        if (o->path) memcpy(o->path, real, n);
        free(real);
        if (!o->path) return output_fail(o, tr_error_nomem(&o->err), e);
    }
    if (!S_ISDIR(st.st_mode)) return output_errno(o, ENOTDIR, "cannot write a directory", e);
    return TR_OK;
}

/* A directory to replace must be absent or empty: a full one is never thrown away. */
static int output_check_replace(tr_output *o, tr_error *e)
{
    struct stat st;
    if (stat(o->path, &st) != 0) return TR_OK;
    tr_loc loc = {o->path, 0, 0, 0};
    if (!S_ISDIR(st.st_mode)) return output_errno(o, ENOTDIR, "cannot write a directory", e);
    DIR *d = opendir(o->path);
    if (!d) return output_errno(o, errno, "cannot read the directory", e);
    struct dirent *de;
    int empty = 1;
    while (empty && (de = readdir(d)) != NULL)
        empty = strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0;
    closedir(d);
    if (empty) return TR_OK;
    return output_fail(
        o, tr_errorf(&o->err, TR_E_USAGE, &loc, "exists and is not empty (remove it first)"), e);
}

int tr_output_open_dir(tr_output **out, const char *path, int mode, tr_error *e)
{
    *out = NULL;
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    tr_output *o = output_new(path, n, 1);
    if (!o) return tr_error_nomem(e);
    int rc;
    o->is_dataset = mode == TR_DIR_ADD;
    if (o->is_dataset) {
        rc = output_make_parents(o, e);
        if (rc == TR_OK) rc = output_check_dataset(o, e);
    } else {
        rc = output_check_replace(o, e);
    }
    if (rc == TR_OK) rc = output_create_temp(o, e);
    if (rc != TR_OK) {
        output_free(o);
        return rc;
    }
    *out = o;
    return TR_OK;
}

const char *tr_output_dir(const tr_output *o)
{
    return o->is_dir ? o->tmp : NULL;
}

int tr_output_write(tr_output *o, const void *p, size_t n, tr_error *e)
{
    if (o->is_dir && !o->failed) {
        tr_loc loc = {o->path, 0, 0, 0};
        output_fail(o, tr_errorf(&o->err, TR_E_USAGE, &loc, "is a directory target"), NULL);
    }
    if (o->failed) {
        if (e) *e = o->err;
        return o->failed;
    }
    if (n <= OUTPUT_BUF - o->len) {
        memcpy(o->buf + o->len, p, n);
        o->len += n;
        return TR_OK;
    }
    int rc = output_flush(o, e);
    if (rc != TR_OK) return rc;
    if (n >= OUTPUT_BUF) return output_sink(o, p, n, e);
    memcpy(o->buf, p, n);
    o->len = n;
    return TR_OK;
}

int tr_output_is_tty(const tr_output *o)
{
    return o->is_stdout && isatty(1);
}

const char *tr_output_path(const tr_output *o)
{
    return o->path;
}

const char *tr_output_temp_path(const tr_output *o)
{
    return o->comp == TR_COMPRESS_NONE && !o->is_dir ? o->tmp : NULL;
}

/* ---- publishing a dataset ---- */

/*
** Takes the lock ".<base>.lock" beside the dataset into *FD.  Its holder
** removes it when done, so a lock won on a file that is no longer the one
** at that name is tried again.
*/
static int output_lock(tr_output *o, tr_buf *path, int *fd, tr_error *e)
{
    if (output_sibling(path, o->path, "lock")) return output_fail(o, tr_error_nomem(&o->err), e);
    for (;;) {
        *fd = open(path->p, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (*fd < 0) return output_errno(o, errno, "cannot create the lock file", e);
        struct stat held, named;
        if (flock(*fd, LOCK_EX) != 0) {
            close(*fd);
            *fd = -1;
            return output_errno(o, errno, "cannot lock", e);
        }
        if (fstat(*fd, &held) == 0 && stat(path->p, &named) == 0 && held.st_ino == named.st_ino &&
            held.st_dev == named.st_dev)
            return TR_OK;
        close(*fd);
    }
}

static void output_unlock(const tr_buf *path, int fd)
{
    if (fd < 0) return;
    unlink(path->p);
    close(fd);
}

/*
** Hard-links into directory DST what directory SRC (NAME, for messages)
** holds and DST does not: what the run wrote wins, the rest is carried over.
*/
static int output_carry(tr_output *o, int src, int dst, const char *name, int depth, tr_error *e)
{
    tr_loc loc = {name, 0, 0, 0};
    if (depth > OUTPUT_TREE_DEPTH)
        return output_fail(
            o,
            tr_errorf(&o->err, TR_E_IO, &loc, "more than %d directories deep", OUTPUT_TREE_DEPTH),
            e);
    int sfd = dup(src);
    DIR *d = sfd >= 0 ? fdopendir(sfd) : NULL;
    if (!d) {
        if (sfd >= 0) close(sfd);
        return output_errno(o, errno, "cannot read the directory", e);
    }
    int rc = TR_OK;
    struct dirent *de;
    while (!rc && (de = readdir(d)) != NULL) {
        const char *s = de->d_name;
        struct stat st, dt;
        if ((s[0] == '.' && (!s[1] || (s[1] == '.' && !s[2]))) ||
            fstatat(src, s, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        int have = fstatat(dst, s, &dt, AT_SYMLINK_NOFOLLOW) == 0;
        if (!S_ISDIR(st.st_mode)) {
            if (!have && linkat(src, s, dst, s, 0) != 0)
                rc = output_fail(o, tr_error_errno(&o->err, errno, &loc, "cannot link %s", s), e);
            continue;
        }
        if (have && !S_ISDIR(dt.st_mode)) continue;
        if (!have && mkdirat(dst, s, st.st_mode & 07777) != 0) {
            rc = output_fail(o, tr_error_errno(&o->err, errno, &loc, "cannot create %s", s), e);
            continue;
        }
        int a = openat(src, s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC),
            b = openat(dst, s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (a < 0 || b < 0)
            rc = output_fail(o, tr_error_errno(&o->err, errno, &loc, "cannot open %s", s), e);
        else
            rc = output_carry(o, a, b, s, depth + 1, e);
        if (a >= 0) close(a);
        if (b >= 0) close(b);
    }
    closedir(d);
    return rc;
}

/*
** A file committed: fsync'ed, or, in a directory output's tree, only
** handed to writeback.  Each fsync of a tree's file waits for a journal
** commit (about 20 ms on a busy disk) in the thread that wrote it; the
** directory's commit syncs them all in one pass instead (output_sync_tree),
** when most of their data is written back and one journal commit covers all.
*/
static int output_sync_file(tr_output *o, tr_error *e)
{
    if (o->in_tree) {
#ifdef SYNC_FILE_RANGE_WRITE
        (void)sync_file_range(o->fd, 0, 0, SYNC_FILE_RANGE_WRITE); /* a hint, as in output_write */
#endif
        return TR_OK;
    }
    return fsync(o->fd) == 0 ? TR_OK : output_errno(o, errno, "cannot sync", e);
}

/* fsync of every file in directory NAME in DIRFD and below, before the tree is published. */
static int output_sync_tree(tr_output *o, int dirfd, const char *name, int depth, tr_error *e)
{
    tr_loc loc = {o->path, 0, 0, 0};
    if (depth > OUTPUT_TREE_DEPTH)
        return output_fail(
            o,
            tr_errorf(&o->err, TR_E_IO, &loc, "more than %d directories deep", OUTPUT_TREE_DEPTH),
            e);
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0) close(fd);
        return output_errno(o, errno, "cannot read the temporary directory", e);
    }
    int rc = TR_OK;
    struct dirent *de;
    while (!rc && (de = readdir(d)) != NULL) {
        const char *s = de->d_name;
        struct stat st;
        if ((s[0] == '.' && (!s[1] || (s[1] == '.' && !s[2]))) ||
            fstatat(fd, s, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            rc = output_sync_tree(o, fd, s, depth + 1, e);
            continue;
        }
        if (!S_ISREG(st.st_mode)) continue;
        int f = openat(fd, s, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (f < 0 || fsync(f) != 0)
            rc = output_fail(o, tr_error_errno(&o->err, errno, &loc, "cannot sync %s", s), e);
        if (f >= 0) close(f);
    }
    closedir(d);
    return rc;
}

/*
** Puts the new tree at the target's name in one step, o->tmp then naming
** the old tree (removed by output_free), or NULL when there was none.
** Where the file system cannot exchange (EINVAL: NFS and others), the old
** tree is first renamed aside as ".<base>.old-…"; if the run dies between
** the two renames, output_sweep puts it back.
*/
static int output_swap(tr_output *o, tr_error *e)
{
    if (rename(o->tmp, o->path) == 0) {
        output_unregister(o);
        tr_free(o->tmp);
        o->tmp = NULL;
        return TR_OK;
    }
    if (errno != ENOTEMPTY && errno != EEXIST)
        return output_errno(o, errno, "cannot rename the temporary directory to it", e);
    if (renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->path, RENAME_EXCHANGE) == 0) return TR_OK;
    if (errno != EINVAL && errno != ENOSYS)
        return output_errno(o, errno, "cannot exchange the temporary directory with it", e);
    char *old = output_temp_name(o, "old");
    if (!old) return output_fail(o, tr_error_nomem(&o->err), e);
    int rc = TR_OK;
    if (rename(o->path, old) != 0) {
        rc = output_errno(o, errno, "cannot move the old directory aside", e);
    } else if (rename(o->tmp, o->path) != 0) {
        rc = output_errno(o, errno, "cannot rename the temporary directory to it", e);
        rename(old, o->path);
    } else {
        /* Same length ("old" for "tmp"): the signal handler never sees a freed name. */
        memcpy(o->tmp, old, strlen(old));
    }
    tr_free(old);
    return rc;
}

/* Commit of a dataset: the target's other files carried into the new tree, which replaces it. */
static int output_publish(tr_output *o, tr_error *e)
{
    tr_buf lock;
    tr_buf_init(&lock, 0);
    int fd = -1, rc = output_lock(o, &lock, &fd, e);
    if (rc == TR_OK) {
        int src = open(o->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC),
            dst = open(o->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (src < 0 && errno != ENOENT)
            rc = output_errno(o, errno, "cannot open the directory", e);
        else if (dst < 0)
            rc = output_errno(o, errno, "cannot open the temporary directory", e);
        else if (src >= 0)
            rc = output_carry(o, src, dst, o->path, 0, e);
        if (src >= 0) close(src);
        if (dst >= 0) close(dst);
    }
    if (rc == TR_OK) rc = output_swap(o, e);
    output_unlock(&lock, fd);
    tr_buf_fini(&lock);
    return rc;
}

int tr_output_commit(tr_output *o, tr_error *e)
{
    int rc = o->failed;
    if (rc) {
        if (e) *e = o->err;
    } else {
        rc = output_flush(o, e);
    }
    if (rc == TR_OK && o->gz && archive_write_close(o->gz) != ARCHIVE_OK)
        rc = output_gz_error(o, e);
    if (rc == TR_OK && o->zc) rc = output_zstd(o, NULL, 0, ZSTD_e_end, e);
    if (rc == TR_OK && o->tmp)
        rc = o->is_dir ? output_sync_tree(o, AT_FDCWD, o->tmp, 0, e) : output_sync_file(o, e);
    if (!o->is_stdout && o->fd >= 0) {
        int closed = close(o->fd);
        o->fd = -1;
        if (rc == TR_OK && closed != 0) rc = output_errno(o, errno, "cannot close", e);
    }
    if (rc == TR_OK && o->is_dataset) {
        rc = output_publish(o, e);
    } else if (rc == TR_OK && o->tmp) {
        if (rename(o->tmp, o->path) != 0) {
            rc = output_errno(o, errno,
                              o->is_dir ? "cannot rename the temporary directory to it"
                                        : "cannot rename the temporary file over it",
                              e);
        } else {
            output_unregister(o);
            tr_free(o->tmp);
            o->tmp = NULL;
        }
    }
    output_free(o);
    return rc;
}

void tr_output_abort(tr_output *o)
{
    if (o) output_free(o);
}
