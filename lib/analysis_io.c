/*
** analysis_io.c: per-rank I/O with the conventions of Darshan's job summary.
**
** An I/O slice is one whose name is a POSIX, stdio, MPI-IO or HDF5 function
** (tr_io_kind_of).  Layers nest (an MPI-IO call over the POSIX calls it
** makes), so each figure says which calls it counts:
**   ranks, total  the outermost I/O calls: bytes are not counted twice;
**   layers        every call of the layer (the slice's category);
**   files         the innermost I/O calls (those with no I/O call inside),
**                 where offsets are real: what Darshan's POSIX module sees.
** Paths come from a "path" arg (or "pathname", "filename", "file"); an MPI
** file handle ("fh") is followed back to the MPI_File_open that made it.
*/
#include "analysis_impl.h"

#include <stdlib.h>
#include <string.h>

/* ---- function names ---- */

typedef struct io_name {
    const char *name;
    int kind;
} io_name;

/* POSIX and stdio functions, sorted by name for bsearch. */
static const io_name io_names[] = {
    {"__fxstat", TR_IO_STAT},     {"__fxstat64", TR_IO_STAT},   {"__fxstatat", TR_IO_STAT},
    {"__fxstatat64", TR_IO_STAT}, {"__lxstat", TR_IO_STAT},     {"__lxstat64", TR_IO_STAT},
    {"__open_2", TR_IO_OPEN},     {"__xstat", TR_IO_STAT},      {"__xstat64", TR_IO_STAT},
    {"access", TR_IO_STAT},       {"aio_read", TR_IO_READ},     {"aio_read64", TR_IO_READ},
    {"aio_write", TR_IO_WRITE},   {"aio_write64", TR_IO_WRITE}, {"chdir", TR_IO_META},
    {"chmod", TR_IO_META},        {"chown", TR_IO_META},        {"close", TR_IO_META},
    {"closedir", TR_IO_META},     {"creat", TR_IO_OPEN},        {"creat64", TR_IO_OPEN},
    {"dup", TR_IO_META},          {"dup2", TR_IO_META},         {"dup3", TR_IO_META},
    {"faccessat", TR_IO_STAT},    {"fchmod", TR_IO_META},       {"fchown", TR_IO_META},
    {"fclose", TR_IO_META},       {"fcntl", TR_IO_META},        {"fdatasync", TR_IO_SYNC},
    {"fdopen", TR_IO_OPEN},       {"fflush", TR_IO_SYNC},       {"fgetc", TR_IO_READ},
    {"fgets", TR_IO_READ},        {"fileno", TR_IO_META},       {"fopen", TR_IO_OPEN},
    {"fopen64", TR_IO_OPEN},      {"fprintf", TR_IO_WRITE},     {"fputc", TR_IO_WRITE},
    {"fputs", TR_IO_WRITE},       {"fread", TR_IO_READ},        {"freopen", TR_IO_OPEN},
    {"freopen64", TR_IO_OPEN},    {"fscanf", TR_IO_READ},       {"fseek", TR_IO_SEEK},
    {"fseeko", TR_IO_SEEK},       {"fseeko64", TR_IO_SEEK},     {"fsetpos", TR_IO_SEEK},
    {"fstat", TR_IO_STAT},        {"fstat64", TR_IO_STAT},      {"fstatat", TR_IO_STAT},
    {"fstatat64", TR_IO_STAT},    {"fstatfs", TR_IO_STAT},      {"fstatfs64", TR_IO_STAT},
    {"fsync", TR_IO_SYNC},        {"ftell", TR_IO_SEEK},        {"ftello", TR_IO_SEEK},
    {"ftruncate", TR_IO_META},    {"ftruncate64", TR_IO_META},  {"fwrite", TR_IO_WRITE},
    {"getc", TR_IO_READ},         {"getcwd", TR_IO_META},       {"lchown", TR_IO_META},
    {"link", TR_IO_META},         {"linkat", TR_IO_META},       {"lseek", TR_IO_SEEK},
    {"lseek64", TR_IO_SEEK},      {"lstat", TR_IO_STAT},        {"lstat64", TR_IO_STAT},
    {"mkdir", TR_IO_META},        {"mkdirat", TR_IO_META},      {"mknod", TR_IO_META},
    {"mmap", TR_IO_META},         {"mmap64", TR_IO_META},       {"msync", TR_IO_SYNC},
    {"munmap", TR_IO_META},       {"open", TR_IO_OPEN},         {"open64", TR_IO_OPEN},
    {"openat", TR_IO_OPEN},       {"openat64", TR_IO_OPEN},     {"opendir", TR_IO_OPEN},
    {"pread", TR_IO_READ},        {"pread64", TR_IO_READ},      {"preadv", TR_IO_READ},
    {"preadv2", TR_IO_READ},      {"preadv64", TR_IO_READ},     {"putc", TR_IO_WRITE},
    {"pwrite", TR_IO_WRITE},      {"pwrite64", TR_IO_WRITE},    {"pwritev", TR_IO_WRITE},
    {"pwritev2", TR_IO_WRITE},    {"pwritev64", TR_IO_WRITE},   {"read", TR_IO_READ},
    {"readdir", TR_IO_META},      {"readlink", TR_IO_META},     {"readlinkat", TR_IO_META},
    {"readv", TR_IO_READ},        {"remove", TR_IO_META},       {"rename", TR_IO_META},
    {"renameat", TR_IO_META},     {"rewind", TR_IO_SEEK},       {"rmdir", TR_IO_META},
    {"stat", TR_IO_STAT},         {"stat64", TR_IO_STAT},       {"statfs", TR_IO_STAT},
    {"statfs64", TR_IO_STAT},     {"statx", TR_IO_STAT},        {"symlink", TR_IO_META},
    {"symlinkat", TR_IO_META},    {"sync", TR_IO_SYNC},         {"syncfs", TR_IO_SYNC},
    {"tmpfile", TR_IO_OPEN},      {"truncate", TR_IO_META},     {"truncate64", TR_IO_META},
    {"umask", TR_IO_META},        {"unlink", TR_IO_META},       {"unlinkat", TR_IO_META},
    {"utime", TR_IO_META},        {"utimes", TR_IO_META},       {"vfprintf", TR_IO_WRITE},
    {"vfscanf", TR_IO_READ},      {"write", TR_IO_WRITE},       {"writev", TR_IO_WRITE},
};

