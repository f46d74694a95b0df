/*
** recorder.c (writer): the current Recorder format, VERSION 2.5.0 in local
** mode (shared/formats/recorder.md §2): recorder.mt with the 40-byte header
** and Recorder's 243 function names, and per rank a call-signature table
** (<r>.cst, 16-byte entry headers), a grammar (<r>.cfg) and the timestamp
** pairs (<r>.ts), byte for byte as Recorder's own reader expects them.
**
** Records are a rank's slices in start order.  The grammar is built simply:
** runs of a repeated block of up to REC_PERIOD signatures become one rule
** applied K times (a run of one signature is a (terminal, K) pair), which
** is what Recorder's Sequitur would find for plain loops.  The time
** resolution is 100 ns unless some delta would overflow Recorder's uint32
** ticks; then it is coarsened by tens until every delta fits.
**
** As a tr_writer the directory goes into a tar (of one folder named after
** the output), since an output is one file; tr_recorder_write_dir writes
** the directory itself.
*/
#include "tr_writer.h"
#include "tr_recorder.h"
#include "tr_text.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REC_PERIOD    8 /* longest block the grammar folds */
#define REC_USER_FUNC 255
#define REC_TS_SLOTS  262144

static const char *const rec_names[] = {
    "creat",
    "creat64",
    "open",
    "open64",
    "close",
    "write",
    "read",
    "lseek",
    "lseek64",
    "pread",
    "pread64",
    "pwrite",
    "pwrite64",
    "readv",
    "writev",
    "mmap",
    "mmap64",
    "fopen",
    "fopen64",
    "fclose",
    "fwrite",
    "fread",
    "ftell",
    "fseek",
    "fsync",
    "fdatasync",
    "__xstat",
    "__xstat64",
    "__lxstat",
    "__lxstat64",
    "__fxstat",
    "__fxstat64",
    "getcwd",
    "mkdir",
    "rmdir",
    "chdir",
    "link",
    "linkat",
    "unlink",
    "symlink",
    "symlinkat",
    "readlink",
    "readlinkat",
    "rename",
    "chmod",
    "chown",
    "lchown",
    "utime",
    "opendir",
    "readdir",
    "closedir",
    "rewinddir",
    "mknod",
    "mknodat",
    "fcntl",
    "dup",
    "dup2",
    "pipe",
    "mkfifo",
    "umask",
    "fdopen",
    "fileno",
    "access",
    "faccessat",
    "tmpfile",
    "remove",
    "truncate",
    "ftruncate",
    "vfprintf",
    "msync",
    "fseeko",
    "ftello",
    "MPI_File_close",
    "MPI_File_set_size",
    "MPI_File_iread_at",
    "MPI_File_iread",
    "MPI_File_iread_shared",
    "MPI_File_iwrite_at",
    "MPI_File_iwrite",
    "MPI_File_iwrite_shared",
    "MPI_File_open",
    "MPI_File_read_all_begin",
    "MPI_File_read_all",
    "MPI_File_read_at_all",
    "MPI_File_read_at_all_begin",
    "MPI_File_read_at",
    "MPI_File_read",
    "MPI_File_read_ordered_begin",
    "MPI_File_read_ordered",
    "MPI_File_read_shared",
    "MPI_File_set_view",
    "MPI_File_sync",
    "MPI_File_write_all_begin",
    "MPI_File_write_all",
    "MPI_File_write_at_all_begin",
    "MPI_File_write_at_all",
    "MPI_File_write_at",
    "MPI_File_write",
    "MPI_File_write_ordered_begin",
    "MPI_File_write_ordered",
    "MPI_File_write_shared",
    "MPI_Finalize",
    "MPI_Finalized",
    "MPI_Init",
    "MPI_Init_thread",
    "MPI_Wtime",
    "MPI_Comm_rank",
    "MPI_Comm_size",
    "MPI_Get_processor_name",
    "MPI_Get_processor_name",
    "MPI_Comm_set_errhandler",
    "MPI_Barrier",
    "MPI_Bcast",
    "MPI_Gather",
    "MPI_Gatherv",
    "MPI_Scatter",
    "MPI_Scatterv",
    "MPI_Allgather",
    "MPI_Allgatherv",
    "MPI_Alltoall",
    "MPI_Reduce",
    "MPI_Allreduce",
    "MPI_Reduce_scatter",
    "MPI_Scan",
    "MPI_Type_commit",
    "MPI_Type_contiguous",
    "MPI_Type_extent",
    "MPI_Type_free",
    "MPI_Type_hindexed",
    "MPI_Op_create",
    "MPI_Op_free",
    "MPI_Type_get_envelope",
    "MPI_Type_size",
    "MPI_Type_create_darray",
    "MPI_Cart_rank",
    "MPI_Cart_create",
    "MPI_Cart_get",
    "MPI_Cart_shift",
    "MPI_Wait",
    "MPI_Send",
    "MPI_Recv",
    "MPI_Sendrecv",
    "MPI_Isend",
    "MPI_Irecv",
    "MPI_Info_create",
    "MPI_Info_set",
    "MPI_Info_get",
    "MPI_Waitall",
    "MPI_Waitsome",
    "MPI_Waitany",
    "MPI_Ssend",
    "MPI_Comm_split",
    "MPI_Comm_dup",
    "MPI_Comm_create",
    "MPI_File_seek",
    "MPI_File_seek_shared",
    "MPI_File_get_size",
    "MPI_Ibcast",
    "MPI_Test",
    "MPI_Testall",
    "MPI_Testsome",
    "MPI_Testany",
    "MPI_Ireduce",
    "MPI_Iscatter",
    "MPI_Igather",
    "MPI_Ialltoall",
    "MPI_Comm_free",
    "MPI_Cart_sub",
    "MPI_Comm_split_type",
    "H5Fcreate",
    "H5Fopen",
    "H5Fclose",
    "H5Fflush",
    "H5Gclose",
    "H5Gcreate1",
    "H5Gcreate2",
    "H5Gget_objinfo",
    "H5Giterate",
    "H5Gopen1",
    "H5Gopen2",
    "H5Dclose",
    "H5Dcreate1",
    "H5Dcreate2",
    "H5Dget_create_plist",
    "H5Dget_space",
    "H5Dget_type",
    "H5Dopen1",
    "H5Dopen2",
    "H5Dread",
    "H5Dwrite",
    "H5Dset_extent",
    "H5Sclose",
    "H5Screate",
    "H5Screate_simple",
    "H5Sget_select_npoints",
    "H5Sget_simple_extent_dims",
    "H5Sget_simple_extent_npoints",
    "H5Sselect_elements",
    "H5Sselect_hyperslab",
    "H5Sselect_none",
    "H5Tclose",
    "H5Tcopy",
    "H5Tget_class",
    "H5Tget_size",
    "H5Tset_size",
    "H5Tcreate",
    "H5Tinsert",
    "H5Aclose",
    "H5Acreate1",
    "H5Acreate2",
    "H5Aget_name",
    "H5Aget_num_attrs",
    "H5Aget_space",
    "H5Aget_type",
    "H5Aopen",
    "H5Aopen_idx",
    "H5Aopen_name",
    "H5Aread",
    "H5Awrite",
    "H5Pclose",
    "H5Pcreate",
    "H5Pget_chunk",
    "H5Pget_mdc_config",
    "H5Pset_alignment",
    "H5Pset_chunk",
    "H5Pset_dxpl_mpio",
    "H5Pset_fapl_core",
    "H5Pset_fapl_mpio",
    "H5Pset_fapl_mpiposix",
    "H5Pset_istore_k",
    "H5Pset_mdc_config",
    "H5Pset_meta_block_size",
    "H5Lexists",
    "H5Lget_val",
    "H5Literate",
    "H5Oclose",
    "H5Oget_info",
    "H5Oget_info_by_name",
    "H5Oopen",
    "H5Pset_coll_metadata_write",
    "H5Pget_coll_metadata_write",
    "H5Pset_all_coll_metadata_ops",
    "H5Pget_all_coll_metadata_ops",
};

