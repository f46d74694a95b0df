/* elfsym.c: ELF64 symbol tables read with pread, no libelf. */
#include "elfsym_impl.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tr_mem.h"

/* A symbol table bigger than this is not one we trust (torn or hostile file). */
#define ELF_MAX_SECTION (512u << 20)

static int elf_pread(int fd, void *buf, size_t n, uint64_t off)
{
    size_t done = 0;
    while (done < n) {
        ssize_t got = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        done += (size_t)got;
    }
    return 0;
}

/* Reads section SH whole into a new buffer (with a NUL after it). */
static char *elf_section(int fd, const Elf64_Shdr *sh)
{
    if (sh->sh_size > ELF_MAX_SECTION || sh->sh_type == SHT_NOBITS) return NULL;
    char *p = tr_malloc(sh->sh_size + 1);
    if (!p) return NULL;
    if (elf_pread(fd, p, sh->sh_size, sh->sh_offset) != 0) {
        tr_free(p);
        return NULL;
    }
    p[sh->sh_size] = '\0';
    return p;
}

static int by_addr(const void *pa, const void *pb)
{
    const ts_sym *a = pa, *b = pb;
    if (a->addr != b->addr) return a->addr < b->addr ? -1 : 1;
    /* Of aliases, the sized one first, so lookups see a usable extent. */
    return (a->size < b->size) - (a->size > b->size);
}

/* Appends the defined symbols of table SYMTAB (string table STRTAB). */
static int elf_add_symbols(ts_elf *elf, int fd, const Elf64_Shdr *symtab, const Elf64_Shdr *strsh,
                           size_t *cap_f, size_t *cap_o)
{
    char *strs = elf_section(fd, strsh);
    if (!strs) return -1;
    char **st = tr_realloc(elf->strtabs, (elf->n_strtabs + 1) * sizeof *st);
    if (!st) {
        tr_free(strs);
        return -1;
    }
    elf->strtabs = st;
    elf->strtabs[elf->n_strtabs++] = strs;
    char *raw = elf_section(fd, symtab);
    if (!raw) return -1;
    size_t n = symtab->sh_size / sizeof(Elf64_Sym);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        Elf64_Sym s;
        memcpy(&s, raw + i * sizeof s, sizeof s);
        int type = ELF64_ST_TYPE(s.st_info);
        if (s.st_shndx == SHN_UNDEF || s.st_value == 0 || s.st_name >= strsh->sh_size) continue;
        if (type != STT_FUNC && type != STT_OBJECT) continue;
        ts_sym **arr = type == STT_FUNC ? &elf->funcs : &elf->objects;
        size_t *len = type == STT_FUNC ? &elf->n_funcs : &elf->n_objects;
        size_t *cap = type == STT_FUNC ? cap_f : cap_o;
        if (*len == *cap) {
            size_t nc = *cap ? *cap * 2 : 256;
            ts_sym *g = tr_realloc(*arr, nc * sizeof *g);
            if (!g) {
                rc = -1;
                break;
            }
            *arr = g;
            *cap = nc;
        }
        (*arr)[(*len)++] =
            (ts_sym){.addr = s.st_value, .size = s.st_size, .name = strs + s.st_name};
    }
    tr_free(raw);
    return rc;
}

