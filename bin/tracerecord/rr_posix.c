/*
** rr_posix.c: the POSIX and stdio wrappers of libtracerecord.so, and the
** process events (exec, _exit, vfork, the signal disposition it installs).
**
** Each wrapper has the name the program calls: the 64-bit and FORTIFY
** entry points (open64, __open_2, __open64_2, openat, fopen64, pread64, ...)
** and glibc 2.33+'s real stat, lstat, fstat and fstatat (with their 64
** forms) beside the older __xstat family.  Recorder's list (recorder.md §8)
** has no openat, __open_2, stat or fflush: they are recorded as their
** nearest entry (openat and __open*_2 as open/open64 with the resolved
** absolute path, stat/lstat/fstat/fstatat as __xstat/__lxstat/__fxstat
** with version 1, unlinkat/mkdirat/renameat as unlink or rmdir/mkdir/
** rename, dup3 as dup2, fseeko64/ftello64 as fseeko/ftello, rewind as
** fseek to 0 from SEEK_SET, fcntl64 as fcntl) and fflush as a user function
** named fflush.  fcntl is traced for F_DUPFD and F_DUPFD_CLOEXEC only: the
** new descriptor names the file (Darshan counts these, and dup, dup2, dup3
** and fileno, as opens of the file).  Recorder keeps no return values; each
** finished call gets its own as a last argument ret=N, so that the bytes a
** call moved and its failure are known.
**
** Descriptors and streams are traced when a traced open made them (fd ->
** path table); stdin, stdout, stderr, pipes and sockets are not, nor are
** paths under the excluded prefixes (default /proc, /sys, /dev).
*/
#include "rr_impl.h"
#include "rr_lib_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#if defined(__x86_64__)
#define RR_STAT_VER 1 /* _STAT_VER of the old __xstat interface */
#else
#define RR_STAT_VER 0
#endif

#define HAS_MODE(flags) (((flags)&O_CREAT) || ((flags)&O_TMPFILE) == O_TMPFILE)

/* glibc's old stat interface and the FORTIFY entry points have no prototypes in new headers. */
int __xstat(int ver, const char *path, struct stat *buf);
int __xstat64(int ver, const char *path, struct stat64 *buf);
int __lxstat(int ver, const char *path, struct stat *buf);
int __lxstat64(int ver, const char *path, struct stat64 *buf);
int __fxstat(int ver, int fd, struct stat *buf);
int __fxstat64(int ver, int fd, struct stat64 *buf);
int __open_2(const char *path, int flags);
int fcntl64(int fd, int cmd, ...);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
ssize_t __read_chk(int fd, void *buf, size_t n, size_t size);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t size);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t size);
size_t __fread_chk(void *buf, size_t size_buf, size_t size, size_t n, FILE *f);

#define REAL_PTR(name) static __typeof__(name) *real_##name

/* A wrapper's return value as the trace keeps it: a stream is 0, or -1 when NULL. */
#define RET(x) _Generic((x), FILE * : rr_ret_ptr((const void *)(uintptr_t)(x)), default : RR_RET(x))

/*
** A call on descriptor FD, traced when FD is: FILL sets the record's
** arguments (PATH is FD's file) after the real call ARGS.
*/
#define FD_CALL(type, name, layer, func, spec, fd, args, fill)                                     \
    {                                                                                              \
        RR_REAL(name);                                                                             \
        rr_thread *t = rr_enter(layer);                                                            \
        uint32_t path = t ? rr_fd_path(fd) : 0;                                                    \
        if (!path) return real_##name args;                                                        \
        rr_rec *r = rr_begin(t, func, spec);                                                       \
        type ret = real_##name args;                                                               \
        fill;                                                                                      \
        rr_end(t, r, RET(ret));                                                                    \
        return ret;                                                                                \
    }

/* A call on a path: the record is dropped when the path is excluded. */
#define PATH_CALL(type, name, layer, func, spec, dirfd, p, args, fill)                             \
    {                                                                                              \
        RR_REAL(name);                                                                             \
        rr_thread *t = rr_enter(layer);                                                            \
        if (!t) return real_##name args;                                                           \
        rr_rec *r = rr_begin(t, func, spec);                                                       \
        type ret = real_##name args;                                                               \
        uint32_t path = rr_path_id(dirfd, p, -1);                                                  \
        if (!path) {                                                                               \
            rr_drop(t, r);                                                                         \
            return ret;                                                                            \
        }                                                                                          \
        fill;                                                                                      \
        rr_end(t, r, RET(ret));                                                                    \
        return ret;                                                                                \
    }

/* ---- open ---- */

REAL_PTR(open);
REAL_PTR(open64);
REAL_PTR(openat);
REAL_PTR(openat64);
REAL_PTR(__open_2);
REAL_PTR(__open64_2);
REAL_PTR(__openat_2);
REAL_PTR(__openat64_2);
REAL_PTR(creat);
REAL_PTR(creat64);

enum { K_OPEN, K_OPEN64, K_OPENAT, K_OPENAT64, K_OPEN_2, K_OPEN64_2, K_OPENAT_2, K_OPENAT64_2 };

