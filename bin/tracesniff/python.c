/*
** python.c: CPython's runtime read from outside (capture.md A.1-A.5).
**
** 3.11 and 3.12 have no self-description, so their offsets are compiled in
** (capture.md A.3, checked against each version's internal headers); 3.13
** describes its own layout in _Py_DebugOffsets at the start of _PyRuntime.
** Caches: code objects by address (checked once per sample against their
** header words, so a reused address is noticed), short filenames by path,
** thread names by ident (refreshed when an unknown ident shows up, and every
** few seconds for renamed threads).
*/
#include "python_impl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "elfsym_impl.h"
#include "map_impl.h"
#include "sniff_impl.h"

#define PY_MAX_THREADS     4096
#define PY_MAX_FRAMES      4096
#define PY_MAX_STR         4096        /* code points, as py-spy */
#define PY_MAX_LINETAB     (64u << 10) /* bytes, as py-spy */
#define PY_MAX_DICT        (1u << 20)  /* entries */
#define PY_NAME_REFRESH_NS 2000000000LL
#define PY_WINDOW          8192 /* bytes read at once below a frame */

typedef struct py_off {
    int minor;
    uint64_t rt_interp_head;
    uint64_t in_next, in_threads_head, in_modules;
    uint64_t rt_gil_tstate;                /* 3.11: the holder's tstate in _PyRuntime */
    uint64_t in_gil_ptr;                   /* 3.12: interp->ceval.gil */
    uint64_t in_gil_locked, in_gil_holder; /* 3.13: inside the interpreter */
    uint64_t ts_next, ts_interp, ts_frame, cf_current, ts_thread_id, ts_native_tid;
    uint64_t fr_code, fr_previous, fr_instr, fr_owner, fr_is_entry;
    uint64_t co_firstlineno, co_filename, co_name, co_linetable, co_code_adaptive;
    uint64_t uni_ascii, uni_compact;
    uint64_t ht_cached_keys, dictvalues_values;
} py_off;

/* cf_current of NONE: the thread state points at the frame itself (3.13). */
#define NONE UINT64_MAX

static const py_off py311 = {.minor = 11,
                             .rt_interp_head = 40,
                             .in_next = 0,
                             .in_threads_head = 16,
                             .in_modules = 888,
                             .rt_gil_tstate = 576,
                             .ts_next = 8,
                             .ts_interp = 16,
                             .ts_frame = 56,
                             .cf_current = 8,
                             .ts_thread_id = 152,
                             .ts_native_tid = 160,
                             .fr_code = 32,
                             .fr_previous = 48,
                             .fr_instr = 56,
                             .fr_owner = 69,
                             .fr_is_entry = 68,
                             .co_firstlineno = 72,
                             .co_filename = 112,
                             .co_name = 120,
                             .co_linetable = 136,
                             .co_code_adaptive = 184,
                             .uni_ascii = 48,
                             .uni_compact = 72,
                             .ht_cached_keys = 872,
                             .dictvalues_values = 0};

static const py_off py312 = {.minor = 12,
                             .rt_interp_head = 40,
                             .in_next = 0,
                             .in_threads_head = 72,
                             .in_modules = 944,
                             .in_gil_ptr = 384,
                             .ts_next = 8,
                             .ts_interp = 16,
                             .ts_frame = 56,
                             .cf_current = 0,
                             .ts_thread_id = 136,
                             .ts_native_tid = 144,
                             .fr_code = 0,
                             .fr_previous = 8,
                             .fr_instr = 56,
                             .fr_owner = 70,
                             .fr_is_entry = NONE,
                             .co_firstlineno = 68,
                             .co_filename = 112,
                             .co_name = 120,
                             .co_linetable = 136,
                             .co_code_adaptive = 192,
                             .uni_ascii = 40,
                             .uni_compact = 56,
                             .ht_cached_keys = 880,
                             .dictvalues_values = 0};

/* Frame owners (capture.md A.2). */
enum { OWNED_BY_CSTACK = 3 };
/* Type flags. */
#define TPFLAGS_INLINE_VALUES (1ull << 2)
#define TPFLAGS_MANAGED_DICT  (1ull << 4)
#define TP_FLAGS_OFF          168
#define TP_DICTOFFSET_OFF     288

typedef struct py_code {
    uint64_t checked; /* sample generation of the last header check */
    uint64_t filename_p, name_p, linetable_p;
    int32_t firstlineno;
    const char *name, *file;
    const unsigned char *linetable;
    uint32_t linetable_n;
} py_code;

struct ts_py {
    pid_t pid;
    py_off o;
    uint64_t runtime, code_type;
    char version[32];
    int full_filenames;
    uint64_t gen;
    tr_arena arena;     /* cached strings and line tables */
    ts_map64 codes;     /* code address -> py_code* */
    ts_map64 shorts;    /* hash of a filename -> index into short_names */
    tr_vec short_names; /* {const char *full, *shrt} */
    ts_map64 names;     /* ident -> const char * (1 = looked up, has no name) */
    int64_t names_at;   /* monotonic time of the last refresh, 0 = never */
    tr_buf s, t;        /* scratch text */
    tr_vec buf;         /* scratch bytes */
    uint64_t win_base;  /* frame_read's window of the target's memory */
    size_t win_len;
    unsigned char win[PY_WINDOW];
};

