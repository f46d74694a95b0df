/*
** recorder_model.c: a Recorder trace's decoded ranks into the model
** (shared/formats/recorder.md).
**
** The ranks are merged k-way by start time, so the slices arrive already in
** the order freeze wants and need no sort.  Each rank's nesting is found
** first, on the pool's threads (parents by position in the rank).  The
** rows are then appended as one block, sized exactly, and the merge is cut
** by start time into chunks, each merged and put (tr_slice_put) on the
** pool's threads: a rank's starts never go back, so every record that
** starts before a cut is merged ahead of any after it.  The tracks are made
** first, in the order the merge meets them.  A record is a slice on its
** rank's thread track, named by its function, categorised by its layer,
** with its arguments as args; its level becomes its depth through its
** parent's enclosing times.
*/
#include "recorder_impl.h"
#include "tr_analysis.h"
#include "tr_pool.h"
#include "tr_text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* What a call signature becomes, computed once per table entry. */
typedef struct sig_model {
    tr_str name, cat;
    uint32_t args;
    int64_t bytes;
    int64_t tid;
    uint32_t level;
} sig_model;

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

/* Per function id: the argument keys and the bytes rule, resolved once. */
typedef struct func_info {
    int done, io;
    tr_str name, cat;
    uint32_t n_keys;
    tr_str keys[8];
} func_info;

enum { CAT_POSIX, CAT_MPIIO, CAT_MPI, CAT_HDF5, CAT_USER, CAT_COUNT };
static const char *const cat_text[CAT_COUNT] = {"POSIX", "MPI-IO", "MPI", "HDF5", "USER"};

/* Rows a chunk of the merge holds at least: fewer would cost more in splitting than they win. */
#define FILL_CHUNK_MIN 65536
/* Every this many records a rank keeps its tick, to find where a chunk starts in it. */
#define REC_SAMPLE 256

/* Per record: the position of its parent in the rank (or TR_NONE), and its row in the block. */
typedef struct rec_link {
    uint32_t up, row;
} rec_link;

/* A rank's cursor in a chunk's k-way merge: the record at pos, and the rank's columns. */
typedef struct cursor {
    int64_t start, dur;       /* ns, of the record at pos; start INT64_MAX once done */
    uint64_t pos, begin, end; /* the record, and the rank's records in the chunk */
    uint64_t prev;            /* ticks: start of the record at pos (once loaded) */
    const unsigned char *ts;
    const uint32_t *seq;
    rec_link *link;
    const sig_model *sm;
    const sig_model *sig; /* the record's, looked up when loaded: the fill waits on no load */
    int64_t tid;          /* the last record's thread, and its track */
    uint32_t track;
    int32_t rank;
    int done;
} cursor;

/* Where a chunk starts in a rank: its first record, and the tick before it. */
typedef struct cut {
    uint64_t pos, prev;
} cut;

/* A slice still open on a track, for nesting by level. */
typedef struct open_rec {
    uint32_t row;
    uint32_t level;
    uint64_t start, end; /* ticks: for a trace without levels (level_by_ticks) */
} open_rec;

typedef struct tid_track {
    int64_t tid;
    uint32_t track;
    tr_vec open; /* open_rec, outermost first */
} tid_track;

typedef struct rank_out {
    uint32_t process;
    const sig_model *sm;
    tid_track *last;
    tr_vec tracks; /* tid_track: (tid, track) pairs seen */
    /* found per rank on the pool's threads before the merge */
    int bad_order, overflow, any_bytes;
    tr_vec nest;    /* tid_track (no track): open records by their position in the rank */
    rec_link *link; /* per record (in the model's block) */
    uint64_t *samp; /* every REC_SAMPLE-th record: the tick before it (in the model's block) */
    int rc;
} rank_out;

