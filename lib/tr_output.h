/*
** tr_output.h: the output layer: a target is a file or a directory.
**
** Every output is written to a temporary file beside its target and renamed
** over it on success, so a failed run never leaves half a file or clobbers a
** good one.  Compression follows the target's extension: ".gz" (gzip) or
** ".zst" (zstd).  "-" is standard output (written directly).  A directory
** target is a temporary directory renamed into place the same way, or a
** dataset directory that runs add files to (TR_DIR_ADD), replaced whole.
** ^Temporary names carry the writer's pid and host: opening a target removes
** what runs on this host that are gone left beside it.
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
/* ^Removes the temporary file (or directory tree) and frees O.  ^NULL is a no-op. */
void tr_output_abort(tr_output *o);
/*
** ^Removes the temporary files and directory trees of every output still
** open; only async-signal-safe calls, for a SIGINT/SIGTERM handler.
*/
void tr_output_cleanup_all(void);

/* How tr_output_open_dir treats what is at PATH. */
enum tr_dir_mode {
    TR_DIR_REPLACE = 0, /* write a new directory; commit puts it at PATH */
    TR_DIR_ADD          /* add files to the directory PATH (a dataset of many runs), atomically */
};

/*
** tr_output_open_dir: start writing directory PATH (trailing '/' ignored)
** ^TR_DIR_REPLACE creates an empty temporary directory beside PATH, which
** tr_output_commit renames to PATH and tr_output_abort (or
** tr_output_cleanup_all) removes with all it holds, so a failed run leaves
** neither.  ^PATH must be absent or an empty directory: a non-empty one fails
** with TR_E_USAGE, a file with TR_E_IO.
** ^TR_DIR_ADD creates PATH's parents when missing and a temporary directory
** beside PATH, which must be absent or a directory (a link to one is
** followed).  ^Commit, under a lock beside PATH, hard-links what PATH holds
** and the run did not write into the temporary directory and exchanges the
** two in one rename: PATH is always the whole old directory or the whole new
** one.  ^Abort leaves PATH as it was and no empty directory.  ^Creation
** failures are TR_E_IO naming the directory ("cannot create the directory").
*/
int tr_output_open_dir(tr_output **out, const char *path, int mode, tr_error *e);
/*
** ^The directory a writer puts its files in (the temporary one); NULL when
** O is a file output.  ^tr_output_write on a directory
** output fails with TR_E_USAGE.
*/
const char *tr_output_dir(const tr_output *o);

#endif
