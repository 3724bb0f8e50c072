/*
 * view_oracle.h - what cJSON makes of a comparison.json, read the way a
 * report used to read its tree (cJSON_GetObjectItemCaseSensitive: the first
 * of repeated keys), against cmp_view_read (src/report/view.c).  Shared by
 * the unit test (tests/unit/test_report_view.c) and the fuzz target
 * (tests/fuzz/fuzz_view.c).  Header-only: static functions.
 */
#ifndef ARBITER_TESTS_VIEW_ORACLE_H
#define ARBITER_TESTS_VIEW_ORACLE_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../../src/report/report_int.h"

/* 1 when the view of one side agrees with cJSON's tree; else a reason in why. */
static int view_side_agrees(const cJSON *root, const struct cmp_side *vs, const char *side,
                            char *why, size_t n)
{
    static const char *const dims[2] = {"content", "structure"};
    static const char *const scores[3] = {"content_score", "structure_score", "overall_score"};
    const cJSON *rub =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "rubric"), side);
    const cJSON *det = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(root, "expectation_results"), side),
        "details");
    const cJSON *c;
    size_t i;

    for (int d = 0; d < 2; d++) {
        const cJSON *dim = cJSON_GetObjectItemCaseSensitive(rub, dims[d]);

        i = 0;
        if (cJSON_IsObject(dim)) {
            cJSON_ArrayForEach(c, dim)
            {
                const struct cmp_crit *k = i < vs->n_crit[d] ? &vs->crit[d][i] : NULL;

                if (!k || strcmp(k->name, c->string) != 0 || k->is_number != cJSON_IsNumber(c) ||
                    (cJSON_IsNumber(c) && k->value != c->valuedouble)) {
                    snprintf(why, n, "side %s, %s, criterion %zu", side, dims[d], i);
                    return 0;
                }
                i++;
            }
        }
        if (i != vs->n_crit[d]) {
            snprintf(why, n, "side %s, %s: %zu criteria, cJSON %zu", side, dims[d], vs->n_crit[d],
                     i);
            return 0;
        }
    }
    for (int k = 0; k < 3; k++) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(rub, scores[k]);

        if (vs->score_is_number[k] != cJSON_IsNumber(x) ||
            (cJSON_IsNumber(x) ? vs->score[k] != x->valuedouble : !isnan(vs->score[k]))) {
            snprintf(why, n, "side %s, %s", side, scores[k]);
            return 0;
        }
    }
    i = 0;
    if (cJSON_IsArray(det) || cJSON_IsObject(det)) {
        cJSON_ArrayForEach(c, det)
        {
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "id");
            const cJSON *tx = cJSON_GetObjectItemCaseSensitive(c, "text");
            const cJSON *p = cJSON_GetObjectItemCaseSensitive(c, "passed");
            const struct cmp_exp *e = i < vs->n_exp ? &vs->exp[i] : NULL;

            if (!e || (cJSON_IsString(id) ? !e->id || strcmp(e->id, id->valuestring) : !!e->id) ||
                (cJSON_IsString(tx) ? !e->text || strcmp(e->text, tx->valuestring) : !!e->text) ||
                e->passed != (cJSON_IsTrue(p)    ? 1
                              : cJSON_IsFalse(p) ? 0
                                                 : -1)) {
                snprintf(why, n, "side %s, detail %zu", side, i);
                return 0;
            }
            i++;
        }
    }
    if (i != vs->n_exp) {
        snprintf(why, n, "side %s: %zu details, cJSON %zu", side, vs->n_exp, i);
        return 0;
    }
    return 1;
}

/*
 * 1 when cmp_view_read and cJSON agree on text, else 0 with a reason in why.
 * Text cJSON does not parse as an object proves nothing (the view only
 * delimits what it skips) and agrees.
 */
static int view_agrees(const char *text, char *why, size_t n)
{
    cJSON *root = cJSON_Parse(text);
    struct cmp_view v;
    enum arb_status st;
    int ok = 1;

    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return 1;
    }
    cmp_view_init(&v);
    st = cmp_view_read(&v, text);
    if (st == ARB_ENOMEM) {
        ok = 1;
    } else if (st != ARB_OK) {
        snprintf(why, n, "cmp_view_read refused what cJSON parsed (%d)", (int)st);
        ok = 0;
    } else {
        ok = view_side_agrees(root, &v.side[0], "A", why, n) &&
             view_side_agrees(root, &v.side[1], "B", why, n);
    }
    cmp_view_release(&v);
    cJSON_Delete(root);
    return ok;
}

#endif
