/*
 * Unit tests for the fields operator, for what tests/data/checks/fields.jsonl
 * cannot express well: matchings on ties, very deep input built in code, a
 * large shuffled unordered array, the lazily refined pair matrix against a
 * brute-force optimum, and arb_result_to_cjson against the written record.
 * Random data comes from a local xorshift with a fixed seed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/compare.h"
#include "arbiter/json.h"

struct rng {
    uint64_t s;
};

static uint64_t rng_next(struct rng *g)
{
    g->s ^= g->s << 13;
    g->s ^= g->s >> 7;
    g->s ^= g->s << 17;
    return g->s;
}

/* Compile {"op": "fields", "fields": map, "expected": expected} (takes both). */
static struct arb_check *compile_fields(cJSON *map, cJSON *expected, int allow_extra)
{
    cJSON *cfg = cJSON_CreateObject();
    struct arb_check *c = NULL;
    struct arb_err err = {{0}};

    cr_assert_not_null(cfg);
    cJSON_AddStringToObject(cfg, "op", "fields");
    cJSON_AddItemToObject(cfg, "fields", map);
    cJSON_AddItemToObject(cfg, "expected", expected);
    if (allow_extra)
        cJSON_AddTrueToObject(cfg, "allow_extra");
    cr_assert_eq(arb_check_compile(cfg, NULL, &c, &err), ARB_OK, "%s", err.msg);
    cJSON_Delete(cfg);
    return c;
}

static void run(struct arb_check *c, const char *observed, struct arb_result *r)
{
    struct arb_err err = {{0}};

    cr_assert_eq(arb_check_run(c, observed, strlen(observed), NULL, r, &err), ARB_OK, "%s",
                 err.msg);
}

static const cJSON *first_matching(const struct arb_result *r)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(r->details, "matchings");

    cr_assert(cJSON_IsArray(m) && cJSON_GetArraySize(m) > 0);
    return cJSON_GetArrayItem(m, 0);
}

static void assert_identity_pairs(const struct arb_result *r, int n)
{
    const cJSON *pairs = cJSON_GetObjectItemCaseSensitive(first_matching(r), "pairs");
    int i;

    cr_assert_eq(cJSON_GetArraySize(pairs), n);
    for (i = 0; i < n; i++) {
        const cJSON *p = cJSON_GetArrayItem(pairs, i);

        cr_assert_eq(cJSON_GetArrayItem(p, 0)->valueint, i);
        cr_assert_eq(cJSON_GetArrayItem(p, 1)->valueint, i, "pair %d is not (%d, %d)", i, i, i);
    }
}

Test(fields, should_break_ties_the_same_way_every_time)
{
    const char *ops[] = {"exact", "name"}; /* a cheap leaf and a lazily scored one */
    size_t k;

    for (k = 0; k < 2; k++) {
        cJSON *map = cJSON_CreateObject(), *u = cJSON_CreateObject();
        struct arb_check *c;
        struct arb_result r1, r2;
        struct arb_buf b1, b2;

        cJSON_AddStringToObject(map, "v", ops[k]);
        cJSON_AddItemToObject(u, "unordered", map);
        c = compile_fields(u, cJSON_Parse("[{\"v\": \"a\"}, {\"v\": \"a\"}, {\"v\": \"a\"}]"), 0);
        arb_result_init(&r1);
        arb_result_init(&r2);
        run(c, "[{\"v\": \"a\"}, {\"v\": \"a\"}, {\"v\": \"a\"}]", &r1);
        run(c, "[{\"v\": \"a\"}, {\"v\": \"a\"}, {\"v\": \"a\"}]", &r2);
        cr_assert_float_eq(r1.score, 1.0, 1e-12);
        assert_identity_pairs(&r1, 3);
        arb_buf_init(&b1, 0);
        arb_buf_init(&b2, 0);
        cr_assert_eq(arb_result_write_json(&r1, &b1), ARB_OK);
        cr_assert_eq(arb_result_write_json(&r2, &b2), ARB_OK);
        cr_assert_str_eq(b1.ptr, b2.ptr);
        arb_buf_release(&b1);
        arb_buf_release(&b2);
        arb_result_release(&r1);
        arb_result_release(&r2);
        arb_check_free(c);
    }
}

