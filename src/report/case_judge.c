/*
 * case_judge.c - the judge's part of one case and pair, told in the pair's
 * systems (case_view.h): each order's and sample's answer with who was shown
 * first, its winner, reasoning, scores and expectations, or why it failed;
 * then what the comparison recorded of them together.
 *
 * The judgments table holds every attempt of every slot; a slot is shown by
 * the attempt that answered it, read as store_failures.c decides a failure:
 * an attempt is good when valid with no error.  Deciding anything is not
 * done here: the verdict is the run's, read back as stored.
 */
#include <stdlib.h>
#include <string.h>

#include "arbiter/case_view.h"

struct collect {
    const struct arb_verdict_row *v;
    cJSON *orders;
    int oom;
};

static const char *reply_word(const cJSON *ans, const char *key)
{
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(ans, key);

    return cJSON_IsString(w) ? w->valuestring : NULL;
}

/* Adds item to obj under key, or frees it: 1 on success. */
static int add_owned(cJSON *obj, const char *key, cJSON *item)
{
    if (item && cJSON_AddItemToObject(obj, key, item))
        return 1;
    cJSON_Delete(item);
    return 0;
}

/* A copy of v when it is of the kind wanted (a number; a boolean), else null. */
static cJSON *kept(const cJSON *v, int booleans)
{
    if (booleans ? cJSON_IsBool(v) : cJSON_IsNumber(v))
        return cJSON_Duplicate(v, 0);
    return cJSON_CreateNull();
}

/*
 * The answer's group ("criteria", "expectations": {item: {"A": x, "B": y}}) in the pair's
 * systems: the answer's A is the system shown first.
 */
static cJSON *by_system(const cJSON *ans, const char *group, const char *first, const char *second,
                        const char *sys_a, int booleans)
{
    cJSON *out = cJSON_CreateObject();
    const cJSON *it;

    if (!out)
        return NULL;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(ans, group))
    {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(it, "A");
        const cJSON *y = cJSON_GetObjectItemCaseSensitive(it, "B");
        int first_is_a = strcmp(first, sys_a) == 0;
        cJSON *pair;

        if (!it->string) /* not an object's member */
            continue;
        /* The pair's A first, whichever order this was. */
        pair = cJSON_CreateObject();
        if (!pair ||
            !add_owned(pair, first_is_a ? first : second, kept(first_is_a ? x : y, booleans)) ||
            !add_owned(pair, first_is_a ? second : first, kept(first_is_a ? y : x, booleans)) ||
            !cJSON_AddItemToObject(out, it->string, pair)) {
            cJSON_Delete(pair);
            cJSON_Delete(out);
            return NULL;
        }
    }
    return out;
}

static int add_string_or_null(cJSON *o, const char *key, const char *s)
{
    return (s ? cJSON_AddStringToObject(o, key, s) : cJSON_AddNullToObject(o, key)) != NULL;
}

/* What the answer says, in the pair's systems, added to e. */
static int add_answer(cJSON *e, const char *answer_json, const char *first, const char *second,
                      const char *sys_a)
{
    cJSON *ans = answer_json ? cJSON_Parse(answer_json) : NULL;
    const char *w = reply_word(ans, "winner");
    const char *as_shown = NULL, *winner = NULL;
    int ok;

    if (w && (!strcmp(w, "A") || !strcmp(w, "B") || !strcmp(w, "TIE"))) {
        as_shown = w;
        winner = !strcmp(w, "A") ? first : !strcmp(w, "B") ? second : "TIE";
    }
    ok = add_string_or_null(e, "winner", winner) &&
         add_string_or_null(e, "winner_as_shown", as_shown) &&
         add_string_or_null(e, "reasoning", reply_word(ans, "reasoning")) &&
         add_owned(e, "criteria", by_system(ans, "criteria", first, second, sys_a, 0)) &&
         add_owned(e, "expectations", by_system(ans, "expectations", first, second, sys_a, 1));
    /* A reply that is not an object is shown as its text. */
    if (ok && answer_json && answer_json[0] && !cJSON_IsObject(ans))
        ok = cJSON_AddStringToObject(e, "answer", answer_json) != NULL;
    cJSON_Delete(ans);
    return ok;
}

