/*
** recorder_model.c: a Recorder trace's decoded ranks into the model
** (shared/formats/recorder.md).
**
** A record is a slice on its rank's thread track, named by its function,
** categorised by its layer, with its arguments as args; its level becomes
** its depth through its parent's enclosing times.  Each call signature's
** slice is worked out once per table entry (sig_model); the records
** themselves are merged by time into rows in recorder_merge.c.  The calls a
** rank had not returned become open slices, and the input's info comes from
** the run's metadata.
*/
#include "recorder_impl.h"
#include "tr_analysis.h"
#include "tr_pool.h"
#include "tr_text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* ---- Recorder's functions: argument names, bytes, layers ---- */

/* How a call's bytes moved are found: its count, size x nmemb, count x datatype, only what
 * it returned (tracerecord's "ret=N" argument), or tracerecord's "bytes=N" (HDF5). */
enum { IO_NONE = 0, IO_COUNT, IO_SIZE_NMEMB, IO_MPI, IO_RET, IO_H5 };

/* Argument names in prototype order as Recorder stores them (recorder.md §3). */
typedef struct arg_names {
    const char *func;
    const char *keys; /* comma-separated */
    int io;
} arg_names;

static const arg_names arg_table[] = {
    {"creat", "path,mode", IO_NONE},
    {"creat64", "path,mode", IO_NONE},
    {"open", "path,flags,mode", IO_NONE},
    {"open64", "path,flags,mode", IO_NONE},
    {"close", "path", IO_NONE},
    {"write", "path,buf,count", IO_COUNT},
    {"read", "path,buf,count", IO_COUNT},
    {"lseek", "path,offset,whence", IO_NONE},
    {"lseek64", "path,offset,whence", IO_NONE},
    {"pread", "path,buf,count,offset", IO_COUNT},
    {"pread64", "path,buf,count,offset", IO_COUNT},
    {"pwrite", "path,buf,count,offset", IO_COUNT},
    {"pwrite64", "path,buf,count,offset", IO_COUNT},
    {"readv", "path,iov,iovcnt", IO_RET},
    {"writev", "path,iov,iovcnt", IO_RET},
    {"mmap", "addr,length,prot,flags,path,offset", IO_NONE},
    {"mmap64", "addr,length,prot,flags,path,offset", IO_NONE},
    {"fopen", "path,mode", IO_NONE},
    {"fopen64", "path,mode", IO_NONE},
    {"fdopen", "path,mode", IO_NONE},
    {"fclose", "path", IO_NONE},
    {"fflush", "path", IO_NONE},
    {"fwrite", "buf,size,nmemb,path", IO_SIZE_NMEMB},
    {"fread", "buf,size,nmemb,path", IO_SIZE_NMEMB},
    {"ftell", "path", IO_NONE},
    {"ftello", "path", IO_NONE},
    {"fseek", "path,offset,whence", IO_NONE},
    {"fseeko", "path,offset,whence", IO_NONE},
    {"fsync", "path", IO_NONE},
    {"fdatasync", "path", IO_NONE},
    {"__xstat", "ver,path,buf", IO_NONE},
    {"__xstat64", "ver,path,buf", IO_NONE},
    {"__lxstat", "ver,path,buf", IO_NONE},
    {"__lxstat64", "ver,path,buf", IO_NONE},
    {"__fxstat", "ver,path,buf", IO_NONE},
    {"__fxstat64", "ver,path,buf", IO_NONE},
    {"getcwd", "buf,size", IO_NONE},
    {"mkdir", "path,mode", IO_NONE},
    {"rmdir", "path", IO_NONE},
    {"chdir", "path", IO_NONE},
    {"link", "oldpath,newpath", IO_NONE},
    {"unlink", "path", IO_NONE},
    {"symlink", "target,linkpath", IO_NONE},
    {"readlink", "path,buf,bufsiz", IO_NONE},
    {"rename", "oldpath,newpath", IO_NONE},
    {"chmod", "path,mode", IO_NONE},
    {"chown", "path,owner,group", IO_NONE},
    {"lchown", "path,owner,group", IO_NONE},
    {"utime", "path,times", IO_NONE},
    {"opendir", "path", IO_NONE},
    {"mknod", "path,mode,dev", IO_NONE},
    {"fcntl", "path,cmd,arg", IO_NONE},
    {"dup", "path", IO_NONE},
    {"dup2", "path,newfd", IO_NONE},
    {"mkfifo", "path,mode", IO_NONE},
    {"umask", "mask", IO_NONE},
    {"fileno", "path", IO_NONE},
    {"access", "path,mode", IO_NONE},
    {"remove", "path", IO_NONE},
    {"truncate", "path,length", IO_NONE},
    {"ftruncate", "path,length", IO_NONE},
    {"MPI_File_open", "comm,path,amode,info,fh", IO_NONE},
    {"MPI_File_close", "fh", IO_NONE},
    {"MPI_File_sync", "fh", IO_NONE},
    {"MPI_File_set_size", "fh,size", IO_NONE},
    {"MPI_File_get_size", "fh,size", IO_NONE},
    {"MPI_File_set_view", "fh,disp,etype,filetype,datarep,info", IO_NONE},
    {"MPI_File_seek", "fh,offset,whence", IO_NONE},
    {"MPI_File_seek_shared", "fh,offset,whence", IO_NONE},
    {"MPI_File_read_at", "fh,offset,buf,count,datatype,status", IO_MPI},
    {"MPI_File_read_at_all", "fh,offset,buf,count,datatype,status", IO_MPI},
    {"MPI_File_write_at", "fh,offset,buf,count,datatype,status", IO_MPI},
    {"MPI_File_write_at_all", "fh,offset,buf,count,datatype,status", IO_MPI},
    {"MPI_File_read_at_all_begin", "fh,offset,buf,count,datatype", IO_MPI},
    {"MPI_File_write_at_all_begin", "fh,offset,buf,count,datatype", IO_MPI},
    {"MPI_File_iread_at", "fh,offset,buf,count,datatype,request", IO_MPI},
    {"MPI_File_iwrite_at", "fh,offset,buf,count,datatype,request", IO_MPI},
    {"MPI_File_read", "fh,buf,count,datatype,status", IO_MPI},
    {"MPI_File_read_all", "fh,buf,count,datatype,status", IO_MPI},
    {"MPI_File_read_shared", "fh,buf,count,datatype,status", IO_MPI},
    {"MPI_File_read_ordered", "fh,buf,count,datatype,status", IO_MPI},
    {"MPI_File_write", "fh,buf,count,datatype,status", IO_MPI},
    {"MPI_File_write_all", "fh,buf,count,datatype,status", IO_MPI},
    {"MPI_File_write_shared", "fh,buf,count,datatype,status", IO_MPI},
    {"MPI_File_write_ordered", "fh,buf,count,datatype,status", IO_MPI},
    {"MPI_File_read_all_begin", "fh,buf,count,datatype", IO_MPI},
    {"MPI_File_write_all_begin", "fh,buf,count,datatype", IO_MPI},
    {"MPI_File_read_ordered_begin", "fh,buf,count,datatype", IO_MPI},
    {"MPI_File_write_ordered_begin", "fh,buf,count,datatype", IO_MPI},
    {"MPI_File_iread", "fh,buf,count,datatype,request", IO_MPI},
    {"MPI_File_iwrite", "fh,buf,count,datatype,request", IO_MPI},
    {"MPI_File_iread_shared", "fh,buf,count,datatype,request", IO_MPI},
    {"MPI_File_iwrite_shared", "fh,buf,count,datatype,request", IO_MPI},
    {"MPI_Comm_rank", "comm,rank", IO_NONE},
    {"MPI_Comm_size", "comm,size", IO_NONE},
    {"MPI_Barrier", "comm", IO_NONE},
    {"MPI_Bcast", "buf,count,datatype,root,comm", IO_NONE},
    /* HDF5: the parameter names of lib/recorder-hdf5.c's prototypes */
    {"H5Fcreate", "filename,flags,create_plist,access_plist", IO_NONE},
    {"H5Fopen", "filename,flags,access_plist", IO_NONE},
    {"H5Fclose", "file_id", IO_NONE},
    {"H5Fflush", "object_id,scope", IO_NONE},
    {"H5Dcreate1", "loc_id,name,type_id,space_id,dcpl_id", IO_NONE},
    {"H5Dcreate2", "loc_id,name,dtype_id,space_id,lcpl_id,dcpl_id,dapl_id", IO_NONE},
    {"H5Dopen1", "loc_id,name", IO_NONE},
    {"H5Dopen2", "loc_id,name,dapl_id", IO_NONE},
    {"H5Dclose", "dataset_id", IO_NONE},
    {"H5Dread", "dataset_id,mem_type_id,mem_space_id,file_space_id,xfer_plist_id,buf", IO_H5},
    {"H5Dwrite", "dataset_id,mem_type_id,mem_space_id,file_space_id,xfer_plist_id,buf", IO_H5},
};

