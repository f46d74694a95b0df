/*
** tr_input.h: the input layer.
**
** A tr_source is what the user named: a file, a directory, "-" (stdin), a
** compressed file (gzip, zstd, xz, bzip2: detected by content, not name) or an
** archive (tar in any of those compressions, zip).  It yields one tr_input per
** stream inside it: a plain or compressed file is one stream, a directory or
** an archive one per regular file.  An archive member is decompressed by
** content too, but an archive inside an archive is not unpacked.  Readers see
** a tr_input: a buffered, decompressed byte stream with a line reader that
** counts lines.
**
** A tr_dir is a directory or an archive seen as a set of members that a
** reader of whole directories (Recorder) opens in any order, each as a
** tr_input, without anything written to disk.
*/
#ifndef TR_INPUT_H
#define TR_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "tr_error.h"

#define TR_LINE_MAX_DEFAULT ((size_t)1 << 20) /* 1 MiB: longer lines are errors */
#define TR_PEEK_SIZE        4096              /* what probes see of a stream */

typedef struct tr_input tr_input;
typedef struct tr_source tr_source;
typedef struct tr_dir tr_dir;

enum tr_source_kind { TR_SOURCE_STREAM = 0, TR_SOURCE_DIR, TR_SOURCE_ARCHIVE };

/* Progress: called every few MB of input read (compressed bytes). */
typedef void (*tr_progress_fn)(void *user, const char *name, uint64_t done, uint64_t total);

/*
** tr_source_open: open what the user named
** ^PATH "-" is standard input.  ^A directory yields its regular files,
** recursively, in byte order of their relative paths, skipping names that
** start with ".".  ^Fails with TR_E_IO (and errno) when PATH cannot be opened.
*/
int tr_source_open(tr_source **out, const char *path, tr_error *e);
/* ^Like tr_source_open, on N bytes at P that must outlive the source. */
int tr_source_open_memory(tr_source **out, const char *name, const void *p, size_t n, tr_error *e);
int tr_source_kind(const tr_source *s);
const char *tr_source_path(const tr_source *s);
/*
** ^For a directory, the relative paths of its files (what probes of
** whole-directory formats look at); NULL and 0 for other kinds.
*/
const char *const *tr_source_listing(const tr_source *s, size_t *n);
/*
** tr_source_next: the next stream
** ^Sets *IN to the next stream and returns TR_OK, or returns TR_END when there
** is none.  ^The stream belongs to the source and stays valid until the next
** call or tr_source_close.  ^A plain or compressed file yields exactly one.
** ^An archive yields one per regular member, decompressed when compressed (a
** .gz or .zst inside a tar or zip); ^a member that is itself an archive is one
** stream of its (decompressed) archive bytes.  ^A member whose decompression
** fails in its first block fails here, named "archive:member", at byte 0; the
** next call goes on with the next member.
*/
int tr_source_next(tr_source *s, tr_input **in, tr_error *e);
/*
** ^Where the stream tr_source_next yielded last comes from: the ordinal of
** its archive member (as tr_dir_shadowed counts them), with *FILE set to the
** archive's path; -1 for a stream that is a whole file (*FILE names it).
** ^*FILE lasts until the next call on S.
*/
int64_t tr_source_member(const tr_source *s, const char **file);
void tr_source_set_progress(tr_source *s, tr_progress_fn fn, void *user);
/* ^NULL is a no-op. */
void tr_source_close(tr_source *s);

/* ---- a directory view ---- */

/*
** tr_dir_open: PATH as a directory of members
** ^A directory's members are its regular files, as tr_source_open walks
** them; an archive's are its regular members, in archive order, read in one
** pass.  ^The first member opened reads the archive once more, keeping its
** members in memory while they add up to TR_DIR_KEEP bytes; a member past
** that is read again from the archive when opened.  ^A path that is
** neither is TR_E_FORMAT; ^"-" is TR_E_USAGE (standard input cannot be read
** twice).
*/
#define TR_DIR_KEEP ((uint64_t)256 << 20)
int tr_dir_open(tr_dir **out, const char *path, tr_error *e);
/* ^Like tr_dir_open, on an archive of N bytes at P that must outlive the view, named NAME. */
int tr_dir_open_memory(tr_dir **out, const char *name, const void *p, size_t n, tr_error *e);
/* ^Keeps at most BYTES of D's archive in memory instead; before its first member is opened. */
void tr_dir_set_keep(tr_dir *d, uint64_t bytes);
/*
** ^A view of the members of D under the directory PREFIX, named without it;
** ^D must outlive the view.
*/
int tr_dir_open_sub(tr_dir **out, tr_dir *d, const char *prefix, tr_error *e);
/* ^The members' relative paths, in byte order for a directory and archive order for an archive. */
const char *const *tr_dir_names(const tr_dir *d, size_t *n);
/* ^The index of member NAME, or SIZE_MAX. */
size_t tr_dir_find(const tr_dir *d, const char *name);
/* ^The size of member I as stored (before decompression of a compressed member). */
uint64_t tr_dir_size(const tr_dir *d, size_t i);
/* ^How member names are prefixed in stream names and errors: "dir/" or "archive.tgz:dir/". */
const char *tr_dir_label(const tr_dir *d);
/*
** ^Whether the archive member that tr_source_next yields as stream ORDINAL
** (from 0) is replaced by a later member of the same name: an archive with
** a name twice has the last one only, as tar extracts it.
*/
int tr_dir_shadowed(const tr_dir *d, size_t ordinal);
/*
** tr_dir_open_member: member I as a stream
** ^Sets *IN to a stream of member I, decompressed by content (an archive in
** it is not unpacked), named LABEL + NAME; close it with tr_input_close.
** ^Several threads may open members of one D at once.  ^An archive's kept
** member is handed to its stream and freed with it: opened again, it is
** read again from the archive.
*/
int tr_dir_open_member(tr_dir *d, size_t i, tr_input **in, tr_error *e);
/* ^Closes a stream from tr_dir_open_member.  ^NULL is a no-op. */
void tr_input_close(tr_input *in);
/* ^NULL is a no-op. */
void tr_dir_close(tr_dir *d);

