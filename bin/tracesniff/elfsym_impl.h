/*
** elfsym_impl.h: the symbol tables of an ELF64 file, for finding CPython's runtime
** symbols and naming native instruction pointers.
*/
#ifndef TS_ELFSYM_H
#define TS_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

#include "tr_error.h"

/* e_type of a position-independent file (shared object, PIE). */
#define TS_ET_DYN 3

typedef struct ts_sym {
    uint64_t addr, size;
    const char *name; /* into the file's string tables */
} ts_sym;

typedef struct ts_load {
    uint64_t offset, vaddr, filesz;
} ts_load;

typedef struct ts_elf {
    int type; /* ET_EXEC or ET_DYN */
    ts_load *loads;
    size_t n_loads;
    ts_sym *funcs; /* sorted by addr */
    size_t n_funcs;
    ts_sym *objects; /* data symbols, in table order */
    size_t n_objects;
    char **strtabs; /* the string tables the names point into */
    size_t n_strtabs;
} ts_elf;

/* Reads the symbol tables (.symtab and .dynsym) of PATH.  TR_OK or TR_FAIL. */
int ts_elf_load(ts_elf *elf, const char *path, tr_error *e);
void ts_elf_fini(ts_elf *elf);
/* The value of the data or function symbol NAME; 1 when found. */
int ts_elf_find(const ts_elf *elf, const char *name, uint64_t *value);
/* The function holding link-time address VADDR, or NULL. */
const ts_sym *ts_elf_func_at(const ts_elf *elf, uint64_t vaddr);
/* The link-time address of file offset OFF; 1 when a PT_LOAD holds it. */
int ts_elf_vaddr(const ts_elf *elf, uint64_t off, uint64_t *vaddr);
/* The page-aligned address of the first PT_LOAD (0 when there is none). */
uint64_t ts_elf_base(const ts_elf *elf);

#endif
