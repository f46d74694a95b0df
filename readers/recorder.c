/*
** recorder.c: Recorder trace directories (uiuc-hpc/Recorder), read as a whole
** (shared/formats/recorder.md).
**
** Generations, told apart by the files and the metadata's shape rather than
** VERSION (which says 2.5.0 for both G2b and G3):
**   G2a  2.3.x: 32-byte recorder.mt, 8-byte table entries, <r>.cst/.cfg/.ts
**   G2b  2.4.0 and 2.5.0: 40-byte recorder.mt, 16-byte entries, optional
**        inter-process mode (0.cst shared, ug.mt picks <g>.cfg)
**   G3   gotcha branch: recorder.ts for all ranks, zlib blocks, recorder.cst +
**        ug.cfg + ug.mt (inter-process) or <r>.cst/<r>.cfg (local)
** G1 (.itf) and the upstream 3.0 layout are recognised and refused.
**
** Ranks are independent, so they are decoded on threads (read, inflate,
** parse, expand the grammar); the model is filled afterwards on the calling
** thread by a k-way merge of the ranks by start time, so the slices arrive
** already in the order freeze wants and need no sort.  A record is a slice on
** its rank's thread track, named by its function, categorised by its layer,
** with its arguments as args; its level becomes its depth through its
** parent's enclosing times.
*/
#include "recorder_impl.h"
#include "tr_text.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define REC_MT_MAX      ((uint64_t)16 << 20) /* recorder.mt is a few KB */
#define REC_SMALL_MAX   4096                 /* VERSION, ug.mt entries per rank */
#define REC_WARN_KEEP   4                    /* warnings kept per rank; the rest counted */
#define REC_THREADS_MAX 64

/* ---- file systems: a directory, or a bundle in memory ---- */

const char *rec_path(const rec_fs *fs, const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s", fs->label, name);
    return buf;
}

typedef struct dir_fs {
    int fd;
    char *label;
} dir_fs;

static int dir_size(rec_fs *fs, const char *name, uint64_t *size, tr_error *e)
{
    dir_fs *d = fs->user;
    struct stat st;
    if (fstatat(d->fd, name, &st, 0) != 0) {
        if (errno == ENOENT || errno == ENOTDIR) return TR_END;
        char path[1024];
        tr_loc loc = {rec_path(fs, name, path, sizeof path), 0, 0, 0};
        return tr_error_errno(e, errno, &loc, "cannot stat");
    }
    if (!S_ISREG(st.st_mode)) return TR_END;
    *size = (uint64_t)st.st_size;
    return TR_OK;
}

static int dir_load(rec_fs *fs, const char *name, uint64_t off, uint64_t len, rec_bytes *out,
                    tr_error *e)
{
    dir_fs *d = fs->user;
    char path[1024];
    rec_path(fs, name, path, sizeof path);
    tr_loc loc = {path, 0, 0, off + 1};
    if (len > SIZE_MAX / 2) return tr_errorf(e, TR_E_LIMIT, &loc, "file too large");
    unsigned char *buf = tr_malloc(len ? (size_t)len : 1);
    if (!buf) return tr_error_nomem(e);
    int fd = openat(d->fd, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        tr_free(buf);
        return tr_error_errno(e, errno, &loc, "cannot open");
    }
    size_t got = 0;
    while (got < len) {
        ssize_t r = pread(fd, buf + got, (size_t)len - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            int err = r < 0 ? errno : 0;
            close(fd);
            tr_free(buf);
            loc.offset = off + got + 1;
            if (err) return tr_error_errno(e, err, &loc, "cannot read");
            return tr_errorf(e, TR_E_FORMAT, &loc, "file shrank while being read");
        }
        got += (size_t)r;
    }
    close(fd);
    out->p = buf;
    out->n = (size_t)len;
    out->own = buf;
    return TR_OK;
}

int tr_recorder_fs_dir(rec_fs *fs, const char *dir, tr_error *e)
{
    memset(fs, 0, sizeof *fs);
    dir_fs *d = tr_calloc(1, sizeof *d);
    size_t n = strlen(dir);
    char *label = tr_malloc(n + 2);
    if (!d || !label) {
        tr_free(d);
        tr_free(label);
        return tr_error_nomem(e);
    }
    memcpy(label, dir, n);
    if (n == 0 || dir[n - 1] != '/') label[n++] = '/';
    label[n] = '\0';
    d->label = label;
    d->fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d->fd < 0) {
        tr_loc loc = {dir, 0, 0, 0};
        int rc = tr_error_errno(e, errno, &loc, "cannot open directory");
        tr_free(label);
        tr_free(d);
        return rc;
    }
    fs->size = dir_size;
    fs->load = dir_load;
    fs->user = d;
    fs->label = label;
    return TR_OK;
}

typedef struct bundle_entry {
    const char *name;
    const unsigned char *p;
    size_t n;
} bundle_entry;

typedef struct bundle_fs {
    bundle_entry *ent;
    size_t n;
} bundle_fs;

static const bundle_entry *bundle_find(rec_fs *fs, const char *name)
{
    const bundle_fs *b = fs->user;
    for (size_t i = 0; i < b->n; i++)
        if (strcmp(b->ent[i].name, name) == 0) return &b->ent[i];
    return NULL;
}

static int bundle_size(rec_fs *fs, const char *name, uint64_t *size, tr_error *e)
{
    (void)e;
    const bundle_entry *en = bundle_find(fs, name);
    if (!en) return TR_END;
    *size = en->n;
    return TR_OK;
}

static int bundle_load(rec_fs *fs, const char *name, uint64_t off, uint64_t len, rec_bytes *out,
                       tr_error *e)
{
    const bundle_entry *en = bundle_find(fs, name);
    if (!en || off > en->n || len > en->n - off) {
        char path[256];
        tr_loc loc = {rec_path(fs, name, path, sizeof path), 0, 0, off + 1};
        return tr_errorf(e, TR_E_FORMAT, &loc, "read past the end of the file");
    }
    out->p = en->p + off;
    out->n = (size_t)len;
    out->own = NULL;
    return TR_OK;
}