struct rec_model {
    tr_trace *t;
    rec_run *run;
    rec_rank *rk;
    uint32_t input;
    tr_diag *diag;
    tr_diag quiet; /* the diag when the caller gives none */
    tr_str cat[CAT_COUNT];
    func_info *func; /* n_names + 1 (user functions last) */
    tr_vec argn;     /* tr_str: "arg1", "arg2", ... on demand */
    uint64_t warnings;
    rank_out *ro;      /* per rank */
    sig_model *shared; /* inter-process: the one table's */
    uint64_t limit;    /* ticks past it overflow int64 nanoseconds */
    int threads;
    int filled;
    size_t rows;      /* records of all ranks */
    uint32_t first;   /* the block's first row */
    size_t n_chunks;  /* the merge's, each a span of start times */
    cut *cut;         /* (n_chunks + 1) x ranks: where each chunk starts in each rank */
    size_t *chunk_at; /* n_chunks + 1: each chunk's first row in the block */
    rec_link *link;   /* every rank's, one after the other: a block on huge pages */
    uint64_t *samp;
};

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

static int64_t ticks_ns(const rec_run *run, uint64_t ticks)
{
    if (run->res_ns) return (int64_t)ticks * run->res_ns;
    return (int64_t)llround((double)ticks * run->res_nsd);
}

/*
** Loads the record at c->pos; returns 0 past the chunk's end, -1 when it ends
** past LIMIT.  Times stay the exact ticks Recorder's tools print; the levels,
** not the times, say which record is whose child (nest_by_level).
*/
static int cursor_load(const rec_run *run, cursor *c, uint64_t limit)
{
    if (c->pos >= c->end) {
        c->done = 1;
        c->start = INT64_MAX;
        c->dur = 0;
        return 0;
    }
    const unsigned char *p = c->ts + c->pos * 8;
    uint64_t s = c->prev + rec_le32(p), en = c->prev + rec_le32(p + 4);
    if (en > limit) return -1;
    /* A rank's turn comes back after every other rank's: too many streams for the hardware to
     * foresee, so its next lines are asked for now (past the end is harmless). */
    __builtin_prefetch(p + 128);
    __builtin_prefetch(c->seq + c->pos + 16);
    __builtin_prefetch(c->link + c->pos + 8, 1);
    c->start = ticks_ns(run, s);
    c->dur = ticks_ns(run, en) - c->start;
    c->prev = s;
    c->sig = &c->sm[c->seq[c->pos]];
    return 1;
}

/*
** A tournament of K cursors (a power of two; those past the ranks are done):
** node[0] is the winner, node[1..K-1] the loser of each match, so that the
** next winner takes log2 K comparisons along one leaf's path.  A leaf is a
** rank.  Its key sits apart from its cursor, as one 128-bit number: the
** start, then minus the duration (the longer record, the parent, first),
** both INT64_MAX once done; equal keys go to the lower leaf.  A match is
** then one comparison and a swap by masks (the winner is a coin toss, and
** the compiler made branches of ?:).
*/
__extension__ typedef unsigned __int128 tkey;

typedef struct tourney {
    cursor *c;
    tkey *key;
    uint32_t *node;
    size_t k;
} tourney;

static tkey cursor_key(const cursor *c)
{
    uint64_t neg_dur = (uint64_t)(c->done ? INT64_MAX : -c->dur) ^ ((uint64_t)1 << 63);
    return (tkey)((uint64_t)c->start ^ ((uint64_t)1 << 63)) << 64 | neg_dur;
}

static int key_before(tkey a, uint32_t ia, tkey b, uint32_t ib)
{
    return a < b || (a == b && ia < ib);
}

static void tourney_build(tourney *tv, uint32_t *win)
{
    for (size_t i = 0; i < tv->k; i++) {
        win[tv->k + i] = (uint32_t)i;
        tv->key[i] = cursor_key(&tv->c[i]);
    }
    for (size_t n = tv->k - 1; n >= 1; n--) {
        uint32_t a = win[2 * n], b = win[2 * n + 1];
        int b_wins = key_before(tv->key[b], b, tv->key[a], a);
        win[n] = b_wins ? b : a;
        tv->node[n] = b_wins ? a : b;
    }
    tv->node[0] = tv->k > 1 ? win[1] : 0;
}

