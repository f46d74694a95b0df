/*
** tr_align.h: one job, one timeline.
**
** Each reader states what it knows of wall-clock time in its tr_input_info
** (origin_wall, origin_unix_ns, clock).  tr_align reads those, says how
** precise each origin is and what it came from, and, when a trace holds
** several inputs, shifts every input's events so all of them sit on one
** timeline: by wall clock where the sources have one, by hand (--align), or
** on a named event (--align-on).  It also gives ranks to inputs whose file
** name says it ("rank3.json") so one rank's stacks, ops and I/O are one
** process group.  It runs after loading and before tr_trace_freeze.
*/
#ifndef TR_ALIGN_H
#define TR_ALIGN_H

#include <stddef.h>
#include <stdint.h>

#include "tr_error.h"
#include "tr_trace.h"

/* How an input was placed on the merged timeline (tr_input_info.placed). */
enum tr_align_how {
    TR_PLACED_AS_IS = 0,  /* alone, or every input on one clock already: times as stated */
    TR_PLACED_WALL,       /* by its wall-clock origin */
    TR_PLACED_MANUAL,     /* --align FILE=OFFSET */
    TR_PLACED_EVENT,      /* --align-on NAME (some or all of its ranks) */
    TR_PLACED_GUESS_ZONE, /* by a wall clock read in a guessed time zone (no --tz) */
    TR_PLACED_GUESS,      /* no clock: its zero put at the timeline's zero */
    TR_PLACED_COUNT
};

/* "as stated", "wall clock", "by hand", "on event", "guessed zone", "guess". */
const char *tr_align_how_name(int how);
/* ^1 when HOW is a guess the user should know about. */
int tr_align_is_guess(int how);

typedef struct tr_align_offset {
    const char *path;  /* an input as given, or its file name */
    int64_t offset_ns; /* where the input's zero goes on the merged timeline */
} tr_align_offset;

typedef struct tr_align_opts {
    const tr_align_offset *offsets; /* --align FILE=OFFSET */
    size_t n_offsets;
    const char *align_on; /* --align-on NAME, or NULL */
    /*
    ** --tz ZONE: the zone of wall-clock times that state none (GT's
    ** "Started:"): "UTC", "+05:30", "-0800", "local" or a zoneinfo name
    ** ("Europe/Berlin").  NULL: this machine's zone, flagged as a guess.
    */
    const char *tz;
    const char *zone_dir; /* where zoneinfo names are read, NULL: /usr/share/zoneinfo */
    tr_diag *diag;        /* warnings (an --align-on name no input has) */
} tr_align_opts;

/*
** tr_align: read every input's clock and put the inputs on one timeline
** METHOD: tr_trace
**
** ^Fills each input's origin_precision_ns and origin_from.  ^A trace of one
** input, given no --align, --align-on or --tz, keeps its times as they are.
** ^With several inputs the timeline's zero is the wall-clock time of the
** earliest event among the inputs with a clock, and each input is shifted
** by its origin's distance from it (offset_ns); ^inputs that all state the
** same origin are left as they are.  ^An input with no clock keeps its zero
** at the timeline's zero and is marked a guess.  ^--align FILE=OFFSET puts
** FILE's zero at OFFSET.  ^--align-on NAME moves each (input, rank) whose
** slices or instants include NAME so that the first of them starts where
** the latest such first one does.  ^Inputs without a rank of their own get
** one from a "rankN" in their path (also rank_N, rank-N, rank.N, rank=N).
** ^Returns TR_E_USAGE when an --align FILE or --tz ZONE names nothing.  It runs
** once on a trace: the shifts it makes are not undone.
*/
int tr_align(tr_trace *t, const tr_align_opts *o, tr_error *e);

/* ^The Unix time (ns) of the merged timeline's zero, INT64_MIN when no input has a clock. */
int64_t tr_timeline_origin(const tr_trace *t);

/*
** tr_process_groups: the process group of every process
** ^Processes of one rank read from two or more inputs form a group (one
** rank's Python stacks, ops and I/O); ^so do processes of two or more inputs
** that name the same host and pid and were seen at overlapping times, or
** less than a second apart (tracerecord's and tracesniff's view of one OS
** process).  GROUP[p] is the lowest process id of P's group, or P itself
** when it is in none.  GROUP holds tr_process_count entries.
*/
void tr_process_groups(const tr_trace *t, uint32_t *group);

/*
** tr_tz_offset_in: the offset of a --tz ZONE
** ^Stores in *EAST_SECS the seconds east of UTC of ZONE at the local time
** LOCAL_SECS (seconds since 1970 as if the local time were UTC) and returns
** 0, or returns -1 for a zone that does not exist.  ^ZONE is "UTC" (or Z,
** GMT), a fixed offset ("+05:30", "-0800", "+09"), "local" or NULL (this
** machine's zone, as mktime sees it) or a zoneinfo name ("Europe/Berlin")
** whose TZif file is read from ZONE_DIR (NULL: /usr/share/zoneinfo), past
** its last transition by its POSIX TZ footer.  ^A name with ".." or a
** leading '/' is no zone.  ^A local time that a change skips gets the
** offset after it; one that it repeats, the later offset.  Nothing here reads
** or sets the environment.
*/
int tr_tz_offset_in(const char *zone, const char *zone_dir, int64_t local_secs, int64_t *east_secs);
/* ^tr_tz_offset_in with zoneinfo names read from /usr/share/zoneinfo. */
int tr_tz_offset(const char *zone, int64_t local_secs, int64_t *east_secs);

/* ^The rank a path names ("rank3", "rank_3", "rank-3", "rank.3", "rank=3"), or -1. */
int32_t tr_rank_from_path(const char *path);

#endif
