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
** The files are members of a tr_dir: a directory, or an archive read in
** place (lib/dir.c), never extracted.  Ranks are independent, so they are
** decoded on threads (read, inflate, parse, expand the grammar), a few
** ranks per thread per call of next; a k-way merge of the ranks by start
** time then orders the records, cut by time into chunks that threads merge
** and put in the model's rows (recorder_merge.c).
*/
#include "recorder_impl.h"
#include "tr_pool.h"

#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define REC_MT_MAX     ((uint64_t)16 << 20)  /* recorder.mt is a few KB */
#define REC_SMALL_MAX  4096                  /* VERSION */
#define REC_RANKS_RUN  4                     /* ranks a thread decodes per call of next */
#define REC_SIZE_TRUST ((uint64_t)256 << 20) /* stated sizes believed up to this */

/* ---- files: members of the trace's directory ---- */

const char *rec_path(const tr_dir *d, const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s", tr_dir_label(d), name);
    return buf;
}

/* TR_OK with NAME's size in *SIZE (may be NULL), or TR_END when there is no such file. */
static int fs_exists(const tr_dir *d, const char *name, uint64_t *size)
{
    size_t i = tr_dir_find(d, name);
    if (i == SIZE_MAX) return TR_END;
    if (size) *size = tr_dir_size(d, i);
    return TR_OK;
}

/*
** Reads the stream IN whole, up to MAX bytes (more is *TOO_BIG), into OUT:
** into ROOM (may be NULL) when it fits with a byte to spare, else a buffer
** of its own.  SIZE, what the directory says the file holds, sizes that
** buffer so that it is read without growing; only up to REC_SIZE_TRUST of it
** is believed (a hint too large costs address space, not memory: the rest is
** not touched).
*/
static int read_whole(tr_input *in, uint64_t size, uint64_t max, const rec_room *room,
                      rec_bytes *out, int *too_big, tr_error *e)
{
    size_t len = 0, got = 1;
    int rc = TR_OK;
    *too_big = 0;
    while (room && rc == TR_OK && got && len < room->n) {
        got = 0;
        rc = tr_input_read(in, room->p + len, room->n - len, &got, e);
        len += got;
    }
    if (rc != TR_OK) return rc;
    if (room && len < room->n) {
        *too_big = len > max;
        *out = (rec_bytes){room->p, len, NULL};
        return TR_OK;
    }
    tr_buf b;
    tr_buf_init(&b, 0);
    size_t first = size < max && size < REC_SIZE_TRUST ? (size_t)size : 0;
    /* a file grown past its room goes on in a buffer */
    if (len && tr_buf_add(&b, room->p, len) != TR_OK) rc = tr_error_nomem(e);
    while (rc == TR_OK) {
        if (tr_buf_grow(&b, b.len ? 65536 : first + 65536) != TR_OK) {
            rc = tr_error_nomem(e);
            break;
        }
        if ((rc = tr_input_read(in, b.p + b.len, b.cap - b.len - 1, &got, e)) != TR_OK || got == 0)
            break;
        b.len += got;
        if (b.len > max) {
            *too_big = 1;
            break;
        }
    }
    if (rc != TR_OK || *too_big) {
        tr_buf_fini(&b);
        return rc;
    }
    out->p = (const unsigned char *)b.p;
    out->n = b.len;
    out->own = b.p;
    return TR_OK;
}

/* Loads the whole of NAME, which must exist, capped at MAX bytes, into ROOM when it fits. */
static int load_room(const tr_dir *d, const char *name, uint64_t max, const rec_room *room,
                     rec_bytes *out, tr_error *e)
{
    char path[1024];
    tr_loc loc = {rec_path(d, name, path, sizeof path), 0, 0, 0};
    size_t i = tr_dir_find(d, name);
    if (i == SIZE_MAX) return tr_errorf(e, TR_E_FORMAT, &loc, "missing");
    uint64_t size = tr_dir_size(d, i);
    tr_input *in;
    int too_big = size > max, rc = too_big ? TR_OK : tr_dir_open_member((tr_dir *)d, i, &in, e);
    if (rc != TR_OK) return rc;
    if (!too_big) {
        rc = read_whole(in, size, max, room, out, &too_big, e);
        tr_input_close(in);
    }
    if (rc == TR_OK && too_big)
        rc = tr_errorf(e, TR_E_FORMAT, &loc, "%llu bytes is too large for this file",
                       (unsigned long long)size);
    return rc;
}

