/*
 * main.c - `arbiter COMMAND [options]`: finds the command in the table, sets up what it needs
 * (the table's flags, like git's RUN_SETUP) and runs it.  Each command lives in its own cmd_*.c
 * file and parses its own options (parse_options.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "arbiter/http.h"
#include "arbiter/store.h"
#include "cli.h"

/*
 * Every command, in the order `arbiter --help` lists them, with what it needs: only the
 * commands that may ask an HTTP judge pay for libcurl's and OpenSSL's set-up (loading the TLS
 * configuration and the system's certificates), so `arbiter runs` and `report` start fast;
 * run does it itself, beside opening its database.
 */
static const struct cmd_row {
    const struct arb_cmd *cmd;
    unsigned needs; /* enum arb_cmd_flags */
} commands[] = {
    {&arb_cmd_check, 0},
    {&arb_cmd_run, ARB_CMD_OWN_HTTP},
    {&arb_cmd_runs, 0},
    {&arb_cmd_merge, 0},
    {&arb_cmd_show, 0},
    {&arb_cmd_report, 0},
    {&arb_cmd_export, 0},
    {&arb_cmd_compare, ARB_CMD_NEEDS_HTTP},
    {&arb_cmd_replay, ARB_CMD_NEEDS_HTTP},
    {&arb_cmd_calibrate, ARB_CMD_NEEDS_HTTP},
    {&arb_cmd_migrate, 0},
    {&arb_cmd_view, 0},
    {&arb_cmd_batch, ARB_CMD_NEEDS_HTTP},
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

void cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "arbiter %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_exit_for(enum arb_status st)
{
    switch (st) {
    case ARB_OK:
        return EXIT_PASS;
    case ARB_EIO:
    case ARB_EPARSE:
    case ARB_ESCHEMA:
    case ARB_EUSAGE:
    case ARB_ETOOBIG:
        return EXIT_USAGE;
    case ARB_ENOMEM:
    case ARB_EINTERNAL:
    case ARB_EDB:
    case ARB_EREMOTE:
        return EXIT_ENV;
    }
    return EXIT_ENV;
}

enum arb_status cli_open_for_reading(const char *cmd, const char *db, struct arb_store **st)
{
    struct arb_err err = {{0}};
    enum arb_status rs;

    if (access(db, F_OK) != 0) {
        cli_error(cmd, "no database at '%s' (give --db FILE, or create one with 'arbiter run')",
                  db);
        return ARB_EUSAGE;
    }
    rs = arb_store_open(db, ARB_STORE_READONLY, st, &err);
    if (rs)
        cli_error(cmd, "%s", err.msg);
    return rs;
}

static void usage(FILE *out)
{
    size_t i;

    fputs("usage: arbiter COMMAND [options]\n"
          "\n"
          "Blind A/B comparison of LLM outputs: deterministic comparators first, an LLM judge\n"
          "only for what they leave unresolved, everything recorded.\n"
          "\n"
          "commands:\n",
          out);
    for (i = 0; i < N_COMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].cmd->name, commands[i].cmd->summary);
    fputs("\n"
          "'arbiter COMMAND --help' describes one command.  Options take their value as\n"
          "'--opt VALUE' or '--opt=VALUE', anywhere on the line; '--' ends them.  The\n"
          "database is ./" CLI_DEFAULT_DB " unless --db FILE names another (compare keeps\n"
          "none without it).\n"
          "exit codes: 0 success or pass, 1 negative outcome (check failed, gate missed),\n"
          "            2 usage or input error, 3 check unresolved, 4 environment failure\n",
          out);
}

static const struct cmd_row *find_command(const char *name)
{
    size_t i;

    for (i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].cmd->name, name) == 0)
            return &commands[i];
    return NULL;
}

/* Set up what the command needs, run it, tear down; returns its exit code. */
static int run_command(const struct cmd_row *row, int argc, char **argv)
{
    int rc, guarded;

    if ((row->needs & ARB_CMD_NEEDS_HTTP) && arb_http_global_init() != ARB_OK) {
        fprintf(stderr, "arbiter: cannot initialise the HTTP library\n");
        return EXIT_ENV;
    }
    /* Outputs, ids and names are data: on a terminal they must not drive it. */
    guarded = cli_tty_guard_stdout();
    if (guarded < 0) {
        fprintf(stderr, "arbiter: out of memory\n");
        rc = EXIT_ENV;
    } else {
        rc = row->cmd->run(argc, argv);
    }
    if (row->needs & ARB_CMD_NEEDS_HTTP)
        arb_http_global_cleanup();
    if (guarded == 1 && fclose(stdout) != 0 && rc == EXIT_PASS)
        rc = EXIT_ENV;
    return rc;
}

int main(int argc, char **argv)
{
    const struct cmd_row *row;
    const char *name;

    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (arb_store_global_init() != ARB_OK) {
        fprintf(stderr, "arbiter: cannot initialise the database library\n");
        return EXIT_ENV;
    }
    name = argv[1];
    if (cli_is_help(name)) {
        usage(stdout);
        return EXIT_PASS;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("arbiter %s\n", ARBITER_VERSION);
        return EXIT_PASS;
    }
    if (strcmp(name, "help") == 0) {
        if (argc < 3) {
            usage(stdout);
            return EXIT_PASS;
        }
        name = argv[2];
        row = find_command(name);
        if (row) {
            fputs(row->cmd->usage, stdout);
            return EXIT_PASS;
        }
    }
    row = find_command(name);
    if (row)
        return run_command(row, argc - 1, argv + 1);
    fprintf(stderr, "arbiter: unknown command '%s' (see 'arbiter --help')\n", name);
    return EXIT_USAGE;
}