int tr_recorder_fs_bundle(rec_fs *fs, const void *p, size_t n, tr_error *e)
{
    memset(fs, 0, sizeof *fs);
    bundle_fs *b = tr_calloc(1, sizeof *b);
    if (!b) return tr_error_nomem(e);
    const unsigned char *c = p, *end = c + n;
    tr_vec v;
    tr_vec_init(&v, sizeof(bundle_entry));
    while (c < end) {
        const unsigned char *nul = memchr(c, 0, (size_t)(end - c));
        if (!nul || end - nul < 5) break;
        uint32_t len = rec_le32(nul + 1);
        if (len > (size_t)(end - nul - 5)) break;
        bundle_entry *en = tr_vec_push(&v);
        if (!en) {
            tr_vec_fini(&v);
            tr_free(b);
            return tr_error_nomem(e);
        }
        *en = (bundle_entry){(const char *)c, nul + 5, len};
        c = nul + 5 + len;
    }
    b->ent = v.data;
    b->n = v.len;
    fs->size = bundle_size;
    fs->load = bundle_load;
    fs->user = b;
    fs->label = "bundle:";
    return TR_OK;
}

void tr_recorder_fs_fini(rec_fs *fs)
{
    if (fs->load == dir_load) {
        dir_fs *d = fs->user;
        close(d->fd);
        tr_free(d->label);
        tr_free(d);
    } else if (fs->load == bundle_load) {
        bundle_fs *b = fs->user;
        tr_free(b->ent);
        tr_free(b);
    }
    memset(fs, 0, sizeof *fs);
}

/* ---- the run: metadata shared by all ranks ---- */

typedef struct rec_run {
    rec_fs *fs;
    int gen;
    int ver[3], has_ver;
    int32_t ranks;
    double start_ts, res;
    int ipc, ts_zlib;
    unsigned char g3_flags[10]; /* G3 header bytes 4..9 and 36..39 */
    rec_bytes mt;
    const char **name; /* into mt, NUL-free spans */
    uint32_t *name_len;
    uint32_t n_names, mpi_start, h5_start;
    rec_cst shared; /* inter-process: the one table */
    int32_t *ug;    /* inter-process: rank -> grammar */
    int32_t n_ug;
    rec_bytes ugcfg;  /* G3 inter-process: ug.cfg */
    size_t *ug_off;   /* its blocks */
    uint64_t *ts_off; /* G3: each rank's blob in recorder.ts */
    uint64_t *ts_len;
    int64_t res_ns; /* ns per tick when a whole number, else 0 */
    double res_nsd;
} rec_run;

/* A rank once decoded. */
typedef struct rec_rank {
    rec_cst cst;   /* local mode: its own table */
    rec_bytes ts;  /* (d_start, d_end) uint32 pairs */
    uint32_t *seq; /* terminal ids in record order */
    uint64_t n;
    int rc;
    tr_error err;
    tr_error warn[REC_WARN_KEEP];
    uint32_t n_warn;
    uint64_t bytes; /* of files read */
} rec_rank;

static void run_free(rec_run *run)
{
    rec_bytes_free(&run->mt);
    tr_free(run->name);
    tr_free(run->name_len);
    rec_cst_free(&run->shared);
    tr_free(run->ug);
    rec_bytes_free(&run->ugcfg);
    tr_free(run->ug_off);
    tr_free(run->ts_off);
    tr_free(run->ts_len);
}

static int fs_exists(rec_fs *fs, const char *name, uint64_t *size, tr_error *e)
{
    uint64_t dummy;
    return fs->size(fs, name, size ? size : &dummy, e);
}

/* Loads the whole of NAME, which must exist, capped at MAX bytes. */
static int load_all(rec_fs *fs, const char *name, uint64_t max, rec_bytes *out, tr_error *e)
{
    uint64_t size;
    char path[1024];
    int rc = fs->size(fs, name, &size, e);
    if (rc == TR_END) {
        tr_loc loc = {rec_path(fs, name, path, sizeof path), 0, 0, 0};
        return tr_errorf(e, TR_E_FORMAT, &loc, "missing");
    }
    if (rc < 0) return rc;
    if (size > max) {
        tr_loc loc = {rec_path(fs, name, path, sizeof path), 0, 0, 0};
        return tr_errorf(e, TR_E_FORMAT, &loc, "%llu bytes is too large for this file",
                         (unsigned long long)size);
    }
    return fs->load(fs, name, 0, size, out, e);
}