/* Cursor I moved on: its matches again, from its leaf up. */
static void tourney_replay(tourney *tv, uint32_t i)
{
    uint32_t w = i;
    tkey wk = tv->key[i] = cursor_key(&tv->c[i]);
    for (size_t n = (i + tv->k) >> 1; n; n >>= 1) {
        uint32_t l = tv->node[n];
        tkey lk = tv->key[l];
        int swap = lk < wk;
        if (lk == wk) swap = l < w;
        tkey m = 0 - (tkey)swap;
        uint32_t x = (w ^ l) & (uint32_t)m;
        tv->node[n] = l ^ x;
        w ^= x;
        wk ^= (wk ^ lk) & m;
    }
    tv->node[0] = w;
}

static tid_track *track_for(rec_model *m, rank_out *ro, int32_t rank, int64_t tid)
{
    if (ro->last && tid == ro->last->tid) return ro->last;
    for (size_t i = 0; i < ro->tracks.len; i++) {
        tid_track *tt = &TR_VEC_AT(&ro->tracks, tid_track, i);
        if (tt->tid == tid) return ro->last = tt;
    }
    char name[64];
    int len = tid ? snprintf(name, sizeof name, "thread %lld", (long long)tid)
                  : snprintf(name, sizeof name, "rank %d", (int)rank);
    tr_str key = tr_str_intern(m->t, name, (size_t)len);
    uint32_t track = tr_track_intern(m->t, ro->process, TR_TRACK_THREAD, tid ? tid : -1, key);
    tid_track *tt = tr_vec_push(&ro->tracks);
    if (!tt || track == TR_NONE) return NULL;
    tt->tid = tid;
    tt->track = track;
    tr_track_at(m->t, track)->nesting = TR_NEST_GIVEN;
    tr_vec_init(&tt->open, sizeof(open_rec));
    return ro->last = tt;
}

/*
** Nesting follows the records' levels: the sequence is in start order and a
** record of level L closes every open record of level >= L; the innermost
** one left is its parent.  Timestamps are truncated deltas, so a child can
** start at its parent's end tick and a sibling end a tick after the next one
** starts: time containment would get both wrong (the tracks are
** TR_NEST_GIVEN).
*/
static int nest_by_level(tid_track *tt, uint32_t row, uint32_t level, uint64_t start, uint64_t end,
                         uint32_t *parent)
{
    tr_vec *open = &tt->open;
    while (open->len && TR_VEC_AT(open, open_rec, open->len - 1).level >= level) open->len--;
    *parent = open->len ? TR_VEC_AT(open, open_rec, open->len - 1).row : TR_NONE;
    /* once per record: the call only when the stack must grow */
    open_rec *o =
        open->len < open->cap ? &TR_VEC_AT(open, open_rec, open->len++) : tr_vec_push(open);
    if (!o) return TR_FATAL;
    *o = (open_rec){row, level, start, end};
    return TR_OK;
}

/*
** The level of a record of a trace that stores none (G3's store_call_depth
** off: every depth byte is 0): the open records that hold its ticks, ends
** included, as a truncated child may end on its parent's end tick; one of
** no length holds nothing.
*/
static uint32_t level_by_ticks(const tid_track *tt, uint64_t start, uint64_t end)
{
    size_t k = tt->open.len;
    while (k) {
        const open_rec *o = &TR_VEC_AT(&tt->open, open_rec, k - 1);
        if (o->end >= end && o->end > o->start && o->start <= start) break;
        k--;
    }
    return (uint32_t)k;
}

/* A rank whose timestamps run past what nanoseconds can hold. */
static int merge_overflow(rec_model *m, int32_t bad, tr_error *e)
{
    char name[32], path[1024];
    snprintf(name, sizeof name, m->run->gen == REC_G3 ? "recorder.ts" : "%d.ts", (int)bad);
    tr_loc loc = {rec_path(m->run->dir, name, path, sizeof path), 0, 0, 0};
    return tr_errorf(e, TR_E_FORMAT, &loc,
                     "rank %d's timestamps run past what nanoseconds can hold", (int)bad);
}