/* [[[ ... "x" ... ]]] nested depth levels, built without recursion. */
static cJSON *deep_array(int depth)
{
    cJSON *v = cJSON_CreateString("x");
    int i;

    for (i = 0; i < depth; i++) {
        cJSON *a = cJSON_CreateArray();

        cr_assert_not_null(a);
        cJSON_AddItemToArray(a, v);
        v = a;
    }
    return v;
}

static char *deep_text(int depth)
{
    char *s = malloc((size_t)depth * 2 + 4);
    int i;

    cr_assert_not_null(s);
    for (i = 0; i < depth; i++)
        s[i] = '[';
    memcpy(s + depth, "\"x\"", 3);
    for (i = 0; i < depth; i++)
        s[depth + 3 + i] = ']';
    s[2 * depth + 3] = '\0';
    return s;
}

static int has_note(const struct arb_result *r, const char *prefix)
{
    size_t i;

    for (i = 0; i < r->n_notes; i++)
        if (strncmp(r->notes[i], prefix, strlen(prefix)) == 0)
            return 1;
    return 0;
}

Test(fields, should_survive_10000_levels_of_nesting)
{
    struct arb_check *c = compile_fields(cJSON_CreateString("exact"), deep_array(10000), 0);
    struct arb_result r;
    char *text = deep_text(10000);

    arb_result_init(&r);
    run(c, text, &r);
    cr_assert_float_eq(r.score, 0.0, 1e-12);
    cr_assert(has_note(&r, "json_parse_failed"));
    arb_result_release(&r);
    arb_check_free(c);
    free(text);

    /* Within the parser's limit: the walk stops at its own cap with a note. */
    c = compile_fields(cJSON_CreateString("exact"), deep_array(900), 0);
    text = deep_text(900);
    arb_result_init(&r);
    run(c, text, &r);
    cr_assert_float_eq(r.score, 0.0, 1e-12);
    cr_assert(has_note(&r, "depth_limit"));
    arb_result_release(&r);
    arb_check_free(c);
    free(text);
}

Test(fields, should_refuse_a_map_nested_10000_deep)
{
    cJSON *map = cJSON_CreateString("exact"), *cfg;
    struct arb_check *c = NULL;
    struct arb_err err = {{0}};
    int i;

    for (i = 0; i < 10000; i++) {
        cJSON *o = cJSON_CreateObject();

        cJSON_AddItemToObject(o, "a", map);
        map = o;
    }
    cfg = cJSON_CreateObject();
    cJSON_AddStringToObject(cfg, "op", "fields");
    cJSON_AddItemToObject(cfg, "fields", map);
    cJSON_AddItemToObject(cfg, "expected", cJSON_CreateObject());
    cr_assert_eq(arb_check_compile(cfg, NULL, &c, &err), ARB_ETOOBIG);
    cr_assert(strstr(err.msg, "nested deeper than 200 levels") != NULL, "%s", err.msg);
    cJSON_Delete(cfg);
}

static cJSON *invoice_item(size_t i, struct rng *g)
{
    cJSON *it = cJSON_CreateObject();
    char desc[64];

    snprintf(desc, sizeof(desc), "Part %zu type %llu", i, (unsigned long long)(rng_next(g) % 7));
    cJSON_AddStringToObject(it, "description", desc);
    cJSON_AddNumberToObject(it, "price", (double)(rng_next(g) % 10000) / 100.0);
    cJSON_AddNumberToObject(it, "quantity", (double)(rng_next(g) % 9));
    return it;
}

Test(fields, should_score_1_for_a_shuffled_200_item_copy)
{
    struct rng g = {0x12345678};
    cJSON *e = cJSON_CreateArray(), *o = cJSON_CreateArray();
    cJSON *items[200];
    struct arb_check *c;
    struct arb_result r;
    char *text;
    size_t i;

    for (i = 0; i < 200; i++) {
        items[i] = invoice_item(i, &g);
        cJSON_AddItemToArray(e, cJSON_Duplicate(items[i], 1));
    }
    for (i = 199; i > 0; i--) {
        size_t j = (size_t)(rng_next(&g) % (i + 1));
        cJSON *t = items[i];

        items[i] = items[j];
        items[j] = t;
    }
    for (i = 0; i < 200; i++)
        cJSON_AddItemToArray(o, items[i]);
    cr_assert_eq(arb_jcs_string(o, &text, NULL, NULL), ARB_OK);
    c = compile_fields(cJSON_Parse("{\"unordered\": {\"description\": \"name\", \"price\": "
                                   "{\"op\": \"within\", \"tolerance\": 0.5}, \"quantity\": "
                                   "\"exact\"}}"),
                       e, 0);
    arb_result_init(&r);
    run(c, text, &r);
    cr_assert_float_eq(r.score, 1.0, 1e-12);
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(r.details, "leaf_count")->valueint, 600);
    arb_result_release(&r);
    arb_check_free(c);
    cJSON_Delete(o);
    free(text);
}