/* ---- a stream ---- */

typedef struct tr_line {
    char *p;         /* the line without its "\n" or "\r\n", NUL-terminated */
    size_t len;      /* bytes before the NUL */
    uint64_t no;     /* 1-based line number */
    uint64_t offset; /* byte offset of its first byte in the stream */
} tr_line;

/* ^The name of the stream: the path, or the archive member as "archive:member". */
const char *tr_input_name(const tr_input *in);
/* ^Where warnings about bad bytes go (NUL, invalid UTF-8); may be NULL. */
void tr_input_set_diag(tr_input *in, tr_diag *d);
/* ^Lines longer than MAX bytes are TR_E_LIMIT errors.  ^Default TR_LINE_MAX_DEFAULT. */
void tr_input_set_line_max(tr_input *in, size_t max);

#define TR_EXPAND_MAX_DEFAULT   ((uint64_t)64 << 30) /* 64 GiB */
#define TR_EXPAND_RATIO_DEFAULT 1000u                /* real traces: 15 to 25 */
#define TR_EXPAND_FLOOR         ((uint64_t)64 << 20) /* below 64 MiB no ratio is a bomb */
/*
** tr_input_set_expand_limits: bounds on what compressed input may become
** ^A stream that is decompressed (the file, or its archive member) fails
** with TR_E_LIMIT once its decompressed bytes, or its file's, pass MAX_BYTES,
** or pass both TR_EXPAND_FLOOR and RATIO times the file's bytes read so far.
** ^Defaults TR_EXPAND_MAX_DEFAULT and TR_EXPAND_RATIO_DEFAULT; ^0 keeps a
** bound as it is.  ^Process-wide: set it before any source is read.
*/
void tr_input_set_expand_limits(uint64_t max_bytes, uint64_t ratio);
/*
** tr_input_peek: look at the start of the stream without consuming it
** ^Makes at least WANT bytes available (fewer only at the end of the stream)
** and points *P at the unread bytes, *N their count; ^on failure *P is NULL
** and *N 0.
*/
int tr_input_peek(tr_input *in, const unsigned char **p, size_t *n, size_t want, tr_error *e);
/*
** tr_input_read: ^reads up to CAP bytes into BUF, sets *GOT (0 at the end)
** and returns TR_OK, or fails with the byte offset in E.
*/
int tr_input_read(tr_input *in, void *buf, size_t cap, size_t *got, tr_error *e);
/*
** tr_input_getline: the next line
** ^Returns TR_OK and fills LINE, TR_END at the end, or fails.  ^A last line
** without "\n" is still a line.  ^A "\r" before "\n" is dropped.  ^NUL bytes
** and invalid UTF-8 are replaced by U+FFFD with one warning per line.
** ^LINE stays valid until the next call on IN.
*/
int tr_input_getline(tr_input *in, tr_line *line, tr_error *e);
/*
** tr_input_span: lines to scan in place
** ^Points *P at unread bytes already in memory that hold no NUL and no byte
** >= 0x80, and returns their count (0 when there are none: tr_input_getline
** reads more).  ^A line whose "\n" falls inside them is one tr_input_getline
** would hand out unchanged, and no longer than the line limit.  ^The caller
** takes such lines from the front with tr_input_skip; the rest (a line cut by
** the end of the span, a "\r\n" ending) it leaves to tr_input_getline.
*/
size_t tr_input_span(tr_input *in, const char **p);
/*
** tr_input_span_raw: lines to scan in place, unchecked
** ^As tr_input_span, but the bytes may hold NULs and bytes >= 0x80: the
** caller checks each line it takes (a reader whose line scan reads every
** byte anyway), and leaves one that fails to tr_input_getline, which
** replaces them.  ^From the first call on, reading more no longer checks the
** bytes in a pass of its own (tr_input_span still does, when asked).
*/
size_t tr_input_span_raw(tr_input *in, const char **p);
/* ^Consumes the first N bytes of the span, LINES whole lines (each with its "\n"). */
void tr_input_skip(tr_input *in, size_t n, uint64_t lines);
/*
** ^The stream's length in bytes when it is known before reading (a file
** that is not compressed), else 0.  ^A hint for sizing what is read from it.
*/
uint64_t tr_input_size(const tr_input *in);
/* ^Bytes of the decompressed stream consumed so far. */
uint64_t tr_input_offset(const tr_input *in);
/* ^The location of LINE in IN, for errors and warnings. */
tr_loc tr_input_loc(const tr_input *in, const tr_line *line, uint64_t col);

#endif