int ts_elf_load(ts_elf *elf, const char *path, tr_error *e)
{
    memset(elf, 0, sizeof *elf);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return tr_error_errno(e, errno, NULL, "cannot open %s", path);
    Elf64_Ehdr eh;
    Elf64_Shdr *sh = NULL;
    Elf64_Phdr *ph = NULL;
    int rc = TR_OK;
    if (elf_pread(fd, &eh, sizeof eh, 0) != 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
        eh.e_phentsize != sizeof(Elf64_Phdr)) {
        rc = tr_errorf(e, TR_E_FORMAT, NULL, "%s: not an ELF64 file", path);
        goto out;
    }
    elf->type = eh.e_type;
    ph = tr_malloc((size_t)eh.e_phnum * sizeof *ph + 1);
    sh = tr_malloc((size_t)eh.e_shnum * sizeof *sh + 1);
    elf->loads = tr_malloc((size_t)eh.e_phnum * sizeof *elf->loads + 1);
    if (!ph || !sh || !elf->loads) {
        rc = tr_error_nomem(e);
        goto out;
    }
    if (elf_pread(fd, ph, (size_t)eh.e_phnum * sizeof *ph, eh.e_phoff) != 0 ||
        elf_pread(fd, sh, (size_t)eh.e_shnum * sizeof *sh, eh.e_shoff) != 0) {
        rc = tr_errorf(e, TR_E_FORMAT, NULL, "%s: truncated ELF headers", path);
        goto out;
    }
    for (size_t i = 0; i < eh.e_phnum; i++)
        if (ph[i].p_type == PT_LOAD)
            elf->loads[elf->n_loads++] = (ts_load){
                .offset = ph[i].p_offset, .vaddr = ph[i].p_vaddr, .filesz = ph[i].p_filesz};
    size_t cap_f = 0, cap_o = 0;
    for (size_t i = 0; i < eh.e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM) continue;
        if (sh[i].sh_link >= eh.e_shnum) continue;
        if (elf_add_symbols(elf, fd, &sh[i], &sh[sh[i].sh_link], &cap_f, &cap_o) != 0) {
            rc = tr_errorf(e, TR_E_FORMAT, NULL, "%s: cannot read its symbol table", path);
            goto out;
        }
    }
    if (elf->n_funcs) tr_qsort(elf->funcs, elf->n_funcs, sizeof *elf->funcs, by_addr);
out:
    tr_free(ph);
    tr_free(sh);
    close(fd);
    if (rc != TR_OK) ts_elf_fini(elf);
    return rc;
}

void ts_elf_fini(ts_elf *elf)
{
    tr_free(elf->loads);
    tr_free(elf->funcs);
    tr_free(elf->objects);
    for (size_t i = 0; i < elf->n_strtabs; i++) tr_free(elf->strtabs[i]);
    tr_free(elf->strtabs);
    memset(elf, 0, sizeof *elf);
}

int ts_elf_find(const ts_elf *elf, const char *name, uint64_t *value)
{
    for (size_t i = 0; i < elf->n_objects; i++)
        if (strcmp(elf->objects[i].name, name) == 0) {
            *value = elf->objects[i].addr;
            return 1;
        }
    for (size_t i = 0; i < elf->n_funcs; i++)
        if (strcmp(elf->funcs[i].name, name) == 0) {
            *value = elf->funcs[i].addr;
            return 1;
        }
    return 0;
}

/* Without a size, a symbol further than this from the address is not its function. */
#define ELF_UNSIZED_REACH 0x10000

const ts_sym *ts_elf_func_at(const ts_elf *elf, uint64_t vaddr)
{
    size_t lo = 0, hi = elf->n_funcs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (elf->funcs[mid].addr <= vaddr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return NULL;
    /* The first of the aliases at that address is the sized one. */
    size_t i = lo - 1;
    while (i > 0 && elf->funcs[i - 1].addr == elf->funcs[i].addr) i--;
    const ts_sym *s = &elf->funcs[i];
    if (s->size ? vaddr - s->addr >= s->size : vaddr - s->addr >= ELF_UNSIZED_REACH) return NULL;
    return s;
}

int ts_elf_vaddr(const ts_elf *elf, uint64_t off, uint64_t *vaddr)
{
    for (size_t i = 0; i < elf->n_loads; i++) {
        const ts_load *l = &elf->loads[i];
        if (off >= l->offset && off < l->offset + l->filesz) {
            *vaddr = off - l->offset + l->vaddr;
            return 1;
        }
    }
    return 0;
}

uint64_t ts_elf_base(const ts_elf *elf)
{
    return elf->n_loads ? elf->loads[0].vaddr & ~(uint64_t)0xfff : 0;
}
