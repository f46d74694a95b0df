/*
** recorder_layout.c: the byte layouts of tr_recorder_layout.h.  Built into
** both trwriters and tracerecord's preload library: no allocation, no
** stdio, nothing of lib/.
*/
#include "tr_recorder_layout.h"

#include <string.h>

/* The G2 list of recorder.md §8: line i is function id i. */
const char tr_rec_func_names[] = "creat\n"
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

_Static_assert(sizeof tr_rec_func_names - 1 + TR_REC_MT_HEAD == TR_REC_MT_SIZE,
               "TR_REC_MT_SIZE is recorder.mt's size");

const unsigned char tr_rec_empty_cst[4] = {0, 0, 0, 0};
const unsigned char tr_rec_empty_cfg[12] = {1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0};

void tr_rec_put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static void put64(unsigned char *p, uint64_t v)
{
    tr_rec_put32(p, (uint32_t)v);
    tr_rec_put32(p + 4, (uint32_t)(v >> 32));
}

void tr_rec_mt(unsigned char *out, uint32_t total_ranks, double start_ts, double resolution)
{
    uint64_t sbits, rbits;
    memcpy(&sbits, &start_ts, 8);
    memcpy(&rbits, &resolution, 8);
    memset(out, 0, TR_REC_MT_HEAD);
    tr_rec_put32(out, total_ranks);
    put64(out + 8, sbits);
    put64(out + 16, rbits);
    tr_rec_put32(out + 24, TR_REC_TS_SLOTS);
    memcpy(out + TR_REC_MT_HEAD, tr_rec_func_names, TR_REC_MT_SIZE - TR_REC_MT_HEAD);
}

int tr_rec_func_id(const char *name, size_t n)
{
    const char *p = tr_rec_func_names;
    for (int id = 0; *p; id++) {
        const char *nl = strchr(p, '\n');
        if ((size_t)(nl - p) == n && memcmp(p, name, n) == 0) return id;
        p = nl + 1;
    }
    return TR_REC_USER_FUNC;
}

void tr_rec_cst_head(unsigned char *out, uint32_t id, uint32_t rank, uint32_t key_len,
                     uint32_t count)
{
    tr_rec_put32(out, id);
    tr_rec_put32(out + 4, rank);
    tr_rec_put32(out + 8, key_len);
    tr_rec_put32(out + TR_REC_CST_COUNT, count);
}

void tr_rec_key_head(unsigned char *out, uint64_t tid, int func, unsigned level, unsigned argc,
                     uint32_t args_len)
{
    put64(out, tid);
    out[8] = (unsigned char)func;
    out[9] = (unsigned char)(level > 255 ? 255 : level);
    out[10] = (unsigned char)argc;
    tr_rec_put32(out + 11, args_len);
}

void tr_rec_arg_clean(char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] == ' ' || p[i] == '\n' || p[i] == '\0') p[i] = '_';
}

void tr_rec_cfg_rule(unsigned char *out, int32_t rule, uint32_t pairs)
{
    tr_rec_put32(out, (uint32_t)rule);
    tr_rec_put32(out + 4, pairs);
}
