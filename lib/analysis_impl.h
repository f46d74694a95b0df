/*
** analysis_impl.h: helpers the lib/analysis*.c files share (not public).
*/
#ifndef TR_ANALYSIS_IMPL_H
#define TR_ANALYSIS_IMPL_H

#include "tr_analysis.h"
#include "tr_map.h"
#include "tr_mem.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* ^Sorts N int64 values ascending (an LSD radix sort: durations are many). */
int tr_an_sort_i64(int64_t *v, size_t n);
/* ^The nearest-rank P-th percentile of N sorted values (N > 0). */
int64_t tr_an_percentile(const int64_t *sorted, size_t n, int p);
/*
** ^Grows the array *P of *N elements of SIZE bytes to at least WANT (the
** dictionaries it is indexed by grow while a stream hands events out),
** the new bytes set to FILL; *N becomes its length.  ^TR_OK or TR_FATAL.
*/
int tr_an_grow(void *p, size_t *n, size_t want, size_t size, int fill);
/* ^strcmp of the texts of two string ids. */
int tr_an_strcmp(const tr_trace *t, tr_str a, tr_str b);
/*
** ^The file each of the N path ids IDS names, into CANON: one id for every
** spelling of one file (lexical normal form; a relative path is the one
** absolute path that ends with it), and into EXCLUDED whether that file is
** under SO's excluded directories (NULL SO: Darshan's).  ^TR_OK or
** TR_FATAL (out of memory).
*/
int tr_an_io_canon(const tr_trace *t, const tr_str *ids, size_t n, const tr_stat_opts *so,
                   tr_str *canon, uint8_t *excluded);
/* ^The end of slice I (ts + dur, a still-open slice ending at ts). */
static inline int64_t tr_an_end(const tr_slices *s, size_t i)
{
    return s->ts[i] + (tr_slice_dur(s, i) > 0 ? tr_slice_dur(s, i) : 0);
}

#endif
