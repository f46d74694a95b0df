/*
** rr_files.c: the job-level files of a Recorder directory (VERSION,
** recorder.mt, empty ranks) and raw-syscall file helpers, shared by the
** preload library and the launcher.
*/
#include "rr.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The G2 list of recorder.md §8, in writers/recorder.c's order (the test compares both). */
const char rr_func_names[] = "creat\n"
                             "creat64\n"
                             "open\n"
                             "open64\n"
                             "close\n"
                             "write\n"
                             "read\n"
                             "lseek\n"
                             "lseek64\n"
                             "pread\n"
                             "pread64\n"
                             "pwrite\n"
                             "pwrite64\n"
                             "readv\n"
                             "writev\n"
                             "mmap\n"
                             "mmap64\n"
                             "fopen\n"
                             "fopen64\n"
                             "fclose\n"
                             "fwrite\n"
                             "fread\n"
                             "ftell\n"
                             "fseek\n"
                             "fsync\n"
                             "fdatasync\n"
                             "__xstat\n"
                             "__xstat64\n"
                             "__lxstat\n"
                             "__lxstat64\n"
                             "__fxstat\n"
                             "__fxstat64\n"
                             "getcwd\n"
                             "mkdir\n"
                             "rmdir\n"
                             "chdir\n"
                             "link\n"
                             "linkat\n"
                             "unlink\n"
                             "symlink\n"
                             "symlinkat\n"
                             "readlink\n"
                             "readlinkat\n"
                             "rename\n"
                             "chmod\n"
                             "chown\n"
                             "lchown\n"
                             "utime\n"
                             "opendir\n"
                             "readdir\n"
                             "closedir\n"
                             "rewinddir\n"
                             "mknod\n"
                             "mknodat\n"
                             "fcntl\n"
                             "dup\n"
                             "dup2\n"
                             "pipe\n"
                             "mkfifo\n"
                             "umask\n"
                             "fdopen\n"
                             "fileno\n"
                             "access\n"
                             "faccessat\n"
                             "tmpfile\n"
                             "remove\n"
                             "truncate\n"
                             "ftruncate\n"
                             "vfprintf\n"
                             "msync\n"
                             "fseeko\n"
                             "ftello\n"
                             "MPI_File_close\n"
                             "MPI_File_set_size\n"
                             "MPI_File_iread_at\n"
                             "MPI_File_iread\n"
                             "MPI_File_iread_shared\n"
                             "MPI_File_iwrite_at\n"
                             "MPI_File_iwrite\n"
                             "MPI_File_iwrite_shared\n"
                             "MPI_File_open\n"
                             "MPI_File_read_all_begin\n"
                             "MPI_File_read_all\n"
                             "MPI_File_read_at_all\n"
                             "MPI_File_read_at_all_begin\n"
                             "MPI_File_read_at\n"
                             "MPI_File_read\n"
                             "MPI_File_read_ordered_begin\n"
                             "MPI_File_read_ordered\n"
                             "MPI_File_read_shared\n"
                             "MPI_File_set_view\n"
                             "MPI_File_sync\n"
                             "MPI_File_write_all_begin\n"
                             "MPI_File_write_all\n"
                             "MPI_File_write_at_all_begin\n"
                             "MPI_File_write_at_all\n"
                             "MPI_File_write_at\n"
                             "MPI_File_write\n"
                             "MPI_File_write_ordered_begin\n"
                             "MPI_File_write_ordered\n"
                             "MPI_File_write_shared\n"
                             "MPI_Finalize\n"
                             "MPI_Finalized\n"
                             "MPI_Init\n"
                             "MPI_Init_thread\n"
                             "MPI_Wtime\n"
                             "MPI_Comm_rank\n"
                             "MPI_Comm_size\n"
                             "MPI_Get_processor_name\n"
                             "MPI_Get_processor_name\n"
                             "MPI_Comm_set_errhandler\n"
                             "MPI_Barrier\n"
                             "MPI_Bcast\n"
                             "MPI_Gather\n"
                             "MPI_Gatherv\n"
                             "MPI_Scatter\n"
                             "MPI_Scatterv\n"
                             "MPI_Allgather\n"
                             "MPI_Allgatherv\n"
                             "MPI_Alltoall\n"
                             "MPI_Reduce\n"
                             "MPI_Allreduce\n"
                             "MPI_Reduce_scatter\n"
                             "MPI_Scan\n"
                             "MPI_Type_commit\n"
                             "MPI_Type_contiguous\n"
                             "MPI_Type_extent\n"
                             "MPI_Type_free\n"
                             "MPI_Type_hindexed\n"
                             "MPI_Op_create\n"
                             "MPI_Op_free\n"
                             "MPI_Type_get_envelope\n"
                             "MPI_Type_size\n"
                             "MPI_Type_create_darray\n"
                             "MPI_Cart_rank\n"
                             "MPI_Cart_create\n"
                             "MPI_Cart_get\n"
                             "MPI_Cart_shift\n"
                             "MPI_Wait\n"
                             "MPI_Send\n"
                             "MPI_Recv\n"
                             "MPI_Sendrecv\n"
                             "MPI_Isend\n"
                             "MPI_Irecv\n"
                             "MPI_Info_create\n"
                             "MPI_Info_set\n"
                             "MPI_Info_get\n"
                             "MPI_Waitall\n"
                             "MPI_Waitsome\n"
                             "MPI_Waitany\n"
                             "MPI_Ssend\n"
                             "MPI_Comm_split\n"
                             "MPI_Comm_dup\n"
                             "MPI_Comm_create\n"
                             "MPI_File_seek\n"
                             "MPI_File_seek_shared\n"
                             "MPI_File_get_size\n"
                             "MPI_Ibcast\n"
                             "MPI_Test\n"
                             "MPI_Testall\n"
                             "MPI_Testsome\n"
                             "MPI_Testany\n"
                             "MPI_Ireduce\n"
                             "MPI_Iscatter\n"
                             "MPI_Igather\n"
                             "MPI_Ialltoall\n"
                             "MPI_Comm_free\n"
                             "MPI_Cart_sub\n"
                             "MPI_Comm_split_type\n"
                             "H5Fcreate\n"
                             "H5Fopen\n"
                             "H5Fclose\n"
                             "H5Fflush\n"
                             "H5Gclose\n"
                             "H5Gcreate1\n"
                             "H5Gcreate2\n"
                             "H5Gget_objinfo\n"
                             "H5Giterate\n"
                             "H5Gopen1\n"
                             "H5Gopen2\n"
                             "H5Dclose\n"
                             "H5Dcreate1\n"
                             "H5Dcreate2\n"
                             "H5Dget_create_plist\n"
                             "H5Dget_space\n"
                             "H5Dget_type\n"
                             "H5Dopen1\n"
                             "H5Dopen2\n"
                             "H5Dread\n"
                             "H5Dwrite\n"
                             "H5Dset_extent\n"
                             "H5Sclose\n"
                             "H5Screate\n"
                             "H5Screate_simple\n"
                             "H5Sget_select_npoints\n"
                             "H5Sget_simple_extent_dims\n"
                             "H5Sget_simple_extent_npoints\n"
                             "H5Sselect_elements\n"
                             "H5Sselect_hyperslab\n"
                             "H5Sselect_none\n"
                             "H5Tclose\n"
                             "H5Tcopy\n"
                             "H5Tget_class\n"
                             "H5Tget_size\n"
                             "H5Tset_size\n"
                             "H5Tcreate\n"
                             "H5Tinsert\n"
                             "H5Aclose\n"
                             "H5Acreate1\n"
                             "H5Acreate2\n"
                             "H5Aget_name\n"
                             "H5Aget_num_attrs\n"
                             "H5Aget_space\n"
                             "H5Aget_type\n"
                             "H5Aopen\n"
                             "H5Aopen_idx\n"
                             "H5Aopen_name\n"
                             "H5Aread\n"
                             "H5Awrite\n"
                             "H5Pclose\n"
                             "H5Pcreate\n"
                             "H5Pget_chunk\n"
                             "H5Pget_mdc_config\n"
                             "H5Pset_alignment\n"
                             "H5Pset_chunk\n"
                             "H5Pset_dxpl_mpio\n"
                             "H5Pset_fapl_core\n"
                             "H5Pset_fapl_mpio\n"
                             "H5Pset_fapl_mpiposix\n"
                             "H5Pset_istore_k\n"
                             "H5Pset_mdc_config\n"
                             "H5Pset_meta_block_size\n"
                             "H5Lexists\n"
                             "H5Lget_val\n"
                             "H5Literate\n"
                             "H5Oclose\n"
                             "H5Oget_info\n"
                             "H5Oget_info_by_name\n"
                             "H5Oopen\n"
                             "H5Pset_coll_metadata_write\n"
                             "H5Pget_coll_metadata_write\n"
                             "H5Pset_all_coll_metadata_ops\n"
                             "H5Pget_all_coll_metadata_ops\n";

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

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

