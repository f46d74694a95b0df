/*
** rr_files.c: the job-level files of a Recorder directory (VERSION,
** recorder.mt, empty ranks: their bytes are tr_recorder_layout.h's) and
** raw-syscall file helpers, shared by the preload library and the launcher.
*/
#include "rr_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

int rr_sys_open(int dirfd, const char *path, int flags, int mode)
{
    long r;
    do r = syscall(SYS_openat, dirfd, path, flags | O_CLOEXEC, mode);
    while (r < 0 && errno == EINTR);
    return (int)r;
}

int rr_sys_close(int fd)
{
    return (int)syscall(SYS_close, fd);
}

int rr_sys_pwrite_all(int fd, const void *p, size_t n, int64_t off)
{
    const char *c = p;
    while (n) {
        long w = syscall(SYS_pwrite64, fd, c, n, (long)off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        c += w;
        n -= (size_t)w;
        off += w;
    }
    return 0;
}

int rr_sys_rename(int dirfd, const char *from, const char *to)
{
    return (int)syscall(SYS_renameat, dirfd, from, dirfd, to);
}

int rr_sys_exists(int dirfd, const char *path)
{
    return syscall(SYS_faccessat, dirfd, path, F_OK) == 0;
}

size_t rr_fmt_i64(char *buf, int64_t v)
{
    char tmp[24];
    size_t n = 0, k = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do tmp[n++] = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (v < 0) buf[k++] = '-';
    while (n) buf[k++] = tmp[--n];
    buf[k] = '\0';
    return k;
}

int rr_write_file(int dirfd, const char *file, const void *p, size_t n)
{
    char tmp[96];
    size_t fl = strlen(file);
    if (fl > 48) return -1;
    memcpy(tmp, file, fl);
    memcpy(tmp + fl, ".tmp-", 5);
    rr_fmt_i64(tmp + fl + 5, (int64_t)syscall(SYS_getpid));
    int fd = rr_sys_open(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return -1;
    int rc = rr_sys_pwrite_all(fd, p, n, 0);
    rr_sys_close(fd);
    if (rc == 0) rc = rr_sys_rename(dirfd, tmp, file);
    if (rc != 0) syscall(SYS_unlinkat, dirfd, tmp, 0);
    return rc;
}

int rr_write_meta(int dirfd, int total, int64_t start_ns, int64_t res_ns)
{
    /* A file of a few KB: a stack buffer. */
    unsigned char mt[TR_REC_MT_SIZE];
    tr_rec_mt(mt, (uint32_t)total, (double)start_ns / 1e9, (double)res_ns / 1e9);
    if (rr_write_file(dirfd, "VERSION", TR_REC_VERSION, TR_REC_VERSION_LEN) != 0) return -1;
    return rr_write_file(dirfd, "recorder.mt", mt, sizeof mt);
}

static void rank_name(char *buf, int rank, const char *ext)
{
    size_t n = rr_fmt_i64(buf, rank);
    memcpy(buf + n, ext, strlen(ext) + 1);
}

int rr_write_empty_rank(int dirfd, int rank, int have_ts)
{
    char name[40];
    if (!have_ts) {
        rank_name(name, rank, ".ts");
        int fd = rr_sys_open(dirfd, name, O_WRONLY | O_CREAT, 0644);
        if (fd < 0) return -1;
        rr_sys_close(fd);
    }
    rank_name(name, rank, ".cst");
    if (rr_write_file(dirfd, name, tr_rec_empty_cst, sizeof tr_rec_empty_cst) != 0) return -1;
    rank_name(name, rank, ".cfg");
    return rr_write_file(dirfd, name, tr_rec_empty_cfg, sizeof tr_rec_empty_cfg);
}

int rr_write_proc(int dirfd, int rank, int pid)
{
    struct utsname u;
    if (syscall(SYS_uname, &u) != 0) u.nodename[0] = '\0';
    size_t h = strnlen(u.nodename, sizeof u.nodename);
    char buf[48 + sizeof u.nodename], name[40];
    size_t n = 4;
    memcpy(buf, "pid=", 4);
    n += rr_fmt_i64(buf + n, pid);
    memcpy(buf + n, " host=", 6);
    memcpy(buf + n + 6, u.nodename, h);
    n += 6 + h;
    buf[n++] = '\n';
    rank_name(name, rank, ".proc");
    return rr_write_file(dirfd, name, buf, n);
}

int rr_count_ranks(int dirfd)
{
    static const char *const ext[] = {".ts", ".cst", ".cfg"};
    char name[40];
    for (int r = 0;; r++) {
        for (int k = 0; k < 3; k++) {
            rank_name(name, r, ext[k]);
            if (!rr_sys_exists(dirfd, name)) return r;
        }
    }
}

int rr_mkdirs(const char *dir)
{
    char path[PATH_MAX];
    size_t n = strlen(dir);
    if (n >= sizeof path) return -1;
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0') continue;
        char c = path[i];
        path[i] = '\0';
        if (syscall(SYS_mkdirat, AT_FDCWD, path, 0755) != 0 && errno != EEXIST) return -1;
        path[i] = c;
    }
    return 0;
}
