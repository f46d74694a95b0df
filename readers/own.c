/*
** own.c: tracecat's own outputs given back as inputs: a Parquet directory
** (its _tracecat.json beside one directory a table) and a SQLite database.
**
** Nothing becomes events: the tables hold the model after the writers' own
** choices (derived columns, the Parquet partitions), and reading them back
** is not done yet.  Without this reader a Parquet directory was a run folder
** whose _tracecat.json probed as an empty Chrome trace (exit 0, nothing
** read) and a database was "unrecognized format".  Its probe is sure of
** both, and open fails with the tool that reads them.
*/
#include "tr_reader.h"

#include <string.h>

/* ---- probe ---- */

static int own_is_sqlite(const tr_peek *pk)
{
    return pk->head && pk->head_len >= 16 && memcmp(pk->head, "SQLite format 3", 16) == 0;
}

static int own_probe(const tr_peek *pk)
{
    if (pk->entries) {
        for (size_t i = 0; i < pk->n_entries; i++)
            if (strcmp(pk->entries[i], "_tracecat.json") == 0) return 100;
        return 0;
    }
    return own_is_sqlite(pk) ? 100 : 0;
}

/* ---- open: the tool that reads it ---- */

static int own_open(void **rd, const tr_read_ctx *c, tr_error *e)
{
    *rd = NULL;
    const char *name = c->dir ? tr_dir_label(c->dir) : tr_input_name(c->in);
    tr_loc loc = {name, 0, 0, 0};
    if (c->dir)
        return tr_errorf(e, TR_E_FORMAT, &loc,
                         "a Parquet directory tracecat wrote: query it with an engine that reads "
                         "Parquet (duckdb: SELECT * FROM 'DIR/slice/*.parquet'); tracecat, "
                         "tracestat and traceviz read the traces it was made from");
    return tr_errorf(e, TR_E_FORMAT, &loc,
                     "a SQLite database: read it with tracesql (tracecat, tracestat and traceviz "
                     "read the traces it was made from)");
}

static int own_next(void *rd, tr_error *e)
{
    (void)rd;
    (void)e;
    return TR_END;
}

static void own_close(void *rd)
{
    (void)rd;
}

const tr_reader tr_reader_own = {
    .abi = TR_READER_ABI,
    .name = "tracecat",
    .description = "tracecat's own Parquet directory or SQLite database: names the tool that "
                   "reads it",
    .extensions = "db,sqlite",
    .dirs = 1,
    .probe = own_probe,
    .open = own_open,
    .next = own_next,
    .close = own_close,
};