int rr_write_meta(int dirfd, int total, int64_t start_ns, int64_t res_ns)
{
    /* A file of a few KB: a stack buffer sized by the name list itself. */
    unsigned char mt[40 + sizeof rr_func_names];
    double start = (double)start_ns / 1e9, res = (double)res_ns / 1e9;
    uint64_t sb, rb;
    memcpy(&sb, &start, 8);
    memcpy(&rb, &res, 8);
    memset(mt, 0, 40);
    put32(mt, (uint32_t)total);
    put32(mt + 8, (uint32_t)sb);
    put32(mt + 12, (uint32_t)(sb >> 32));
    put32(mt + 16, (uint32_t)rb);
    put32(mt + 20, (uint32_t)(rb >> 32));
    put32(mt + 24, RR_TS_SLOTS);
    memcpy(mt + 40, rr_func_names, sizeof rr_func_names - 1);
    if (rr_write_file(dirfd, "VERSION", RR_VERSION, 5) != 0) return -1;
    return rr_write_file(dirfd, "recorder.mt", mt, 40 + sizeof rr_func_names - 1);
}

static void rank_name(char *buf, int rank, const char *ext)
{
    size_t n = rr_fmt_i64(buf, rank);
    memcpy(buf + n, ext, strlen(ext) + 1);
}

int rr_write_empty_rank(int dirfd, int rank, int have_ts)
{
    /* No signatures; one start rule with no symbols (recorder.md §2.2, §2.3). */
    static const unsigned char cst[4] = {0, 0, 0, 0};
    static const unsigned char cfg[12] = {1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0};
    char name[40];
    if (!have_ts) {
        rank_name(name, rank, ".ts");
        int fd = rr_sys_open(dirfd, name, O_WRONLY | O_CREAT, 0644);
        if (fd < 0) return -1;
        rr_sys_close(fd);
    }
    rank_name(name, rank, ".cst");
    if (rr_write_file(dirfd, name, cst, sizeof cst) != 0) return -1;
    rank_name(name, rank, ".cfg");
    return rr_write_file(dirfd, name, cfg, sizeof cfg);
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