static int call_open(int kind, int dirfd, const char *path, int flags, mode_t mode)
{
    switch (kind) {
    case K_OPEN:
        RR_REAL(open);
        return real_open(path, flags, mode);
    case K_OPEN64:
        RR_REAL(open64);
        return real_open64(path, flags, mode);
    case K_OPENAT:
        RR_REAL(openat);
        return real_openat(dirfd, path, flags, mode);
    case K_OPENAT64:
        RR_REAL(openat64);
        return real_openat64(dirfd, path, flags, mode);
    case K_OPEN_2:
        RR_REAL(__open_2);
        return real___open_2(path, flags);
    case K_OPEN64_2:
        RR_REAL(__open64_2);
        return real___open64_2(path, flags);
    case K_OPENAT_2:
        RR_REAL(__openat_2);
        return real___openat_2(dirfd, path, flags);
    default:
        RR_REAL(__openat64_2);
        return real___openat64_2(dirfd, path, flags);
    }
}

/* open as Recorder records it: path, flags, and mode only when the call has one. */
static int traced_open(int kind, int func, int dirfd, const char *path, int flags, mode_t mode)
{
    rr_thread *t = rr_enter(RR_L_POSIX);
    if (!t) return call_open(kind, dirfd, path, flags, mode);
    int has_mode = HAS_MODE(flags);
    rr_rec *r = rr_begin(t, func, has_mode ? RR_S_PDD : RR_S_PD);
    int fd = call_open(kind, dirfd, path, flags, mode);
    uint32_t id = rr_path_id(dirfd, path, fd);
    rr_fd_set(fd, id);
    if (!id) {
        rr_drop(t, r);
        return fd;
    }
    r->a[0] = id;
    r->a[1] = flags;
    r->a[2] = (int64_t)mode;
    rr_end(t, r, fd);
    return fd;
}

#define OPEN_MODE(flags)                                                                           \
    mode_t mode = 0;                                                                               \
    if (HAS_MODE(flags)) {                                                                         \
        va_list ap;                                                                                \
        va_start(ap, flags);                                                                       \
        mode = (mode_t)va_arg(ap, int);                                                            \
        va_end(ap);                                                                                \
    }

RR_VISIBLE int open(const char *path, int flags, ...)
{
    OPEN_MODE(flags);
    return traced_open(K_OPEN, RR_OPEN, AT_FDCWD, path, flags, mode);
}

RR_VISIBLE int open64(const char *path, int flags, ...)
{
    OPEN_MODE(flags);
    return traced_open(K_OPEN64, RR_OPEN64, AT_FDCWD, path, flags, mode);
}

RR_VISIBLE int openat(int dirfd, const char *path, int flags, ...)
{
    OPEN_MODE(flags);
    return traced_open(K_OPENAT, RR_OPEN, dirfd, path, flags, mode);
}

RR_VISIBLE int openat64(int dirfd, const char *path, int flags, ...)
{
    OPEN_MODE(flags);
    return traced_open(K_OPENAT64, RR_OPEN64, dirfd, path, flags, mode);
}

RR_VISIBLE int __open_2(const char *path, int flags)
{
    return traced_open(K_OPEN_2, RR_OPEN, AT_FDCWD, path, flags, 0);
}

RR_VISIBLE int __open64_2(const char *path, int flags)
{
    return traced_open(K_OPEN64_2, RR_OPEN64, AT_FDCWD, path, flags, 0);
}

RR_VISIBLE int __openat_2(int dirfd, const char *path, int flags)
{
    return traced_open(K_OPENAT_2, RR_OPEN, dirfd, path, flags, 0);
}

RR_VISIBLE int __openat64_2(int dirfd, const char *path, int flags)
{
    return traced_open(K_OPENAT64_2, RR_OPEN64, dirfd, path, flags, 0);
}

static int traced_creat(int func, const char *path, mode_t mode)
{
    rr_thread *t = rr_enter(RR_L_POSIX);
    int fd;
    if (func == RR_CREAT) {
        RR_REAL(creat);
        if (!t) return real_creat(path, mode);
    } else {
        RR_REAL(creat64);
        if (!t) return real_creat64(path, mode);
    }
    rr_rec *r = rr_begin(t, func, RR_S_PD);
    fd = func == RR_CREAT ? real_creat(path, mode) : real_creat64(path, mode);
    uint32_t id = rr_path_id(AT_FDCWD, path, fd);
    rr_fd_set(fd, id);
    if (!id) {
        rr_drop(t, r);
        return fd;
    }
    r->a[0] = id;
    r->a[1] = (int64_t)mode;
    rr_end(t, r, fd);
    return fd;
}

RR_VISIBLE int creat(const char *path, mode_t mode)
{
    return traced_creat(RR_CREAT, path, mode);
}

RR_VISIBLE int creat64(const char *path, mode_t mode)
{
    return traced_creat(RR_CREAT64, path, mode);
}

/* ---- descriptors ---- */

REAL_PTR(close);
REAL_PTR(read);
REAL_PTR(write);
REAL_PTR(pread);
REAL_PTR(pread64);
REAL_PTR(pwrite);
REAL_PTR(pwrite64);
REAL_PTR(readv);
REAL_PTR(writev);
REAL_PTR(lseek);
REAL_PTR(lseek64);
REAL_PTR(fsync);
REAL_PTR(fdatasync);
REAL_PTR(ftruncate);
REAL_PTR(ftruncate64);
REAL_PTR(mmap);
REAL_PTR(mmap64);
REAL_PTR(dup);
REAL_PTR(dup2);
REAL_PTR(dup3);

