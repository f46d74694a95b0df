/*
** source.c: what the user named -- a file, "-", bytes in memory, an archive
** or a directory -- and the streams it yields.
**
** Every file goes through libarchive, which decompresses by content and tells
** a tar or zip archive (one stream per regular member, "file:member") from
** anything else (the "raw" format: one stream).  Only tar, zip and raw are
** enabled: with every format on, mtree and others claim plain text.  A
** directory is walked once up front; each of its files is opened the same
** way, so a compressed file in it is decompressed and an archive in it yields
** its members as "dir/file:member".  Once libarchive has told that a file
** named by path is plain, its stream reads the file itself (tr_input_direct),
** without libarchive's copy.
**
** Each archive member goes through a second libarchive reader (the same
** filters, formats raw and empty) fed from the first one's data blocks, so a
** .gz or .zst inside a tar or zip is decompressed by content as it streams; a
** plain member passes through without a copy.  That reader knows no archive
** formats: an archive inside an archive (a tar in a tar, a tar.gz in a zip) is
** not unpacked but read as one stream of (decompressed) archive bytes.
*/
#include "input_impl.h"
#include "tr_mem.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SOURCE_BLOCK (256 * 1024) /* what libarchive reads from a file at once */
#define HOLE_BLOCK   (16 * 1024)  /* zeros handed out at once for a sparse member's hole */

static const char hole_zeros[HOLE_BLOCK];

typedef struct source_file {
    const char *rel; /* path relative to the directory */
    uint64_t size;
} source_file;

struct tr_source {
    char *path;
    int kind;
    int flat;        /* files are one stream each: no archive formats */
    const void *mem; /* a memory source, else NULL */
    size_t mem_n;

    /* a directory: its files, sorted, and the next one to open */
    tr_arena names;
    tr_vec files;    /* source_file */
    size_t root_len; /* path without trailing slashes: what names start with */
    const char **listing;
    size_t next_file;

    /* the file being read */
    struct archive *a; /* NULL between files */
    int fd, fd_owned;
    int raw;     /* one stream: the decompressed file */
    int empty;   /* and it has no bytes */
    int pending; /* a header was read and its stream not handed out yet */
    int at_end;  /* an archive's last header was read */
    struct archive_entry *entry;

    /* the member being read (archives only): what member_read hands inner */
    struct archive *inner; /* decompresses the member; NULL when none is open */
    uint64_t member_off;   /* member bytes handed to inner so far */
    uint64_t hole;         /* zeros to hand out before blk (a sparse member) */
    const void *blk;       /* a block of the member not handed out yet */
    size_t blk_n;
    int member_eof; /* the outer reader has no more data for the member */

    tr_buf base;      /* the file's name; an archive's streams are "base:member" */
    size_t member_no; /* an archive's streams yielded so far */
    tr_buf name;

    tr_input *in;
    tr_progress_state prog;
    uint64_t file_size; /* raw size of the current file of a directory */
};

static tr_source *source_new(const char *path, tr_error *e)
{
    tr_source *s = tr_calloc(1, sizeof *s);
    if (!s) {
        tr_error_nomem(e);
        return NULL;
    }
    s->fd = -1;
    tr_arena_init(&s->names);
    tr_vec_init(&s->files, sizeof(source_file));
    tr_buf_init(&s->base, 0);
    tr_buf_init(&s->name, 0);
    size_t n = strlen(path);
    s->path = tr_malloc(n + 1);
    s->in = tr_input_new(&s->prog);
    if (!s->path || !s->in) {
        tr_source_close(s);
        tr_error_nomem(e);
        return NULL;
    }
    memcpy(s->path, path, n + 1);
    return s;
}

static void source_close_member(tr_source *s)
{
    /* Freeing inner reads nothing more: the outer reader skips the rest itself. */
    if (s->inner) archive_read_free(s->inner);
    s->inner = NULL;
}

static void source_close_file(tr_source *s)
{
    source_close_member(s);
    if (s->a) archive_read_free(s->a);
    s->a = NULL;
    s->prog.file = NULL;
    if (s->fd_owned) close(s->fd);
    s->fd = -1;
    s->fd_owned = 0;
    s->pending = 0;
    s->prog.base += s->file_size;
    s->file_size = 0;
}