static const char *const cat_text[CAT_COUNT] = {"POSIX", "MPI-IO", "MPI", "HDF5", "USER"};

/* ---- what a call signature becomes ---- */

/* The canonical decimal form: what an integer prints back as. */
static int canonical_int(const char *s, size_t n, int64_t *v)
{
    size_t i = s[0] == '-';
    if (n == i || n - i > 18) return 0;
    if (s[i] == '0' && n - i > 1) return 0;
    if (s[i] == '0' && i) return 0; /* "-0" */
    for (size_t k = i; k < n; k++)
        if (s[k] < '0' || s[k] > '9') return 0;
    return tr_parse_int64(s, n, v) == 0;
}

static tr_str arg_key(rec_model *m, uint32_t i, const func_info *f)
{
    if (i < f->n_keys) return f->keys[i];
    while (m->argn.len <= i) {
        char k[16];
        int len = snprintf(k, sizeof k, "arg%zu", m->argn.len + 1);
        tr_str *slot = tr_vec_push(&m->argn);
        if (!slot) return 0;
        *slot = tr_str_intern(m->t, k, (size_t)len);
    }
    return TR_VEC_AT(&m->argn, tr_str, i);
}

static func_info *func_resolve(rec_model *m, uint8_t func)
{
    rec_run *run = m->run;
    uint32_t id = func == 255 ? run->n_names : func;
    func_info *f = &m->func[id];
    if (f->done) return f;
    f->done = 1;
    if (func == 255) {
        f->cat = m->cat[CAT_USER];
        return f;
    }
    const char *name = run->name[func];
    size_t len = run->name_len[func];
    f->name = tr_str_intern(m->t, name, len);
    int cat = CAT_HDF5;
    if (func < run->mpi_start)
        cat = CAT_POSIX;
    else if (func < run->h5_start)
        cat = len >= 8 && memcmp(name, "MPI_File", 8) == 0 ? CAT_MPIIO : CAT_MPI;
    f->cat = m->cat[cat];
    for (size_t i = 0; i < sizeof arg_table / sizeof *arg_table; i++) {
        if (strlen(arg_table[i].func) != len || memcmp(arg_table[i].func, name, len) != 0) continue;
        f->io = arg_table[i].io;
        for (const char *k = arg_table[i].keys; *k && f->n_keys < 8;) {
            const char *comma = strchr(k, ',');
            size_t kl = comma ? (size_t)(comma - k) : strlen(k);
            f->keys[f->n_keys++] = tr_str_intern(m->t, k, kl);
            k += kl + (comma != NULL);
        }
        break;
    }
    return f;
}