RR_VISIBLE int close(int fd)
{
    RR_REAL(close);
    rr_thread *t = rr_enter(RR_L_POSIX);
    uint32_t path = t ? rr_fd_path(fd) : 0;
    if (!path) return real_close(fd);
    rr_rec *r = rr_begin(t, RR_CLOSE, RR_S_P);
    /* Cleared first: another thread may get the number back as soon as it is closed. */
    rr_fd_set(fd, 0);
    int ret = real_close(fd);
    r->a[0] = path;
    rr_end(t, r, RET(ret));
    return ret;
}

RR_VISIBLE ssize_t read(int fd, void *buf, size_t n)
    FD_CALL(ssize_t, read, RR_L_POSIX, RR_READ, RR_S_PXD, fd, (fd, buf, n),
            (r->a[0] = path, r->a[1] = (int64_t)n))

    /* FORTIFY's checked reads (the buffer's size known at compile time): as read, pread. */
    REAL_PTR(__read_chk);
REAL_PTR(__pread_chk);
REAL_PTR(__pread64_chk);

RR_VISIBLE ssize_t __read_chk(int fd, void *buf, size_t n, size_t size)
    FD_CALL(ssize_t, __read_chk, RR_L_POSIX, RR_READ, RR_S_PXD, fd, (fd, buf, n, size),
            (r->a[0] = path, r->a[1] = (int64_t)n))

        RR_VISIBLE ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t size)
            FD_CALL(ssize_t, __pread_chk, RR_L_POSIX, RR_PREAD, RR_S_PXDD, fd,
                    (fd, buf, n, off, size), (r->a[0] = path, r->a[1] = (int64_t)n, r->a[2] = off))

                RR_VISIBLE ssize_t
    __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t size)
        FD_CALL(ssize_t, __pread64_chk, RR_L_POSIX, RR_PREAD64, RR_S_PXDD, fd,
                (fd, buf, n, off, size), (r->a[0] = path, r->a[1] = (int64_t)n, r->a[2] = off))

            RR_VISIBLE ssize_t write(int fd, const void *buf, size_t n)
                FD_CALL(ssize_t, write, RR_L_POSIX, RR_WRITE, RR_S_PXD, fd, (fd, buf, n),
                        (r->a[0] = path, r->a[1] = (int64_t)n))

                    RR_VISIBLE ssize_t
    pread(int fd, void *buf, size_t n, off_t off)
        FD_CALL(ssize_t, pread, RR_L_POSIX, RR_PREAD, RR_S_PXDD, fd, (fd, buf, n, off),
                (r->a[0] = path, r->a[1] = (int64_t)n, r->a[2] = off))

            RR_VISIBLE ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
                FD_CALL(ssize_t, pread64, RR_L_POSIX, RR_PREAD64, RR_S_PXDD, fd, (fd, buf, n, off),
                        (r->a[0] = path, r->a[1] = (int64_t)n, r->a[2] = off))

                    RR_VISIBLE ssize_t
    pwrite(int fd, const void *buf, size_t n, off_t off)
        FD_CALL(ssize_t, pwrite, RR_L_POSIX, RR_PWRITE, RR_S_PXDD, fd, (fd, buf, n, off),
                (r->a[0] = path, r->a[1] = (int64_t)n, r->a[2] = off))

            RR_VISIBLE ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
                FD_CALL(ssize_t, pwrite64, RR_L_POSIX, RR_PWRITE64, RR_S_PXDD, fd,
                        (fd, buf, n, off), (r->a[0] = path, r->a[1] = (int64_t)n, r->a[2] = off))

                    RR_VISIBLE ssize_t readv(int fd, const struct iovec *iov, int n)
                        FD_CALL(ssize_t, readv, RR_L_POSIX, RR_READV, RR_S_PXD, fd, (fd, iov, n),
                                (r->a[0] = path, r->a[1] = n))

                            RR_VISIBLE ssize_t writev(int fd, const struct iovec *iov, int n)
                                FD_CALL(ssize_t, writev, RR_L_POSIX, RR_WRITEV, RR_S_PXD, fd,
                                        (fd, iov, n), (r->a[0] = path, r->a[1] = n))

                                    RR_VISIBLE off_t
    lseek(int fd, off_t off, int whence)
        FD_CALL(off_t, lseek, RR_L_POSIX, RR_LSEEK, RR_S_PDD, fd, (fd, off, whence),
                (r->a[0] = path, r->a[1] = off, r->a[2] = whence))

            RR_VISIBLE off64_t lseek64(int fd, off64_t off, int whence)
                FD_CALL(off64_t, lseek64, RR_L_POSIX, RR_LSEEK64, RR_S_PDD, fd, (fd, off, whence),
                        (r->a[0] = path, r->a[1] = off, r->a[2] = whence))

                    RR_VISIBLE
    int fsync(int fd) FD_CALL(int, fsync, RR_L_POSIX, RR_FSYNC, RR_S_P, fd, (fd), (r->a[0] = path))

        RR_VISIBLE int fdatasync(int fd)
            FD_CALL(int, fdatasync, RR_L_POSIX, RR_FDATASYNC, RR_S_P, fd, (fd), (r->a[0] = path))

                RR_VISIBLE
    int ftruncate(int fd, off_t len) FD_CALL(int, ftruncate, RR_L_POSIX, RR_FTRUNCATE, RR_S_PD, fd,
                                             (fd, len), (r->a[0] = path, r->a[1] = len))

        RR_VISIBLE int ftruncate64(int fd, off64_t len)
            FD_CALL(int, ftruncate64, RR_L_POSIX, RR_FTRUNCATE, RR_S_PD, fd, (fd, len),
                    (r->a[0] = path, r->a[1] = len))

    /* Only mappings of traced files: anonymous memory is not I/O. */
    RR_VISIBLE void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
        FD_CALL(void *, mmap, RR_L_POSIX, RR_MMAP, RR_S_MMAP, fd, (addr, len, prot, flags, fd, off),
                (r->a[0] = (int64_t)len, r->a[1] = prot, r->a[2] = flags, r->a[3] = path,
                 r->a[4] = off))

            RR_VISIBLE
    void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
        FD_CALL(void *, mmap64, RR_L_POSIX, RR_MMAP64, RR_S_MMAP, fd,
                (addr, len, prot, flags, fd, off),
                (r->a[0] = (int64_t)len, r->a[1] = prot, r->a[2] = flags, r->a[3] = path,
                 r->a[4] = off))

            RR_VISIBLE int dup(int fd)
{
    RR_REAL(dup);
    rr_thread *t = rr_enter(RR_L_POSIX);
    uint32_t path = t ? rr_fd_path(fd) : 0;
    if (!path) return real_dup(fd);
    rr_rec *r = rr_begin(t, RR_DUP, RR_S_P);
    int ret = real_dup(fd);
    rr_fd_set(ret, path);
    r->a[0] = path;
    rr_end(t, r, RET(ret));
    return ret;
}