/*
** Enable the decompressors and the formats raw and empty on A, plus tar and
** zip when ARCHIVES; ARCHIVE_FATAL when that fails.  Named filters rather
** than archive_read_support_filter_all: that adds uudecode, which claims text
** starting with "begin ", and filters that run external programs (lrzip,
** lzop, grzip) on hostile input.
*/
static int source_support(struct archive *a, int archives)
{
    if (archive_read_support_filter_gzip(a) < ARCHIVE_WARN ||
        archive_read_support_filter_bzip2(a) < ARCHIVE_WARN ||
        archive_read_support_filter_xz(a) < ARCHIVE_WARN ||
        archive_read_support_filter_zstd(a) < ARCHIVE_WARN ||
        (archives && (archive_read_support_format_tar(a) != ARCHIVE_OK ||
                      archive_read_support_format_zip_streamable(a) != ARCHIVE_OK)) ||
        archive_read_support_format_empty(a) != ARCHIVE_OK ||
        archive_read_support_format_raw(a) != ARCHIVE_OK)
        return ARCHIVE_FATAL;
    return ARCHIVE_OK;
}

/*
** Start reading the file at fd (or the memory source) named NAME: set up
** libarchive and read the first header, which tells a single stream from an
** archive.
*/
static int source_open_file(tr_source *s, const char *name, tr_error *e)
{
    tr_loc loc = {name, 0, 0, 1};
    tr_buf_reset(&s->base);
    if (tr_buf_adds(&s->base, name) != TR_OK) return tr_error_nomem(e);
    s->member_no = 0;
    struct archive *a = archive_read_new();
    if (!a) return tr_error_nomem(e);
    int r = source_support(a, !s->flat);
    if (r == ARCHIVE_OK)
        r = s->mem ? archive_read_open_memory(a, s->mem, s->mem_n)
                   : archive_read_open_fd(a, s->fd, SOURCE_BLOCK);
    if (r >= ARCHIVE_WARN) r = archive_read_next_header(a, &s->entry);
    if (r < ARCHIVE_WARN) {
        int rc = tr_archive_error(e, a, &loc);
        archive_read_free(a);
        return rc;
    }
    int fmt = archive_format(a) & ARCHIVE_FORMAT_BASE_MASK;
    s->a = a;
    s->prog.file = a;
    s->raw = fmt != ARCHIVE_FORMAT_TAR && fmt != ARCHIVE_FORMAT_ZIP;
    /* Empty input (format "empty") is one stream without bytes; an empty tar has none. */
    s->empty = r == ARCHIVE_EOF;
    s->at_end = r == ARCHIVE_EOF;
    s->pending = s->raw || r != ARCHIVE_EOF;
    return TR_OK;
}

int tr_source_open_memory(tr_source **out, const char *name, const void *p, size_t n, tr_error *e)
{
    *out = NULL;
    tr_source *s = source_new(name, e);
    if (!s) return TR_FATAL;
    s->mem = n ? p : "";
    s->mem_n = n;
    s->prog.total = n;
    int rc = source_open_file(s, name, e);
    if (rc != TR_OK) {
        tr_source_close(s);
        return rc;
    }
    s->kind = s->raw ? TR_SOURCE_STREAM : TR_SOURCE_ARCHIVE;
    *out = s;
    return TR_OK;
}

static int source_cmp(const void *a, const void *b)
{
    return strcmp(((const source_file *)a)->rel, ((const source_file *)b)->rel);
}

static int source_add_file(tr_source *s, const char *rel, uint64_t size, tr_error *e)
{
    source_file *f = tr_vec_push(&s->files);
    if (!f || !(f->rel = tr_arena_strndup(&s->names, rel, strlen(rel)))) return tr_error_nomem(e);
    f->size = size;
    return TR_OK;
}

