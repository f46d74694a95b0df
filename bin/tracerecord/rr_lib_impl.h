/*
** rr_lib_impl.h: what the wrappers (rr_posix.c, rr_mpi.c) use of the recording
** core (rr_core.c) inside libtracerecord.so.
**
** A wrapper asks rr_enter() whether to trace, reserves its record with
** rr_begin() before calling the real function (so a parent comes before
** the calls it makes, as Recorder orders them), fills the arguments and
** closes it with rr_end().  Records go into the calling thread's ring
** without a lock; the core merges the rings by start time when one fills,
** once a second, and at exit.
*/
#ifndef RR_LIB_H
#define RR_LIB_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define RR_VISIBLE __attribute__((visibility("default")))
/*
** Argument slots of a record.  H5Dcreate2 needs 8: Recorder's seven
** arguments and the dataset's Darshan name (rr_hdf5.c); the other wrappers
** use at most 5.  A record is 96 bytes instead of 72; the slots a call does
** not use are never written, and the measured cost of a traced write() did
** not change (notes/hdf5.md).
*/
#define RR_ARGS 8

/* Layers, as --layers names them. */
enum { RR_L_POSIX = 1, RR_L_STDIO = 2, RR_L_MPIIO = 4, RR_L_MPI = 8, RR_L_HDF5 = 16 };

/* Function ids: positions in Recorder's list (recorder.md §8). */
enum {
    RR_CREAT = 0,
    RR_CREAT64 = 1,
    RR_OPEN = 2,
    RR_OPEN64 = 3,
    RR_CLOSE = 4,
    RR_WRITE = 5,
    RR_READ = 6,
    RR_LSEEK = 7,
    RR_LSEEK64 = 8,
    RR_PREAD = 9,
    RR_PREAD64 = 10,
    RR_PWRITE = 11,
    RR_PWRITE64 = 12,
    RR_READV = 13,
    RR_WRITEV = 14,
    RR_MMAP = 15,
    RR_MMAP64 = 16,
    RR_FOPEN = 17,
    RR_FOPEN64 = 18,
    RR_FCLOSE = 19,
    RR_FWRITE = 20,
    RR_FREAD = 21,
    RR_FTELL = 22,
    RR_FSEEK = 23,
    RR_FSYNC = 24,
    RR_FDATASYNC = 25,
    RR_XSTAT = 26,
    RR_XSTAT64 = 27,
    RR_LXSTAT = 28,
    RR_LXSTAT64 = 29,
    RR_FXSTAT = 30,
    RR_FXSTAT64 = 31,
    RR_MKDIR = 33,
    RR_RMDIR = 34,
    RR_UNLINK = 38,
    RR_RENAME = 43,
    RR_FCNTL = 54,
    RR_DUP = 55,
    RR_DUP2 = 56,
    RR_FDOPEN = 60,
    RR_FILENO = 61,
    RR_ACCESS = 62,
    RR_REMOVE = 65,
    RR_TRUNCATE = 66,
    RR_FTRUNCATE = 67,
    RR_FSEEKO = 70,
    RR_FTELLO = 71,
    RR_MPI_FILE_CLOSE = 72,
    RR_MPI_FILE_SET_SIZE = 73,
    RR_MPI_FILE_IREAD_AT = 74,
    RR_MPI_FILE_IREAD = 75,
    RR_MPI_FILE_IREAD_SHARED = 76,
    RR_MPI_FILE_IWRITE_AT = 77,
    RR_MPI_FILE_IWRITE = 78,
    RR_MPI_FILE_IWRITE_SHARED = 79,
    RR_MPI_FILE_OPEN = 80,
    RR_MPI_FILE_READ_ALL_BEGIN = 81,
    RR_MPI_FILE_READ_ALL = 82,
    RR_MPI_FILE_READ_AT_ALL = 83,
    RR_MPI_FILE_READ_AT_ALL_BEGIN = 84,
    RR_MPI_FILE_READ_AT = 85,
    RR_MPI_FILE_READ = 86,
    RR_MPI_FILE_READ_ORDERED_BEGIN = 87,
    RR_MPI_FILE_READ_ORDERED = 88,
    RR_MPI_FILE_READ_SHARED = 89,
    RR_MPI_FILE_SET_VIEW = 90,
    RR_MPI_FILE_SYNC = 91,
    RR_MPI_FILE_WRITE_ALL_BEGIN = 92,
    RR_MPI_FILE_WRITE_ALL = 93,
    RR_MPI_FILE_WRITE_AT_ALL_BEGIN = 94,
    RR_MPI_FILE_WRITE_AT_ALL = 95,
    RR_MPI_FILE_WRITE_AT = 96,
    RR_MPI_FILE_WRITE = 97,
    RR_MPI_FILE_WRITE_ORDERED_BEGIN = 98,
    RR_MPI_FILE_WRITE_ORDERED = 99,
    RR_MPI_FILE_WRITE_SHARED = 100,
    RR_MPI_BARRIER = 111,
    RR_MPI_FILE_SEEK = 154,
    RR_MPI_FILE_SEEK_SHARED = 155,
    RR_MPI_FILE_GET_SIZE = 156,
    RR_H5FCREATE = 169,
    RR_H5FOPEN = 170,
    RR_H5FCLOSE = 171,
    RR_H5FFLUSH = 172,
    RR_H5DCLOSE = 180,
    RR_H5DCREATE1 = 181,
    RR_H5DCREATE2 = 182,
    RR_H5DOPEN1 = 186,
    RR_H5DOPEN2 = 187,
    RR_H5DREAD = 188,
    RR_H5DWRITE = 189,
    RR_USER = 255,
    RR_DROPPED = 254 /* a reserved record that turned out not to be traced */
};