static int good(const struct arb_judgment_row *j)
{
    return j->valid && !(j->error && j->error[0]);
}

/* One slot's entry from one of its attempts. */
static cJSON *entry(const struct arb_judgment_row *j, const struct arb_verdict_row *v)
{
    int swapped = strcmp(j->ord, "BA") == 0;
    const char *first = swapped ? v->system_b : v->system_a;
    const char *second = swapped ? v->system_a : v->system_b;
    cJSON *e = cJSON_CreateObject();
    int ok = e && cJSON_AddStringToObject(e, "ord", j->ord) &&
             cJSON_AddStringToObject(e, "shown_first", first) &&
             cJSON_AddStringToObject(e, "shown_second", second) &&
             cJSON_AddNumberToObject(e, "sample", j->sample) &&
             cJSON_AddNumberToObject(e, "attempt", j->attempt) &&
             cJSON_AddBoolToObject(e, "valid", good(j)) &&
             cJSON_AddBoolToObject(e, "cached", j->cached) &&
             add_answer(e, j->answer_json, first, second, v->system_a);

    if (ok && !good(j))
        ok = cJSON_AddStringToObject(
                 e, "error",
                 j->error && j->error[0] ? j->error : "the judge gave no valid reply") != NULL;
    if (!ok) {
        cJSON_Delete(e);
        return NULL;
    }
    return e;
}

static int entry_int(const cJSON *e, const char *key)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(e, key);

    return cJSON_IsNumber(n) ? n->valueint : 0;
}

/* <0, 0, >0 as slot (ord, sample) sorts before, with, after entry e: AB before BA. */
static int slot_cmp(const char *ord, int sample, const cJSON *e)
{
    int c = strcmp(ord, cJSON_GetObjectItemCaseSensitive(e, "ord")->valuestring);

    return c ? c : sample - entry_int(e, "sample");
}

/* Keep j when its slot has no entry yet, or when it answers the slot better than the entry. */
static int on_judgment(void *ctx, const struct arb_judgment_row *j)
{
    struct collect *c = ctx;
    cJSON *e, *x;

    if (strcmp(j->system_a, c->v->system_a) != 0 || strcmp(j->system_b, c->v->system_b) != 0 ||
        (strcmp(j->ord, "AB") != 0 && strcmp(j->ord, "BA") != 0))
        return 0;
    for (e = c->orders->child; e && slot_cmp(j->ord, j->sample, e) != 0; e = e->next)
        ;
    if (e) {
        int old_good = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "valid"));
        int later = j->attempt > entry_int(e, "attempt");

        if (!(good(j) ? !old_good || later : !old_good && later))
            return 0;
    }
    x = entry(j, c->v);
    if (!x || !cJSON_AddItemToArray(c->orders, x)) {
        cJSON_Delete(x);
        c->oom = 1;
        return 1;
    }
    /* The slot's new entry replaces the old one; the order is put right at the end. */
    if (e)
        cJSON_Delete(cJSON_DetachItemViaPointer(c->orders, e));
    return 0;
}

/*
 * The entries of orders moved into a new array in slot order (AB before BA, then by sample):
 * judgments come in the order they were stored, which concurrency decides.  NULL when out of
 * memory (orders then keeps what was not moved).
 */
static cJSON *in_slot_order(cJSON *orders)
{
    cJSON *out = cJSON_CreateArray();

    while (out && orders->child) {
        cJSON *min = orders->child, *e;

        for (e = min->next; e; e = e->next) {
            if (slot_cmp(cJSON_GetObjectItemCaseSensitive(e, "ord")->valuestring,
                         entry_int(e, "sample"), min) < 0)
                min = e;
        }
        /* Neither can fail: both pointers are valid and nothing is allocated. */
        cJSON_AddItemToArray(out, cJSON_DetachItemViaPointer(orders, min));
    }
    return out;
}