/*
** Collect the regular files under PATH (a directory), whose relative part
** starts at ROOT_LEN + 1.  Names starting with "." are skipped; a symbolic
** link counts when it points to a regular file, and is never followed into a
** directory (no cycles).
*/
static int source_walk(tr_source *s, tr_buf *path, size_t root_len, tr_error *e)
{
    DIR *d = opendir(path->len ? path->p : "/");
    if (!d) {
        tr_loc loc = {path->p, 0, 0, 0};
        return tr_error_errno(e, errno, &loc, "cannot open directory");
    }
    int rc = TR_OK;
    size_t len = path->len;
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(d);
        if (!de) {
            if (errno) {
                tr_loc loc = {path->p, 0, 0, 0};
                rc = tr_error_errno(e, errno, &loc, "cannot read directory");
            }
            break;
        }
        if (de->d_name[0] == '.') continue;
        if (tr_buf_addc(path, '/') != TR_OK || tr_buf_adds(path, de->d_name) != TR_OK) {
            rc = tr_error_nomem(e);
            break;
        }
        struct stat st;
        int ok = fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0, link = 0;
        if (!ok && errno != ENOENT) {
            tr_loc loc = {path->p, 0, 0, 0};
            rc = tr_error_errno(e, errno, &loc, "cannot stat");
            break;
        }
        /* A file removed meanwhile, a dangling link or a link loop is skipped. */
        if (ok && S_ISLNK(st.st_mode)) {
            link = 1;
            ok = stat(path->p, &st) == 0;
        }
        if (ok && S_ISDIR(st.st_mode) && !link)
            rc = source_walk(s, path, root_len, e);
        else if (ok && S_ISREG(st.st_mode))
            rc = source_add_file(s, path->p + root_len + 1, (uint64_t)st.st_size, e);
        path->len = len;
        path->p[len] = '\0';
        if (rc != TR_OK) break;
    }
    closedir(d);
    return rc;
}

static int source_open_dir(tr_source *s, tr_error *e)
{
    tr_buf path;
    tr_buf_init(&path, 0);
    /* Trailing slashes go, so that names read "dir/file" ("/" becomes ""). */
    size_t n = strlen(s->path);
    while (n && s->path[n - 1] == '/') n--;
    int rc =
        tr_buf_add(&path, s->path, n) == TR_OK ? source_walk(s, &path, n, e) : tr_error_nomem(e);
    tr_buf_fini(&path);
    if (rc != TR_OK) return rc;
    s->root_len = n;

    tr_qsort(s->files.data, s->files.len, sizeof(source_file), source_cmp);
    s->listing = tr_malloc((s->files.len ? s->files.len : 1) * sizeof *s->listing);
    if (!s->listing) return tr_error_nomem(e);
    for (size_t i = 0; i < s->files.len; i++) {
        const source_file *f = &TR_VEC_AT(&s->files, source_file, i);
        s->listing[i] = f->rel;
        s->prog.total += f->size;
    }
    return TR_OK;
}