/* dup2 and dup3: NEWFD now names OLDFD's file, traced or not. */
static int traced_dup2(int oldfd, int newfd, int flags, int three)
{
    rr_thread *t = rr_enter(RR_L_POSIX);
    uint32_t path = t ? rr_fd_path(oldfd) : 0;
    rr_rec *r = path ? rr_begin(t, RR_DUP2, RR_S_PD) : NULL;
    int ret = three ? real_dup3(oldfd, newfd, flags) : real_dup2(oldfd, newfd);
    if (ret >= 0 && t) rr_fd_set(newfd, path);
    if (r) {
        r->a[0] = path;
        r->a[1] = newfd;
        rr_end(t, r, RET(ret));
    }
    return ret;
}

RR_VISIBLE int dup2(int oldfd, int newfd)
{
    RR_REAL(dup2);
    return traced_dup2(oldfd, newfd, 0, 0);
}

RR_VISIBLE int dup3(int oldfd, int newfd, int flags)
{
    RR_REAL(dup3);
    return traced_dup2(oldfd, newfd, flags, 1);
}

REAL_PTR(fcntl);
REAL_PTR(fcntl64);

/*
** fcntl's third argument is read as glibc's own fcntl reads it (a pointer's
** width, whatever CMD takes); only the descriptor-duplicating commands are
** traced, their argument being the lowest new descriptor.
*/
static int traced_fcntl(int is64, int fd, int cmd, void *arg)
{
    int dup = cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC;
    rr_thread *t = dup ? rr_enter(RR_L_POSIX) : NULL;
    uint32_t path = t ? rr_fd_path(fd) : 0;
    rr_rec *r = path ? rr_begin(t, RR_FCNTL, RR_S_PDD) : NULL;
    int ret = is64 ? real_fcntl64(fd, cmd, arg) : real_fcntl(fd, cmd, arg);
    if (!r) return ret;
    rr_fd_set(ret, path);
    r->a[0] = path;
    r->a[1] = cmd;
    r->a[2] = (int)(intptr_t)arg;
    rr_end(t, r, RET(ret));
    return ret;
}

/* fcntl and fcntl64 (what fcntl is with 64-bit offsets): the same, apart from the real call. */
#define FCNTL_WRAPPER(name, is64)                                                                  \
    RR_VISIBLE int name(int fd, int cmd, ...)                                                      \
    {                                                                                              \
        va_list ap;                                                                                \
        va_start(ap, cmd);                                                                         \
        void *arg = va_arg(ap, void *);                                                            \
        va_end(ap);                                                                                \
        RR_REAL(name);                                                                             \
        return traced_fcntl(is64, fd, cmd, arg);                                                   \
    }

FCNTL_WRAPPER(fcntl, 0)
FCNTL_WRAPPER(fcntl64, 1)

/* ---- stat: Recorder's __xstat family, the entry points glibc 2.33+ programs call ---- */

REAL_PTR(stat);
REAL_PTR(stat64);
REAL_PTR(lstat);
REAL_PTR(lstat64);
REAL_PTR(fstat);
REAL_PTR(fstat64);
REAL_PTR(fstatat);
REAL_PTR(fstatat64);
REAL_PTR(__xstat);
REAL_PTR(__xstat64);
REAL_PTR(__lxstat);
REAL_PTR(__lxstat64);
REAL_PTR(__fxstat);
REAL_PTR(__fxstat64);

