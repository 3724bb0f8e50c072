/*
 * cmd_merge.c - `arbiter merge SHARD.db... --into ALL.db`: one run of the shards of a run
 * split with `arbiter run --shard K/N` (merge.h says what must match and what is copied).
 */
#include <stdio.h>

#include <cjson/cJSON.h>

#include "arbiter/merge.h"
#include "cli.h"
#include "parse_options.h"

static const char usage_text[] =
    "usage: arbiter merge SHARD.db... --into ALL.db [--json]\n"
    "\n"
    "Make one run of the shards of a run split with 'arbiter run SUITE --shard K/N'\n"
    "(one database per shard, e.g. one per CI job): the run the unsharded run would\n"
    "have made, with every record of every shard, and the judge cache of every shard\n"
    "database, so a replay or re-judge of the merged run asks nothing again.  Its\n"
    "report is the unsharded run's but for its date (the earliest shard's).\n"
    "\n"
    "Each SHARD.db holds one complete run made with --shard K/N; all of them ran the\n"
    "same suite, seed, systems, input files, judge config, selection (--limit,\n"
    "--cases) and Arbiter version, with the same N, and each K from 1 to N is given\n"
    "exactly once.  Otherwise nothing is written and the message names the files and\n"
    "what differs.  The merge is one transaction: a kill leaves ALL.db as it was.\n"
    "\n"
    "  --into FILE   the database to add the merged run to (created when missing; it may\n"
    "                hold other runs; not one of the shards)\n"
    "  --json        print {\"run\": ID, \"shards\": N, \"db\": FILE}\n"
    "\n"
    "exit: 0 merged, 2 usage or input error (shards that do not belong together, a\n"
    "shard missing, given twice or not complete), 4 database failure\n";

static int merge_cmd(int argc, char **argv)
{
    const char *into = NULL;
    int json = 0, n_pos = 0, code;
    int64_t run = 0;
    struct arb_err err = {{0}};
    enum arb_status rs;
    const struct cli_option options[] = {
        CLI_OPT_NONEMPTY("--into", &into, "a file name"),
        CLI_OPT_BOOL("--json", &json),
        CLI_OPT_END(),
    };

    code = cli_parse_options("merge", usage_text, options, argc, argv, &n_pos);
    if (code != CLI_PARSED)
        return code;
    if (!into) {
        cli_error("merge", "missing --into ALL.db (see 'arbiter merge --help')");
        return EXIT_USAGE;
    }
    if (!n_pos) {
        cli_error("merge", "missing SHARD.db: give the database of every shard");
        return EXIT_USAGE;
    }
    rs = arb_merge_shards(into, (const char *const *)argv, (size_t)n_pos, &run, &err);
    if (rs) {
        cli_error("merge", "%s", err.msg);
        return cli_exit_for(rs);
    }
    if (json) {
        cJSON *o = cJSON_CreateObject();
        char *text = NULL;

        if (o && cJSON_AddNumberToObject(o, "run", (double)run) &&
            cJSON_AddNumberToObject(o, "shards", n_pos) && cJSON_AddStringToObject(o, "db", into))
            text = cJSON_PrintUnformatted(o);
        cJSON_Delete(o);
        if (!text) {
            cli_error("merge", "out of memory (run %lld was merged)", (long long)run);
            return EXIT_ENV;
        }
        puts(text);
        cJSON_free(text);
    } else {
        printf("run %lld: merged %d shards into '%s'\n", (long long)run, n_pos, into);
        printf("report: arbiter report %lld --db %s\n", (long long)run, into);
    }
    return EXIT_PASS;
}

const struct arb_cmd arb_cmd_merge = {
    .name = "merge",
    .summary = "merge the databases of a run's shards (run --shard K/N) into one run",
    .usage = usage_text,
    .run = merge_cmd,
};