static int io_name_cmp(const void *key, const void *elem)
{
    return strcmp(key, ((const io_name *)elem)->name);
}

static int io_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

int tr_io_kind_of(const char *name)
{
    if (io_prefix(name, "MPI_File_")) {
        const char *f = name + 9;
        if (io_prefix(f, "read") || io_prefix(f, "iread")) return TR_IO_READ;
        if (io_prefix(f, "write") || io_prefix(f, "iwrite")) return TR_IO_WRITE;
        if (io_prefix(f, "open")) return TR_IO_OPEN;
        if (io_prefix(f, "seek")) return TR_IO_SEEK;
        if (io_prefix(f, "sync")) return TR_IO_SYNC;
        if (io_prefix(f, "get_size") || io_prefix(f, "get_position")) return TR_IO_STAT;
        return TR_IO_META;
    }
    if (io_prefix(name, "H5")) {
        static const io_name h5[] = {
            {"H5Dclose", TR_IO_META},  {"H5Dcreate", TR_IO_OPEN}, {"H5Dopen", TR_IO_OPEN},
            {"H5Dread", TR_IO_READ},   {"H5Dwrite", TR_IO_WRITE}, {"H5Fclose", TR_IO_META},
            {"H5Fcreate", TR_IO_OPEN}, {"H5Fflush", TR_IO_SYNC},  {"H5Fopen", TR_IO_OPEN}};
        /* H5Dcreate2, H5Dopen1, ...: the version digit does not change the kind. */
        for (size_t i = 0; i < sizeof h5 / sizeof *h5; i++) {
            size_t n = strlen(h5[i].name);
            if (strncmp(name, h5[i].name, n) == 0 &&
                (name[n] == '\0' || (name[n] >= '0' && name[n] <= '9')))
                return h5[i].kind;
        }
        return -1;
    }
    const io_name *hit =
        bsearch(name, io_names, sizeof io_names / sizeof *io_names, sizeof *io_names, io_name_cmp);
    return hit ? hit->kind : -1;
}

const char *tr_io_kind_name(int kind)
{
    static const char *const names[TR_IO_KIND_COUNT] = {"read", "write", "open",    "stat",
                                                        "seek", "sync",  "metadata"};
    return kind >= 0 && kind < TR_IO_KIND_COUNT ? names[kind] : "?";
}

int tr_io_bucket_of(int64_t size)
{
    static const int64_t upper[TR_IO_BUCKETS - 1] = {
        100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600, 1073741824};
    for (int b = 0; b < TR_IO_BUCKETS - 1; b++)
        if (size <= upper[b]) return b;
    return TR_IO_BUCKETS - 1;
}

const char *tr_io_bucket_name(int bucket)
{
    static const char *const names[TR_IO_BUCKETS] = {"0-100",   "100-1K", "1K-10K", "10K-100K",
                                                     "100K-1M", "1M-4M",  "4M-10M", "10M-100M",
                                                     "100M-1G", "1G+"};
    return bucket >= 0 && bucket < TR_IO_BUCKETS ? names[bucket] : "?";
}

