/*
 * parse_options.h - the one option parser of the command line (parse_options.c), after git's
 * parse-options.h.  Each command describes its options in a table of struct cli_option rows,
 * built from the CLI_OPT_* macros below and ended by CLI_OPT_END(); cli_parse_options reads
 * argv against it.  The parser prints every usage error itself, naming the command and, for an
 * unknown option or a missing value, pointing at 'arbiter CMD --help'.  What the options mean
 * together (two that exclude each other, a missing positional argument) is the command's to say.
 *
 * Accepted on every command line:
 *   --opt value, --opt=value   a value-taking option: the next argument is its value whatever
 *                              it looks like (so --observed -5 and --db --x are values)
 *   -o value                   a one-letter option (no -ovalue, no bundling)
 *   --                         ends the options: what follows is positional, even "-x"
 *   -                          a positional argument (standard input, where one is meant)
 *   -h, --help                 prints the command's usage on standard output
 * An option given twice keeps the last value, unless its callback says otherwise.
 */
#ifndef ARBITER_CLI_PARSE_OPTIONS_H
#define ARBITER_CLI_PARSE_OPTIONS_H

#include <stddef.h>

enum cli_opt_type {
    CLI_OPT_END = 0, /* ends a table */
    CLI_OPT_SET_INT, /* no value: *(int *)value = defval */
    CLI_OPT_STRING,  /* *(const char **)value = the argument (borrowed from argv) */
    CLI_OPT_CHOICE,  /* a string that must be one of choices[]: *(const char **)value */
    CLI_OPT_WHOLE,   /* decimal digits only, lo to hi, into an unsigned of `precision` bytes */
    CLI_OPT_DOUBLE,  /* a number, within dlo..dhi, into *(double *)value */
    CLI_OPT_CALLBACK /* cb(cmd, opt, arg); arg is NULL for a CLI_OPT_NOARG callback */
};

enum cli_opt_flags {
    CLI_OPT_NONEMPTY = 1 << 0, /* STRING: '' is refused ("expected WHAT, got ''") */
    CLI_OPT_NOARG = 1 << 1,    /* CALLBACK: the option takes no value */
    CLI_OPT_LO_OPEN = 1 << 2,  /* DOUBLE: dlo itself is refused ("above dlo") */
    CLI_OPT_HI_OPEN = 1 << 3   /* DOUBLE: dhi itself is refused ("below dhi") */
};

struct cli_option;

/* A callback's return: 0 taken, -1 refused (it printed the message, naming cmd). */
typedef int cli_opt_cb(const char *cmd, const struct cli_option *opt, const char *arg);

struct cli_option {
    enum cli_opt_type type;
    const char *name; /* as typed: "--db", "-o" */
    void *value;      /* where the value goes (borrowed); a callback's context */
    unsigned flags;   /* enum cli_opt_flags */
    const char *what; /* STRING, DOUBLE: what is expected, for messages ("a file name") */
    int defval;       /* SET_INT */
    size_t precision; /* WHOLE: sizeof the target (unsigned, unsigned long, long long, size_t) */
    unsigned long long lo, hi;  /* WHOLE: the range, both included */
    double dlo, dhi;            /* DOUBLE: the range (CLI_OPT_*_OPEN leave a bound out) */
    const char *const *choices; /* CHOICE: the accepted values, NULL-terminated */
    cli_opt_cb *cb;             /* CALLBACK */
};

/* The type checks: a pointer of the wrong type is a compiler diagnostic. */
#define CLI_OPT_PTR_(T, v) ((void *)(1 ? (v) : (T *)0))

#define CLI_OPT_END()                                                                              \
    {                                                                                              \
        .type = CLI_OPT_END                                                                        \
    }

/* --name: *v = val (an int, e.g. a mode); CLI_OPT_BOOL sets 1. */
#define CLI_OPT_SET_INT(n, v, val)                                                                 \
    {                                                                                              \
        .type = CLI_OPT_SET_INT, .name = (n), .value = CLI_OPT_PTR_(int, v), .defval = (val)       \
    }
