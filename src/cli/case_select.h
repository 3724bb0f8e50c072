/*
 * case_select.h - the `--limit N` and `--cases ID,ID|@FILE` options of
 * `run`, `report` and `export` (case_select.c), read into the library's
 * struct arb_case_select.
 */
#ifndef ARBITER_CLI_CASE_SELECT_H
#define ARBITER_CLI_CASE_SELECT_H

#include <stddef.h>

#include "arbiter/select.h"
#include "parse_options.h"

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

/* The two options as rows of a command's option table (parse_options.h). */
#define CLI_CASE_SELECT_OPTIONS(cs)                                                                \
    CLI_OPT_WHOLE("--limit", &(cs)->sel.limit, 1, 1000000000),                                     \
        CLI_OPT_CALLBACK("--cases", (cs), cli_case_select_cases)

/*
 * The --cases callback (opt->value is the struct cli_case_select): the ids, split at commas,
 * or read from @FILE one a line.  0, or -1 with the message printed (naming cmd): an empty id,
 * an unreadable or empty file, --cases given twice.
 */
int cli_case_select_cases(const char *cmd, const struct cli_option *opt, const char *v);

void cli_case_select_release(struct cli_case_select *cs);

#endif