#define REC_N_NAMES (sizeof rec_names / sizeof *rec_names)

/* Where the files go: a directory or a tar stream. */
typedef struct rec_sink {
    int (*file)(struct rec_sink *s, const char *name, const void *p, size_t n, tr_error *e);
    const char *dir;    /* directory sink */
    struct archive *ar; /* tar sink */
    const char *top;    /* its folder */
    tr_output *out;
    tr_error *err; /* where the tar callback leaves an output error */
} rec_sink;

typedef struct wr_state {
    const tr_trace *t;
    tr_slices sl;
    int16_t *func_of; /* by string id: -1 unknown yet, else the function id (255: user) */
    int64_t res_ns;
    int64_t origin; /* ns subtracted from every time (none are negative then) */
    tr_buf key;     /* the key being built */
    tr_buf args;
} wr_state;

static int put32(tr_buf *b, uint32_t v)
{
    unsigned char c[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    return tr_buf_add(b, c, 4);
}

static int put64(tr_buf *b, uint64_t v)
{
    return put32(b, (uint32_t)v) | put32(b, (uint32_t)(v >> 32));
}

static int func_id(wr_state *w, tr_str name)
{
    if (w->func_of[name] >= 0) return w->func_of[name];
    size_t n;
    const char *s = tr_str_get(w->t, name, &n);
    int id = REC_USER_FUNC;
    for (size_t i = 0; i < REC_N_NAMES; i++) {
        if (strlen(rec_names[i]) == n && memcmp(rec_names[i], s, n) == 0) {
            id = (int)i;
            break;
        }
    }
    /* 109 duplicates 108 (MPI_Get_processor_name); first match, as Recorder does. */
    w->func_of[name] = (int16_t)id;
    return id;
}

/* One argument as Recorder stores it: text with no spaces, then a space. */
static int add_field(tr_buf *b, const char *s, size_t n)
{
    size_t at = b->len;
    if (tr_buf_add(b, s, n) != TR_OK) return TR_FATAL;
    for (size_t i = at; i < b->len; i++)
        if (b->p[i] == ' ' || b->p[i] == '\n' || b->p[i] == '\0') b->p[i] = '_';
    return tr_buf_addc(b, ' ');
}

/* The key of slice ROW (recorder.md §2.2): tid, func, level, argc, args. */
static int build_key(wr_state *w, size_t row, uint32_t tid_track)
{
    const tr_trace *t = w->t;
    tr_buf *k = &w->key, *a = &w->args;
    tr_buf_reset(k);
    tr_buf_reset(a);
    int func = func_id(w, w->sl.name[row]);
    size_t argc = 0;
    int rc = TR_OK;
    if (func == REC_USER_FUNC) {
        /* Recorder's user functions carry their name as the second argument. */
        size_t n;
        const char *s = tr_str_get(t, w->sl.name[row], &n);
        rc |= add_field(a, "???", 3) | add_field(a, s, n);
        argc = 2;
    } else {
        size_t n_args = tr_args_count(t, w->sl.args[row]);
        for (size_t i = 0; i < n_args && argc < 255; i++, argc++) {
            tr_arg arg;
            tr_args_at(t, w->sl.args[row], i, &arg);
            char num[64];
            int len = 0;
            const char *s = num;
            size_t n;
            switch (arg.type) {
            case TR_ARG_STR:
                s = tr_str_get(t, arg.v.s, &n);
                break;
            case TR_ARG_UINT:
                len = snprintf(num, sizeof num, "%llu", (unsigned long long)arg.v.u);
                break;
            case TR_ARG_REAL:
                len = snprintf(num, sizeof num, "%.17g", arg.v.d);
                break;
            default:
                len = snprintf(num, sizeof num, "%lld", (long long)arg.v.i);
                break;
            }
            if (s == num) n = (size_t)len;
            rc |= add_field(a, s, n);
        }
    }
    const tr_track *tk = tr_track_get(t, tid_track);
    uint64_t tid = tk && tk->tid > 0 ? (uint64_t)tk->tid : 0;
    uint16_t depth = w->sl.depth[row];
    rc |= put64(k, tid);
    rc |= tr_buf_addc(k, (char)func);
    rc |= tr_buf_addc(k, (char)(depth > 255 ? 255 : depth));
    rc |= tr_buf_addc(k, (char)argc);
    rc |= put32(k, (uint32_t)a->len);
    rc |= tr_buf_add(k, a->p, a->len);
    return rc ? TR_FATAL : TR_OK;
}

/* Signatures of one rank: keys in an arena buffer, found again through a hash. */
typedef struct sig_set {
    tr_buf keys;    /* all keys back to back */
    tr_vec at;      /* size_t: where key i starts; at[n] = end */
    tr_vec count;   /* uint32_t: occurrences */
    uint32_t *slot; /* id + 1, 0 empty */
    size_t cap;
} sig_set;

static uint32_t hash_bytes(const char *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 16777619u;
    return h;
}

static int sig_grow(sig_set *s)
{
    size_t cap = s->cap ? s->cap * 2 : 256;
    uint32_t *slot = tr_calloc(cap, sizeof *slot);
    if (!slot) return TR_FATAL;
    size_t n = s->count.len;
    for (size_t i = 0; i < n; i++) {
        size_t a = TR_VEC_AT(&s->at, size_t, i), b = TR_VEC_AT(&s->at, size_t, i + 1);
        size_t j = hash_bytes(s->keys.p + a, b - a) & (cap - 1);
        while (slot[j]) j = (j + 1) & (cap - 1);
        slot[j] = (uint32_t)i + 1;
    }
    tr_free(s->slot);
    s->slot = slot;
    s->cap = cap;
    return TR_OK;
}

/* The terminal id of KEY, added when new; UINT32_MAX when out of memory. */
static uint32_t sig_find(sig_set *s, const char *key, size_t n)
{
    if ((s->count.len + 1) * 2 > s->cap && sig_grow(s) != TR_OK) return UINT32_MAX;
    size_t j = hash_bytes(key, n) & (s->cap - 1);
    for (; s->slot[j]; j = (j + 1) & (s->cap - 1)) {
        uint32_t id = s->slot[j] - 1;
        size_t a = TR_VEC_AT(&s->at, size_t, id), b = TR_VEC_AT(&s->at, size_t, id + 1);
        if (b - a == n && memcmp(s->keys.p + a, key, n) == 0) {
            TR_VEC_AT(&s->count, uint32_t, id)++;
            return id;
        }
    }
    uint32_t id = (uint32_t)s->count.len;
    uint32_t *c = tr_vec_push(&s->count);
    size_t *end = tr_vec_push(&s->at);
    if (!c || !end || tr_buf_add(&s->keys, key, n) != TR_OK) return UINT32_MAX;
    *c = 1;
    *end = s->keys.len;
    s->slot[j] = id + 1;
    return id;
}

static void sig_fini(sig_set *s)
{
    tr_buf_fini(&s->keys);
    tr_vec_fini(&s->at);
    tr_vec_fini(&s->count);
    tr_free(s->slot);
}

/*
** The grammar of SEQ (N terminal ids): rule -1 holds (symbol, repeat) pairs;
** a block of P > 1 ids repeated K >= 2 times becomes rule -2, -3, ...
** (identical blocks share their rule).
*/
static int write_cfg(const uint32_t *seq, size_t n, tr_buf *out)
{
    tr_buf main_body, rules;
    tr_buf_init(&main_body, 0);
    tr_buf_init(&rules, 0);
    tr_vec blocks; /* size_t: offset in seq of each rule's block; its length in plen */
    tr_vec plen;
    tr_vec_init(&blocks, sizeof(size_t));
    tr_vec_init(&plen, sizeof(size_t));
    int rc = TR_OK;
    uint32_t symbols = 0;
    for (size_t i = 0; i < n && rc == TR_OK;) {
        size_t best_p = 1, best_k = 1;
        for (size_t p = 1; p <= REC_PERIOD && i + 2 * p <= n; p++) {
            size_t k = 1;
            while (i + (k + 1) * p <= n && memcmp(seq + i, seq + i + k * p, p * sizeof *seq) == 0)
                k++;
            if (k >= 2 && p * k > best_p * best_k) {
                best_p = p;
                best_k = k;
            }
        }
        int32_t sym = (int32_t)seq[i];
        if (best_p > 1) {
            size_t r = 0;
            for (; r < blocks.len; r++) {
                size_t at = TR_VEC_AT(&blocks, size_t, r);
                if (TR_VEC_AT(&plen, size_t, r) == best_p &&
                    memcmp(seq + at, seq + i, best_p * sizeof *seq) == 0)
                    break;
            }
            if (r == blocks.len) {
                size_t *b = tr_vec_push(&blocks), *l = tr_vec_push(&plen);
                if (!b || !l) {
                    rc = TR_FATAL;
                    break;
                }
                *b = i;
                *l = best_p;
                rc |= put32(&rules, (uint32_t)(-2 - (int32_t)r));
                rc |= put32(&rules, (uint32_t)best_p);
                for (size_t q = 0; q < best_p; q++)
                    rc |= put32(&rules, seq[i + q]) | put32(&rules, 1);
            }
            sym = -2 - (int32_t)r;
        }
        rc |= put32(&main_body, (uint32_t)sym) | put32(&main_body, (uint32_t)best_k);
        symbols++;
        i += best_p * best_k;
    }
    if (rc == TR_OK) {
        rc |= put32(out, (uint32_t)(blocks.len + 1));
        rc |= put32(out, (uint32_t)-1) | put32(out, symbols);
        rc |= tr_buf_add(out, main_body.p, main_body.len);
        rc |= tr_buf_add(out, rules.p, rules.len);
    }
    tr_buf_fini(&main_body);
    tr_buf_fini(&rules);
    tr_vec_fini(&blocks);
    tr_vec_fini(&plen);
    return rc ? TR_FATAL : TR_OK;
}

/* The rows of each process, each in start order (the trace is frozen). */
typedef struct rank_rows {
    uint32_t *row;
    size_t *first;     /* rows of rank r: row[first[r] .. first[r + 1]) */
    uint32_t *rank_of; /* process -> rank */
    size_t n_ranks;
} rank_rows;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int by_rank(const tr_trace *t, const tr_slices *sl, rank_rows *rr)
{
    size_t np = tr_process_count(t);
    rr->n_ranks = np;
    rr->rank_of = tr_malloc((np ? np : 1) * sizeof *rr->rank_of);
    rr->first = tr_calloc(np + 2, sizeof *rr->first);
    rr->row = tr_malloc((sl->n ? sl->n : 1) * sizeof *rr->row);
    if (!rr->rank_of || !rr->first || !rr->row) return TR_FATAL;
    /* Ranks as the processes state them, then the rest in trace order. */
    uint64_t *order = tr_malloc((np ? np : 1) * sizeof *order);
    if (!order) return TR_FATAL;
    for (size_t p = 0; p < np; p++) {
        int32_t r = tr_process_get(t, (uint32_t)p)->rank;
        uint64_t key = r >= 0 ? (uint64_t)r : (uint64_t)1 << 31;
        order[p] = key << 32 | p;
    }
    qsort(order, np, sizeof *order, cmp_u64);
    for (size_t i = 0; i < np; i++) rr->rank_of[(uint32_t)order[i]] = (uint32_t)i;
    tr_free(order);
    for (size_t i = 0; i < sl->n; i++) {
        const tr_track *tk = tr_track_get(t, sl->track[i]);
        rr->first[rr->rank_of[tk->process] + 2]++;
    }
    for (size_t r = 0; r < np; r++) rr->first[r + 2] += rr->first[r + 1];
    for (size_t i = 0; i < sl->n; i++) {
        const tr_track *tk = tr_track_get(t, sl->track[i]);
        rr->row[rr->first[rr->rank_of[tk->process] + 1]++] = (uint32_t)i;
    }
    return TR_OK;
}

/* A rank's three files. */
static int write_rank(wr_state *w, rec_sink *sink, const rank_rows *rr, size_t r, tr_error *e)
{
    const uint32_t *rows = rr->row + rr->first[r];
    size_t n = rr->first[r + 1] - rr->first[r];
    sig_set s;
    memset(&s, 0, sizeof s);
    tr_buf_init(&s.keys, 0);
    tr_vec_init(&s.at, sizeof(size_t));
    tr_vec_init(&s.count, sizeof(uint32_t));
    tr_buf ts, cst, cfg;
    tr_buf_init(&ts, 0);
    tr_buf_init(&cst, 0);
    tr_buf_init(&cfg, 0);
    uint32_t *seq = tr_malloc((n ? n : 1) * sizeof *seq);
    size_t *start = tr_vec_push(&s.at);
    int rc = seq && start ? TR_OK : TR_FATAL;
    if (start) *start = 0;
    int64_t prev = 0;
    for (size_t i = 0; i < n && rc == TR_OK; i++) {
        size_t row = rows[i];
        int64_t st = (w->sl.ts[row] - w->origin) / w->res_ns;
        int64_t en = (tr_time_add(w->sl.ts[row], w->sl.dur[row]) - w->origin) / w->res_ns;
        rc |= put32(&ts, (uint32_t)(st - prev)) | put32(&ts, (uint32_t)(en - prev));
        prev = st;
        rc |= build_key(w, row, w->sl.track[row]);
        if (rc == TR_OK) {
            seq[i] = sig_find(&s, w->key.p, w->key.len);
            if (seq[i] == UINT32_MAX) rc = TR_FATAL;
        }
    }
    uint32_t n_sig = (uint32_t)s.count.len;
    rc |= put32(&cst, n_sig);
    for (uint32_t i = 0; i < n_sig && rc == TR_OK; i++) {
        size_t a = TR_VEC_AT(&s.at, size_t, i), b = TR_VEC_AT(&s.at, size_t, i + 1);
        rc |= put32(&cst, i) | put32(&cst, (uint32_t)r) | put32(&cst, (uint32_t)(b - a));
        rc |= put32(&cst, TR_VEC_AT(&s.count, uint32_t, i));
        rc |= tr_buf_add(&cst, s.keys.p + a, b - a);
    }
    if (rc == TR_OK) rc = write_cfg(seq, n, &cfg);
    if (rc != TR_OK) rc = tr_error_nomem(e);
    char name[32];
    if (rc == TR_OK) {
        snprintf(name, sizeof name, "%zu.cst", r);
        rc = sink->file(sink, name, cst.p, cst.len, e);
    }
    if (rc == TR_OK) {
        snprintf(name, sizeof name, "%zu.cfg", r);
        rc = sink->file(sink, name, cfg.p, cfg.len, e);
    }
    if (rc == TR_OK) {
        snprintf(name, sizeof name, "%zu.ts", r);
        rc = sink->file(sink, name, ts.p, ts.len, e);
    }
    tr_free(seq);
    sig_fini(&s);
    tr_buf_fini(&ts);
    tr_buf_fini(&cst);
    tr_buf_fini(&cfg);
    return rc;
}

/*
** 100 ns (or the resolution a Recorder input had, FROM_NS), coarsened until
** every (end - previous start) fits in uint32 ticks.
*/
static int64_t pick_resolution(const wr_state *w, const rank_rows *rr, int64_t from_ns)
{
    int64_t worst = 0;
    for (size_t r = 0; r < rr->n_ranks; r++) {
        int64_t prev = w->origin;
        for (size_t i = rr->first[r]; i < rr->first[r + 1]; i++) {
            size_t row = rr->row[i];
            int64_t d = tr_time_add(w->sl.ts[row], w->sl.dur[row]) - prev;
            if (d > worst) worst = d;
            prev = w->sl.ts[row];
        }
    }
    int64_t res = from_ns > 0 ? from_ns : 100;
    while (worst / res > (int64_t)UINT32_MAX - 1 && res < INT64_MAX / 10) res *= 10;
    return res;
}

static int write_all(const tr_trace *t, rec_sink *sink, tr_error *e)
{
    if (!tr_trace_frozen(t))
        return tr_errorf(e, TR_E_USAGE, NULL, "the Recorder writer needs a frozen trace");
    wr_state w;
    memset(&w, 0, sizeof w);
    w.t = t;
    tr_trace_slices(t, &w.sl);
    tr_buf_init(&w.key, 0);
    tr_buf_init(&w.args, 0);
    rank_rows rr;
    memset(&rr, 0, sizeof rr);
    size_t n_str = tr_str_count(t);
    w.func_of = tr_malloc((n_str ? n_str : 1) * sizeof *w.func_of);
    int rc = w.func_of && by_rank(t, &w.sl, &rr) == TR_OK ? TR_OK : tr_error_nomem(e);
    if (rc == TR_OK && rr.n_ranks == 0)
        rc = tr_errorf(e, TR_E_USAGE, NULL, "nothing to write: the trace has no processes");
    if (rc == TR_OK) {
        memset(w.func_of, 0xff, n_str * sizeof *w.func_of);
        w.origin = 0;
        for (size_t i = 0; i < w.sl.n; i++)
            if (w.sl.ts[i] < w.origin) w.origin = w.sl.ts[i];
    }
    /* A Recorder input keeps its start_ts and resolution bit for bit. */
    const tr_input_info *in = tr_input_count(t) ? tr_input_get(t, 0) : NULL;
    tr_arg start_arg, res_arg;
    int has_start = in && w.origin == 0 && tr_args_find(t, in->meta, "start_ts", &start_arg) &&
                    start_arg.type == TR_ARG_REAL;
    int64_t from_ns = 0;
    if (in && tr_args_find(t, in->meta, "time_resolution", &res_arg) &&
        res_arg.type == TR_ARG_REAL && res_arg.v.d >= 1e-9 && res_arg.v.d <= 1) {
        double ns = res_arg.v.d * 1e9;
        if (ns - (double)(int64_t)(ns + 0.5) < 1e-6 && (double)(int64_t)(ns + 0.5) - ns < 1e-6)
            from_ns = (int64_t)(ns + 0.5);
    }
    if (rc == TR_OK) w.res_ns = pick_resolution(&w, &rr, from_ns);
    /* recorder.mt: the 40-byte 2.5.0 header, then one name a line. */
    tr_buf mt;
    tr_buf_init(&mt, 0);
    if (rc == TR_OK) {
        double start = 0;
        if (in && in->origin_unix_ns != INT64_MIN) start = (double)in->origin_unix_ns / 1e9;
        start += (double)w.origin / 1e9;
        if (has_start) start = start_arg.v.d;
        double res = w.res_ns == from_ns ? res_arg.v.d : (double)w.res_ns / 1e9;
        uint64_t sbits, rbits;
        memcpy(&sbits, &start, 8);
        memcpy(&rbits, &res, 8);
        int b = put32(&mt, (uint32_t)rr.n_ranks) | put32(&mt, 0) | put64(&mt, sbits);
        b |= put64(&mt, rbits) | put32(&mt, REC_TS_SLOTS) | put32(&mt, 0) | put32(&mt, 0);
        b |= put32(&mt, 0);
        for (size_t i = 0; i < REC_N_NAMES; i++)
            b |= tr_buf_adds(&mt, rec_names[i]) | tr_buf_addc(&mt, '\n');
        rc = b ? tr_error_nomem(e) : TR_OK;
    }
    if (rc == TR_OK) rc = sink->file(sink, "VERSION", "2.5.0", 5, e);
    if (rc == TR_OK) rc = sink->file(sink, "recorder.mt", mt.p, mt.len, e);
    for (size_t r = 0; r < rr.n_ranks && rc == TR_OK; r++) rc = write_rank(&w, sink, &rr, r, e);
    tr_buf_fini(&mt);
    tr_buf_fini(&w.key);
    tr_buf_fini(&w.args);
    tr_free(w.func_of);
    tr_free(rr.row);
    tr_free(rr.first);
    tr_free(rr.rank_of);
    return rc;
}

/* ---- a directory ---- */

static int dir_file(rec_sink *s, const char *name, const void *p, size_t n, tr_error *e)
{
    tr_buf path;
    tr_buf_init(&path, 0);
    if (tr_buf_addf(&path, "%s/%s", s->dir, name) != TR_OK) {
        tr_buf_fini(&path);
        return tr_error_nomem(e);
    }
    tr_loc loc = {path.p, 0, 0, 0};
    int rc = TR_OK;
    int fd = open(path.p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) rc = tr_error_errno(e, errno, &loc, "cannot create");
    for (size_t done = 0; rc == TR_OK && done < n;) {
        ssize_t w = write(fd, (const char *)p + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) rc = tr_error_errno(e, errno, &loc, "cannot write");
        done += w > 0 ? (size_t)w : 0;
    }
    if (fd >= 0 && close(fd) != 0 && rc == TR_OK)
        rc = tr_error_errno(e, errno, &loc, "cannot write");
    tr_buf_fini(&path);
    return rc;
}

int tr_recorder_write_dir(const tr_trace *t, const char *dir, tr_error *e)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        tr_loc loc = {dir, 0, 0, 0};
        return tr_error_errno(e, errno, &loc, "cannot create directory");
    }
    rec_sink s;
    memset(&s, 0, sizeof s);
    s.file = dir_file;
    s.dir = dir;
    return write_all(t, &s, e);
}

