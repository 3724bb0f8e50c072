/*
 * One struct arb_result run through many checks: arb_check_run keeps the
 * storage a next run reuses (the compared surfaces, an aggregate's children's
 * results), so each record must be exactly what a fresh result would give,
 * whatever ran before it.  The sanitizer build (make SANITIZE=address test)
 * turns a kept child that is never freed, or a freed one that is read, into a
 * failure.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/compare.h"

static struct arb_check *compile(const char *json)
{
    cJSON *cfg = cJSON_Parse(json);
    struct arb_check *c = NULL;
    struct arb_err err = {{0}};

    cr_assert_not_null(cfg, "bad test JSON: %s", json);
    cr_assert_eq(arb_check_compile(cfg, NULL, &c, &err), ARB_OK, "%s", err.msg);
    cJSON_Delete(cfg);
    return c;
}

/* The record of check c on text, written from result r. */
static char *record(struct arb_check *c, const char *text, struct arb_result *r)
{
    struct arb_err err = {{0}};
    struct arb_buf out;

    cr_assert_eq(arb_check_run(c, text, strlen(text), NULL, r, &err), ARB_OK, "%s", err.msg);
    arb_buf_init(&out, 0);
    cr_assert_eq(arb_result_write_json(r, &out), ARB_OK);
    return arb_buf_detach(&out, NULL);
}

/* The record from a result used only for this run. */
static char *fresh_record(struct arb_check *c, const char *text)
{
    struct arb_result r;
    char *s;

    arb_result_init(&r);
    s = record(c, text, &r);
    arb_result_release(&r);
    return s;
}

Test(result_reuse, aggregates_of_any_size_in_any_order)
{
    static const char *const checks[] = {
        "{\"op\":\"all\",\"checks\":[{\"op\":\"icontains\",\"expected\":\"ACME\"},"
        "{\"op\":\"regex\",\"expected\":\"\\\\d+\"},{\"op\":\"contains\",\"expected\":\"x\"}]}",
        "{\"op\":\"any\",\"checks\":[{\"op\":\"numeric\",\"expected\":42},"
        "{\"op\":\"exact\",\"expected\":\"no\"}]}",
        "{\"op\":\"icontains\",\"expected\":\"acme\"}",
        "{\"op\":\"weighted_mean\",\"checks\":[{\"op\":\"icontains\",\"expected\":\"acme\"},"
        "{\"op\":\"all\",\"checks\":[{\"op\":\"contains\",\"expected\":\"4\"},"
        "{\"op\":\"icontains\",\"expected\":\"CORP\"}]},{\"op\":\"levenshtein\","
        "\"expected\":\"The answer is 42.\"},{\"op\":\"numeric\",\"expected\":\"$42\"}]}",
    };
    static const char *const texts[] = {"The answer is 42. Acme Corp", "42", "nothing here"};
    struct arb_check *c[4];
    struct arb_result r;
    size_t i, k, t;

    for (i = 0; i < 4; i++)
        c[i] = compile(checks[i]);
    arb_result_init(&r);
    /* every order of sizes: 3 children, 2, none, 4 (one nested), and back */
    for (k = 0; k < 3; k++) {
        for (i = 0; i < 4; i++) {
            size_t which = (i * (k + 1) + k) % 4;

            for (t = 0; t < 3; t++) {
                char *got = record(c[which], texts[t], &r);
                char *want = fresh_record(c[which], texts[t]);

                cr_assert_str_eq(got, want, "check %zu on '%s' after other checks", which,
                                 texts[t]);
                free(got);
                free(want);
            }
        }
    }
    arb_result_release(&r);
    for (i = 0; i < 4; i++)
        arb_check_free(c[i]);
}