/* Sizes of the named MPI datatypes Recorder prints. */
static const struct {
    const char *name;
    int size;
} io_mpi_types[] = {
    {"MPI_BYTE", 1},          {"MPI_CHAR", 1},          {"MPI_SIGNED_CHAR", 1},
    {"MPI_UNSIGNED_CHAR", 1}, {"MPI_INT8_T", 1},        {"MPI_UINT8_T", 1},
    {"MPI_C_BOOL", 1},        {"MPI_SHORT", 2},         {"MPI_UNSIGNED_SHORT", 2},
    {"MPI_INT16_T", 2},       {"MPI_UINT16_T", 2},      {"MPI_INT", 4},
    {"MPI_UNSIGNED", 4},      {"MPI_FLOAT", 4},         {"MPI_INT32_T", 4},
    {"MPI_UINT32_T", 4},      {"MPI_LONG", 8},          {"MPI_UNSIGNED_LONG", 8},
    {"MPI_LONG_LONG", 8},     {"MPI_LONG_LONG_INT", 8}, {"MPI_UNSIGNED_LONG_LONG", 8},
    {"MPI_DOUBLE", 8},        {"MPI_INT64_T", 8},       {"MPI_UINT64_T", 8},
    {"MPI_OFFSET", 8},        {"MPI_LONG_DOUBLE", 16},
};

int tr_io_mpi_type_size(const char *name, size_t n)
{
    for (size_t i = 0; i < sizeof io_mpi_types / sizeof *io_mpi_types; i++)
        if (strlen(io_mpi_types[i].name) == n && memcmp(io_mpi_types[i].name, name, n) == 0)
            return io_mpi_types[i].size;
    return 0;
}

/* ---- args ---- */

static int io_arg(const tr_trace *t, uint32_t set, const char *const *keys, tr_arg *out)
{
    for (size_t i = 0; keys[i]; i++)
        if (tr_args_find(t, set, keys[i], out)) return 1;
    return 0;
}

/* An integer arg (ints, or decimal text as Recorder stores arguments). */
static int io_arg_int(const tr_trace *t, uint32_t set, const char *const *keys, int64_t *v)
{
    tr_arg a;
    if (!set || !io_arg(t, set, keys, &a)) return 0;
    switch (a.type) {
    case TR_ARG_INT:
    case TR_ARG_BOOL:
        *v = a.v.i;
        return 1;
    case TR_ARG_UINT:
        *v = a.v.u > INT64_MAX ? INT64_MAX : (int64_t)a.v.u;
        return 1;
    case TR_ARG_REAL:
        *v = (int64_t)a.v.d;
        return 1;
    default: {
        const char *s = tr_str_get(t, a.v.s, NULL);
        char *end;
        long long x = strtoll(s, &end, 10);
        if (end == s || *end) return 0;
        *v = x;
        return 1;
    }
    }
}

/* A string arg as a string id (0 when absent or not text). */
static tr_str io_arg_str(const tr_trace *t, uint32_t set, const char *const *keys)
{
    tr_arg a;
    if (!set || !io_arg(t, set, keys, &a) || a.type != TR_ARG_STR) return 0;
    return a.v.s;
}

static const char *const k_path[] = {"path", "pathname", "filename", "file", NULL};
static const char *const k_offset[] = {"offset", NULL};
static const char *const k_whence[] = {"whence", NULL};
static const char *const k_fh[] = {"fh", NULL};
static const char *const k_ret[] = {"ret", NULL};
static const char *const k_disp[] = {"disp", NULL};
static const char *const k_etype[] = {"etype", NULL};
static const char *const k_filetype[] = {"filetype", NULL};

/* ---- the pass ---- */

/* The position state of one rank and file (Darshan's per-record runtime state). */
typedef struct io_pos {
    uint32_t unit, file;
    int64_t pos;                   /* current file position, -1 unknown */
    int64_t last_read, last_write; /* last byte touched, 0 at first as in Darshan */
} io_pos;

/* An MPI file handle's view: offsets of data calls are in etypes past the displacement. */
typedef struct io_view {
    int64_t disp, etype_size; /* etype_size 0: a view whose filetype has holes (not followed) */
} io_view;

typedef struct io_ctx {
    const tr_trace *t;
    tr_slices s;
    tr_io_stats *out;
    int8_t *kind_of;   /* by string id: kind, -1 not I/O, -2 not looked up */
    uint32_t *io_rows; /* slices that are I/O calls, in order */
    size_t n_io;
    uint32_t *parent_io; /* per I/O row (index into io_rows): nearest I/O ancestor's row */
    uint8_t *has_child;  /* per I/O row: an I/O call runs inside it */
    uint32_t *unit_of_process;
    tr_map units, layers, files, pos_map, fh_map, canon, views;
    tr_vec pos;  /* io_pos, by (unit, file) through pos_map */
    tr_vec view; /* io_view, by (unit, fh) through views */
    int64_t *run_first, *run_last;
    tr_vec *access; /* tr_io_access rows, when asked (tr_io_accesses) */
    tr_vec *calls;  /* tr_io_call rows, when asked (tr_io_calls) */
} io_ctx;