/* Old programs bind the compat versions of __xstat & co. (absent from new headers). */
#define OLD_REAL(name)                                                                             \
    if (!real_##name) rr_resolve(&real_##name, #name, "GLIBC_2.2.5")

RR_VISIBLE int stat(const char *p, struct stat *buf)
    PATH_CALL(int, stat, RR_L_POSIX, RR_XSTAT, RR_S_DPX, AT_FDCWD, p, (p, buf),
              (r->a[0] = RR_STAT_VER, r->a[1] = path))

        RR_VISIBLE int stat64(const char *p, struct stat64 *buf)
            PATH_CALL(int, stat64, RR_L_POSIX, RR_XSTAT64, RR_S_DPX, AT_FDCWD, p, (p, buf),
                      (r->a[0] = RR_STAT_VER, r->a[1] = path))

                RR_VISIBLE int lstat(const char *p, struct stat *buf)
                    PATH_CALL(int, lstat, RR_L_POSIX, RR_LXSTAT, RR_S_DPX, AT_FDCWD, p, (p, buf),
                              (r->a[0] = RR_STAT_VER, r->a[1] = path))

                        RR_VISIBLE int lstat64(const char *p, struct stat64 *buf)
                            PATH_CALL(int, lstat64, RR_L_POSIX, RR_LXSTAT64, RR_S_DPX, AT_FDCWD, p,
                                      (p, buf), (r->a[0] = RR_STAT_VER, r->a[1] = path))

                                RR_VISIBLE
    int fstat(int fd, struct stat *buf) FD_CALL(int, fstat, RR_L_POSIX, RR_FXSTAT, RR_S_DPX, fd,
                                                (fd, buf), (r->a[0] = RR_STAT_VER, r->a[1] = path))

        RR_VISIBLE int fstat64(int fd, struct stat64 *buf)
            FD_CALL(int, fstat64, RR_L_POSIX, RR_FXSTAT64, RR_S_DPX, fd, (fd, buf),
                    (r->a[0] = RR_STAT_VER, r->a[1] = path))

    /* fstatat: on the descriptor itself with AT_EMPTY_PATH and "", else on a path. */
    static int stat_at_func(int flags, int wide)
{
    return (flags & AT_SYMLINK_NOFOLLOW ? RR_LXSTAT : RR_XSTAT) + wide;
}

RR_VISIBLE int fstatat(int dirfd, const char *p, struct stat *buf, int flags)
{
    RR_REAL(fstatat);
    if ((flags & AT_EMPTY_PATH) && !*p)
        FD_CALL(int, fstatat, RR_L_POSIX, RR_FXSTAT, RR_S_DPX, dirfd, (dirfd, p, buf, flags),
                (r->a[0] = RR_STAT_VER, r->a[1] = path))
    PATH_CALL(int, fstatat, RR_L_POSIX, stat_at_func(flags, 0), RR_S_DPX, dirfd, p,
              (dirfd, p, buf, flags), (r->a[0] = RR_STAT_VER, r->a[1] = path))
}

RR_VISIBLE int fstatat64(int dirfd, const char *p, struct stat64 *buf, int flags)
{
    RR_REAL(fstatat64);
    if ((flags & AT_EMPTY_PATH) && !*p)
        FD_CALL(int, fstatat64, RR_L_POSIX, RR_FXSTAT64, RR_S_DPX, dirfd, (dirfd, p, buf, flags),
                (r->a[0] = RR_STAT_VER, r->a[1] = path))
    PATH_CALL(int, fstatat64, RR_L_POSIX, stat_at_func(flags, 1), RR_S_DPX, dirfd, p,
              (dirfd, p, buf, flags), (r->a[0] = RR_STAT_VER, r->a[1] = path))
}

RR_VISIBLE int __xstat(int ver, const char *p, struct stat *buf)
{
    OLD_REAL(__xstat);
    PATH_CALL(int, __xstat, RR_L_POSIX, RR_XSTAT, RR_S_DPX, AT_FDCWD, p, (ver, p, buf),
              (r->a[0] = ver, r->a[1] = path))
}

RR_VISIBLE int __xstat64(int ver, const char *p, struct stat64 *buf)
{
    OLD_REAL(__xstat64);
    PATH_CALL(int, __xstat64, RR_L_POSIX, RR_XSTAT64, RR_S_DPX, AT_FDCWD, p, (ver, p, buf),
              (r->a[0] = ver, r->a[1] = path))
}

RR_VISIBLE int __lxstat(int ver, const char *p, struct stat *buf)
{
    OLD_REAL(__lxstat);
    PATH_CALL(int, __lxstat, RR_L_POSIX, RR_LXSTAT, RR_S_DPX, AT_FDCWD, p, (ver, p, buf),
              (r->a[0] = ver, r->a[1] = path))
}

RR_VISIBLE int __lxstat64(int ver, const char *p, struct stat64 *buf)
{
    OLD_REAL(__lxstat64);
    PATH_CALL(int, __lxstat64, RR_L_POSIX, RR_LXSTAT64, RR_S_DPX, AT_FDCWD, p, (ver, p, buf),
              (r->a[0] = ver, r->a[1] = path))
}

RR_VISIBLE int __fxstat(int ver, int fd, struct stat *buf)
{
    OLD_REAL(__fxstat);
    FD_CALL(int, __fxstat, RR_L_POSIX, RR_FXSTAT, RR_S_DPX, fd, (ver, fd, buf),
            (r->a[0] = ver, r->a[1] = path))
}

RR_VISIBLE int __fxstat64(int ver, int fd, struct stat64 *buf)
{
    OLD_REAL(__fxstat64);
    FD_CALL(int, __fxstat64, RR_L_POSIX, RR_FXSTAT64, RR_S_DPX, fd, (ver, fd, buf),
            (r->a[0] = ver, r->a[1] = path))
}

/* ---- names ---- */

REAL_PTR(unlink);
REAL_PTR(unlinkat);
REAL_PTR(rmdir);
REAL_PTR(mkdir);
REAL_PTR(mkdirat);
REAL_PTR(access);
REAL_PTR(truncate);
REAL_PTR(truncate64);
REAL_PTR(rename);
REAL_PTR(renameat);

RR_VISIBLE int unlink(const char *p)
    PATH_CALL(int, unlink, RR_L_POSIX, RR_UNLINK, RR_S_P, AT_FDCWD, p, (p), (r->a[0] = path))

        RR_VISIBLE int unlinkat(int dirfd, const char *p, int flags)
            PATH_CALL(int, unlinkat, RR_L_POSIX, flags &AT_REMOVEDIR ? RR_RMDIR : RR_UNLINK, RR_S_P,
                      dirfd, p, (dirfd, p, flags), (r->a[0] = path))

                RR_VISIBLE
    int rmdir(const char *p)
        PATH_CALL(int, rmdir, RR_L_POSIX, RR_RMDIR, RR_S_P, AT_FDCWD, p, (p), (r->a[0] = path))

            RR_VISIBLE int mkdir(const char *p, mode_t mode)
                PATH_CALL(int, mkdir, RR_L_POSIX, RR_MKDIR, RR_S_PD, AT_FDCWD, p, (p, mode),
                          (r->a[0] = path, r->a[1] = (int64_t)mode))

                    RR_VISIBLE int mkdirat(int dirfd, const char *p, mode_t mode)
                        PATH_CALL(int, mkdirat, RR_L_POSIX, RR_MKDIR, RR_S_PD, dirfd, p,
                                  (dirfd, p, mode), (r->a[0] = path, r->a[1] = (int64_t)mode))

                            RR_VISIBLE int access(const char *p, int mode)
                                PATH_CALL(int, access, RR_L_POSIX, RR_ACCESS, RR_S_PD, AT_FDCWD, p,
                                          (p, mode), (r->a[0] = path, r->a[1] = mode))

                                    RR_VISIBLE
    int truncate(const char *p, off_t len)
        PATH_CALL(int, truncate, RR_L_POSIX, RR_TRUNCATE, RR_S_PD, AT_FDCWD, p, (p, len),
                  (r->a[0] = path, r->a[1] = len))

            RR_VISIBLE int truncate64(const char *p, off64_t len)
                PATH_CALL(int, truncate64, RR_L_POSIX, RR_TRUNCATE, RR_S_PD, AT_FDCWD, p, (p, len),
                          (r->a[0] = path, r->a[1] = len))

                    static int traced_rename(int olddir, const char *from, int newdir,
                                             const char *to, int at)
{
    rr_thread *t = rr_enter(RR_L_POSIX);
    if (!t) return at ? real_renameat(olddir, from, newdir, to) : real_rename(from, to);
    rr_rec *r = rr_begin(t, RR_RENAME, RR_S_PP);
    int ret = at ? real_renameat(olddir, from, newdir, to) : real_rename(from, to);
    uint32_t a = rr_path_id(olddir, from, -1), b = rr_path_id(newdir, to, -1);
    if (!a || !b) {
        rr_drop(t, r);
        return ret;
    }
    r->a[0] = a;
    r->a[1] = b;
    rr_end(t, r, RET(ret));
    return ret;
}

RR_VISIBLE int rename(const char *from, const char *to)
{
    RR_REAL(rename);
    return traced_rename(AT_FDCWD, from, AT_FDCWD, to, 0);
}

RR_VISIBLE int renameat(int olddir, const char *from, int newdir, const char *to)
{
    RR_REAL(renameat);
    return traced_rename(olddir, from, newdir, to, 1);
}

/* ---- stdio ---- */

REAL_PTR(fopen);
REAL_PTR(fopen64);
REAL_PTR(fdopen);
REAL_PTR(fclose);
REAL_PTR(fread);
REAL_PTR(fwrite);
REAL_PTR(fseek);
REAL_PTR(fseeko);
REAL_PTR(fseeko64);
REAL_PTR(ftell);
REAL_PTR(ftello);
REAL_PTR(ftello64);
REAL_PTR(fflush);
REAL_PTR(remove);
REAL_PTR(fileno);
REAL_PTR(rewind);

/* F's descriptor, through the real fileno: the library's own calls are not the program's. */
static int stream_fd(FILE *f)
{
    RR_REAL(fileno);
    return real_fileno(f);
}

/* The file of stream F; fileno sets errno on streams without a descriptor. */
static uint32_t stream_path(FILE *f)
{
    if (!f) return 0;
    int err = errno;
    uint32_t id = rr_fd_path(stream_fd(f));
    errno = err;
    return id;
}

static FILE *traced_fopen(int func, const char *path, const char *mode)
{
    rr_thread *t = rr_enter(RR_L_STDIO);
    if (func == RR_FOPEN) {
        RR_REAL(fopen);
        if (!t) return real_fopen(path, mode);
    } else {
        RR_REAL(fopen64);
        if (!t) return real_fopen64(path, mode);
    }
    rr_rec *r = rr_begin(t, func, RR_S_PM);
    FILE *f = func == RR_FOPEN ? real_fopen(path, mode) : real_fopen64(path, mode);
    int err = errno, fd = f ? stream_fd(f) : -1;
    errno = err;
    uint32_t id = rr_path_id(AT_FDCWD, path, fd);
    rr_fd_set(fd, id);
    if (!id) {
        rr_drop(t, r);
        return f;
    }
    r->a[0] = id;
    r->a[1] = rr_inline(mode);
    rr_end(t, r, rr_ret_ptr(f));
    return f;
}

RR_VISIBLE FILE *fopen(const char *path, const char *mode)
{
    return traced_fopen(RR_FOPEN, path, mode);
}

RR_VISIBLE FILE *fopen64(const char *path, const char *mode)
{
    return traced_fopen(RR_FOPEN64, path, mode);
}

RR_VISIBLE FILE *fdopen(int fd, const char *mode)
    FD_CALL(FILE *, fdopen, RR_L_STDIO, RR_FDOPEN, RR_S_PM, fd, (fd, mode),
            (r->a[0] = path, r->a[1] = rr_inline(mode)))

        RR_VISIBLE int fclose(FILE *f)
{
    RR_REAL(fclose);
    rr_thread *t = rr_enter(RR_L_STDIO);
    uint32_t path = t ? stream_path(f) : 0;
    if (!path) return real_fclose(f);
    rr_rec *r = rr_begin(t, RR_FCLOSE, RR_S_P);
    rr_fd_set(stream_fd(f), 0);
    int ret = real_fclose(f);
    r->a[0] = path;
    rr_end(t, r, RET(ret));
    return ret;
}

/* A call on stream F in LAYER (fileno is Darshan's POSIX module), traced when F's file is. */
#define STREAM_CALL_IN(layer, type, name, func, spec, f, args, fill)                               \
    {                                                                                              \
        RR_REAL(name);                                                                             \
        rr_thread *t = rr_enter(layer);                                                            \
        uint32_t path = t ? stream_path(f) : 0;                                                    \
        if (!path) return real_##name args;                                                        \
        rr_rec *r = rr_begin(t, func, spec);                                                       \
        type ret = real_##name args;                                                               \
        fill;                                                                                      \
        rr_end(t, r, RET(ret));                                                                    \
        return ret;                                                                                \
    }
#define STREAM_CALL(...) STREAM_CALL_IN(RR_L_STDIO, __VA_ARGS__)

RR_VISIBLE size_t fread(void *buf, size_t size, size_t n, FILE *f)
    STREAM_CALL(size_t, fread, RR_FREAD, RR_S_XDDP, f, (buf, size, n, f),
                (r->a[0] = (int64_t)size, r->a[1] = (int64_t)n, r->a[2] = path))

        REAL_PTR(__fread_chk);

RR_VISIBLE size_t __fread_chk(void *buf, size_t size_buf, size_t size, size_t n, FILE *f)
    STREAM_CALL(size_t, __fread_chk, RR_FREAD, RR_S_XDDP, f, (buf, size_buf, size, n, f),
                (r->a[0] = (int64_t)size, r->a[1] = (int64_t)n, r->a[2] = path))

        RR_VISIBLE size_t fwrite(const void *buf, size_t size, size_t n, FILE *f)
            STREAM_CALL(size_t, fwrite, RR_FWRITE, RR_S_XDDP, f, (buf, size, n, f),
                        (r->a[0] = (int64_t)size, r->a[1] = (int64_t)n, r->a[2] = path))

                RR_VISIBLE int fseek(FILE *f, long off, int whence)
                    STREAM_CALL(int, fseek, RR_FSEEK, RR_S_PDD, f, (f, off, whence),
                                (r->a[0] = path, r->a[1] = off, r->a[2] = whence))

                        RR_VISIBLE int fseeko(FILE *f, off_t off, int whence)
                            STREAM_CALL(int, fseeko, RR_FSEEKO, RR_S_PDD, f, (f, off, whence),
                                        (r->a[0] = path, r->a[1] = off, r->a[2] = whence))

                                RR_VISIBLE
    int fseeko64(FILE *f, off64_t off, int whence)
        STREAM_CALL(int, fseeko64, RR_FSEEKO, RR_S_PDD, f, (f, off, whence),
                    (r->a[0] = path, r->a[1] = off, r->a[2] = whence))

            RR_VISIBLE long ftell(FILE *f)
                STREAM_CALL(long, ftell, RR_FTELL, RR_S_P, f, (f), (r->a[0] = path))

                    RR_VISIBLE off_t
    ftello(FILE *f) STREAM_CALL(off_t, ftello, RR_FTELLO, RR_S_P, f, (f), (r->a[0] = path))

        RR_VISIBLE off64_t ftello64(FILE *f)
            STREAM_CALL(off64_t, ftello64, RR_FTELLO, RR_S_P, f, (f), (r->a[0] = path))

    /* Darshan's POSIX module counts fileno as an open of the stream's file (POSIX_FILENOS). */
    RR_VISIBLE int fileno(FILE *f)
        STREAM_CALL_IN(RR_L_POSIX, int, fileno, RR_FILENO, RR_S_P, f, (f), (r->a[0] = path))

    /* Recorder lists no rewind: fseek(f, 0, SEEK_SET), which it is (errors cleared aside). */
    RR_VISIBLE void rewind(FILE *f)
{
    RR_REAL(rewind);
    rr_thread *t = rr_enter(RR_L_STDIO);
    uint32_t path = t ? stream_path(f) : 0;
    if (!path) {
        real_rewind(f);
        return;
    }
    rr_rec *r = rr_begin(t, RR_FSEEK, RR_S_PDD);
    real_rewind(f);
    r->a[0] = path;
    r->a[1] = 0;
    r->a[2] = SEEK_SET;
    rr_end(t, r, 0);
}

/* Recorder 2.5 lists no fflush: a user function named fflush, the path after the name. */
RR_VISIBLE int fflush(FILE *f) STREAM_CALL(int, fflush, RR_USER, RR_S_USER_P, f, (f),
                                           (r->a[0] = rr_intern("fflush", 6), r->a[1] = path))

    RR_VISIBLE int remove(const char *p)
        PATH_CALL(int, remove, RR_L_STDIO, RR_REMOVE, RR_S_P, AT_FDCWD, p, (p), (r->a[0] = path))

    /* ---- the process: exec, _exit, vfork, signals ---- */

    REAL_PTR(execve);
REAL_PTR(execv);
REAL_PTR(execvp);
REAL_PTR(execvpe);
REAL_PTR(fexecve);
REAL_PTR(_exit);
REAL_PTR(_Exit);
REAL_PTR(sigaction);
REAL_PTR(signal);

/* The image is replaced and runs no exit handlers: write everything now. */
RR_VISIBLE int execve(const char *path, char *const argv[], char *const envp[])
{
    RR_REAL(execve);
    rr_flush_all(1);
    return real_execve(path, argv, envp);
}

RR_VISIBLE int execv(const char *path, char *const argv[])
{
    RR_REAL(execv);
    rr_flush_all(1);
    return real_execv(path, argv);
}

RR_VISIBLE int execvp(const char *file, char *const argv[])
{
    RR_REAL(execvp);
    rr_flush_all(1);
    return real_execvp(file, argv);
}

RR_VISIBLE int execvpe(const char *file, char *const argv[], char *const envp[])
{
    RR_REAL(execvpe);
    rr_flush_all(1);
    return real_execvpe(file, argv, envp);
}

RR_VISIBLE int fexecve(int fd, char *const argv[], char *const envp[])
{
    RR_REAL(fexecve);
    rr_flush_all(1);
    return real_fexecve(fd, argv, envp);
}

/* execl, execlp, execle: the list as an array, then the v form (ENVP when E). */
static char **arg_list(const char *arg0, va_list ap, char ***envp)
{
    va_list count;
    va_copy(count, ap);
    size_t n = 1;
    while (va_arg(count, char *)) n++;
    va_end(count);
    char **argv = malloc((n + 1) * sizeof *argv);
    if (!argv) {
        errno = ENOMEM;
        return NULL;
    }
    argv[0] = (char *)arg0;
    for (size_t i = 1; i <= n; i++) argv[i] = va_arg(ap, char *);
    if (envp) *envp = va_arg(ap, char **);
    return argv;
}

RR_VISIBLE int execl(const char *path, const char *arg0, ...)
{
    va_list ap;
    va_start(ap, arg0);
    char **argv = arg_list(arg0, ap, NULL);
    va_end(ap);
    if (!argv) return -1;
    int ret = execv(path, argv);
    free(argv);
    return ret;
}

RR_VISIBLE int execlp(const char *file, const char *arg0, ...)
{
    va_list ap;
    va_start(ap, arg0);
    char **argv = arg_list(arg0, ap, NULL);
    va_end(ap);
    if (!argv) return -1;
    int ret = execvp(file, argv);
    free(argv);
    return ret;
}

RR_VISIBLE int execle(const char *path, const char *arg0, ...)
{
    va_list ap;
    char **envp = NULL;
    va_start(ap, arg0);
    char **argv = arg_list(arg0, ap, &envp);
    va_end(ap);
    if (!argv) return -1;
    int ret = execve(path, argv, envp);
    free(argv);
    return ret;
}

RR_VISIBLE void _exit(int status)
{
    RR_REAL(_exit);
    rr_flush_all(1);
    real__exit(status);
    for (;;) syscall(SYS_exit_group, status);
}

RR_VISIBLE void _Exit(int status)
{
    RR_REAL(_Exit);
    rr_flush_all(1);
    real__Exit(status);
    for (;;) syscall(SYS_exit_group, status);
}

/*
** vfork's child would share (and corrupt) the parent's tracing state until
** it execs; as fork, the child is a process of its own.
*/
RR_VISIBLE pid_t vfork(void)
{
    return fork();
}

/* The SIGTERM/SIGINT handler that flushes is ours: the program sees SIG_DFL there. */
RR_VISIBLE int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    RR_REAL(sigaction);
    int ret = real_sigaction(sig, act, old);
    if (ret == 0 && old && !(old->sa_flags & SA_SIGINFO) && rr_is_own_handler(old->sa_handler)) {
        old->sa_handler = SIG_DFL;
        old->sa_flags = 0;
        sigemptyset(&old->sa_mask);
    }
    return ret;
}

RR_VISIBLE sighandler_t signal(int sig, sighandler_t handler)
{
    RR_REAL(signal);
    sighandler_t old = real_signal(sig, handler);
    return rr_is_own_handler(old) ? SIG_DFL : old;
}