static void warn_keep(rec_rank *rk, const char *file, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Workers cannot call the diag (not thread-safe): keep warnings for the merge. */
static void warn_keep(rec_rank *rk, const char *file, uint64_t off, const char *fmt, ...)
{
    if (rk->n_warn++ >= REC_WARN_KEEP) return;
    tr_error *w = &rk->warn[rk->n_warn - 1];
    char msg[sizeof w->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tr_loc loc = {file, 0, 0, off + 1};
    tr_errorf(w, TR_E_FORMAT, &loc, "%s", msg);
}

static int read_version(rec_run *run, tr_error *e)
{
    rec_bytes v = {0};
    int rc = fs_exists(run->fs, "VERSION", NULL, e);
    if (rc == TR_END) return TR_OK; /* the structure decides; VERSION only cross-checks */
    if (rc < 0) return rc;
    if ((rc = load_all(run->fs, "VERSION", REC_SMALL_MAX, &v, e)) < 0) return rc;
    char text[32];
    size_t n = v.n < sizeof text - 1 ? v.n : sizeof text - 1;
    memcpy(text, v.p, n);
    text[n] = '\0';
    rec_bytes_free(&v);
    run->has_ver = sscanf(text, "%d.%d.%d", &run->ver[0], &run->ver[1], &run->ver[2]) == 3;
    return TR_OK;
}

static double le_f64(const unsigned char *p)
{
    uint64_t u = rec_le64(p);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* Name list: one name a line from OFF to the end of recorder.mt. */
static int read_names(rec_run *run, size_t off, const char *mt_name, tr_error *e)
{
    const unsigned char *p = run->mt.p;
    size_t n = run->mt.n, count = 0;
    for (size_t i = off; i < n; i++) count += p[i] == '\n';
    run->name = tr_malloc((count ? count : 1) * sizeof *run->name);
    run->name_len = tr_malloc((count ? count : 1) * sizeof *run->name_len);
    if (!run->name || !run->name_len) return tr_error_nomem(e);
    size_t start = off, k = 0;
    for (size_t i = off; i < n; i++) {
        if (p[i] != '\n') continue;
        run->name[k] = (const char *)p + start;
        run->name_len[k] = (uint32_t)(i - start);
        k++;
        start = i + 1;
    }
    run->n_names = (uint32_t)count;
    if (count == 0) {
        tr_loc loc = {mt_name, 0, 0, off + 1};
        return tr_errorf(e, TR_E_FORMAT, &loc, "no function names after the header");
    }
    /* Layers as Recorder's tools classify them (recorder.md §4). */
    run->mpi_start = run->h5_start = run->n_names;
    for (uint32_t i = 0; i < run->n_names; i++) {
        const char *s = run->name[i];
        size_t len = run->name_len[i];
        for (size_t j = 0; j + 1 < len; j++) {
            if (run->mpi_start == run->n_names && j + 2 < len && memcmp(s + j, "MPI", 3) == 0)
                run->mpi_start = i;
            if (run->h5_start == run->n_names && memcmp(s + j, "H5", 2) == 0) run->h5_start = i;
        }
    }
    return TR_OK;
}

/* Is every byte in [A, B) of recorder.mt part of the name list (text, newlines)? */
static int mt_text(const rec_bytes *mt, size_t a, size_t b)
{
    for (size_t i = a; i < b && i < mt->n; i++)
        if ((mt->p[i] < 0x20 && mt->p[i] != '\n') || mt->p[i] > 0x7e) return 0;
    return mt->n > a;
}

/* ug.mt: int32 grammar index per rank, then the unique grammar count. */
static int read_ug(rec_run *run, tr_error *e)
{
    char path[1024];
    rec_path(run->fs, "ug.mt", path, sizeof path);
    uint64_t size;
    int rc = fs_exists(run->fs, "ug.mt", &size, e);
    tr_loc loc = {path, 0, 0, 0};
    if (rc == TR_END) return tr_errorf(e, TR_E_FORMAT, &loc, "missing (inter-process mode)");
    if (rc < 0) return rc;
    if (size != 4 * ((uint64_t)run->ranks + 1))
        return tr_errorf(e, TR_E_FORMAT, &loc, "%llu bytes, %llu expected for %d ranks",
                         (unsigned long long)size, 4 * ((unsigned long long)run->ranks + 1),
                         (int)run->ranks);
    rec_bytes b;
    if ((rc = run->fs->load(run->fs, "ug.mt", 0, size, &b, e)) < 0) return rc;
    run->n_ug = rec_lei32(b.p + 4 * (size_t)run->ranks);
    run->ug = tr_malloc((size_t)run->ranks * sizeof *run->ug);
    if (!run->ug) {
        rec_bytes_free(&b);
        return tr_error_nomem(e);
    }
    if (run->n_ug < 1 || run->n_ug > run->ranks) {
        loc.offset = 4 * (uint64_t)run->ranks + 1;
        rec_bytes_free(&b);
        return tr_errorf(e, TR_E_FORMAT, &loc, "%d unique grammars for %d ranks", (int)run->n_ug,
                         (int)run->ranks);
    }
    for (int32_t r = 0; r < run->ranks; r++) {
        run->ug[r] = rec_lei32(b.p + 4 * (size_t)r);
        if (run->ug[r] < 0 || run->ug[r] >= run->n_ug) {
            loc.offset = 4 * (uint64_t)r + 1;
            rec_bytes_free(&b);
            return tr_errorf(e, TR_E_FORMAT, &loc, "rank %d uses grammar %d of %d", (int)r,
                             (int)run->ug[r], (int)run->n_ug);
        }
    }
    rec_bytes_free(&b);
    return TR_OK;
}

/* G3 ug.cfg: unique grammars as Z-blocks back to back; find where each starts. */
static int index_ugcfg(rec_run *run, tr_error *e)
{
    char path[1024];
    rec_path(run->fs, "ug.cfg", path, sizeof path);
    int rc = load_all(run->fs, "ug.cfg", UINT64_MAX, &run->ugcfg, e);
    if (rc < 0) return rc;
    run->ug_off = tr_malloc((size_t)run->n_ug * sizeof *run->ug_off);
    if (!run->ug_off) return tr_error_nomem(e);
    size_t at = 0;
    for (int32_t i = 0; i < run->n_ug; i++) {
        tr_loc loc = {path, 0, 0, at + 1};
        if (run->ugcfg.n - at < 16)
            return tr_errorf(e, TR_E_FORMAT, &loc, "grammar block %d of %d is missing", (int)i,
                             (int)run->n_ug);
        uint64_t csize = rec_le64(run->ugcfg.p + at);
        if (csize > run->ugcfg.n - at - 16)
            return tr_errorf(e, TR_E_FORMAT, &loc,
                             "grammar block %d claims %llu bytes, %zu are left", (int)i,
                             (unsigned long long)csize, run->ugcfg.n - at - 16);
        run->ug_off[i] = at;
        at += 16 + (size_t)csize;
    }
    return TR_OK;
}

/* G3 recorder.ts: a uint64 size per rank, then the blobs in rank order. */
static int index_ts(rec_run *run, tr_error *e)
{
    char path[1024];
    rec_path(run->fs, "recorder.ts", path, sizeof path);
    uint64_t size, table = 8 * (uint64_t)run->ranks;
    int rc = fs_exists(run->fs, "recorder.ts", &size, e);
    if (rc < 0) return rc;
    tr_loc loc = {path, 0, 0, 0};
    if (size < table)
        return tr_errorf(e, TR_E_FORMAT, &loc,
                         "%llu bytes cannot hold the size table of %d ranks (recorder.mt)",
                         (unsigned long long)size, (int)run->ranks);
    rec_bytes b;
    if ((rc = run->fs->load(run->fs, "recorder.ts", 0, table, &b, e)) < 0) return rc;
    run->ts_off = tr_malloc((size_t)run->ranks * sizeof *run->ts_off);
    run->ts_len = tr_malloc((size_t)run->ranks * sizeof *run->ts_len);
    if (!run->ts_off || !run->ts_len) {
        rec_bytes_free(&b);
        return tr_error_nomem(e);
    }
    uint64_t at = table;
    for (int32_t r = 0; r < run->ranks; r++) {
        uint64_t len = rec_le64(b.p + 8 * (size_t)r);
        if (len > size - at) {
            loc.offset = 8 * (uint64_t)r + 1;
            rec_bytes_free(&b);
            return tr_errorf(e, TR_E_FORMAT, &loc,
                             "rank %d's timestamps claim %llu bytes, %llu are left", (int)r,
                             (unsigned long long)len, (unsigned long long)(size - at));
        }
        run->ts_off[r] = at;
        run->ts_len[r] = len;
        at += len;
    }
    rec_bytes_free(&b);
    return TR_OK;
}

/* Every rank's files must be there before anything is sized by the rank count. */
static int check_rank_files(rec_run *run, tr_error *e)
{
    static const char *const g2_local[] = {"%d.cst", "%d.cfg", "%d.ts"};
    static const char *const g2_ipc[] = {"%d.ts"};
    static const char *const g3_local[] = {"%d.cst", "%d.cfg"};
    const char *const *want;
    size_t n_want;
    if (run->gen == REC_G3) {
        if (run->ipc) return TR_OK;
        want = g3_local;
        n_want = 2;
    } else if (run->ipc) {
        want = g2_ipc;
        n_want = 1;
    } else {
        want = g2_local;
        n_want = 3;
    }
    for (int32_t r = 0; r < run->ranks; r++) {
        for (size_t k = 0; k < n_want; k++) {
            char name[32], path[1024];
            snprintf(name, sizeof name, want[k], (int)r);
            int rc = fs_exists(run->fs, name, NULL, e);
            if (rc < 0) return rc;
            if (rc == TR_END) {
                tr_loc loc = {rec_path(run->fs, name, path, sizeof path), 0, 0, 0};
                return tr_errorf(e, TR_E_FORMAT, &loc, "missing (recorder.mt claims %d ranks)",
                                 (int)run->ranks);
            }
        }
    }
    return TR_OK;
}

static int read_meta(rec_run *run, tr_error *e)
{
    rec_fs *fs = run->fs;
    char mt_name[1024];
    rec_path(fs, "recorder.mt", mt_name, sizeof mt_name);
    int rc = read_version(run, e);
    if (rc < 0) return rc;
    if ((rc = load_all(fs, "recorder.mt", REC_MT_MAX, &run->mt, e)) < 0) return rc;
    const rec_bytes *mt = &run->mt;
    tr_loc loc = {mt_name, 0, 0, 0};
    if (mt->n < 32) return tr_errorf(e, TR_E_FORMAT, &loc, "cut short (%zu bytes)", mt->n);
    int g3 = (rc = fs_exists(fs, "recorder.ts", NULL, e)) == TR_OK;
    if (rc < 0) return rc;
    int g2 = (rc = fs_exists(fs, "0.ts", NULL, e)) == TR_OK;
    if (rc < 0) return rc;
    if (!g3 && !g2) {
        if (fs_exists(fs, "0.itf", NULL, e) == TR_OK)
            return tr_errorf(e, TR_E_FORMAT, &loc,
                             "a Recorder 2.0-2.2 (.itf) trace: that generation is not supported");
        return tr_errorf(e, TR_E_FORMAT, &loc,
                         "neither recorder.ts nor 0.ts beside it: not a complete Recorder trace");
    }
    run->ranks = rec_lei32(mt->p);
    if (run->ranks < 1)
        return tr_errorf(e, TR_E_FORMAT, &loc, "total_ranks is %d", (int)run->ranks);
    size_t names_at;
    if (g3) {
        run->gen = REC_G3;
        if (mt->n < 40) return tr_errorf(e, TR_E_FORMAT, &loc, "cut short (%zu bytes)", mt->n);
        /* Upstream 3.0 pads the header to 1024 bytes (recorder.md §10.10). */
        if (mt->n >= 1024 && mt->p[40] == 0)
            return tr_errorf(e, TR_E_FORMAT, &loc,
                             "the Recorder 3.0 layout (1024-byte header) is not supported yet");
        memcpy(run->g3_flags, mt->p + 4, 6);
        memcpy(run->g3_flags + 6, mt->p + 36, 4);
        run->start_ts = le_f64(mt->p + 16);
        run->res = le_f64(mt->p + 24);
        run->ts_zlib = mt->p[36] != 0;
        run->ipc = mt->p[37] != 0;
        names_at = 40;
    } else {
        run->start_ts = le_f64(mt->p + 8);
        run->res = le_f64(mt->p + 16);
        /* 2.3.x names start at 32; 2.4+ has the ipc flag and padding there. */
        if (mt_text(mt, 32, 40)) {
            run->gen = REC_G2A;
            names_at = 32;
        } else {
            run->gen = REC_G2B;
            if (mt->n < 40) return tr_errorf(e, TR_E_FORMAT, &loc, "cut short (%zu bytes)", mt->n);
            run->ipc = rec_lei32(mt->p + 32) != 0;
            names_at = 40;
        }
    }
    if (!(run->res >= 1e-12) || !isfinite(run->res) || run->res > 1e6)
        return tr_errorf(e, TR_E_FORMAT, &loc, "time resolution %g is not usable", run->res);
    if (!isfinite(run->start_ts)) run->start_ts = 0;
    double rn = run->res * 1e9;
    run->res_nsd = rn;
    run->res_ns = rn >= 1 && fabs(rn - nearbyint(rn)) < 1e-6 * rn ? (int64_t)nearbyint(rn) : 0;
    if ((rc = read_names(run, names_at, mt_name, e)) < 0) return rc;
    if ((rc = check_rank_files(run, e)) < 0) return rc;
    if (run->gen == REC_G3 && (rc = index_ts(run, e)) < 0) return rc;
    if (run->ipc) {
        if ((rc = read_ug(run, e)) < 0) return rc;
        rec_bytes raw = {0};
        if (run->gen == REC_G3) {
            rec_bytes z;
            char path[1024];
            rec_path(fs, "recorder.cst", path, sizeof path);
            if ((rc = load_all(fs, "recorder.cst", UINT64_MAX, &z, e)) < 0) return rc;
            rc = rec_zblock(&z, 0, path, 0, &raw, NULL, e);
            rec_bytes_free(&z);
            if (rc < 0) return rc;
            if ((rc = rec_cst_parse(&run->shared, &raw, 16, run->n_names, path, e)) < 0) return rc;
            if ((rc = index_ugcfg(run, e)) < 0) return rc;
        } else {
            char path[1024];
            rec_path(fs, "0.cst", path, sizeof path);
            if ((rc = load_all(fs, "0.cst", UINT64_MAX, &raw, e)) < 0) return rc;
            if ((rc = rec_cst_parse(&run->shared, &raw, 16, run->n_names, path, e)) < 0) return rc;
        }
    }
    return TR_OK;
}

/* ---- decoding one rank (on a worker thread) ---- */

static int load_named(rec_run *run, rec_rank *rk, const char *name, int zipped, rec_bytes *out,
                      tr_error *e)
{
    char path[1024];
    rec_bytes b;
    int rc = load_all(run->fs, name, UINT64_MAX, &b, e);
    if (rc < 0) return rc;
    rk->bytes += b.n;
    if (!zipped) {
        *out = b;
        return TR_OK;
    }
    rc = rec_zblock(&b, 0, rec_path(run->fs, name, path, sizeof path), 0, out, NULL, e);
    rec_bytes_free(&b);
    return rc;
}

static int decode_rank(rec_run *run, int32_t r, rec_rank *rk, tr_error *e)
{
    char name[64], path[1024], ts_path[1024];
    int g3 = run->gen == REC_G3;
    int rc;
    const rec_cst *cst = &run->shared;
    if (!run->ipc) {
        rec_bytes raw;
        snprintf(name, sizeof name, "%d.cst", (int)r);
        if ((rc = load_named(run, rk, name, g3, &raw, e)) < 0) return rc;
        rc = rec_cst_parse(&rk->cst, &raw, run->gen == REC_G2A ? 8 : 16, run->n_names,
                           rec_path(run->fs, name, path, sizeof path), e);
        if (rc < 0) return rc;
        cst = &rk->cst;
    }
    /* Timestamps first: their real size bounds the records the grammar may claim. */
    uint64_t ts_base = 0;
    if (g3) {
        rec_path(run->fs, "recorder.ts", ts_path, sizeof ts_path);
        ts_base = run->ts_off[r];
        if (run->ts_len[r]) {
            rec_bytes blob;
            rc = run->fs->load(run->fs, "recorder.ts", ts_base, run->ts_len[r], &blob, e);
            if (rc < 0) return rc;
            rk->bytes += blob.n;
            if (run->ts_zlib) {
                size_t next;
                rc = rec_zblock(&blob, 0, ts_path, ts_base, &rk->ts, &next, e);
                if (rc == TR_OK && next != blob.n)
                    warn_keep(rk, ts_path, ts_base + next,
                              "%zu bytes after rank %d's timestamp block ignored", blob.n - next,
                              (int)r);
                rec_bytes_free(&blob);
                if (rc < 0) return rc;
            } else {
                rk->ts = blob;
            }
        }
    } else {
        snprintf(name, sizeof name, "%d.ts", (int)r);
        rec_path(run->fs, name, ts_path, sizeof ts_path);
        if ((rc = load_named(run, rk, name, 0, &rk->ts, e)) < 0) return rc;
    }
    uint64_t pairs = rk->ts.n / 8;
    if (rk->ts.n % 8)
        warn_keep(rk, ts_path, ts_base + pairs * 8, "%zu trailing bytes are not a timestamp pair",
                  rk->ts.n % 8);

    rec_bytes graw;
    const char *gname;
    if (g3 && run->ipc) {
        rec_path(run->fs, "ug.cfg", path, sizeof path);
        gname = path;
        rc = rec_zblock(&run->ugcfg, run->ug_off[run->ug[r]], path, 0, &graw, NULL, e);
    } else {
        snprintf(name, sizeof name, "%d.cfg", (int)(run->ipc ? run->ug[r] : r));
        gname = rec_path(run->fs, name, path, sizeof path);
        rc = load_named(run, rk, name, g3, &graw, e);
    }
    if (rc < 0) return rc;
    rec_cfg g;
    char limit[1100];
    snprintf(limit, sizeof limit, "timestamp pairs in %s", ts_path);
    rc = rec_cfg_parse(&g, &graw, cst->n, pairs, limit, gname, e);
    if (rc < 0) {
        rec_cfg_free(&g);
        return rc;
    }
    rk->n = g.rule[g.start].len;
    if (rk->n < pairs)
        warn_keep(rk, ts_path, ts_base + rk->n * 8,
                  "%llu timestamp pairs beyond rank %d's %llu records ignored",
                  (unsigned long long)(pairs - rk->n), (int)r, (unsigned long long)rk->n);
    rk->seq = tr_malloc(rk->n ? (size_t)rk->n * sizeof *rk->seq : 1);
    rc = rk->seq ? rec_cfg_expand(&g, rk->seq, e) : tr_error_nomem(e);
    rec_cfg_free(&g);
    return rc;
}

typedef struct rec_pool {
    rec_run *run;
    rec_rank *rank;
    pthread_mutex_t lock;
    int32_t next;
    int stop;
} rec_pool;

static void *worker(void *arg)
{
    rec_pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        int32_t r = p->stop ? p->run->ranks : p->next++;
        pthread_mutex_unlock(&p->lock);
        if (r >= p->run->ranks) break;
        rec_rank *rk = &p->rank[r];
        rk->rc = decode_rank(p->run, r, rk, &rk->err);
        if (rk->rc < 0) {
            pthread_mutex_lock(&p->lock);
            p->stop = 1;
            pthread_mutex_unlock(&p->lock);
        }
    }
    return NULL;
}

static int thread_count(int want, int32_t ranks)
{
    if (want <= 0) {
        const char *env = getenv("TRACECAT_THREADS");
        want = env ? atoi(env) : 0;
        if (want <= 0) {
            long cpus = sysconf(_SC_NPROCESSORS_ONLN);
            want = cpus > 0 ? (int)(cpus < 8 ? cpus : 8) : 1;
        }
    }
    if (want > REC_THREADS_MAX) want = REC_THREADS_MAX;
    return want < ranks ? want : (int)ranks;
}

static int decode_all(rec_pool *p, int threads)
{
    pthread_t tid[REC_THREADS_MAX];
    int started = 0;
    /* The calling thread is one of the workers. */
    for (int i = 1; i < threads; i++) {
        if (pthread_create(&tid[started], NULL, worker, p) != 0) break;
        started++;
    }
    worker(p);
    for (int i = 0; i < started; i++) pthread_join(tid[i], NULL);
    return TR_OK;
}

/* ---- into the model ---- */

/* What a call signature becomes, computed once per table entry. */
typedef struct sig_model {
    tr_str name, cat;
    uint32_t args;
    int64_t bytes;
    int64_t tid;
    uint32_t level;
} sig_model;

enum { IO_NONE = 0, IO_COUNT, IO_SIZE_NMEMB, IO_MPI };

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
    {"readv", "path,iov,iovcnt", IO_NONE},
    {"writev", "path,iov,iovcnt", IO_NONE},
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
};

/* Sizes of the named MPI datatypes Recorder prints, for bytes moved. */
static const struct {
    const char *name;
    int size;
} mpi_types[] = {
    {"MPI_BYTE", 1},          {"MPI_CHAR", 1},          {"MPI_SIGNED_CHAR", 1},
    {"MPI_UNSIGNED_CHAR", 1}, {"MPI_INT8_T", 1},        {"MPI_UINT8_T", 1},
    {"MPI_C_BOOL", 1},        {"MPI_SHORT", 2},         {"MPI_UNSIGNED_SHORT", 2},
    {"MPI_INT16_T", 2},       {"MPI_UINT16_T", 2},      {"MPI_INT", 4},
    {"MPI_UNSIGNED", 4},      {"MPI_FLOAT", 4},         {"MPI_INT32_T", 4},
    {"MPI_UINT32_T", 4},      {"MPI_LONG", 8},          {"MPI_UNSIGNED_LONG", 8},
    {"MPI_LONG_LONG", 8},     {"MPI_LONG_LONG_INT", 8}, {"MPI_UNSIGNED_LONG_LONG", 8},
    {"MPI_DOUBLE", 8},        {"MPI_INT64_T", 8},       {"MPI_UINT64_T", 8},
    {"MPI_OFFSET", 8},        {"MPI_LONG_DOUBLE", 16},
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

typedef struct rec_model {
    tr_trace *t;
    rec_run *run;
    tr_diag *diag;
    tr_str cat[CAT_COUNT];
    func_info *func; /* n_names + 1 (user functions last) */
    tr_vec argn;     /* tr_str: "arg1", "arg2", ... on demand */
    uint64_t warnings;
} rec_model;

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

static int mpi_type_size(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof mpi_types / sizeof *mpi_types; i++)
        if (strlen(mpi_types[i].name) == n && memcmp(mpi_types[i].name, s, n) == 0)
            return mpi_types[i].size;
    return 0;
}

/* One table entry into a name, a category, an arg set and bytes moved. */
static int sig_convert(rec_model *m, const rec_sig *s, const char *cst_name, sig_model *out,
                       tr_error *e)
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
    if (s->func == 255) {
        /* User functions: the name is the second field, no arguments shown. */
        out->name = nf >= 2 ? tr_str_intern(m->t, field[1], flen[1])
                            : tr_str_internz(m->t, "user function");
        return TR_OK;
    }
    int64_t count = -1, size = -1, nmemb = -1, tsize = 0;
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
            if (strcmp(ks, "datatype") == 0) tsize = mpi_type_size(field[i], flen[i]);
        }
    }
    out->args = tr_args_end(m->t);
    if (f->io == IO_COUNT && count >= 0) out->bytes = count;
    if (f->io == IO_SIZE_NMEMB && size >= 0 && nmemb >= 0 && (!size || nmemb <= INT64_MAX / size))
        out->bytes = size * nmemb;
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
        int rc = sig_convert(m, &c->sig[i], cst_name, &(*out)[i], e);
        if (rc < 0) return rc;
    }
    return TR_OK;
}