static int load_all(const tr_dir *d, const char *name, uint64_t max, rec_bytes *out, tr_error *e)
{
    return load_room(d, name, max, NULL, out, e);
}

/* ---- the run: metadata shared by all ranks ---- */

static void run_free(rec_run *run)
{
    rec_bytes_free(&run->mt);
    tr_free(run->name);
    tr_free(run->name_len);
    rec_cst_free(&run->shared);
    tr_free(run->ug);
    rec_bytes_free(&run->ugcfg);
    tr_free(run->ug_off);
    rec_bytes_free(&run->ts);
    tr_free(run->ts_off);
    tr_free(run->ts_len);
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
    int rc;
    /* the structure decides; VERSION only cross-checks */
    if (fs_exists(run->dir, "VERSION", NULL) == TR_END) return TR_OK;
    if ((rc = load_all(run->dir, "VERSION", REC_SMALL_MAX, &v, e)) < 0) return rc;
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
    rec_path(run->dir, "ug.mt", path, sizeof path);
    uint64_t size, want = 4 * ((uint64_t)run->ranks + 1);
    tr_loc loc = {path, 0, 0, 0};
    if (fs_exists(run->dir, "ug.mt", &size) == TR_END)
        return tr_errorf(e, TR_E_FORMAT, &loc, "missing (inter-process mode)");
    rec_bytes b = {0};
    int rc = size == want ? load_all(run->dir, "ug.mt", want, &b, e) : TR_OK;
    if (rc < 0) return rc;
    if (size != want || b.n != want) {
        rec_bytes_free(&b);
        return tr_errorf(e, TR_E_FORMAT, &loc, "%llu bytes, %llu expected for %d ranks",
                         (unsigned long long)(size == want ? b.n : size), (unsigned long long)want,
                         (int)run->ranks);
    }
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
    rec_path(run->dir, "ug.cfg", path, sizeof path);
    int rc = load_all(run->dir, "ug.cfg", UINT64_MAX, &run->ugcfg, e);
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

/*
** G3 recorder.ts: a uint64 size per rank, then the blobs in rank order.  It
** is loaded whole, once: the ranks' decoders take their blobs from it.
*/
static int index_ts(rec_run *run, tr_error *e)
{
    char path[1024];
    rec_path(run->dir, "recorder.ts", path, sizeof path);
    uint64_t size = 0, table = 8 * (uint64_t)run->ranks;
    tr_loc loc = {path, 0, 0, 0};
    int rc = fs_exists(run->dir, "recorder.ts", &size) == TR_OK && size >= table
                 ? load_all(run->dir, "recorder.ts", UINT64_MAX, &run->ts, e)
                 : TR_OK;
    if (rc < 0) return rc;
    if (run->ts.n < table)
        return tr_errorf(e, TR_E_FORMAT, &loc,
                         "%llu bytes cannot hold the size table of %d ranks (recorder.mt)",
                         (unsigned long long)(run->ts.p ? run->ts.n : size), (int)run->ranks);
    size = run->ts.n;
    run->ts_off = tr_malloc((size_t)run->ranks * sizeof *run->ts_off);
    run->ts_len = tr_malloc((size_t)run->ranks * sizeof *run->ts_len);
    if (!run->ts_off || !run->ts_len) return tr_error_nomem(e);
    uint64_t at = table;
    for (int32_t r = 0; r < run->ranks; r++) {
        uint64_t len = rec_le64(run->ts.p + 8 * (size_t)r);
        if (len > size - at) {
            loc.offset = 8 * (uint64_t)r + 1;
            return tr_errorf(e, TR_E_FORMAT, &loc,
                             "rank %d's timestamps claim %llu bytes, %llu are left", (int)r,
                             (unsigned long long)len, (unsigned long long)(size - at));
        }
        run->ts_off[r] = at;
        run->ts_len[r] = len;
        at += len;
    }
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
            if (fs_exists(run->dir, name, NULL) == TR_END) {
                tr_loc loc = {rec_path(run->dir, name, path, sizeof path), 0, 0, 0};
                return tr_errorf(e, TR_E_FORMAT, &loc, "missing (recorder.mt claims %d ranks)",
                                 (int)run->ranks);
            }
        }
    }
    return TR_OK;
}