static int io_kind(io_ctx *c, tr_str name)
{
    if (c->kind_of[name] == -2)
        c->kind_of[name] = (int8_t)tr_io_kind_of(tr_str_get(c->t, name, NULL));
    return c->kind_of[name];
}

static void io_count(tr_io_counts *k, int kind, int64_t dur, int64_t bytes)
{
    k->ops[kind]++;
    k->time += dur;
    if (kind == TR_IO_READ) {
        k->read_time += dur;
        if (bytes >= 0) {
            k->bytes_read += bytes;
            k->hist_read[tr_io_bucket_of(bytes)]++;
        }
    } else if (kind == TR_IO_WRITE) {
        k->write_time += dur;
        if (bytes >= 0) {
            k->bytes_written += bytes;
            k->hist_write[tr_io_bucket_of(bytes)]++;
        }
    }
}

/*
** Whether Darshan leaves the call out: it returned an error (-1, a NULL
** stream: tracerecord's "ret" arg; an MPI error code), or it is a stdio read
** or write that moved no item (Darshan counts those only when fread/fwrite
** returns more than 0).  A trace without return values has no failures.
*/
static int io_failed(io_ctx *c, size_t row, int kind)
{
    int64_t ret;
    if (!io_arg_int(c->t, c->s.args[row], k_ret, &ret)) return 0;
    const char *fn = tr_str_get(c->t, c->s.name[row], NULL);
    if (strncmp(fn, "MPI_", 4) == 0) return ret != 0;
    if (ret < 0) return 1;
    return ret == 0 && (kind == TR_IO_READ || kind == TR_IO_WRITE) && fn[0] == 'f' &&
           (strcmp(fn, "fread") == 0 || strcmp(fn, "fwrite") == 0);
}

/* Units: ranks when the process has one, else processes. */
static int io_units(io_ctx *c)
{
    size_t np = tr_process_count(c->t);
    c->unit_of_process = tr_malloc((np ? np : 1) * sizeof *c->unit_of_process);
    if (!c->unit_of_process) return TR_FATAL;
    tr_vec rows;
    tr_vec_init(&rows, sizeof(tr_io_rank));
    for (size_t p = 0; p < np; p++) {
        const tr_process *pr = tr_process_get(c->t, (uint32_t)p);
        uint64_t key = pr->rank >= 0 ? (uint64_t)(uint32_t)pr->rank : (1ull << 32) | p;
        int is_new;
        uint32_t *slot = tr_map_slot(&c->units, key, &is_new);
        if (!slot) goto oom;
        if (is_new) {
            tr_io_rank *r = tr_vec_push(&rows);
            if (!r) goto oom;
            r->process = (uint32_t)p;
            r->rank = pr->rank;
            *slot = (uint32_t)(rows.len - 1);
        }
        c->unit_of_process[p] = *slot;
    }
    c->out->ranks = rows.data;
    c->out->n_ranks = rows.len;
    c->run_first = tr_malloc((rows.len ? rows.len : 1) * sizeof *c->run_first);
    c->run_last = tr_malloc((rows.len ? rows.len : 1) * sizeof *c->run_last);
    if (!c->run_first || !c->run_last) return TR_FATAL;
    for (size_t i = 0; i < rows.len; i++) c->run_first[i] = INT64_MAX, c->run_last[i] = INT64_MIN;
    return TR_OK;
oom:
    tr_vec_fini(&rows);
    return TR_FATAL;
}

static uint32_t io_unit(const io_ctx *c, size_t row)
{
    const tr_track *tk = tr_track_get(c->t, c->s.track[row]);
    return c->unit_of_process[tk->process];
}

/* Every path the I/O calls name, mapped to one spelling per file (tr_an_io_canon). */
static int io_canon(io_ctx *c)
{
    tr_vec ids;
    tr_vec_init(&ids, sizeof(tr_str));
    int rc = TR_OK;
    for (size_t k = 0; k < c->n_io && rc == TR_OK; k++) {
        tr_str p = io_arg_str(c->t, c->s.args[c->io_rows[k]], k_path);
        int is_new;
        uint32_t *slot = p ? tr_map_slot(&c->canon, p, &is_new) : NULL;
        if (p && !slot) rc = TR_FATAL;
        if (slot && is_new) {
            tr_str *id = tr_vec_push(&ids);
            if (!id) rc = TR_FATAL;
            if (id) *id = p;
        }
    }
    tr_str *canon = tr_malloc((ids.len ? ids.len : 1) * sizeof *canon);
    if (rc == TR_OK && canon && tr_an_io_canon(c->t, ids.data, ids.len, canon) == TR_OK) {
        for (size_t i = 0; i < ids.len; i++) {
            int is_new;
            *tr_map_slot(&c->canon, TR_VEC_AT(&ids, tr_str, i), &is_new) = canon[i];
        }
    } else {
        rc = TR_FATAL;
    }
    tr_free(canon);
    tr_vec_fini(&ids);
    return rc;
}