/* The merge's per-rank arrays, sized; the tick limit. */
static int merge_start(rec_model *m, tr_error *e)
{
    rec_run *run = m->run;
    int32_t n = run->ranks;
    for (int32_t r = 0; r < n; r++) m->rows += m->rk[r].n;
    if (m->rows >= TR_NONE - 1) return tr_error_nomem(e); /* positions in a rank are 32-bit */
    size_t samples = 0;
    for (int32_t r = 0; r < n; r++) samples += (size_t)((m->rk[r].n + REC_SAMPLE - 1) / REC_SAMPLE);
    m->link = tr_malloc((m->rows + 1) * sizeof *m->link);
    m->samp = tr_malloc((samples + 1) * sizeof *m->samp);
    if (!m->link || !m->samp) return tr_error_nomem(e);
    size_t at = 0, sat = 0;
    for (int32_t r = 0; r < n; r++) {
        m->ro[r].link = m->link + at;
        m->ro[r].samp = m->samp + sat;
        at += m->rk[r].n;
        sat += (size_t)((m->rk[r].n + REC_SAMPLE - 1) / REC_SAMPLE);
    }
    double dlimit = (double)INT64_MAX / run->res_nsd / 2;
    m->limit = run->res_ns        ? (uint64_t)(INT64_MAX / run->res_ns)
               : dlimit >= 1.8e19 ? UINT64_MAX
                                  : (uint64_t)dlimit;
    return TR_OK;
}

/* Rank R's open records on thread TID, by position (made on first use). */
static tid_track *nest_for(rank_out *o, int64_t tid)
{
    for (size_t i = 0; i < o->nest.len; i++) {
        tid_track *tt = &TR_VEC_AT(&o->nest, tid_track, i);
        if (tt->tid == tid) return tt;
    }
    tid_track *tt = tr_vec_push(&o->nest);
    if (!tt) return NULL;
    tt->tid = tid;
    tr_vec_init(&tt->open, sizeof(open_rec));
    return tt;
}

/*
** One rank's parents, by position in the rank (a pool job: it touches its
** rank only); on the way, its ticks for the merge's split, and whether a
** record ends too late, before it starts, or has a size.
*/
static int nest_rank(void *user, size_t r)
{
    rec_model *m = user;
    rank_out *o = &m->ro[r];
    const rec_rank *rk = &m->rk[r];
    const rec_run *run = m->run;
    int levels = run->gen != REC_G3 || run->g3_flags[5]; /* G3 header byte 9: store_call_depth */
    tid_track *tt = NULL;
    uint64_t prev = 0;
    for (uint64_t pos = 0; pos < rk->n; pos++) {
        const sig_model *s = &o->sm[rk->seq[pos]];
        const unsigned char *p = rk->ts.p + pos * 8;
        uint64_t start = prev + rec_le32(p), end = prev + rec_le32(p + 4);
        if (pos % REC_SAMPLE == 0) o->samp[pos / REC_SAMPLE] = prev;
        prev = start;
        o->overflow |= end > m->limit;
        /* ns as the merge orders them: a fractional resolution may round both ends to one */
        if (end < start && (run->res_ns || ticks_ns(run, end) < ticks_ns(run, start)))
            o->bad_order = 1;
        o->any_bytes |= s->bytes != -1;
        if (!tt || tt->tid != s->tid) tt = nest_for(o, s->tid);
        if (!tt) return o->rc = TR_FATAL;
        uint32_t level = levels ? s->level : level_by_ticks(tt, start, end);
        if (nest_by_level(tt, (uint32_t)pos, level, start, end, &o->link[pos].up) != TR_OK)
            return o->rc = TR_FATAL;
    }
    return TR_OK;
}