/* A rank's cursor in the k-way merge. */
typedef struct cursor {
    int64_t start, end; /* of the record at pos, ns */
    uint64_t pos;
    uint64_t prev; /* ticks: start of the previous record */
    int32_t rank;
    uint32_t level; /* of the record at pos */
    const sig_model *sm;
} cursor;

/* A slice still open on a track, for nesting by level. */
typedef struct open_rec {
    uint32_t row;
    uint32_t level;
    int64_t end;
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
    int bad_order;
} rank_out;

static int64_t ticks_ns(const rec_run *run, uint64_t ticks)
{
    if (run->res_ns) return (int64_t)ticks * run->res_ns;
    return (int64_t)llround((double)ticks * run->res_nsd);
}

/*
** Loads the record at c->pos; returns 0 at the end of the rank.  A record
** that does not descend from the previous one (level not deeper) but got
** the same truncated start is moved 1 ns later, so that time order keeps
** the sequence order and time nesting keeps the levels.
*/
static int cursor_load(const rec_run *run, const rec_rank *rk, cursor *c, uint64_t limit)
{
    if (c->pos >= rk->n) return 0;
    const unsigned char *p = rk->ts.p + c->pos * 8;
    uint64_t s = c->prev + rec_le32(p), en = c->prev + rec_le32(p + 4);
    if (en > limit) return -1;
    int64_t last = c->start;
    uint32_t last_level = c->level;
    c->start = ticks_ns(run, s);
    c->end = ticks_ns(run, en);
    c->level = c->sm[rk->seq[c->pos]].level;
    if (c->pos > 0 && c->level <= last_level && c->start <= last) {
        c->start = last + 1;
        if (c->end < c->start) c->end = c->start;
    }
    c->prev = s;
    return 1;
}

