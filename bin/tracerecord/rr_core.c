/*
** rr_core.c: the recording core of libtracerecord.so.
**
** Hot path: a wrapper reserves a 64-byte record in its thread's ring (no
** lock, no allocation), reads the clock twice and publishes the record
** with one release store when its outermost traced call returns.
**
** Flush: when a ring is full, once a second, and at exit, one thread takes
** the process lock, merges every ring's published records by start time
** (a record that arrives later than a record already merged has its start
** raised to it: only calls in flight during a flush, by at most their
** length) and encodes them for the rank: the call signature's id in the
** signature table, the id appended to the grammar, the timestamp pair to
** the pending timestamps.
**
** Checkpoint: the pending timestamps are appended to <r>.ts followed by
** one spare pair (the marker of a rank that has not finished: the reader
** then warns that a pair is beyond the records, i.e. that the tail after the
** last checkpoint is missing; the final checkpoint leaves it out), new
** signatures are appended to <r>.cst and changed counts patched in place,
** and <r>.cfg is rewritten (temp + rename).  Every flush a second apart is
** a checkpoint; ring-full flushes checkpoint every RR_CKPT_MIN records, or
** less often while the grammar is large, so that rewriting it stays within
** a quarter of the bytes of timestamps written.
**
** Ranks: one process image is one rank.  A process claims its rank file
** (<r>.ts, O_EXCL) at its first checkpoint or in MPI_Init: the MPI rank,
** else the launcher's variables (RANK, PMI_RANK, OMPI_COMM_WORLD_RANK,
** PMIX_RANK, SLURM_PROCID), else 0; if that rank is taken (a forked child,
** a program exec'd after its parent traced something, two programs of one
** rank), the lowest free number from the job's size upward.  Launchers
** (mpirun, mpiexec, hydra_pmi_proxy, srun, torchrun, ...) are not traced.
*/
#include "rr_impl.h"
#include "rr_lib_impl.h"
#include "tr_map.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RR_RING     4096 /* records per thread ring (a power of two) */
#define RR_CKPT_MIN 16384
#define RR_CKPT_NS  1000000000LL
#define RR_RES_NS   100 /* Recorder's default time resolution */
#define RR_FOLD     8   /* longest repeated block the grammar folds, in pairs */
#define RR_FD_MAX   (1u << 20)

#define RR_TLS __attribute__((tls_model("initial-exec")))

/* Growable arrays in anonymous mappings (never the program's malloc). */
typedef struct rr_vec {
    char *p;
    size_t len, cap;
} rr_vec;

struct rr_thread {
    rr_rec *ring;
    _Atomic uint64_t head; /* next slot: written by the owner only */
    _Atomic uint64_t pub, cons;
    uint64_t lo, hi; /* the flusher's window */
    uint32_t tid, depth;
    rr_rec spare; /* where records go when the ring is full of unfinished calls */
    rr_thread *next;
};

typedef struct rr_sig {
    int64_t a[RR_ARGS];
    int64_t ret;
    int64_t off; /* of its count in <r>.cst, -1 until written */
    uint32_t tid, count;
    uint8_t func, level, spec, dirty, has_ret;
} rr_sig;

typedef struct rr_rule {
    uint32_t off, len; /* pairs in rr.rbody */
} rr_rule;

static uint8_t rr_spec_slots[RR_S_COUNT];

static RR_TLS __thread rr_thread *rr_self;
static RR_TLS __thread int rr_inside;

static _Atomic unsigned rr_layers; /* 0: not tracing */
static _Atomic int64_t rr_next_ckpt;
static _Atomic int rr_pending_sig;
static _Atomic uint32_t *rr_fdtab;
static size_t rr_fdcap;
static pthread_mutex_t rr_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t rr_key;
static rr_thread *rr_threads, *rr_spare_threads;

/* The job and this process's rank; under rr_mu. */
static struct {
    int ready, pid, forked, broken;
    int env_rank, env_size, mpi_rank, mpi_size;
    int64_t start_ns;
    const char *dir;
    int dirfd;
    int rank, ts_fd, cst_fd;
    uint64_t ts_pairs; /* in <r>.ts, without the spare pair */
    int64_t cst_size;
    uint32_t cst_written;
    int64_t prev; /* ticks: start of the previous record as a reader decodes it */
    rr_vec ts;    /* pending uint32 pairs */
    rr_vec sigs;  /* rr_sig */
    uint32_t *sig_slot;
    size_t sig_cap;
    rr_vec dirty; /* uint32: written signatures whose count changed */
    rr_vec main;  /* int32 (symbol, repeat) pairs of rule -1 */
    rr_vec rules; /* rr_rule: rule -2 - i */
    rr_vec rbody; /* int32 pairs */
    uint32_t *rule_slot;
    size_t rule_cap;
    rr_vec strs;    /* NUL-ended strings */
    rr_vec str_off; /* uint32 per id; id 0 is "" (not traced) */
    uint32_t *str_slot;
    size_t str_cap;
    rr_vec excl;      /* excluded prefixes, each NUL-ended */
    rr_vec fly;       /* rr_rec: the calls in flight being written */
    uint64_t fly_key; /* of the in-flight set last written (1: none) */
    int flusher_pid;  /* the process whose flusher thread runs */
    int final_done;   /* the final checkpoint is written */
    rr_vec scratch;   /* paths, files being built */
} rr;

/* ---- memory ---- */

