/*
** output.c: atomic, optionally compressed outputs.
**
** A file target is written to ".<name>.tmpXXXXXX" beside it and renamed over
** it by tr_output_commit (git's lockfile).  The temporary file is created with
** open(O_CREAT | O_EXCL, 0666) rather than mkstemp: mkstemp makes it 0600, and
** the only way to learn the umask for a fchmod is umask() itself, which
** changes the process-wide mask for a moment; with 0666 the kernel applies
** the umask.  Open temporary files are kept in a list that
** tr_output_cleanup_all walks from a signal handler.
**
** A directory target is built the same way: ".<name>.tmpXXXXXX" is made
** beside it and renamed to it on commit (rename replaces an empty directory,
** never a full one); abort and the signal handler remove the tree with
** openat/getdents64/unlinkat only.  A dataset directory (TR_DIR_ADD) is the
** target itself: what is added to it is atomic file by file.
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
#include <stdatomic.h>
#include <string.h>
#include <strings.h>
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
    char *tmp;  /* the temporary file or directory; NULL for stdout, a device, a dataset */
    int is_dir; /* a directory target: tmp (replace) or path (TR_DIR_ADD) is written into */
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

/* Create ".<base>.tmpXXXXXX" in the target's directory: a file, or a directory when o->is_dir. */
static int output_create_temp(tr_output *o, tr_error *e)
{
    static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    const char *slash = strrchr(o->path, '/');
    size_t dir_len = slash ? (size_t)(slash - o->path) + 1 : 0,
           base_len = strlen(o->path) - dir_len;
    size_t n = dir_len + 1 + base_len + 4 + 6;
    o->tmp = tr_malloc(n + 1);
    if (!o->tmp) return output_fail(o, tr_error_nomem(&o->err), e);
    memcpy(o->tmp, o->path, dir_len);
    o->tmp[dir_len] = '.';
    memcpy(o->tmp + dir_len + 1, o->path + dir_len, base_len);
    memcpy(o->tmp + dir_len + 1 + base_len, ".tmp", 4);
    o->tmp[n] = '\0';
    for (int t = 0; t < OUTPUT_TRIES; t++) {
        uint64_t r = output_random();
        for (size_t i = n - 6; i < n; i++, r /= sizeof chars - 1)
            o->tmp[i] = chars[r % (sizeof chars - 1)];
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

/* mkdir -p PATH (a copy is cut at each '/'). */
static int output_make_dirs(tr_output *o, tr_error *e)
{
    tr_buf b;
    tr_buf_init(&b, 0);
    if (tr_buf_adds(&b, o->path)) return output_fail(o, tr_error_nomem(&o->err), e);
    int rc = TR_OK;
    for (size_t i = 1; i <= b.len && !rc; i++) {
        if (b.p[i] != '/' && b.p[i] != '\0') continue;
        char c = b.p[i];
        b.p[i] = '\0';
        struct stat st;
        if (mkdir(b.p, 0777) != 0 && errno != EEXIST)
            rc = tr_error_errno(&o->err, errno, NULL, "%s: cannot create the directory", b.p);
        else if (stat(b.p, &st) != 0 || !S_ISDIR(st.st_mode))
            rc = tr_errorf(&o->err, TR_E_IO, NULL, "%s: not a directory", b.p);
        b.p[i] = c;
    }
    tr_buf_fini(&b);
    return rc ? output_fail(o, rc, e) : TR_OK;
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
    if (mode == TR_DIR_ADD) {
        rc = output_make_dirs(o, e);
    } else {
        rc = output_check_replace(o, e);
        if (rc == TR_OK) rc = output_create_temp(o, e);
    }
    if (rc != TR_OK) {
        output_free(o);
        return rc;
    }
    *out = o;
    return TR_OK;
}

const char *tr_output_dir(const tr_output *o)
{
    if (!o->is_dir) return NULL;
    return o->tmp ? o->tmp : o->path;
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
    if (rc == TR_OK && o->tmp && !o->is_dir && fsync(o->fd) != 0)
        rc = output_errno(o, errno, "cannot sync", e);
    if (!o->is_stdout && o->fd >= 0) {
        int closed = close(o->fd);
        o->fd = -1;
        if (rc == TR_OK && closed != 0) rc = output_errno(o, errno, "cannot close", e);
    }
    if (rc == TR_OK && o->tmp) {
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
