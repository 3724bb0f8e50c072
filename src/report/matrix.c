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

struct matrix_acc {
    const char *const *names;
    size_t n;
    size_t *wins, *ties; /* n x n: wins[i * n + j] = i beat j */
};

static size_t index_of(const struct matrix_acc *m, const char *name)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->names[i], name) == 0)
            return i;
    return (size_t)-1;
}

struct matrix_acc *matrix_acc_new(const char *const *names, size_t n)
{
    struct matrix_acc *m = calloc(1, sizeof(*m));

    if (!m)
        return NULL;
    m->names = names;
    m->n = n;
    m->wins = calloc(n ? n * n : 1, sizeof(size_t));
    m->ties = calloc(n ? n * n : 1, sizeof(size_t));
    if (!m->wins || !m->ties) {
        matrix_acc_free(m);
        return NULL;
    }
    return m;
}

void matrix_acc_free(struct matrix_acc *m)
{
    if (!m)
        return;
    free(m->wins);
    free(m->ties);
    free(m);
}

void matrix_acc_verdict(struct matrix_acc *m, const struct arb_verdict_row *v)
{
    size_t a = index_of(m, v->system_a), b = index_of(m, v->system_b);

    if (a == (size_t)-1 || b == (size_t)-1 || strcmp(v->status, "decided") != 0 || !v->winner)
        return;
    if (strcmp(v->winner, "TIE") == 0) {
        m->ties[a * m->n + b]++;
        m->ties[b * m->n + a]++;
    } else if (strcmp(v->winner, v->system_a) == 0) {
        m->wins[a * m->n + b]++;
    } else if (strcmp(v->winner, v->system_b) == 0) {
        m->wins[b * m->n + a]++;
    }
}

/* One row of counts (or of rates, when rates) as a JSON array; NULL on no memory. */
static cJSON *row(const struct matrix_acc *m, size_t i, int what)
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

enum arb_status matrix_acc_emit(const struct matrix_acc *m, cJSON *report)
{
    static const char *const members[] = {"wins", "losses", "ties", "win_rate"};
    cJSON *o = cJSON_AddObjectToObject(report, "win_matrix");
    cJSON *names = o ? cJSON_AddArrayToObject(o, "systems") : NULL;
    size_t i;

    if (!names)
        return ARB_ENOMEM;
    for (i = 0; i < m->n; i++)
        if (!cJSON_AddItemToArray(names, cJSON_CreateString(m->names[i])))
            return ARB_ENOMEM;
    for (int k = 0; k < 4; k++) {
        cJSON *rows = cJSON_AddArrayToObject(o, members[k]);

        for (i = 0; rows && i < m->n; i++) {
            cJSON *r = row(m, i, k);

            if (!r || !cJSON_AddItemToArray(rows, r)) {
                cJSON_Delete(r);
                rows = NULL;
            }
        }
        if (!rows)
            return ARB_ENOMEM;
    }
    return ARB_OK;
}
