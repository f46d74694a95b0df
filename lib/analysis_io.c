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
** file handle ("fh") is followed back to the MPI_File_open that made it, an
** HDF5 id back to the H5Fcreate/H5Fopen or H5Dcreate/H5Dopen that returned
** it ("ret": tracerecord's traces have it): H5F calls are on the file, H5D
** calls on the dataset, named as Darshan names its H5D records
** "<file>:<dataset>" (tracerecord's "dataset" arg).
** As Darshan, the figures leave out calls that failed and calls on files
** under excluded directories (/etc/, /proc/, ...), and count them apart.
*/
#include "analysis_impl.h"

#include <stdlib.h>
#include <string.h>

/* ---- function names ---- */

/* What a call does to its module's record (darshan-posix.c, -stdio.c, -mpiio.c, -hdf5.c). */
enum io_ev {
    EV_NONE = 0,
    EV_OPEN,   /* OPENS; the position and last bytes start again at 0 */
    EV_FDOPEN, /* STDIO_OPENS + STDIO_FDOPENS, the position kept */
    EV_DUP,    /* POSIX_OPENS + POSIX_DUPS, the position shared; an open as Darshan counts it */
    EV_FCNTL,  /* a dup when its cmd is F_DUPFD or F_DUPFD_CLOEXEC */
    EV_FILENO, /* POSIX_OPENS + POSIX_FILENOS */
    EV_READ,
    EV_WRITE,
    EV_SEEK,
    EV_TELL, /* no counter (Darshan does not wrap ftell); its return value is the position */
    EV_STAT,
    EV_MMAP,
    EV_FSYNC,
    EV_FDSYNC,
    EV_FLUSH,
    EV_MPI_OPEN, /* MPIIO_INDEP_OPENS or _COLL_OPENS by the communicator's size */
    EV_SYNC,     /* MPIIO_SYNCS */
    EV_VIEW      /* MPIIO_VIEWS */
};

typedef struct io_name {
    const char *name;
    int8_t kind, mod, ev;
} io_name;

/* What the analysis knows of one function: kind -1 for a function that is not I/O. */
typedef struct io_fn {
    int8_t kind, mod, ev, dc; /* dc: the read or write counter of an MPI-IO data call */
} io_fn;

/* POSIX and stdio functions, sorted by name for bsearch. */
static const io_name io_names[] = {
    {"__fxstat", TR_IO_STAT, TR_IO_MOD_POSIX, EV_STAT},
    {"__fxstat64", TR_IO_STAT, TR_IO_MOD_POSIX, EV_STAT},
    {"__fxstatat", TR_IO_STAT, TR_IO_MOD_POSIX, EV_STAT},
    {"__fxstatat64", TR_IO_STAT, TR_IO_MOD_POSIX, EV_STAT},
    {"__lxstat", TR_IO_STAT, TR_IO_MOD_POSIX, EV_STAT},
    {"__lxstat64", TR_IO_STAT, TR_IO_MOD_POSIX, EV_STAT},
    {"__open_2", TR_IO_OPEN, TR_IO_MOD_POSIX, EV_OPEN},
    {"__xstat", TR_IO_STAT, TR_IO_MOD_POSIX, EV_STAT},
    {"__xstat64", TR_IO_STAT, TR_IO_MOD_POSIX, EV_STAT},
    {"access", TR_IO_STAT, TR_IO_MOD_POSIX, EV_NONE},
    {"aio_read", TR_IO_READ, TR_IO_MOD_POSIX, EV_READ},
    {"aio_read64", TR_IO_READ, TR_IO_MOD_POSIX, EV_READ},
    {"aio_write", TR_IO_WRITE, TR_IO_MOD_POSIX, EV_WRITE},
    {"aio_write64", TR_IO_WRITE, TR_IO_MOD_POSIX, EV_WRITE},
    {"chdir", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"chmod", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"chown", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"close", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"closedir", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"creat", TR_IO_OPEN, TR_IO_MOD_POSIX, EV_OPEN},
    {"creat64", TR_IO_OPEN, TR_IO_MOD_POSIX, EV_OPEN},
    {"dup", TR_IO_OPEN, TR_IO_MOD_POSIX, EV_DUP},
    {"dup2", TR_IO_OPEN, TR_IO_MOD_POSIX, EV_DUP},
    {"dup3", TR_IO_OPEN, TR_IO_MOD_POSIX, EV_DUP},
    {"faccessat", TR_IO_STAT, TR_IO_MOD_POSIX, EV_NONE},
    {"fchmod", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"fchown", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"fclose", TR_IO_META, TR_IO_MOD_STDIO, EV_NONE},
    {"fcntl", TR_IO_META, TR_IO_MOD_POSIX, EV_FCNTL},
    {"fdatasync", TR_IO_SYNC, TR_IO_MOD_POSIX, EV_FDSYNC},
    {"fdopen", TR_IO_OPEN, TR_IO_MOD_STDIO, EV_FDOPEN},
    {"fflush", TR_IO_SYNC, TR_IO_MOD_STDIO, EV_FLUSH},
    {"fgetc", TR_IO_READ, TR_IO_MOD_STDIO, EV_READ},
    {"fgets", TR_IO_READ, TR_IO_MOD_STDIO, EV_READ},
    {"fileno", TR_IO_OPEN, TR_IO_MOD_POSIX, EV_FILENO},
    {"fopen", TR_IO_OPEN, TR_IO_MOD_STDIO, EV_OPEN},
    {"fopen64", TR_IO_OPEN, TR_IO_MOD_STDIO, EV_OPEN},
    {"fprintf", TR_IO_WRITE, TR_IO_MOD_STDIO, EV_WRITE},
    {"fputc", TR_IO_WRITE, TR_IO_MOD_STDIO, EV_WRITE},
    {"fputs", TR_IO_WRITE, TR_IO_MOD_STDIO, EV_WRITE},
    {"fread", TR_IO_READ, TR_IO_MOD_STDIO, EV_READ},
    {"freopen", TR_IO_OPEN, TR_IO_MOD_STDIO, EV_OPEN},
    {"freopen64", TR_IO_OPEN, TR_IO_MOD_STDIO, EV_OPEN},
    {"fscanf", TR_IO_READ, TR_IO_MOD_STDIO, EV_READ},
    {"fseek", TR_IO_SEEK, TR_IO_MOD_STDIO, EV_SEEK},
    {"fseeko", TR_IO_SEEK, TR_IO_MOD_STDIO, EV_SEEK},
    {"fseeko64", TR_IO_SEEK, TR_IO_MOD_STDIO, EV_SEEK},
    {"fsetpos", TR_IO_SEEK, TR_IO_MOD_STDIO, EV_SEEK},
    {"fstat", TR_IO_STAT, TR_IO_MOD_POSIX, EV_STAT},
    {"fstat64", TR_IO_STAT, TR_IO_MOD_POSIX, EV_STAT},
    {"fstatat", TR_IO_STAT, TR_IO_MOD_POSIX, EV_STAT},
    {"fstatat64", TR_IO_STAT, TR_IO_MOD_POSIX, EV_STAT},
    {"fstatfs", TR_IO_STAT, TR_IO_MOD_POSIX, EV_NONE},
    {"fstatfs64", TR_IO_STAT, TR_IO_MOD_POSIX, EV_NONE},
    {"fsync", TR_IO_SYNC, TR_IO_MOD_POSIX, EV_FSYNC},
    {"ftell", TR_IO_SEEK, TR_IO_MOD_STDIO, EV_TELL},
    {"ftello", TR_IO_SEEK, TR_IO_MOD_STDIO, EV_TELL},
    {"ftruncate", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"ftruncate64", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"fwrite", TR_IO_WRITE, TR_IO_MOD_STDIO, EV_WRITE},
    {"getc", TR_IO_READ, TR_IO_MOD_STDIO, EV_READ},
    {"getcwd", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"lchown", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"link", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"linkat", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"lseek", TR_IO_SEEK, TR_IO_MOD_POSIX, EV_SEEK},
    {"lseek64", TR_IO_SEEK, TR_IO_MOD_POSIX, EV_SEEK},
    {"lstat", TR_IO_STAT, TR_IO_MOD_POSIX, EV_STAT},
    {"lstat64", TR_IO_STAT, TR_IO_MOD_POSIX, EV_STAT},
    {"mkdir", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"mkdirat", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"mknod", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"mmap", TR_IO_META, TR_IO_MOD_POSIX, EV_MMAP},
    {"mmap64", TR_IO_META, TR_IO_MOD_POSIX, EV_MMAP},
    {"msync", TR_IO_SYNC, TR_IO_MOD_POSIX, EV_NONE},
    {"munmap", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"open", TR_IO_OPEN, TR_IO_MOD_POSIX, EV_OPEN},
    {"open64", TR_IO_OPEN, TR_IO_MOD_POSIX, EV_OPEN},
    {"openat", TR_IO_OPEN, TR_IO_MOD_POSIX, EV_OPEN},
    {"openat64", TR_IO_OPEN, TR_IO_MOD_POSIX, EV_OPEN},
    {"opendir", TR_IO_OPEN, TR_IO_MOD_POSIX, EV_NONE},
    {"pread", TR_IO_READ, TR_IO_MOD_POSIX, EV_READ},
    {"pread64", TR_IO_READ, TR_IO_MOD_POSIX, EV_READ},
    {"preadv", TR_IO_READ, TR_IO_MOD_POSIX, EV_READ},
    {"preadv2", TR_IO_READ, TR_IO_MOD_POSIX, EV_READ},
    {"preadv64", TR_IO_READ, TR_IO_MOD_POSIX, EV_READ},
    {"putc", TR_IO_WRITE, TR_IO_MOD_STDIO, EV_WRITE},
    {"pwrite", TR_IO_WRITE, TR_IO_MOD_POSIX, EV_WRITE},
    {"pwrite64", TR_IO_WRITE, TR_IO_MOD_POSIX, EV_WRITE},
    {"pwritev", TR_IO_WRITE, TR_IO_MOD_POSIX, EV_WRITE},
    {"pwritev2", TR_IO_WRITE, TR_IO_MOD_POSIX, EV_WRITE},
    {"pwritev64", TR_IO_WRITE, TR_IO_MOD_POSIX, EV_WRITE},
    {"read", TR_IO_READ, TR_IO_MOD_POSIX, EV_READ},
    {"readdir", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"readlink", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"readlinkat", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"readv", TR_IO_READ, TR_IO_MOD_POSIX, EV_READ},
    {"remove", TR_IO_META, TR_IO_MOD_STDIO, EV_NONE},
    {"rename", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"renameat", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"rewind", TR_IO_SEEK, TR_IO_MOD_STDIO, EV_SEEK},
    {"rmdir", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"stat", TR_IO_STAT, TR_IO_MOD_POSIX, EV_STAT},
    {"stat64", TR_IO_STAT, TR_IO_MOD_POSIX, EV_STAT},
    {"statfs", TR_IO_STAT, TR_IO_MOD_POSIX, EV_NONE},
    {"statfs64", TR_IO_STAT, TR_IO_MOD_POSIX, EV_NONE},
    {"statx", TR_IO_STAT, TR_IO_MOD_POSIX, EV_NONE},
    {"symlink", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"symlinkat", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"sync", TR_IO_SYNC, TR_IO_MOD_POSIX, EV_NONE},
    {"syncfs", TR_IO_SYNC, TR_IO_MOD_POSIX, EV_NONE},
    {"tmpfile", TR_IO_OPEN, TR_IO_MOD_STDIO, EV_NONE},
    {"truncate", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"truncate64", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"umask", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"unlink", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"unlinkat", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"utime", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"utimes", TR_IO_META, TR_IO_MOD_POSIX, EV_NONE},
    {"vfprintf", TR_IO_WRITE, TR_IO_MOD_STDIO, EV_WRITE},
    {"vfscanf", TR_IO_READ, TR_IO_MOD_STDIO, EV_READ},
    {"write", TR_IO_WRITE, TR_IO_MOD_POSIX, EV_WRITE},
    {"writev", TR_IO_WRITE, TR_IO_MOD_POSIX, EV_WRITE},
};
static int io_name_cmp(const void *key, const void *elem)
{
    return strcmp(key, ((const io_name *)elem)->name);
}

static int io_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* MPI_File_*: F is the name after the prefix. */
static io_fn io_mpi_fn(const char *f)
{
    io_fn fn = {TR_IO_META, TR_IO_MOD_MPIIO, EV_NONE, -1};
    int rd = io_prefix(f, "read") || io_prefix(f, "iread");
    if (rd || io_prefix(f, "write") || io_prefix(f, "iwrite")) {
        fn.kind = rd ? TR_IO_READ : TR_IO_WRITE;
        fn.ev = rd ? EV_READ : EV_WRITE;
        int cls = f[0] == 'i'                                  ? 3
                  : strstr(f, "_begin")                        ? 2
                  : strstr(f, "_all") || strstr(f, "_ordered") ? 1
                                                               : 0;
        static const int8_t dc[4][2] = {{TR_IO_DC_INDEP_READS, TR_IO_DC_INDEP_WRITES},
                                        {TR_IO_DC_COLL_READS, TR_IO_DC_COLL_WRITES},
                                        {TR_IO_DC_SPLIT_READS, TR_IO_DC_SPLIT_WRITES},
                                        {TR_IO_DC_NB_READS, TR_IO_DC_NB_WRITES}};
        fn.dc = dc[cls][!rd];
        /* The _end of a split call completes its _begin: Darshan counts the _begin. */
        if (strstr(f, "_end")) fn.ev = EV_NONE;
    } else if (io_prefix(f, "open")) {
        fn.kind = TR_IO_OPEN, fn.ev = EV_MPI_OPEN;
    } else if (io_prefix(f, "seek")) {
        fn.kind = TR_IO_SEEK;
    } else if (io_prefix(f, "sync")) {
        fn.kind = TR_IO_SYNC, fn.ev = EV_SYNC;
    } else if (io_prefix(f, "get_size") || io_prefix(f, "get_position")) {
        fn.kind = TR_IO_STAT;
    } else if (io_prefix(f, "set_view")) {
        fn.ev = EV_VIEW;
    }
    return fn;
}

static io_fn io_fn_of(const char *name)
{
    io_fn none = {-1, -1, EV_NONE, -1};
    if (io_prefix(name, "MPI_File_")) return io_mpi_fn(name + 9);
    if (io_prefix(name, "H5")) {
        static const io_name h5[] = {{"H5Dclose", TR_IO_META, TR_IO_MOD_H5D, EV_NONE},
                                     {"H5Dcreate", TR_IO_OPEN, TR_IO_MOD_H5D, EV_OPEN},
                                     {"H5Dflush", TR_IO_SYNC, TR_IO_MOD_H5D, EV_FLUSH},
                                     {"H5Dopen", TR_IO_OPEN, TR_IO_MOD_H5D, EV_OPEN},
                                     {"H5Dread", TR_IO_READ, TR_IO_MOD_H5D, EV_READ},
                                     {"H5Dwrite", TR_IO_WRITE, TR_IO_MOD_H5D, EV_WRITE},
                                     {"H5Fclose", TR_IO_META, TR_IO_MOD_H5F, EV_NONE},
                                     {"H5Fcreate", TR_IO_OPEN, TR_IO_MOD_H5F, EV_OPEN},
                                     {"H5Fflush", TR_IO_SYNC, TR_IO_MOD_H5F, EV_FLUSH},
                                     {"H5Fopen", TR_IO_OPEN, TR_IO_MOD_H5F, EV_OPEN}};
        /* H5Dcreate2, H5Dopen1, ...: the version digit does not change the kind. */
        for (size_t i = 0; i < sizeof h5 / sizeof *h5; i++) {
            size_t n = strlen(h5[i].name);
            if (strncmp(name, h5[i].name, n) == 0 &&
                (name[n] == '\0' || (name[n] >= '0' && name[n] <= '9')))
                return (io_fn){h5[i].kind, h5[i].mod, h5[i].ev, -1};
        }
        return none;
    }
    const io_name *hit =
        bsearch(name, io_names, sizeof io_names / sizeof *io_names, sizeof *io_names, io_name_cmp);
    return hit ? (io_fn){hit->kind, hit->mod, hit->ev, -1} : none;
}

int tr_io_kind_of(const char *name)
{
    return io_fn_of(name).kind;
}

int tr_io_module_of(const char *name)
{
    return io_fn_of(name).mod;
}

const char *tr_io_module_name(int module)
{
    static const char *const names[TR_IO_MODULES] = {"POSIX", "STDIO", "MPI-IO", "H5F", "H5D"};
    return module >= 0 && module < TR_IO_MODULES ? names[module] : "?";
}

const char *tr_io_dc_name(int module, int dc)
{
    /* Darshan 3.5's log formats (include/darshan-*-log-format.h), the counters a trace can give. */
    static const char *const posix[TR_IO_DC_COUNT] = {
        [TR_IO_DC_OPENS] = "POSIX_OPENS",
        [TR_IO_DC_FILENOS] = "POSIX_FILENOS",
        [TR_IO_DC_DUPS] = "POSIX_DUPS",
        [TR_IO_DC_READS] = "POSIX_READS",
        [TR_IO_DC_WRITES] = "POSIX_WRITES",
        [TR_IO_DC_SEEKS] = "POSIX_SEEKS",
        [TR_IO_DC_STATS] = "POSIX_STATS",
        [TR_IO_DC_MMAPS] = "POSIX_MMAPS",
        [TR_IO_DC_FSYNCS] = "POSIX_FSYNCS",
        [TR_IO_DC_FDSYNCS] = "POSIX_FDSYNCS",
        [TR_IO_DC_BYTES_READ] = "POSIX_BYTES_READ",
        [TR_IO_DC_BYTES_WRITTEN] = "POSIX_BYTES_WRITTEN",
        [TR_IO_DC_MAX_BYTE_READ] = "POSIX_MAX_BYTE_READ",
        [TR_IO_DC_MAX_BYTE_WRITTEN] = "POSIX_MAX_BYTE_WRITTEN",
        [TR_IO_DC_CONSEC_READS] = "POSIX_CONSEC_READS",
        [TR_IO_DC_CONSEC_WRITES] = "POSIX_CONSEC_WRITES",
        [TR_IO_DC_SEQ_READS] = "POSIX_SEQ_READS",
        [TR_IO_DC_SEQ_WRITES] = "POSIX_SEQ_WRITES",
        [TR_IO_DC_RW_SWITCHES] = "POSIX_RW_SWITCHES"};
    static const char *const stdio[TR_IO_DC_COUNT] = {
        [TR_IO_DC_OPENS] = "STDIO_OPENS",
        [TR_IO_DC_FDOPENS] = "STDIO_FDOPENS",
        [TR_IO_DC_READS] = "STDIO_READS",
        [TR_IO_DC_WRITES] = "STDIO_WRITES",
        [TR_IO_DC_SEEKS] = "STDIO_SEEKS",
        [TR_IO_DC_FLUSHES] = "STDIO_FLUSHES",
        [TR_IO_DC_BYTES_READ] = "STDIO_BYTES_READ",
        [TR_IO_DC_BYTES_WRITTEN] = "STDIO_BYTES_WRITTEN",
        [TR_IO_DC_MAX_BYTE_READ] = "STDIO_MAX_BYTE_READ",
        [TR_IO_DC_MAX_BYTE_WRITTEN] = "STDIO_MAX_BYTE_WRITTEN"};
    static const char *const mpiio[TR_IO_DC_COUNT] = {
        [TR_IO_DC_INDEP_OPENS] = "MPIIO_INDEP_OPENS",
        [TR_IO_DC_COLL_OPENS] = "MPIIO_COLL_OPENS",
        [TR_IO_DC_INDEP_READS] = "MPIIO_INDEP_READS",
        [TR_IO_DC_INDEP_WRITES] = "MPIIO_INDEP_WRITES",
        [TR_IO_DC_COLL_READS] = "MPIIO_COLL_READS",
        [TR_IO_DC_COLL_WRITES] = "MPIIO_COLL_WRITES",
        [TR_IO_DC_SPLIT_READS] = "MPIIO_SPLIT_READS",
        [TR_IO_DC_SPLIT_WRITES] = "MPIIO_SPLIT_WRITES",
        [TR_IO_DC_NB_READS] = "MPIIO_NB_READS",
        [TR_IO_DC_NB_WRITES] = "MPIIO_NB_WRITES",
        [TR_IO_DC_SYNCS] = "MPIIO_SYNCS",
        [TR_IO_DC_VIEWS] = "MPIIO_VIEWS",
        [TR_IO_DC_BYTES_READ] = "MPIIO_BYTES_READ",
        [TR_IO_DC_BYTES_WRITTEN] = "MPIIO_BYTES_WRITTEN",
        [TR_IO_DC_RW_SWITCHES] = "MPIIO_RW_SWITCHES"};
    static const char *const h5f[TR_IO_DC_COUNT] = {
        [TR_IO_DC_OPENS] = "H5F_OPENS", [TR_IO_DC_FLUSHES] = "H5F_FLUSHES"};
    static const char *const h5d[TR_IO_DC_COUNT] = {[TR_IO_DC_OPENS] = "H5D_OPENS",
                                                    [TR_IO_DC_READS] = "H5D_READS",
                                                    [TR_IO_DC_WRITES] = "H5D_WRITES",
                                                    [TR_IO_DC_FLUSHES] = "H5D_FLUSHES",
                                                    [TR_IO_DC_BYTES_READ] = "H5D_BYTES_READ",
                                                    [TR_IO_DC_BYTES_WRITTEN] = "H5D_BYTES_WRITTEN",
                                                    [TR_IO_DC_RW_SWITCHES] = "H5D_RW_SWITCHES"};
    static const char *const *const mods[TR_IO_MODULES] = {posix, stdio, mpiio, h5f, h5d};
    if (module < 0 || module >= TR_IO_MODULES || dc < 0 || dc >= TR_IO_DC_COUNT) return NULL;
    return mods[module][dc];
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
static const char *const k_dataset[] = {"dataset", NULL};
static const char *const k_loc[] = {"loc_id", NULL};
static const char *const k_hid[] = {"dataset_id", "file_id", "object_id", NULL};

/* ---- the pass ---- */

/* A module's record of one rank and file: Darshan's per-record runtime state. */
typedef struct io_rec {
    int64_t pos;                   /* current file position, -1 unknown */
    int64_t last_read, last_write; /* last byte touched, 0 at first as in Darshan */
    int last_io;                   /* TR_IO_READ + 1 or TR_IO_WRITE + 1 when one was made */
} io_rec;

/* One rank and file: a record per module (Darshan keeps a stdio stream's apart from its fd's). */
typedef struct io_pos {
    uint32_t unit, file;
    unsigned mods; /* bit per module that has a record */
    io_rec rec[TR_IO_MODULES];
} io_pos;

/* What an HDF5 id names: its dataset's Darshan name (H5D calls) and its file (H5F calls). */
typedef struct io_hid {
    tr_str path, file;
} io_hid;

/* An MPI file handle's view: offsets of data calls are in etypes past the displacement. */
typedef struct io_view {
    int64_t disp, etype_size; /* etype_size 0: a view whose filetype has holes (not followed) */
} io_view;

typedef struct io_ctx {
    const tr_trace *t;
    const tr_stat_opts *so;
    tr_slices s;
    tr_io_stats *out;
    io_fn *fn_of;      /* by string id: kind -1 not I/O, -2 not looked up */
    uint8_t *excl;     /* by a file's string id: 1 excluded, 2 excluded and counted */
    uint32_t *io_rows; /* slices that are I/O calls, in order */
    size_t n_io;
    uint32_t *parent_io; /* per I/O row (index into io_rows): nearest I/O ancestor's row */
    uint8_t *has_child;  /* per I/O row: an I/O call runs inside it */
    uint32_t *unit_of_process;
    tr_map units, layers, files, pos_map, fh_map, canon, views, h5_ids, h5_map;
    tr_vec pos;  /* io_pos, by (unit, file) through pos_map */
    tr_vec view; /* io_view, by (unit, fh) through views */
    tr_vec h5;   /* io_hid, by (unit, the id's number in h5_ids) through h5_map */
    int64_t *run_first, *run_last;
    int world;      /* ranks in the trace: MPI_COMM_WORLD's size */
    tr_vec *access; /* tr_io_access rows, when asked (tr_io_accesses) */
    tr_vec *calls;  /* tr_io_call rows, when asked (tr_io_calls) */
} io_ctx;

static io_fn io_fn_at(io_ctx *c, tr_str name)
{
    if (c->fn_of[name].kind == -2) c->fn_of[name] = io_fn_of(tr_str_get(c->t, name, NULL));
    return c->fn_of[name];
}

static int io_kind(io_ctx *c, tr_str name)
{
    return io_fn_at(c, name).kind;
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
        c->world += is_new && pr->rank >= 0;
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
    uint8_t *excl = tr_malloc(ids.len ? ids.len : 1);
    if (rc == TR_OK && canon && excl &&
        tr_an_io_canon(c->t, ids.data, ids.len, c->so, canon, excl) == TR_OK) {
        for (size_t i = 0; i < ids.len; i++) {
            int is_new;
            *tr_map_slot(&c->canon, TR_VEC_AT(&ids, tr_str, i), &is_new) = canon[i];
            c->excl[canon[i]] = excl[i];
        }
    } else {
        rc = TR_FATAL;
    }
    tr_free(canon);
    tr_free(excl);
    tr_vec_fini(&ids);
    return rc;
}

/* The I/O calls, each with its nearest I/O ancestor, and the run span of each unit. */
static int io_collect(io_ctx *c)
{
    size_t n_str = tr_str_count(c->t);
    c->fn_of = tr_malloc((n_str ? n_str : 1) * sizeof *c->fn_of);
    c->excl = tr_calloc(n_str ? n_str : 1, 1);
    uint32_t *io_index = tr_malloc((c->s.n ? c->s.n : 1) * sizeof *io_index);
    if (!c->fn_of || !c->excl || !io_index) {
        tr_free(io_index);
        return TR_FATAL;
    }
    for (size_t i = 0; i < n_str; i++) c->fn_of[i].kind = -2;
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
        for (int m = 0; m < TR_IO_MODULES; m++) ps->rec[m].pos = -1;
        TR_VEC_AT(files, tr_io_file, file).ranks++;
        c->out->ranks[unit].files++;
    }
    return ps;
}

/* The path arg of ARGS in its one spelling per file; 0 when none. */
static tr_str io_path_arg(io_ctx *c, uint32_t args)
{
    tr_str path = io_arg_str(c->t, args, k_path);
    uint32_t canon = path ? tr_map_find(&c->canon, path) : UINT32_MAX;
    return canon != UINT32_MAX ? canon : path;
}

/*
** What UNIT's HDF5 id ID names (ADD: made if new, zeroed); NULL when
** unknown or out of memory (*RC TR_FATAL).  An id is 64 bits: it is
** numbered in h5_ids first, so that (unit, number) is one key.
*/
static io_hid *io_hid_at(io_ctx *c, uint32_t unit, int64_t id, int add, int *rc)
{
    uint32_t n = tr_map_find(&c->h5_ids, (uint64_t)id);
    if (n == UINT32_MAX && add) {
        int is_new;
        uint32_t *slot = tr_map_slot(&c->h5_ids, (uint64_t)id, &is_new);
        if (slot) *slot = n = (uint32_t)(c->h5_ids.n - 1);
    }
    uint64_t key = (uint64_t)unit << 32 | n;
    uint32_t i = n == UINT32_MAX ? UINT32_MAX
                 : add           ? io_index_of(&c->h5_map, &c->h5, key)
                                 : tr_map_find(&c->h5_map, key);
    if (i == UINT32_MAX && add) *rc = TR_FATAL;
    return i == UINT32_MAX ? NULL : &TR_VEC_AT(&c->h5, io_hid, i);
}

/*
** The file of an H5F call, the dataset of an H5D call: an open names it
** (H5F: its path; H5D: its "dataset" arg, its file that of its location
** id) and gives its id ("ret") that name; the other calls name an id.
*/
static int io_h5_path(io_ctx *c, size_t row, uint32_t unit, io_fn fn, tr_str *path)
{
    uint32_t args = c->s.args[row];
    int h5d = fn.mod == TR_IO_MOD_H5D, rc = TR_OK;
    int64_t id, loc;
    if (fn.ev != EV_OPEN) {
        const io_hid *h =
            io_arg_int(c->t, args, k_hid, &id) ? io_hid_at(c, unit, id, 0, &rc) : NULL;
        *path = !h ? 0 : h5d ? h->path : h->file;
        return rc;
    }
    *path = h5d ? io_arg_str(c->t, args, k_dataset) : io_path_arg(c, args);
    if (!*path || !io_arg_int(c->t, args, k_ret, &id) || id < 0) return TR_OK;
    const io_hid *l =
        h5d && io_arg_int(c->t, args, k_loc, &loc) ? io_hid_at(c, unit, loc, 0, &rc) : NULL;
    io_hid *h = io_hid_at(c, unit, id, 1, &rc);
    if (h) *h = (io_hid){*path, !h5d ? *path : l ? l->file : 0};
    return rc;
}

/*
** The file an I/O call works on: its path, the path its MPI file handle was
** opened on, or its HDF5 id's file or dataset.  ^A call naming both a path
** and a handle (MPI_File_open) ties them when REMEMBER (it did not fail).
*/
static int io_path(io_ctx *c, size_t row, uint32_t unit, io_fn fn, int remember, tr_str *out)
{
    if (fn.mod == TR_IO_MOD_H5F || fn.mod == TR_IO_MOD_H5D)
        return io_h5_path(c, row, unit, fn, out);
    uint32_t args = c->s.args[row];
    tr_str path = io_path_arg(c, args);
    tr_str fh = io_arg_str(c->t, args, k_fh);
    if (path && fh && remember) {
        int is_new;
        uint32_t *slot = tr_map_slot(&c->fh_map, (uint64_t)unit << 32 | fh, &is_new);
        if (slot) *slot = path;
    } else if (!path && fh) {
        uint32_t p = tr_map_find(&c->fh_map, (uint64_t)unit << 32 | fh);
        if (p != UINT32_MAX) path = p;
    }
    *out = path;
    return TR_OK;
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

/* fcntl(F_DUPFD) and fcntl(F_DUPFD_CLOEXEC) (cmd 0 and 1030 on Linux) duplicate a descriptor. */
static int io_fcntl_dups(io_ctx *c, size_t row)
{
    int64_t cmd;
    return io_arg_int(c->t, c->s.args[row], (const char *const[]){"cmd", NULL}, &cmd) &&
           (cmd == 0 || cmd == 1030);
}

/* A seek: the new position (Darshan takes lseek's return value; fseek's is a status). */
static void io_seek(io_ctx *c, size_t row, io_rec *r, int has_off, int64_t off)
{
    const char *fn = tr_str_get(c->t, c->s.name[row], NULL);
    uint32_t args = c->s.args[row];
    int64_t v;
    if (strcmp(fn, "rewind") == 0)
        r->pos = 0;
    else if (strncmp(fn, "lseek", 5) == 0 && io_arg_int(c->t, args, k_ret, &v))
        r->pos = v;
    else if (has_off && io_arg_int(c->t, args, k_whence, &v))
        r->pos = v == 0 ? off : v == 1 && r->pos >= 0 ? r->pos + off : -1;
    else
        r->pos = -1;
}

/* MPI_File_open: collective unless its communicator has one rank (darshan-mpiio.c). */
static int io_mpi_coll(io_ctx *c, size_t row)
{
    static const char *const k_comm[] = {"comm", NULL};
    tr_str comm = io_arg_str(c->t, c->s.args[row], k_comm);
    const char *name = comm ? tr_str_get(c->t, comm, NULL) : "";
    if (strcmp(name, "MPI_COMM_SELF") == 0) return 0;
    return strcmp(name, "MPI_COMM_WORLD") != 0 || c->world > 1;
}

/*
** One successful call on its module's record R: what it does to the
** position (Darshan's rules: every open starts at 0, O_APPEND and fopen's
** "a" too, and forgets the last bytes touched; fdopen, dup and fileno keep
** the record's position, which is one per file however many descriptors
** and streams share it; a read or write moves it past the bytes it moved,
** pread and pwrite too) and to the module's counters.  *AT is where a read
** or write accessed (-1 unknown); *SEQ and *CONSEC its pattern.
*/
static void io_record(io_ctx *c, size_t row, io_fn fn, io_pos *ps, int64_t *at, int *seq,
                      int *consec)
{
    tr_io_module_stats *m = &c->out->modules[fn.mod];
    io_rec *r = &ps->rec[fn.mod];
    int64_t *v = m->v, bytes = tr_slice_bytes(&c->s, row), off = -1, ret;
    int is_new = !(ps->mods & 1u << fn.mod);
    int has_off = io_arg_int(c->t, c->s.args[row], k_offset, &off);
    if (is_new) ps->mods |= 1u << fn.mod, m->records++;
    switch (fn.ev) {
    case EV_OPEN:
    case EV_MPI_OPEN:
        r->pos = r->last_read = r->last_write = 0;
        v[fn.ev == EV_OPEN      ? TR_IO_DC_OPENS
          : io_mpi_coll(c, row) ? TR_IO_DC_COLL_OPENS
                                : TR_IO_DC_INDEP_OPENS]++;
        break;
    case EV_FDOPEN:
    case EV_FILENO:
        if (is_new) r->pos = 0; /* a new record starts at 0 */
        v[TR_IO_DC_OPENS]++, v[fn.ev == EV_FDOPEN ? TR_IO_DC_FDOPENS : TR_IO_DC_FILENOS]++;
        break;
    case EV_DUP:
        v[TR_IO_DC_OPENS]++, v[TR_IO_DC_DUPS]++;
        break;
    case EV_SEEK:
        io_seek(c, row, r, has_off, off);
        v[TR_IO_DC_SEEKS]++;
        break;
    case EV_TELL:
        if (r->pos < 0 && io_arg_int(c->t, c->s.args[row], k_ret, &ret) && ret >= 0) r->pos = ret;
        break;
    case EV_READ:
    case EV_WRITE: {
        int rd = fn.ev == EV_READ;
        /* An HDF5 dataset has no byte offsets: its calls are not accesses of a file. */
        *at = has_off ? off : fn.mod >= TR_IO_MOD_H5F ? -1 : r->pos;
        v[fn.dc >= 0 ? fn.dc : rd ? TR_IO_DC_READS : TR_IO_DC_WRITES]++;
        if (bytes > 0) v[rd ? TR_IO_DC_BYTES_READ : TR_IO_DC_BYTES_WRITTEN] += bytes;
        if (r->last_io && r->last_io != (rd ? 1 : 2)) v[TR_IO_DC_RW_SWITCHES]++;
        r->last_io = rd ? 1 : 2;
        if (*at >= 0 && bytes >= 0) {
            int64_t *last = rd ? &r->last_read : &r->last_write;
            *seq = *at > *last, *consec = *at == *last + 1;
            v[rd ? TR_IO_DC_SEQ_READS : TR_IO_DC_SEQ_WRITES] += *seq;
            v[rd ? TR_IO_DC_CONSEC_READS : TR_IO_DC_CONSEC_WRITES] += *consec;
            *last = *at + bytes - 1;
            int64_t *max = &v[rd ? TR_IO_DC_MAX_BYTE_READ : TR_IO_DC_MAX_BYTE_WRITTEN];
            if (*last > *max) *max = *last;
        }
        r->pos = *at >= 0 && bytes >= 0 ? *at + bytes : -1;
        break;
    }
    case EV_FCNTL:
        if (io_fcntl_dups(c, row)) v[TR_IO_DC_OPENS]++, v[TR_IO_DC_DUPS]++;
        break;
    case EV_FLUSH:
        v[TR_IO_DC_FLUSHES]++;
        /* STDIO records a flush as a write of 0 bytes at the position (STDIO_RECORD_WRITE). */
        if (fn.mod == TR_IO_MOD_STDIO && r->pos - 1 > v[TR_IO_DC_MAX_BYTE_WRITTEN])
            v[TR_IO_DC_MAX_BYTE_WRITTEN] = r->pos - 1;
        break;
    default: {
        static const int8_t dc[] = {[EV_STAT] = TR_IO_DC_STATS,   [EV_MMAP] = TR_IO_DC_MMAPS,
                                    [EV_FSYNC] = TR_IO_DC_FSYNCS, [EV_FDSYNC] = TR_IO_DC_FDSYNCS,
                                    [EV_SYNC] = TR_IO_DC_SYNCS,   [EV_VIEW] = TR_IO_DC_VIEWS};
        if (fn.ev > 0 && (size_t)fn.ev < sizeof dc && dc[fn.ev]) v[dc[fn.ev]]++;
        break;
    }
    }
}

/* An innermost call on a file: the files table's counts and pattern, the access plot. */
static int io_file_access(io_ctx *c, size_t row, int kind, tr_io_file *f, int64_t at, int seq,
                          int consec)
{
    int64_t bytes = tr_slice_bytes(&c->s, row);
    if (kind == TR_IO_SYNC) f->syncs++;
    if (kind != TR_IO_READ && kind != TR_IO_WRITE) return TR_OK;
    int rd = kind == TR_IO_READ;
    if (rd) {
        f->reads++;
        if (bytes > 0) f->bytes_read += bytes;
    } else {
        f->writes++;
        if (bytes > 0) f->bytes_written += bytes;
    }
    if (at < 0 || bytes < 0) return TR_OK;
    f->accesses++;
    f->sequential += seq;
    f->consecutive += consec;
    int64_t *max = rd ? &f->max_byte_read : &f->max_byte_written;
    if (at + bytes - 1 > *max) *max = at + bytes - 1;
    tr_io_access *a = c->access ? tr_vec_push(c->access) : NULL;
    if (c->access && !a) return TR_FATAL;
    if (a) *a = (tr_io_access){(uint32_t)row, f->path, at, bytes, kind};
    return TR_OK;
}

/* The file PATH of call K (index into io_rows), its module's record, its accesses, its call. */
static int io_on_file(io_ctx *c, size_t k, io_fn fn, uint32_t unit, tr_str path, tr_vec *files)
{
    size_t row = c->io_rows[k];
    if (fn.ev == EV_VIEW && io_set_view(c, row, unit) != TR_OK) return TR_FATAL;
    if (!path) return TR_OK;
    size_t before = files->len;
    uint32_t fi = io_index_of(&c->files, files, path);
    if (fi == UINT32_MAX) return TR_FATAL;
    tr_io_file *f = &TR_VEC_AT(files, tr_io_file, fi);
    if (files->len > before) f->path = path, f->max_byte_read = f->max_byte_written = -1;
    io_pos *ps = io_pos_get(c, unit, fi, files);
    if (!ps) return TR_FATAL;
    int64_t off = -1, at = -1, file_off = -1;
    int seq = 0, consec = 0, kind = fn.kind;
    int has_off = io_arg_int(c->t, c->s.args[row], k_offset, &off);
    /* Every call counts in its module (Darshan's POSIX module sees ROMIO's calls too); the
     * files table takes the innermost calls only, so bytes are not counted twice. */
    io_record(c, row, fn, ps, &at, &seq, &consec);
    if ((fn.ev == EV_READ || fn.ev == EV_WRITE) && fn.mod < TR_IO_MOD_H5F && at < 0 &&
        !c->has_child[k])
        c->out->unplaced++;
    f = &TR_VEC_AT(files, tr_io_file, fi);
    /* An H5F or H5D record's name is its own (no POSIX call inside shares it): every call
     * counts there. */
    int own = fn.mod == TR_IO_MOD_H5F || fn.mod == TR_IO_MOD_H5D;
    if ((own || !c->has_child[k]) && io_file_access(c, row, kind, f, at, seq, consec) != TR_OK)
        return TR_FATAL;
    if (!c->calls) return TR_OK;
    int data = kind == TR_IO_READ || kind == TR_IO_WRITE;
    int mpi = fn.mod == TR_IO_MOD_MPIIO;
    if (has_off && data) file_off = mpi ? io_mpi_offset(c, row, unit, off) : off;
    if (!has_off && data && !mpi) off = file_off = at;
    tr_io_call *call = tr_vec_push(c->calls);
    if (!call) return TR_FATAL;
    *call = (tr_io_call){(uint32_t)row, path, has_off || data ? off : -1, file_off, 0, 0};
    return TR_OK;
}

/* A call left out, on an excluded file or failed: in its LAYER, in UNIT's (when outermost). */
static void io_count_left_out(io_ctx *c, tr_io_counts *layer, uint32_t unit, tr_str path,
                              int excluded)
{
    tr_io_stats *out = c->out;
    if (!excluded) {
        layer->failed++;
        if (unit != UINT32_MAX) out->ranks[unit].c.failed++, out->total.failed++;
        return;
    }
    layer->excluded++;
    if (unit != UINT32_MAX) out->ranks[unit].c.excluded++, out->total.excluded++;
    out->excluded_calls++;
    if (c->excl[path] == 1) c->excl[path] = 2, out->excluded_files++;
}

/* A call left out (on an excluded file, or failed): its row of CALLS with the offset arg only. */
static int io_left_out(io_ctx *c, size_t row, tr_str path, int excluded)
{
    int64_t off = -1;
    if (!c->calls || !path) return TR_OK;
    io_arg_int(c->t, c->s.args[row], k_offset, &off);
    tr_io_call *call = tr_vec_push(c->calls);
    if (!call) return TR_FATAL;
    *call = (tr_io_call){(uint32_t)row, path, off, -1, (uint8_t)excluded, (uint8_t)!excluded};
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
        io_fn fn = io_fn_at(c, c->s.name[row]);
        int kind = fn.kind;
        int64_t dur = tr_slice_dur(&c->s, row) > 0 ? tr_slice_dur(&c->s, row) : 0,
                bytes = tr_slice_bytes(&c->s, row);
        uint32_t unit = io_unit(c, row);
        uint32_t li = io_index_of(&c->layers, &layers, tr_slice_cat(&c->s, row));
        if (li == UINT32_MAX) goto done;
        tr_io_layer *ly = &TR_VEC_AT(&layers, tr_io_layer, li);
        ly->cat = tr_slice_cat(&c->s, row);
        int top = c->parent_io[k] == UINT32_MAX, failed = io_failed(c, row, kind);
        tr_str path;
        if (io_path(c, row, unit, fn, !failed, &path) != TR_OK) goto done;
        /* Darshan never sees a call on an excluded file: it is not failed either. */
        int excluded = path && c->excl[path];
        if (excluded || failed) {
            io_count_left_out(c, &ly->c, top ? unit : UINT32_MAX, path, excluded);
            if (io_left_out(c, row, path, excluded) != TR_OK) goto done;
            continue;
        }
        /* A dup is an open to Darshan (POSIX_OPENS counts it), its time metadata time. */
        if (fn.ev == EV_FCNTL && io_fcntl_dups(c, row)) kind = TR_IO_OPEN;
        int has_ret = io_arg(c->t, c->s.args[row], k_ret, &(tr_arg){0});
        out->no_ret += !has_ret;
        if ((kind == TR_IO_READ || kind == TR_IO_WRITE) && bytes >= 0 && !has_ret) out->requested++;
        io_count(&ly->c, kind, dur, bytes);
        if (top) {
            io_count(&out->ranks[unit].c, kind, dur, bytes);
            io_count(&out->total, kind, dur, bytes);
        }
        if (io_on_file(c, k, fn, unit, path, &files) != TR_OK) goto done;
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

static int io_compute(const tr_trace *t, const tr_stat_opts *so, tr_io_stats *out, tr_vec *access,
                      tr_vec *calls, tr_error *e)
{
    memset(out, 0, sizeof *out);
    for (int m = 0; m < TR_IO_MODULES; m++)
        out->modules[m].v[TR_IO_DC_MAX_BYTE_READ] = out->modules[m].v[TR_IO_DC_MAX_BYTE_WRITTEN] =
            -1;
    io_ctx c = {.t = t, .so = so, .out = out, .access = access, .calls = calls};
    tr_trace_slices(t, &c.s);
    tr_vec_init(&c.pos, sizeof(io_pos));
    tr_vec_init(&c.view, sizeof(io_view));
    tr_vec_init(&c.h5, sizeof(io_hid));
    int rc = TR_FATAL;
    if (tr_map_init(&c.units, 16) == TR_OK && tr_map_init(&c.layers, 8) == TR_OK &&
        tr_map_init(&c.files, 64) == TR_OK && tr_map_init(&c.pos_map, 64) == TR_OK &&
        tr_map_init(&c.fh_map, 16) == TR_OK && tr_map_init(&c.canon, 64) == TR_OK &&
        tr_map_init(&c.views, 16) == TR_OK && tr_map_init(&c.h5_ids, 16) == TR_OK &&
        tr_map_init(&c.h5_map, 16) == TR_OK && io_units(&c) == TR_OK && io_collect(&c) == TR_OK &&
        io_pass(&c) == TR_OK) {
        io_finish(&c);
        rc = TR_OK;
    }
    tr_free(c.fn_of);
    tr_free(c.excl);
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
    tr_map_fini(&c.h5_ids);
    tr_map_fini(&c.h5_map);
    tr_vec_fini(&c.pos);
    tr_vec_fini(&c.view);
    tr_vec_fini(&c.h5);
    if (rc != TR_OK) {
        tr_io_stats_fini(out);
        return tr_error_nomem(e);
    }
    return TR_OK;
}

int tr_io_stats_compute(const tr_trace *t, const tr_stat_opts *so, tr_io_stats *out, tr_error *e)
{
    return io_compute(t, so, out, NULL, NULL, e);
}

int tr_io_accesses(const tr_trace *t, const tr_stat_opts *so, tr_io_stats *out, tr_vec *access,
                   tr_error *e)
{
    tr_vec_init(access, sizeof(tr_io_access));
    int rc = io_compute(t, so, out, access, NULL, e);
    if (rc != TR_OK) tr_vec_fini(access);
    return rc;
}

int tr_io_calls(const tr_trace *t, const tr_stat_opts *so, tr_io_stats *out, tr_vec *calls,
                tr_error *e)
{
    tr_vec_init(calls, sizeof(tr_io_call));
    int rc = io_compute(t, so, out, NULL, calls, e);
    if (rc != TR_OK) tr_vec_fini(calls);
    return rc;
}
