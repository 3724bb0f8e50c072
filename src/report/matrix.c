/*
 * matrix.c - the pairwise win matrix of a run (report.h): for every ordered
 * pair of systems, how often the row system beat, lost to and tied the
 * column system over their decided cases, and its win rate (ties half).
 * Read from the verdicts' outcomes only (no comparison.json).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/report.h"
#include "report_int.h"

struct macc {
    const char **names;
    size_t n;
    size_t *wins, *ties; /* n x n: wins[i * n + j] = i beat j */
    enum arb_status st;
};

static size_t index_of(const struct macc *m, const char *name)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->names[i], name) == 0)
            return i;
    return (size_t)-1;
}

static int on_outcome(void *ctx, const struct arb_verdict_row *v)
{
    struct macc *m = ctx;
    size_t a = index_of(m, v->system_a), b = index_of(m, v->system_b);

    if (a == (size_t)-1 || b == (size_t)-1 || strcmp(v->status, "decided") != 0 || !v->winner)
        return 0;
    if (strcmp(v->winner, "TIE") == 0) {
        m->ties[a * m->n + b]++;
        m->ties[b * m->n + a]++;
    } else if (strcmp(v->winner, v->system_a) == 0) {
        m->wins[a * m->n + b]++;
    } else if (strcmp(v->winner, v->system_b) == 0) {
        m->wins[b * m->n + a]++;
    }
    return 0;
}

/* One row of counts (or of rates, when rates) as a JSON array; NULL on no memory. */
static cJSON *row(const struct macc *m, size_t i, int what)
{
    cJSON *r = cJSON_CreateArray();

    for (size_t j = 0; r && j < m->n; j++) {
        size_t w = m->wins[i * m->n + j], l = m->wins[j * m->n + i], t = m->ties[i * m->n + j];
        cJSON *x;

        if (what == 0)
            x = cJSON_CreateNumber((double)w);
        else if (what == 1)
            x = cJSON_CreateNumber((double)l);
        else if (what == 2)
            x = cJSON_CreateNumber((double)t);
        else if (i == j || w + l + t == 0)
            x = cJSON_CreateNull();
        else
            x = cJSON_CreateNumber(((double)w + 0.5 * (double)t) / (double)(w + l + t));
        if (!x || !cJSON_AddItemToArray(r, x)) {
            cJSON_Delete(x);
            cJSON_Delete(r);
            return NULL;
        }
    }
    return r;
}

double report_matrix_at(const cJSON *m, const char *key, int i, int j)
{
    const cJSON *v =
        cJSON_GetArrayItem(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(m, key), i), j);

    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

enum arb_status arb_report_add_win_matrix(struct arb_store *st, int64_t run, cJSON *report,
                                          struct arb_err *err)
{
    const cJSON *systems = cJSON_GetObjectItemCaseSensitive(report, "systems"), *s;
    static const char *const members[] = {"wins", "losses", "ties", "win_rate"};
    struct macc m;
    cJSON *o, *names;
    enum arb_status rs = ARB_OK;
    size_t i = 0;

    memset(&m, 0, sizeof(m));
    m.n = (size_t)cJSON_GetArraySize(systems);
    m.names = calloc(m.n ? m.n : 1, sizeof(*m.names));
    m.wins = calloc(m.n ? m.n * m.n : 1, sizeof(size_t));
    m.ties = calloc(m.n ? m.n * m.n : 1, sizeof(size_t));
    if (!m.names || !m.wins || !m.ties)
        rs = arb_err_set(err, ARB_ENOMEM, "out of memory");
    cJSON_ArrayForEach(s, systems)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(s, "name");

        if (!rs)
            m.names[i++] = cJSON_IsString(name) ? name->valuestring : "";
    }
    if (!rs)
        rs = arb_store_verdict_outcomes(st, run, on_outcome, &m, err);
    o = rs ? NULL : cJSON_AddObjectToObject(report, "win_matrix");
    names = o ? cJSON_AddArrayToObject(o, "systems") : NULL;
    if (!rs && !names)
        rs = arb_err_set(err, ARB_ENOMEM, "out of memory");
    for (i = 0; !rs && i < m.n; i++)
        if (!cJSON_AddItemToArray(names, cJSON_CreateString(m.names[i])))
            rs = arb_err_set(err, ARB_ENOMEM, "out of memory");
    for (int k = 0; !rs && k < 4; k++) {
        cJSON *rows = cJSON_AddArrayToObject(o, members[k]);

        for (i = 0; rows && i < m.n; i++) {
            cJSON *r = row(&m, i, k);

            if (!r || !cJSON_AddItemToArray(rows, r)) {
                cJSON_Delete(r);
                rows = NULL;
            }
        }
        if (!rows)
            rs = arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    free(m.names);
    free(m.wins);
    free(m.ties);
    return rs;
}
