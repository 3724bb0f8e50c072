/*
 * label_opts.c - the --annotator option and a run's labels as JSONL, for `export --labels`
 * and `calibrate --labels-from-db` (label_opts.h).
 */
#include <stdio.h>
#include <string.h>

#include "arbiter/labels.h"
#include "cli.h"
#include "label_opts.h"

int cli_annotator_option(const char *cmd, const struct cli_option *opt, const char *arg)
{
    struct cli_annotators *a = opt->value;

    if (!arg[0]) {
        cli_error(cmd, "--annotator: expected an annotator's name, got ''");
        return -1;
    }
    if (a->n == ARB_CALIB_MAX_ANNOTATORS) {
        cli_error(cmd, "at most %d --annotator options", ARB_CALIB_MAX_ANNOTATORS);
        return -1;
    }
    a->name[a->n++] = arg;
    return 0;
}

int cli_labels_text(const char *cmd, struct arb_store *st, int64_t run,
                    const struct cli_annotators *a, struct arb_buf *out)
{
    struct arb_err err = {{0}};
    enum arb_status rs = arb_labels_jsonl(st, run, a->n ? a->name : NULL, a->n, out, &err);

    if (rs) {
        cli_error(cmd, "%s", err.msg[0] ? err.msg : arb_strerror(rs));
        return cli_exit_for(rs);
    }
    return EXIT_PASS;
}

void cli_labels_none(int64_t run, const struct cli_annotators *a, char *why, size_t n)
{
    size_t at = (size_t)snprintf(why, n, "run %lld has no labels", (long long)run);

    for (size_t i = 0; i < a->n && at < n; i++)
        at += (size_t)snprintf(why + at, n - at, "%s'%s'", i == 0 ? " by " : " or ", a->name[i]);
}
