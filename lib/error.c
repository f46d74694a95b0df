/* error.c: the error object and warnings. */
#include "tr_error.h"

#include <stdio.h>
#include <string.h>

static void error_vset(tr_error *e, int code, int err, const tr_loc *loc, const char *fmt,
                       va_list ap)
{
    e->code = code;
    e->sys_errno = err;
    e->file[0] = '\0';
    e->line = e->col = e->offset = 0;
    if (loc) {
        if (loc->file) snprintf(e->file, sizeof e->file, "%s", loc->file);
        e->line = loc->line;
        e->col = loc->col;
        e->offset = loc->offset;
    }
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
}

int tr_errorf(tr_error *e, int code, const tr_loc *loc, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        error_vset(e, code, 0, loc, fmt, ap);
        va_end(ap);
    }
    return code == TR_E_NOMEM ? TR_FATAL : TR_FAIL;
}

int tr_error_errno(tr_error *e, int err, const tr_loc *loc, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        error_vset(e, TR_E_IO, err, loc, fmt, ap);
        va_end(ap);
    }
    return TR_FAIL;
}

int tr_error_nomem(tr_error *e)
{
    return tr_errorf(e, TR_E_NOMEM, NULL, "out of memory");
}

char *tr_error_format(const tr_error *e, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
#define ERR_APPEND(...)                                                                            \
    do {                                                                                           \
        if (n < size) {                                                                            \
            int w_ = snprintf(buf + n, size - n, __VA_ARGS__);                                     \
            if (w_ > 0) n += (size_t)w_;                                                           \
        }                                                                                          \
    } while (0)
    if (e->file[0]) {
        ERR_APPEND("%s", strcmp(e->file, "-") == 0 ? "<stdin>" : e->file);
        if (e->line) {
            ERR_APPEND(":%llu", (unsigned long long)e->line);
            if (e->col) ERR_APPEND(":%llu", (unsigned long long)e->col);
        } else if (e->offset) {
            ERR_APPEND(": byte %llu", (unsigned long long)(e->offset - 1));
        }
        ERR_APPEND(": ");
    }
    ERR_APPEND("%s", e->msg);
    if (e->sys_errno) ERR_APPEND(": %s", strerror(e->sys_errno));
#undef ERR_APPEND
    return buf;
}

int tr_warnf(tr_diag *d, tr_error *e, const tr_loc *loc, const char *fmt, ...)
{
    tr_error w;
    va_list ap;
    va_start(ap, fmt);
    error_vset(&w, TR_E_FORMAT, 0, loc, fmt, ap);
    va_end(ap);
    if (d && d->strict) {
        if (e) *e = w;
        return TR_FAIL;
    }
    if (d) {
        d->warnings++;
        if (d->fn) d->fn(d->user, &w);
    }
    return TR_WARN;
}
