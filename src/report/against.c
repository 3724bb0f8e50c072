/*
 * against.c - which verdicts changed between two runs (report.h,
 * `arbiter report NEWRUN --against RUN`), e.g. a run and its re-judging by
 * another judge (`arbiter replay RUN --rejudge JUDGE --into NEW`).
 *
 * Verdicts are matched by case and pair of systems (in either order).  The
 * earlier run's verdicts are held as one string per pair ("status winner"),
 * so memory is O(verdicts) of small strings; the later run is streamed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/buf.h"
#include "arbiter/report.h"
#include "arbiter/strset.h"

#define LISTED_CHANGES 1000 /* changed verdicts listed one by one */

struct before {
    struct arb_strset index; /* key -> position in outcome */
    char **outcome;          /* "status\x1fwinner" */
    unsigned char *matched;
    size_t n, cap;
    struct arb_buf key;
    enum arb_status st;
};

/* The pair's key, the same whichever system is A: case, then the names in order. */
static enum arb_status pair_key(struct arb_buf *key, const struct arb_verdict_row *v)
{
    int ordered = strcmp(v->system_a, v->system_b) <= 0;

    arb_buf_reset(key);
    return arb_buf_printf(key, "%s%c%s%c%s", v->case_id, 0x1f, ordered ? v->system_a : v->system_b,
                          0x1f, ordered ? v->system_b : v->system_a);
}

static int on_before(void *ctx, const struct arb_verdict_row *v)
{
    struct before *b = ctx;
    char *o;
    int added;
    size_t len;

    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        char **v2 = realloc(b->outcome, cap * sizeof(*v2));

        if (!v2)
            goto nomem;
        b->outcome = v2;
        b->cap = cap;
    }
    len = strlen(v->status) + (v->winner ? strlen(v->winner) : 0) + 2;
    o = malloc(len);
    if (!o)
        goto nomem;
    snprintf(o, len, "%s%c%s", v->status, 0x1f, v->winner ? v->winner : ""); /* exact fit */
    b->outcome[b->n] = o;
    b->st = pair_key(&b->key, v);
    if (!b->st)
        b->st = arb_strset_add(&b->index, b->key.ptr, b->n, &added, NULL);
    b->n++;
    return b->st != ARB_OK;
nomem:
    b->st = ARB_ENOMEM;
    return 1;
}

struct after {
    struct before *b;
    cJSON *changes, *transitions;
    size_t compared, changed, only_after;
    enum arb_status st;
};

/* {"status", "winner"} of a stored "status\x1fwinner". */
static cJSON *outcome_json(const char *status, const char *winner)
{
    cJSON *o = cJSON_CreateObject();

    if (o && cJSON_AddStringToObject(o, "status", status) &&
        (winner && winner[0] ? cJSON_AddStringToObject(o, "winner", winner)
                             : cJSON_AddNullToObject(o, "winner")))
        return o;
    cJSON_Delete(o);
    return NULL;
}

/* 1 when the stored "status\x1fwinner" is v's outcome. */
static int same_outcome(const char *then, const struct arb_verdict_row *v)
{
    const char *sep = strchr(then, 0x1f);
    size_t n = sep ? (size_t)(sep - then) : strlen(then);

    return sep && strlen(v->status) == n && memcmp(then, v->status, n) == 0 &&
           strcmp(sep + 1, v->winner ? v->winner : "") == 0;
}

