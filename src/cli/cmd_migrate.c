/*
 * cmd_migrate.c - `arbiter migrate`: bring a database to this build's schema.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "arbiter/store.h"
#include "cli.h"
#include "parse_options.h"

static const char usage_text[] =
    "usage: arbiter migrate [--db FILE]\n"
    "\n"
    "Bring a database written by an older Arbiter (default ./" CLI_DEFAULT_DB ") to this build's\n"
    "schema, in place, one transaction per step, keeping every record. Readers (report,\n"
    "show, runs, export, replay) refuse an older file until then; a command that writes\n"
    "to it (run) migrates it too. A database already current is left as it is.\n"
    "\n"
    "exit: 0 migrated or already current, 2 usage error or an unknown schema, 4 database\n"
    "failure (not an Arbiter database, read-only file, locked)\n";

static int migrate_cmd(int argc, char **argv)
{
    const char *db = CLI_DEFAULT_DB;
    struct arb_store *st = NULL;
    struct arb_err err = {{0}};
    enum arb_status rs;
    int n_pos, code;
    const struct cli_option options[] = {
        CLI_OPT_DB(&db),
        CLI_OPT_END(),
    };

    code = cli_parse_options("migrate", usage_text, options, argc, argv, &n_pos);
    if (code != CLI_PARSED)
        return code;
    if (n_pos) {
        cli_error("migrate", "unexpected argument '%s' (see 'arbiter migrate --help')", argv[0]);
        return EXIT_USAGE;
    }
    if (access(db, F_OK) != 0) {
        cli_error("migrate", "no database at '%s' (give --db FILE)", db);
        return EXIT_USAGE;
    }
    /* Current already when a reader takes it; else open it for writing, which migrates. */
    rs = arb_store_open(db, ARB_STORE_READONLY, &st, &err);
    if (!rs) {
        arb_store_close(st);
        printf("%s: already at schema version %d\n", db, arb_store_latest_schema());
        return EXIT_PASS;
    }
    if (rs != ARB_ESCHEMA || !strstr(err.msg, "needs migrating")) {
        cli_error("migrate", "%s", err.msg);
        return cli_exit_for(rs);
    }
    memset(&err, 0, sizeof(err));
    rs = arb_store_open(db, 0, &st, &err);
    if (rs) {
        cli_error("migrate", "%s", err.msg);
        return cli_exit_for(rs);
    }
    arb_store_close(st);
    printf("%s: migrated to schema version %d\n", db, arb_store_latest_schema());
    return EXIT_PASS;
}

const struct arb_cmd arb_cmd_migrate = {
    .name = "migrate",
    .summary = "bring a database to this build's schema",
    .usage = usage_text,
    .run = migrate_cmd,
};
