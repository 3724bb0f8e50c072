/*
 * case_select.h - the `--limit N` and `--cases ID,ID|@FILE` options of
 * `run`, `report` and `export` (case_select.c), read into the library's
 * struct arb_case_select.
 */
#ifndef ARBITER_CLI_CASE_SELECT_H
#define ARBITER_CLI_CASE_SELECT_H

#include <stddef.h>

#include "arbiter/select.h"

struct cli_case_select {
    struct arb_case_select sel; /* sel.ids points into ids below */
    char **ids;                 /* owned: each id, and the array */
    size_t n_ids, cap_ids;
    const char *file; /* --cases @FILE: FILE (in argv), an input no output may replace */
};

/* The lines of --help that describe the two options. */
#define CLI_CASE_SELECT_HELP                                                                   \
    "  --limit N           only the first N cases (in the suite's order)\n"                     \
    "  --cases ID,ID|@FILE only these cases: ids separated by commas, or @FILE with one id\n"   \
    "                      a line (blank lines ignored); with --limit, the first N of them\n"

/*
 * Consume argv[*a] (and its value) when it is --limit or --cases: 1; not
 * one of them: 0; a bad value (message printed, naming cmd): -1.
 */
int cli_case_select_option(struct cli_case_select *cs, const char *cmd, int argc, char **argv,
                           int *a);

void cli_case_select_release(struct cli_case_select *cs);

#endif