/*
** tracerecord's fields after Recorder's arguments (Recorder keeps none):
** "ret=N", what the call returned, last; before it, for HDF5 calls,
** "bytes=N" (H5Dread/H5Dwrite: the bytes Darshan counts) or "dataset=S"
** (H5Dcreate/H5Dopen: Darshan's record name "<file>:<name>").
*/
typedef struct rec_tail {
    int has_ret, has_bytes;
    int64_t ret, bytes;
    const char *dataset; /* NULL when absent or empty */
    uint32_t dataset_len;
} rec_tail;

static int tail_int(const char *f, uint32_t n, const char *key, size_t kn, int64_t *v)
{
    return n > kn && memcmp(f, key, kn) == 0 && canonical_int(f + kn, n - kn, v);
}

/* Takes tracerecord's fields off the end of FIELD into T (HDF5's only when H5); returns the
 * fields left. */
static uint32_t tail_fields(const char *const *field, const uint32_t *flen, uint32_t nf, int h5,
                            rec_tail *t)
{
    memset(t, 0, sizeof *t);
    if (!nf || !(t->has_ret = tail_int(field[nf - 1], flen[nf - 1], "ret=", 4, &t->ret)) || !h5)
        return nf - (uint32_t)t->has_ret;
    nf--;
    if (nf && (t->has_bytes = tail_int(field[nf - 1], flen[nf - 1], "bytes=", 6, &t->bytes)))
        return nf - 1;
    if (nf && flen[nf - 1] >= 8 && memcmp(field[nf - 1], "dataset=", 8) == 0) {
        t->dataset = flen[nf - 1] > 8 ? field[nf - 1] + 8 : NULL;
        t->dataset_len = flen[nf - 1] - 8;
        return nf - 1;
    }
    return nf;
}

