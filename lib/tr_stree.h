/*
** tr_stree.h: where is every rank? The stack prefix tree of a job (STAT's
** 2D and 3D views) from a frozen trace's stack samples.
**
** Every member (a thread, or one thread per process) contributes its last
** sampled stack, outermost frame first; equal prefixes merge, so the tree
** has one node per distinct call path and its size follows the distinct
** stacks, not the members.  Members are kept in the tree's depth-first
** order, so the members under any node are one run [lo, hi) of that order:
** a node stores two numbers, not a set.  The answer to "which rank is not
** where the others are" is a split: a node whose members go different ways
** (into two or more children, or some stop there while others go deeper).
**
** Frames are told apart by function, file and line (the default), by
** function and file (--ignore-lines: two nodes whose stacks differ by one
** line number merge), or by function alone.
*/
#ifndef TR_STREE_H
#define TR_STREE_H

#include <stddef.h>
#include <stdint.h>

#include "tr_error.h"
#include "tr_mem.h"
#include "tr_rows.h"
#include "tr_trace.h"

enum tr_stree_frames {
    TR_STREE_BY_LINE = 0, /* function, file and line */
    TR_STREE_BY_FILE,     /* function and file */
    TR_STREE_BY_FUNCTION  /* function */
};

typedef struct tr_stree_opts {
    int frames;          /* enum tr_stree_frames */
    uint32_t max_depth;  /* keep the outermost MAX_DEPTH frames; 0 = all */
    int main_thread;     /* one member per process: its main thread */
    int python_only;     /* leave native frames out */
    const char *counted; /* progress rule: fewest entries into this function; NULL = position */
} tr_stree_opts;

/* A member: one thread and the stack of its last sample. */
typedef struct tr_stree_member {
    uint32_t track, process;
    int32_t rank; /* -1 when the source has none */
    int64_t pid, tid;
    uint32_t stack; /* model stack of its last sample (0: empty) */
    uint32_t leaf;  /* the node its path ends at */
    int64_t ts;     /* of its last sample */
    /* The 3D view, over all of its samples: */
    uint32_t samples;    /* how many */
    uint32_t changes;    /* consecutive samples whose paths differ */
    int64_t last_change; /* ts of the last sample that differed from the one before, or INT64_MIN */
    uint32_t entries;    /* samples entering the counted function (opts.counted) */
} tr_stree_member;

typedef struct tr_stree_node {
    uint32_t parent; /* TR_NONE at the root (node 0) */
    uint32_t first_child, next_sibling;
    uint32_t frame;  /* a model frame of the node (the first one seen), TR_NONE at the root */
    uint32_t depth;  /* the root is 0 */
    uint32_t lo, hi; /* members order[lo .. hi) pass through the node */
    uint32_t ends;   /* of them, the ones whose path ends here */
} tr_stree_node;

typedef struct tr_stree {
    tr_stree_opts opts;
    tr_stree_member *members;
    size_t n_members;
    uint32_t *order; /* member indexes in depth-first order of their leaves */
    tr_stree_node *nodes;
    size_t n_nodes;
} tr_stree;

/*
** tr_stree_build: merge the members' last stacks into one tree
** ^Children are ordered by members, most first, ties by frame text, so the
** majority path is the first child at every split.  ^A trace without stack
** samples gives a tree of the root alone and no members.  ^TR_OK, or
** TR_FATAL with E filled when out of memory (OUT is then empty).
*/
int tr_stree_build(const tr_trace *t, const tr_stree_opts *o, tr_stree *out, tr_error *e);
void tr_stree_fini(tr_stree *s);

/*
** The tree as an accumulator (tr_analysis.h's "Events one at a time"):
** per track its last sample's stack and time and its 3D view (changes,
** entries); the members are picked and their paths merged at the end.
** ^tr_stree_build feeds the model's samples through it.
*/
typedef struct tr_stree_acc tr_stree_acc;
int tr_stree_acc_new(const tr_trace *t, const tr_stree_opts *o, tr_stree_acc **out, tr_error *e);
int tr_stree_acc_add(tr_stree_acc *a, const tr_row_event *ev, tr_error *e);
int tr_stree_acc_end(tr_stree_acc *a, tr_stree *out, tr_error *e);
void tr_stree_acc_free(tr_stree_acc *a);

/* ^The members under node N. */
static inline uint32_t tr_stree_count(const tr_stree *s, uint32_t n)
{
    return s->nodes[n].hi - s->nodes[n].lo;
}

/*
** tr_stree_splits: the nodes where members part
** ^Fills *OUT (tr_free it) with every node that has two or more children,
** or members ending there while others go deeper, and returns how many.
** ^The most telling first: the smallest minority (the members off the
** majority's way) first, then the shallower node.
*/
size_t tr_stree_splits(const tr_stree *s, uint32_t **out);

/*
** tr_stree_members_text: the members order[LO .. HI) written compactly
** ^"ranks 0-63 except 17", "rank 5", "pid 544360-544363", with the number of
** threads in parentheses when members are threads of fewer processes.
** ^Appends to B; TR_OK or TR_FATAL.
*/
int tr_stree_members_text(const tr_trace *t, const tr_stree *s, uint32_t lo, uint32_t hi,
                          tr_buf *b);

/* ^The text of node N's frame as the tree groups it: "fn (file:line)", "fn (file)", "fn". */
int tr_stree_frame_text(const tr_trace *t, const tr_stree *s, uint32_t n, tr_buf *b);

/*
** tr_stree_behind: the member furthest behind, and the rule that says so
** ^With opts.counted: the member with the fewest samples entering that
** function (ties: the earliest last change).  ^Otherwise, at the deepest
** split where members are in one function at different lines, the first
** member at the lowest line (an earlier place in the loop); else the first
** member of the smallest way off the majority's path; with no split, the
** first member whose stack never changed over several dumps while another's
** did.
** ^Returns the member's index, or UINT32_MAX when all members are together;
** *RULE is set to a static sentence saying which rule decided.
*/
uint32_t tr_stree_behind(const tr_trace *t, const tr_stree *s, const char **rule);

/* ---- writing the tree ---- */

/*
** ^The tree as indented text: the splits first (each branch with its member
** set and the path it takes until it splits again or ends), then the whole
** tree, then the 3D view when members have more than one sample.
*/
int tr_stree_text(const tr_trace *t, const tr_stree *s, tr_buf *b);
/* ^A JSON object: "members", "nodes" (with parent, frame, count, members text), "splits", "behind".
 */
int tr_stree_json(const tr_trace *t, const tr_stree *s, tr_buf *b);
/* ^A Graphviz digraph: one node per tree node labelled with its frame, count and members. */
int tr_stree_dot(const tr_trace *t, const tr_stree *s, tr_buf *b);

#endif
