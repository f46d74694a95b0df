/* registry.c: the one table of readers, cheap probes first. */
#include "tr_format.h"

extern const tr_reader tr_reader_gt;

const tr_reader *const tr_readers[] = {
    &tr_reader_gt,
    NULL,
};
