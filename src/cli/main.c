/*
 * main.c - `arbiter COMMAND [options]`: finds the command in the table and
 * runs it.  Each command lives in its own cmd_*.c file.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "arbiter/http.h"
#include "arbiter/store.h"
#include "cli.h"

#ifndef ARBITER_VERSION
#define ARBITER_VERSION "0.1.0"
#endif

static const struct arb_cmd *const commands[] = {
    &arb_cmd_check,  &arb_cmd_run,     &arb_cmd_runs,   &arb_cmd_show,      &arb_cmd_report,
    &arb_cmd_export, &arb_cmd_compare, &arb_cmd_replay, &arb_cmd_calibrate, &arb_cmd_migrate,
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

int cli_whole(const char *cmd, const char *opt, const char *v, unsigned long long lo,
              unsigned long long hi, unsigned long long *out)
{
    unsigned long long n = 0;
    const char *p;

    /* By hand, not strtoull: no sign, no spaces, and no silent saturation past 2^64. */
    for (p = v; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');

        if (n > (ULLONG_MAX - d) / 10)
            break;
        n = n * 10 + d;
    }
    if (!v[0] || *p || n < lo || n > hi) {
        cli_error(cmd, "%s: expected a whole number from %llu to %llu, got '%s'", opt, lo, hi, v);
        return -1;
    }
    *out = n;
    return 0;
}

int cli_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
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
        fprintf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fputs("\n"
          "'arbiter COMMAND --help' describes one command.\n"
          "exit codes: 0 success or pass, 1 negative outcome (check failed, gate missed),\n"
          "            2 usage or input error, 3 check unresolved, 4 environment failure\n",
          out);
}

int main(int argc, char **argv)
{
    size_t i;
    const char *name;
    int guarded;

    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    /*
     * Before SQLite's first use, and for the whole process: no memory statistics.  Counting
     * them takes a global mutex on every allocation, which a run's two connections (its
     * writer thread and its reader) contended for, a fifth of a run's time.  Arbiter never
     * reads them (sqlite3_memory_used and the like).
     */
    (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
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
        for (i = 0; i < N_COMMANDS; i++) {
            if (strcmp(commands[i]->name, name) == 0) {
                fputs(commands[i]->usage, stdout);
                return EXIT_PASS;
            }
        }
    }
    for (i = 0; i < N_COMMANDS; i++) {
        if (strcmp(commands[i]->name, name) == 0) {
            int rc;

            if (arb_http_global_init() != ARB_OK) {
                fprintf(stderr, "arbiter: cannot initialise the HTTP library\n");
                return EXIT_ENV;
            }
            /* Outputs, ids and names are data: on a terminal they must not drive it. */
            guarded = cli_tty_guard_stdout();
            if (guarded < 0) {
                fprintf(stderr, "arbiter: out of memory\n");
                return EXIT_ENV;
            }
            rc = commands[i]->run(argc - 1, argv + 1);
            arb_http_global_cleanup();
            if (guarded == 1 && fclose(stdout) != 0 && rc == EXIT_PASS)
                rc = EXIT_ENV;
            return rc;
        }
    }
    fprintf(stderr, "arbiter: unknown command '%s' (see 'arbiter --help')\n", name);
    return EXIT_USAGE;
}