/* T's fields as args (after Recorder's). */
static void tail_args(rec_model *m, const rec_tail *t)
{
    if (t->dataset)
        tr_args_str(m->t, tr_str_internz(m->t, "dataset"),
                    tr_str_intern(m->t, t->dataset, t->dataset_len));
    if (t->has_bytes) tr_args_int(m->t, tr_str_internz(m->t, "bytes"), t->bytes);
    if (t->has_ret) tr_args_int(m->t, tr_str_internz(m->t, "ret"), t->ret);
}

/* One table entry into a name, a category, an arg set and bytes moved. */
/* UNFINISHED: a call in flight (<r>.inflight), marked by the arg "unfinished": 1. */
static int sig_convert(rec_model *m, const rec_sig *s, const char *cst_name, int unfinished,
                       sig_model *out, tr_error *e)
{
    func_info *f = func_resolve(m, s->func);
    out->tid = s->tid;
    out->level = s->level;
    out->bytes = -1;
    out->name = f->name;
    out->cat = f->cat;
    out->args = 0;
    /* Fields end at each space (recorder.md §2.2); a tail without one is not a field. */
    const char *field[256];
    uint32_t flen[256], nf = 0;
    uint32_t start = 0;
    for (uint32_t i = 0; i < s->args_len; i++) {
        if (s->args[i] != ' ') continue;
        if (nf < 256) {
            field[nf] = s->args + start;
            flen[nf] = i - start;
        }
        nf++;
        start = i + 1;
    }
    if (nf != s->argc || start != s->args_len) {
        tr_loc loc = {cst_name, 0, 0, s->at + 1};
        m->warnings++;
        int rc = tr_warnf(m->diag, e, &loc, "call signature says %u arguments, its text holds %u",
                          (unsigned)s->argc, nf);
        if (rc == TR_FAIL) return rc;
    }
    if (nf > 256) nf = 256;
    int64_t count = -1, size = -1, nmemb = -1, tsize = 0;
    rec_tail tail;
    nf = tail_fields(field, flen, nf, f->cat == m->cat[CAT_HDF5], &tail);
    int has_ret = tail.has_ret;
    int64_t ret = tail.ret;
    if (s->func == 255) {
        /* User functions: the name is the second field, no arguments shown but the file that
         * tracerecord's fflush names after it (an absolute path) and the return value. */
        out->name = nf >= 2 ? tr_str_intern(m->t, field[1], flen[1])
                            : tr_str_internz(m->t, "user function");
        if (nf < 3 || !flen[2] || field[2][0] != '/') return TR_OK;
        tr_args_begin(m->t);
        tr_args_str(m->t, tr_str_internz(m->t, "path"), tr_str_intern(m->t, field[2], flen[2]));
        tail_args(m, &tail);
        out->args = tr_args_end(m->t);
        return TR_OK;
    }
    tr_args_begin(m->t);
    for (uint32_t i = 0; i < nf; i++) {
        tr_str key = arg_key(m, i, f);
        const char *ks = tr_str_get(m->t, key, NULL);
        int64_t v;
        if (canonical_int(field[i], flen[i], &v)) {
            tr_args_int(m->t, key, v);
            if (strcmp(ks, "count") == 0) count = v;
            if (strcmp(ks, "size") == 0) size = v;
            if (strcmp(ks, "nmemb") == 0) nmemb = v;
        } else {
            tr_args_str(m->t, key, tr_str_intern(m->t, field[i], flen[i]));
            if (strcmp(ks, "datatype") == 0) tsize = tr_io_mpi_type_size(field[i], flen[i]);
        }
    }
    tail_args(m, &tail);
    if (unfinished) tr_args_int(m->t, tr_str_internz(m->t, "unfinished"), 1);
    out->args = tr_args_end(m->t);
    if (f->io == IO_H5 && tail.has_bytes && tail.bytes >= 0) out->bytes = tail.bytes;
    if (f->io == IO_COUNT && count >= 0) out->bytes = count;
    if (f->io == IO_SIZE_NMEMB && size >= 0 && nmemb >= 0 && (!size || nmemb <= INT64_MAX / size))
        out->bytes = size * nmemb;
    /* Bytes moved, not asked for, when the call's return says: a failed call moved none. */
    if (has_ret && (f->io == IO_COUNT || f->io == IO_RET)) out->bytes = ret > 0 ? ret : 0;
    if (has_ret && f->io == IO_SIZE_NMEMB && size >= 0 && (!size || ret <= INT64_MAX / size))
        out->bytes = ret > 0 ? size * ret : 0;
    if (f->io == IO_MPI && count >= 0 && tsize && count <= INT64_MAX / tsize)
        out->bytes = count * tsize;
    return TR_OK;
}

