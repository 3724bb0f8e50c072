/*
 * Shards (arbiter run --shard K/N): the bucket of a case, from bytes 24..31 of the HMAC that
 * blinds it (blind.h), pinned to values computed independently (Python's hmac module:
 * 1 + int.from_bytes(HMAC-SHA256(seed as 8 big-endian bytes, id)[24:], 'big') % n); and the
 * shard a run's stored scope names (run_int.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/blind.h"
#include "../../src/run/run_int.h"

Test(shard, should_take_the_bucket_from_bytes_24_to_31)
{
    unsigned char mac[32];

    memset(mac, 0xff, 24);
    memset(mac + 24, 0, 8);
    mac[31] = 5;
    cr_assert_eq(arb_shard_of_hmac(mac, 4), 2, "5 mod 4 is 1: bucket 2");
    cr_assert_eq(arb_shard_of_hmac(mac, 1), 1);
    cr_assert_eq(arb_shard_of_hmac(mac, 0), 0, "no buckets");
    memset(mac, 0, 24); /* the bytes the A/B decisions of the first 192 pairs read */
    cr_assert_eq(arb_shard_of_hmac(mac, 4), 2, "bytes 0..23 do not count");
    mac[31] = 0;
    mac[24] = 0x80; /* 2^63: 2 mod 3, 0 mod 1024 */
    cr_assert_eq(arb_shard_of_hmac(mac, 3), 3);
    cr_assert_eq(arb_shard_of_hmac(mac, 1024), 1);
    memset(mac + 24, 0xff, 8); /* 2^64 - 1: 0 mod 3, 1023 mod 1024 */
    cr_assert_eq(arb_shard_of_hmac(mac, 3), 1);
    cr_assert_eq(arb_shard_of_hmac(mac, 1024), 1024);
}

struct pinned {
    uint64_t seed;
    const char *id;
    unsigned bucket[6]; /* of 1, 2, 3, 4, 10, 1024 */
};

Test(shard, should_match_pinned_buckets)
{
    static const unsigned ns[6] = {1, 2, 3, 4, 10, 1024};
    static const struct pinned p[] = {
        {7, "inv-001", {1, 1, 3, 1, 5, 233}},
        {7, "inv-002", {1, 1, 2, 3, 7, 507}},
        {3, "c00000", {1, 2, 2, 2, 6, 522}},
        {0, "a", {1, 2, 2, 4, 10, 788}},
        {9007199254740991ull, "case-\xc3\xa9", {1, 2, 1, 2, 10, 134}},
        {18446744073709551615ull, "x", {1, 2, 2, 4, 4, 200}},
    };

    for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
        struct arb_blinder *b = NULL;

        cr_assert_eq(arb_blinder_new(p[i].seed, &b), ARB_OK);
        for (size_t j = 0; j < 6; j++) {
            unsigned k = 0;

            cr_assert_eq(arb_blinder_shard(b, p[i].id, ns[j], &k), ARB_OK);
            cr_assert_eq(k, p[i].bucket[j], "seed %llu, '%s', n %u: bucket %u, want %u",
                         (unsigned long long)p[i].seed, p[i].id, ns[j], k, p[i].bucket[j]);
        }
        arb_blinder_free(b);
    }
}

Test(shard, should_be_the_last_16_hex_digits_of_the_blinding_hmac)
{
    struct arb_blinder *b = NULL;
    char id[32], hex[65];
    int a;

    cr_assert_eq(arb_blinder_new(11, &b), ARB_OK);
    for (int i = 0; i < 200; i++) {
        unsigned k = 0;
        unsigned long long v;

        snprintf(id, sizeof(id), "case-%d", i);
        cr_assert_eq(arb_blinder_assign(b, id, 0, &a, hex), ARB_OK);
        v = strtoull(hex + 48, NULL, 16);
        cr_assert_eq(arb_blinder_shard(b, id, 7, &k), ARB_OK);
        cr_assert_eq(k, (unsigned)(v % 7) + 1, "%s: %u", id, k);
    }
    arb_blinder_free(b);
}

Test(shard, should_balance_the_buckets)
{
    struct arb_blinder *b = NULL;
    unsigned count[5] = {0};
    char id[32];

    cr_assert_eq(arb_blinder_new(42, &b), ARB_OK);
    for (int i = 0; i < 10000; i++) {
        unsigned k = 0;

        snprintf(id, sizeof(id), "case-%d", i);
        cr_assert_eq(arb_blinder_shard(b, id, 4, &k), ARB_OK);
        cr_assert(k >= 1 && k <= 4);
        count[k]++;
    }
    arb_blinder_free(b);
    /* 2,500 each within 4.5 standard deviations (sqrt(10000 / 4 * 3 / 4) = 43). */
    for (int k = 1; k <= 4; k++)
        cr_assert(count[k] > 2305 && count[k] < 2695, "bucket %d: %u of 10000", k, count[k]);
}

Test(shard, should_split_a_stored_scope)
{
    struct arb_err err = {{0}};
    unsigned k = 9, n = 9;
    char *rest = NULL;

    cr_assert_eq(run_scope_shard(NULL, &k, &n, &rest, &err), ARB_OK);
    cr_assert(k == 0 && n == 0 && rest == NULL);
    cr_assert_eq(run_scope_shard("{\"shard\":{\"k\":2,\"n\":4}}", &k, &n, &rest, &err), ARB_OK);
    cr_assert(k == 2 && n == 4 && rest == NULL, "nothing but the shard: the unsharded run's "
                                                "scope is every case");
    cr_assert_eq(run_scope_shard("{\"cases\":[\"a\",\"b\"],\"limit\":100,\"shard\":{\"k\":4,"
                                 "\"n\":4}}",
                                 &k, &n, &rest, &err),
                 ARB_OK);
    cr_assert(k == 4 && n == 4);
    cr_assert_str_eq(rest, "{\"cases\":[\"a\",\"b\"],\"limit\":100}");
    free(rest);
    cr_assert_eq(run_scope_shard("{\"limit\":3}", &k, &n, &rest, &err), ARB_OK);
    cr_assert(k == 0 && n == 0);
    cr_assert_str_eq(rest, "{\"limit\":3}");
    free(rest);
    rest = NULL;
    cr_assert_eq(run_scope_shard("{\"shard\":{\"k\":5,\"n\":4}}", &k, &n, &rest, &err), ARB_EPARSE);
    cr_assert(strstr(err.msg, "1 <= K <= N <= 1024"), "%s", err.msg);
    cr_assert_eq(run_scope_shard("{\"shard\":{\"k\":1,\"n\":1025}}", &k, &n, &rest, &err),
                 ARB_EPARSE);
    cr_assert_eq(run_scope_shard("{\"shard\":{\"k\":1.5,\"n\":4}}", &k, &n, &rest, &err),
                 ARB_EPARSE);
    cr_assert_null(rest);
}