/* A raw system call: the library's own mmap wrapper must not see its memory. */
static void *rr_map(size_t n)
{
    long p = syscall(SYS_mmap, NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == -1 ? NULL : (void *)p;
}

static int vec_room(rr_vec *v, size_t more)
{
    if (v->cap - v->len >= more) return 0;
    size_t cap = v->cap ? v->cap : 16384;
    while (cap - v->len < more) cap *= 2;
    void *p = v->p ? mremap(v->p, v->cap, cap, MREMAP_MAYMOVE) : rr_map(cap);
    if (!p || p == MAP_FAILED) {
        rr.broken = 1;
        return -1;
    }
    v->p = p;
    v->cap = cap;
    return 0;
}

static int vec_add(rr_vec *v, const void *p, size_t n)
{
    if (vec_room(v, n)) return -1;
    memcpy(v->p + v->len, p, n);
    v->len += n;
    return 0;
}

static int vec_add32(rr_vec *v, uint32_t x)
{
    return vec_add(v, &x, 4);
}

/* Open-addressing tables of ids + 1 (0 empty), doubled at half load. */
static uint32_t *slots_new(size_t cap)
{
    return rr_map(cap * sizeof(uint32_t));
}

/* The tree's one hash (lib/tr_map.h, inline: nothing of trcore is linked). */
static uint64_t mix(uint64_t h, uint64_t v)
{
    return tr_hash_mix(h ^ v);
}

/* ---- strings ---- */

static uint64_t str_hash(const char *s, size_t n)
{
    return tr_hash_bytes(s, n);
}

static const char *str_get(uint32_t id)
{
    return rr.strs.p + ((const uint32_t *)rr.str_off.p)[id];
}

static int str_grow(void)
{
    size_t cap = rr.str_cap ? rr.str_cap * 2 : 1024;
    uint32_t *slot = slots_new(cap);
    if (!slot) return rr.broken = 1, -1;
    size_t n = rr.str_off.len / 4;
    for (size_t id = 1; id < n; id++) {
        const char *s = str_get((uint32_t)id);
        size_t j = str_hash(s, strlen(s)) & (cap - 1);
        while (slot[j]) j = (j + 1) & (cap - 1);
        slot[j] = (uint32_t)id;
    }
    if (rr.str_slot) munmap(rr.str_slot, rr.str_cap * sizeof(uint32_t));
    rr.str_slot = slot;
    rr.str_cap = cap;
    return 0;
}

/* Under rr_mu. */
static uint32_t intern_locked(const char *s, size_t n)
{
    if (rr.broken || ((rr.str_off.len / 4 + 1) * 2 > rr.str_cap && str_grow())) return 0;
    size_t j = str_hash(s, n) & (rr.str_cap - 1);
    for (; rr.str_slot[j]; j = (j + 1) & (rr.str_cap - 1)) {
        const char *t = str_get(rr.str_slot[j]);
        if (strncmp(t, s, n) == 0 && t[n] == '\0') return rr.str_slot[j];
    }
    uint32_t id = (uint32_t)(rr.str_off.len / 4);
    if (vec_add32(&rr.str_off, (uint32_t)rr.strs.len) || vec_add(&rr.strs, s, n) ||
        vec_add(&rr.strs, "", 1))
        return 0;
    rr.str_slot[j] = id;
    return id;
}

/* ---- locking; the signal that arrived while we held it ---- */

static int rr_lock(void)
{
    int was = rr_inside;
    rr_inside = 1;
    pthread_mutex_lock(&rr_mu);
    return was;
}

static void rr_flush_locked(int final, int checkpoint);

static void rr_die(int sig)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigaction(sig, &sa, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
}

static void rr_unlock(int was)
{
    int sig = atomic_exchange(&rr_pending_sig, 0);
    if (sig) {
        rr_flush_locked(1, 1);
        pthread_mutex_unlock(&rr_mu);
        rr_die(sig);
    }
    pthread_mutex_unlock(&rr_mu);
    rr_inside = was;
}

/* ---- the signature table ---- */

static uint64_t sig_hash(uint32_t tid, int func, int level, int spec, const int64_t *a, int has_ret,
                         int64_t ret)
{
    uint64_t h = mix((uint64_t)tid << 24 | (uint64_t)func << 16 | (uint64_t)level << 8 | spec, 1);
    for (int i = 0; i < rr_spec_slots[spec]; i++) h = mix(h, (uint64_t)a[i]);
    return has_ret ? mix(h, (uint64_t)ret) : h;
}

static int sig_grow(void)
{
    size_t cap = rr.sig_cap ? rr.sig_cap * 2 : 4096;
    uint32_t *slot = slots_new(cap);
    if (!slot) return rr.broken = 1, -1;
    const rr_sig *s = (const rr_sig *)rr.sigs.p;
    size_t n = rr.sigs.len / sizeof *s;
    for (size_t i = 0; i < n; i++) {
        size_t j =
            sig_hash(s[i].tid, s[i].func, s[i].level, s[i].spec, s[i].a, s[i].has_ret, s[i].ret) &
            (cap - 1);
        while (slot[j]) j = (j + 1) & (cap - 1);
        slot[j] = (uint32_t)i + 1;
    }
    if (rr.sig_slot) munmap(rr.sig_slot, rr.sig_cap * sizeof(uint32_t));
    rr.sig_slot = slot;
    rr.sig_cap = cap;
    return 0;
}

/* The terminal id of R's signature, counted; UINT32_MAX when out of memory. */
static uint32_t sig_find(const rr_rec *r)
{
    size_t n = rr.sigs.len / sizeof(rr_sig);
    if ((n + 1) * 2 > rr.sig_cap && sig_grow()) return UINT32_MAX;
    int ns = rr_spec_slots[r->spec];
    size_t j =
        sig_hash(r->tid, r->func, r->level, r->spec, r->a, r->has_ret, r->ret) & (rr.sig_cap - 1);
    rr_sig *all = (rr_sig *)rr.sigs.p;
    for (; rr.sig_slot[j]; j = (j + 1) & (rr.sig_cap - 1)) {
        rr_sig *s = &all[rr.sig_slot[j] - 1];
        if (s->tid != r->tid || s->func != r->func || s->level != r->level || s->spec != r->spec ||
            s->has_ret != r->has_ret || (r->has_ret && s->ret != r->ret) ||
            memcmp(s->a, r->a, (size_t)ns * sizeof *s->a) != 0)
            continue;
        s->count++;
        if (s->off >= 0 && !s->dirty) {
            s->dirty = 1;
            if (vec_add32(&rr.dirty, rr.sig_slot[j] - 1)) return UINT32_MAX;
        }
        return rr.sig_slot[j] - 1;
    }
    rr_sig s;
    memset(&s, 0, sizeof s);
    memcpy(s.a, r->a, (size_t)ns * sizeof *s.a);
    s.off = -1;
    s.tid = r->tid;
    s.count = 1;
    s.func = r->func;
    s.level = r->level;
    s.spec = r->spec;
    s.has_ret = r->has_ret;
    s.ret = r->ret;
    if (vec_add(&rr.sigs, &s, sizeof s)) return UINT32_MAX;
    rr.sig_slot[j] = (uint32_t)n + 1;
    return (uint32_t)n;
}

/* ---- the grammar: runs and adjacent repeated blocks fold online ---- */

static uint64_t body_hash(const int32_t *p, size_t pairs)
{
    uint64_t h = pairs;
    for (size_t i = 0; i < pairs * 2; i++) h = mix(h, (uint32_t)p[i]);
    return h;
}

static int rule_grow(void)
{
    size_t cap = rr.rule_cap ? rr.rule_cap * 2 : 64;
    uint32_t *slot = slots_new(cap);
    if (!slot) return rr.broken = 1, -1;
    const rr_rule *ru = (const rr_rule *)rr.rules.p;
    size_t n = rr.rules.len / sizeof *ru;
    for (size_t i = 0; i < n; i++) {
        size_t j = body_hash((const int32_t *)rr.rbody.p + ru[i].off * 2, ru[i].len) & (cap - 1);
        while (slot[j]) j = (j + 1) & (cap - 1);
        slot[j] = (uint32_t)i + 1;
    }
    if (rr.rule_slot) munmap(rr.rule_slot, rr.rule_cap * sizeof(uint32_t));
    rr.rule_slot = slot;
    rr.rule_cap = cap;
    return 0;
}

/* The rule whose body is the PAIRS pairs at P (made if new), as a symbol; 0 on failure. */
static int32_t rule_get(const int32_t *p, size_t pairs)
{
    size_t n = rr.rules.len / sizeof(rr_rule);
    if ((n + 1) * 2 > rr.rule_cap && rule_grow()) return 0;
    size_t j = body_hash(p, pairs) & (rr.rule_cap - 1);
    for (; rr.rule_slot[j]; j = (j + 1) & (rr.rule_cap - 1)) {
        const rr_rule *ru = (const rr_rule *)rr.rules.p + rr.rule_slot[j] - 1;
        if (ru->len == pairs && memcmp(rr.rbody.p + (size_t)ru->off * 8, p, pairs * 8) == 0)
            return -2 - (int32_t)(rr.rule_slot[j] - 1);
    }
    rr_rule ru = {(uint32_t)(rr.rbody.len / 8), (uint32_t)pairs};
    if (vec_add(&rr.rbody, p, pairs * 8) || vec_add(&rr.rules, &ru, sizeof ru)) return 0;
    rr.rule_slot[j] = (uint32_t)n + 1;
    return -2 - (int32_t)n;
}

static int gram_push(int32_t sym, int32_t rep)
{
    int32_t *m = (int32_t *)rr.main.p;
    size_t n = rr.main.len / 8;
    if (n && m[2 * n - 2] == sym && m[2 * n - 1] <= INT32_MAX - rep) {
        m[2 * n - 1] += rep;
        return 0;
    }
    int32_t pair[2] = {sym, rep};
    return vec_add(&rr.main, pair, 8);
}

/* One folding step at the end of rule -1; 1 when something changed. */
static int gram_fold(void)
{
    int32_t *m = (int32_t *)rr.main.p;
    size_t n = rr.main.len / 8;
    for (size_t p = 2; p <= RR_FOLD && p < n; p++) {
        const int32_t *tail = m + 2 * (n - p);
        int32_t *before = m + 2 * (n - p - 1);
        if (before[0] < 0 && before[1] < INT32_MAX) {
            const rr_rule *ru = (const rr_rule *)rr.rules.p + (-2 - before[0]);
            if (ru->len == p && memcmp(rr.rbody.p + (size_t)ru->off * 8, tail, p * 8) == 0) {
                rr.main.len -= p * 8;
                before[1]++;
                return 1;
            }
        }
        if (n >= 2 * p && memcmp(m + 2 * (n - 2 * p), tail, p * 8) == 0) {
            int32_t sym = rule_get(tail, p);
            if (!sym) return 0;
            rr.main.len -= 2 * p * 8;
            return gram_push(sym, 2) == 0;
        }
    }
    return 0;
}

static void gram_add(uint32_t term)
{
    if (gram_push((int32_t)term, 1)) return;
    while (gram_fold()) {
    }
}

/* ---- merging the rings ---- */

static void encode(const rr_rec *r)
{
    if (r->func == RR_DROPPED) return;
    uint32_t term = sig_find(r);
    if (term == UINT32_MAX) return;
    gram_add(term);
    int64_t s = (r->t0 - rr.start_ns) / RR_RES_NS, e = (r->t1 - rr.start_ns) / RR_RES_NS;
    int64_t ds = s - rr.prev, de;
    if (ds < 0) ds = 0;
    if (ds > (int64_t)UINT32_MAX) ds = UINT32_MAX;
    de = e - rr.prev;
    if (de < ds) de = ds;
    if (de > (int64_t)UINT32_MAX) de = UINT32_MAX;
    rr.prev += ds;
    uint32_t pair[2] = {(uint32_t)ds, (uint32_t)de};
    vec_add(&rr.ts, pair, 8);
}

static void drain(void)
{
    for (rr_thread *t = rr_threads; t; t = t->next) {
        t->lo = atomic_load_explicit(&t->cons, memory_order_relaxed);
        t->hi = atomic_load_explicit(&t->pub, memory_order_acquire);
    }
    for (;;) {
        rr_thread *best = NULL;
        for (rr_thread *t = rr_threads; t; t = t->next)
            if (t->lo < t->hi && (!best || t->ring[t->lo & (RR_RING - 1)].t0 <
                                               best->ring[best->lo & (RR_RING - 1)].t0))
                best = t;
        if (!best) break;
        encode(&best->ring[best->lo++ & (RR_RING - 1)]);
    }
    for (rr_thread *t = rr_threads; t; t = t->next)
        atomic_store_explicit(&t->cons, t->hi, memory_order_release);
}

/* ---- files ---- */

static void rank_file(char *buf, const char *ext)
{
    size_t n = rr_fmt_i64(buf, rr.rank);
    memcpy(buf + n, ext, strlen(ext) + 1);
}

static void update_meta(void)
{
    syscall(SYS_flock, rr.dirfd, LOCK_EX);
    int total = rr_count_ranks(rr.dirfd);
    if (total > 0) rr_write_meta(rr.dirfd, total, rr.start_ns, RR_RES_NS);
    syscall(SYS_flock, rr.dirfd, LOCK_UN);
}

static int claim(void)
{
    if (rr.dirfd < 0) {
        if (rr_mkdirs(rr.dir) != 0) return -1;
        rr.dirfd = rr_sys_open(AT_FDCWD, rr.dir, O_RDONLY | O_DIRECTORY, 0);
        if (rr.dirfd < 0) return -1;
    }
    int size = rr.mpi_size > 0 ? rr.mpi_size : rr.env_size > 0 ? rr.env_size : 1;
    int want = rr.forked ? -1 : rr.mpi_rank >= 0 ? rr.mpi_rank : rr.env_rank >= 0 ? rr.env_rank : 0;
    int fd = -1;
    char name[40];
    for (int r = want >= 0 ? want : size;; r = r == want && want < size ? size : r + 1) {
        rr.rank = r;
        rank_file(name, ".ts");
        fd = rr_sys_open(rr.dirfd, name, O_RDWR | O_CREAT | O_EXCL, 0644);
        if (fd >= 0 || errno != EEXIST || r == INT_MAX) break;
    }
    if ((rr.ts_fd = fd) < 0) return rr.rank = -1, -1;
    /* The rank is readable (empty) at once; the table then grows in place. */
    if (rr_write_empty_rank(rr.dirfd, rr.rank, 1) != 0 || rr_write_proc(rr.dirfd, rr.rank, rr.pid))
        return -1;
    rank_file(name, ".cst");
    rr.cst_fd = rr_sys_open(rr.dirfd, name, O_RDWR, 0);
    if (rr.cst_fd < 0) return -1;
    rr.cst_size = 4;
    update_meta();
    return 0;
}

static int add_field(rr_vec *b, const char *s, size_t n)
{
    size_t at = b->len;
    if (vec_add(b, s, n)) return -1;
    tr_rec_arg_clean(b->p + at, n);
    return vec_add(b, " ", 1);
}

/* The arguments of S as the key holds them, appended to B. */
static int add_args(rr_vec *b, const rr_sig *s)
{
    size_t k = 0;
    for (const char *c = rr_spec_text[s->spec]; *c; c++) {
        char num[32];
        int rc = 0;
        switch (*c) {
        case 'p':
        case 'q': {
            /* "dataset=" is tracerecord's, as "bytes=" and "ret=" are: Recorder has no such field.
             */
            const char *str = str_get((uint32_t)s->a[k++]);
            rc = (*c == 'q' && vec_add(b, "dataset=", 8)) || add_field(b, str, strlen(str));
            break;
        }
        case 'd':
        case 'b': {
            size_t pre = *c == 'b' ? 6 : 0;
            memcpy(num, "bytes=", 6);
            rc = add_field(b, num + 6 - pre, pre + rr_fmt_i64(num + 6, s->a[k++]));
            break;
        }
        case 'm':
            memcpy(num, &s->a[k++], 8);
            num[8] = '\0';
            rc = add_field(b, num, strlen(num));
            break;
        case 'x':
            rc = add_field(b, "%p", 2);
            break;
        default:
            rc = add_field(b, "???", 3);
            break;
        }
        if (rc) return -1;
    }
    if (!s->has_ret) return 0;
    /* tracerecord's addition to Recorder's arguments: what the call returned. */
    char num[32] = "ret=";
    return add_field(b, num, 4 + rr_fmt_i64(num + 4, s->ret));
}

/* Signature ID as a <r>.cst entry (recorder.md §2.2); its count's offset in the entry. */
static int cst_entry(rr_vec *b, uint32_t id, const rr_sig *s, size_t *count_at)
{
    size_t at = b->len, heads = TR_REC_CST_HEAD + TR_REC_KEY_HEAD;
    if (vec_room(b, heads)) return -1;
    b->len += heads;
    if (add_args(b, s)) return -1;
    uint32_t args_len = (uint32_t)(b->len - at - heads);
    unsigned char *p = (unsigned char *)b->p + at;
    tr_rec_cst_head(p, id, (uint32_t)rr.rank, TR_REC_KEY_HEAD + args_len, s->count);
    tr_rec_key_head(p + TR_REC_CST_HEAD, s->tid, s->func, s->level,
                    (unsigned)strlen(rr_spec_text[s->spec]) + s->has_ret, args_len);
    *count_at = at + TR_REC_CST_COUNT;
    return 0;
}

static int write_cst(void)
{
    rr_sig *all = (rr_sig *)rr.sigs.p;
    uint32_t n = (uint32_t)(rr.sigs.len / sizeof *all);
    rr_vec *b = &rr.scratch;
    b->len = 0;
    for (uint32_t i = rr.cst_written; i < n; i++) {
        size_t count_at;
        if (cst_entry(b, i, &all[i], &count_at)) return -1;
        all[i].off = rr.cst_size + (int64_t)count_at;
    }
    if (b->len && rr_sys_pwrite_all(rr.cst_fd, b->p, b->len, rr.cst_size) != 0) return -1;
    rr.cst_size += (int64_t)b->len;
    rr.cst_written = n;
    const uint32_t *d = (const uint32_t *)rr.dirty.p;
    unsigned char num[4];
    for (size_t i = 0; i < rr.dirty.len / 4; i++) {
        rr_sig *s = &all[d[i]];
        s->dirty = 0;
        tr_rec_put32(num, s->count);
        if (rr_sys_pwrite_all(rr.cst_fd, num, 4, s->off) != 0) return -1;
    }
    rr.dirty.len = 0;
    tr_rec_put32(num, n);
    return rr_sys_pwrite_all(rr.cst_fd, num, 4, 0);
}

/* The grammar: the rule count, rule -1, then rules -2, -3, ... (pairs as held in memory). */
static int write_cfg(void)
{
    rr_vec *b = &rr.scratch;
    b->len = 0;
    const rr_rule *ru = (const rr_rule *)rr.rules.p;
    size_t n = rr.rules.len / sizeof *ru;
    unsigned char head[8];
    tr_rec_put32(head, (uint32_t)(n + 1));
    if (vec_add(b, head, 4)) return -1;
    tr_rec_cfg_rule(head, -1, (uint32_t)(rr.main.len / 8));
    if (vec_add(b, head, 8) || vec_add(b, rr.main.p, rr.main.len)) return -1;
    for (size_t i = 0; i < n; i++) {
        tr_rec_cfg_rule(head, -2 - (int32_t)i, ru[i].len);
        if (vec_add(b, head, 8) ||
            vec_add(b, rr.rbody.p + (size_t)ru[i].off * 8, (size_t)ru[i].len * 8))
            return -1;
    }
    char name[40];
    rank_file(name, ".cfg");
    return rr_write_file(rr.dirfd, name, b->p, b->len);
}

static void disable(void)
{
    atomic_store(&rr_layers, 0);
}

static void checkpoint(int final)
{
    if (rr.broken) {
        disable();
        return;
    }
    if (rr.rank < 0 && claim() != 0) {
        static const char msg[] = "tracerecord: cannot write the trace directory; tracing stops\n";
        syscall(SYS_write, 2, msg, sizeof msg - 1);
        disable();
        return;
    }
    /* Timestamps first: a reader takes no more records than the grammar claims. */
    size_t pairs = rr.ts.len / 8;
    static const uint32_t spare[2];
    int rc = !final && vec_add(&rr.ts, spare, 8);
    if (!rc && rr.ts.len)
        rc = rr_sys_pwrite_all(rr.ts_fd, rr.ts.p, rr.ts.len, (int64_t)rr.ts_pairs * 8);
    rr.ts_pairs += pairs;
    rr.ts.len = 0;
    if (!rc && final) syscall(SYS_ftruncate, rr.ts_fd, (long)(rr.ts_pairs * 8));
    if (rc || write_cst() != 0 || write_cfg() != 0) {
        disable();
        return;
    }
    if (final) update_meta();
    rr.final_done = final;
}

/* ---- calls in flight ---- */

/*
** <r>.inflight holds the calls entered and not returned at the last timed
** or final flush (a rank waiting in MPI_Barrier when the job was killed):
** uint32 n, n int64 start ticks (counted from the job's start as <r>.ts's
** are), then their call signatures as a <r>.cst table of n entries (count
** 0).  A call is in flight from rr_begin (t1 = 0) to rr_end; the slots
** from a thread's pub to its head are its outermost call and those inside.
** Rewritten only when the set changes; removed when it empties.  Recorder's
** tools ignore the file.
*/
static int fly_collect(uint64_t *key)
{
    rr.fly.len = 0;
    *key = 1;
    for (rr_thread *t = rr_threads; t; t = t->next) {
        uint64_t hi = atomic_load_explicit(&t->head, memory_order_acquire);
        for (uint64_t i = atomic_load_explicit(&t->pub, memory_order_acquire); i < hi; i++) {
            rr_rec r = t->ring[i & (RR_RING - 1)];
            if (r.t1 != 0 || r.func == RR_DROPPED || r.spec >= RR_S_COUNT) continue;
            if (vec_add(&rr.fly, &r, sizeof r)) return -1;
            *key = mix(mix(*key, (uint64_t)r.t0), r.tid);
        }
    }
    return 0;
}

static void write_inflight(void)
{
    uint64_t key;
    if (rr.rank < 0 || rr.broken || fly_collect(&key) || key == rr.fly_key) return;
    char name[40];
    rank_file(name, ".inflight");
    uint32_t n = (uint32_t)(rr.fly.len / sizeof(rr_rec));
    if (n == 0) {
        syscall(SYS_unlinkat, rr.dirfd, name, 0);
        rr.fly_key = key;
        return;
    }
    rr_vec *b = &rr.scratch;
    b->len = 0;
    unsigned char num[8];
    tr_rec_put32(num, n);
    int rc = vec_add(b, num, 4);
    const rr_rec *fly = (const rr_rec *)rr.fly.p;
    for (uint32_t i = 0; i < n && !rc; i++) {
        uint64_t ticks = (uint64_t)((fly[i].t0 - rr.start_ns) / RR_RES_NS);
        tr_rec_put32(num, (uint32_t)ticks);
        tr_rec_put32(num + 4, (uint32_t)(ticks >> 32));
        rc = vec_add(b, num, 8);
    }
    tr_rec_put32(num, n);
    rc = rc || vec_add(b, num, 4);
    for (uint32_t i = 0; i < n && !rc; i++) {
        rr_sig s;
        memset(&s, 0, sizeof s);
        memcpy(s.a, fly[i].a, sizeof s.a);
        s.tid = fly[i].tid;
        s.func = fly[i].func;
        s.level = fly[i].level;
        s.spec = fly[i].spec;
        size_t count_at;
        rc = cst_entry(b, i, &s, &count_at);
    }
    if (!rc && rr_write_file(rr.dirfd, name, b->p, b->len) == 0) rr.fly_key = key;
}

static int64_t rr_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void start_flusher(void);

/* FORCE: a timed flush (checkpoint whatever is pending, the calls in flight). */
static void rr_flush_locked(int final, int force)
{
    if (!rr.ready || rr.pid != (int)syscall(SYS_getpid)) return;
    int err = errno;
    drain();
    size_t pending = rr.ts.len / 8;
    size_t grammar = rr.main.len + rr.rbody.len + rr.rules.len;
    /* A process with no records takes a rank only when MPI gave it one. */
    int has = rr.rank >= 0 || rr.sigs.len || rr.mpi_rank >= 0;
    if (has && (final || (force && (pending || rr.rank < 0)) ||
                (pending >= RR_CKPT_MIN && pending * 8 * 4 >= grammar)))
        checkpoint(final);
    if (final || force) {
        write_inflight();
        atomic_store_explicit(&rr_next_ckpt, rr_now() + RR_CKPT_NS, memory_order_relaxed);
    }
    if (force && !final && rr.flusher_pid != rr.pid) start_flusher();
    errno = err;
}

/*
** The flusher thread makes the time bound hold when the program makes no
** calls (it computes, sleeps or waits in a collective): it checkpoints
** once a second what the calls' own timed flushes did not.  It blocks every
** signal, so that the program's threads take them, and makes no traced call.
*/
static void *flusher(void *arg)
{
    (void)arg;
    rr_inside = 1;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    int pid = rr.pid;
    while (atomic_load(&rr_layers) && pid == (int)syscall(SYS_getpid)) {
        int64_t wait = atomic_load_explicit(&rr_next_ckpt, memory_order_relaxed) - rr_now();
        if (wait > 0) {
            struct timespec ts = {(time_t)(wait / 1000000000LL), (long)(wait % 1000000000LL)};
            nanosleep(&ts, NULL);
            continue;
        }
        int was = rr_lock();
        if (!rr.final_done)
            rr_flush_locked(0, 1);
        else
            atomic_store(&rr_next_ckpt, rr_now() + RR_CKPT_NS);
        rr_unlock(was);
    }
    return NULL;
}

/* Under rr_mu, outside signal handlers. */
static void start_flusher(void)
{
    pthread_attr_t attr;
    pthread_t th;
    if (pthread_attr_init(&attr) != 0) return;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    if (pthread_create(&th, &attr, flusher, NULL) == 0) rr.flusher_pid = rr.pid;
    pthread_attr_destroy(&attr);
}

void rr_flush_all(int final)
{
    int was = rr_lock();
    rr_flush_locked(final, 1);
    rr_unlock(was);
}

/* ---- the wrappers' side ---- */

static void thread_gone(void *p)
{
    rr_thread *t = p;
    int was = rr_lock();
    drain();
    for (rr_thread **pp = &rr_threads; *pp; pp = &(*pp)->next)
        if (*pp == t) {
            *pp = t->next;
            break;
        }
    t->next = rr_spare_threads;
    rr_spare_threads = t;
    rr_self = NULL;
    rr_unlock(was);
}

static rr_thread *thread_new(void)
{
    if (!rr.ready) return NULL;
    int err = errno;
    int was = rr_lock();
    rr_thread *t = rr_spare_threads;
    if (t) {
        rr_spare_threads = t->next;
    } else if ((t = rr_map(sizeof *t)) != NULL && !(t->ring = rr_map(RR_RING * sizeof(rr_rec)))) {
        munmap(t, sizeof *t);
        t = NULL;
    }
    if (t) {
        atomic_store(&t->head, 0);
        atomic_store(&t->pub, 0);
        atomic_store(&t->cons, 0);
        t->depth = 0;
        t->tid = (uint32_t)syscall(SYS_gettid);
        t->next = rr_threads;
        rr_threads = t;
    }
    rr_unlock(was);
    if (t) {
        rr_self = t;
        pthread_setspecific(rr_key, t);
    }
    errno = err;
    return t;
}

rr_thread *rr_enter(unsigned layer)
{
    if (!(atomic_load_explicit(&rr_layers, memory_order_relaxed) & layer) || rr_inside) return NULL;
    rr_thread *t = rr_self;
    return t ? t : thread_new();
}

rr_rec *rr_begin(rr_thread *t, int func, int spec)
{
    int64_t now = rr_now();
    uint64_t head = atomic_load_explicit(&t->head, memory_order_relaxed);
    int full = head - atomic_load_explicit(&t->cons, memory_order_acquire) >= RR_RING;
    if (full || now >= atomic_load_explicit(&rr_next_ckpt, memory_order_relaxed)) {
        int was = rr_lock();
        rr_flush_locked(0, !full);
        rr_unlock(was);
        now = rr_now();
        full = head - atomic_load_explicit(&t->cons, memory_order_acquire) >= RR_RING;
    }
    rr_rec *r = full ? &t->spare : &t->ring[head & (RR_RING - 1)];
    r->func = (uint8_t)func;
    r->spec = (uint8_t)spec;
    r->level = (uint8_t)(t->depth < 255 ? t->depth : 255);
    r->tid = t->tid;
    r->t0 = now;
    r->t1 = 0; /* in flight until rr_end */
    r->has_ret = 0;
    t->depth++;
    /* The flusher reads the slots below head for the calls in flight. */
    if (!full) atomic_store_explicit(&t->head, head + 1, memory_order_release);
    return r;
}

void rr_end(rr_thread *t, rr_rec *r, int64_t ret)
{
    r->ret = ret;
    r->has_ret = 1;
    r->t1 = rr_now();
    if (--t->depth == 0)
        atomic_store_explicit(&t->pub, atomic_load_explicit(&t->head, memory_order_relaxed),
                              memory_order_release);
}

void rr_drop(rr_thread *t, rr_rec *r)
{
    r->func = RR_DROPPED;
    rr_end(t, r, 0);
}

uint32_t rr_fd_path(int fd)
{
    if (fd < 0 || (size_t)fd >= rr_fdcap) return 0;
    return atomic_load_explicit(&rr_fdtab[fd], memory_order_relaxed);
}

void rr_fd_set(int fd, uint32_t id)
{
    if (fd >= 0 && (size_t)fd < rr_fdcap)
        atomic_store_explicit(&rr_fdtab[fd], id, memory_order_relaxed);
}

int64_t rr_inline(const char *s)
{
    int64_t v = 0;
    size_t n = s ? strnlen(s, 8) : 0;
    memcpy(&v, s ? s : "", n);
    return v;
}

uint32_t rr_intern(const char *s, size_t n)
{
    int was = rr_lock();
    uint32_t id = intern_locked(s, n);
    rr_unlock(was);
    return id;
}

static int excluded(const char *p)
{
    for (size_t at = 0; at < rr.excl.len;) {
        const char *x = rr.excl.p + at;
        size_t n = strlen(x);
        if (strncmp(p, x, n) == 0 && (p[n] == '\0' || p[n] == '/' || (n && x[n - 1] == '/')))
            return 1;
        at += n + 1;
    }
    return 0;
}

/* The target of /proc/self/fd/FD into B (replacing it); 0 or -1. */
static int fd_link(rr_vec *b, int fd)
{
    char link[40] = "/proc/self/fd/";
    rr_fmt_i64(link + 14, fd);
    b->len = 0;
    if (vec_room(b, PATH_MAX + 1)) return -1;
    long n = syscall(SYS_readlinkat, AT_FDCWD, link, b->p, PATH_MAX);
    if (n <= 0 || b->p[0] != '/') return -1;
    b->len = (size_t)n;
    b->p[n] = '\0';
    return 0;
}

uint32_t rr_path_id(int dirfd, const char *path, int fd)
{
    int err = errno;
    int was = rr_lock();
    rr_vec *b = &rr.scratch;
    uint32_t id = 0;
    int ok = fd >= 0 && fd_link(b, fd) == 0;
    if (!ok && path) {
        /* As Recorder does: realpath, else the path made absolute without normalising. */
        size_t n = strlen(path);
        b->len = 0;
        if (path[0] != '/') {
            if (dirfd == AT_FDCWD) {
                if (vec_room(b, PATH_MAX + 1) == 0) {
                    long c = syscall(SYS_getcwd, b->p, PATH_MAX);
                    b->len = c > 0 ? (size_t)c - 1 : 0;
                }
            } else if (fd_link(b, dirfd) != 0) {
                b->len = 0;
            }
            if (b->len) vec_add(b, "/", 1);
        }
        ok = vec_add(b, path, n + 1) == 0 && b->p[0] == '/';
        if (ok) {
            size_t at = b->len;
            if (vec_room(b, PATH_MAX + 1) == 0 && realpath(b->p, b->p + at)) {
                memmove(b->p, b->p + at, strlen(b->p + at) + 1);
            }
        }
    }
    if (ok && !excluded(b->p)) id = intern_locked(b->p, strlen(b->p));
    rr_unlock(was);
    errno = err;
    return id;
}

void rr_set_mpi_rank(int rank, int size)
{
    int was = rr_lock();
    rr.mpi_rank = rank;
    rr.mpi_size = size;
    if (rr.ready && rr.rank < 0) rr_flush_locked(0, 1);
    rr_unlock(was);
}

void rr_resolve(void *slot, const char *name, const char *ver)
{
    int was = rr_inside;
    rr_inside = 1;
    void *p = dlsym(RTLD_NEXT, name);
    if (!p && ver) p = dlvsym(RTLD_NEXT, name, ver);
    memcpy(slot, &p, sizeof p);
    rr_inside = was;
}

/* ---- signals, fork, exit ---- */

static void on_signal(int sig)
{
    int err = errno;
    if (!rr_inside && pthread_mutex_trylock(&rr_mu) == 0) {
        rr_inside = 1;
        rr_flush_locked(1, 1);
        pthread_mutex_unlock(&rr_mu);
        rr_die(sig);
    }
    /* A fault or abort would come back at once: die without the records in hand. */
    if (sig == SIGSEGV || sig == SIGBUS || sig == SIGABRT) rr_die(sig);
    /* The holder of the lock finishes, flushes and dies of it (rr_unlock). */
    atomic_store(&rr_pending_sig, sig);
    errno = err;
}

int rr_is_own_handler(void (*h)(int))
{
    return h == on_signal;
}

static void before_fork(void)
{
    rr_inside = 1;
    pthread_mutex_lock(&rr_mu);
}

static void after_fork_parent(void)
{
    pthread_mutex_unlock(&rr_mu);
    rr_inside = 0;
}

/* The child is a new rank: the parent keeps (and writes) everything recorded so far. */
static void after_fork_child(void)
{
    pthread_mutex_init(&rr_mu, NULL);
    rr.pid = (int)syscall(SYS_getpid);
    rr.forked = 1;
    rr.fly_key = 1;
    rr.final_done = 0;
    /* Its first traced call starts its own flusher (threads do not survive fork). */
    atomic_store(&rr_next_ckpt, 0);
    rr_thread *keep = rr_self;
    for (rr_thread *t = rr_threads, *next; t; t = next) {
        next = t->next;
        if (t == keep) continue;
        t->next = rr_spare_threads;
        rr_spare_threads = t;
    }
    rr_threads = keep;
    if (keep) {
        keep->next = NULL;
        keep->tid = (uint32_t)syscall(SYS_gettid);
        atomic_store(&keep->pub, keep->head);
        atomic_store(&keep->cons, keep->head);
    }
    if (rr.rank >= 0) {
        rr_sys_close(rr.ts_fd);
        rr_sys_close(rr.cst_fd);
    }
    rr.rank = -1;
    rr.ts_pairs = 0;
    rr.cst_size = 0;
    rr.cst_written = 0;
    rr.prev = 0;
    rr.ts.len = rr.sigs.len = rr.dirty.len = rr.main.len = rr.rules.len = rr.rbody.len = 0;
    if (rr.sig_slot) memset(rr.sig_slot, 0, rr.sig_cap * sizeof(uint32_t));
    if (rr.rule_slot) memset(rr.rule_slot, 0, rr.rule_cap * sizeof(uint32_t));
    rr_inside = 0;
}

static void at_exit(void)
{
    rr_flush_all(1);
}

__attribute__((destructor)) static void fini(void)
{
    rr_flush_all(1);
    /* Records after this would never be written. */
    disable();
}

/* ---- start ---- */

static void install_handler(int sig)
{
    struct sigaction old, sa;
    if (sigaction(sig, NULL, &old) != 0 || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO))
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

__attribute__((constructor)) static void init(void)
{
    rr.pid = (int)syscall(SYS_getpid);
    rr.dirfd = rr.rank = rr.mpi_rank = rr.env_rank = -1;
    rr.ts_fd = rr.cst_fd = -1;
    rr.fly_key = 1;
    if (rr_is_launcher()) return;
    for (int s = 0; s < RR_S_COUNT; s++) {
        uint8_t k = 0;
        for (const char *c = rr_spec_text[s]; *c; c++) k += *c != 'x' && *c != 'n';
        rr_spec_slots[s] = k;
    }
    static const char *const rank_vars[][2] = {{"RANK", "WORLD_SIZE"},
                                               {"PMI_RANK", "PMI_SIZE"},
                                               {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                               {"PMIX_RANK", "PMI_SIZE"},
                                               {"SLURM_PROCID", "SLURM_NTASKS"}};
    for (size_t i = 0; i < sizeof rank_vars / sizeof *rank_vars && rr.env_rank < 0; i++)
        if (rr_env_int(rank_vars[i][0], &rr.env_rank)) rr_env_int(rank_vars[i][1], &rr.env_size);
    /* One job, one directory: the first traced process fixes it for its children. */
    const char *start = getenv("TRACERECORD_START_NS");
    rr.start_ns = start ? strtoll(start, NULL, 10) : 0;
    if (rr.start_ns <= 0) {
        char num[24];
        rr.start_ns = rr_now();
        rr_fmt_i64(num, rr.start_ns);
        setenv("TRACERECORD_START_NS", num, 1);
    }
    rr.dir = getenv("TRACERECORD_DIR");
    if (!rr.dir || rr.dir[0] != '/') {
        char cwd[PATH_MAX], name[PATH_MAX + 64];
        time_t now = (time_t)(rr.start_ns / 1000000000LL);
        struct tm tm;
        if (!getcwd(cwd, sizeof cwd) || !localtime_r(&now, &tm)) return;
        size_t n = strlen(cwd);
        memcpy(name, cwd, n);
        strftime(name + n, sizeof name - n, "/recorder-%Y%m%d-%H%M%S", &tm);
        setenv("TRACERECORD_DIR", name, 1);
        rr.dir = getenv("TRACERECORD_DIR");
        if (!rr.dir) return;
    }
    const char *ex = getenv("TRACERECORD_EXCLUDE");
    /* Darshan's default exclusions (darshan-core.c): system files are not the job's I/O. */
    if (!ex) ex = "/etc,/dev,/usr,/bin,/boot,/lib,/opt,/sbin,/sys,/proc,/var";
    for (const char *p = ex; *p;) {
        size_t k = strcspn(p, ",:");
        if (k && (vec_add(&rr.excl, p, k) || vec_add(&rr.excl, "", 1))) return;
        p += k + (p[k] != '\0');
    }
    if (vec_add(&rr.excl, rr.dir, strlen(rr.dir) + 1)) return;
    struct rlimit rl;
    rr_fdcap =
        getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max < RR_FD_MAX ? rl.rlim_max : RR_FD_MAX;
    if (!(rr_fdtab = rr_map(rr_fdcap * sizeof *rr_fdtab))) return;
    /* String id 0: a descriptor or path that is not traced. */
    if (vec_add32(&rr.str_off, 0) || vec_add(&rr.strs, "", 1)) return;
    if (pthread_key_create(&rr_key, thread_gone) != 0) return;
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    atexit(at_exit);
    install_handler(SIGTERM);
    install_handler(SIGINT);
    install_handler(SIGABRT);
    install_handler(SIGSEGV);
    install_handler(SIGBUS);
    /* The first traced call flushes (nothing) and starts the flusher: a process that traces
     * nothing stays single-threaded. */
    atomic_store(&rr_next_ckpt, 0);
    rr.ready = 1;
    atomic_store(&rr_layers, rr_parse_layers(getenv("TRACERECORD_LAYERS")));
}