/* Inter-process mode: which grammar each rank uses, and the one call-signature table. */
static int read_shared(rec_run *run, tr_error *e)
{
    const tr_dir *fs = run->dir;
    char path[1024];
    rec_bytes raw = {0};
    int rc = read_ug(run, e);
    if (rc < 0) return rc;
    if (run->gen == REC_G3) {
        rec_bytes z;
        rec_path(fs, "recorder.cst", path, sizeof path);
        if ((rc = load_all(fs, "recorder.cst", UINT64_MAX, &z, e)) < 0) return rc;
        rc = rec_zblock(&z, 0, path, 0, &raw, NULL, e);
        rec_bytes_free(&z);
        if (rc < 0) return rc;
        if ((rc = rec_cst_parse(&run->shared, &raw, 16, run->n_names, path, e)) < 0) return rc;
        return index_ugcfg(run, e);
    }
    rec_path(fs, "0.cst", path, sizeof path);
    if ((rc = load_all(fs, "0.cst", UINT64_MAX, &raw, e)) < 0) return rc;
    return rec_cst_parse(&run->shared, &raw, 16, run->n_names, path, e);
}

static int read_meta(rec_run *run, tr_error *e)
{
    const tr_dir *fs = run->dir;
    char mt_name[1024];
    rec_path(fs, "recorder.mt", mt_name, sizeof mt_name);
    int rc = read_version(run, e);
    if (rc < 0) return rc;
    if ((rc = load_all(fs, "recorder.mt", REC_MT_MAX, &run->mt, e)) < 0) return rc;
    const rec_bytes *mt = &run->mt;
    tr_loc loc = {mt_name, 0, 0, 0};
    if (mt->n < 32) return tr_errorf(e, TR_E_FORMAT, &loc, "cut short (%zu bytes)", mt->n);
    int g3 = fs_exists(fs, "recorder.ts", NULL) == TR_OK;
    int g2 = fs_exists(fs, "0.ts", NULL) == TR_OK;
    if (!g3 && !g2) {
        if (fs_exists(fs, "0.itf", NULL) == TR_OK)
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
    double dlimit = (double)INT64_MAX / run->res_nsd / 2;
    run->limit = run->res_ns        ? (uint64_t)(INT64_MAX / run->res_ns)
                 : dlimit >= 1.8e19 ? UINT64_MAX
                                    : (uint64_t)dlimit;
    if ((rc = read_names(run, names_at, mt_name, e)) < 0) return rc;
    if ((rc = check_rank_files(run, e)) < 0) return rc;
    if (run->gen == REC_G3 && (rc = index_ts(run, e)) < 0) return rc;
    return run->ipc ? read_shared(run, e) : TR_OK;
}

/* ---- decoding one rank (on a worker thread) ---- */

static int load_named(rec_run *run, const char *name, int zipped, rec_bytes *out, tr_error *e)
{
    char path[1024];
    rec_bytes b;
    int rc = load_all(run->dir, name, UINT64_MAX, &b, e);
    if (rc < 0) return rc;
    if (!zipped) {
        *out = b;
        return TR_OK;
    }
    rc = rec_zblock(&b, 0, rec_path(run->dir, name, path, sizeof path), 0, out, NULL, e);
    rec_bytes_free(&b);
    return rc;
}

/*
** <r>.proc (tracerecord): "pid=PID host=NAME\n", the OS process that was
** rank R, so that what tracesniff saw of it joins it in a merged trace.  An
** auxiliary file: a bad one is warned about and left out.
*/
static int read_proc(rec_run *run, int32_t r, rec_rank *rk, tr_error *e)
{
    char name[64], path[1024], text[160];
    snprintf(name, sizeof name, "%d.proc", (int)r);
    if (fs_exists(run->dir, name, NULL) != TR_OK) return TR_OK;
    rec_bytes b;
    tr_error big = {0};
    int rc = load_all(run->dir, name, sizeof text - 1, &b, &big);
    if (rc == TR_FATAL) return *e = big, rc;
    rec_path(run->dir, name, path, sizeof path);
    size_t n = rc == TR_OK ? b.n : 0;
    if (rc == TR_OK) memcpy(text, b.p, n), rec_bytes_free(&b);
    text[n] = '\0';
    char *end = NULL;
    long long pid = strncmp(text, "pid=", 4) == 0 ? strtoll(text + 4, &end, 10) : 0;
    size_t h = end && strncmp(end, " host=", 6) == 0 ? strcspn(end + 6, "\n") : SIZE_MAX;
    if (pid <= 0 || h >= sizeof rk->os_host || end[6 + h] != '\n') {
        warn_keep(rk, path, 0, "not \"pid=PID host=NAME\": rank %d's process is not known", (int)r);
        return TR_OK;
    }
    rk->os_pid = pid;
    memcpy(rk->os_host, end + 6, h);
    rk->os_host[h] = '\0';
    return TR_OK;
}

/*
** <r>.inflight (tracerecord, local mode): the calls the rank had entered and
** not returned at its last flush: uint32 n, n int64 start ticks, then a
** call-signature table of n entries (bin/tracerecord/rr_core.c).
*/
static int read_inflight(rec_run *run, int32_t r, rec_rank *rk, tr_error *e)
{
    char name[64], path[1024];
    snprintf(name, sizeof name, "%d.inflight", (int)r);
    if (run->ipc || run->gen != REC_G2B || fs_exists(run->dir, name, NULL) != TR_OK) return TR_OK;
    int rc = load_all(run->dir, name, UINT64_MAX, &rk->fly_raw, e);
    if (rc < 0) return rc;
    const rec_bytes *b = &rk->fly_raw;
    uint32_t n = b->n >= 4 ? rec_le32(b->p) : 0;
    rec_path(run->dir, name, path, sizeof path);
    /* An auxiliary file: a bad one is warned about and left out, the trace stays readable. */
    if (b->n < 4 || n > (b->n - 4) / 8) {
        warn_keep(rk, path, 0, "%zu bytes cannot hold %u start times; calls in flight ignored",
                  b->n, n);
        return TR_OK;
    }
    rk->fly_at = b->p + 4;
    rec_bytes table = {b->p + 4 + 8 * (size_t)n, b->n - 4 - 8 * (size_t)n, NULL};
    tr_error bad = {0};
    rc = rec_cst_parse(&rk->fly, &table, 16, run->n_names, path, &bad);
    if (rc == TR_FATAL) {
        *e = bad;
        return rc;
    }
    if (rc < 0 || rk->fly.n != n) {
        warn_keep(rk, path, 4 + 8 * (uint64_t)n, "%s; calls in flight ignored",
                  rc < 0 ? bad.msg : "call signatures do not match the start times");
        rec_cst_free(&rk->fly);
        memset(&rk->fly, 0, sizeof rk->fly);
    }
    return TR_OK;
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
        if ((rc = load_named(run, name, g3, &raw, e)) < 0) return rc;
        rc = rec_cst_parse(&rk->cst, &raw, run->gen == REC_G2A ? 8 : 16, run->n_names,
                           rec_path(run->dir, name, path, sizeof path), e);
        if (rc < 0) return rc;
        cst = &rk->cst;
    }
    /* Timestamps first: their real size bounds the records the grammar may claim. */
    uint64_t ts_base = 0;
    if (g3) {
        rec_path(run->dir, "recorder.ts", ts_path, sizeof ts_path);
        ts_base = run->ts_off[r];
        if (run->ts_len[r]) {
            rec_bytes blob = {run->ts.p + ts_base, (size_t)run->ts_len[r], NULL};
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
        rec_path(run->dir, name, ts_path, sizeof ts_path);
        if ((rc = load_room(run->dir, name, UINT64_MAX, rk->ts_room.n ? &rk->ts_room : NULL,
                            &rk->ts, e)) < 0)
            return rc;
    }
    uint64_t pairs = rk->ts.n / 8;
    if (rk->ts.n % 8)
        warn_keep(rk, ts_path, ts_base + pairs * 8, "%zu trailing bytes are not a timestamp pair",
                  rk->ts.n % 8);

    rec_bytes graw;
    const char *gname;
    if (g3 && run->ipc) {
        rec_path(run->dir, "ug.cfg", path, sizeof path);
        gname = path;
        rc = rec_zblock(&run->ugcfg, run->ug_off[run->ug[r]], path, 0, &graw, NULL, e);
    } else {
        snprintf(name, sizeof name, "%d.cfg", (int)(run->ipc ? run->ug[r] : r));
        gname = rec_path(run->dir, name, path, sizeof path);
        rc = g3 ? load_named(run, name, g3, &graw, e)
                : load_room(run->dir, name, UINT64_MAX, rk->cfg_room.n ? &rk->cfg_room : NULL,
                            &graw, e);
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
    /* tracerecord's spare zero pair: the rank had not finished (bin/tracerecord/rr_core.c). */
    rk->cut = rk->n + 1 == pairs && rec_le32(rk->ts.p + rk->n * 8) == 0 &&
              rec_le32(rk->ts.p + rk->n * 8 + 4) == 0;
    if (rk->cut)
        warn_keep(rk, ts_path, ts_base + rk->n * 8,
                  "rank %d's trace is cut: it ends without its closing checkpoint (the program "
                  "was killed or is still running); its %llu records are those written up to "
                  "the last flush, calls after it are missing",
                  (int)r, (unsigned long long)rk->n);
    else if (rk->n < pairs)
        warn_keep(rk, ts_path, ts_base + rk->n * 8,
                  "%llu timestamp pairs beyond rank %d's %llu records ignored",
                  (unsigned long long)(pairs - rk->n), (int)r, (unsigned long long)rk->n);
    rk->seq_w = rec_seq_width(cst->n);
    rk->seq = rk->n && rk->n <= rk->seq_room.n / rk->seq_w
                  ? rk->seq_room.p
                  : tr_malloc(rk->n ? (size_t)rk->n * rk->seq_w : 1);
    rc = rk->seq ? rec_cfg_expand(&g, rk->seq, rk->seq_w, e) : tr_error_nomem(e);
    rec_cfg_free(&g);
    /* the nesting while the rank is in the cache, in the room its grammar leaves */
    if (rc >= 0 && rk->n <= rk->up_room_n && rec_nest_rank(run, rk, cst, rk->up_room) != TR_OK)
        rc = tr_error_nomem(e);
    if (rc >= 0) rc = read_proc(run, r, rk, e);
    return rc < 0 ? rc : read_inflight(run, r, rk, e);
}

/*
** The ranks decoded by one call of next, on the pool's threads.  After the
** last ranks come jobs that fault in the model's room for the records, in
** parts, while some rank is still being decoded: a thread that has no rank
** left clears pages the puts would have waited on, instead of idling (a
** rank of the 4-rank bench is 9 ms, and a thread the system took away for a
** few ms left the other waiting).  Once every rank is done they are
** skipped: faulting then gains nothing over the puts' own faults.
*/
typedef struct rec_batch {
    rec_run *run;
    rec_rank *rank;
    int32_t first, n;
    atomic_int busy; /* ranks not decoded yet */
    tr_trace *t;
    size_t parts; /* of the slices' room to fault in, after the N ranks */
} rec_batch;

static int decode_job(void *user, size_t job)
{
    rec_batch *b = user;
    if (job >= (size_t)b->n) {
        if (atomic_load(&b->busy) > 0) tr_slice_prefault(b->t, job - (size_t)b->n, b->parts);
        return TR_OK;
    }
    int32_t r = b->first + (int32_t)job;
    rec_rank *rk = &b->rank[r];
    rk->rc = decode_rank(b->run, r, rk, &rk->err);
    atomic_fetch_sub(&b->busy, 1);
    return rk->rc;
}

/* ---- the reader ---- */

typedef struct rec_rd {
    tr_trace *t;
    uint32_t input;
    tr_diag *diag;
    int threads;
    tr_dir *top; /* a directory this reader opened (for a recorder.mt named alone) */
    tr_dir *sub; /* the trace's subdirectory of the one named, when it is one */
    rec_run run;
    rec_rank *rk;
    int32_t decoded;          /* ranks decoded so far */
    unsigned char *ts_block;  /* G2: every rank's <r>.ts of its stated size, one after the other */
    unsigned char *seq_block; /* and room for the records those can hold */
    unsigned char *up_block;  /* and for their grammars, then their parents' positions */
    rec_model *model;
} rec_rd;

/* The trace directory TOP names: where a recorder.mt is, or its only subdirectory with one. */
static int find_trace_dir(rec_rd *r, tr_dir *top, const char *path, tr_error *e)
{
    if (tr_dir_find(top, "recorder.mt") != SIZE_MAX) {
        r->run.dir = top;
        return TR_OK;
    }
    size_t n, found = 0, len = 0;
    const char *const *names = tr_dir_names(top, &n), *which = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *slash = strchr(names[i], '/');
        if (!slash || strchr(slash + 1, '/') || strcmp(slash + 1, "recorder.mt") != 0) continue;
        found++;
        which = names[i];
        len = (size_t)(slash - names[i]);
    }
    tr_loc loc = {path, 0, 0, 0};
    if (found > 1)
        return tr_errorf(e, TR_E_FORMAT, &loc, "%zu Recorder traces inside; name one of them",
                         found);
    if (found == 0)
        return tr_errorf(e, TR_E_FORMAT, &loc, "no recorder.mt here or in a subdirectory");
    char prefix[1024];
    snprintf(prefix, sizeof prefix, "%.*s", (int)len, which);
    int rc = tr_dir_open_sub(&r->sub, top, prefix, e);
    r->run.dir = r->sub;
    return rc;
}

/* A recorder.mt named on its own: the directory it sits in. */
static int open_mt_dir(rec_rd *r, const char *name, tr_error *e)
{
    const char *slash = strrchr(name, '/');
    tr_buf dir;
    tr_buf_init(&dir, 0);
    int rc = slash ? tr_buf_add(&dir, name, (size_t)(slash - name + (slash == name)))
                   : tr_buf_adds(&dir, ".");
    rc = rc == TR_OK ? tr_dir_open(&r->top, dir.p, e) : tr_error_nomem(e);
    if (rc == TR_OK) rc = find_trace_dir(r, r->top, dir.p, e);
    tr_buf_fini(&dir);
    return rc;
}

static int recorder_open(void **rd, const tr_read_ctx *c, tr_error *e)
{
    rec_rd *r = tr_calloc(1, sizeof *r);
    *rd = r;
    if (!r) return tr_error_nomem(e);
    r->t = tr_sink_trace(c->sink);
    r->input = c->input;
    r->diag = c->opts ? c->opts->diag : NULL;
    r->threads = c->opts ? c->opts->threads : 0;
    int rc = c->dir ? find_trace_dir(r, c->dir,
                                     tr_str_get(r->t, tr_input_get(r->t, c->input)->path, NULL), e)
                    : open_mt_dir(r, tr_input_name(c->in), e);
    if (rc == TR_OK) rc = read_meta(&r->run, e);
    if (rc == TR_OK && !(r->rk = tr_calloc((size_t)r->run.ranks, sizeof *r->rk)))
        rc = tr_error_nomem(e);
    return rc;
}

/*
** G2's <r>.ts files are read into one block and their records expanded into
** another, each rank a slice the size the directory states: blocks of many
** MiB start on huge pages, where a rank's own few hundred KiB would take a
** fault every 4 KiB.  A record's slice takes the bytes of a terminal id of
** the most entries the rank's <r>.cst (or the shared table) can hold
** (rec_seq_width).  A third block takes the <r>.cfg files, and then, once
** they are expanded, the merge's parents by position (rec_merge_start): the
** same pages, faulted in once.  A file that turns out larger gets a buffer
** of its own; without the blocks, every rank does.
*/
static void make_rooms(rec_rd *r)
{
    rec_run *run = &r->run;
    size_t ts_total = 0, seq_total = 0, up_total = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int32_t k = 0; k < run->ranks; k++) {
            char name[32];
            uint64_t size = 0, cfg = 0;
            snprintf(name, sizeof name, "%d.ts", (int)k);
            if (fs_exists(run->dir, name, &size) != TR_OK || size >= REC_SIZE_TRUST) return;
            snprintf(name, sizeof name, "%d.cfg", (int)(run->ipc ? run->ug[k] : k));
            if (fs_exists(run->dir, name, &cfg) != TR_OK || cfg >= REC_SIZE_TRUST) return;
            uint64_t cst = run->shared.n;
            snprintf(name, sizeof name, "%d.cst", (int)k);
            if (!run->ipc && fs_exists(run->dir, name, &cst) == TR_OK)
                cst = rec_cst_most(cst, run->gen == REC_G2A ? 8 : 16);
            size_t ids = (size_t)(size / 8) * rec_seq_width(cst);
            /* a byte to spare, so that a read sees the end; slices on cache lines */
            size_t room = ((size_t)size + 64) & ~(size_t)63;
            size_t up = (size_t)(size / 8) * sizeof *r->rk[k].up_room;
            up = ((up > cfg ? up : (size_t)cfg + 1) + 63) & ~(size_t)63;
            if (pass) {
                r->rk[k].ts_room = (rec_room){r->ts_block + ts_total, (size_t)size + 1};
                r->rk[k].seq_room = (rec_room){r->seq_block + seq_total, ids};
                r->rk[k].cfg_room = (rec_room){r->up_block + up_total, (size_t)cfg + 1};
                r->rk[k].up_room = (uint32_t *)(void *)(r->up_block + up_total);
                r->rk[k].up_room_n = up / sizeof *r->rk[k].up_room;
            }
            ts_total += room;
            seq_total += (ids + 63) & ~(size_t)63;
            up_total += up;
        }
        if (pass) return;
        /* on huge pages, whole ones: a tail past the last would be faulted 4 KiB at a time */
        if (seq_total > TR_MEM_HUGE) seq_total = (seq_total + TR_MEM_HUGE - 1) & ~(TR_MEM_HUGE - 1);
        r->ts_block = tr_malloc(ts_total ? ts_total : 1);
        r->seq_block = tr_malloc(seq_total ? seq_total : 1);
        r->up_block = tr_malloc(up_total ? up_total : 1);
        if (!r->ts_block || !r->seq_block || !r->up_block) return;
        ts_total = seq_total = up_total = 0;
    }
}