static int source_open(tr_source **out, const char *path, int flat, tr_error *e)
{
    *out = NULL;
    tr_source *s = source_new(path, e);
    if (!s) return TR_FATAL;
    s->flat = flat;
    tr_loc loc = {path, 0, 0, 0};
    int rc = TR_OK;
    struct stat st;
    if (strcmp(path, "-") == 0) {
        s->fd = 0;
    } else if ((s->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        rc = tr_error_errno(e, errno, &loc, "cannot open");
    } else {
        s->fd_owned = 1;
    }
    if (rc == TR_OK && fstat(s->fd, &st) != 0) rc = tr_error_errno(e, errno, &loc, "cannot stat");
    if (rc == TR_OK && S_ISDIR(st.st_mode)) {
        s->kind = TR_SOURCE_DIR;
        close(s->fd);
        s->fd = -1;
        s->fd_owned = 0;
        rc = source_open_dir(s, e);
    } else if (rc == TR_OK) {
        if (S_ISREG(st.st_mode)) s->prog.total = (uint64_t)st.st_size;
        rc = source_open_file(s, path, e);
        s->kind = s->raw ? TR_SOURCE_STREAM : TR_SOURCE_ARCHIVE;
    }
    if (rc != TR_OK) {
        tr_source_close(s);
        return rc;
    }
    *out = s;
    return TR_OK;
}

int tr_source_open(tr_source **out, const char *path, tr_error *e)
{
    return source_open(out, path, 0, e);
}

int tr_source_open_flat(tr_source **out, const char *path, tr_error *e)
{
    return source_open(out, path, 1, e);
}

int tr_source_kind(const tr_source *s)
{
    return s->kind;
}

const char *tr_source_path(const tr_source *s)
{
    return s->path;
}

const char *const *tr_source_listing(const tr_source *s, size_t *n)
{
    *n = s->kind == TR_SOURCE_DIR ? s->files.len : 0;
    return s->kind == TR_SOURCE_DIR ? s->listing : NULL;
}

uint64_t tr_source_file_size(const tr_source *s, size_t i)
{
    return TR_VEC_AT(&s->files, source_file, i).size;
}

uint64_t tr_source_stream_size(const tr_source *s)
{
    if (!s->a) return 0;
    if (s->raw) return s->kind == TR_SOURCE_DIR ? s->file_size : s->prog.total;
    la_int64_t n = archive_entry_size_is_set(s->entry) ? archive_entry_size(s->entry) : 0;
    return n > 0 ? (uint64_t)n : 0;
}

void tr_source_set_progress(tr_source *s, tr_progress_fn fn, void *user)
{
    s->prog.fn = fn;
    s->prog.user = user;
}

/* Open the directory's next file. */
static int source_open_next(tr_source *s, tr_error *e)
{
    const source_file *f = &TR_VEC_AT(&s->files, source_file, s->next_file);
    s->next_file++;
    tr_buf_reset(&s->name);
    if (tr_buf_add(&s->name, s->path, s->root_len) != TR_OK ||
        tr_buf_addc(&s->name, '/') != TR_OK || tr_buf_adds(&s->name, f->rel) != TR_OK)
        return tr_error_nomem(e);
    s->fd = open(s->name.p, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0) {
        tr_loc loc = {s->name.p, 0, 0, 0};
        return tr_error_errno(e, errno, &loc, "cannot open");
    }
    s->fd_owned = 1;
    s->file_size = f->size;
    int rc = source_open_file(s, s->name.p, e);
    if (rc != TR_OK) source_close_file(s);
    return rc;
}

/* Directories, links and a tar's hard links (no data of their own) yield no stream. */
static int source_is_file(struct archive_entry *entry)
{
    return archive_entry_filetype(entry) == AE_IFREG && !archive_entry_hardlink(entry);
}

/*
** The read callback of inner: the member's next bytes as the outer reader
** has them (no copy), zeros for the holes of a sparse member, 0 at its end.
*/
static la_ssize_t member_read(struct archive *inner, void *user, const void **buf)
{
    tr_source *s = user;
    for (;;) {
        if (s->hole) {
            size_t k = s->hole < HOLE_BLOCK ? (size_t)s->hole : HOLE_BLOCK;
            s->hole -= k;
            s->member_off += k;
            *buf = hole_zeros;
            return (la_ssize_t)k;
        }
        if (s->blk_n) {
            size_t k = s->blk_n;
            *buf = s->blk;
            s->blk_n = 0;
            s->member_off += k;
            return (la_ssize_t)k;
        }
        if (s->member_eof) return 0;
        size_t n;
        la_int64_t at;
        int r = archive_read_data_block(s->a, &s->blk, &n, &at);
        if (r < ARCHIVE_WARN) {
            /* Inner reports the outer reader's error, at the member's offset. */
            const char *msg = archive_error_string(s->a);
            archive_set_error(inner, archive_errno(s->a), "%s",
                              msg ? msg : "unknown libarchive error");
            return ARCHIVE_FATAL;
        }
        /* A block's offset past what was handed out is a hole; at the end, a trailing one. */
        if (at > 0 && (uint64_t)at > s->member_off) s->hole = (uint64_t)at - s->member_off;
        s->member_eof = r == ARCHIVE_EOF;
        s->blk_n = s->member_eof ? 0 : n;
    }
}

/*
** Open inner on the outer reader's current member (named s->name) and read
** its header: *OUT is the reader of its decompressed bytes, or NULL when it
** has none.  A member that fails in its first block fails here, at byte 0.
*/
static int source_open_member(tr_source *s, struct archive **out, tr_error *e)
{
    tr_loc loc = {s->name.p, 0, 0, 1};
    *out = NULL;
    s->member_off = s->hole = 0;
    s->blk = NULL;
    s->blk_n = 0;
    s->member_eof = 0;
    if (!(s->inner = archive_read_new())) return tr_error_nomem(e);
    struct archive_entry *entry;
    int r = source_support(s->inner, 0);
    if (r == ARCHIVE_OK) r = archive_read_open(s->inner, s, NULL, member_read, NULL);
    if (r >= ARCHIVE_WARN) r = archive_read_next_header(s->inner, &entry);
    if (r < ARCHIVE_WARN || r == ARCHIVE_EOF) {
        int rc = r == ARCHIVE_EOF ? TR_OK : tr_archive_error(e, s->inner, &loc);
        source_close_member(s);
        return rc;
    }
    *out = s->inner;
    return TR_OK;
}

/* Hand out the pending stream. */
static int source_yield(tr_source *s, tr_input **in, tr_error *e)
{
    int rc;
    if (s->raw) {
        rc = tr_input_reset(s->in, s->empty ? NULL : s->a, s->base.p, e);
    } else {
        const char *member = archive_entry_pathname(s->entry);
        tr_buf_reset(&s->name);
        if (tr_buf_adds(&s->name, s->base.p) != TR_OK || tr_buf_addc(&s->name, ':') != TR_OK ||
            tr_buf_adds(&s->name, member ? member : "?") != TR_OK)
            return tr_error_nomem(e);
        struct archive *inner;
        rc = source_open_member(s, &inner, e);
        if (rc == TR_OK) rc = tr_input_reset(s->in, inner, s->name.p, e);
        s->member_no++;
    }
    /* What is not decompressed is as long as what is stored. */
    struct archive *a = s->raw ? s->a : s->inner;
    if (rc == TR_OK && a && archive_filter_code(a, 0) == ARCHIVE_FILTER_NONE) {
        tr_input_set_size(s->in, tr_source_stream_size(s));
        /* A file named by path (stdin may be a pipe, or not start at byte 0) skips libarchive. */
        if (s->raw && !s->empty && s->fd_owned) (void)tr_input_direct(s->in, s->fd);
    }
    if (rc == TR_OK) *in = s->in;
    return rc;
}

int tr_source_next(tr_source *s, tr_input **in, tr_error *e)
{
    *in = NULL;
    source_close_member(s);
    for (;;) {
        if (s->pending) {
            s->pending = 0;
            if (s->raw || source_is_file(s->entry)) return source_yield(s, in, e);
            continue;
        }
        if (s->a && !s->raw && !s->at_end) {
            int r = archive_read_next_header(s->a, &s->entry);
            if (r == ARCHIVE_EOF) {
                s->at_end = 1;
            } else if (r < ARCHIVE_WARN) {
                tr_loc loc = {s->base.p, 0, 0, (uint64_t)archive_filter_bytes(s->a, 0) + 1};
                int rc = tr_archive_error(e, s->a, &loc);
                source_close_file(s);
                return rc;
            } else {
                s->pending = 1;
            }
            continue;
        }
        if (s->a) source_close_file(s);
        if (s->kind != TR_SOURCE_DIR || s->next_file == s->files.len) return TR_END;
        int rc = source_open_next(s, e);
        if (rc != TR_OK) return rc;
    }
}

int64_t tr_source_member(const tr_source *s, const char **file)
{
    *file = s->base.p;
    return s->a && !s->raw ? (int64_t)s->member_no - 1 : -1;
}

void tr_source_close(tr_source *s)
{
    if (!s) return;
    source_close_file(s);
    tr_input_free(s->in);
    tr_free(s->listing);
    tr_vec_fini(&s->files);
    tr_arena_fini(&s->names);
    tr_buf_fini(&s->base);
    tr_buf_fini(&s->name);
    tr_free(s->path);
    tr_free(s);
}