static int cursor_before(const cursor *a, const cursor *b)
{
    if (a->start != b->start) return a->start < b->start;
    int64_t da = a->end - a->start, db = b->end - b->start;
    if (da != db) return da > db;
    return a->rank < b->rank;
}

/* A min-heap of rank numbers keyed by their cursors (swapping 4 bytes, not cursors). */
static void heap_down(const cursor *c, int32_t *h, size_t n, size_t i)
{
    int32_t x = h[i];
    for (;;) {
        size_t l = 2 * i + 1, m = l;
        if (l >= n) break;
        if (l + 1 < n && cursor_before(&c[h[l + 1]], &c[h[l]])) m = l + 1;
        if (!cursor_before(&c[h[m]], &c[x])) break;
        h[i] = h[m];
        i = m;
    }
    h[i] = x;
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
    tr_vec_init(&tt->open, sizeof(open_rec));
    return ro->last = tt;
}

/*
** Nesting follows the records' levels: the sequence is in start order and a
** record of level L closes every open record of level >= L.  Timestamps are
** truncated deltas, so such a sibling can end a tick after this one starts;
** its end is pulled back to this start so that time nesting (freeze) agrees
** with the levels.
*/
static int nest_by_level(rec_model *m, tid_track *tt, uint32_t row, uint32_t level, int64_t start,
                         int64_t end)
{
    tr_vec *open = &tt->open;
    while (open->len) {
        open_rec *top = &TR_VEC_AT(open, open_rec, open->len - 1);
        if (top->end > start && top->level < level) break;
        if (top->end > start) tr_slice_end(m->t, top->row, start);
        open->len--;
    }
    open_rec *o = tr_vec_push(open);
    if (!o) return TR_FATAL;
    *o = (open_rec){row, level, end};
    return TR_OK;
}