/* The best total over all assignments of n rows to n columns, by brute force. */
static double brute_best(const double *m, size_t n, size_t row, unsigned used)
{
    double best = 0.0;
    size_t j;

    if (row == n)
        return 0.0;
    for (j = 0; j < n; j++) {
        double s;

        if (used & (1u << j))
            continue;
        s = m[row * n + j] + brute_best(m, n, row + 1, used | (1u << j));
        if (s > best)
            best = s;
    }
    return best;
}

Test(fields, should_find_the_optimum_with_lazily_scored_leaves)
{
    static const char alphabet[] = "abcab";
    struct rng g = {0xfeedbeef};
    int round;

    for (round = 0; round < 40; round++) {
        char ev[6][8], ov[6][8];
        double m[36];
        size_t n = 2 + (size_t)(rng_next(&g) % 5), i, j, k;
        cJSON *e = cJSON_CreateArray(), *o = cJSON_CreateArray(), *cfg;
        struct arb_check *c, *lev = NULL;
        struct arb_result r, lr;
        struct arb_err err = {{0}};
        char *text;

        for (i = 0; i < n; i++) {
            for (k = 0; k < 4; k++) {
                ev[i][k] = alphabet[rng_next(&g) % 5];
                ov[i][k] = alphabet[rng_next(&g) % 5];
            }
            ev[i][4] = ov[i][4] = '\0';
            cJSON_AddItemToArray(e, cJSON_CreateString(ev[i]));
            cJSON_AddItemToArray(o, cJSON_CreateString(ov[i]));
        }
        cfg = cJSON_Parse("{\"op\": \"levenshtein\"}");
        cr_assert_eq(arb_check_compile(cfg, NULL, &lev, &err), ARB_OK);
        arb_result_init(&lr);
        for (i = 0; i < n; i++) {
            for (j = 0; j < n; j++) {
                cJSON *x = cJSON_CreateString(ev[i]);

                cr_assert_eq(arb_check_run(lev, ov[j], 4, x, &lr, &err), ARB_OK);
                m[i * n + j] = lr.score;
                cJSON_Delete(x);
            }
        }
        arb_result_release(&lr);
        arb_check_free(lev);
        cJSON_Delete(cfg);
        cr_assert_eq(arb_jcs_string(o, &text, NULL, NULL), ARB_OK);
        c = compile_fields(cJSON_Parse("{\"unordered\": \"levenshtein\"}"), e, 0);
        arb_result_init(&r);
        run(c, text, &r);
        cr_assert_float_eq(r.score * (double)n, brute_best(m, n, 0, 0), 1e-9, "round %d", round);
        arb_result_release(&r);
        arb_check_free(c);
        cJSON_Delete(o);
        free(text);
    }
}

Test(fields, should_nest_records_as_arb_result_write_json_writes_them)
{
    struct arb_check *c =
        compile_fields(cJSON_Parse("{\"a\": \"exact\"}"), cJSON_Parse("{\"a\": \"x\\ny\"}"), 0);
    struct arb_result r;
    struct arb_buf b;
    cJSON *written = NULL, *built;

    arb_result_init(&r);
    run(c, "{\"a\": \"x\\ny\", \"b\": 2}", &r);
    arb_buf_init(&b, 0);
    cr_assert_eq(arb_result_write_json(&r, &b), ARB_OK);
    cr_assert_eq(arb_json_parse(b.ptr, b.len, 0, &written, NULL), ARB_OK);
    built = arb_result_to_cjson(&r);
    cr_assert_not_null(built);
    cr_assert(arb_json_equal(written, built), "%s", b.ptr);
    cJSON_Delete(written);
    cJSON_Delete(built);
    arb_buf_release(&b);
    arb_result_release(&r);
    arb_check_free(c);
}