/* The I/O calls, each with its nearest I/O ancestor, and the run span of each unit. */
static int io_collect(io_ctx *c)
{
    size_t n_str = tr_str_count(c->t);
    c->kind_of = tr_malloc(n_str ? n_str : 1);
    uint32_t *io_index = tr_malloc((c->s.n ? c->s.n : 1) * sizeof *io_index);
    if (!c->kind_of || !io_index) {
        tr_free(io_index);
        return TR_FATAL;
    }
    memset(c->kind_of, -2, n_str ? n_str : 1);
    size_t n = 0;
    for (size_t i = 0; i < c->s.n; i++) {
        uint32_t u = io_unit(c, i);
        if (c->s.ts[i] < c->run_first[u]) c->run_first[u] = c->s.ts[i];
        if (tr_an_end(&c->s, i) > c->run_last[u]) c->run_last[u] = tr_an_end(&c->s, i);
        io_index[i] = UINT32_MAX;
        if (io_kind(c, c->s.name[i]) >= 0) io_index[i] = (uint32_t)n++;
    }
    c->n_io = n;
    c->io_rows = tr_malloc((n ? n : 1) * sizeof *c->io_rows);
    c->parent_io = tr_malloc((n ? n : 1) * sizeof *c->parent_io);
    c->has_child = tr_calloc(n ? n : 1, 1);
    if (!c->io_rows || !c->parent_io || !c->has_child) {
        tr_free(io_index);
        return TR_FATAL;
    }
    for (size_t i = 0; i < c->s.n; i++) {
        uint32_t k = io_index[i];
        if (k == UINT32_MAX) continue;
        c->io_rows[k] = (uint32_t)i;
        c->parent_io[k] = UINT32_MAX;
        for (uint32_t p = c->s.parent[i]; p != TR_NONE; p = c->s.parent[p]) {
            if (io_index[p] != UINT32_MAX) {
                c->parent_io[k] = io_index[p];
                c->has_child[io_index[p]] = 1;
                break;
            }
        }
    }
    tr_free(io_index);
    return io_canon(c);
}

/* The index in V of KEY's record, pushing a zeroed one when new; UINT32_MAX when out of memory. */
static uint32_t io_index_of(tr_map *m, tr_vec *v, uint64_t key)
{
    int is_new;
    uint32_t *slot = tr_map_slot(m, key, &is_new);
    if (!slot) return UINT32_MAX;
    if (is_new) {
        if (!tr_vec_push(v)) return UINT32_MAX;
        *slot = (uint32_t)(v->len - 1);
    }
    return *slot;
}

/* The position state of UNIT on FILE, counting the pair once in the file's ranks and the rank's
 * files. */
static io_pos *io_pos_get(io_ctx *c, uint32_t unit, uint32_t file, tr_vec *files)
{
    size_t before = c->pos.len;
    uint32_t pi = io_index_of(&c->pos_map, &c->pos, (uint64_t)unit << 32 | file);
    if (pi == UINT32_MAX) return NULL;
    io_pos *ps = &TR_VEC_AT(&c->pos, io_pos, pi);
    if (c->pos.len > before) {
        ps->unit = unit;
        ps->file = file;
        ps->pos = -1;
        TR_VEC_AT(files, tr_io_file, file).ranks++;
        c->out->ranks[unit].files++;
    }
    return ps;
}

/* The file an I/O call works on: its path, or the path its MPI file handle was opened on. */
static tr_str io_path(io_ctx *c, size_t row, uint32_t unit)
{
    uint32_t args = c->s.args[row];
    tr_str path = io_arg_str(c->t, args, k_path);
    tr_str fh = io_arg_str(c->t, args, k_fh);
    if (path) {
        uint32_t canon = tr_map_find(&c->canon, path);
        if (canon != UINT32_MAX) path = canon;
    }
    if (path && fh) {
        int is_new;
        uint32_t *slot = tr_map_slot(&c->fh_map, (uint64_t)unit << 32 | fh, &is_new);
        if (slot) *slot = path;
    } else if (!path && fh) {
        uint32_t p = tr_map_find(&c->fh_map, (uint64_t)unit << 32 | fh);
        if (p != UINT32_MAX) path = p;
    }
    return path;
}