/* What is still open at each rank's end, as rows, where the calls in flight look for it. */
static int nest_end(rec_model *m)
{
    for (int32_t r = 0; r < m->run->ranks; r++) {
        rank_out *o = &m->ro[r];
        for (size_t i = 0; i < o->nest.len; i++) {
            const tid_track *lt = &TR_VEC_AT(&o->nest, tid_track, i);
            tid_track *tt = track_for(m, o, r, lt->tid);
            if (!tt) return TR_FATAL;
            for (size_t k = 0; k < lt->open.len; k++) {
                open_rec rec = TR_VEC_AT(&lt->open, open_rec, k);
                open_rec *to = tr_vec_push(&tt->open);
                if (!to) return TR_FATAL;
                *to = (open_rec){m->first + o->link[rec.row].row, rec.level, rec.start, rec.end};
            }
        }
    }
    return TR_OK;
}

/*
** The cursors of every rank from LO to HI (a chunk's cuts, or all records)
** in a tournament; *BAD is the first rank, in rank order, whose first record
** ends past the limit.
*/
static int tourney_open(rec_model *m, const cut *lo, const cut *hi, tourney *tv, int32_t *bad)
{
    int32_t n = m->run->ranks;
    size_t k = 1;
    while (k < (size_t)n) k *= 2;
    tv->k = k;
    tv->c = tr_malloc(k * sizeof *tv->c);
    tv->key = tr_malloc(k * sizeof *tv->key);
    tv->node = tr_malloc(k * sizeof *tv->node);
    uint32_t *win = tr_malloc(2 * k * sizeof *win);
    if (!tv->c || !tv->key || !tv->node || !win) {
        tr_free(win);
        return TR_FATAL;
    }
    *bad = -1;
    for (size_t i = 0; i < k; i++) {
        cursor *c = &tv->c[i];
        if (i >= (size_t)n) {
            *c = (cursor){.start = INT64_MAX, .rank = INT32_MAX, .done = 1};
            continue;
        }
        const rec_rank *rk = &m->rk[i];
        rank_out *o = &m->ro[i];
        *c = (cursor){.pos = lo[i].pos,
                      .begin = lo[i].pos,
                      .end = hi[i].pos,
                      .prev = lo[i].prev,
                      .ts = rk->ts.p,
                      .seq = rk->seq,
                      .link = o->link,
                      .sm = o->sm,
                      .track = TR_NONE,
                      .rank = (int32_t)i};
        if (cursor_load(m->run, c, m->limit) < 0 && *bad < 0) *bad = (int32_t)i;
    }
    tourney_build(tv, win);
    tr_free(win);
    return TR_OK;
}

static void tourney_close(tourney *tv)
{
    tr_free(tv->c);
    tr_free(tv->key);
    tr_free(tv->node);
}

