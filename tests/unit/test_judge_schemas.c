/*
 * schemas.c: the questions of one rubric share one reply schema, built and compiled once; a
 * question whose feedback or items differ gets its own, equal to what judge_schema builds for
 * it; an entry pushed out of the table while questions hold it stays valid until the last lets
 * go (ASan in the sanitizer build); single-output questions never share.
 */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/judge/engine.h"
#include "arbiter/json.h"
#include "arbiter/schema.h"

static const struct arb_judge_item rubric[] = {
    {ARB_ITEM_CRITERION, "correctness", NULL, NULL, {NULL, NULL, NULL}},
    {ARB_ITEM_CRITERION, "clarity", NULL, NULL, {NULL, NULL, NULL}},
    {ARB_ITEM_EXPECTATION, "cites", "cites a source", NULL, {NULL, NULL, NULL}},
};

static struct arb_judge_question pairwise(const struct arb_judge_item *items, size_t n)
{
    struct arb_judge_question q;

    memset(&q, 0, sizeof(q));
    q.case_id = "c1";
    q.system_a = "a";
    q.system_b = "b";
    q.task = "Answer.";
    q.output_a = "one";
    q.output_b = "two";
    q.items = items;
    q.n_items = n;
    return q;
}

/* e holds exactly what judge_schema builds for q, compiled. */
static void holds_schema_of(const struct judge_schema *e, const struct arb_judge_question *q)
{
    cJSON *want = judge_schema(q);
    char *a = cJSON_PrintUnformatted(want), *b = cJSON_PrintUnformatted(e->tree);

    cr_assert_not_null(e->compiled);
    cr_assert_str_eq(b, a);
    cJSON_free(a);
    cJSON_free(b);
    cJSON_Delete(want);
}

Test(judge_schemas, one_rubric_builds_and_compiles_once)
{
    struct judge_schemas c;
    struct judge_schema *e1, *e2, *e3;
    struct arb_judge_question q = pairwise(rubric, 3), other = pairwise(rubric, 3);
    struct arb_err err = {{0}};

    memset(&c, 0, sizeof(c));
    other.case_id = "c2";
    other.output_a = "three";
    cr_assert_eq(judge_schema_get(&c, &q, &e1, &err), ARB_OK);
    cr_assert_eq(judge_schema_get(&c, &other, &e2, &err), ARB_OK);
    cr_assert_eq(e1, e2, "two cases of one rubric share the entry");
    cr_assert_eq(e1->refs, 3); /* the table and both questions */
    holds_schema_of(e1, &q);
    /* feedback changes the schema */
    other.feedback = 1;
    cr_assert_eq(judge_schema_get(&c, &other, &e3, &err), ARB_OK);
    cr_assert_neq(e3, e1);
    holds_schema_of(e3, &other);
    judge_schema_put(e1);
    judge_schema_put(e2);
    judge_schema_put(e3);
    judge_schemas_release(&c);
}

Test(judge_schemas, items_differing_in_kind_name_or_order_do_not_share)
{
    struct arb_judge_item items[3], swapped[3], split[2];
    struct judge_schemas c;
    struct judge_schema *e[5];
    struct arb_judge_question q;
    struct arb_err err = {{0}};
    int i, k;

    memset(&c, 0, sizeof(c));
    memcpy(items, rubric, sizeof(items));
    memcpy(swapped, rubric, sizeof(swapped));
    swapped[0] = rubric[1];
    swapped[1] = rubric[0];
    /* "ab" + "c" against "a" + "bc": where a name ends is part of the key */
    split[0] = rubric[0];
    split[1] = rubric[0];
    split[0].name = "ab";
    split[1].name = "c";
    q = pairwise(items, 3);
    cr_assert_eq(judge_schema_get(&c, &q, &e[0], &err), ARB_OK);
    items[2].kind = ARB_ITEM_CRITERION;
    cr_assert_eq(judge_schema_get(&c, &q, &e[1], &err), ARB_OK);
    q = pairwise(swapped, 3);
    cr_assert_eq(judge_schema_get(&c, &q, &e[2], &err), ARB_OK);
    q = pairwise(split, 2);
    cr_assert_eq(judge_schema_get(&c, &q, &e[3], &err), ARB_OK);
    holds_schema_of(e[3], &q);
    split[0].name = "a";
    split[1].name = "bc";
    cr_assert_eq(judge_schema_get(&c, &q, &e[4], &err), ARB_OK);
    for (i = 0; i < 5; i++)
        for (k = i + 1; k < 5; k++)
            cr_assert_neq(e[i], e[k], "entries %d and %d", i, k);
    for (i = 0; i < 5; i++)
        judge_schema_put(e[i]);
    judge_schemas_release(&c);
}

Test(judge_schemas, an_entry_pushed_out_while_held_stays_valid)
{
    struct judge_schemas c;
    struct judge_schema *held, *e;
    struct arb_judge_item one[JUDGE_SCHEMAS + 1];
    char names[JUDGE_SCHEMAS + 1][16];
    struct arb_judge_question q;
    struct arb_err err = {{0}};
    cJSON *ok = cJSON_Parse("{\"reasoning\":\"r\",\"criteria\":{\"c0\":{\"A\":1,\"B\":5}},"
                            "\"expectations\":{},\"winner\":\"A\"}");
    int i;

    memset(&c, 0, sizeof(c));
    for (i = 0; i <= JUDGE_SCHEMAS; i++) {
        snprintf(names[i], sizeof(names[i]), "c%d", i);
        one[i] = rubric[0];
        one[i].name = names[i];
    }
    q = pairwise(&one[0], 1);
    cr_assert_eq(judge_schema_get(&c, &q, &held, &err), ARB_OK);
    /* JUDGE_SCHEMAS other rubrics push the first out of the table */
    for (i = 1; i <= JUDGE_SCHEMAS; i++) {
        q = pairwise(&one[i], 1);
        cr_assert_eq(judge_schema_get(&c, &q, &e, &err), ARB_OK);
        judge_schema_put(e);
    }
    cr_assert_eq(held->refs, 1, "only the question holds it now");
    cr_assert_eq(arb_schema_validate(held->compiled, ok, NULL), 1);
    /* asked again, it is built anew: the table no longer has it */
    q = pairwise(&one[0], 1);
    cr_assert_eq(judge_schema_get(&c, &q, &e, &err), ARB_OK);
    cr_assert_neq(e, held);
    judge_schema_put(e);
    judge_schema_put(held);
    judge_schemas_release(&c);
    cJSON_Delete(ok);
}

Test(judge_schemas, single_output_questions_get_their_own)
{
    struct judge_schemas c;
    struct judge_schema *e1, *e2;
    struct arb_judge_question q = pairwise(&rubric[2], 1);
    struct arb_err err = {{0}};

    memset(&c, 0, sizeof(c));
    q.output_b = NULL;
    cr_assert_eq(judge_schema_get(&c, &q, &e1, &err), ARB_OK);
    cr_assert_eq(judge_schema_get(&c, &q, &e2, &err), ARB_OK);
    cr_assert_neq(e1, e2);
    cr_assert_null(e1->key);
    cr_assert_eq(e1->refs, 1);
    holds_schema_of(e1, &q);
    judge_schema_put(e1);
    judge_schema_put(e2);
    judge_schemas_release(&c);
}
