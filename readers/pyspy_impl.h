/*
** pyspy_impl.h: what the files of the py-spy reader family share (not public):
** readers/pyspy.c (probe, dump text, dump sequences), pyspy_frames.c (frame
** text and its cache), pyspy_folded.c (folded stacks) and pyspy_json.c (dump
** --json, speedscope).
*/
#ifndef TR_PYSPY_IMPL_H
#define TR_PYSPY_IMPL_H

#include "tr_reader.h"
#include "tr_mem.h"

#include <stdint.h>

/* What a dump's frame line or a folded frame says, pointing into the text. */
typedef struct tr_pyspy_frame_text {
    const char *fn, *file;
    size_t fn_n, file_n;
    int32_t line;
} tr_pyspy_frame_text;

/*
** Splits "name (file:line)", "name (file)", "name ()" or an opaque "name":
** the location is inside the last " (" .. ")" pair, the line the digits
** after its last ':'.
*/
void tr_pyspy_frame_split(const char *p, size_t n, tr_pyspy_frame_text *f);
/*
** Whether the N bytes at P are a hand edit standing for frames cut out ("...",
** "\u2026", "[...more user code...]", "(...)"): a gap in the stack, not a frame.
*/
int tr_pyspy_is_elision(const char *p, size_t n);
/* Interns the frame the N bytes at P describe; TR_NONE when out of memory. */
uint32_t tr_pyspy_frame_intern(tr_trace *t, const char *p, size_t n);

/*
** A cache from frame text to frame id: a dump repeats a few thousand frame
** lines millions of times, and hashing the line once is cheaper than parsing
** it and interning its three strings.  Each line also remembers the line
** that followed it last time: a frame's caller is nearly always the same,
** and comparing the line with that one is cheaper still than hashing it.
*/
typedef struct tr_pyspy_fcache {
    uint64_t *slots; /* hash << 32 | entry + 1; 0 is empty */
    size_t cap;
    tr_vec entries; /* struct tr_pyspy_fentry */
    tr_arena text;
} tr_pyspy_fcache;

void tr_pyspy_fcache_init(tr_pyspy_fcache *c);
void tr_pyspy_fcache_fini(tr_pyspy_fcache *c);
/*
** The frame id of the N bytes at P, parsing them the first time; TR_NONE on
** OOM.  *PREV is the cache's entry of the line before in the same stack
** (TR_NONE for a stack's first line) and becomes this line's.
*/
uint32_t tr_pyspy_fcache_intern(tr_pyspy_fcache *c, tr_trace *t, const char *p, size_t n,
                                uint32_t *prev);

/* The readers of the shapes other than dump text; the py-spy reader picks one by the head. */
extern const tr_reader tr_reader_folded; /* also --from folded (readers/all.c) */
extern const tr_reader tr_pyspy_json;    /* dump --json, speedscope */

#endif
