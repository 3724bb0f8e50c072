/*
 * parse_options.c - reading a command's argv against its table of options (parse_options.h),
 * and the whole-number reader the tables and the option callbacks share (cli_whole).  What an
 * option means is the command's; this file only finds it, takes its value and checks the
 * value's form and range, with one wording for each kind of mistake.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "parse_options.h"

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

/* The table's row for name (n bytes of it: the part before '='), or NULL. */
static const struct cli_option *find(const struct cli_option *opts, const char *name, size_t n)
{
    for (; opts->type != CLI_OPT_END; opts++)
        if (strncmp(opts->name, name, n) == 0 && opts->name[n] == '\0')
            return opts;
    return NULL;
}

static int takes_value(const struct cli_option *o)
{
    if (o->type == CLI_OPT_SET_INT)
        return 0;
    return !(o->type == CLI_OPT_CALLBACK && (o->flags & CLI_OPT_NOARG));
}

/* A bound as people write it: 0, -1, 0.5, 1e9 (not %g's 1e+09). */
static void number_text(double x, char *out, size_t size)
{
    char *e, *d;

    snprintf(out, size, "%g", x);
    e = strchr(out, 'e');
    if (!e)
        return;
    d = e + 1;
    if (*d == '+')
        memmove(d, d + 1, strlen(d));
    if (*d == '-')
        d++;
    while (d[0] == '0' && d[1])
        memmove(d, d + 1, strlen(d));
}

/* "from -1 to 1", "above 0 and below 1e9", "above 0 and at most 1", "at least 0 and below 1". */
static void range_text(const struct cli_option *o, char *out, size_t size)
{
    char lo[32], hi[32];
    int lo_open = (o->flags & CLI_OPT_LO_OPEN) != 0, hi_open = (o->flags & CLI_OPT_HI_OPEN) != 0;

    number_text(o->dlo, lo, sizeof(lo));
    number_text(o->dhi, hi, sizeof(hi));
    if (!lo_open && !hi_open)
        snprintf(out, size, " from %s to %s", lo, hi);
    else
        snprintf(out, size, ", %s %s and %s %s", lo_open ? "above" : "at least", lo,
                 hi_open ? "below" : "at most", hi);
}

static int take_double(const char *cmd, const struct cli_option *o, const char *v)
{
    char range[96], *end;
    double x;

    errno = 0;
    x = strtod(v, &end);
    if (v[0] && !*end && !errno && !isnan(x) &&
        ((o->flags & CLI_OPT_LO_OPEN) ? x > o->dlo : x >= o->dlo) &&
        ((o->flags & CLI_OPT_HI_OPEN) ? x < o->dhi : x <= o->dhi)) {
        *(double *)o->value = x;
        return 0;
    }
    range_text(o, range, sizeof(range));
    cli_error(cmd, "%s: expected %s%s, got '%s'", o->name, o->what, range, v);
    return -1;
}

/*
 * Store the value into an unsigned of o->precision bytes (the macro's sizeof: size_t, unsigned
 * long long, unsigned), through memcpy since the table does not know the target's type.
 */
static int take_whole(const char *cmd, const struct cli_option *o, const char *v)
{
    unsigned long long n;

    if (cli_whole(cmd, o->name, v, o->lo, o->hi, &n))
        return -1;
    if (o->precision == sizeof(unsigned long long)) {
        unsigned long long x = n;

        memcpy(o->value, &x, sizeof(x));
    } else if (o->precision == sizeof(unsigned long)) {
        unsigned long x = (unsigned long)n;

        memcpy(o->value, &x, sizeof(x));
    } else if (o->precision == sizeof(unsigned)) {
        unsigned x = (unsigned)n;

        memcpy(o->value, &x, sizeof(x));
    } else {
        cli_error(cmd, "%s: internal error: no whole number of %zu bytes", o->name, o->precision);
        return -1;
    }
    return 0;
}

/* "md, json, html or csv" */
static int take_choice(const char *cmd, const struct cli_option *o, const char *v)
{
    char list[256];
    size_t i, n = 0, used = 0;

    for (i = 0; o->choices[i]; i++) {
        if (strcmp(o->choices[i], v) == 0) {
            *(const char **)o->value = o->choices[i];
            return 0;
        }
    }
    n = i;
    list[0] = '\0';
    for (i = 0; i < n && used < sizeof(list); i++) {
        int k = snprintf(list + used, sizeof(list) - used, "%s%s",
                         i == 0       ? ""
                         : i + 1 == n ? " or "
                                      : ", ",
                         o->choices[i]);

        if (k < 0)
            break;
        used += (size_t)k;
    }
    cli_error(cmd, "%s: expected %s, got '%s'", o->name, list, v);
    return -1;
}

/* Apply option o with its value v (NULL for one that takes none); 0 or -1 (message printed). */
static int take(const char *cmd, const struct cli_option *o, const char *v)
{
    switch (o->type) {
    case CLI_OPT_SET_INT:
        *(int *)o->value = o->defval;
        return 0;
    case CLI_OPT_STRING:
        if ((o->flags & CLI_OPT_NONEMPTY) && !v[0]) {
            cli_error(cmd, "%s: expected %s, got ''", o->name, o->what);
            return -1;
        }
        *(const char **)o->value = v;
        return 0;
    case CLI_OPT_CHOICE:
        return take_choice(cmd, o, v);
    case CLI_OPT_WHOLE:
        return take_whole(cmd, o, v);
    case CLI_OPT_DOUBLE:
        return take_double(cmd, o, v);
    case CLI_OPT_CALLBACK:
        return o->cb(cmd, o, v) ? -1 : 0;
    case CLI_OPT_END:
        break;
    }
    return -1;
}

/* One option argument at argv[*a] (it starts with '-' and is not "-" or "--"). */
static int option(const char *cmd, const struct cli_option *opts, int argc, char **argv, int *a)
{
    const char *arg = argv[*a], *eq = NULL, *v = NULL;
    const struct cli_option *o;
    size_t n;

    if (arg[1] == '-')
        eq = strchr(arg, '=');
    n = eq ? (size_t)(eq - arg) : strlen(arg);
    o = find(opts, arg, n);
    if (!o) {
        cli_error(cmd, "unknown option '%.*s' (see 'arbiter %s --help')", (int)n, arg, cmd);
        return -1;
    }
    if (!takes_value(o)) {
        if (eq) {
            cli_error(cmd, "%s takes no value, got '%s' (see 'arbiter %s --help')", o->name, arg,
                      cmd);
            return -1;
        }
    } else if (eq) {
        v = eq + 1;
    } else if (*a + 1 < argc) {
        v = argv[++*a];
    } else {
        cli_error(cmd, "%s needs a value (see 'arbiter %s --help')", o->name, cmd);
        return -1;
    }
    return take(cmd, o, v);
}

int cli_parse_options(const char *cmd, const char *usage, const struct cli_option *opts, int argc,
                      char **argv, int *n_pos)
{
    int a, n = 0, options = 1;

    for (a = 1; a < argc; a++) {
        const char *arg = argv[a];

        if (!options || arg[0] != '-' || arg[1] == '\0') {
            argv[n++] = argv[a];
        } else if (strcmp(arg, "--") == 0) {
            options = 0;
        } else if (cli_is_help(arg)) {
            fputs(usage, stdout);
            return EXIT_PASS;
        } else if (option(cmd, opts, argc, argv, &a)) {
            return EXIT_USAGE;
        }
    }
    argv[n] = NULL;
    *n_pos = n;
    return CLI_PARSED;
}