static int merge(rec_model *m, rec_rank *rk, rank_out *ro, tr_error *e)
{
    rec_run *run = m->run;
    int32_t n = run->ranks;
    cursor *c = tr_malloc((size_t)n * sizeof *c);
    int32_t *h = tr_malloc((size_t)n * sizeof *h);
    if (!c || !h) {
        tr_free(c);
        tr_free(h);
        return tr_error_nomem(e);
    }
    /* Ticks beyond LIMIT would overflow int64 nanoseconds. */
    double dlimit = (double)INT64_MAX / run->res_nsd / 2;
    uint64_t limit = run->res_ns        ? (uint64_t)(INT64_MAX / run->res_ns)
                     : dlimit >= 1.8e19 ? UINT64_MAX
                                        : (uint64_t)dlimit;
    size_t hn = 0;
    int rc = TR_OK;
    int32_t bad = 0;
    for (int32_t r = 0; r < n && rc == TR_OK; r++) {
        c[r] = (cursor){0, 0, 0, 0, r, 0, ro[r].sm};
        int got = cursor_load(run, &rk[r], &c[r], limit);
        if (got < 0) {
            rc = -1;
            bad = r;
        }
        if (got > 0) h[hn++] = r;
    }
    for (size_t i = hn; i-- > 0;) heap_down(c, h, hn, i);
    while (hn && rc == TR_OK) {
        int32_t r = h[0];
        cursor *cu = &c[r];
        rec_rank *k = &rk[r];
        rank_out *o = &ro[r];
        const sig_model *s = &o->sm[k->seq[cu->pos]];
        tid_track *tt = track_for(m, o, r, s->tid);
        int64_t dur = cu->end - cu->start;
        if (dur < 0) {
            o->bad_order = 1;
            dur = 0;
        }
        uint32_t row = tr_slice_add(m->t, tt ? tt->track : TR_NONE, cu->start, dur, s->name, s->cat,
                                    s->bytes, s->args);
        if (!tt || row == TR_NONE ||
            nest_by_level(m, tt, row, s->level, cu->start, cu->start + dur) != TR_OK) {
            tr_free(c);
            tr_free(h);
            return tr_error_nomem(e);
        }
        cu->pos++;
        int got = cursor_load(run, k, cu, limit);
        if (got < 0) {
            rc = -1;
            bad = r;
        } else if (got == 0) {
            h[0] = h[--hn];
            if (hn) heap_down(c, h, hn, 0);
        } else if (hn > 1) {
            heap_down(c, h, hn, 0);
        }
    }
    tr_free(c);
    tr_free(h);
    if (rc < 0) {
        char name[32], path[1024];
        snprintf(name, sizeof name, run->gen == REC_G3 ? "recorder.ts" : "%d.ts", (int)bad);
        tr_loc loc = {rec_path(run->fs, name, path, sizeof path), 0, 0, 0};
        return tr_errorf(e, TR_E_FORMAT, &loc,
                         "rank %d's timestamps run past what nanoseconds can hold", (int)bad);
    }
    return tr_trace_status(m->t, e);
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

static int fill_model(rec_model *m, rec_rank *rk, uint32_t input, tr_error *e)
{
    rec_run *run = m->run;
    int32_t n = run->ranks;
    int rc = TR_OK;
    for (int i = 0; i < CAT_COUNT; i++) m->cat[i] = tr_str_internz(m->t, cat_text[i]);
    m->func = tr_calloc((size_t)run->n_names + 1, sizeof *m->func);
    rank_out *ro = tr_calloc((size_t)n, sizeof *ro);
    sig_model *shared = NULL;
    if (!m->func || !ro) rc = tr_error_nomem(e);
    /* Warnings the workers kept, in rank order so that runs repeat exactly. */
    for (int32_t r = 0; r < n && rc == TR_OK; r++) {
        for (uint32_t w = 0; w < rk[r].n_warn && w < REC_WARN_KEEP; w++) {
            tr_loc loc = {rk[r].warn[w].file, 0, 0, rk[r].warn[w].offset};
            m->warnings++;
            if (tr_warnf(m->diag, e, &loc, "%s", rk[r].warn[w].msg) == TR_FAIL) rc = TR_FAIL;
        }
        if (rc == TR_OK && rk[r].n_warn > REC_WARN_KEEP) {
            m->warnings += rk[r].n_warn - REC_WARN_KEEP;
            if (tr_warnf(m->diag, e, NULL, "rank %d: %u more warnings", (int)r,
                         rk[r].n_warn - REC_WARN_KEEP) == TR_FAIL)
                rc = TR_FAIL;
        }
    }
    char path[1024];
    if (rc == TR_OK && run->ipc)
        rc = convert_table(
            m, &run->shared,
            rec_path(run->fs, run->gen == REC_G3 ? "recorder.cst" : "0.cst", path, sizeof path),
            &shared, e);
    for (int32_t r = 0; r < n && rc == TR_OK; r++) {
        rank_out *o = &ro[r];
        tr_vec_init(&o->tracks, sizeof(tid_track));
        o->process = tr_process_intern(m->t, input, r);
        if (o->process == TR_NONE) {
            rc = tr_error_nomem(e);
            break;
        }
        tr_process *p = tr_process_at(m->t, o->process);
        char name[32];
        int len = snprintf(name, sizeof name, "rank %d", (int)r);
        p->rank = r;
        p->name = tr_str_intern(m->t, name, (size_t)len);
        if (run->ipc) {
            o->sm = shared;
        } else {
            char cst[32];
            snprintf(cst, sizeof cst, "%d.cst", (int)r);
            sig_model *sm;
            rc = convert_table(m, &rk[r].cst, rec_path(run->fs, cst, path, sizeof path), &sm, e);
            o->sm = sm;
        }
    }
    if (rc == TR_OK) rc = tr_trace_status(m->t, e);
    if (rc == TR_OK) rc = merge(m, rk, ro, e);
    for (int32_t r = 0; r < n && rc == TR_OK; r++) {
        if (!ro[r].bad_order) continue;
        m->warnings++;
        char name[32];
        snprintf(name, sizeof name, run->gen == REC_G3 ? "recorder.ts" : "%d.ts", (int)r);
        tr_loc loc = {rec_path(run->fs, name, path, sizeof path), 0, 0, 0};
        if (tr_warnf(m->diag, e, &loc,
                     "rank %d has records that end before they start; "
                     "their durations were set to 0",
                     (int)r) == TR_FAIL)
            rc = TR_FAIL;
    }
    if (rc == TR_OK) {
        set_info(m, input);
        tr_input_at(m->t, input)->warnings += m->warnings;
        rc = tr_trace_status(m->t, e);
    }
    for (int32_t r = 0; ro && r < n; r++) {
        for (size_t i = 0; i < ro[r].tracks.len; i++)
            tr_vec_fini(&TR_VEC_AT(&ro[r].tracks, tid_track, i).open);
        tr_vec_fini(&ro[r].tracks);
        if (!run->ipc) tr_free((void *)ro[r].sm);
    }
    tr_free(shared);
    tr_free(ro);
    tr_free(m->func);
    tr_vec_fini(&m->argn);
    return rc;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int tr_recorder_read_fs(rec_fs *fs, tr_trace *t, uint32_t input, const tr_read_opts *o, int threads,
                        tr_recorder_timing *timing, tr_error *e)
{
    double t0 = now_s();
    rec_run run;
    memset(&run, 0, sizeof run);
    run.fs = fs;
    int rc = read_meta(&run, e);
    rec_rank *rk = NULL;
    if (rc == TR_OK) {
        rk = tr_calloc((size_t)run.ranks, sizeof *rk);
        if (!rk) rc = tr_error_nomem(e);
    }
    if (rc == TR_OK) {
        rec_pool pool = {&run, rk, PTHREAD_MUTEX_INITIALIZER, 0, 0};
        decode_all(&pool, thread_count(threads, run.ranks));
        pthread_mutex_destroy(&pool.lock);
        for (int32_t r = 0; r < run.ranks && rc == TR_OK; r++) {
            if (rk[r].rc < 0) {
                *e = rk[r].err;
                rc = rk[r].rc;
            }
        }
    }
    double t1 = now_s();
    if (rc == TR_OK) {
        tr_diag quiet = {NULL, NULL, 0, 0};
        rec_model m;
        memset(&m, 0, sizeof m);
        m.t = t;
        m.run = &run;
        m.diag = o && o->diag ? o->diag : &quiet;
        tr_vec_init(&m.argn, sizeof(tr_str));
        rc = fill_model(&m, rk, input, e);
    }
    if (timing) {
        timing->decode_s = t1 - t0;
        timing->merge_s = now_s() - t1;
        timing->records = 0;
        timing->bytes = run.mt.n;
        for (int32_t r = 0; rk && r < run.ranks; r++) {
            timing->records += rk[r].n;
            timing->bytes += rk[r].bytes;
        }
    }
    for (int32_t r = 0; rk && r < run.ranks; r++) {
        rec_cst_free(&rk[r].cst);
        rec_bytes_free(&rk[r].ts);
        tr_free(rk[r].seq);
    }
    tr_free(rk);
    run_free(&run);
    return rc;
}

/* ---- the reader entry points ---- */

/*
** The trace directory is PATH itself, or its only subdirectory holding a
** recorder.mt (a tarball of "run/", a recorder-YYYYMMDD/ folder).
*/
static int find_trace_dir(const char *path, tr_buf *out, tr_error *e)
{
    struct stat st;
    tr_buf_reset(out);
    if (tr_buf_adds(out, path) != TR_OK) return tr_error_nomem(e);
    if (tr_buf_adds(out, "/recorder.mt") != TR_OK) return tr_error_nomem(e);
    if (stat(out->p, &st) == 0) {
        out->len = strlen(path);
        out->p[out->len] = '\0';
        return TR_OK;
    }
    tr_buf found;
    tr_buf_init(&found, 0);
    int n = 0;
    int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0) close(dfd);
        tr_loc loc = {path, 0, 0, 0};
        return tr_error_errno(e, errno, &loc, "cannot open directory");
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        tr_buf_reset(out);
        if (tr_buf_addf(out, "%s/%s/recorder.mt", path, de->d_name) != TR_OK) break;
        if (stat(out->p, &st) == 0 && S_ISREG(st.st_mode)) {
            n++;
            tr_buf_reset(&found);
            if (tr_buf_addf(&found, "%s/%s", path, de->d_name) != TR_OK) break;
        }
    }
    closedir(d);
    tr_loc loc = {path, 0, 0, 0};
    int rc = TR_OK;
    if (n > 1)
        rc = tr_errorf(e, TR_E_FORMAT, &loc, "%d Recorder traces inside; name one of them", n);
    else if (n == 0)
        rc = tr_errorf(e, TR_E_FORMAT, &loc, "no recorder.mt here or in a subdirectory");
    tr_buf_reset(out);
    if (rc == TR_OK && tr_buf_add(out, found.p, found.len) != TR_OK) rc = tr_error_nomem(e);
    tr_buf_fini(&found);
    return rc;
}

