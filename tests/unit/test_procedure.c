/*
 * The identity of a decision procedure (src/run/procedure.c, issue 18): what decides how a
 * judged case comes out is in it (the judge config, the task, every criterion with its
 * description, anchors and check, the suite's expectations, the policy), and what the
 * procedure is applied to (cases, systems, seed, redaction) is not.  The hash of a fixed
 * suite is pinned: a change to it orphans every stored study, so it must be deliberate.
 */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/judge.h"
#include "arbiter/run.h"
#include "arbiter/suite.h"

#define BASE                                                                                       \
    "{\"name\": \"p\", \"task\": \"Answer.\", \"seed\": 1, \"systems\": {\"a\": \"a.jsonl\", "     \
    "\"b\": \"b.jsonl\"}, \"rubric\": {\"content\": [{\"name\": \"helpfulness\", "                 \
    "\"description\": \"Does it help?\", \"anchors\": {\"1\": \"no\", \"5\": \"yes\"}}]}, "        \
    "\"expectations\": [{\"id\": \"e1\", \"text\": \"It is polite.\"}], "                          \
    "\"policy\": {\"decide_by\": \"rubric_then_judge\"}, \"cases\": [{\"id\": \"c1\"}]}"

static void hash_of(const char *suite_text, const char *judge_text, char hex[65])
{
    struct arb_suite *s = NULL;
    struct arb_judge_config cfg;
    struct arb_err err = {{0}};
    cJSON *j = judge_text ? cJSON_Parse(judge_text) : NULL;

    memset(&cfg, 0, sizeof(cfg));
    cr_assert_eq(arb_suite_parse(suite_text, strlen(suite_text), "p.json", ".", &s, &err), ARB_OK,
                 "%s", err.msg);
    if (j)
        cr_assert_eq(arb_judge_config_parse(j, &cfg, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_procedure_hash(s, j ? &cfg : NULL, hex, &err), ARB_OK, "%s", err.msg);
    if (j)
        arb_judge_config_release(&cfg);
    cJSON_Delete(j);
    arb_suite_free(s);
}

/* BASE with the first occurrence of from replaced by to. */
static void variant(const char *from, const char *to, char *out, size_t size)
{
    const char *at = strstr(BASE, from);

    cr_assert_not_null(at, "no '%s' in the base suite", from);
    snprintf(out, size, "%.*s%s%s", (int)(at - BASE), BASE, to, at + strlen(from));
}

#define JUDGE                                                                                      \
    "{\"provider\": \"openai\", \"base_url\": \"http://127.0.0.1:1/v1\", \"model\": \"m\", "       \
    "\"api_key_env\": \"K\"}"

Test(procedure, should_be_pinned_for_a_fixed_suite_and_judge)
{
    char a[65], b[65];

    hash_of(BASE, JUDGE, a);
    hash_of(BASE, JUDGE, b);
    cr_assert_str_eq(a, b);
    cr_assert_eq(strlen(a), 64);
    /* Pinned: a different value means stored studies no longer apply to this procedure. */
    cr_assert_str_eq(a, "f81c3fb24f439a3cb7e66968f715b9bd32b687fd20c5e782cafb7a2f3bbc2335",
                     "procedure hash changed: %s", a);
}

Test(procedure, should_change_with_what_decides_a_case)
{
    static const char *const changes[][2] = {
        {"\"Answer.\"", "\"Answer briefly.\""},   {"\"Does it help?\"", "\"Is it useful?\""},
        {"\"1\": \"no\"", "\"1\": \"none\""},     {"\"rubric_then_judge\"", "\"judge\""},
        {"\"It is polite.\"", "\"It is kind.\""}, {"\"helpfulness\"", "\"usefulness\""},
    };
    char base[65], other[65], text[2048];

    hash_of(BASE, JUDGE, base);
    for (size_t i = 0; i < sizeof(changes) / sizeof(changes[0]); i++) {
        variant(changes[i][0], changes[i][1], text, sizeof(text));
        hash_of(text, JUDGE, other);
        cr_assert_str_neq(base, other, "changing %s to %s kept the identity", changes[i][0],
                          changes[i][1]);
    }
    /* Another judge model, and no judge at all. */
    hash_of(BASE,
            "{\"provider\": \"openai\", \"base_url\": \"http://127.0.0.1:1/v1\", "
            "\"model\": \"m2\", \"api_key_env\": \"K\"}",
            other);
    cr_assert_str_neq(base, other);
    hash_of(BASE, NULL, other);
    cr_assert_str_neq(base, other);
}

Test(procedure, should_not_change_with_what_it_is_applied_to)
{
    static const char *const same[][2] = {
        {"\"seed\": 1", "\"seed\": 99"},
        {"\"a.jsonl\"", "\"other.jsonl\""},
        {"[{\"id\": \"c1\"}]", "[{\"id\": \"c2\", \"prompt\": \"Hi?\"}]"},
        {"\"name\": \"p\"", "\"name\": \"renamed\""},
    };
    char base[65], other[65], text[2048];

    hash_of(BASE, JUDGE, base);
    for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
        variant(same[i][0], same[i][1], text, sizeof(text));
        hash_of(text, JUDGE, other);
        cr_assert_str_eq(base, other, "changing %s to %s changed the identity", same[i][0],
                         same[i][1]);
    }
    /* The default policy is rubric_then_judge: naming it or not is the same procedure. */
    variant(", \"policy\": {\"decide_by\": \"rubric_then_judge\"}", "", text, sizeof(text));
    hash_of(text, JUDGE, other);
    cr_assert_str_eq(base, other);
}