typedef struct short_name {
    const char *full, *shrt;
} short_name;

/* ---- reads ---- */

static int rd(ts_py *py, uint64_t addr, void *p, size_t n, tr_error *e)
{
    int rc = ts_mem_read(py->pid, addr, p, n);
    if (rc == 0) return TR_OK;
    if (rc == -ESRCH) return tr_error_errno(e, ESRCH, NULL, "process %d exited", (int)py->pid);
    if (rc == -EPERM) return tr_error_errno(e, EPERM, NULL, "%s", ts_errno_hint(rc));
    return tr_error_errno(e, -rc, NULL, "cannot read memory at 0x%llx of process %d",
                          (unsigned long long)addr, (int)py->pid);
}

static uint64_t u64_at(const void *p, uint64_t off)
{
    uint64_t v;
    memcpy(&v, (const char *)p + off, sizeof v);
    return v;
}

static int32_t i32_at(const void *p, uint64_t off)
{
    int32_t v;
    memcpy(&v, (const char *)p + off, sizeof v);
    return v;
}

static int ptr(ts_py *py, uint64_t addr, uint64_t *v, tr_error *e)
{
    return rd(py, addr, v, sizeof *v, e);
}

/* Scratch of N bytes. */
static void *scratch(ts_py *py, size_t n)
{
    py->buf.len = 0;
    if (tr_vec_reserve(&py->buf, n + 1) != TR_OK) return NULL;
    return py->buf.data;
}

static void add_utf8(tr_buf *b, uint32_t c)
{
    char u[4];
    size_t n;
    if (c < 0x80) {
        u[0] = (char)c;
        n = 1;
    } else if (c < 0x800) {
        u[0] = (char)(0xC0 | c >> 6);
        u[1] = (char)(0x80 | (c & 0x3F));
        n = 2;
    } else if (c < 0x10000) {
        u[0] = (char)(0xE0 | c >> 12);
        u[1] = (char)(0x80 | (c >> 6 & 0x3F));
        u[2] = (char)(0x80 | (c & 0x3F));
        n = 3;
    } else {
        u[0] = (char)(0xF0 | c >> 18);
        u[1] = (char)(0x80 | (c >> 12 & 0x3F));
        u[2] = (char)(0x80 | (c >> 6 & 0x3F));
        u[3] = (char)(0x80 | (c & 0x3F));
        n = 4;
    }
    tr_buf_add(b, u, n);
}

/* A str object at ADDR as UTF-8 into OUT (capture.md A.4). */
static int py_str(ts_py *py, uint64_t addr, tr_buf *out, tr_error *e)
{
    unsigned char hdr[80];
    int rc;
    if ((rc = rd(py, addr, hdr, py->o.uni_ascii, e)) != TR_OK) return rc;
    int64_t len = (int64_t)u64_at(hdr, 16);
    uint32_t state = (uint32_t)i32_at(hdr, 32);
    unsigned kind = state >> 2 & 7, compact = state >> 5 & 1, ascii = state >> 6 & 1;
    if (len < 0 || len >= PY_MAX_STR || !compact || (kind != 1 && kind != 2 && kind != 4))
        return tr_errorf(e, TR_E_FORMAT, NULL, "not a string object at 0x%llx",
                         (unsigned long long)addr);
    uint64_t data = addr + (ascii ? py->o.uni_ascii : py->o.uni_compact);
    unsigned char *p = scratch(py, (size_t)len * kind);
    if (!p) return tr_error_nomem(e);
    if ((rc = rd(py, data, p, (size_t)len * kind, e)) != TR_OK) return rc;
    tr_buf_reset(out);
    if (tr_buf_grow(out, (size_t)len * 4) != 0) return tr_error_nomem(e);
    for (int64_t i = 0; i < len; i++) {
        uint32_t c = kind == 1   ? p[i]
                     : kind == 2 ? (uint32_t)p[2 * i] | (uint32_t)p[2 * i + 1] << 8
                                 : (uint32_t)u64_at(p, 4 * (uint64_t)i) & 0xFFFFFFFFu;
        add_utf8(out, c);
    }
    return TR_OK;
}

/* Is the str object at ADDR the ASCII text WANT?  One read. */
static int py_str_is(ts_py *py, uint64_t addr, const char *want)
{
    size_t n = strlen(want);
    unsigned char b[128];
    if (py->o.uni_ascii + n > sizeof b || ts_mem_read(py->pid, addr, b, py->o.uni_ascii + n) != 0)
        return 0;
    uint32_t state = (uint32_t)i32_at(b, 32);
    return (int64_t)u64_at(b, 16) == (int64_t)n && (state >> 5 & 3) == 3 &&
           memcmp(b + py->o.uni_ascii, want, n) == 0;
}