static int recorder_read_dir(const char *path, tr_trace *t, uint32_t input, const tr_read_opts *o,
                             tr_error *e)
{
    tr_buf dir;
    tr_buf_init(&dir, 0);
    int rc = find_trace_dir(path, &dir, e);
    rec_fs fs;
    if (rc == TR_OK) rc = tr_recorder_fs_dir(&fs, dir.p, e);
    if (rc == TR_OK) {
        rc = tr_recorder_read_fs(&fs, t, input, o, 0, NULL, e);
        tr_recorder_fs_fini(&fs);
    }
    tr_buf_fini(&dir);
    return rc;
}

/* A recorder.mt named on its own: read the directory it sits in. */
static int recorder_read(tr_input *in, tr_trace *t, uint32_t input, const tr_read_opts *o,
                         tr_error *e)
{
    const char *name = tr_input_name(in);
    const char *slash = strrchr(name, '/');
    tr_buf dir;
    tr_buf_init(&dir, 0);
    int rc = slash ? tr_buf_add(&dir, name, (size_t)(slash - name + (slash == name)))
                   : tr_buf_adds(&dir, ".");
    if (rc != TR_OK) {
        tr_buf_fini(&dir);
        return tr_error_nomem(e);
    }
    rc = recorder_read_dir(dir.p, t, input, o, e);
    tr_buf_fini(&dir);
    return rc;
}

