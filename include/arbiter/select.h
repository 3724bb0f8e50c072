/*
 * select.h - a selection of a run's cases, for a quick smoke run or a
 * focused report: `--limit N` and `--cases ID,ID|@FILE` on the command line.
 *
 * The selection is the named cases (every case when ids is NULL), in case
 * order, of which at most limit are kept (0: no limit).  Everything is
 * borrowed from the caller.
 */
#ifndef ARBITER_SELECT_H
#define ARBITER_SELECT_H

#include <stddef.h>

struct arb_case_select {
    size_t limit;           /* at most this many cases, the first in case order; 0: all */
    const char *const *ids; /* only these case ids; NULL: every case */
    size_t n_ids;
};

/* 1 when the selection narrows anything (a limit or a list of ids). */
static inline int arb_case_select_active(const struct arb_case_select *s)
{
    return s && (s->limit || s->ids);
}

#endif
