/*
** rr_hdf5.c: the HDF5 wrappers of libtracerecord.so (H5F and H5D, the
** calls Darshan's HDF5 module counts), without hdf5.h.
**
** The library is not linked with HDF5: each wrapper finds the next H5<name>
** with dlsym when first called, so a program without HDF5 never reaches
** them.  Types are HDF5 1.10+'s (H5Ipublic.h: hid_t is int64_t; herr_t is
** int; hssize_t is long long); under an older HDF5, whose hid_t is an int,
** the calls pass through untraced (H5get_libversion says which).  A
** libhdf5 that a library opened RTLD_LOCAL brought in (Python's extension
** modules are opened so, h5py's too) is outside the scope RTLD_NEXT
** searches: it is then found among the loaded objects (h5_resolve).
**
** Arguments are Recorder's (lib/recorder-hdf5.c, ids 169-189): ids, flags
** and scopes in decimal, a file's path resolved as open's is, a dataset's
** name as given, the buffer "%p".  tracerecord adds, after them:
**   H5Dcreate/H5Dopen: "dataset=<file>:<name>", Darshan's H5D record name
**     (darshan-hdf5.c: the file's path, ':', the dataset's name), with the
**     dataset's full name from H5Iget_name (Darshan joins the location's
**     name and the name given without a '/': "/grpd" for "d" in "/grp");
**   H5Dread/H5Dwrite: "bytes=N", what Darshan adds to H5D_BYTES_*: the
**     points selected in the FILE dataspace (H5S_ALL: the dataset's whole
**     extent) times the size of the DATASET's type; 0 when the call failed;
**   every call: "ret=N" as every wrapper (an open's id: what the analysis
**     follows the ids of the calls after it with).
** The queries that count the bytes run inside the call's record, after the
** real call (they make no I/O).
*/
#include "rr_impl.h"
#include "rr_lib_impl.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

typedef int64_t hid;
typedef int herr;

#define H5S_ALL_ID 0 /* H5S_ALL in H5Spublic.h */

static int h5_traced = -1; /* 1: HDF5 1.10+, 0: older, -1: not asked yet */
static herr (*real_H5get_libversion)(unsigned *, unsigned *, unsigned *);
static ssize_t (*real_H5Fget_name)(hid, char *, size_t);
static ssize_t (*real_H5Iget_name)(hid, char *, size_t);
static hid (*real_H5Dget_space)(hid);
static hid (*real_H5Dget_type)(hid);
static long long (*real_H5Sget_select_npoints)(hid);
static size_t (*real_H5Tget_size)(hid);
static herr (*real_H5Sclose)(hid);
static herr (*real_H5Tclose)(hid);

/* The loaded objects but this library, by name. */
typedef struct h5_objs {
    const char *self;
    const char *name[256];
    size_t n;
} h5_objs;

static int h5_obj(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    h5_objs *o = arg;
    if (info->dlpi_name[0] && strcmp(info->dlpi_name, o->self) != 0 && o->n < 256)
        o->name[o->n++] = info->dlpi_name;
    return 0;
}

/* NAME after this library into *SLOT, else in any loaded object but this one (names first:
 * dlopen is not called under dl_iterate_phdr's lock). */
static void h5_resolve(void *slot, const char *name)
{
    rr_resolve(slot, name, NULL);
    void *p;
    memcpy(&p, slot, sizeof p);
    Dl_info me;
    if (p || !dladdr(&h5_traced, &me) || !me.dli_fname) return;
    h5_objs o = {me.dli_fname, {NULL}, 0};
    dl_iterate_phdr(h5_obj, &o);
    for (size_t i = 0; i < o.n && !p; i++) {
        void *h = dlopen(o.name[i], RTLD_LAZY | RTLD_NOLOAD);
        if (h) p = dlsym(h, name), dlclose(h);
    }
    memcpy(slot, &p, sizeof p);
}