/* MPI_File_set_view: the handle's displacement and etype from now on. */
static int io_set_view(io_ctx *c, size_t row, uint32_t unit)
{
    uint32_t args = c->s.args[row];
    tr_str fh = io_arg_str(c->t, args, k_fh), et = io_arg_str(c->t, args, k_etype);
    tr_str ft = io_arg_str(c->t, args, k_filetype);
    int64_t disp;
    if (!fh || !io_arg_int(c->t, args, k_disp, &disp)) return TR_OK;
    uint32_t vi = io_index_of(&c->views, &c->view, (uint64_t)unit << 32 | fh);
    if (vi == UINT32_MAX) return TR_FATAL;
    io_view *v = &TR_VEC_AT(&c->view, io_view, vi);
    size_t n;
    const char *es = et ? tr_str_get(c->t, et, &n) : "";
    v->disp = disp;
    /* A named filetype equal to the etype tiles the file without holes. */
    v->etype_size = et && ft == et ? tr_io_mpi_type_size(es, et ? n : 0) : 0;
    return TR_OK;
}

/* An MPI-IO call's offset OFF (in etypes of its handle's view) as a byte offset; -1 unknown. */
static int64_t io_mpi_offset(io_ctx *c, size_t row, uint32_t unit, int64_t off)
{
    tr_str fh = io_arg_str(c->t, c->s.args[row], k_fh);
    uint32_t vi = fh ? tr_map_find(&c->views, (uint64_t)unit << 32 | fh) : UINT32_MAX;
    if (vi == UINT32_MAX) return off; /* the default view: bytes from the start */
    const io_view *v = &TR_VEC_AT(&c->view, io_view, vi);
    return v->etype_size ? v->disp + off * v->etype_size : -1;
}

/* Darshan's sequential / consecutive rule for one access at OFF of SIZE bytes. */
static void io_pattern(tr_io_file *f, int64_t *last, int64_t off, int64_t size)
{
    f->accesses++;
    if (off > *last) f->sequential++;
    if (off == *last + 1) f->consecutive++;
    *last = off + size - 1;
}

/* A seek: the new position (Darshan takes lseek's return value; fseek's is a status). */
static void io_seek(io_ctx *c, size_t row, io_pos *ps, int has_off, int64_t off)
{
    const char *fn = tr_str_get(c->t, c->s.name[row], NULL);
    uint32_t args = c->s.args[row];
    int64_t v;
    if (strcmp(fn, "rewind") == 0) {
        ps->pos = 0;
    } else if (strncmp(fn, "lseek", 5) == 0 && io_arg_int(c->t, args, k_ret, &v)) {
        ps->pos = v;
    } else if (has_off && io_arg_int(c->t, args, k_whence, &v)) {
        ps->pos = v == 0 ? off : v == 1 && ps->pos >= 0 ? ps->pos + off : -1;
    } else if (strncmp(fn, "ftell", 5) != 0) {
        ps->pos = -1;
    }
}

/* An innermost call on a file: counts, pattern and the file position; *AT is where it accessed. */
static int io_file_access(io_ctx *c, size_t row, int kind, uint32_t unit, uint32_t file,
                          tr_vec *files, int64_t *at_out)
{
    io_pos *ps = io_pos_get(c, unit, file, files);
    if (!ps) return TR_FATAL;
    tr_io_file *f = &TR_VEC_AT(files, tr_io_file, file);
    int64_t bytes = tr_slice_bytes(&c->s, row), off = -1;
    int has_off = io_arg_int(c->t, c->s.args[row], k_offset, &off);
    switch (kind) {
    case TR_IO_OPEN:
        /* Darshan's convention (darshan-posix.c, _POSIX_RECORD_OPEN): every open starts at
         * offset 0, O_APPEND and fopen's "a" included, and forgets the last bytes touched. */
        ps->pos = 0;
        ps->last_read = ps->last_write = 0;
        break;
    case TR_IO_SEEK:
        io_seek(c, row, ps, has_off, off);
        break;
    case TR_IO_SYNC:
        f->syncs++;
        break;
    case TR_IO_READ:
    case TR_IO_WRITE: {
        int64_t at = has_off ? off : ps->pos;
        int rd = kind == TR_IO_READ;
        if (rd) {
            f->reads++;
            if (bytes > 0) f->bytes_read += bytes;
        } else {
            f->writes++;
            if (bytes > 0) f->bytes_written += bytes;
        }
        if (at >= 0 && bytes >= 0) {
            io_pattern(f, rd ? &ps->last_read : &ps->last_write, at, bytes);
            int64_t *max = rd ? &f->max_byte_read : &f->max_byte_written;
            if (at + bytes - 1 > *max) *max = at + bytes - 1;
            tr_io_access *a = c->access ? tr_vec_push(c->access) : NULL;
            if (c->access && !a) return TR_FATAL;
            if (a) *a = (tr_io_access){(uint32_t)row, f->path, at, bytes, kind};
        }
        /* Darshan moves its position past every access, pread and pwrite too. */
        ps->pos = at >= 0 && bytes >= 0 ? at + bytes : -1;
        *at_out = at;
        break;
    }
    default:
        break;
    }
    return TR_OK;
}