/* An int object at ADDR that fits 64 bits (thread idents). */
static int py_long(ts_py *py, uint64_t addr, uint64_t *v)
{
    unsigned char b[40];
    if (ts_mem_read(py->pid, addr, b, sizeof b) != 0) return -1;
    uint64_t tag = u64_at(b, 16), nd;
    if (py->o.minor == 11) {
        int64_t size = (int64_t)tag;
        if (size < 0) return -1;
        nd = (uint64_t)size;
    } else {
        if ((tag & 3) == 2) return -1; /* negative */
        nd = tag >> 3;
    }
    if (nd > 3) return -1;
    uint64_t r = 0;
    for (uint64_t i = nd; i > 0; i--)
        r = r << 30 | ((uint32_t)i32_at(b, 24 + 4 * (i - 1)) & 0x3FFFFFFFu);
    *v = r;
    return 0;
}

/* ---- dicts (3.11+ layout, capture.md A.5) ---- */

typedef int (*dict_fn)(ts_py *py, uint64_t key, uint64_t value, void *user); /* 1 = stop */

static int dict_walk(ts_py *py, uint64_t keys, uint64_t values, dict_fn fn, void *user)
{
    unsigned char h[32];
    if (ts_mem_read(py->pid, keys, h, sizeof h) != 0) return -1;
    unsigned log2_index = h[9], kind = h[10];
    int64_t n = (int64_t)u64_at(h, 24);
    if (log2_index > 32 || n < 0 || n > (int64_t)PY_MAX_DICT) return -1;
    size_t esz = kind == 0 ? 24 : 16;
    size_t ents_n = (size_t)n * esz, vals_n = values ? (size_t)n * 8 : 0;
    unsigned char *p = scratch(py, ents_n + vals_n);
    if (!p) return -1;
    if (ts_mem_read(py->pid, keys + 32 + (1ull << log2_index), p, ents_n) != 0) return -1;
    if (values && ts_mem_read(py->pid, values, p + ents_n, vals_n) != 0) return -1;
    /* The callback may reuse the scratch: copy the pairs out first. */
    tr_vec pairs;
    tr_vec_init(&pairs, 2 * sizeof(uint64_t));
    int rc = 0;
    for (int64_t i = 0; i < n; i++) {
        const unsigned char *en = p + (size_t)i * esz;
        uint64_t k = u64_at(en, kind == 0 ? 8 : 0);
        uint64_t v = values ? u64_at(p + ents_n, (uint64_t)i * 8) : u64_at(en, kind == 0 ? 16 : 8);
        if (!k || !v) continue;
        uint64_t *slot = tr_vec_push(&pairs);
        if (!slot) {
            rc = -1;
            break;
        }
        slot[0] = k;
        slot[1] = v;
    }
    for (size_t i = 0; rc == 0 && i < pairs.len; i++) {
        uint64_t *kv = (uint64_t *)pairs.data + 2 * i;
        if (fn(py, kv[0], kv[1], user)) break;
    }
    tr_vec_fini(&pairs);
    return rc;
}

static int dict_of(ts_py *py, uint64_t dict, dict_fn fn, void *user)
{
    unsigned char d[48];
    if (ts_mem_read(py->pid, dict, d, sizeof d) != 0) return -1;
    uint64_t keys = u64_at(d, 32), values = u64_at(d, 40);
    if (!keys) return -1;
    if (values) values += py->o.dictvalues_values;
    return dict_walk(py, keys, values, fn, user);
}

typedef struct find_key {
    const char *want;
    uint64_t value;
} find_key;

static int match_key(ts_py *py, uint64_t key, uint64_t value, void *user)
{
    find_key *f = user;
    if (!py_str_is(py, key, f->want)) return 0;
    f->value = value;
    return 1;
}

/* The value of str key WANT in dict DICT, or 0. */
static uint64_t dict_get(ts_py *py, uint64_t dict, const char *want)
{
    find_key f = {want, 0};
    return dict_of(py, dict, match_key, &f) == 0 ? f.value : 0;
}

/* The instance attribute WANT of OBJ (a heap type with a managed or plain dict), or 0. */
static uint64_t attr_get(ts_py *py, uint64_t obj, const char *want)
{
    uint64_t type = ts_mem_ptr(py->pid, obj + 8);
    if (!type) return 0;
    uint64_t flags = ts_mem_ptr(py->pid, type + TP_FLAGS_OFF);
    find_key f = {want, 0};
    if (flags & TPFLAGS_MANAGED_DICT) {
        uint64_t keys = ts_mem_ptr(py->pid, type + py->o.ht_cached_keys), values = 0, dict = 0;
        if (py->o.minor == 11) {
            values = ts_mem_ptr(py->pid, obj - 32);
            if (!values) dict = ts_mem_ptr(py->pid, obj - 24);
        } else if (py->o.minor == 12) {
            uint64_t word = ts_mem_ptr(py->pid, obj - 24);
            if (word & 1)
                values = word + 1;
            else
                dict = word;
        } else {
            dict = ts_mem_ptr(py->pid, obj - 24);
            unsigned char valid = 0;
            if (!dict && (flags & TPFLAGS_INLINE_VALUES) &&
                ts_mem_read(py->pid, obj + 16 + 3, &valid, 1) == 0 && valid)
                values = obj + 16 + 8;
        }
        if (dict) return dict_get(py, dict, want);
        if (values && keys && dict_walk(py, keys, values, match_key, &f) == 0) return f.value;
        return 0;
    }
    int64_t off = (int64_t)ts_mem_ptr(py->pid, type + TP_DICTOFFSET_OFF);
    if (off <= 0) return 0;
    uint64_t dict = ts_mem_ptr(py->pid, obj + (uint64_t)off);
    return dict ? dict_get(py, dict, want) : 0;
}

