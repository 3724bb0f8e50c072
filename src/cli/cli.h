/*
 * cli.h - what the command files of src/cli/ share: the command table entry,
 * the documented exit codes, and message helpers.  Only src/cli/ prints,
 * exits, reads argv or the environment.
 */
#ifndef ARBITER_CLI_H
#define ARBITER_CLI_H

#include <stdio.h>

#include "arbiter/status.h"

/* Exit codes, as documented in README.md and DESIGN.md. */
enum {
    EXIT_PASS = 0,       /* success: a run completed, a check passed */
    EXIT_NEGATIVE = 1,   /* a negative outcome asked about: check failed, gate missed */
    EXIT_USAGE = 2,      /* usage or input error */
    EXIT_UNRESOLVED = 3, /* check unresolved (grey band) */
    EXIT_ENV = 4,        /* environment: out of memory, database, judge unreachable */
    EXIT_PENDING = 5     /* judge batches still running (run --no-wait, batch status):
                            continue with run --resume or batch wait */
};

/*
 * The version, from the Makefile's VERSION (-DARBITER_VERSION): `arbiter --version` prints it
 * and every run and calibration records it.  No fallback here, so there is one string.
 */
#ifndef ARBITER_VERSION
#error "ARBITER_VERSION is set by the Makefile (VERSION = ...)"
#endif

/* The database every command reads or writes unless --db FILE names another. */
#define CLI_DEFAULT_DB "arbiter.db"

/*
 * One command: its name, its help, and its function, which receives argv from the command's
 * name on (argv[0] is "run") and parses its options with cli_parse_options (parse_options.h).
 */
struct arb_cmd {
    const char *name;
    const char *summary; /* one line for `arbiter --help` */
    const char *usage;   /* the full --help text */
    int (*run)(int argc, char **argv);
};

/* What a command needs set up before it runs (main.c's table, like git's RUN_SETUP). */
enum arb_cmd_flags {
    ARB_CMD_NEEDS_HTTP = 1 << 0, /* it may ask an HTTP judge: libcurl and OpenSSL initialised */
    ARB_CMD_OWN_HTTP = 1 << 1    /* it may, and sets them up itself (run: while its database
                                    opens); main.c leaves them to it */
};

extern const struct arb_cmd arb_cmd_check;
extern const struct arb_cmd arb_cmd_run;
extern const struct arb_cmd arb_cmd_runs;
extern const struct arb_cmd arb_cmd_merge;
extern const struct arb_cmd arb_cmd_show;
extern const struct arb_cmd arb_cmd_report;
extern const struct arb_cmd arb_cmd_export;
extern const struct arb_cmd arb_cmd_compare;
extern const struct arb_cmd arb_cmd_replay;
extern const struct arb_cmd arb_cmd_calibrate;
extern const struct arb_cmd arb_cmd_migrate;
extern const struct arb_cmd arb_cmd_view;
extern const struct arb_cmd arb_cmd_batch;

/* "arbiter CMD: message" on stderr. */
void cli_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The exit code for a library status: input problems 2, environment 4. */
int cli_exit_for(enum arb_status st);

struct arb_store;

/*
 * Open an existing database read-only; a missing file is a usage error
 * ("no database at ..."), not a new empty database.  Prints the message.
 */
enum arb_status cli_open_for_reading(const char *cmd, const char *db, struct arb_store **st);

/*
 * Read the value v of option opt as a whole number from lo to hi (decimal digits only: no
 * sign, no spaces).  0 and *out set; else prints "arbiter CMD: OPT: expected a whole number
 * from LO to HI, got 'V'" and returns -1 (the caller exits 2).
 */
int cli_whole(const char *cmd, const char *opt, const char *v, unsigned long long lo,
              unsigned long long hi, unsigned long long *out);

/*
 * When standard output is a terminal, make stdout a stream that prints control bytes (ESC, CR,
 * backspace, C1, bytes that are not UTF-8) as visible escapes (tty.c).  1 when it did, 0 when
 * stdout is not a terminal (left as it is), -1 when it could not.  Close stdout at the end.
 */
int cli_tty_guard_stdout(void);

/* fputs(s, f) with control bytes shown as cli_tty_guard_stdout shows them (for standard error). */
void cli_fputs_shown(const char *s, FILE *f);

/* 1 when arg is -h or --help. */
int cli_is_help(const char *arg);

#endif