/*
** Before the last ranks are decoded: room in the model for every record the
** ranks may hold (the decoded ones' records, the others' stated timestamp
** pairs: room a grammar does not fill, freeze gives back), and the parts it
** is faulted in by; 0 when the sizes are not known (G3).
*/
static size_t room_parts(rec_rd *r)
{
    size_t rows = 0;
    for (int32_t k = 0; k < r->run.ranks; k++) {
        if (!r->rk[k].ts_room.n) return 0;
        rows += k < r->decoded ? (size_t)r->rk[k].n : (r->rk[k].ts_room.n - 1) / 8;
    }
    tr_expect x = {.events = {[TR_EV_SLICE] = rows}};
    tr_trace_expect(r->t, &x);
    return rows / TR_POOL_ROWS + 1;
}

/* Decodes the next ranks on the pool's threads; the first failure in rank order is the error. */
static int decode_step(rec_rd *r, tr_error *e)
{
    if (r->decoded == 0 && r->run.gen != REC_G3) make_rooms(r);
    int32_t left = r->run.ranks - r->decoded;
    int threads = tr_pool_threads(r->threads, (size_t)left);
    int32_t n = left < threads * REC_RANKS_RUN ? left : threads * REC_RANKS_RUN;
    rec_batch b = {&r->run, r->rk, r->decoded, n, n, r->t, n == left ? room_parts(r) : 0};
    tr_pool_run(tr_pool_threads(r->threads, (size_t)n + b.parts), (size_t)n + b.parts, decode_job,
                &b);
    for (int32_t k = r->decoded; k < r->decoded + n; k++) {
        if (r->rk[k].rc < 0) {
            *e = r->rk[k].err;
            return r->rk[k].rc;
        }
    }
    r->decoded += n;
    if (r->decoded < r->run.ranks) return TR_OK;
    return rec_model_open(&r->model, r->t, &r->run, r->rk, r->input, r->diag, r->threads, e);
}

static int recorder_next(void *rd, tr_error *e)
{
    rec_rd *r = rd;
    if (!r->model) return decode_step(r, e);
    return rec_model_next(r->model, e);
}

static void recorder_close(void *rd)
{
    rec_rd *r = rd;
    if (!r) return;
    rec_model_free(r->model);
    for (int32_t k = 0; r->rk && k < r->run.ranks; k++) {
        rec_cst_free(&r->rk[k].cst);
        rec_nest_free(&r->rk[k]);
        rec_cst_free(&r->rk[k].fly);
        rec_bytes_free(&r->rk[k].fly_raw);
        rec_bytes_free(&r->rk[k].ts);
        if (r->rk[k].seq != r->rk[k].seq_room.p) tr_free(r->rk[k].seq);
    }
    tr_free(r->ts_block);
    tr_free(r->seq_block);
    tr_free(r->up_block);
    tr_free(r->rk);
    run_free(&r->run);
    tr_dir_close(r->sub);
    tr_dir_close(r->top);
    tr_free(r);
}

/* ---- probing ---- */

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
    .dirs = 1,
    .probe = recorder_probe,
    .open = recorder_open,
    .next = recorder_next,
    .close = recorder_close,
};