static int on_after(void *ctx, const struct arb_verdict_row *v)
{
    struct after *a = ctx;
    struct before *b = a->b;
    struct arb_buf label;
    char *then_status = NULL;
    const char *then, *wb, *wa, *sep;
    size_t at;
    cJSON *t;

    a->st = pair_key(&b->key, v);
    if (a->st)
        return 1;
    if (!arb_strset_get(&b->index, b->key.ptr, &at)) {
        a->only_after++;
        return 0;
    }
    b->matched[at] = 1;
    a->compared++;
    then = b->outcome[at];
    if (same_outcome(then, v))
        return 0;
    a->changed++;
    sep = strchr(then, 0x1f);
    then_status = strndup(then, sep ? (size_t)(sep - then) : strlen(then));
    if (!then_status)
        goto nomem;
    wb = sep ? sep + 1 : "";
    wa = v->winner ? v->winner : "";
    arb_buf_init(&label, 0);
    if (arb_buf_printf(&label, "%s -> %s", *wb ? wb : then_status, *wa ? wa : v->status)) {
        arb_buf_release(&label);
        goto nomem;
    }
    t = cJSON_GetObjectItemCaseSensitive(a->transitions, label.ptr);
    if (t)
        cJSON_SetNumberValue(t, t->valuedouble + 1);
    else if (!cJSON_AddNumberToObject(a->transitions, label.ptr, 1)) {
        arb_buf_release(&label);
        goto nomem;
    }
    arb_buf_release(&label);
    if (cJSON_GetArraySize(a->changes) < LISTED_CHANGES) {
        cJSON *c = cJSON_CreateObject();

        if (!c || !cJSON_AddItemToArray(a->changes, c) ||
            !cJSON_AddStringToObject(c, "case", v->case_id) ||
            !cJSON_AddStringToObject(c, "system_a", v->system_a) ||
            !cJSON_AddStringToObject(c, "system_b", v->system_b) ||
            !cJSON_AddItemToObject(c, "before", outcome_json(then_status, wb)) ||
            !cJSON_AddItemToObject(c, "after", outcome_json(v->status, wa)))
            goto nomem;
    }
    free(then_status);
    return 0;
nomem:
    free(then_status);
    a->st = ARB_ENOMEM;
    return 1;
}

enum arb_status arb_report_add_against(struct arb_store *st, int64_t run, int64_t other,
                                       cJSON *report, struct arb_err *err)
{
    struct before b;
    struct after a;
    cJSON *o = cJSON_AddObjectToObject(report, "against");
    enum arb_status rs = o ? ARB_OK : ARB_ENOMEM;
    size_t only_before = 0;

    memset(&b, 0, sizeof(b));
    memset(&a, 0, sizeof(a));
    arb_strset_init(&b.index);
    arb_buf_init(&b.key, 0);
    if (!rs)
        rs = arb_store_verdicts(st, other, NULL, on_before, &b, err);
    if (!rs && b.st)
        rs = arb_err_set(err, b.st, "out of memory");
    b.matched = rs ? NULL : calloc(b.n ? b.n : 1, 1);
    a.b = &b;
    a.changes = cJSON_CreateArray();
    a.transitions = cJSON_CreateObject();
    if (!rs && (!b.matched || !a.changes || !a.transitions))
        rs = arb_err_set(err, ARB_ENOMEM, "out of memory");
    if (!rs)
        rs = arb_store_verdicts(st, run, NULL, on_after, &a, err);
    if (!rs && a.st)
        rs = arb_err_set(err, a.st, "out of memory");
    for (size_t i = 0; !rs && i < b.n; i++)
        only_before += !b.matched[i];
    if (!rs && !(cJSON_AddNumberToObject(o, "run", (double)other) &&
                 cJSON_AddNumberToObject(o, "compared", (double)a.compared) &&
                 cJSON_AddNumberToObject(o, "changed", (double)a.changed) &&
                 cJSON_AddNumberToObject(o, "unchanged", (double)(a.compared - a.changed)) &&
                 cJSON_AddNumberToObject(o, "only_in_this_run", (double)a.only_after) &&
                 cJSON_AddNumberToObject(o, "only_in_other_run", (double)only_before)))
        rs = arb_err_set(err, ARB_ENOMEM, "out of memory");
    /* Once attached, o owns them. */
    if (!rs && cJSON_AddItemToObject(o, "transitions", a.transitions))
        a.transitions = NULL;
    if (!rs && !a.transitions && cJSON_AddItemToObject(o, "changes", a.changes))
        a.changes = NULL;
    if (!rs && (a.transitions || a.changes))
        rs = arb_err_set(err, ARB_ENOMEM, "out of memory");
    cJSON_Delete(a.transitions);
    cJSON_Delete(a.changes);
    for (size_t i = 0; i < b.n; i++)
        free(b.outcome[i]);
    free(b.outcome);
    free(b.matched);
    arb_strset_release(&b.index);
    arb_buf_release(&b.key);
    return rs;
}
