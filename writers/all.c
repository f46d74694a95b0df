/* all.c: the one table of writers, and choosing one by a path's extension. */
#include "tr_writers.h"

#include <string.h>
#include <strings.h>

extern const tr_writer tr_writer_chrome;
extern const tr_writer tr_writer_lines;
extern const tr_writer tr_writer_sqlite;
extern const tr_writer tr_writer_folded;
extern const tr_writer tr_writer_recorder;
extern const tr_writer tr_writer_parquet;

const tr_writer *const tr_writers[] = {
    &tr_writer_chrome,
    &tr_writer_lines,
    &tr_writer_sqlite,
    &tr_writer_folded,
    &tr_writer_recorder,
    &tr_writer_parquet,
    NULL,
};

const tr_writer *tr_writer_find(const char *name)
{
    for (size_t i = 0; tr_writers[i]; i++)
        if (strcmp(tr_writers[i]->name, name) == 0) return tr_writers[i];
    return NULL;
}

/* Does the comma-separated list EXTS hold the N bytes at EXT? */
static int ext_listed(const char *exts, const char *ext, size_t n)
{
    while (*exts) {
        const char *comma = strchr(exts, ',');
        size_t len = comma ? (size_t)(comma - exts) : strlen(exts);
        if (len == n && strncasecmp(exts, ext, n) == 0) return 1;
        if (!comma) break;
        exts = comma + 1;
    }
    return 0;
}

const tr_writer *tr_writer_for_path(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    /* Look through a compression suffix: run.json.gz is JSON. */
    static const char *const squeeze[] = {".gz", ".zst"};
    for (size_t i = 0; i < sizeof squeeze / sizeof *squeeze; i++) {
        size_t sl = strlen(squeeze[i]);
        if (len > sl && strcasecmp(base + len - sl, squeeze[i]) == 0) {
            len -= sl;
            break;
        }
    }
    const char *dot = NULL;
    for (size_t i = 0; i < len; i++)
        if (base[i] == '.') dot = base + i;
    if (!dot) return NULL;
    size_t n = (size_t)(base + len - dot - 1);
    for (size_t i = 0; tr_writers[i]; i++)
        if (ext_listed(tr_writers[i]->extensions, dot + 1, n)) return tr_writers[i];
    return NULL;
}