/* ---- thread names (threading._active) ---- */

static int note_thread(ts_py *py, uint64_t key, uint64_t thread, void *user)
{
    (void)user;
    uint64_t ident;
    if (py_long(py, key, &ident) != 0 || !ident) return 0;
    uint64_t name = attr_get(py, thread, "_name");
    tr_error e;
    if (!name || py_str(py, name, &py->t, &e) != TR_OK) return 0;
    const char *copy = tr_arena_strndup(&py->arena, py->t.p, py->t.len);
    if (copy) ts_map64_put(&py->names, ident, (uint64_t)(uintptr_t)copy);
    return 0;
}

static void refresh_names(ts_py *py, uint64_t interp)
{
    py->names_at = ts_now_mono();
    uint64_t modules = ts_mem_ptr(py->pid, interp + py->o.in_modules);
    uint64_t threading = modules ? dict_get(py, modules, "threading") : 0;
    uint64_t md = threading ? ts_mem_ptr(py->pid, threading + 16) : 0;
    uint64_t active = md ? dict_get(py, md, "_active") : 0;
    if (active) dict_of(py, active, note_thread, NULL);
}

static const char *thread_name(ts_py *py, uint64_t ident)
{
    uint64_t *v = ts_map64_find(&py->names, ident);
    return v && *v > 1 ? (const char *)(uintptr_t)*v : NULL;
}

/* ---- code objects ---- */

/* py-spy's short filename: drop the directories above the topmost package. */
static const char *short_filename(ts_py *py, const char *full)
{
    if (py->full_filenames || full[0] != '/') return full;
    size_t n = strlen(full);
    uint64_t h = tr_hash_bytes(full, n);
    for (uint64_t *v = ts_map64_find(&py->shorts, h); v;) {
        short_name *sn = &TR_VEC_AT(&py->short_names, short_name, *v);
        if (strcmp(sn->full, full) == 0) return sn->shrt;
        break; /* a hash collision: compute it again, uncached */
    }
    size_t cut = n;
    for (;;) {
        size_t slash = cut;
        while (slash > 0 && full[slash - 1] != '/') slash--;
        if (slash <= 1) break;
        size_t dir_n = slash - 1; /* the directory holding full[slash..] */
        tr_buf_reset(&py->s);
        char root[48];
        snprintf(root, sizeof root, "/proc/%d/root", (int)py->pid);
        struct stat st;
        int found = 0;
        for (int pass = 0; pass < 2 && !found; pass++) {
            tr_buf_reset(&py->s);
            if (pass == 0) tr_buf_adds(&py->s, root);
            tr_buf_add(&py->s, full, dir_n);
            tr_buf_adds(&py->s, "/__init__.py");
            found = stat(py->s.p, &st) == 0;
        }
        cut = slash - 1;
        if (!found) break;
    }
    const char *shrt = full + (cut < n ? cut + 1 : 0);
    short_name *sn = tr_vec_push(&py->short_names);
    if (sn) {
        sn->full = full;
        sn->shrt = shrt;
        if (ts_map64_put(&py->shorts, h, py->short_names.len - 1) != 0) py->short_names.len--;
    }
    return shrt;
}

/* Fills C from the code object at ADDR whose first bytes are HDR. */
static int code_fill(ts_py *py, uint64_t addr, const unsigned char *hdr, py_code *c, tr_error *e)
{
    (void)addr;
    int rc;
    c->filename_p = u64_at(hdr, py->o.co_filename);
    c->name_p = u64_at(hdr, py->o.co_name);
    c->linetable_p = u64_at(hdr, py->o.co_linetable);
    c->firstlineno = i32_at(hdr, py->o.co_firstlineno);
    if ((rc = py_str(py, c->name_p, &py->t, e)) != TR_OK) return rc;
    c->name = tr_arena_strndup(&py->arena, py->t.p, py->t.len);
    if ((rc = py_str(py, c->filename_p, &py->t, e)) != TR_OK) return rc;
    const char *full = tr_arena_strndup(&py->arena, py->t.p, py->t.len);
    if (!c->name || !full) return tr_error_nomem(e);
    c->file = short_filename(py, full);
    /* The line table is a bytes object: size at +16, data at +32. */
    c->linetable = NULL;
    c->linetable_n = 0;
    int64_t size = (int64_t)ts_mem_ptr(py->pid, c->linetable_p + 16);
    if (size > 0 && size <= (int64_t)PY_MAX_LINETAB) {
        unsigned char *lt = tr_arena_alloc(&py->arena, (size_t)size);
        if (!lt) return tr_error_nomem(e);
        if (ts_mem_read(py->pid, c->linetable_p + 32, lt, (size_t)size) == 0) {
            c->linetable = lt;
            c->linetable_n = (uint32_t)size;
        }
    }
    return TR_OK;
}