/* The file of call K (index into io_rows), its accesses, and its row of CALLS. */
static int io_on_file(io_ctx *c, size_t k, int kind, uint32_t unit, tr_vec *files)
{
    size_t row = c->io_rows[k];
    if (strcmp(tr_str_get(c->t, c->s.name[row], NULL), "MPI_File_set_view") == 0 &&
        io_set_view(c, row, unit) != TR_OK)
        return TR_FATAL;
    tr_str path = io_path(c, row, unit);
    if (!path) return TR_OK;
    size_t before = files->len;
    uint32_t fi = io_index_of(&c->files, files, path);
    if (fi == UINT32_MAX) return TR_FATAL;
    tr_io_file *f = &TR_VEC_AT(files, tr_io_file, fi);
    if (files->len > before) f->path = path, f->max_byte_read = f->max_byte_written = -1;
    int64_t off = -1, at = -1, file_off = -1;
    int has_off = io_arg_int(c->t, c->s.args[row], k_offset, &off);
    /* Files touched count every level; accesses only the innermost. */
    if (c->has_child[k]) {
        if (!io_pos_get(c, unit, fi, files)) return TR_FATAL;
    } else if (io_file_access(c, row, kind, unit, fi, files, &at) != TR_OK) {
        return TR_FATAL;
    }
    if (!c->calls) return TR_OK;
    int data = kind == TR_IO_READ || kind == TR_IO_WRITE;
    int mpi = strncmp(tr_str_get(c->t, c->s.name[row], NULL), "MPI_File_", 9) == 0;
    if (has_off && data) file_off = mpi ? io_mpi_offset(c, row, unit, off) : off;
    if (!has_off && data && !mpi) off = file_off = at;
    tr_io_call *call = tr_vec_push(c->calls);
    if (!call) return TR_FATAL;
    *call = (tr_io_call){(uint32_t)row, path, has_off || data ? off : -1, file_off};
    return TR_OK;
}

static int io_pass(io_ctx *c)
{
    tr_io_stats *out = c->out;
    tr_vec layers, files;
    tr_vec_init(&layers, sizeof(tr_io_layer));
    tr_vec_init(&files, sizeof(tr_io_file));
    int rc = TR_FATAL;
    for (size_t k = 0; k < c->n_io; k++) {
        size_t row = c->io_rows[k];
        int kind = io_kind(c, c->s.name[row]);
        int64_t dur = tr_slice_dur(&c->s, row) > 0 ? tr_slice_dur(&c->s, row) : 0,
                bytes = tr_slice_bytes(&c->s, row);
        uint32_t unit = io_unit(c, row);
        uint32_t li = io_index_of(&c->layers, &layers, tr_slice_cat(&c->s, row));
        if (li == UINT32_MAX) goto done;
        tr_io_layer *ly = &TR_VEC_AT(&layers, tr_io_layer, li);
        ly->cat = tr_slice_cat(&c->s, row);
        int top = c->parent_io[k] == UINT32_MAX;
        if (io_failed(c, row, kind)) {
            ly->c.failed++;
            if (top) out->ranks[unit].c.failed++, out->total.failed++;
            continue;
        }
        if ((kind == TR_IO_READ || kind == TR_IO_WRITE) && bytes >= 0 &&
            !io_arg(c->t, c->s.args[row], k_ret, &(tr_arg){0}))
            out->requested++;
        io_count(&ly->c, kind, dur, bytes);
        if (top) {
            io_count(&out->ranks[unit].c, kind, dur, bytes);
            io_count(&out->total, kind, dur, bytes);
        }
        if (io_on_file(c, k, kind, unit, &files) != TR_OK) goto done;
    }
    rc = TR_OK;
done:
    out->layers = layers.data;
    out->n_layers = layers.len;
    out->files = files.data;
    out->n_files = files.len;
    return rc;
}

static const tr_trace *io_sort_trace;

static int io_layer_cmp(const void *pa, const void *pb)
{
    return tr_an_strcmp(io_sort_trace, ((const tr_io_layer *)pa)->cat,
                        ((const tr_io_layer *)pb)->cat);
}

static int io_file_cmp(const void *pa, const void *pb)
{
    const tr_io_file *a = pa, *b = pb;
    int64_t x = a->bytes_read + a->bytes_written, y = b->bytes_read + b->bytes_written;
    if (x != y) return x > y ? -1 : 1;
    return tr_an_strcmp(io_sort_trace, a->path, b->path);
}

