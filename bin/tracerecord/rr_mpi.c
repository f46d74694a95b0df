/*
** rr_mpi.c: MPI and MPI-IO wrappers of libtracerecord.so, without mpi.h.
**
** The library is not linked with MPI: each wrapper finds the next
** MPI_<name> (else PMPI_<name>) with dlsym when first called, so the same
** library works in programs without MPI (where these symbols are never
** called; if something calls one anyway, it fails with an MPI error code
** instead of crashing).  Handles are passed through as machine words:
** MPICH's int handles and Open MPI's pointers both travel in one integer
** register on x86_64 and aarch64, so one wrapper serves both ABIs.  Names
** come from MPI itself (MPI_Comm_get_name, MPI_Type_get_name); the world
** communicator is MPICH's constant or Open MPI's ompi_mpi_comm_world.
**
** Arguments follow recorder.md §3, with one difference: a file handle is
** "<this rank>-<n>" for the rank's n-th MPI_File_open, whereas Recorder
** agrees one name across the opening communicator by a broadcast.
*/
#include "rr_impl.h"
#include "rr_lib_impl.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define MPI_ERR          16 /* MPI_ERR_OTHER in MPICH and Open MPI */
#define MPICH_COMM_WORLD ((uintptr_t)0x44000000)
#define NAME_MAX_MPI     128 /* MPI_MAX_OBJECT_NAME in both */

typedef uintptr_t mpi_h; /* MPI_Comm, MPI_Datatype, MPI_Info, MPI_Request */
typedef void *mpi_file;
typedef long long mpi_off;

/* MPI_File -> its name: a short list, opened files are few. */
static pthread_mutex_t files_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    mpi_file fh;
    uint32_t id;
} files[256];
static int n_files, opens, world_rank;

static void mpi_resolve(void *slot, const char *name)
{
    rr_resolve(slot, name, NULL);
    void *p;
    memcpy(&p, slot, sizeof p);
    if (!p) {
        char pname[64] = "P";
        strncat(pname, name, sizeof pname - 2);
        rr_resolve(slot, pname, NULL);
    }
}