/* ---- a tar through tr_output ---- */

static la_ssize_t tar_write(struct archive *a, void *user, const void *p, size_t n)
{
    rec_sink *s = user;
    if (tr_output_write(s->out, p, n, s->err) != TR_OK) {
        archive_set_error(a, EIO, "output failed");
        return -1;
    }
    return (la_ssize_t)n;
}

static int tar_file(rec_sink *s, const char *name, const void *p, size_t n, tr_error *e)
{
    struct archive_entry *en = archive_entry_new();
    if (!en) return tr_error_nomem(e);
    tr_buf path;
    tr_buf_init(&path, 0);
    int rc = tr_buf_addf(&path, "%s/%s", s->top, name) == TR_OK ? TR_OK : tr_error_nomem(e);
    if (rc == TR_OK) {
        archive_entry_set_pathname(en, path.p);
        archive_entry_set_filetype(en, AE_IFREG);
        archive_entry_set_perm(en, 0644);
        archive_entry_set_size(en, (la_int64_t)n);
        if (archive_write_header(s->ar, en) != ARCHIVE_OK ||
            (n && archive_write_data(s->ar, p, n) != (la_ssize_t)n))
            rc = e->code ? TR_FAIL
                         : tr_errorf(e, TR_E_IO, NULL, "tar: %s", archive_error_string(s->ar));
    }
    tr_buf_fini(&path);
    archive_entry_free(en);
    return rc;
}

