/*
 * Unit tests for the command line's option parser (src/cli/parse_options.c, compiled in here:
 * the command line is not part of the library).  cli_error is replaced by one that keeps the
 * message, so each test can say exactly what a user would read.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/redirect.h>

#define ARBITER_VERSION "test"
#include "../../src/cli/parse_options.c"

static char said[512];

void cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(said, sizeof(said), "arbiter %s: ", cmd);

    va_start(ap, fmt);
    vsnprintf(said + n, sizeof(said) - (size_t)n, fmt, ap);
    va_end(ap);
}

/* Everything one table can take, and what it took. */
struct got {
    const char *db, *format, *name;
    int json, mode;
    size_t limit;
    unsigned long long seed;
    double cost;
    int calls;
    const char *last;
};

static int count(const char *cmd, const struct cli_option *opt, const char *arg)
{
    struct got *g = opt->value;

    if (arg && strcmp(arg, "refuse") == 0) {
        cli_error(cmd, "%s: refused", opt->name);
        return -1;
    }
    g->calls++;
    g->last = arg;
    return 0;
}

static const char *const formats[] = {"md", "json", "html", NULL};

/* Parse the NULL-terminated words (the command's name first) into g; the parser's return. */
static int parse(struct got *g, char **words, int *n_pos)
{
    const struct cli_option opts[] = {
        CLI_OPT_DB(&g->db),
        CLI_OPT_CHOICE("--format", &g->format, formats),
        CLI_OPT_STRING("-o", &g->name),
        CLI_OPT_BOOL("--json", &g->json),
        CLI_OPT_SET_INT("--quiet", &g->mode, 2),
        CLI_OPT_WHOLE("--limit", &g->limit, 1, 1000),
        CLI_OPT_WHOLE("--seed", &g->seed, 0, 9007199254740991ull),
        CLI_OPT_DOUBLE("--max-cost", &g->cost, "US dollars", 0, 1e9,
                       CLI_OPT_LO_OPEN | CLI_OPT_HI_OPEN),
        CLI_OPT_CALLBACK("--system", g, count),
        CLI_OPT_CALLBACK_NOARG("--tick", g, count),
        CLI_OPT_END(),
    };
    int argc = 0;

    while (words[argc])
        argc++;
    said[0] = '\0';
    return cli_parse_options("run", "usage: arbiter run\n", opts, argc, words, n_pos);
}

Test(parse_options, should_take_a_value_after_a_space_or_an_equals_sign)
{
    struct got g = {0};
    char *w[] = {"run", "--db", "a.db", "--format=json", "-o", "out", "--seed=7", NULL};
    int n = -1;

    cr_assert_eq(parse(&g, w, &n), CLI_PARSED);
    cr_assert_str_eq(g.db, "a.db");
    cr_assert_str_eq(g.format, "json");
    cr_assert_str_eq(g.name, "out");
    cr_assert_eq(g.seed, 7);
    cr_assert_eq(n, 0);
}

Test(parse_options, should_collect_positionals_in_order_around_options)
{
    struct got g = {0};
    char *w[] = {"run", "suite.json", "--json", "-", "--limit", "3", "x", NULL};
    int n = -1;

    cr_assert_eq(parse(&g, w, &n), CLI_PARSED);
    cr_assert_eq(n, 3);
    cr_assert_str_eq(w[0], "suite.json");
    cr_assert_str_eq(w[1], "-");
    cr_assert_str_eq(w[2], "x");
    cr_assert_null(w[3]);
    cr_assert_eq(g.json, 1);
    cr_assert_eq(g.limit, 3);
}

Test(parse_options, should_end_options_at_a_double_dash)
{
    struct got g = {0};
    char *w[] = {"run", "--json", "--", "--db", "-x", NULL};
    int n = -1;

    cr_assert_eq(parse(&g, w, &n), CLI_PARSED);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(w[0], "--db");
    cr_assert_str_eq(w[1], "-x");
    cr_assert_null(g.db);
}

Test(parse_options, should_take_the_next_word_as_a_value_even_when_it_starts_with_a_dash)
{
    struct got g = {0};
    char *w[] = {"run", "-o", "-5", "--db", "--json", NULL};
    int n = -1;

    cr_assert_eq(parse(&g, w, &n), CLI_PARSED);
    cr_assert_str_eq(g.name, "-5");
    cr_assert_str_eq(g.db, "--json");
    cr_assert_eq(g.json, 0);
}

Test(parse_options, should_refuse_an_unknown_option_pointing_at_help)
{
    struct got g = {0};
    char *w[] = {"run", "--jsn", NULL};
    char *w2[] = {"run", "--dbx=a.db", NULL};
    int n;

    cr_assert_eq(parse(&g, w, &n), EXIT_USAGE);
    cr_assert_str_eq(said, "arbiter run: unknown option '--jsn' (see 'arbiter run --help')");
    cr_assert_eq(parse(&g, w2, &n), EXIT_USAGE);
    cr_assert_str_eq(said, "arbiter run: unknown option '--dbx' (see 'arbiter run --help')");
}

