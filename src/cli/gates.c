/*
 * gates.c - the CI gates of `arbiter report`: --fail-under METRIC=VALUE and
 * --require-significant, judged for one system, the candidate (--candidate,
 * by default the second system of the suite).  Each gate is recorded in the
 * report ("gates") and every missed one is one line on stderr.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gates.h"

int cli_gate_parse(struct cli_gates *g, const char *spec)
{
    const char *eq = strchr(spec, '=');
    char *end;
    double v;

    if (g->n == CLI_MAX_GATES) {
        cli_error("report", "at most %d --fail-under gates", CLI_MAX_GATES);
        return -1;
    }
    if (!eq || !((eq - spec == 8 && strncmp(spec, "win_rate", 8) == 0) ||
                 (eq - spec == 9 && strncmp(spec, "pass_rate", 9) == 0))) {
        cli_error("report", "--fail-under: expected win_rate=X or pass_rate=X, got '%s'", spec);
        return -1;
    }
    v = strtod(eq + 1, &end);
    if (end == eq + 1 || *end || !(v >= 0 && v <= 1)) {
        cli_error("report", "--fail-under: expected a number from 0 to 1 in '%s'", spec);
        return -1;
    }
    g->metric[g->n] = spec[0] == 'w' ? "win_rate" : "pass_rate";
    g->threshold[g->n++] = v;
    return 0;
}

static const cJSON *find_system(const cJSON *report, const char *name, const char **chosen)
{
    const cJSON *systems = cJSON_GetObjectItemCaseSensitive(report, "systems"), *s;

    if (!name) {
        /* The first system is the baseline; the second, the candidate. */
        s = cJSON_GetArrayItem(systems, 1);
        *chosen = s ? cJSON_GetObjectItemCaseSensitive(s, "name")->valuestring : NULL;
        return s;
    }
    *chosen = name;
    cJSON_ArrayForEach(s, systems)
    {
        if (strcmp(cJSON_GetObjectItemCaseSensitive(s, "name")->valuestring, name) == 0)
            return s;
    }
    return NULL;
}

static void record(cJSON *gates, const char *gate, double value, double threshold, int passed)
{
    cJSON *g = cJSON_CreateObject();

    cJSON_AddItemToArray(gates, g);
    cJSON_AddStringToObject(g, "gate", gate);
    if (isnan(value))
        cJSON_AddNullToObject(g, "value");
    else
        cJSON_AddNumberToObject(g, "value", value);
    cJSON_AddNumberToObject(g, "threshold", threshold);
    cJSON_AddBoolToObject(g, "passed", passed);
}

int cli_gates_apply(const struct cli_gates *g, cJSON *report)
{
    const char *name = NULL;
    const cJSON *cand = find_system(report, g->candidate, &name), *p;
    cJSON *gates;
    int missed = 0;
    size_t i;

    if (!g->n && !g->require_significant)
        return 0;
    if (!cand) {
        cli_error("report",
                  g->candidate ? "--candidate: no system '%s' in this run"
                               : "the gates need a candidate: the run has one system%s",
                  g->candidate ? g->candidate : "");
        return -1;
    }
    gates = cJSON_AddArrayToObject(report, "gates");
    cJSON_AddStringToObject(report, "candidate", name);
    for (i = 0; i < g->n; i++) {
        const cJSON *v =
            g->metric[i][0] == 'w'
                ? cJSON_GetObjectItemCaseSensitive(cand, "win_rate")
                : cJSON_GetObjectItemCaseSensitive(
                      cJSON_GetObjectItemCaseSensitive(cand, "expectations"), "pass_rate");
        double x = cJSON_IsNumber(v) ? v->valuedouble : NAN;
        int ok = !isnan(x) && x >= g->threshold[i];
        char gate[64];

        snprintf(gate, sizeof(gate), "%s>=%g", g->metric[i], g->threshold[i]);
        record(gates, gate, x, g->threshold[i], ok);
        if (!ok) {
            missed++;
            if (isnan(x))
                fprintf(stderr,
                        "arbiter report: gate failed: %s of %s is undefined (nothing "
                        "decided), needs %g\n",
                        g->metric[i], name, g->threshold[i]);
            else
                fprintf(stderr, "arbiter report: gate failed: %s of %s is %.4f, below %g\n",
                        g->metric[i], name, x, g->threshold[i]);
        }
    }
    if (g->require_significant) {
        int any = 0;

        /* Significantly better than every other system it was compared with. */
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(report, "pairs"))
        {
            const char *a = cJSON_GetObjectItemCaseSensitive(p, "a")->valuestring;
            const char *b = cJSON_GetObjectItemCaseSensitive(p, "b")->valuestring;
            double aw = cJSON_GetObjectItemCaseSensitive(p, "a_wins")->valuedouble;
            double bw = cJSON_GetObjectItemCaseSensitive(p, "b_wins")->valuedouble;
            int sig = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "significant"));
            int is_a = strcmp(a, name) == 0;
            int better;

            if (!is_a && strcmp(b, name) != 0)
                continue;
            any = 1;
            better = sig && (is_a ? aw > bw : bw > aw);
            record(gates, is_a ? "significant_vs_b" : "significant_vs_a", NAN, 0.05, better);
            if (!better) {
                missed++;
                fprintf(stderr,
                        "arbiter report: gate failed: %s is not significantly better "
                        "than %s (sign test and paired bootstrap at p < 0.05)\n",
                        name, is_a ? b : a);
            }
        }
        if (!any) {
            missed++;
            fprintf(stderr, "arbiter report: gate failed: no comparison of %s to test\n", name);
        }
    }
    return missed;
}