static int convert_table(rec_model *m, const rec_cst *c, const char *cst_name, sig_model **out,
                         tr_error *e)
{
    *out = tr_calloc(c->n ? c->n : 1, sizeof **out);
    if (!*out) return tr_error_nomem(e);
    for (uint32_t i = 0; i < c->n; i++) {
        /* Terminals the table lacks: no grammar may use them (checked at parse). */
        if (!c->sig[i].present) continue;
        int rc = sig_convert(m, &c->sig[i], cst_name, 0, &(*out)[i], e);
        if (rc < 0) return rc;
    }
    return TR_OK;
}

/* ---- the model: open, the calls in flight, the end ---- */

/* Input metadata: origin, clock and what the header says. */
static void set_info(rec_model *m, uint32_t input)
{
    rec_run *run = m->run;
    tr_trace *t = m->t;
    tr_input_info *info = tr_input_at(t, input);
    if (run->start_ts > 0 && run->start_ts < 9.2e9) {
        double whole = floor(run->start_ts);
        time_t secs = (time_t)whole;
        int64_t us = (int64_t)llround((run->start_ts - whole) * 1e6);
        if (us >= 1000000) {
            secs++;
            us -= 1000000;
        }
        struct tm tm;
        char buf[64];
        if (gmtime_r(&secs, &tm) && strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm)) {
            char wall[96];
            int len = snprintf(wall, sizeof wall, "%s.%06lldZ", buf, (long long)us);
            info->origin_wall = tr_str_intern(t, wall, (size_t)len);
        }
        info->origin_unix_ns = (int64_t)llround(run->start_ts * 1e9);
    }
    info->clock = tr_str_internz(t, "seconds since rank 0's Recorder start (start_ts)");
    static const char *const gen_text[] = {"2.3 (CST/CFG)", "2.4/2.5", "G3 (gotcha branch)"};
    tr_args_begin(t);
    if (run->has_ver) {
        char v[48];
        int len = snprintf(v, sizeof v, "%d.%d.%d", run->ver[0], run->ver[1], run->ver[2]);
        tr_args_str(t, tr_str_internz(t, "version"), tr_str_intern(t, v, (size_t)len));
    }
    tr_args_str(t, tr_str_internz(t, "generation"), tr_str_internz(t, gen_text[run->gen]));
    tr_args_int(t, tr_str_internz(t, "total_ranks"), run->ranks);
    tr_args_real(t, tr_str_internz(t, "time_resolution"), run->res);
    tr_args_real(t, tr_str_internz(t, "start_ts"), run->start_ts);
    tr_args_bool(t, tr_str_internz(t, "interprocess_compression"), run->ipc);
    if (run->gen == REC_G3) {
        static const char *const flag[] = {"posix_tracing",
                                           "mpi_tracing",
                                           "mpiio_tracing",
                                           "hdf5_tracing",
                                           "store_tid",
                                           "store_call_depth",
                                           "ts_compression",
                                           "interprocess_compression_flag",
                                           "interprocess_pattern",
                                           "intraprocess_pattern"};
        for (size_t i = 0; i < 10; i++)
            if (i != 7) tr_args_bool(t, tr_str_internz(t, flag[i]), run->g3_flags[i] != 0);
    }
    info->meta = tr_args_end(t);
}

