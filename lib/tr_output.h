/*
** tr_output.h: the output layer.
**
** Every output is written to a temporary file beside its target and renamed
** over it on success, so a failed run never leaves half a file or clobbers a
** good one.  Compression follows the target's extension: ".gz" (gzip) or
** ".zst" (zstd).  "-" is standard output (written directly).
*/
#ifndef TR_OUTPUT_H
#define TR_OUTPUT_H

#include <stddef.h>

#include "tr_error.h"

typedef struct tr_output tr_output;

enum tr_compression { TR_COMPRESS_NONE = 0, TR_COMPRESS_GZIP, TR_COMPRESS_ZSTD };

/* ^The compression that PATH's extension asks for. */
int tr_output_compression(const char *path);

/*
** tr_output_open: start writing PATH
** ^Creates a temporary file in PATH's directory; PATH itself is untouched
** until tr_output_commit.  ^Fails with TR_E_IO when the directory is not
** writable.
*/
int tr_output_open(tr_output **out, const char *path, tr_error *e);
int tr_output_write(tr_output *o, const void *p, size_t n, tr_error *e);
/* ^1 when the output is standard output and that is a terminal. */
int tr_output_is_tty(const tr_output *o);
const char *tr_output_path(const tr_output *o);
/*
** ^The temporary file a writer that needs a real file (SQLite) can write to
** itself; NULL for standard output or a compressed target.
*/
const char *tr_output_temp_path(const tr_output *o);
/*
** tr_output_commit: finish
** ^Flushes, syncs and renames the temporary file over PATH.  ^On failure the
** temporary file is removed and PATH is as it was.  ^Frees O in every case.
*/
int tr_output_commit(tr_output *o, tr_error *e);
/* ^Removes the temporary file and frees O.  ^NULL is a no-op. */
void tr_output_abort(tr_output *o);
/*
** ^Removes the temporary files of every output still open; only
** async-signal-safe calls, for a SIGINT/SIGTERM handler.
*/
void tr_output_cleanup_all(void);

#endif