/* The code object at ADDR, from the cache when its header still matches; NULL when not code. */
static const py_code *code_get(ts_py *py, uint64_t addr, tr_error *e, int *rc)
{
    *rc = TR_OK;
    uint64_t *slot = ts_map64_find(&py->codes, addr);
    py_code *c = slot ? (py_code *)(uintptr_t)*slot : NULL;
    if (c && c->checked == py->gen) return c;
    unsigned char hdr[256];
    if ((*rc = rd(py, addr, hdr, py->o.co_code_adaptive, e)) != TR_OK) return NULL;
    if (py->code_type && u64_at(hdr, 8) != py->code_type) return NULL;
    if (c && c->filename_p == u64_at(hdr, py->o.co_filename) &&
        c->name_p == u64_at(hdr, py->o.co_name) &&
        c->linetable_p == u64_at(hdr, py->o.co_linetable) &&
        c->firstlineno == i32_at(hdr, py->o.co_firstlineno)) {
        c->checked = py->gen;
        return c;
    }
    if (!c) {
        c = tr_arena_alloc(&py->arena, sizeof *c);
        if (!c || ts_map64_put(&py->codes, addr, (uint64_t)(uintptr_t)c) != 0) {
            *rc = tr_error_nomem(e);
            return NULL;
        }
        memset(c, 0, sizeof *c);
    }
    c->checked = 0;
    if ((*rc = code_fill(py, addr, hdr, c, e)) != TR_OK) {
        c->filename_p = 0; /* refill next time */
        return NULL;
    }
    c->checked = py->gen;
    return c;
}

static unsigned lt_varint(const unsigned char *p, size_t n, size_t *i)
{
    unsigned v = 0, shift = 0;
    while (*i < n) {
        unsigned b = p[(*i)++];
        v |= (b & 0x3F) << shift;
        shift += 6;
        if (!(b & 0x40) || shift > 24) break;
    }
    return v;
}

static int lt_svarint(const unsigned char *p, size_t n, size_t *i)
{
    unsigned u = lt_varint(p, n, i);
    return (u & 1) ? -(int)(u >> 1) : (int)(u >> 1);
}

/* The line of byte offset ADDRQ in the code (the 3.11+ location table, capture.md A.4). */
static int32_t code_line(const py_code *c, int64_t addrq)
{
    int32_t line = c->firstlineno;
    if (addrq < 0 || !c->linetable) return line;
    const unsigned char *p = c->linetable;
    size_t n = c->linetable_n, i = 0;
    int64_t addr = 0;
    while (i < n) {
        unsigned first = p[i++];
        if (!(first & 0x80)) break;
        unsigned code = first >> 3 & 15, len = (first & 7) + 1;
        int delta = 0;
        if (code <= 9) {
            i++;
        } else if (code <= 12) {
            delta = (int)code - 10;
            i += 2;
        } else if (code == 13) {
            delta = lt_svarint(p, n, &i);
        } else if (code == 14) {
            delta = lt_svarint(p, n, &i);
            lt_varint(p, n, &i);
            lt_varint(p, n, &i);
            lt_varint(p, n, &i);
        }
        line += delta;
        if (addrq >= addr && addrq < addr + 2 * (int64_t)len) return line;
        addr += 2 * (int64_t)len;
    }
    return line;
}

/* ---- finding the runtime ---- */

int ts_py_is_interpreter_path(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strncmp(base, "python", 6) == 0 || strncmp(base, "libpython", 9) == 0;
}

static void format_version(char *out, size_t n, uint32_t v)
{
    unsigned major = v >> 24, minor = v >> 16 & 0xFF, micro = v >> 8 & 0xFF;
    unsigned level = v >> 4 & 0xF, serial = v & 0xF;
    const char *tag = level == 0xA ? "a" : level == 0xB ? "b" : level == 0xC ? "rc" : NULL;
    if (tag)
        snprintf(out, n, "%u.%u.%u%s%u", major, minor, micro, tag, serial);
    else
        snprintf(out, n, "%u.%u.%u", major, minor, micro);
}

/* 3.13's _Py_DebugOffsets, as uint64 words (the struct of its internal/pycore_runtime.h). */
enum {
    DO_VERSION = 1,
    DO_FREE_THREADED = 2,
    DO_RT_INTERP_HEAD = 5,
    DO_IN_NEXT = 8,
    DO_IN_THREADS_HEAD = 9,
    DO_IN_MODULES = 11,
    DO_IN_GIL_LOCKED = 17,
    DO_IN_GIL_HOLDER = 18,
    DO_TS_NEXT = 21,
    DO_TS_INTERP = 22,
    DO_TS_FRAME = 23,
    DO_TS_THREAD_ID = 24,
    DO_TS_NATIVE_TID = 25,
    DO_FR_PREVIOUS = 29,
    DO_FR_EXECUTABLE = 30,
    DO_FR_INSTR = 31,
    DO_FR_OWNER = 33,
    DO_CO_FILENAME = 35,
    DO_CO_NAME = 36,
    DO_CO_LINETABLE = 38,
    DO_CO_FIRSTLINENO = 39,
    DO_CO_CODE_ADAPTIVE = 43,
    DO_UNI_ASCII_SIZE = 70,
    DO_WORDS = 73
};