#define MPI_REAL(name)                                                                             \
    if (!real_##name) mpi_resolve(&real_##name, #name);                                            \
    if (!real_##name) return MPI_ERR

static mpi_h world(void)
{
    void *p = dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world");
    return p ? (mpi_h)p : MPICH_COMM_WORLD;
}

static int (*real_MPI_Comm_rank)(mpi_h, int *);
static int (*real_MPI_Comm_size)(mpi_h, int *);
static int (*real_MPI_Comm_get_name)(mpi_h, char *, int *);
static int (*real_MPI_Type_get_name)(mpi_h, char *, int *);

static void ranks_known(void)
{
    int r = -1, n = 0;
    if (!real_MPI_Comm_rank) mpi_resolve(&real_MPI_Comm_rank, "MPI_Comm_rank");
    if (!real_MPI_Comm_size) mpi_resolve(&real_MPI_Comm_size, "MPI_Comm_size");
    if (!real_MPI_Comm_rank || !real_MPI_Comm_size) return;
    if (real_MPI_Comm_rank(world(), &r) != 0 || real_MPI_Comm_size(world(), &n) != 0) return;
    world_rank = r;
    rr_set_mpi_rank(r, n);
}

/* The name of handle H by GET (MPI_Comm_get_name or MPI_Type_get_name), else UNKNOWN. */
static uint32_t object_name(int (*get)(mpi_h, char *, int *), mpi_h h, const char *unknown)
{
    char name[NAME_MAX_MPI + 1];
    int len = 0;
    if (get && get(h, name, &len) == 0 && len > 0 && len <= NAME_MAX_MPI)
        return rr_intern(name, (size_t)len);
    return rr_intern(unknown, strlen(unknown));
}

static uint32_t comm_name(mpi_h c)
{
    if (!real_MPI_Comm_get_name) mpi_resolve(&real_MPI_Comm_get_name, "MPI_Comm_get_name");
    return object_name(real_MPI_Comm_get_name, c, "MPI_COMM_UNKNOWN");
}

static uint32_t type_name(mpi_h t)
{
    if (!real_MPI_Type_get_name) mpi_resolve(&real_MPI_Type_get_name, "MPI_Type_get_name");
    return object_name(real_MPI_Type_get_name, t, "MPI_TYPE_UNKNOWN");
}

/* MPI_STATUS_IGNORE is 1 in MPICH and NULL in Open MPI. */
static uint32_t status_name(void *s)
{
    return (uintptr_t)s <= 1 ? rr_intern("MPI_STATUS_IGNORE", 17) : rr_intern("%p", 2);
}

static uint32_t file_name(mpi_file fh)
{
    uint32_t id = 0;
    pthread_mutex_lock(&files_mu);
    for (int i = 0; i < n_files; i++)
        if (files[i].fh == fh) id = files[i].id;
    pthread_mutex_unlock(&files_mu);
    return id ? id : rr_intern("MPI_FILE_UNKNOWN", 16);
}

static uint32_t file_opened(mpi_file fh)
{
    char name[48];
    size_t n = rr_fmt_i64(name, world_rank);
    name[n++] = '-';
    pthread_mutex_lock(&files_mu);
    n += rr_fmt_i64(name + n, opens++);
    uint32_t id = rr_intern(name, n);
    int slot = 0;
    while (slot < n_files && files[slot].fh != fh) slot++;
    if (slot < (int)(sizeof files / sizeof *files)) {
        files[slot].fh = fh;
        files[slot].id = id;
        if (slot == n_files) n_files++;
    }
    pthread_mutex_unlock(&files_mu);
    return id;
}

static void file_closed(mpi_file fh)
{
    pthread_mutex_lock(&files_mu);
    for (int i = 0; i < n_files; i++)
        if (files[i].fh == fh) files[i] = files[--n_files];
    pthread_mutex_unlock(&files_mu);
}

/* ---- life cycle ---- */

static int (*real_MPI_Init)(int *, char ***);
static int (*real_MPI_Init_thread)(int *, char ***, int, int *);
static int (*real_MPI_Finalize)(void);

RR_VISIBLE int MPI_Init(int *argc, char ***argv)
{
    MPI_REAL(MPI_Init);
    int ret = real_MPI_Init(argc, argv);
    if (ret == 0) ranks_known();
    return ret;
}

RR_VISIBLE int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    MPI_REAL(MPI_Init_thread);
    int ret = real_MPI_Init_thread(argc, argv, required, provided);
    if (ret == 0) ranks_known();
    return ret;
}

/* Written before MPI goes away, in case the launcher kills the ranks right after. */
RR_VISIBLE int MPI_Finalize(void)
{
    MPI_REAL(MPI_Finalize);
    rr_flush_all(0);
    return real_MPI_Finalize();
}

/* ---- MPI-IO ---- */

static int (*real_MPI_File_open)(mpi_h, const char *, int, mpi_h, mpi_file *);
static int (*real_MPI_File_close)(mpi_file *);

RR_VISIBLE int MPI_File_open(mpi_h comm, const char *path, int amode, mpi_h info, mpi_file *fh)
{
    MPI_REAL(MPI_File_open);
    rr_thread *t = rr_enter(RR_L_MPIIO);
    if (!t) return real_MPI_File_open(comm, path, amode, info, fh);
    rr_rec *r = rr_begin(t, RR_MPI_FILE_OPEN, RR_S_MPI_OPEN);
    int ret = real_MPI_File_open(comm, path, amode, info, fh);
    /* ROMIO accepts "ufs:" style prefixes; the file is what follows. */
    const char *colon = strchr(path, ':');
    if (colon && colon - path > 1 && !memchr(path, '/', (size_t)(colon - path))) path = colon + 1;
    uint32_t id = rr_path_id(AT_FDCWD, path, -1);
    if (!id) {
        rr_drop(t, r);
        return ret;
    }
    r->a[0] = comm_name(comm);
    r->a[1] = id;
    r->a[2] = amode;
    r->a[3] = ret == 0 ? file_opened(*fh) : rr_intern("MPI_FILE_NULL", 13);
    rr_end(t, r, RR_RET(ret));
    return ret;
}

RR_VISIBLE int MPI_File_close(mpi_file *fh)
{
    MPI_REAL(MPI_File_close);
    rr_thread *t = rr_enter(RR_L_MPIIO);
    if (!t) return real_MPI_File_close(fh);
    mpi_file was = *fh;
    rr_rec *r = rr_begin(t, RR_MPI_FILE_CLOSE, RR_S_P);
    r->a[0] = file_name(was);
    int ret = real_MPI_File_close(fh);
    file_closed(was);
    rr_end(t, r, RR_RET(ret));
    return ret;
}

/* The calls on an open file: one shape each (rr_lib_impl.h), generated. */
#define FH_CALL(name, func, spec, params, args, fill)                                              \
    static int(*real_##name) params;                                                               \
    RR_VISIBLE int name params                                                                     \
    {                                                                                              \
        MPI_REAL(name);                                                                            \
        rr_thread *t = rr_enter(RR_L_MPIIO);                                                       \
        if (!t) return real_##name args;                                                           \
        rr_rec *r = rr_begin(t, func, spec);                                                       \
        r->a[0] = file_name(fh);                                                                   \
        int ret = real_##name args;                                                                \
        fill;                                                                                      \
        rr_end(t, r, RR_RET(ret));                                                                 \
        return ret;                                                                                \
    }

#define RW_AT(name, func)                                                                          \
    FH_CALL(name, func, RR_S_MPI_RW_AT,                                                            \
            (mpi_file fh, mpi_off off, void *buf, int count, mpi_h type, void *status),            \
            (fh, off, buf, count, type, status),                                                   \
            (r->a[1] = off, r->a[2] = count, r->a[3] = type_name(type),                            \
             r->a[4] = status_name(status)))
#define RW(name, func)                                                                             \
    FH_CALL(name, func, RR_S_MPI_RW,                                                               \
            (mpi_file fh, void *buf, int count, mpi_h type, void *status),                         \
            (fh, buf, count, type, status),                                                        \
            (r->a[1] = count, r->a[2] = type_name(type), r->a[3] = status_name(status)))
#define IRW_AT(name, func)                                                                         \
    FH_CALL(name, func, RR_S_MPI_IRW_AT,                                                           \
            (mpi_file fh, mpi_off off, void *buf, int count, mpi_h type, void *req),               \
            (fh, off, buf, count, type, req),                                                      \
            (r->a[1] = off, r->a[2] = count, r->a[3] = type_name(type)))
#define IRW(name, func)                                                                            \
    FH_CALL(name, func, RR_S_MPI_IRW, (mpi_file fh, void *buf, int count, mpi_h type, void *req),  \
            (fh, buf, count, type, req), (r->a[1] = count, r->a[2] = type_name(type)))
#define BEGIN_AT(name, func)                                                                       \
    FH_CALL(name, func, RR_S_MPI_BEGIN_AT,                                                         \
            (mpi_file fh, mpi_off off, void *buf, int count, mpi_h type),                          \
            (fh, off, buf, count, type),                                                           \
            (r->a[1] = off, r->a[2] = count, r->a[3] = type_name(type)))
#define BEGIN(name, func)                                                                          \
    FH_CALL(name, func, RR_S_MPI_BEGIN, (mpi_file fh, void *buf, int count, mpi_h type),           \
            (fh, buf, count, type), (r->a[1] = count, r->a[2] = type_name(type)))

RW_AT(MPI_File_read_at, RR_MPI_FILE_READ_AT)
RW_AT(MPI_File_write_at, RR_MPI_FILE_WRITE_AT)
RW_AT(MPI_File_read_at_all, RR_MPI_FILE_READ_AT_ALL)
RW_AT(MPI_File_write_at_all, RR_MPI_FILE_WRITE_AT_ALL)
RW(MPI_File_read, RR_MPI_FILE_READ)
RW(MPI_File_write, RR_MPI_FILE_WRITE)
RW(MPI_File_read_all, RR_MPI_FILE_READ_ALL)
RW(MPI_File_write_all, RR_MPI_FILE_WRITE_ALL)
RW(MPI_File_read_shared, RR_MPI_FILE_READ_SHARED)
RW(MPI_File_write_shared, RR_MPI_FILE_WRITE_SHARED)
RW(MPI_File_read_ordered, RR_MPI_FILE_READ_ORDERED)
RW(MPI_File_write_ordered, RR_MPI_FILE_WRITE_ORDERED)
IRW_AT(MPI_File_iread_at, RR_MPI_FILE_IREAD_AT)
IRW_AT(MPI_File_iwrite_at, RR_MPI_FILE_IWRITE_AT)
IRW(MPI_File_iread, RR_MPI_FILE_IREAD)
IRW(MPI_File_iwrite, RR_MPI_FILE_IWRITE)
IRW(MPI_File_iread_shared, RR_MPI_FILE_IREAD_SHARED)
IRW(MPI_File_iwrite_shared, RR_MPI_FILE_IWRITE_SHARED)
BEGIN_AT(MPI_File_read_at_all_begin, RR_MPI_FILE_READ_AT_ALL_BEGIN)
BEGIN_AT(MPI_File_write_at_all_begin, RR_MPI_FILE_WRITE_AT_ALL_BEGIN)
BEGIN(MPI_File_read_all_begin, RR_MPI_FILE_READ_ALL_BEGIN)
BEGIN(MPI_File_write_all_begin, RR_MPI_FILE_WRITE_ALL_BEGIN)
BEGIN(MPI_File_read_ordered_begin, RR_MPI_FILE_READ_ORDERED_BEGIN)
BEGIN(MPI_File_write_ordered_begin, RR_MPI_FILE_WRITE_ORDERED_BEGIN)

FH_CALL(MPI_File_sync, RR_MPI_FILE_SYNC, RR_S_P, (mpi_file fh), (fh), (void)0)
FH_CALL(MPI_File_set_size, RR_MPI_FILE_SET_SIZE, RR_S_PD, (mpi_file fh, mpi_off size), (fh, size),
        r->a[1] = size)
FH_CALL(MPI_File_get_size, RR_MPI_FILE_GET_SIZE, RR_S_PD, (mpi_file fh, mpi_off *size), (fh, size),
        r->a[1] = ret == 0 ? *size : -1)
FH_CALL(MPI_File_seek, RR_MPI_FILE_SEEK, RR_S_PDD, (mpi_file fh, mpi_off off, int whence),
        (fh, off, whence), (r->a[1] = off, r->a[2] = whence))
FH_CALL(MPI_File_seek_shared, RR_MPI_FILE_SEEK_SHARED, RR_S_PDD,
        (mpi_file fh, mpi_off off, int whence), (fh, off, whence),
        (r->a[1] = off, r->a[2] = whence))
FH_CALL(MPI_File_set_view, RR_MPI_FILE_SET_VIEW, RR_S_MPI_SET_VIEW,
        (mpi_file fh, mpi_off disp, mpi_h etype, mpi_h ftype, const char *rep, mpi_h info),
        (fh, disp, etype, ftype, rep, info),
        (r->a[1] = disp, r->a[2] = type_name(etype), r->a[3] = type_name(ftype),
         r->a[4] = rr_intern(rep ? rep : "???", rep ? strlen(rep) : 3)))

/* ---- collectives ---- */

static int (*real_MPI_Barrier)(mpi_h);

/* The call a hung job waits in: its record is in flight until it returns (rr_core.c). */
RR_VISIBLE int MPI_Barrier(mpi_h comm)
{
    MPI_REAL(MPI_Barrier);
    rr_thread *t = rr_enter(RR_L_MPI);
    if (!t) return real_MPI_Barrier(comm);
    rr_rec *r = rr_begin(t, RR_MPI_BARRIER, RR_S_P);
    r->a[0] = comm_name(comm);
    int ret = real_MPI_Barrier(comm);
    rr_end(t, r, RR_RET(ret));
    return ret;
}