static int io_rank_cmp(const void *pa, const void *pb)
{
    const tr_io_rank *a = pa, *b = pb;
    /* Ranks first, in order; then rankless processes in order. */
    int ra = a->rank < 0, rb = b->rank < 0;
    if (ra != rb) return ra - rb;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    return (a->process > b->process) - (a->process < b->process);
}

/* Drops units without I/O, sorts, finds the slowest. */
static void io_finish(io_ctx *c)
{
    tr_io_stats *out = c->out;
    size_t n = 0;
    for (size_t i = 0; i < out->n_ranks; i++) {
        tr_io_rank *r = &out->ranks[i];
        uint64_t ops = 0;
        for (int k = 0; k < TR_IO_KIND_COUNT; k++) ops += r->c.ops[k];
        if (!ops) continue;
        r->run_time = c->run_last[i] - c->run_first[i];
        out->ranks[n++] = *r;
    }
    out->n_ranks = n;
    io_sort_trace = c->t;
    tr_qsort(out->ranks, out->n_ranks, sizeof *out->ranks, io_rank_cmp);
    tr_qsort(out->layers, out->n_layers, sizeof *out->layers, io_layer_cmp);
    tr_qsort(out->files, out->n_files, sizeof *out->files, io_file_cmp);
    for (size_t i = 0; i < out->n_files; i++) out->shared_files += out->files[i].ranks > 1;
    out->slowest = out->n_ranks;
    for (size_t i = 0; i < out->n_ranks; i++)
        if (out->slowest == out->n_ranks || out->ranks[i].c.time > out->ranks[out->slowest].c.time)
            out->slowest = i;
    if (out->slowest < out->n_ranks && out->ranks[out->slowest].c.time > 0)
        out->bandwidth = (double)(out->total.bytes_read + out->total.bytes_written) * 1e9 /
                         (double)out->ranks[out->slowest].c.time;
}

void tr_io_stats_fini(tr_io_stats *s)
{
    tr_free(s->ranks);
    tr_free(s->layers);
    tr_free(s->files);
    memset(s, 0, sizeof *s);
}

static int io_compute(const tr_trace *t, tr_io_stats *out, tr_vec *access, tr_vec *calls,
                      tr_error *e)
{
    memset(out, 0, sizeof *out);
    io_ctx c = {.t = t, .out = out, .access = access, .calls = calls};
    tr_trace_slices(t, &c.s);
    tr_vec_init(&c.pos, sizeof(io_pos));
    tr_vec_init(&c.view, sizeof(io_view));
    int rc = TR_FATAL;
    if (tr_map_init(&c.units, 16) == TR_OK && tr_map_init(&c.layers, 8) == TR_OK &&
        tr_map_init(&c.files, 64) == TR_OK && tr_map_init(&c.pos_map, 64) == TR_OK &&
        tr_map_init(&c.fh_map, 16) == TR_OK && tr_map_init(&c.canon, 64) == TR_OK &&
        tr_map_init(&c.views, 16) == TR_OK && io_units(&c) == TR_OK && io_collect(&c) == TR_OK &&
        io_pass(&c) == TR_OK) {
        io_finish(&c);
        rc = TR_OK;
    }
    tr_free(c.kind_of);
    tr_free(c.io_rows);
    tr_free(c.parent_io);
    tr_free(c.has_child);
    tr_free(c.unit_of_process);
    tr_free(c.run_first);
    tr_free(c.run_last);
    tr_map_fini(&c.units);
    tr_map_fini(&c.layers);
    tr_map_fini(&c.files);
    tr_map_fini(&c.pos_map);
    tr_map_fini(&c.fh_map);
    tr_map_fini(&c.canon);
    tr_map_fini(&c.views);
    tr_vec_fini(&c.pos);
    tr_vec_fini(&c.view);
    if (rc != TR_OK) {
        tr_io_stats_fini(out);
        return tr_error_nomem(e);
    }
    return TR_OK;
}

int tr_io_stats_compute(const tr_trace *t, tr_io_stats *out, tr_error *e)
{
    return io_compute(t, out, NULL, NULL, e);
}

int tr_io_accesses(const tr_trace *t, tr_io_stats *out, tr_vec *access, tr_error *e)
{
    tr_vec_init(access, sizeof(tr_io_access));
    int rc = io_compute(t, out, access, NULL, e);
    if (rc != TR_OK) tr_vec_fini(access);
    return rc;
}

int tr_io_calls(const tr_trace *t, tr_io_stats *out, tr_vec *calls, tr_error *e)
{
    tr_vec_init(calls, sizeof(tr_io_call));
    int rc = io_compute(t, out, NULL, calls, e);
    if (rc != TR_OK) tr_vec_fini(calls);
    return rc;
}