static int offsets_313(ts_py *py, tr_error *e)
{
    uint64_t w[DO_WORDS];
    int rc = rd(py, py->runtime, w, sizeof w, e);
    if (rc != TR_OK) return rc;
    if (memcmp(w, "xdebugpy", 8) != 0)
        return tr_errorf(e, TR_E_FORMAT, NULL, "_PyRuntime has no debug offsets (cookie)");
    if (w[DO_FREE_THREADED])
        return tr_errorf(e, TR_E_USAGE, NULL,
                         "free-threaded Python builds are not supported (other layouts)");
    py_off *o = &py->o;
    *o = (py_off){.minor = 13,
                  .rt_interp_head = w[DO_RT_INTERP_HEAD],
                  .in_next = w[DO_IN_NEXT],
                  .in_threads_head = w[DO_IN_THREADS_HEAD],
                  .in_modules = w[DO_IN_MODULES],
                  .in_gil_locked = w[DO_IN_GIL_LOCKED],
                  .in_gil_holder = w[DO_IN_GIL_HOLDER],
                  .ts_next = w[DO_TS_NEXT],
                  .ts_interp = w[DO_TS_INTERP],
                  .ts_frame = w[DO_TS_FRAME],
                  .cf_current = NONE,
                  .ts_thread_id = w[DO_TS_THREAD_ID],
                  .ts_native_tid = w[DO_TS_NATIVE_TID],
                  .fr_code = w[DO_FR_EXECUTABLE],
                  .fr_previous = w[DO_FR_PREVIOUS],
                  .fr_instr = w[DO_FR_INSTR],
                  .fr_owner = w[DO_FR_OWNER],
                  .fr_is_entry = NONE,
                  .co_firstlineno = w[DO_CO_FIRSTLINENO],
                  .co_filename = w[DO_CO_FILENAME],
                  .co_name = w[DO_CO_NAME],
                  .co_linetable = w[DO_CO_LINETABLE],
                  .co_code_adaptive = w[DO_CO_CODE_ADAPTIVE],
                  .uni_ascii = w[DO_UNI_ASCII_SIZE],
                  .uni_compact = w[DO_UNI_ASCII_SIZE] + 16,
                  .ht_cached_keys = 880,
                  .dictvalues_values = 8};
    /* The offsets are used against fixed-size local buffers: refuse absurd ones. */
    if (o->co_code_adaptive > 256 || o->fr_owner >= 80 || o->fr_instr >= 80 ||
        o->fr_previous >= 80 || o->fr_code >= 80 || o->ts_native_tid > 4096 || o->uni_ascii > 64)
        return tr_errorf(e, TR_E_FORMAT, NULL, "implausible debug offsets in _PyRuntime");
    return TR_OK;
}

/* Checks the runtime: interpreter -> thread state -> back to the interpreter. */
static int check_runtime(ts_py *py, tr_error *e)
{
    uint64_t interp, ts, back;
    int rc = ptr(py, py->runtime + py->o.rt_interp_head, &interp, e);
    if (rc != TR_OK) return rc;
    if (!interp) return TR_END;
    if ((rc = ptr(py, interp + py->o.in_threads_head, &ts, e)) != TR_OK) return rc;
    if (!ts) return TR_END;
    if ((rc = ptr(py, ts + py->o.ts_interp, &back, e)) != TR_OK) return rc;
    if (back != interp)
        return tr_errorf(e, TR_E_FORMAT, NULL,
                         "the thread state does not point back at its interpreter "
                         "(unexpected CPython layout)");
    return TR_OK;
}

void ts_py_free(ts_py *py)
{
    if (!py) return;
    tr_arena_fini(&py->arena);
    ts_map64_fini(&py->codes);
    ts_map64_fini(&py->shorts);
    ts_map64_fini(&py->names);
    tr_vec_fini(&py->short_names);
    tr_buf_fini(&py->s);
    tr_buf_fini(&py->t);
    tr_vec_fini(&py->buf);
    tr_free(py);
}

/* Looks for _PyRuntime in the ELF file mapped at MAP; 1 when found. */
static int find_in(ts_py *py, const ts_map *map, uint32_t *version, tr_error *e)
{
    tr_buf path;
    tr_buf_init(&path, 0);
    ts_elf elf;
    ts_proc_path(&path, py->pid, map->path);
    int rc = ts_elf_load(&elf, path.p, e);
    if (rc != TR_OK) rc = ts_elf_load(&elf, map->path, e);
    tr_buf_fini(&path);
    if (rc != TR_OK) return 0;
    uint64_t runtime, ver = 0, code_type = 0;
    int found = ts_elf_find(&elf, "_PyRuntime", &runtime);
    if (found) {
        uint64_t bias = elf.type == TS_ET_DYN ? map->start - ts_elf_base(&elf) : 0;
        py->runtime = runtime + bias;
        *version = 0;
        if (ts_elf_find(&elf, "Py_Version", &ver))
            ts_mem_read(py->pid, ver + bias, version, sizeof *version);
        py->code_type = ts_elf_find(&elf, "PyCode_Type", &code_type) ? code_type + bias : 0;
    }
    ts_elf_fini(&elf);
    return found;
}