/*
** Argument shapes: one letter per argument as Recorder prints it.
**   p  a string id (path, MPI name) from rr_intern / rr_path_id
**   d  a signed integer
**   m  a short inline string (fopen's mode: up to 8 bytes, rr_inline)
**   x  a pointer, printed "%p" as Recorder does by default (not stored)
**   n  "???" (not stored)
**   b  tracerecord's "bytes=N" (H5Dread/H5Dwrite: the bytes Darshan counts)
**   q  tracerecord's "dataset=S", a string id (H5Dcreate/H5Dopen: the dataset's
**      Darshan record name "<file>:<dataset>")
** Only x and n take no slot of rr_rec.a; the others take one each, in order.
*/
enum {
    RR_S_P,
    RR_S_PD,
    RR_S_PDD,
    RR_S_PXD,
    RR_S_PXDD,
    RR_S_XDDP,
    RR_S_PM,
    RR_S_DPX,
    RR_S_PP,
    RR_S_MMAP,
    RR_S_USER_P,
    RR_S_MPI_OPEN,
    RR_S_MPI_SET_VIEW,
    RR_S_MPI_RW_AT,
    RR_S_MPI_RW,
    RR_S_MPI_IRW_AT,
    RR_S_MPI_IRW,
    RR_S_MPI_BEGIN_AT,
    RR_S_MPI_BEGIN,
    RR_S_D,
    RR_S_DD,
    RR_S_PDDD,
    RR_S_H5DCREATE1,
    RR_S_H5DCREATE2,
    RR_S_H5DOPEN1,
    RR_S_H5DOPEN2,
    RR_S_H5DRW,
    RR_S_COUNT
};

typedef struct rr_rec {
    int64_t t0, t1; /* CLOCK_REALTIME ns */
    int64_t a[RR_ARGS];
    int64_t ret; /* the return value (rr_end), kept as the argument "ret=N" after the others */
    uint32_t tid;
    uint8_t func, level, spec, has_ret;
} rr_rec;

typedef struct rr_thread rr_thread;

/* Per shape: its letters (rr_spec.c). */
extern const char *const rr_spec_text[RR_S_COUNT];

/* The thread's tracing state, or NULL: pass straight through. */
rr_thread *rr_enter(unsigned layer);
rr_rec *rr_begin(rr_thread *t, int func, int spec);
/* Ends R: the call returned RET (RR_RET: a pointer is 0, or -1 when NULL or MAP_FAILED). */
void rr_end(rr_thread *t, rr_rec *r, int64_t ret);
/* Ends R as not traced (its path was excluded). */
void rr_drop(rr_thread *t, rr_rec *r);

/* The string id of FD's file, 0 when FD is not traced. */
uint32_t rr_fd_path(int fd);
void rr_fd_set(int fd, uint32_t id);
/*
** The id of PATH as Recorder names it (absolute; realpath when the file
** exists, else the path as given when absolute, else the directory of DIRFD
** (or the cwd) + "/" + PATH), or of the open descriptor FD when FD >= 0;
** 0 when the result is excluded.  Preserves errno.
*/
uint32_t rr_path_id(int dirfd, const char *path, int fd);
uint32_t rr_intern(const char *s, size_t n);
int64_t rr_inline(const char *s);

/* Flush and checkpoint everything now (exec, _exit, MPI_Finalize). */
void rr_flush_all(int final);
/* MPI_Init told us the rank and size. */
void rr_set_mpi_rank(int rank, int size);
/* Whether H is the library's SIGTERM/SIGINT handler (hidden from the program). */
int rr_is_own_handler(void (*h)(int));
/* Start-up (rr_start.c): a launcher is not traced; the layers of TRACERECORD_LAYERS. */
int rr_is_launcher(void);
unsigned rr_parse_layers(const char *s);
/* The non-negative integer in environment variable NAME into *OUT; 1 when there is one. */
int rr_env_int(const char *name, int *out);
/* Resolve NAME in the next object (optionally at glibc version VER) into *SLOT. */
void rr_resolve(void *slot, const char *name, const char *ver);

static inline int64_t rr_ret_ptr(const void *p)
{
    return p && p != (const void *)-1 ? 0 : -1;
}
#define RR_RET(x)                                                                                  \
    _Generic((x), void * : rr_ret_ptr((const void *)(uintptr_t)(x)), default : (int64_t)(x))

#define RR_REAL(name)                                                                              \
    if (!real_##name) rr_resolve(&real_##name, #name, NULL)

#endif