/* Warnings the workers kept, in rank order so that runs repeat exactly. */
static int replay_warnings(rec_model *m, tr_error *e)
{
    rec_rank *rk = m->rk;
    for (int32_t r = 0; r < m->run->ranks; r++) {
        for (uint32_t w = 0; w < rk[r].n_warn && w < REC_WARN_KEEP; w++) {
            tr_loc loc = {rk[r].warn[w].file, 0, 0, rk[r].warn[w].offset};
            m->warnings++;
            if (tr_warnf(m->diag, e, &loc, "%s", rk[r].warn[w].msg) == TR_FAIL) return TR_FAIL;
        }
        if (rk[r].n_warn > REC_WARN_KEEP) {
            m->warnings += rk[r].n_warn - REC_WARN_KEEP;
            if (tr_warnf(m->diag, e, NULL, "rank %d: %u more warnings", (int)r,
                         rk[r].n_warn - REC_WARN_KEEP) == TR_FAIL)
                return TR_FAIL;
        }
    }
    return TR_OK;
}

/* Each rank's process and what its call signatures become. */
static int rank_setup(rec_model *m, int32_t r, tr_error *e)
{
    rec_run *run = m->run;
    rank_out *o = &m->ro[r];
    char path[1024];
    tr_vec_init(&o->tracks, sizeof(tid_track));
    /* The OS process when tracerecord named it (the same pid and host as tracesniff's dumps),
     * else the rank; a second rank of one process (a program it exec'd) stays apart. */
    size_t before = tr_process_count(m->t);
    const rec_rank *rk = &m->rk[r];
    if (rk->os_pid > 0)
        o->process =
            tr_process_intern_on(m->t, m->input, tr_str_internz(m->t, rk->os_host), rk->os_pid);
    if (rk->os_pid <= 0 || (o->process != TR_NONE && tr_process_count(m->t) == before))
        o->process = tr_process_intern(m->t, m->input, r);
    if (o->process == TR_NONE) return tr_error_nomem(e);
    tr_process *p = tr_process_at(m->t, o->process);
    char name[32];
    int len = snprintf(name, sizeof name, "rank %d", (int)r);
    p->rank = r;
    p->name = tr_str_intern(m->t, name, (size_t)len);
    int rc = TR_OK;
    if (run->ipc) {
        o->sm = m->shared;
    } else {
        char cst[32];
        snprintf(cst, sizeof cst, "%d.cst", (int)r);
        sig_model *sm;
        rc = convert_table(m, &rk->cst, rec_path(run->dir, cst, path, sizeof path), &sm, e);
        o->sm = sm;
    }
    return rc;
}

int rec_model_open(rec_model **out, tr_trace *t, rec_run *run, rec_rank *rk, uint32_t input,
                   tr_diag *diag, int threads, tr_error *e)
{
    rec_model *m = tr_calloc(1, sizeof *m);
    *out = m;
    if (!m) return tr_error_nomem(e);
    m->t = t;
    m->run = run;
    m->rk = rk;
    m->input = input;
    m->threads = threads;
    m->diag = diag ? diag : &m->quiet;
    tr_vec_init(&m->argn, sizeof(tr_str));
    for (int i = 0; i < CAT_COUNT; i++) m->cat[i] = tr_str_internz(t, cat_text[i]);
    m->func = tr_calloc((size_t)run->n_names + 1, sizeof *m->func);
    m->ro = tr_calloc((size_t)run->ranks, sizeof *m->ro);
    if (!m->func || !m->ro) return tr_error_nomem(e);
    int rc = replay_warnings(m, e);
    char path[1024];
    if (rc == TR_OK && run->ipc)
        rc = convert_table(
            m, &run->shared,
            rec_path(run->dir, run->gen == REC_G3 ? "recorder.cst" : "0.cst", path, sizeof path),
            &m->shared, e);
    for (int32_t r = 0; r < run->ranks && rc == TR_OK; r++) rc = rank_setup(m, r, e);
    if (rc == TR_OK) rc = tr_trace_status(t, e);
    return rc == TR_OK ? rec_merge_start(m, e) : rc;
}