int ts_py_open(ts_py **out, pid_t pid, const ts_maps *maps, int full_filenames, tr_error *e)
{
    *out = NULL;
    ts_py *py = tr_calloc(1, sizeof *py);
    if (!py) {
        tr_error_nomem(e);
        return TS_PY_ERROR;
    }
    py->pid = pid;
    py->full_filenames = full_filenames;
    py->gen = 1;
    tr_arena_init(&py->arena);
    ts_map64_init(&py->codes);
    ts_map64_init(&py->shorts);
    ts_map64_init(&py->names);
    tr_vec_init(&py->short_names, sizeof(short_name));
    tr_buf_init(&py->s, 0);
    tr_buf_init(&py->t, 0);
    tr_vec_init(&py->buf, 1);
    /* Candidates: the executable first (a static build), then libpython. */
    uint32_t version = 0;
    int found = 0, mapped = 0;
    for (int pass = 0; pass < 2 && !found; pass++) {
        for (size_t i = 0; i < maps->v.len && !found; i++) {
            const ts_map *m = &TR_VEC_AT(&maps->v, ts_map, i);
            if (!m->path || m->offset != 0 || !ts_py_is_interpreter_path(m->path)) continue;
            const char *base = strrchr(m->path, '/') + 1;
            if ((pass == 0) != (strncmp(base, "python", 6) == 0)) continue;
            mapped = 1;
            found = find_in(py, m, &version, e);
        }
    }
    int result = TS_PY_OK;
    if (!found) {
        result = mapped ? TS_PY_ERROR : TS_PY_NONE;
        if (mapped)
            tr_errorf(e, TR_E_FORMAT, NULL,
                      "a Python library is mapped but has no _PyRuntime symbol");
    } else if ((version >> 24) != 3 || (version >> 16 & 0xFF) < 11) {
        result = TS_PY_ERROR;
        if (version) format_version(py->version, sizeof py->version, version);
        tr_errorf(e, TR_E_USAGE, NULL, "Python %s is not supported (3.11 or later is needed)",
                  version ? py->version : "older than 3.11");
    } else {
        format_version(py->version, sizeof py->version, version);
        unsigned minor = version >> 16 & 0xFF;
        if (minor == 11) {
            py->o = py311;
        } else if (minor == 12) {
            py->o = py312;
        } else if (minor == 13) {
            if (offsets_313(py, e) != TR_OK) result = TS_PY_ERROR;
        } else {
            tr_errorf(e, TR_E_USAGE, NULL,
                      "Python %s is not supported yet (its debug offsets layout is unknown)",
                      py->version);
            result = TS_PY_ERROR;
        }
        if (result == TS_PY_OK) {
            int rc = check_runtime(py, e);
            if (rc == TR_END)
                result = TS_PY_NOTYET;
            else if (rc != TR_OK)
                result = TS_PY_ERROR;
        }
    }
    if (result != TS_PY_OK) {
        ts_py_free(py);
        return result;
    }
    *out = py;
    return TS_PY_OK;
}

const char *ts_py_version(const ts_py *py)
{
    return py->version;
}

/* ---- sampling ---- */

/* The thread state holding the GIL, or 0. */
static uint64_t gil_holder(ts_py *py, uint64_t interp)
{
    const py_off *o = &py->o;
    if (o->minor == 11) return ts_mem_ptr(py->pid, py->runtime + o->rt_gil_tstate);
    uint64_t base = interp, locked_off = o->in_gil_locked, holder_off = o->in_gil_holder;
    if (o->minor == 12) {
        base = ts_mem_ptr(py->pid, interp + o->in_gil_ptr);
        locked_off = 16;
        holder_off = 8;
    }
    int32_t locked = 0;
    if (!base || ts_mem_read(py->pid, base + locked_off, &locked, sizeof locked) != 0 || !locked)
        return 0;
    return ts_mem_ptr(py->pid, base + holder_off);
}