/* The first record of RK at or after NS, starting from the sample before it. */
static cut cut_at(const rec_run *run, const rec_rank *rk, const rank_out *o, int64_t ns)
{
    size_t lo = 0, hi = (size_t)((rk->n + REC_SAMPLE - 1) / REC_SAMPLE);
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        uint64_t tick = o->samp[mid] + rec_le32(rk->ts.p + (uint64_t)mid * REC_SAMPLE * 8);
        if (ticks_ns(run, tick) < ns)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return (cut){0, 0};
    cut c = {(uint64_t)(lo - 1) * REC_SAMPLE, o->samp[lo - 1]};
    for (; c.pos < rk->n; c.pos++) {
        uint64_t tick = c.prev + rec_le32(rk->ts.p + c.pos * 8);
        if (ticks_ns(run, tick) >= ns) break;
        c.prev = tick;
    }
    return c;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/*
** Chunk J holds the records that start in [S_J, S_J+1), the S_J quantiles of
** the sampled start times: the merge puts every record that starts before
** S_J ahead of any that starts at it or later (a rank's starts never go
** back), so the chunks merged apart, from their cuts, are the whole merge.
*/
static int split_chunks(rec_model *m)
{
    const rec_run *run = m->run;
    size_t ranks = (size_t)run->ranks, n = 0;
    for (size_t r = 0; r < ranks; r++) n += (size_t)((m->rk[r].n + REC_SAMPLE - 1) / REC_SAMPLE);
    int64_t *key = tr_malloc((n ? n : 1) * sizeof *key);
    if (!key) return TR_FATAL;
    n = 0;
    for (size_t r = 0; r < ranks; r++) {
        const rec_rank *rk = &m->rk[r];
        for (uint64_t pos = 0; pos < rk->n; pos += REC_SAMPLE)
            key[n++] =
                ticks_ns(run, m->ro[r].samp[pos / REC_SAMPLE] + rec_le32(rk->ts.p + pos * 8));
    }
    tr_qsort(key, n, sizeof *key, cmp_i64);
    for (size_t j = 1; j < m->n_chunks; j++)
        for (size_t r = 0; r < ranks; r++)
            m->cut[j * ranks + r] = cut_at(run, &m->rk[r], &m->ro[r], key[j * n / m->n_chunks]);
    tr_free(key);
    return TR_OK;
}

/* Where the block goes, how many chunks merge it and where each starts. */
static int merge_plan(rec_model *m, tr_error *e)
{
    size_t base[TR_EV_KIND_COUNT], ranks = (size_t)m->run->ranks;
    tr_trace_event_counts(m->t, base);
    if (m->rows >= TR_NONE - 1 - base[TR_EV_SLICE]) return tr_error_nomem(e);
    m->first = (uint32_t)base[TR_EV_SLICE];
    int overflow = 0;
    for (size_t r = 0; r < ranks; r++) overflow |= m->ro[r].overflow;
    /* One chunk on one thread; else a few a thread, so that a slow one is waited for less. */
    size_t want = m->threads == 1 ? 1 : 4 * (size_t)tr_pool_threads(m->threads, SIZE_MAX);
    m->n_chunks = overflow ? 1 : m->rows / FILL_CHUNK_MIN;
    if (m->n_chunks > want) m->n_chunks = want;
    if (m->n_chunks < 1) m->n_chunks = 1;
    m->cut = tr_calloc((m->n_chunks + 1) * ranks, sizeof *m->cut);
    m->chunk_at = tr_calloc(m->n_chunks + 1, sizeof *m->chunk_at);
    if (!m->cut || !m->chunk_at) return tr_error_nomem(e);
    for (size_t r = 0; r < ranks; r++) m->cut[m->n_chunks * ranks + r].pos = m->rk[r].n;
    if (m->n_chunks > 1 && split_chunks(m) != TR_OK) return tr_error_nomem(e);
    for (size_t j = 0; j <= m->n_chunks; j++)
        for (size_t r = 0; r < ranks; r++) m->chunk_at[j] += (size_t)m->cut[j * ranks + r].pos;
    return TR_OK;
}

/*
** The tracks, made in the order their first records come in the merge (as
** appending row by row made them): the merge runs on one thread until every
** thread has been seen, or, when a rank ends too late, to the record that
** says so first.
*/
static int merge_tracks(rec_model *m, tr_error *e)
{
    size_t want = 0, have = 0, ranks = (size_t)m->run->ranks;
    int overflow = 0;
    for (size_t r = 0; r < ranks; r++) {
        want += m->ro[r].nest.len;
        overflow |= m->ro[r].overflow;
    }
    if (!want) return TR_OK;
    tourney tv;
    int32_t bad;
    if (tourney_open(m, m->cut, m->cut + m->n_chunks * ranks, &tv, &bad) != TR_OK)
        return tr_error_nomem(e);
    int rc = bad >= 0 ? merge_overflow(m, bad, e) : TR_OK;
    while (rc == TR_OK && (have < want || overflow)) {
        uint32_t i = tv.node[0];
        cursor *cu = &tv.c[i];
        if (cu->done) break;
        rank_out *o = &m->ro[cu->rank];
        size_t before = o->tracks.len;
        if (!track_for(m, o, cu->rank, cu->sig->tid)) {
            rc = tr_error_nomem(e);
            break;
        }
        have += o->tracks.len - before;
        cu->pos++;
        if (cursor_load(m->run, cu, m->limit) < 0)
            rc = merge_overflow(m, cu->rank, e);
        else
            tourney_replay(&tv, i);
    }
    tourney_close(&tv);
    return rc;
}

/* The track of RO's thread TID, which merge_tracks made (read-only: fill jobs share it). */
static uint32_t track_of(const rank_out *ro, int64_t tid)
{
    for (size_t i = 0; i < ro->tracks.len; i++) {
        const tid_track *tt = &TR_VEC_AT(&ro->tracks, tid_track, i);
        if (tt->tid == tid) return tt->track;
    }
    return TR_NONE;
}

/* A duration too long for the row, set by tr_slice_end once the jobs are done. */
typedef struct wide_end {
    uint32_t row;
    int64_t end;
} wide_end;

/* A row whose parent is in an earlier chunk: its row is known once the jobs are done. */
typedef struct late_parent {
    uint32_t row, up;
    int32_t rank;
} late_parent;

/* One fill job: a chunk, merged and put. */
typedef struct fill_job {
    tr_vec wide; /* wide_end */
    tr_vec late; /* late_parent */
    int rc;
} fill_job;

typedef struct fill_pool {
    rec_model *m;
    fill_job *job;
} fill_pool;

static int fill_chunk(void *user, size_t j)
{
    fill_pool *fp = user;
    rec_model *m = fp->m;
    fill_job *job = &fp->job[j];
    size_t ranks = (size_t)m->run->ranks;
    tourney tv;
    int32_t bad;
    if (tourney_open(m, m->cut + j * ranks, m->cut + (j + 1) * ranks, &tv, &bad) != TR_OK)
        return job->rc = TR_FATAL;
    int rc = TR_OK;
    for (size_t at = m->chunk_at[j]; at < m->chunk_at[j + 1] && rc == TR_OK; at++) {
        uint32_t i = tv.node[0];
        cursor *cu = &tv.c[i];
        uint64_t pos = cu->pos;
        const sig_model *s = cu->sig;
        if (s->tid != cu->tid || cu->track == TR_NONE) {
            cu->tid = s->tid;
            cu->track = track_of(&m->ro[cu->rank], s->tid);
        }
        rec_link *lk = &cu->link[pos];
        uint32_t row = m->first + (uint32_t)at, up = lk->up, parent = TR_NONE;
        lk->row = (uint32_t)at;
        if (up != TR_NONE && up >= cu->begin) {
            parent = m->first + cu->link[up].row;
        } else if (up != TR_NONE) {
            late_parent *lp = tr_vec_push(&job->late);
            if (lp) *lp = (late_parent){row, up, cu->rank};
            rc = lp ? TR_OK : TR_FATAL;
        }
        int64_t dur = cu->dur < 0 ? 0 : cu->dur;
        int put = tr_slice_put(m->t, row, cu->track, cu->start, dur, s->name, s->cat, s->bytes,
                               s->args, parent);
        if (put == TR_END) {
            wide_end *w = tr_vec_push(&job->wide);
            if (w) *w = (wide_end){row, cu->start + dur};
            put = w ? TR_OK : TR_FATAL;
        }
        if (rc == TR_OK) rc = put;
        cu->pos++;
        cursor_load(m->run, cu, m->limit);
        tourney_replay(&tv, i);
    }
    tourney_close(&tv);
    return job->rc = rc;
}

/* The merged rows into the model: one block, its chunks merged and put on the pool's threads. */
static int fill_rows(rec_model *m, tr_error *e)
{
    size_t n_chunks = m->rows ? m->n_chunks : 0;
    fill_job *job = tr_calloc(n_chunks ? n_chunks : 1, sizeof *job);
    if (!job) return tr_error_nomem(e);
    int rc = TR_OK, any_bytes = 0;
    /* Room for the calls in flight too, which come after: the block is the table's size. */
    size_t fly = 0;
    for (int32_t r = 0; r < m->run->ranks; r++) {
        fly += m->rk[r].fly.n;
        any_bytes |= m->ro[r].any_bytes;
    }
    if (tr_slice_reserve(m->t, m->rows + fly) != TR_OK ||
        tr_slice_add_rows(m->t, m->rows, m->rows > 0, any_bytes) != m->first)
        rc = tr_error_nomem(e);
    for (size_t j = 0; j < n_chunks; j++) {
        tr_vec_init(&job[j].wide, sizeof(wide_end));
        tr_vec_init(&job[j].late, sizeof(late_parent));
    }
    fill_pool fp = {m, job};
    if (rc == TR_OK) tr_pool_run(tr_pool_threads(m->threads, n_chunks), n_chunks, fill_chunk, &fp);
    for (size_t j = 0; j < n_chunks; j++) {
        if (rc == TR_OK && job[j].rc != TR_OK) rc = tr_error_nomem(e);
        for (size_t i = 0; rc == TR_OK && i < job[j].wide.len; i++) {
            const wide_end *w = &TR_VEC_AT(&job[j].wide, wide_end, i);
            tr_slice_end(m->t, w->row, w->end);
        }
        for (size_t i = 0; rc == TR_OK && i < job[j].late.len; i++) {
            const late_parent *lp = &TR_VEC_AT(&job[j].late, late_parent, i);
            tr_slice_set_parent(m->t, lp->row, m->first + m->ro[lp->rank].link[lp->up].row);
        }
        tr_vec_fini(&job[j].wide);
        tr_vec_fini(&job[j].late);
    }
    tr_free(job);
    return rc == TR_OK ? tr_trace_status(m->t, e) : rc;
}

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
    tr_vec_init(&o->nest, sizeof(tid_track));
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
    if (run->ipc) {
        o->sm = m->shared;
        return TR_OK;
    }
    char cst[32];
    snprintf(cst, sizeof cst, "%d.cst", (int)r);
    sig_model *sm;
    int rc = convert_table(m, &m->rk[r].cst, rec_path(run->dir, cst, path, sizeof path), &sm, e);
    o->sm = sm;
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
    return rc == TR_OK ? merge_start(m, e) : rc;
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
        if (ticks > m->limit) return merge_overflow(m, r, e);
        tid_track *tt = track_for(m, o, r, s.tid);
        uint32_t row = tr_slice_add(m->t, tt ? tt->track : TR_NONE, ticks_ns(m->run, ticks), -1,
                                    s.name, s.cat, s.bytes, s.args);
        uint32_t parent;
        if (!tt || row == TR_NONE ||
            nest_by_level(tt, row, s.level, ticks, UINT64_MAX, &parent) != TR_OK)
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
        if (!m->ro[r].bad_order) continue;
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
    for (int32_t r = 0; m->ro && r < m->run->ranks; r++) {
        rank_out *o = &m->ro[r];
        for (size_t i = 0; i < o->nest.len; i++)
            tr_vec_fini(&TR_VEC_AT(&o->nest, tid_track, i).open);
        tr_vec_fini(&o->nest);
        o->link = NULL;
        o->samp = NULL;
    }
    tr_free(m->link);
    tr_free(m->samp);
    m->link = NULL;
    m->samp = NULL;
}

int rec_model_next(rec_model *m, tr_error *e)
{
    if (!m->filled) {
        m->filled = 1;
        int32_t n = m->run->ranks;
        tr_pool_run(tr_pool_threads(m->threads, (size_t)n), (size_t)n, nest_rank, m);
        int rc = TR_OK;
        for (int32_t r = 0; r < n && rc == TR_OK; r++)
            if (m->ro[r].rc != TR_OK) rc = tr_error_nomem(e);
        if (rc == TR_OK) rc = merge_plan(m, e);
        if (rc == TR_OK) rc = merge_tracks(m, e);
        if (rc == TR_OK) rc = fill_rows(m, e);
        if (rc == TR_OK && nest_end(m) != TR_OK) rc = tr_error_nomem(e);
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