#define H5_REAL(name)                                                                              \
    if (!real_##name) h5_resolve(&real_##name, #name)

static rr_thread *h5_enter(void)
{
    rr_thread *t = rr_enter(RR_L_HDF5);
    if (!t || h5_traced == 0) return NULL;
    if (h5_traced < 0) {
        unsigned major = 0, minor = 0, release = 0;
        H5_REAL(H5get_libversion);
        h5_traced = real_H5get_libversion && real_H5get_libversion(&major, &minor, &release) >= 0 &&
                    (major > 1 || minor >= 10);
    }
    return h5_traced ? t : NULL;
}

/* Dataset DSET's Darshan name "<file>:<dataset>", interned; 0 when its file is excluded. */
static uint32_t dataset_path(hid dset)
{
    char file[PATH_MAX], name[PATH_MAX + 1024];
    H5_REAL(H5Fget_name);
    H5_REAL(H5Iget_name);
    if (!real_H5Fget_name || !real_H5Iget_name) return 0;
    ssize_t n = real_H5Fget_name(dset, file, sizeof file);
    /* The file is open, so it exists: realpath is the path rr_path_id gives it. */
    if (n <= 0 || (size_t)n >= sizeof file || !realpath(file, name) ||
        !rr_path_id(AT_FDCWD, name, -1))
        return 0;
    size_t len = strlen(name);
    name[len++] = ':';
    ssize_t k = real_H5Iget_name(dset, name + len, sizeof name - len);
    if (k < 0 || (size_t)k >= sizeof name - len) return 0;
    return rr_intern(name, len + (size_t)k);
}

/* Darshan's H5D bytes of a read or write of DSET through file dataspace FSPACE; -1 unknown. */
static int64_t dataset_bytes(hid dset, hid fspace, herr ret)
{
    if (ret < 0) return 0;
    H5_REAL(H5Dget_space);
    H5_REAL(H5Dget_type);
    H5_REAL(H5Sget_select_npoints);
    H5_REAL(H5Tget_size);
    H5_REAL(H5Sclose);
    H5_REAL(H5Tclose);
    if (!real_H5Dget_space || !real_H5Dget_type || !real_H5Sget_select_npoints ||
        !real_H5Tget_size || !real_H5Sclose || !real_H5Tclose)
        return -1;
    hid space = fspace == H5S_ALL_ID ? real_H5Dget_space(dset) : fspace;
    long long points = space >= 0 ? real_H5Sget_select_npoints(space) : -1;
    if (fspace == H5S_ALL_ID && space >= 0) real_H5Sclose(space);
    hid type = real_H5Dget_type(dset);
    size_t size = type >= 0 ? real_H5Tget_size(type) : 0;
    if (type >= 0) real_H5Tclose(type);
    if (points < 0 || size == 0 || (uint64_t)points > (uint64_t)INT64_MAX / size) return -1;
    return points * (int64_t)size;
}

/*
** A call: FILL sets the record's arguments after the real call ARGS (RET
** is its result); a FILL that leaves KEEP 0 drops the record (its file is
** excluded).
*/
#define H5_CALL(type, name, func, spec, params, args, fill)                                        \
    static type(*real_##name) params;                                                              \
    RR_VISIBLE type name params                                                                    \
    {                                                                                              \
        H5_REAL(name);                                                                             \
        if (!real_##name) return -1;                                                               \
        rr_thread *t = h5_enter();                                                                 \
        if (!t) return real_##name args;                                                           \
        rr_rec *r = rr_begin(t, func, spec);                                                       \
        type ret = real_##name args;                                                               \
        int keep = 1;                                                                              \
        fill;                                                                                      \
        if (keep)                                                                                  \
            rr_end(t, r, (int64_t)ret);                                                            \
        else                                                                                       \
            rr_drop(t, r);                                                                         \
        return ret;                                                                                \
    }

/* ---- H5F ---- */

H5_CALL(hid, H5Fcreate, RR_H5FCREATE, RR_S_PDDD,
        (const char *filename, unsigned flags, hid fcpl, hid fapl), (filename, flags, fcpl, fapl),
        (r->a[0] = rr_path_id(AT_FDCWD, filename, -1), keep = r->a[0] != 0, r->a[1] = flags,
         r->a[2] = fcpl, r->a[3] = fapl))
H5_CALL(hid, H5Fopen, RR_H5FOPEN, RR_S_PDD, (const char *filename, unsigned flags, hid fapl),
        (filename, flags, fapl),
        (r->a[0] = rr_path_id(AT_FDCWD, filename, -1), keep = r->a[0] != 0, r->a[1] = flags,
         r->a[2] = fapl))
H5_CALL(herr, H5Fclose, RR_H5FCLOSE, RR_S_D, (hid file), (file), r->a[0] = file)
H5_CALL(herr, H5Fflush, RR_H5FFLUSH, RR_S_DD, (hid object, int scope), (object, scope),
        (r->a[0] = object, r->a[1] = scope))

/* ---- H5D ---- */

/* An open: the location and name, and the dataset's Darshan name when it opened. */
#define DSET_OPENED(loc, name, at)                                                                 \
    r->a[0] = loc;                                                                                 \
    r->a[1] = rr_intern(name ? name : "", name ? strlen(name) : 0);                                \
    r->a[at] = ret >= 0 ? dataset_path(ret) : 0;                                                   \
    keep = ret < 0 || r->a[at] != 0

H5_CALL(hid, H5Dcreate1, RR_H5DCREATE1, RR_S_H5DCREATE1,
        (hid loc, const char *name, hid type, hid space, hid dcpl), (loc, name, type, space, dcpl),
        (r->a[2] = type, r->a[3] = space, r->a[4] = dcpl);
        DSET_OPENED(loc, name, 5))
H5_CALL(hid, H5Dcreate2, RR_H5DCREATE2, RR_S_H5DCREATE2,
        (hid loc, const char *name, hid type, hid space, hid lcpl, hid dcpl, hid dapl),
        (loc, name, type, space, lcpl, dcpl, dapl),
        (r->a[2] = type, r->a[3] = space, r->a[4] = lcpl, r->a[5] = dcpl, r->a[6] = dapl);
        DSET_OPENED(loc, name, 7))
H5_CALL(hid, H5Dopen1, RR_H5DOPEN1, RR_S_H5DOPEN1, (hid loc, const char *name), (loc, name),
        DSET_OPENED(loc, name, 2))
H5_CALL(hid, H5Dopen2, RR_H5DOPEN2, RR_S_H5DOPEN2, (hid loc, const char *name, hid dapl),
        (loc, name, dapl), r->a[2] = dapl;
        DSET_OPENED(loc, name, 3))
H5_CALL(herr, H5Dclose, RR_H5DCLOSE, RR_S_D, (hid dset), (dset), r->a[0] = dset)

#define DSET_RW(name, func, buf_type)                                                              \
    H5_CALL(herr, name, func, RR_S_H5DRW,                                                          \
            (hid dset, hid mtype, hid mspace, hid fspace, hid xfer, buf_type buf),                 \
            (dset, mtype, mspace, fspace, xfer, buf),                                              \
            (r->a[0] = dset, r->a[1] = mtype, r->a[2] = mspace, r->a[3] = fspace, r->a[4] = xfer,  \
             r->a[5] = dataset_bytes(dset, fspace, ret)))

DSET_RW(H5Dread, RR_H5DREAD, void *)
DSET_RW(H5Dwrite, RR_H5DWRITE, const void *)
