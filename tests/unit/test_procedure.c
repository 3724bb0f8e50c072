/*
 * The identity of a decision procedure (src/run/procedure.c, issue 18): what decides how a
 * judged case comes out is in it (the judge config, the task, every criterion with its
 * description, anchors and check, the suite's expectations, the policy), and what the
 * procedure is applied to (cases, systems, seed, redaction) is not.  The hash of a fixed
 * suite is pinned: a change to it orphans every stored study, so it must be deliberate.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    cr_assert_str_eq(a, "5d4d6a744111956bbb83ce1d014c813c18d6634ecd41aeef49776c1d1b71c444",
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

/* Two checks that differ only in their expected value, or only in graded: two procedures. */
Test(procedure, should_change_with_a_check_and_its_grading)
{
    static const char *const checks[] = {
        "\"check\": {\"op\": \"contains\", \"expected\": \"x\"}",
        "\"check\": {\"op\": \"contains\", \"expected\": \"y\"}",
        "\"graded\": true, \"check\": {\"op\": \"levenshtein\", \"expected\": \"y\"}",
        "\"graded\": false, \"check\": {\"op\": \"levenshtein\", \"expected\": \"y\"}",
    };
    char hashes[4][65], text[2048], with[256];

    for (size_t i = 0; i < 4; i++) {
        snprintf(with, sizeof(with), "\"Does it help?\", %s", checks[i]);
        variant("\"Does it help?\"", with, text, sizeof(text));
        hash_of(text, JUDGE, hashes[i]);
        for (size_t k = 0; k < i; k++)
            cr_assert_str_neq(hashes[i], hashes[k], "checks %zu and %zu share an identity", i, k);
    }
}

/* A check's expected_file counts by what it holds: editing the file is another procedure. */
Test(procedure, should_change_with_what_an_expected_file_holds)
{
    char dir[] = "/tmp/arbiter-procedure-XXXXXX", path[64], text[2048], a[65], b[65], c[65];
    struct arb_suite *s = NULL;
    struct arb_err err = {{0}};
    FILE *f;

    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/e.json", dir);
    variant("\"Does it help?\"",
            "\"Does it help?\", \"check\": {\"op\": \"json_match\", \"expected_file\": "
            "\"e.json\"}",
            text, sizeof(text));
    for (int round = 0; round < 3; round++) {
        struct arb_judge_config cfg;
        cJSON *j = cJSON_Parse(JUDGE);

        f = fopen(path, "w");
        cr_assert_not_null(f);
        fputs(round == 1 ? "{\"a\": 2}" : "{\"a\": 1}", f);
        fclose(f);
        memset(&cfg, 0, sizeof(cfg));
        cr_assert_eq(arb_judge_config_parse(j, &cfg, &err), ARB_OK, "%s", err.msg);
        cr_assert_eq(arb_suite_parse(text, strlen(text), "p.json", dir, &s, &err), ARB_OK, "%s",
                     err.msg);
        cr_assert_eq(arb_procedure_hash(s, &cfg,
                                        round == 0   ? a
                                        : round == 1 ? b
                                                     : c,
                                        &err),
                     ARB_OK, "%s", err.msg);
        arb_suite_free(s);
        arb_judge_config_release(&cfg);
        cJSON_Delete(j);
    }
    unlink(path);
    rmdir(dir);
    cr_assert_str_neq(a, b, "the file's content is not part of the identity");
    cr_assert_str_eq(a, c, "the same content gave another identity");
}
