/* stacks.c: the model's frames and the prefix tree of stacks they make. */
#include "trace_impl.h"

/* ---- frames and stacks ---- */

static uint32_t frame_hash(const tr_frame *f)
{
    uint64_t h = tr_hash_mix(((uint64_t)f->function << 32) ^ f->file);
    h = tr_hash_mix(h ^ ((uint64_t)f->module << 32) ^ (uint32_t)f->line);
    return (uint32_t)(h ^ (uint64_t)(f->is_native != 0));
}

static int frame_eq(const tr_trace *t, uint32_t row, const void *key)
{
    const tr_frame *a = &TR_VEC_AT(&t->frames, tr_frame, row), *b = key;
    return a->function == b->function && a->file == b->file && a->module == b->module &&
           a->line == b->line && (a->is_native != 0) == (b->is_native != 0);
}

uint32_t tr_frame_intern(tr_trace *t, const tr_frame *f)
{
    if (!appendable(t)) return TR_NONE;
    size_t slot;
    uint32_t hash = frame_hash(f);
    uint32_t row = index_find(t, &t->frame_index, hash, frame_eq, f, &slot);
    if (row != TR_NONE || slot == SIZE_MAX) return row;
    tr_frame *copy = tr_vec_push(&t->frames);
    if (!copy) {
        t->failed = 1;
        return TR_NONE;
    }
    *copy = *f;
    copy->is_native = f->is_native != 0;
    row = (uint32_t)(t->frames.len - 1);
    index_insert(&t->frame_index, slot, hash, row);
    return row;
}

const tr_frame *tr_frame_get(const tr_trace *t, uint32_t id)
{
    return id < t->frames.len ? &TR_VEC_AT(&t->frames, tr_frame, id) : NULL;
}

size_t tr_frame_count(const tr_trace *t)
{
    return t->frames.len;
}

/*
** The index holds only the nodes that are not their parent's next row: a
** node made right after its parent (a path pushed root first makes every
** node below its first so) is found there, beside the parent, without the
** index.  A deep stack's new frames then cost a node each and no slot in a
** big table (a py-spy dump's 2.16 M nodes took 32 MiB of index, its pages
** zeroed and its slots each a cache miss; the nodes it holds now are 7 %).
*/
static uint32_t stack_hash(uint32_t parent, uint32_t frame)
{
    return (uint32_t)tr_hash_mix(((uint64_t)parent << 32) | frame);
}

static int stack_eq(const tr_trace *t, uint32_t row, const void *key)
{
    const stack_node *a = &TR_VEC_AT(&t->stacks, stack_node, row), *b = key;
    return row != 0 && a->parent == b->parent && a->frame == b->frame;
}

uint32_t tr_stack_push(tr_trace *t, uint32_t parent, uint32_t frame)
{
    if (!appendable(t)) return TR_NONE;
    if (parent >= t->stacks.len || frame >= t->frames.len) {
        t->failed = 1;
        return TR_NONE;
    }
    stack_node *node = t->stacks.data;
    size_t next = (size_t)parent + 1;
    if (next < t->stacks.len && node[next].parent == parent && node[next].frame == frame)
        return (uint32_t)next;
    stack_node key = {parent, frame, 0};
    size_t slot;
    uint32_t hash = stack_hash(parent, frame);
    uint32_t row = index_find(t, &t->stack_index, hash, stack_eq, &key, &slot);
    if (row != TR_NONE || slot == SIZE_MAX) return row;
    uint32_t depth = node[parent].depth + 1;
    stack_node *s = tr_vec_push(&t->stacks);
    if (!s) {
        t->failed = 1;
        return TR_NONE;
    }
    s->parent = parent;
    s->frame = frame;
    s->depth = depth;
    row = (uint32_t)(t->stacks.len - 1);
    if (next != row) index_insert(&t->stack_index, slot, hash, row);
    return row;
}

/*
** A node just made has no children, so below it every frame of the path
** makes a new node, each its parent's next row: no lookups, no index.
*/
uint32_t tr_stack_push_path(tr_trace *t, uint32_t parent, const uint32_t *frames, size_t n,
                            uint32_t *stacks)
{
    size_t i = 0;
    while (i < n) {
        size_t had = t->stacks.len;
        parent = tr_stack_push(t, parent, frames[i]);
        if (parent == TR_NONE) return TR_NONE;
        stacks[i++] = parent;
        if (t->stacks.len > had) break;
    }
    if (i == n) return parent;
    size_t left = n - i;
    if (t->stacks.len + left >= TR_NONE ||
        tr_vec_reserve(&t->stacks, t->stacks.len + left) != TR_OK) {
        t->failed = 1;
        return TR_NONE;
    }
    stack_node *node = t->stacks.data;
    uint32_t depth = node[parent].depth, row = (uint32_t)t->stacks.len;
    for (; i < n; i++, row++) {
        if (frames[i] >= t->frames.len) {
            t->failed = 1;
            return TR_NONE;
        }
        node[row] = (stack_node){row - 1, frames[i], ++depth};
        stacks[i] = row;
    }
    t->stacks.len = row;
    return stacks[n - 1];
}

uint32_t tr_stack_parent(const tr_trace *t, uint32_t stack)
{
    return stack < t->stacks.len ? TR_VEC_AT(&t->stacks, stack_node, stack).parent : TR_NONE;
}

uint32_t tr_stack_frame(const tr_trace *t, uint32_t stack)
{
    return stack < t->stacks.len ? TR_VEC_AT(&t->stacks, stack_node, stack).frame : TR_NONE;
}

uint32_t tr_stack_depth(const tr_trace *t, uint32_t stack)
{
    return stack < t->stacks.len ? TR_VEC_AT(&t->stacks, stack_node, stack).depth : 0;
}

/* A likely branch, and a value the compiler cannot see through (GCC and Clang). */
#if defined(__GNUC__)
#define STACK_LIKELY(c) __builtin_expect(!!(c), 1)
#define STACK_OPAQUE(x) __asm__("" : "+r"(x))
#else
#define STACK_LIKELY(c) (c)
#define STACK_OPAQUE(x) (void)(x)
#endif

uint32_t tr_stack_frames(const tr_trace *t, uint32_t stack, uint32_t *frames, uint32_t max)
{
    const stack_node *node = t->stacks.data;
    uint32_t depth = tr_stack_depth(t, stack);
    if (depth > max) return depth;
    for (uint32_t i = depth; i > 0;) {
        frames[--i] = node[stack].frame;
        /*
        ** A path is made root first, each new node right after its parent:
        ** a branch that guesses so lets the next load start before this
        ** one's parent is known (a conditional move would wait for it).
        */
        uint32_t parent = node[stack].parent, guess = stack - 1;
        if (STACK_LIKELY(parent == guess)) {
            STACK_OPAQUE(guess); /* else the compiler sees stack = parent either way */
            stack = guess;
        } else {
            stack = parent;
        }
    }
    return depth;
}

void tr_stack_prefetch(const tr_trace *t, uint32_t stack)
{
    if (stack < t->stacks.len) __builtin_prefetch(&TR_VEC_AT(&t->stacks, stack_node, stack));
}

size_t tr_stack_count(const tr_trace *t)
{
    return t->stacks.len;
}