int ts_py_threads(ts_py *py, tr_vec *threads, tr_error *e)
{
    const py_off *o = &py->o;
    py->gen++;
    threads->len = 0;
    uint64_t interp, ts;
    int rc = ptr(py, py->runtime + o->rt_interp_head, &interp, e);
    if (rc != TR_OK) return rc;
    if (!interp) return tr_errorf(e, TR_E_FORMAT, NULL, "the interpreter is gone (finalizing)");
    if ((rc = ptr(py, interp + o->in_threads_head, &ts, e)) != TR_OK) return rc;
    uint64_t holder = gil_holder(py, interp);
    int unknown = 0;
    unsigned char b[4096 + 8];
    size_t need = o->ts_native_tid + 8;
    for (size_t seen = 0; ts; seen++) {
        if (seen >= PY_MAX_THREADS)
            return tr_errorf(e, TR_E_LIMIT, NULL, "more than %d threads (or a cycle)",
                             PY_MAX_THREADS);
        uint64_t at = ts;
        if ((rc = rd(py, at, b, need, e)) != TR_OK) return rc;
        if (u64_at(b, o->ts_interp) != interp)
            return tr_errorf(e, TR_E_FORMAT, NULL, "torn thread list (a thread just ended)");
        ts = u64_at(b, o->ts_next);
        /* A thread state whose OS thread has not started yet has no stack either. */
        if ((int64_t)u64_at(b, o->ts_native_tid) <= 0) continue;
        ts_pythread *t = tr_vec_push(threads);
        if (!t) return tr_error_nomem(e);
        t->tstate = at;
        t->ident = u64_at(b, o->ts_thread_id);
        t->native_tid = (int64_t)u64_at(b, o->ts_native_tid);
        t->gil = holder && holder == at;
        if (!ts_map64_find(&py->names, t->ident)) unknown = 1;
    }
    if (unknown || !py->names_at || ts_now_mono() - py->names_at > PY_NAME_REFRESH_NS) {
        refresh_names(py, interp);
        /* Remember idents without a name too, or every sample would look again. */
        for (size_t i = 0; i < threads->len; i++) {
            uint64_t id = TR_VEC_AT(threads, ts_pythread, i).ident;
            if (!ts_map64_find(&py->names, id)) ts_map64_put(&py->names, id, 1);
        }
    }
    /* py-spy prints the list reversed: MainThread first. */
    ts_pythread *v = threads->data;
    for (size_t i = 0, j = threads->len; i + 1 < j; i++, j--) {
        ts_pythread tmp = v[i];
        v[i] = v[j - 1];
        v[j - 1] = tmp;
    }
    for (size_t i = 0; i < threads->len; i++) v[i].name = thread_name(py, v[i].ident);
    return TR_OK;
}

/*
** The 72 first bytes of the frame at ADDR.  A thread's frames lie on its
** data stack, each caller below its callee, so one read of the bytes below
** a frame usually holds the next few dozen frames too: a 50-frame stack
** costs a few reads instead of 50.
*/
static int frame_read(ts_py *py, uint64_t addr, unsigned char *b, tr_error *e)
{
    if (py->win_len && addr >= py->win_base && addr + 72 <= py->win_base + py->win_len) {
        memcpy(b, py->win + (addr - py->win_base), 72);
        return TR_OK;
    }
    /* The window ends at the frame; start lower, or at its page when that is unmapped. */
    uint64_t end = addr + 72;
    uint64_t starts[2] = {end > PY_WINDOW ? end - PY_WINDOW : 0, addr & ~(uint64_t)0xFFF};
    for (int i = 0; i < 2; i++) {
        if (!starts[i] || starts[i] > addr) continue;
        if (ts_mem_read(py->pid, starts[i], py->win, (size_t)(end - starts[i])) == 0) {
            py->win_base = starts[i];
            py->win_len = (size_t)(end - starts[i]);
            memcpy(b, py->win + (addr - starts[i]), 72);
            return TR_OK;
        }
    }
    py->win_len = 0;
    return rd(py, addr, b, 72, e);
}

int ts_py_frames(ts_py *py, uint64_t tstate, tr_vec *frames, tr_error *e)
{
    const py_off *o = &py->o;
    uint64_t frame;
    int rc = ptr(py, tstate + o->ts_frame, &frame, e);
    if (rc != TR_OK) return rc;
    if (o->cf_current != NONE && frame && (rc = ptr(py, frame + o->cf_current, &frame, e)) != TR_OK)
        return rc;
    size_t first = frames->len;
    size_t last = SIZE_MAX; /* the last Python frame added */
    unsigned char b[80];
    py->win_len = 0;
    for (int depth = 0; frame; depth++) {
        if (depth >= PY_MAX_FRAMES)
            return tr_errorf(e, TR_E_LIMIT, NULL, "more than %d frames (or a cycle)",
                             PY_MAX_FRAMES);
        if ((rc = frame_read(py, frame, b, e)) != TR_OK) return rc;
        uint64_t code = u64_at(b, o->fr_code), instr = u64_at(b, o->fr_instr);
        unsigned owner = b[o->fr_owner];
        frame = u64_at(b, o->fr_previous);
        if (owner == OWNED_BY_CSTACK) {
            /* A shim: the Python frame before it was entered from C. */
            if (last != SIZE_MAX) TR_VEC_AT(frames, ts_frame, last).entry = 1;
            continue;
        }
        if (!code) return tr_errorf(e, TR_E_FORMAT, NULL, "a frame without code (torn stack)");
        const py_code *c = code_get(py, code, e, &rc);
        if (rc != TR_OK) return rc;
        if (!c) continue; /* not a code object (3.13 executables can be other objects) */
        ts_frame *f = tr_vec_push(frames);
        if (!f) return tr_error_nomem(e);
        f->fn = c->name;
        f->file = c->file;
        f->line = code_line(c, (int64_t)(instr - (code + o->co_code_adaptive)));
        f->native = 0;
        f->entry = o->fr_is_entry != NONE ? b[o->fr_is_entry] != 0 : 0;
        last = frames->len - 1;
    }
    if (o->fr_is_entry == NONE && frames->len > first)
        TR_VEC_AT(frames, ts_frame, frames->len - 1).entry = 1;
    return TR_OK;
}