static int is_mt(const char *s)
{
    return strcmp(s, "recorder.mt") == 0;
}

static int recorder_probe(const tr_peek *pk)
{
    if (pk->entries) {
        /* The directory itself, or a wrapper holding exactly one trace and nothing else. */
        const char *top = NULL;
        size_t top_len = 0;
        int inner = 0;
        for (size_t i = 0; i < pk->n_entries; i++)
            if (is_mt(pk->entries[i])) return 100;
        for (size_t i = 0; i < pk->n_entries; i++) {
            const char *s = pk->entries[i];
            const char *slash = strchr(s, '/');
            if (!slash) return 0;
            size_t len = (size_t)(slash - s);
            if (top && (len != top_len || memcmp(s, top, len) != 0)) return 0;
            top = s;
            top_len = len;
            inner += is_mt(slash + 1);
        }
        return inner == 1 ? 95 : 0;
    }
    if (!pk->name || !pk->head || pk->head_len < 40) return 0;
    const char *base = strrchr(pk->name, '/');
    if (!is_mt(base ? base + 1 : pk->name)) return 0;
    /* Only a real file: its siblings are the trace (an archive member has none). */
    struct stat st;
    if (stat(pk->name, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    if (rec_lei32(pk->head) < 1) return 0;
    return 90;
}

const tr_reader tr_reader_recorder = {
    .abi = TR_READER_ABI,
    .name = "recorder",
    .description = "Recorder trace directories (2.3, 2.4, 2.5 and the gotcha-branch G3), "
                   "a tarball of one, or its recorder.mt",
    .extensions = "mt",
    .probe = recorder_probe,
    .read = recorder_read,
    .read_dir = recorder_read_dir,
};
