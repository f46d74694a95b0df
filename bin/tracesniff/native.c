/* native.c: libunwind-ptrace unwinding and cached ELF symbolization. */
#include "native_impl.h"

#include <libunwind-ptrace.h>
#include <stdio.h>
#include <string.h>

#include "elfsym_impl.h"
#include "map_impl.h"
#include "proc_impl.h"
#include "python_impl.h"

/* Deeper native stacks are cut (py-spy keeps fewer). */
#define NATIVE_MAX_FRAMES 2048

typedef struct module {
    const char *path;
    ts_elf elf;
    int ok; /* the symbol tables were read */
} module;

struct ts_native {
    pid_t pid;
    unw_addr_space_t as;
    ts_maps maps;
    int maps_fresh; /* reread during the current unwind: a miss is not retried */
    ts_map64 syms;  /* looked-up address -> ts_native_sym* */
    ts_map64 by_path;
    tr_vec modules; /* module* */
    tr_arena arena;
};

ts_native *ts_native_new(pid_t pid, tr_error *e)
{
    ts_native *n = tr_calloc(1, sizeof *n);
    if (!n) {
        tr_error_nomem(e);
        return NULL;
    }
    n->pid = pid;
    ts_maps_init(&n->maps);
    ts_map64_init(&n->syms);
    ts_map64_init(&n->by_path);
    tr_vec_init(&n->modules, sizeof(module *));
    tr_arena_init(&n->arena);
    n->as = unw_create_addr_space(&_UPT_accessors, 0);
    if (!n->as) {
        ts_native_free(n);
        tr_errorf(e, TR_E_NOMEM, NULL, "libunwind cannot create an address space");
        return NULL;
    }
    /* Remote unwind info is parsed through ptrace peeks: keep it between samples. */
    unw_set_caching_policy(n->as, UNW_CACHE_PER_THREAD);
    return n;
}

void ts_native_free(ts_native *n)
{
    if (!n) return;
    if (n->as) unw_destroy_addr_space(n->as);
    for (size_t i = 0; i < n->modules.len; i++) {
        module *m = TR_VEC_AT(&n->modules, module *, i);
        if (m->ok) ts_elf_fini(&m->elf);
    }
    tr_vec_fini(&n->modules);
    ts_map64_fini(&n->syms);
    ts_map64_fini(&n->by_path);
    ts_maps_fini(&n->maps);
    tr_arena_fini(&n->arena);
    tr_free(n);
}

int ts_native_unwind(ts_native *n, pid_t tid, tr_vec *ips, tr_error *e)
{
    ips->len = 0;
    n->maps_fresh = 0;
    void *upt = _UPT_create(tid);
    if (!upt) return tr_error_nomem(e);
    unw_cursor_t c;
    int r = unw_init_remote(&c, n->as, upt);
    if (r < 0) {
        _UPT_destroy(upt);
        return tr_errorf(e, TR_E_IO, NULL, "cannot unwind thread %d (libunwind error %d)", (int)tid,
                         r);
    }
    do {
        unw_word_t ip;
        if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || ip == 0) break;
        uint64_t *slot = tr_vec_push(ips);
        if (!slot) {
            _UPT_destroy(upt);
            return tr_error_nomem(e);
        }
        *slot = ip;
    } while (ips->len < NATIVE_MAX_FRAMES && unw_step(&c) > 0);
    _UPT_destroy(upt);
    return TR_OK;
}

/* The module mapped from PATH, its symbols read the first time. */
static module *module_of(ts_native *n, const char *path)
{
    uint64_t h = tr_hash_bytes(path, strlen(path));
    uint64_t *slot = ts_map64_find(&n->by_path, h);
    if (slot) {
        module *m = TR_VEC_AT(&n->modules, module *, *slot);
        if (strcmp(m->path, path) == 0) return m;
    }
    module *m = tr_arena_alloc(&n->arena, sizeof *m);
    module **mp = m ? tr_vec_push(&n->modules) : NULL;
    if (!mp) return NULL;
    memset(m, 0, sizeof *m);
    *mp = m;
    m->path = tr_arena_strndup(&n->arena, path, strlen(path));
    tr_buf p;
    tr_buf_init(&p, 0);
    tr_error e;
    ts_proc_path(&p, n->pid, path);
    m->ok = ts_elf_load(&m->elf, p.p, &e) == TR_OK || ts_elf_load(&m->elf, path, &e) == TR_OK;
    tr_buf_fini(&p);
    if (!slot) ts_map64_put(&n->by_path, h, n->modules.len - 1);
    return m;
}

const ts_native_sym *ts_native_symbol(ts_native *n, uint64_t ip, int caller)
{
    static const ts_native_sym none = {.fn = "?", .file = "?"};
    uint64_t look = caller && ip ? ip - 1 : ip;
    uint64_t *slot = ts_map64_find(&n->syms, look);
    if (slot) return (const ts_native_sym *)(uintptr_t)*slot;
    const ts_map *map = ts_maps_find(&n->maps, look);
    if ((!map || !map->path) && !n->maps_fresh) {
        /* A library loaded since the last read of the maps. */
        n->maps_fresh = 1;
        if (ts_maps_load(&n->maps, n->pid) == 0) map = ts_maps_find(&n->maps, look);
    }
    ts_native_sym *s = tr_arena_alloc(&n->arena, sizeof *s);
    if (!s) return &none;
    memset(s, 0, sizeof *s);
    const ts_sym *sym = NULL;
    s->file = "?";
    if (map && map->path) {
        const char *base = strrchr(map->path, '/');
        s->file = tr_arena_strndup(&n->arena, base + 1, strlen(base + 1));
        s->interp = ts_py_is_interpreter_path(map->path);
        module *m = module_of(n, map->path);
        uint64_t vaddr;
        if (m && m->ok && ts_elf_vaddr(&m->elf, look - map->start + map->offset, &vaddr))
            sym = ts_elf_func_at(&m->elf, vaddr);
    }
    if (sym) {
        s->fn = sym->name;
        s->eval = strcmp(sym->name, "_PyEval_EvalFrameDefault") == 0;
    } else {
        char hex[32];
        snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)ip);
        s->fn = tr_arena_strndup(&n->arena, hex, strlen(hex));
    }
    if (!s->fn || !s->file) return &none;
    ts_map64_put(&n->syms, look, (uint64_t)(uintptr_t)s);
    return s;
}