/* The winner most of an order's answers name ("TIE" when two lead), or NULL when none does. */
static const char *order_majority(const cJSON *orders, const char *ord, const char *sys_a)
{
    int n[3] = {0, 0, 0}, best = -1, tie = 0, i;
    const cJSON *e;

    cJSON_ArrayForEach(e, orders)
    {
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(e, "winner");

        if (strcmp(cJSON_GetObjectItemCaseSensitive(e, "ord")->valuestring, ord) != 0 ||
            !cJSON_IsString(w))
            continue;
        n[!strcmp(w->valuestring, "TIE") ? 2 : !strcmp(w->valuestring, sys_a) ? 0 : 1]++;
    }
    for (i = 0; i < 3; i++) {
        if (n[i] && (best < 0 || n[i] > n[best])) {
            best = i;
            tie = 0;
        } else if (n[i] && n[i] == n[best]) {
            tie = 1;
        }
    }
    return best < 0 ? NULL : tie || best == 2 ? "TIE" : best == 0 ? "a" : "b";
}

/* "position_inconsistent": the comparison's, else whether the two orders' majorities differ. */
static int add_inconsistent(cJSON *out, const cJSON *jo, const cJSON *orders, const char *sys_a)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(jo, "position_inconsistent");
    const char *ab, *ba;

    if (cJSON_IsBool(p))
        return cJSON_AddBoolToObject(out, "position_inconsistent", cJSON_IsTrue(p)) != NULL;
    ab = order_majority(orders, "AB", sys_a);
    ba = order_majority(orders, "BA", sys_a);
    if (!ab || !ba)
        return cJSON_AddNullToObject(out, "position_inconsistent") != NULL;
    return cJSON_AddBoolToObject(out, "position_inconsistent", strcmp(ab, ba) != 0) != NULL;
}

/* What the comparison's "judge" recorded of the answers together, in the pair's systems. */
static int add_combined(cJSON *out, const cJSON *jo, const struct arb_verdict_row *v)
{
    const cJSON *orders = cJSON_GetObjectItemCaseSensitive(out, "orders");
    const cJSON *sa = cJSON_GetObjectItemCaseSensitive(jo, "sample_agreement");
    const char *w = reply_word(jo, "winner"), *err = reply_word(jo, "error");
    const char *winner = NULL;

    if (w)
        winner = !strcmp(w, "A")     ? v->system_a
                 : !strcmp(w, "B")   ? v->system_b
                 : !strcmp(w, "TIE") ? "TIE"
                                     : NULL;
    return add_inconsistent(out, jo, orders, v->system_a) &&
           (cJSON_IsNumber(sa) ? cJSON_AddNumberToObject(out, "sample_agreement", sa->valuedouble)
                               : cJSON_AddNullToObject(out, "sample_agreement")) &&
           add_string_or_null(out, "winner", winner) &&
           (!err || cJSON_AddStringToObject(out, "error", err));
}

enum arb_status arb_case_judge_read(struct arb_store *st, int64_t run,
                                    const struct arb_verdict_row *v, cJSON **out,
                                    struct arb_err *err)
{
    struct collect c = {v, cJSON_CreateArray(), 0};
    cJSON *res = NULL, *sorted = NULL, *cmp = NULL;
    const cJSON *jo = NULL;
    enum arb_status rs = c.orders ? ARB_OK : ARB_ENOMEM;

    *out = NULL;
    if (!rs)
        rs = arb_store_judgments(st, run, v->case_id, on_judgment, &c, err);
    if (!rs && c.oom)
        rs = ARB_ENOMEM;
    if (!rs && v->comparison_json) {
        cmp = cJSON_Parse(v->comparison_json);
        jo = cJSON_GetObjectItemCaseSensitive(cmp, "judge");
        if (!cJSON_IsObject(jo))
            jo = NULL;
    }
    if (!rs && (jo || cJSON_GetArraySize(c.orders) > 0)) {
        res = cJSON_CreateObject();
        sorted = in_slot_order(c.orders);
        if (res && sorted && cJSON_AddItemToObject(res, "orders", sorted)) {
            sorted = NULL;
            if (add_combined(res, jo, v)) {
                *out = res;
                res = NULL;
            }
        }
        if (!*out)
            rs = ARB_ENOMEM;
    }
    if (rs == ARB_ENOMEM)
        arb_err_set(err, ARB_ENOMEM, "out of memory");
    cJSON_Delete(sorted);
    cJSON_Delete(res);
    cJSON_Delete(c.orders);
    cJSON_Delete(cmp);
    return rs;
}
