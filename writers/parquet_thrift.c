/*
** parquet_thrift.c: the Thrift compact protocol, write side only, as much of
** it as Parquet's footer and page headers use (i32, i64, bool, binary, lists,
** structs).  Spec: thrift/doc/specs/thrift-compact-protocol.md.
**
** Integers are zigzag varints; a field header is one byte (delta << 4 | type)
** when the id is 1..15 past the previous field's, else the type byte and the
** id as a zigzag varint; a bool field carries its value in the type.
*/
#include "parquet_impl.h"

static void put(tr_thrift *w, const void *p, size_t n)
{
    if (!w->failed && tr_buf_add(w->b, p, n) != 0) w->failed = TR_FATAL;
}

static void put_varint(tr_thrift *w, uint64_t v)
{
    unsigned char tmp[10];
    size_t n = 0;
    while (v >= 0x80) {
        tmp[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    tmp[n++] = (unsigned char)v;
    put(w, tmp, n);
}

static uint64_t zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static void field(tr_thrift *w, int16_t id, int type)
{
    if (w->depth < 0) {
        w->failed = TR_FAIL; /* a field outside any struct */
        return;
    }
    int delta = id - w->last[w->depth];
    if (delta > 0 && delta <= 15) {
        unsigned char c = (unsigned char)(delta << 4 | type);
        put(w, &c, 1);
    } else {
        unsigned char c = (unsigned char)type;
        put(w, &c, 1);
        put_varint(w, zigzag(id));
    }
    w->last[w->depth] = id;
}

static void push(tr_thrift *w)
{
    if (w->depth + 1 >= TR_THRIFT_DEPTH) {
        w->failed = TR_FAIL;
        return;
    }
    w->last[++w->depth] = 0;
}

void tr_thrift_begin(tr_thrift *w, tr_buf *b)
{
    w->b = b;
    w->depth = -1;
    w->failed = 0;
    push(w);
}

void tr_thrift_i32(tr_thrift *w, int16_t id, int32_t v)
{
    field(w, id, TR_THRIFT_I32);
    put_varint(w, zigzag(v));
}

void tr_thrift_i64(tr_thrift *w, int16_t id, int64_t v)
{
    field(w, id, TR_THRIFT_I64);
    put_varint(w, zigzag(v));
}

void tr_thrift_bool(tr_thrift *w, int16_t id, int v)
{
    field(w, id, v ? TR_THRIFT_TRUE : TR_THRIFT_FALSE);
}

void tr_thrift_binary(tr_thrift *w, int16_t id, const void *p, size_t n)
{
    field(w, id, TR_THRIFT_BINARY);
    tr_thrift_elem_binary(w, p, n);
}

void tr_thrift_struct(tr_thrift *w, int16_t id)
{
    field(w, id, TR_THRIFT_STRUCT);
    push(w);
}

void tr_thrift_end(tr_thrift *w)
{
    if (w->depth < 0) {
        w->failed = TR_FAIL;
        return;
    }
    put(w, "", 1); /* STOP */
    w->depth--;
}

void tr_thrift_list(tr_thrift *w, int16_t id, int type, size_t n)
{
    field(w, id, TR_THRIFT_LIST);
    if (n < 15) {
        unsigned char c = (unsigned char)(n << 4 | (size_t)type);
        put(w, &c, 1);
    } else {
        unsigned char c = (unsigned char)(0xf0 | type);
        put(w, &c, 1);
        put_varint(w, n);
    }
}

void tr_thrift_elem_i32(tr_thrift *w, int32_t v)
{
    put_varint(w, zigzag(v));
}

void tr_thrift_elem_binary(tr_thrift *w, const void *p, size_t n)
{
    put_varint(w, n);
    put(w, p, n);
}

void tr_thrift_elem_struct(tr_thrift *w)
{
    push(w);
}

int tr_thrift_status(const tr_thrift *w, tr_error *e)
{
    if (w->failed == TR_FATAL) return tr_error_nomem(e);
    if (w->failed || w->depth != -1)
        return tr_errorf(e, TR_E_USAGE, NULL, "thrift: unbalanced structs");
    return TR_OK;
}