#define CLI_OPT_BOOL(n, v) CLI_OPT_SET_INT(n, v, 1)

/* --name VALUE: *v points at VALUE in argv. */
#define CLI_OPT_STRING(n, v)                                                                       \
    {                                                                                              \
        .type = CLI_OPT_STRING, .name = (n), .value = CLI_OPT_PTR_(const char *, v)                \
    }

/* --name VALUE, VALUE not empty: '' is refused as "expected W, got ''". */
#define CLI_OPT_NONEMPTY(n, v, w)                                                                  \
    {                                                                                              \
        .type = CLI_OPT_STRING, .name = (n), .value = CLI_OPT_PTR_(const char *, v),               \
        .flags = CLI_OPT_NONEMPTY, .what = (w)                                                     \
    }

/* --name VALUE, VALUE one of c (a NULL-terminated array of strings); *v points at VALUE. */
#define CLI_OPT_CHOICE(n, v, c)                                                                    \
    {                                                                                              \
        .type = CLI_OPT_CHOICE, .name = (n), .value = CLI_OPT_PTR_(const char *, v),               \
        .choices = (c)                                                                             \
    }

/* --name N, N a whole number from l to h; *v any unsigned type that holds h (size_t, ...). */
#define CLI_OPT_WHOLE(n, v, l, h)                                                                  \
    {                                                                                              \
        .type = CLI_OPT_WHOLE, .name = (n), .value = (void *)(v), .precision = sizeof(*(v)),       \
        .lo = (l), .hi = (h)                                                                       \
    }

/* --name X, X a number within l..h (f: CLI_OPT_LO_OPEN, CLI_OPT_HI_OPEN), w what it is. */
#define CLI_OPT_DOUBLE(n, v, w, l, h, f)                                                           \
    {                                                                                              \
        .type = CLI_OPT_DOUBLE, .name = (n), .value = CLI_OPT_PTR_(double, v), .what = (w),        \
        .dlo = (l), .dhi = (h), .flags = (f)                                                       \
    }

/* --name VALUE: fn(cmd, opt, VALUE), ctx in opt->value. */
#define CLI_OPT_CALLBACK(n, ctx, fn)                                                               \
    {                                                                                              \
        .type = CLI_OPT_CALLBACK, .name = (n), .value = (ctx), .cb = (fn)                          \
    }

/* --name (no value): fn(cmd, opt, NULL). */
#define CLI_OPT_CALLBACK_NOARG(n, ctx, fn)                                                         \
    {                                                                                              \
        .type = CLI_OPT_CALLBACK, .name = (n), .value = (ctx), .cb = (fn), .flags = CLI_OPT_NOARG  \
    }

/* The database option every command that reads or writes one takes (default CLI_DEFAULT_DB). */
#define CLI_OPT_DB(v) CLI_OPT_NONEMPTY("--db", v, "a file name")

/* cli_parse_options returns this when the command goes on. */
#define CLI_PARSED (-1)

/*
 * Parse argv[1..argc-1] of the command cmd (argv[0] is its name; cmd is how messages name it,
 * "calibrate --tune" for example) against opts, a table ended by CLI_OPT_END().  The
 * positional arguments, in order, are moved to argv[0..*n_pos - 1] (argv[*n_pos] is NULL).
 *
 * Returns CLI_PARSED when the command goes on; else the exit code to return at once:
 * EXIT_PASS after printing usage on standard output for -h or --help, EXIT_USAGE after
 * printing why on standard error ("arbiter CMD: unknown option '--x' (see 'arbiter CMD
 * --help')", "--db needs a value ...", "--seed: expected a whole number from 0 to N, got 'x'").
 */
int cli_parse_options(const char *cmd, const char *usage, const struct cli_option *opts, int argc,
                      char **argv, int *n_pos);

#endif