/*
** The calls rank R had not returned at its last flush: slices left open (the
** trace's end closes them) under the open calls of lower level, with the
** arg "unfinished": 1, and a warning naming them.
*/
static int add_inflight(rec_model *m, int32_t r, tr_error *e)
{
    const rec_rank *k = &m->rk[r];
    rank_out *o = &m->ro[r];
    char name[32], path[1024];
    snprintf(name, sizeof name, "%d.inflight", (int)r);
    rec_path(m->run->dir, name, path, sizeof path);
    for (uint32_t i = 0; i < k->fly.n; i++) {
        sig_model s;
        int rc = sig_convert(m, &k->fly.sig[i], path, 1, &s, e);
        if (rc < 0) return rc;
        uint64_t ticks = rec_le64(k->fly_at + 8 * (size_t)i);
        if (ticks > m->limit) return rec_merge_overflow(m, r, e);
        tid_track *tt = rec_track_for(m, o, r, s.tid);
        uint32_t row = tr_slice_add(m->t, tt ? tt->track : TR_NONE, rec_ticks_ns(m->run, ticks), -1,
                                    s.name, s.cat, s.bytes, s.args);
        uint32_t parent;
        if (!tt || row == TR_NONE ||
            rec_nest_by_level(tt, row, s.level, ticks, UINT64_MAX, &parent) != TR_OK)
            return tr_error_nomem(e);
        tr_slice_set_parent(m->t, row, parent);
    }
    if (!k->fly.n) return TR_OK;
    const char *first = tr_str_get(m->t, func_resolve(m, k->fly.sig[0].func)->name, NULL);
    tr_loc loc = {path, 0, 0, 0};
    m->warnings++;
    return tr_warnf(m->diag, e, &loc,
                    "rank %d had %u call%s in flight at its last flush (outermost: %s): "
                    "entered, not returned",
                    (int)r, k->fly.n, k->fly.n == 1 ? "" : "s", first ? first : "?") == TR_FAIL
               ? TR_FAIL
               : TR_OK;
}

/* The end: ranks with records out of order, and the input's info. */
static int model_end(rec_model *m, tr_error *e)
{
    rec_run *run = m->run;
    char name[32], path[1024];
    for (int32_t r = 0; r < run->ranks; r++) {
        int rc = add_inflight(m, r, e);
        if (rc != TR_OK) return rc;
        if (!m->rk[r].bad_order) continue;
        m->warnings++;
        snprintf(name, sizeof name, run->gen == REC_G3 ? "recorder.ts" : "%d.ts", (int)r);
        tr_loc loc = {rec_path(run->dir, name, path, sizeof path), 0, 0, 0};
        if (tr_warnf(m->diag, e, &loc,
                     "rank %d has records that end before they start; "
                     "their durations were set to 0",
                     (int)r) == TR_FAIL)
            return TR_FAIL;
    }
    set_info(m, m->input);
    tr_input_at(m->t, m->input)->warnings += m->warnings;
    return tr_trace_status(m->t, e);
}

/* The per-rank nesting, once the rows have their parents. */
static void rank_nest_free(rec_model *m)
{
    for (int32_t r = 0; m->ro && r < m->run->ranks; r++) rec_nest_free(&m->rk[r]);
    tr_free(m->up);
    m->up = NULL;
}

int rec_model_next(rec_model *m, tr_error *e)
{
    if (!m->filled) {
        m->filled = 1;
        int rc = rec_merge_plan(m, e);
        if (rc == TR_OK) rc = rec_merge_tracks(m, e);
        if (rc == TR_OK) rc = rec_fill_rows(m, e);
        if (rc == TR_OK && rec_nest_end(m) != TR_OK) rc = tr_error_nomem(e);
        rank_nest_free(m);
        return rc;
    }
    int rc = model_end(m, e);
    return rc == TR_OK ? TR_END : rc;
}

void rec_model_free(rec_model *m)
{
    if (!m) return;
    rank_nest_free(m);
    for (int32_t r = 0; m->ro && r < m->run->ranks; r++) {
        for (size_t i = 0; i < m->ro[r].tracks.len; i++)
            tr_vec_fini(&TR_VEC_AT(&m->ro[r].tracks, tid_track, i).open);
        tr_vec_fini(&m->ro[r].tracks);
        if (!m->run->ipc) tr_free((void *)m->ro[r].sm);
    }
    tr_free(m->shared);
    tr_free(m->ro);
    tr_free(m->func);
    tr_free(m->cut);
    tr_free(m->chunk_at);
    tr_vec_fini(&m->argn);
    tr_free(m);
}