Test(parse_options, should_say_a_value_is_missing)
{
    struct got g = {0};
    char *w[] = {"run", "x", "--db", NULL};
    int n;

    cr_assert_eq(parse(&g, w, &n), EXIT_USAGE);
    cr_assert_str_eq(said, "arbiter run: --db needs a value (see 'arbiter run --help')");
}

Test(parse_options, should_refuse_a_value_for_an_option_that_takes_none)
{
    struct got g = {0};
    char *w[] = {"run", "--json=yes", NULL};
    int n;

    cr_assert_eq(parse(&g, w, &n), EXIT_USAGE);
    cr_assert_str_eq(said, "arbiter run: --json takes no value, got '--json=yes' (see 'arbiter "
                           "run --help')");
}

Test(parse_options, should_refuse_an_empty_database_name)
{
    struct got g = {0};
    char *w[] = {"run", "--db=", NULL};
    int n;

    cr_assert_eq(parse(&g, w, &n), EXIT_USAGE);
    cr_assert_str_eq(said, "arbiter run: --db: expected a file name, got ''");
}

Test(parse_options, should_name_the_range_of_a_whole_number)
{
    struct got g = {0};
    char *w[] = {"run", "--limit", "0", NULL};
    char *w2[] = {"run", "--seed", "18446744073709551616", NULL};
    char *w3[] = {"run", "--limit", "+8", NULL};
    int n;

    cr_assert_eq(parse(&g, w, &n), EXIT_USAGE);
    cr_assert_str_eq(said, "arbiter run: --limit: expected a whole number from 1 to 1000, got '0'");
    cr_assert_eq(parse(&g, w2, &n), EXIT_USAGE);
    cr_assert_str_eq(said, "arbiter run: --seed: expected a whole number from 0 to "
                           "9007199254740991, got '18446744073709551616'");
    cr_assert_eq(parse(&g, w3, &n), EXIT_USAGE);
    cr_assert(strstr(said, "got '+8'"));
}

Test(parse_options, should_store_a_whole_number_in_the_target_width)
{
    struct got g = {0};
    char *w[] = {"run", "--limit=1000", "--seed", "9007199254740991", NULL};
    int n;

    cr_assert_eq(parse(&g, w, &n), CLI_PARSED);
    cr_assert_eq(g.limit, 1000);
    cr_assert_eq(g.seed, 9007199254740991ull);
}

Test(parse_options, should_name_the_range_of_a_number_with_open_bounds)
{
    struct got g = {0};
    char *w[] = {"run", "--max-cost", "1e10", NULL};
    char *w2[] = {"run", "--max-cost", "0", NULL};
    char *w3[] = {"run", "--max-cost", "nan", NULL};
    char *w4[] = {"run", "--max-cost", "2.5", NULL};
    int n;

    cr_assert_eq(parse(&g, w, &n), EXIT_USAGE);
    cr_assert_str_eq(said, "arbiter run: --max-cost: expected US dollars, above 0 and below 1e9, "
                           "got '1e10'");
    cr_assert_eq(parse(&g, w2, &n), EXIT_USAGE);
    cr_assert_eq(parse(&g, w3, &n), EXIT_USAGE);
    cr_assert_eq(parse(&g, w4, &n), CLI_PARSED);
    cr_assert_float_eq(g.cost, 2.5, 1e-12);
}

Test(parse_options, should_list_the_choices_of_a_choice)
{
    struct got g = {0};
    char *w[] = {"run", "--format", "pdf", NULL};
    int n;

    cr_assert_eq(parse(&g, w, &n), EXIT_USAGE);
    cr_assert_str_eq(said, "arbiter run: --format: expected md, json or html, got 'pdf'");
}

Test(parse_options, should_call_a_callback_for_each_use)
{
    struct got g = {0};
    char *w[] = {"run", "--system", "a=x", "--tick", "--system=b=y", NULL};
    char *w2[] = {"run", "--system", "refuse", NULL};
    int n;

    cr_assert_eq(parse(&g, w, &n), CLI_PARSED);
    cr_assert_eq(g.calls, 3);
    cr_assert_str_eq(g.last, "b=y");
    cr_assert_eq(parse(&g, w2, &n), EXIT_USAGE);
    cr_assert_str_eq(said, "arbiter run: --system: refused");
}

Test(parse_options, should_set_an_int_to_its_value)
{
    struct got g = {0};
    char *w[] = {"run", "--quiet", NULL};
    int n;

    cr_assert_eq(parse(&g, w, &n), CLI_PARSED);
    cr_assert_eq(g.mode, 2);
}

Test(parse_options, should_print_usage_for_help, .init = cr_redirect_stdout)
{
    struct got g = {0};
    char *w[] = {"run", "x", "-h", "--jsn", NULL};
    int n;

    cr_assert_eq(parse(&g, w, &n), EXIT_PASS);
    fflush(stdout);
    cr_assert_stdout_eq_str("usage: arbiter run\n");
}