static int recorder_write(const tr_trace *t, tr_output *out, const tr_write_opts *o, tr_error *e)
{
    (void)o; /* records are whole ranks: filters do not apply to a directory */
    /* The folder in the tar is the output's name without its extensions. */
    const char *path = tr_output_path(out);
    const char *base = path ? strrchr(path, '/') : NULL;
    base = base ? base + 1 : path;
    char top[256] = "recorder";
    if (base && *base && strcmp(base, "-") != 0) {
        size_t n = strcspn(base, ".");
        if (n == 0 || n >= sizeof top) n = 0;
        if (n) {
            memcpy(top, base, n);
            top[n] = '\0';
        }
    }
    rec_sink s;
    memset(&s, 0, sizeof s);
    s.file = tar_file;
    s.top = top;
    s.out = out;
    s.err = e;
    s.ar = archive_write_new();
    if (!s.ar) return tr_error_nomem(e);
    int rc = TR_OK;
    if (archive_write_set_format_pax_restricted(s.ar) != ARCHIVE_OK ||
        archive_write_set_bytes_in_last_block(s.ar, 1) != ARCHIVE_OK ||
        archive_write_open(s.ar, &s, NULL, tar_write, NULL) != ARCHIVE_OK)
        rc = tr_errorf(e, TR_E_IO, NULL, "tar: %s", archive_error_string(s.ar));
    if (rc == TR_OK) rc = write_all(t, &s, e);
    if (archive_write_close(s.ar) != ARCHIVE_OK && rc == TR_OK)
        rc = e->code ? TR_FAIL : tr_errorf(e, TR_E_IO, NULL, "tar: %s", archive_error_string(s.ar));
    archive_write_free(s.ar);
    return rc;
}

const tr_writer tr_writer_recorder = {
    .abi = TR_WRITER_ABI,
    .name = "recorder",
    .description = "Recorder 2.5.0 trace directory, as a tar of one folder",
    .extensions = "",
    .binary = 1,
    .write = recorder_write,
};
