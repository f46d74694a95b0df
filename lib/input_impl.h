/*
** input_impl.h: what lib/source.c, lib/input.c and lib/dir.c hand each
** other.  Not part of the API: only those files include it.
*/
#ifndef TR_INPUT_IMPL_H
#define TR_INPUT_IMPL_H

#include <stdint.h>

#include "tr_input.h"

struct archive;

/* Progress of one source, shared by the streams it yields. */
typedef struct tr_progress_state {
    tr_progress_fn fn; /* NULL: no reports */
    void *user;
    uint64_t base;        /* raw bytes of the files of a directory finished before this one */
    uint64_t total;       /* raw size of the whole source, 0 = unknown */
    uint64_t last;        /* done at the last report */
    struct archive *file; /* the reader of the current file: its raw bytes are "done" */
} tr_progress_state;

/* A stream object with its buffers; PROG outlives it.  NULL when out of memory. */
tr_input *tr_input_new(tr_progress_state *prog);
/*
** Points IN at the data of A's current entry (A NULL: an empty stream) named
** NAME, forgetting the previous stream.  Keeps the buffers.  A reads format
** raw, so its blocks come in order without holes.
*/
int tr_input_reset(tr_input *in, struct archive *a, const char *name, tr_error *e);
void tr_input_free(tr_input *in);
/* Points IN at the N bytes at P (which outlive the stream) named NAME, as they are. */
int tr_input_reset_memory(tr_input *in, const void *p, size_t n, const char *name, tr_error *e);
/* The length of IN's stream, known before reading it (tr_input_size); after a reset. */
void tr_input_set_size(tr_input *in, uint64_t size);
/*
** After a reset, reads the stream from the regular file FD itself, from its
** byte 0, rather than through libarchive: for a file that is not compressed.
** Returns 1 when it does, 0 when FD is not a regular file.  FD stays open as
** long as the stream.
*/
int tr_input_direct(tr_input *in, int fd);
/* tr_input_close(IN) closes OWNER, the source IN belongs to. */
void tr_input_set_owner(tr_input *in, tr_source *owner);
/* IN frees P (tr_malloc'd) when freed: the bytes of a memory stream handed over. */
void tr_input_own(tr_input *in, void *p);

/* Like tr_source_open, but a file is one stream: an archive in it is not unpacked. */
int tr_source_open_flat(tr_source **out, const char *path, tr_error *e);
/* The stored size of the stream tr_source_next yielded last, 0 when unknown. */
uint64_t tr_source_stream_size(const tr_source *s);
/* The size of the I-th file of tr_source_listing (a directory). */
uint64_t tr_source_file_size(const tr_source *s, size_t i);

/* Fills E from A's error at LOC: TR_E_IO when the OS said no, else TR_E_FORMAT. */
int tr_archive_error(tr_error *e, struct archive *a, const tr_loc *loc);

#endif
